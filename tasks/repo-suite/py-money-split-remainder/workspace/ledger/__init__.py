from .currency import CURRENCIES, minor_units
from .money import CurrencyMismatch, Money

__all__ = ["CURRENCIES", "CurrencyMismatch", "Money", "minor_units"]
