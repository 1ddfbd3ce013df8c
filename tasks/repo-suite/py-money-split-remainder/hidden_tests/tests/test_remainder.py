from ledger import Money


def total(parts):
    return sum((p.amount for p in parts), 0)


def test_split_distributes_remainder():
    parts = Money("100.00", "EUR").split(3)
    assert [str(p.amount) for p in parts] == ["33.34", "33.33", "33.33"]


def test_split_yen():
    assert [str(p.amount) for p in Money(100, "JPY").split(3)] == ["34", "33", "33"]


def test_allocate_remainder():
    parts = Money("100.00", "EUR").allocate([1, 1, 1])
    assert total(parts) == Money("100.00", "EUR").amount
    assert [str(p.amount) for p in parts] == ["33.34", "33.33", "33.33"]


def test_allocate_ratios_sum():
    parts = Money("0.05", "USD").allocate([3, 7])
    assert [str(p.amount) for p in parts] == ["0.02", "0.03"]
    assert total(Money("1000.01", "USD").allocate([1, 2, 3, 4])) == Money("1000.01", "USD").amount
