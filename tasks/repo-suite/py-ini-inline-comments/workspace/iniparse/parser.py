from .config import Config


class ParseError(ValueError):
    def __init__(self, lineno, message):
        super().__init__(f"line {lineno}: {message}")
        self.lineno = lineno


def loads(text):
    sections = {}
    current = None
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line[0] in ";#":
            continue
        if line.startswith("[") and line.endswith("]"):
            current = line[1:-1].strip()
            sections.setdefault(current, {})
            continue
        if "=" not in line:
            raise ParseError(lineno, f"expected key = value, got {line!r}")
        if current is None:
            raise ParseError(lineno, "key outside of a section")
        key, value = line.split("=", 1)
        sections[current][key.strip()] = value.strip()
    return Config(sections)
