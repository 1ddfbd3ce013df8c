from decimal import ROUND_DOWN, ROUND_HALF_EVEN, Decimal

from .currency import minor_units


class CurrencyMismatch(ValueError):
    pass


class Money:
    def __init__(self, amount, currency):
        self.currency = currency
        self.quantum = Decimal(1).scaleb(-minor_units(currency))
        self.amount = Decimal(str(amount)).quantize(self.quantum, rounding=ROUND_HALF_EVEN)

    def __eq__(self, other):
        return isinstance(other, Money) and (self.amount, self.currency) == (other.amount, other.currency)

    def __repr__(self):
        return f"Money({str(self.amount)!r}, {self.currency!r})"

    def __add__(self, other):
        if other.currency != self.currency:
            raise CurrencyMismatch(f"{self.currency} + {other.currency}")
        return Money(self.amount + other.amount, self.currency)

    def split(self, n):
        """n parts that add up to this amount."""
        if n < 1:
            raise ValueError("split into at least one part")
        part = (self.amount / n).quantize(self.quantum, rounding=ROUND_DOWN)
        return [Money(part, self.currency) for _ in range(n)]

    def allocate(self, ratios):
        """Parts proportional to `ratios` that add up to this amount."""
        total = sum(ratios)
        if total <= 0 or any(r < 0 for r in ratios):
            raise ValueError("ratios must be non-negative with a positive sum")
        return [Money((self.amount * r / total).quantize(self.quantum, rounding=ROUND_DOWN), self.currency) for r in ratios]
