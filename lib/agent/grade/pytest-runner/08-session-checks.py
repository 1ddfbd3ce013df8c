# Crucible pytest runner, part 08: the checks at the end of the session.
# The parts are one program, concatenated in name order (grade-repo-task.ts).


def _allowed_plugins(workspace, conftests, state):
    def pytest_class(cls):
        # a class pytest defines, as it was at session start (not one that names a pytest module)
        mod = vars(cls).get("__module__")
        return type(mod) is str and mod.startswith("_pytest.") and state["snapshot"] is not None and state["snapshot"].get((mod, cls.__name__)) == (_id(cls),)

    def ids(config):
        out = set()
        for p in config.pluginmanager.get_plugins():
            f = getattr(p, "__file__", None)
            if f in conftests:
                out.add(_id(p))
            elif not _isinstance(p, types.ModuleType) and pytest_class(type(p)):
                out.add(_id(p))  # pytest's own session objects (Session, FixtureManager…), whose methods are in the snapshot
            elif getattr(p, "__name__", "").startswith("_pytest.") and f and f.startswith(os.path.dirname(_pytest.__file__)):
                out.add(_id(p))
        return out

    return ids


def _check(state, session):
    problems = []
    problems += _diff(state["snapshot"]) if state["snapshot"] is not None else ["the session never started"]
    if sys.gettrace() is not None or sys.getprofile() is not None:
        problems.append("a trace or profile function is installed")
    if getattr(threading, "_trace_hook", None) is not None or getattr(threading, "_profile_hook", None) is not None:
        problems.append("a thread trace or profile hook is installed")
    if list(sys.meta_path) != state["meta_path"] or list(sys.path_hooks) != state["path_hooks"]:
        problems.append("import hooks changed (sys.meta_path / sys.path_hooks)")
    problems += _module_problems(state)
    hooks = _hooks_changed(state, session.config.pluginmanager) if state["relay"] is not None else None
    if hooks:
        problems.append(hooks)
    allowed = state["conftest_plugins"](session.config)
    for p in session.config.pluginmanager.get_plugins():
        if _id(p) in state["plugins"] or _id(p) in allowed:
            continue
        name = getattr(p, "__name__", "")
        problems.append("a plugin was registered during the run: %r" % (name or type(p).__name__))
    for nodeid, (item, fn, desc, _p, _a, _f) in (state["items"] or {}).items():
        if fn is not None and _describe(getattr(item, "obj", None)) != desc:
            problems.append("test function replaced: " + nodeid)
        # the test's own function under any decorators that name it (functools.wraps: mock.patch)
        inner = fn.__func__ if type(fn) is types.MethodType else fn
        for _ in range(10):
            wrapped = vars(inner).get("__wrapped__") if type(inner) is _FunctionType else None
            if type(wrapped) is not _FunctionType:
                break
            inner = wrapped
        code = getattr(inner, "__code__", None)
        path = str(getattr(item, "path", ""))
        # (a unittest mixin's method comes from another of the task's files, tests/__init__.py)
        if code is not None and code.co_filename != path and code.co_filename not in state["pinned"]:
            problems.append("test %s runs code from %s" % (nodeid, code.co_filename))
        mod = getattr(item, "module", None)
        loader = getattr(getattr(mod, "__spec__", None), "loader", None)
        if mod is not None and type(loader) is not _TaskFileLoader:
            problems.append("test module %s loaded by %s" % (mod.__name__, type(loader).__name__))
    return problems[:20]
