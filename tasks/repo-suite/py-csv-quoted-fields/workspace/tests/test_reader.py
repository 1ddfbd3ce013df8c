import pytest

from csvlite import CsvError, parse_rows, read_dicts


def test_simple_rows():
    assert parse_rows("a,b\n1,2\n") == [["a", "b"], ["1", "2"]]


def test_delimiter():
    assert parse_rows("a;b\n1;2") == [["a;b"], ["1;2"]]
    assert parse_rows("a;b\n1;2", delimiter=";") == [["a", "b"], ["1", "2"]]


def test_empty_fields():
    assert parse_rows("a,,c\n") == [["a", "", "c"]]


def test_dicts():
    assert read_dicts("name,age\nann,3\n") == [{"name": "ann", "age": "3"}]


def test_dicts_field_count():
    with pytest.raises(CsvError):
        read_dicts("a,b\n1\n")
