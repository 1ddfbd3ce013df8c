from .bucket import TokenBucket
from .clock import FakeClock, MonotonicClock
from .registry import Registry

__all__ = ["FakeClock", "MonotonicClock", "Registry", "TokenBucket"]
