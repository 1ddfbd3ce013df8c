from .version import parse


def _key(v):
    return (v.major, v.minor, v.patch, v.prerelease)


def compare(a, b):
    """-1, 0 or 1 as version a is lower than, equal to or higher than b."""
    ka, kb = _key(parse(a)), _key(parse(b))
    return (ka > kb) - (ka < kb)


def max_version(versions):
    best = None
    for v in versions:
        if best is None or compare(v, best) > 0:
            best = v
    return best
