from .slugify import slugify

__all__ = ["slugify"]
