import datetime

from .separators import split_parts


class DateFormatError(ValueError):
    pass


def parse_date(text):
    """Parse a day-first date (DD/MM/YYYY, also with '-' or '.')."""
    parts = split_parts(text.strip())
    if not parts or len(parts) != 3 or not all(p.isdigit() for p in parts):
        raise DateFormatError(f"not a day-first date: {text!r}")
    day, month, year = (int(p) for p in parts)
    try:
        return datetime.date(year, month, day)
    except ValueError as e:
        raise DateFormatError(f"{text!r}: {e}") from None
