from .errors import CronError
from .schedule import Schedule, parse

__all__ = ["CronError", "Schedule", "parse"]
