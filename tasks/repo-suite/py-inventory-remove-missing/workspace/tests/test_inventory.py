import pytest

from inventory import Inventory


def test_add_and_quantity():
    inv = Inventory()
    inv.add("widget", 3)
    inv.add("widget", 2)
    assert inv.quantity("widget") == 5


def test_remove_reduces_quantity():
    inv = Inventory()
    inv.add("widget", 10)
    inv.remove("widget", 4)
    assert inv.quantity("widget") == 6


def test_low_stock():
    inv = Inventory()
    inv.add("a", 1)
    inv.add("b", 50)
    assert inv.low_stock(5) == ["a"]


def test_rejects_non_positive():
    with pytest.raises(ValueError):
        Inventory().add("a", 0)
