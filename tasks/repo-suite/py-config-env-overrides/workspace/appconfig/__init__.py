from .errors import ConfigError
from .loader import DEFAULTS, load

__all__ = ["ConfigError", "DEFAULTS", "load"]
