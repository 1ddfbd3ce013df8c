import pytest

from mdtable import render


def test_right_and_center():
    out = render(["item", "qty", "note"], [["apple", 3, "ok"], ["kiwi", 12, "fine"]], align=["left", "right", "center"])
    assert out.splitlines() == [
        "| item  | qty | note |",
        "| :---- | --: | :--: |",
        "| apple |   3 |  ok  |",
        "| kiwi  |  12 | fine |",
    ]


def test_center_odd_padding_goes_right():
    out = render(["abcde"], [["x"]], align=["center"])
    assert out.splitlines()[2] == "|   x   |"
    assert render(["abcd"], [["x"]], align=["center"]).splitlines()[2] == "|  x   |"


def test_bad_align():
    with pytest.raises(ValueError):
        render(["a"], [["1"]], align=["middle"])
    with pytest.raises(ValueError):
        render(["a", "b"], [["1", "2"]], align=["left"])


def test_default_is_left():
    assert render(["a"], [["1"]]).splitlines()[1] == "| --- |"
