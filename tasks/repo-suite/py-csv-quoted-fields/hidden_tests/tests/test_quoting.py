import pytest

from csvlite import CsvError, parse_rows, read_dicts


def test_quoted_comma():
    assert parse_rows('"Smith, John",42\n') == [["Smith, John", "42"]]


def test_escaped_quote():
    assert parse_rows('"say ""hi""",x\n') == [['say "hi"', "x"]]


def test_newline_in_quotes_and_crlf():
    assert parse_rows('a,"line1\r\nline2"\r\nb,c\r\n') == [["a", "line1\r\nline2"], ["b", "c"]]


def test_quoted_with_custom_delimiter():
    assert parse_rows('"a;b";c', delimiter=";") == [["a;b", "c"]]


def test_empty_quoted_field():
    assert parse_rows('"",x') == [["", "x"]]


def test_unterminated_quote_reports_start_line():
    with pytest.raises(CsvError) as e:
        parse_rows('a,b\n1,"open\nstill open\n')
    assert e.value.line == 2


def test_text_after_closing_quote():
    with pytest.raises(CsvError) as e:
        parse_rows('x\n"ab"c,1\n')
    assert e.value.line == 2


def test_dicts_with_quotes():
    assert read_dicts('name,city\n"Doe, Jane","New\nYork"\n') == [{"name": "Doe, Jane", "city": "New\nYork"}]
