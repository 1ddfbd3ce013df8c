import re

SEPARATORS = "/-."
_SPLIT = re.compile(r"[/\-.]")


def split_parts(text):
    """Split a date on any supported separator; all separators must be the same."""
    seps = {c for c in text if c in SEPARATORS}
    if len(seps) != 1:
        return None
    return _SPLIT.split(text)
