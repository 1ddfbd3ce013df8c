class PointerError(LookupError):
    pass
