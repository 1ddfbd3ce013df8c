from decimal import Decimal

from salesreport import load_rows, render


def test_rows_are_aligned():
    out = render([("north", Decimal("1.5"))], width=8)
    assert out.splitlines()[0] == "north         1.50"


def test_load_rows():
    rows = load_rows(["region,amount", "north,1.25"])
    assert rows == [("north", Decimal("1.25"))]
