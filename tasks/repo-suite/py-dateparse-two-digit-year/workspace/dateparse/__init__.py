from .parse import DateFormatError, parse_date

__all__ = ["DateFormatError", "parse_date"]
