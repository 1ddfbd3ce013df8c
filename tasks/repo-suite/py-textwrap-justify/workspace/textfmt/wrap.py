def wrap_words(words, width):
    lines, current = [], []
    for word in words:
        if len(word) > width:
            continue
        if current and len(" ".join(current + [word])) > width:
            lines.append(current)
            current = []
        current.append(word)
    if current:
        lines.append(current)
    return lines


def wrap(text, width):
    """Lines of at most `width` characters, words kept whole."""
    if width < 1:
        raise ValueError("width must be positive")
    return [" ".join(line) for line in wrap_words(text.split(), width)]
