from .errors import UsageError
from .parser import Parser

__all__ = ["Parser", "UsageError"]
