from .errors import CronError

# (name, lowest, highest)
FIELDS = [("minute", 0, 59), ("hour", 0, 23), ("day", 1, 31), ("month", 1, 12), ("weekday", 0, 6)]


def _number(text, lo, hi, spec):
    if not text.isdigit():
        raise CronError(f"bad field {spec!r}")
    n = int(text)
    if not lo <= n <= hi:
        raise CronError(f"{n} is out of range {lo}-{hi} in {spec!r}")
    return n


def parse_field(spec, lo, hi):
    """The set of values a field allows."""
    if spec == "*":
        return set(range(lo, hi + 1))
    values = set()
    for part in spec.split(","):
        values.add(_number(part, lo, hi, spec))
    return values
