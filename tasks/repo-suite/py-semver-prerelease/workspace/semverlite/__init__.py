from .compare import compare, max_version
from .version import Version, parse

__all__ = ["Version", "compare", "max_version", "parse"]
