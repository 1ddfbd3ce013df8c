from datetime import datetime

import pytest

from crontab import CronError, parse


def test_step_on_star():
    assert parse("*/15 * * * *").minute == {0, 15, 30, 45}


def test_range():
    assert parse("0 9-17 * * *").hour == set(range(9, 18))


def test_range_with_step():
    assert parse("10-30/10 * * * *").minute == {10, 20, 30}


def test_mixed_list():
    assert parse("1,10-12,30-59/10 * * * *").minute == {1, 10, 11, 12, 30, 40, 50}


def test_business_hours_next():
    s = parse("*/15 9-17 * * 1-5")
    # Friday 17:50 -> Monday 09:00
    assert s.next_after(datetime(2024, 3, 1, 17, 50)) == datetime(2024, 3, 4, 9, 0)
    assert s.matches(datetime(2024, 3, 4, 17, 45))


@pytest.mark.parametrize(
    "expr",
    ["5-1 * * * *", "*/0 * * * *", "*/ * * * *", "0-60 * * * *", "1-2-3 * * * *", "a-b * * * *"],
    ids=["reversed", "zero-step", "missing-step", "out-of-range", "two-dashes", "letters"],
)
def test_bad_fields(expr):
    with pytest.raises(CronError):
        parse(expr)
