import time


class MonotonicClock:
    def now(self):
        return time.monotonic()


class FakeClock:
    """A clock for tests: time moves only when advance() is called."""

    def __init__(self, start=0.0):
        self.t = start

    def now(self):
        return self.t

    def advance(self, seconds):
        self.t += seconds
