import pytest

from textfmt import paragraphs, wrap


def test_wrap():
    assert wrap("the quick brown fox jumps", 10) == ["the quick", "brown fox", "jumps"]


def test_exact_fit():
    assert wrap("abc def", 7) == ["abc def"]


def test_width_validated():
    with pytest.raises(ValueError):
        wrap("x", 0)


def test_paragraphs():
    assert paragraphs("a b\nc\n\n\nd") == [["a", "b", "c"], ["d"]]
