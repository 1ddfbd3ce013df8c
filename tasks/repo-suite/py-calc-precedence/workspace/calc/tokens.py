import re

from .errors import CalcError

_TOKEN = re.compile(r"\s*(?:(\d+(?:\.\d+)?)|(.))")


def tokenize(text):
    """Numbers (as float) and single-character operators; raises on anything else."""
    tokens = []
    for number, op in _TOKEN.findall(text):
        if number:
            tokens.append(float(number))
        elif op.strip():
            if op not in "+-*/%^()":
                raise CalcError(f"unexpected {op!r}")
            tokens.append(op)
    return tokens
