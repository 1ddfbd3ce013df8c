from datetime import datetime

import pytest

from crontab import CronError, parse


def test_single_values():
    s = parse("30 2 * * 0")
    assert s.next_after(datetime(2024, 1, 1)) == datetime(2024, 1, 7, 2, 30)


def test_lists():
    s = parse("0,30 * * * *")
    assert s.next_after(datetime(2024, 1, 1, 10, 5)) == datetime(2024, 1, 1, 10, 30)


def test_wrong_field_count():
    with pytest.raises(CronError):
        parse("* * *")


def test_out_of_range():
    with pytest.raises(CronError):
        parse("60 * * * *")
