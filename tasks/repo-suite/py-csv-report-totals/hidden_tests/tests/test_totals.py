from decimal import Decimal

from salesreport import load_rows, render


def total_line(out):
    return out.splitlines()[-1].split()


def test_total_of_example():
    rows = load_rows(open("examples/march.csv"))
    assert total_line(render(rows)) == ["TOTAL", "225.00"]


def test_total_single_row():
    assert total_line(render([("x", Decimal("2"))])) == ["TOTAL", "2.00"]


def test_total_no_rows():
    assert total_line(render([])) == ["TOTAL", "0.00"]
