import pytest

from lrucache import LRUCache, Stats


def test_get_put():
    c = LRUCache(2)
    c.put("a", 1)
    assert c.get("a") == 1
    assert c.get("zz", 0) == 0


def test_evicts_oldest_when_untouched():
    c = LRUCache(2)
    c.put("a", 1)
    c.put("b", 2)
    c.put("c", 3)
    assert "a" not in c and "b" in c and "c" in c


def test_stats():
    c = LRUCache(1)
    c.put("a", 1)
    c.get("a")
    c.get("b")
    assert c.stats() == Stats(hits=1, misses=1, evictions=0)


def test_capacity_validated():
    with pytest.raises(ValueError):
        LRUCache(0)
