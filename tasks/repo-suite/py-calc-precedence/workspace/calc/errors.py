class CalcError(ValueError):
    pass
