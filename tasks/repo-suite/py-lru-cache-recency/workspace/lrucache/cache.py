from collections import OrderedDict

from .stats import Stats

_MISSING = object()


class LRUCache:
    def __init__(self, capacity):
        if capacity < 1:
            raise ValueError("capacity must be at least 1")
        self.capacity = capacity
        self._data = OrderedDict()
        self._stats = Stats()

    def get(self, key, default=None):
        value = self._data.get(key, _MISSING)
        if value is _MISSING:
            self._stats.misses += 1
            return default
        self._stats.hits += 1
        return value

    def put(self, key, value):
        if len(self._data) >= self.capacity:
            self._data.popitem(last=False)
            self._stats.evictions += 1
        self._data[key] = value

    def __len__(self):
        return len(self._data)

    def __contains__(self, key):
        return key in self._data

    def stats(self):
        return Stats(self._stats.hits, self._stats.misses, self._stats.evictions)
