from .errors import UnknownTarget


def build_order(targets):
    """targets: name -> list of the names it depends on. Returns names, dependencies first."""
    for name, deps in targets.items():
        for dep in deps:
            if dep not in targets:
                raise UnknownTarget(f"{name} depends on unknown target {dep}")
    order = []

    def visit(name):
        for dep in sorted(targets[name]):
            visit(dep)
        order.append(name)

    for name in sorted(targets):
        if name not in order:
            visit(name)
    return order
