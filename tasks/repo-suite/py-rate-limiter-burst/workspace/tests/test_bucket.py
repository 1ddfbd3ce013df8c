from ratelimit import FakeClock, Registry, TokenBucket


def test_starts_full_then_limits():
    clock = FakeClock()
    b = TokenBucket(rate=1, capacity=3, clock=clock)
    assert [b.allow() for _ in range(4)] == [True, True, True, False]


def test_refills_over_time():
    clock = FakeClock()
    b = TokenBucket(rate=2, capacity=2, clock=clock)
    b.allow(), b.allow()
    assert not b.allow()
    clock.advance(0.5)
    assert b.allow()


def test_registry_is_per_key():
    r = Registry(rate=1, capacity=1, clock=FakeClock())
    assert r.allow("a") and r.allow("b")
    assert not r.allow("a")
