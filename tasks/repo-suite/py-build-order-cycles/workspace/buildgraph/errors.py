class CycleError(Exception):
    def __init__(self, cycle):
        super().__init__("dependency cycle: " + " -> ".join(cycle + cycle[:1]))
        self.cycle = cycle


class UnknownTarget(KeyError):
    pass
