from .errors import CalcError
from .tokens import tokenize

_OPS = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "/": lambda a, b: a / b,
}


def evaluate(text):
    tokens = tokenize(text)
    if not tokens or not isinstance(tokens[0], float):
        raise CalcError("expected a number")
    result = tokens[0]
    i = 1
    while i < len(tokens):
        op = tokens[i]
        if op not in _OPS or i + 1 >= len(tokens) or not isinstance(tokens[i + 1], float):
            raise CalcError(f"unexpected {op!r}")
        result = _OPS[op](result, tokens[i + 1])
        i += 2
    return result
