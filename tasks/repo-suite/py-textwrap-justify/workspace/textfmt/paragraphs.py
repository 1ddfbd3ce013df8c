def paragraphs(text):
    """Paragraphs (lists of words), split on blank lines."""
    out, current = [], []
    for line in text.splitlines():
        if line.strip():
            current.extend(line.split())
        elif current:
            out.append(current)
            current = []
    if current:
        out.append(current)
    return out
