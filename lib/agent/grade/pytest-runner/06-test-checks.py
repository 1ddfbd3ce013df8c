# Crucible pytest runner, part 06: each test's function, parameters, fixtures and module as collected.
# The parts are one program, concatenated in name order (grade-repo-task.ts).


_BUILTIN_NAMES = frozenset(vars(builtins))
_CODE_LIKE = (types.FunctionType, types.BuiltinFunctionType, types.MethodType, type, types.ModuleType)


def _module_globals(mod):
    """What a test module's functions, classes and modules are bound to (ids), right after
    pytest imported it, and every name it had: a function rebound later (a test's `add` swapped
    for a right one by the code under test) or a callable added later (a `len` shadowing the
    builtin) is seen. Other values are left out: a test module may keep state in its globals
    (a counter, a client a fixture re-creates through `global`)."""
    out = {}
    for k, v in list(vars(mod).items()):
        if not (k.startswith("__") and k.endswith("__")) and issubclass(type(v), _CODE_LIKE):
            out[k] = _describe(v)
    return out, frozenset(vars(mod))


def _params(item):
    cs = getattr(item, "callspec", None)
    if cs is None:
        return None
    params = getattr(cs, "params", None)
    return (_id(cs), _id(params), tuple((k, _id(v)) for k, v in list(dict.items(params))) if type(params) is dict else None)


def _fixtures(item):
    """The fixture definitions a test's arguments come from (parameters included): which
    objects, and each one's function, arguments, parameters and scope."""
    n2f = getattr(getattr(item, "_fixtureinfo", None), "name2fixturedefs", None)
    if type(n2f) is not dict:
        return None
    out = []
    for name, defs in list(dict.items(n2f)):
        row = [name, _id(defs)]
        if type(defs) in (tuple, list):
            for fd in defs:
                d = vars(fd) if hasattr(fd, "__dict__") else {}
                row.append((_id(fd), _describe(d.get("func")), _id(d.get("argnames")), _id(d.get("params")), _id(d.get("_scope", d.get("scope")))))
        out.append(tuple(row))
    return tuple(out)


def _item_problems(state, item):
    """Whether a collected test still runs its own function with its own parameters."""
    known = (state["items"] or {}).get(item.nodeid)
    if known is None:
        return []
    problems = []
    _, fn, desc, params, attrs, fixtures = known
    if fn is not None and _describe(getattr(item, "obj", None)) != desc:
        problems.append("test function replaced: " + item.nodeid)
    if _fixtures(item) != fixtures:
        problems.append("test %s had its fixtures changed" % item.nodeid)
    if _params(item) != params:
        problems.append("test parameters changed: " + item.nodeid)
    if _item_attrs(item) != attrs:
        problems.append("test %s had its session, config or fixtures replaced" % item.nodeid)
    for obj in (item.session, item.config):
        shadowed = _shadowed(obj)
        if shadowed:
            problems.append("%s has its methods replaced: %s" % (type(obj).__name__, ", ".join(shadowed)))
    return problems


def _module_problems(state):
    problems = []
    for nodeid, mod, (before, names) in list(state["modules"].values()):
        now = vars(mod)
        for k, want in before.items():
            if k not in now or _describe(now[k]) != want:
                problems.append("test module %s: %s was rebound" % (nodeid, k))
                break
        # a callable added later could shadow a builtin the tests call (`len`, `sorted`); other
        # names a test module gains as it runs are its own (typing_extensions' tests define
        # `P`, `UserId` through `global` inside tests)
        for k, v in list(now.items()):
            if k not in names and k in _BUILTIN_NAMES and not (k.startswith("__") and k.endswith("__")) and callable(v):
                problems.append("test module %s: %s was added" % (nodeid, k))
                break
    return problems


# an item's own attributes that decide what runs and how (its session gives its hooks)
_ITEM_ATTRS = ("session", "config", "parent", "path", "keywords", "stash", "_fixtureinfo", "callspec")


def _funcargs_problem(item):
    """Whether each argument a test is about to get is its fixture's value (a parameter's too)."""
    fa = vars(item).get("funcargs")
    request = vars(item).get("_request")
    defs = vars(request).get("_fixture_defs") if request else None
    if type(fa) is not dict or type(defs) is not dict:
        return None
    for k, v in list(fa.items()):
        d = defs.get(k)
        cached = getattr(d, "cached_result", None) if d is not None else None
        if cached is not None and cached[0] is not v:
            return "test %s gets an argument %s that is not its fixture's value" % (item.nodeid, k)
    return None


def _module_functions(item):
    mod = getattr(item, "module", None)
    if type(mod) is not types.ModuleType:
        return None
    return tuple((k, _id(v)) for k, v in list(dict.items(vars(mod))) if issubclass(type(v), _CODE_LIKE))


def _hook_function(hi):
    fn = vars(hi).get("function")
    return fn.__func__ if type(fn) is types.MethodType else fn


# code flags of coroutine and async-generator functions (pytest skips such tests)
_ASYNC_FLAGS = 0x80 | 0x100 | 0x200


def _item_attrs(item):
    # (session, config, parent and path are slots on pytest's Node, the rest in its __dict__)
    return tuple((k, _id(getattr(item, k, None))) for k in _ITEM_ATTRS)


def _note(state, problems):
    tampered = state["tampered"]
    for problem in problems:
        if problem and problem not in tampered and len(tampered) < 20:
            tampered.append(problem)


def _plugin_functions(plugin):
    """The functions an installed plugin (a setuptools entry point) defines, as loaded."""
    if _isinstance(plugin, types.ModuleType):
        return _functions_of([plugin])
    out = set()
    for klass in type(plugin).__mro__:
        for v in list(vars(klass).values()):
            if _isinstance(v, _FunctionType):
                out.add(v)
    return out


def _shadowed(item):
    """Instance attributes that hide a method of the item's class (item.runtest = …)."""
    names = []
    for k in list(vars(item)):
        for klass in type(item).__mro__:
            if k in vars(klass) and callable(vars(klass)[k]):
                names.append(k)
                break
    return names
