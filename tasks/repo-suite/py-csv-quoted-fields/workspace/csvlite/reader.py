def parse_rows(text, delimiter=","):
    """Rows of fields from CSV text."""
    rows = []
    for line in text.splitlines():
        if line == "":
            continue
        rows.append(line.split(delimiter))
    return rows
