from .cells import cell_text


def render(headers, rows):
    table = [[cell_text(h) for h in headers]] + [[cell_text(c) for c in row] for row in rows]
    if any(len(r) != len(headers) for r in table):
        raise ValueError("every row needs one cell per header")
    widths = [max(3, *(len(r[i]) for r in table)) for i in range(len(headers))]

    def line(cells):
        return "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths)) + " |"

    out = [line(table[0]), "| " + " | ".join("-" * w for w in widths) + " |"]
    out.extend(line(r) for r in table[1:])
    return "\n".join(out)
