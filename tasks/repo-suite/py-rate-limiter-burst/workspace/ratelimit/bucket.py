from .clock import MonotonicClock


class TokenBucket:
    def __init__(self, rate, capacity, clock=None):
        if rate <= 0 or capacity < 1:
            raise ValueError("rate must be positive and capacity at least 1")
        self.rate = rate
        self.capacity = capacity
        self.clock = clock or MonotonicClock()
        self.tokens = float(capacity)
        self.updated = self.clock.now()

    def _refill(self):
        now = self.clock.now()
        self.tokens += (now - self.updated) * self.rate
        self.updated = now

    def allow(self, cost=1):
        self._refill()
        if self.tokens >= cost:
            self.tokens -= cost
            return True
        return False

    def retry_after(self, cost=1):
        """Seconds until `cost` tokens are available."""
        return 1 / self.rate
