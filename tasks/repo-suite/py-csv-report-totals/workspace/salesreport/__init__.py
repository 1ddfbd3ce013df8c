from .load import load_rows
from .render import render

__all__ = ["load_rows", "render"]
