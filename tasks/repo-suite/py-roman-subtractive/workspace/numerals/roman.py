from .table import SYMBOLS, VALUES


def to_roman(n):
    if not isinstance(n, int) or not 0 < n < 4000:
        raise ValueError("roman numerals cover 1..3999")
    out = []
    for value, symbol in SYMBOLS:
        count, n = divmod(n, value)
        out.append(symbol * count)
    return "".join(out)


def from_roman(s):
    if not s or any(c not in VALUES for c in s):
        raise ValueError(f"not a roman numeral: {s!r}")
    return sum(VALUES[c] for c in s)
