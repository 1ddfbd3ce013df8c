from .errors import InsufficientStock, InventoryError
from .store import Inventory

__all__ = ["Inventory", "InventoryError", "InsufficientStock"]
