from .cache import LRUCache
from .stats import Stats

__all__ = ["LRUCache", "Stats"]
