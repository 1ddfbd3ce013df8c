from .errors import PointerError
from .pointer import pointer_for, resolve

__all__ = ["PointerError", "pointer_for", "resolve"]
