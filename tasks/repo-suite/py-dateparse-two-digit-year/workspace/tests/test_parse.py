import datetime

import pytest

from dateparse import DateFormatError, parse_date


def test_slashes():
    assert parse_date("31/12/2023") == datetime.date(2023, 12, 31)


def test_dots_and_dashes():
    assert parse_date("01.02.2020") == datetime.date(2020, 2, 1)
    assert parse_date("01-02-2020") == datetime.date(2020, 2, 1)


def test_mixed_separators_rejected():
    with pytest.raises(DateFormatError):
        parse_date("01/02-2020")


def test_invalid_day():
    with pytest.raises(DateFormatError):
        parse_date("31/02/2020")
