from .config import Config
from .parser import ParseError, loads

__all__ = ["Config", "ParseError", "loads"]
