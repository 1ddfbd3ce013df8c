from datetime import timedelta

from .errors import CronError
from .fields import FIELDS, parse_field


class Schedule:
    def __init__(self, minute, hour, day, month, weekday):
        self.minute, self.hour, self.day, self.month, self.weekday = minute, hour, day, month, weekday

    def matches(self, dt):
        weekday = (dt.weekday() + 1) % 7  # Python: Monday=0; cron: Sunday=0
        return dt.minute in self.minute and dt.hour in self.hour and dt.day in self.day and dt.month in self.month and weekday in self.weekday

    def next_after(self, dt):
        t = dt.replace(second=0, microsecond=0) + timedelta(minutes=1)
        for _ in range(366 * 24 * 60 * 5):
            if self.matches(t):
                return t
            t += timedelta(minutes=1)
        raise CronError("the schedule never fires")


def parse(expr):
    parts = expr.split()
    if len(parts) != 5:
        raise CronError(f"a cron expression has 5 fields, got {len(parts)}")
    return Schedule(*(parse_field(p, lo, hi) for p, (_, lo, hi) in zip(parts, FIELDS)))
