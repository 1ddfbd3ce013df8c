# Crucible pytest runner, part 05: hook calls pytest itself made, and hook implementations that are allowed.
# The parts are one program, concatenated in name order (grade-repo-task.ts).


# --- genuine hook calls ------------------------------------------------------------------------
_PLUGGY = (pluggy._callers._multicall.__code__, pluggy._manager.PluginManager._hookexec.__code__, pluggy._hooks._HookCaller.__call__.__code__)
_WRAP_SESSION = _pytest.main.wrap_session.__code__
_PERFORM_COLLECT = _pytest.main.Session.perform_collect.__code__
_RUNTESTLOOP = _pytest.main.pytest_runtestloop.__code__
_TRUSTED = _codes_of([m for n, m in list(sys.modules.items()) if m is not None and n.split(".")[0] in ("pytest", "_pytest", "pluggy")])


def _functions_of(modules):
    """Every function object the given modules (and the classes they define) hold, as loaded
    now: the only pytest and pluggy functions a hook implementation may be."""
    out = set()
    for mod in modules:
        for v in list(vars(mod).values()):
            if _isinstance(v, type) and getattr(v, "__module__", None) == mod.__name__:
                for cv in list(vars(v).values()):
                    if _isinstance(cv, (classmethod, staticmethod)):
                        cv = cv.__func__
                    if _isinstance(cv, _FunctionType):
                        out.add(cv)
            elif _isinstance(v, _FunctionType):
                out.add(v)
    return out


_TRUSTED_FNS = _functions_of([m for n, m in list(sys.modules.items()) if m is not None and n.split(".")[0] in ("pytest", "_pytest", "pluggy")])
_multicall = pluggy._callers._multicall
_HookCaller = pluggy._hooks._HookCaller


def _genuine(expect, impls=False, running=False):
    """The `state` of the `_main` below, for a hook that pytest itself called: the hook's callers
    must be pluggy's three frames, then `expect` (any caller when None), then only pytest's,
    pluggy's and this plugin's own code up to `_main`. Anything else (the code under test
    calling a hook, or pytest through it) is refused; nothing but `state` leaves this function,
    and no frame survives it in a local. With `impls`, the implementations this very hook call
    runs (pluggy's own list, not the caller's current one) must all be allowed ones."""
    f = _getframe(1)  # the hook
    ok = f.f_code in _HOOKS
    f = f.f_back
    listed = None
    for code in _PLUGGY:
        if f is None or f.f_code is not code:
            ok = False
            break
        if impls and code is _PLUGGY[0]:
            listed = f.f_locals.get("hook_impls")
        f = f.f_back
    if ok and expect is not None and (f is None or f.f_code is not expect):
        ok = False
    while f is not None and f.f_code is not _MAIN:
        if f.f_code not in _CHAIN:
            ok = False
        f = f.f_back
    state = f.f_locals["state"] if f is not None else None
    f = None
    if state is None:
        raise RuntimeError("crucible grader: a hook was called outside the grading run")
    if not ok:
        if len(state["tampered"]) < 20:
            state["tampered"].append("a grader hook was called from outside pytest")
        raise RuntimeError("crucible grader: a grader hook was called from outside pytest")
    if impls:
        bad = _foreign_impls(state, listed if _isinstance(listed, list) else None)
        if bad:
            if len(state["tampered"]) < 20:
                state["tampered"].append("a hook runs code that is neither pytest's nor the task's: %s" % bad)
            raise RuntimeError("crucible grader: a hook implementation was added by the code under test")
    if running:
        return state, list(listed) if _isinstance(listed, list) else []
    return state


def _impl_ok(hi, state):
    """Whether one pluggy HookImpl runs a function pytest, pluggy, an installed plugin or the
    task's own conftests define (the conftests' code is pinned: see `_precompile`)."""
    if type(hi) is not pluggy._hooks.HookImpl:
        return False
    fn = vars(hi).get("function")
    if type(fn) is types.MethodType:
        if fn.__self__ is not vars(hi).get("plugin"):
            return False
        fn = fn.__func__
    if type(fn) is not _FunctionType:
        return False
    return fn in _TRUSTED_FNS or fn in state["trusted_fns"] or fn.__code__.co_filename in state["conftest_files"]


def _foreign_impls(state, running):
    """The first hook implementation in `running` (a list pluggy is running) that is not allowed."""
    if running is None:
        return "(the running hook list is not pluggy's)"
    for hi in running:
        if not _impl_ok(hi, state):
            return repr(getattr(vars(hi).get("function"), "__qualname__", "?")) if type(hi) is pluggy._hooks.HookImpl else type(hi).__name__
    return None


def _caller_impls(caller):
    d = vars(caller) if hasattr(caller, "__dict__") else {}
    if "_hookimpls" in d:
        return list(d["_hookimpls"])
    return list(d.get("_nonwrappers", [])) + list(d.get("_wrappers", []))


def _hooks_changed(state, pm):
    """Whether the plugin manager's hooks still run only allowed code: pluggy's own executor, the
    same hook callers as at session start, and allowed implementations in each."""
    if vars(pm).get("_inner_hookexec", _multicall) is not _multicall:
        return "pluggy's hook executor was replaced"
    relay = pm.hook
    if _id(relay) != state["relay"]:
        return "the hook relay was replaced"
    for name, caller in list(vars(relay).items()):
        want = state["callers"].get(name)
        if want is not None and want != _id(caller):
            return "hook %s was replaced" % name
        if type(caller) is not _HookCaller:
            return "hook %s is not pluggy's" % name
        hx = vars(caller).get("_hookexec")
        if type(hx) is not types.MethodType or hx.__func__ is not pluggy._manager.PluginManager._hookexec or hx.__self__ is not pm:
            return "hook %s runs through another executor" % name
        bad = _foreign_impls(state, _caller_impls(caller))
        if bad:
            return "hook %s runs code that is neither pytest's nor the task's: %s" % (name, bad)
    return None
