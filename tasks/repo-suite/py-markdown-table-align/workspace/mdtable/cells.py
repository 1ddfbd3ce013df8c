def cell_text(value):
    """Text for one cell: None is empty, pipes are escaped, newlines become spaces."""
    if value is None:
        return ""
    return str(value).replace("|", "\\|").replace("\n", " ")
