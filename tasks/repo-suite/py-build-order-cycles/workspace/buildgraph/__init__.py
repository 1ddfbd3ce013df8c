from .errors import CycleError, UnknownTarget
from .order import build_order

__all__ = ["CycleError", "UnknownTarget", "build_order"]
