from .errors import UsageError
from .namespace import Namespace


def _dest(name):
    return name.lstrip("-").replace("-", "_")


class Parser:
    def __init__(self):
        self._options = {}
        self._flags = set()

    def option(self, name, default=None):
        self._options[name] = default

    def flag(self, name):
        self._flags.add(name)

    def parse(self, argv):
        values = {_dest(n): d for n, d in self._options.items()}
        values.update({_dest(f): False for f in self._flags})
        positionals = []
        i = 0
        while i < len(argv):
            arg = argv[i]
            if arg == "--":
                positionals.extend(argv[i + 1 :])
                break
            if arg.startswith("--"):
                if arg in self._flags:
                    values[_dest(arg)] = True
                elif arg in self._options:
                    if i + 1 >= len(argv):
                        raise UsageError(f"option {arg} needs a value")
                    values[_dest(arg)] = argv[i + 1]
                    i += 1
                else:
                    raise UsageError(f"unknown option {arg}")
            else:
                positionals.append(arg)
            i += 1
        return Namespace(values, positionals)
