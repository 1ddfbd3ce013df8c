import pytest

from inventory import Inventory, InsufficientStock


def test_remove_more_than_in_stock():
    inv = Inventory()
    inv.add("widget", 2)
    with pytest.raises(InsufficientStock) as e:
        inv.remove("widget", 5)
    assert e.value.available == 2
    assert inv.quantity("widget") == 2


def test_remove_unknown_item():
    inv = Inventory()
    with pytest.raises(InsufficientStock):
        inv.remove("gadget", 1)
    assert inv.low_stock(1) == []


def test_remove_everything():
    inv = Inventory()
    inv.add("widget", 2)
    inv.remove("widget", 2)
    assert inv.quantity("widget") == 0
