import datetime

from dateparse import parse_date


def test_two_digit_year_this_century():
    assert parse_date("03/04/24") == datetime.date(2024, 4, 3)


def test_two_digit_year_pivot():
    assert parse_date("01/01/68") == datetime.date(2068, 1, 1)
    assert parse_date("01/01/69") == datetime.date(1969, 1, 1)


def test_four_digit_year_unchanged():
    assert parse_date("01/01/0999") == datetime.date(999, 1, 1)
