# Crucible pytest runner, part 07: the grader's plugin: runs each collected test and records its outcomes.
# The parts are one program, concatenated in name order (grade-repo-task.ts).


class CruciblePlugin:
    """No state of its own: every hook fetches `_main`'s through `_genuine`."""

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionstart(self, session):
        # pytest has configured itself (its rewrite hook, capture, builtin plugins); code from
        # the workspace has not run unless a task-owned conftest imported it
        state = _genuine(_WRAP_SESSION)
        if state["session"] is not None:
            state["tampered"].append("the session started twice")
            return
        state["session"] = session
        state["snapshot"] = _snapshot()
        pm = session.config.pluginmanager
        state["plugins"] = set(_id(p) for p in pm.get_plugins())
        state["meta_path"] = list(sys.meta_path)
        state["path_hooks"] = list(sys.path_hooks)
        for plugin, _dist in pm.list_plugin_distinfo():
            state["trusted_fns"] |= _plugin_functions(plugin)
        state["relay"] = _id(pm.hook)
        state["callers"] = {k: _id(v) for k, v in list(vars(pm.hook).items())}
        _note(state, [_hooks_changed(state, pm)])

    @pytest.hookimpl(tryfirst=True)
    def pytest_pycollect_makeitem(self, collector, name, obj):
        # the first member pytest looks at in a test module: the module has just been imported
        # and nothing of it inspected yet (inspecting a member can run the code under test)
        state = _genuine(None, impls=True)
        if _isinstance(collector, _pytest.python.Module) and _id(collector) not in state["modules"]:
            mod = collector.obj
            state["modules"][_id(collector)] = (collector.nodeid, mod, _module_globals(mod))
        return None

    @pytest.hookimpl(hookwrapper=True, tryfirst=True)
    def pytest_runtest_setup(self, item):
        state = _genuine(None, impls=True)
        state["seen"].add((item.nodeid, "setup"))
        # before its fixtures run, a test has no arguments yet: any are somebody else's
        fa = vars(item).get("funcargs", {})
        if type(fa) is not dict or fa:
            _note(state, ["test %s had its arguments filled in before its fixtures ran" % item.nodeid])
            raise RuntimeError("crucible grader: the test was changed before it ran")
        yield
        # the test module's functions as its fixtures left them (a fixture may monkeypatch them):
        # what the body must still see when it starts
        state["set_up"] = (item, _module_functions(item))

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_call(self, item):
        # just before the test's body: its function, its parameters and every hook still pytest's
        state = _genuine(None, impls=True)
        state["seen"].add((item.nodeid, "call"))
        problems = _item_problems(state, item) + [_hooks_changed(state, item.config.pluginmanager), _funcargs_problem(item)]
        if any(problems):
            _note(state, problems)
            raise RuntimeError("crucible grader: the test was changed before it ran")

    @pytest.hookimpl(tryfirst=True)
    def pytest_pyfunc_call(self, pyfuncitem):
        # The grader calls a test's body itself, right after its last checks: any Python run
        # between a check and the call (pytest's own helpers looked up at run time, an
        # environment write) could swap a test's function in and have it put itself back.
        state, running = _genuine(None, impls=True, running=True)
        item = pyfuncitem
        if item is not state["current"]:
            _note(state, ["a test's body was run for another test: %s" % getattr(item, "nodeid", "?")])
            raise RuntimeError("crucible grader: a test's body was run for another test")
        known = (state["items"] or {}).get(item.nodeid)
        fn = known[1] if known is not None else None
        code = getattr(fn, "__code__", None)
        # pytest collects functions only (a decorator's wrapper, e.g. mock.patch's, is one too)
        if type(code) is not types.CodeType:
            _note(state, ["test %s runs something that is not a function" % item.nodeid])
            raise RuntimeError("crucible grader: the test was changed before it ran")
        # a task conftest's own pytest_pyfunc_call, or an async test (pytest skips it), is pytest's business
        others = [hi for hi in running if not vars(hi).get("hookwrapper") and _hook_function(hi) not in _PYFUNC_OK]
        if code.co_flags & _ASYNC_FLAGS or others:
            state["seen"].add((item.nodeid, "pyfunc"))
            return None
        set_up = state["set_up"]
        problems = _item_problems(state, item) + [_funcargs_problem(item)]
        if set_up is None or set_up[0] is not item or _module_functions(item) != set_up[1]:
            problems.append("test module of %s: a function was rebound between its setup and its body" % item.nodeid)
        fa = vars(item).get("funcargs")
        argnames = getattr(getattr(item, "_fixtureinfo", None), "argnames", None)
        if type(fa) is not dict or type(argnames) is not tuple:
            problems.append("test %s has no arguments pytest made" % item.nodeid)
        if any(problems):
            _note(state, problems)
            raise RuntimeError("crucible grader: the test was changed before it ran")
        args = {}
        for a in argnames:
            args[a] = dict.__getitem__(fa, a)
        state["seen"].add((item.nodeid, "pyfunc"))
        result = fn(**args)
        if hasattr(result, "__await__") or hasattr(result, "__aiter__"):
            _pytest.python.async_warn_and_skip(item.nodeid)
        return True

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_teardown(self, item, nextitem):
        _genuine(None, impls=True)["seen"].add((item.nodeid, "teardown"))

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_makereport(self, item, call):
        _genuine(None, impls=True)["seen"].add((item.nodeid, "makereport:%s" % call.when))
        return None

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logreport(self, report):
        # the outcome as the report is logged, the moment pytest made it: what the verdict uses
        # (the report object lives on, and code that runs later could change it)
        state = _genuine(None, impls=True)
        when, outcome = report.when, report.outcome
        if type(report) is _TestReport and type(when) is str and type(outcome) is str:
            state["seen"].add((report.nodeid, "logreport:%s" % when))
            state["logged"].setdefault((report.nodeid, when), outcome)

    @pytest.hookimpl(trylast=True)
    def pytest_collection_finish(self, session):
        state = _genuine(_PERFORM_COLLECT)
        if session is not state["session"] or state["items"] is not None:
            state["tampered"].append("collection finished twice")
            return
        # each test as it was when pytest collected it: code of the solution's can run between
        # then and now (a later test file's imports, options pytest reads while it filters)
        items = {}
        for item in session.items:
            known = state["collected"].get(item.nodeid)
            if known is None or known[0] is not item:
                _note(state, ["a test pytest did not collect was added: %s" % item.nodeid])
                continue
            items[item.nodeid] = known
        state["items"] = items
        _note(state, _module_problems(state))

    @pytest.hookimpl(tryfirst=True)
    def pytest_itemcollected(self, item):
        state = _genuine(None, impls=True)
        if item.nodeid in state["collected"]:
            _note(state, ["a test was collected twice: %s" % item.nodeid])
            return
        fn = getattr(item, "obj", None)
        state["collected"][item.nodeid] = (item, fn, _describe(fn) if fn is not None else None, _params(item), _item_attrs(item), _fixtures(item))

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item, nextitem):
        # the grader runs each collected test itself and takes its outcomes from the reports
        # pytest's runner returns: no hook call, and nothing the tests can reach, carries them
        state = _genuine(_RUNTESTLOOP)
        tampered = state["tampered"]
        known = (state["items"] or {}).get(item.nodeid)
        if known is None or known[0] is not item:
            tampered.append("an item that was not collected was run: %s" % item.nodeid)
            return True
        if item.nodeid in state["phases"]:
            tampered.append("a test was run twice: %s" % item.nodeid)
            return True
        shadowed = _shadowed(item)
        if shadowed:
            tampered.append("test %s has its methods replaced: %s" % (item.nodeid, ", ".join(shadowed)))
        pm = item.config.pluginmanager
        # before each test and after it: its function and parameters, the test modules' names
        # and the hooks (a change made during one test for the next is seen either side)
        _note(state, _item_problems(state, item) + _module_problems(state) + [_hooks_changed(state, pm)])
        phases = state["phases"][item.nodeid] = {}
        ihook = item.ihook
        ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
        state["current"] = item
        try:
            reports = _runtestprotocol(item, nextitem=nextitem)
        finally:
            state["current"] = None
        ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
        _note(state, _item_problems(state, item) + _module_problems(state) + [_hooks_changed(state, pm)])
        seen = state["seen"]
        for rep in reports:
            when, outcome = rep.when, rep.outcome
            if type(when) is not str or type(outcome) is not str or type(rep) is not _TestReport:
                tampered.append("a report of %s is not pytest's" % item.nodeid)
                continue
            # every report was made and logged with this plugin's checks in the very hook calls
            # (a hook implementation that skips them, or an executor that bypasses pluggy, is seen)
            need = ["makereport:" + when, "logreport:" + when] + ([when] if outcome == "passed" else [])
            if when == "call" and outcome == "passed" and type(item) is _Function:
                need.append("pyfunc")
            missing = [n for n in need if (item.nodeid, n) not in seen]
            if missing:
                _note(state, ["the grader's checks did not run for %s (%s)" % (item.nodeid, ", ".join(missing))])
                phases[when] = "failed"
                continue
            logged = state["logged"].get((item.nodeid, when))
            if logged != outcome:
                _note(state, ["the %s report of %s was changed after it was made (%s, then %s)" % (when, item.nodeid, logged, outcome)])
                phases[when] = "failed"
                continue
            # an xfail is reported as skipped by pytest, so it never counts as a pass
            prev = phases.get(when)
            if prev is None or prev == "passed":
                phases[when] = outcome
        # the framework is checked at every test too: code that patches it for one test and
        # restores it afterwards is still seen (the rest only at the end, after teardown: a
        # test's own monkeypatch of builtins or os is legitimate while it runs)
        if len(tampered) < 20 and state["snapshot"] is not None:
            for problem in _diff(state["snapshot"], framework_only=True):
                if problem not in tampered:
                    tampered.append(problem)
            if set(_id(p) for p in item.config.pluginmanager.get_plugins()) - state["plugins"] - state["conftest_plugins"](item.config):
                tampered.append("a plugin was registered during the run")
        return True

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session, exitstatus):
        state = _genuine(_WRAP_SESSION)
        if session is not state["session"] or state["finished"]:
            state["tampered"].append("the session finished twice")
            return
        state["tampered"].extend(_check(state, session))
        state["finished"] = True
