from .bucket import TokenBucket


class Registry:
    """One bucket per client key."""

    def __init__(self, rate, capacity, clock=None):
        self.rate, self.capacity, self.clock = rate, capacity, clock
        self.buckets = {}

    def allow(self, key):
        bucket = self.buckets.get(key)
        if bucket is None:
            bucket = self.buckets[key] = TokenBucket(self.rate, self.capacity, self.clock)
        return bucket.allow()
