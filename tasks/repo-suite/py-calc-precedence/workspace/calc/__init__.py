from .errors import CalcError
from .evaluate import evaluate
from .tokens import tokenize

__all__ = ["CalcError", "evaluate", "tokenize"]
