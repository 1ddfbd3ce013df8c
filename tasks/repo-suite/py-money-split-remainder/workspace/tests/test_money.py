import pytest

from ledger import CurrencyMismatch, Money


def test_rounds_to_minor_unit():
    assert Money("1.005", "EUR").amount == Money("1.00", "EUR").amount
    assert str(Money("12.7", "JPY").amount) == "13"


def test_add():
    assert Money("1.10", "EUR") + Money("2.20", "EUR") == Money("3.30", "EUR")
    with pytest.raises(CurrencyMismatch):
        Money(1, "EUR") + Money(1, "USD")


def test_even_split():
    assert Money("9.00", "USD").split(3) == [Money("3.00", "USD")] * 3


def test_allocate_even():
    assert Money("10.00", "EUR").allocate([1, 1]) == [Money("5.00", "EUR")] * 2
