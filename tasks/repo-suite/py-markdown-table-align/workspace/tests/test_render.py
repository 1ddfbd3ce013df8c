import pytest

from mdtable import render


def test_default_table():
    assert render(["name", "qty"], [["apple", 3], ["kiwi", 12]]).splitlines() == [
        "| name  | qty |",
        "| ----- | --- |",
        "| apple | 3   |",
        "| kiwi  | 12  |",
    ]


def test_escapes_pipes():
    assert "a\\|b" in render(["x"], [["a|b"]])


def test_row_length_checked():
    with pytest.raises(ValueError):
        render(["a", "b"], [["only one"]])
