# Crucible pytest runner, part 02: the framework's state as a snapshot, and what changed since.
# The parts are one program, concatenated in name order (grade-repo-task.ts).


_DYNAMIC = {
    ("_pytest.assertion.util", "_reprcompare"),
    ("_pytest.assertion.util", "_assertion_pass"),
    ("_pytest.assertion.util", "_config"),
    ("_pytest.assertion.rewrite", "_config"),
    ("_pytest.runner", "_current_item"),
    ("_pytest.python", "_current_item"),
    ("_pytest.config", "_preinit"),
    ("_pytest.fixtures", "_current_item"),
    ("_pytest.faulthandler", "fault_handler_stderr_key"),
    ("builtins", "_"),
}
_WATCHED_PREFIXES = ("pytest", "_pytest", "pluggy", "unittest", "builtins", "json", "hmac", "hashlib", "__main__", "importlib", "os", "posix", "traceback")


def _watched(name):
    return any(name == p or name.startswith(p + ".") for p in _WATCHED_PREFIXES)


def _describe(obj):
    """What a value is, deep enough that swapping a function's code, defaults or a class's
    method is seen: the object's id, plus for functions the ids of code/defaults/closure. Types
    are read with type() (isinstance would consult an object's own __class__, which can run
    the code under test in the middle of a check)."""
    t = type(obj)
    if t is types.MethodType:
        # a bound method is made anew at each lookup (unittest's test methods: pytest collects
        # the class's function, then binds it to a fresh TestCase per test): it is its function
        return _describe(obj.__func__)
    if t is _FunctionType:
        return (_id(obj), _id(obj.__code__), _id(obj.__defaults__), _id(obj.__kwdefaults__), _id(obj.__closure__))
    if t is classmethod or t is staticmethod:
        return (_id(obj),) + _describe(obj.__func__)
    if t is property:
        return (_id(obj), _describe(obj.fget) if obj.fget else None, _describe(obj.fset) if obj.fset else None)
    return (_id(obj),)


def _snapshot():
    snap = {}
    for modname, mod in list(sys.modules.items()):
        if mod is None or not _watched(modname):
            continue
        snap[("module", modname)] = _id(mod)
        for k, v in list(vars(mod).items()):
            if (modname, k) in _DYNAMIC:
                continue
            snap[(modname, k)] = _describe(v)
            if _isinstance(v, type) and getattr(v, "__module__", None) == modname:
                for ck, cv in list(vars(v).items()):
                    snap[(modname, k, ck)] = _describe(cv)
    return snap


_FRAMEWORK = ("pytest", "_pytest", "pluggy", "unittest", "__main__")


def _diff(before, framework_only=False):
    problems = []
    for key, want in before.items():
        if framework_only and not any((key[1] if key[0] == "module" else key[0]).split(".")[0] == p for p in _FRAMEWORK):
            continue
        try:
            if key[0] == "module":
                have = _id(sys.modules.get(key[1]))
            elif len(key) == 2:
                have = _describe(vars(sys.modules[key[0]])[key[1]])
            else:
                have = _describe(vars(vars(sys.modules[key[0]])[key[1]])[key[2]])
        except KeyError:
            have = None
        if have != want:
            problems.append("changed: " + ".".join(key[1:] if key[0] == "module" else key))
            if len(problems) >= 20:
                break
    return problems


def _codes_of(modules):
    """Every code object (nested ones included) of the functions, methods and properties the
    given modules define: the callers a genuine hook call may have."""
    out = set()

    def add(code):
        if _isinstance(code, types.CodeType) and code not in out:
            out.add(code)
            for c in code.co_consts:
                add(c)

    def fn(v):
        if _isinstance(v, (classmethod, staticmethod)):
            v = v.__func__
        if _isinstance(v, property):
            for f in (v.fget, v.fset, v.fdel):
                fn(f)
            return
        if _isinstance(v, _FunctionType):
            add(v.__code__)

    for mod in modules:
        for v in list(vars(mod).values()):
            fn(v)
            if _isinstance(v, type) and getattr(v, "__module__", None) == mod.__name__:
                for cv in list(vars(v).values()):
                    fn(cv)
    return out
