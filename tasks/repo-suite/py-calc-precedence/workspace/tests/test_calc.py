import pytest

from calc import CalcError, evaluate, tokenize


def test_tokenize():
    assert tokenize("1 + 2.5*3") == [1.0, "+", 2.5, "*", 3.0]


def test_left_to_right_same_level():
    assert evaluate("10 - 3 - 2") == 5
    assert evaluate("1.5 + 2") == 3.5


def test_bad_character():
    with pytest.raises(CalcError):
        evaluate("1 + a")


def test_trailing_operator():
    with pytest.raises(CalcError):
        evaluate("1 +")
