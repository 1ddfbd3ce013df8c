import string

ALLOWED = set(string.ascii_lowercase + string.digits)


def keep(ch):
    return ch in ALLOWED
