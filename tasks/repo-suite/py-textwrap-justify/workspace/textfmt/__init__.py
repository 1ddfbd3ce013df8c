from .paragraphs import paragraphs
from .wrap import wrap

__all__ = ["paragraphs", "wrap"]
