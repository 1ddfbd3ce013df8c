class Namespace:
    def __init__(self, values, positionals):
        self.__dict__.update(values)
        self.positionals = positionals

    def __repr__(self):
        return f"Namespace({self.__dict__!r})"
