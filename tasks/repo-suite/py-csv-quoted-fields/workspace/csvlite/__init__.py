from .dicts import read_dicts
from .errors import CsvError
from .reader import parse_rows

__all__ = ["CsvError", "parse_rows", "read_dicts"]
