def render(rows, width=20):
    lines = [f"{region:<{width}}{amount:>10.2f}" for region, amount in rows]
    total = rows[0][1]
    for _, amount in rows[1:-1]:
        total += amount
    lines.append("-" * (width + 10))
    lines.append(f"{'TOTAL':<{width}}{total:>10.2f}")
    return "\n".join(lines)
