import pytest

from ratelimit import FakeClock, TokenBucket


def test_idle_does_not_exceed_capacity():
    clock = FakeClock()
    b = TokenBucket(rate=10, capacity=5, clock=clock)
    clock.advance(3600)
    assert sum(b.allow() for _ in range(100)) == 5


def test_retry_after_when_empty():
    clock = FakeClock()
    b = TokenBucket(rate=2, capacity=1, clock=clock)
    assert b.allow()
    clock.advance(0.1)
    assert b.retry_after() == pytest.approx(0.4)


def test_retry_after_zero_when_available():
    b = TokenBucket(rate=2, capacity=1, clock=FakeClock())
    assert b.retry_after() == 0
