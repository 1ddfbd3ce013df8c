def merge(intervals):
    """Merge overlapping intervals; the result is sorted by start."""
    out = []
    for start, end in intervals:
        if start >= end:
            raise ValueError(f"empty interval ({start}, {end})")
        if out and start < out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def total_length(intervals):
    return sum(end - start for start, end in merge(intervals))
