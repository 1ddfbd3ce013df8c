from .errors import CsvError
from .reader import parse_rows


def read_dicts(text, delimiter=","):
    rows = parse_rows(text, delimiter)
    if not rows:
        return []
    header, *body = rows
    out = []
    for n, row in enumerate(body, start=2):
        if len(row) != len(header):
            raise CsvError(n, f"expected {len(header)} fields, got {len(row)}")
        out.append(dict(zip(header, row)))
    return out
