from .charset import keep


def slugify(text, max_length=None, sep="-"):
    """Lowercase ASCII words joined by `sep`."""
    words = []
    current = []
    for ch in text.lower():
        if keep(ch):
            current.append(ch)
        elif ch.isspace() or ch in "-_,.;:!?/":
            if current:
                words.append("".join(current))
                current = []
    if current:
        words.append("".join(current))
    slug = sep.join(words)
    if max_length is not None:
        slug = slug[:max_length].rstrip(sep)
    return slug
