CURRENCIES = {"EUR": 2, "USD": 2, "GBP": 2, "JPY": 0}


def minor_units(code):
    try:
        return CURRENCIES[code]
    except KeyError:
        raise ValueError(f"unknown currency {code!r}") from None
