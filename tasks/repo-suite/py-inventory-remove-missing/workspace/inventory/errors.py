class InventoryError(Exception):
    """Base class for inventory errors."""


class InsufficientStock(InventoryError):
    """Raised when removing more of an item than is in stock."""

    def __init__(self, sku, requested, available):
        super().__init__(f"cannot remove {requested} x {sku}: only {available} in stock")
        self.sku = sku
        self.requested = requested
        self.available = available
