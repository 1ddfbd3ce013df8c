class Inventory:
    """Quantities of items keyed by SKU."""

    def __init__(self):
        self._items = {}

    def add(self, sku, qty):
        if qty <= 0:
            raise ValueError("quantity must be positive")
        self._items[sku] = self._items.get(sku, 0) + qty

    def remove(self, sku, qty):
        if qty <= 0:
            raise ValueError("quantity must be positive")
        self._items[sku] = self._items.get(sku, 0) - qty

    def quantity(self, sku):
        return self._items.get(sku, 0)

    def low_stock(self, threshold):
        """SKUs with fewer than `threshold` items, sorted."""
        return sorted(sku for sku, n in self._items.items() if n < threshold)
