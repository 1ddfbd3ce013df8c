import pytest

from numerals import from_roman, to_roman


@pytest.mark.parametrize("n,s", [(4, "IV"), (9, "IX"), (40, "XL"), (90, "XC"), (400, "CD"), (900, "CM"), (1994, "MCMXCIV"), (3999, "MMMCMXCIX")])
def test_to_roman_subtractive(n, s):
    assert to_roman(n) == s


def test_from_roman_subtractive():
    assert from_roman("MCMXCIV") == 1994


def test_round_trip():
    assert all(from_roman(to_roman(n)) == n for n in range(1, 4000))
