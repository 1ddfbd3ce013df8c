"""Crucible's pytest runner for grading repository tasks (workers/agent/grade).

Runs inside the grading sandbox as `python3 -I -B RUNNER`, with a one-line JSON job on stdin.
Everything that decides the verdict is set up here BEFORE any workspace code is imported:
the job (with the report key) is read and stdin closed, the report file is created (O_EXCL)
outside the workspace, pytest and its plugins are imported, and the framework's state is
snapshotted. The plugin below records each test's outcome from pytest's own reports and, at
session end, checks that the framework was not changed by the code under test, then writes
ONE report: a JSON document and its HMAC-SHA256 under the job's key. The host accepts only
that exact shape. What the tests print, exit codes, and any other file are never read.
"""
import sys
import os

_job = __import__("json").loads(sys.stdin.buffer.readline())
os.close(0)
os.open("/dev/null", os.O_RDONLY)  # fd 0 again, so nothing later reads the job

import gc
import hmac
import hashlib
import json
import types
import threading
import importlib
import pytest
import _pytest
import pluggy

# every pytest module a run may use, imported now so all of them are in the snapshot
for _name in (
    "_pytest.main", "_pytest.python", "_pytest.runner", "_pytest.reports", "_pytest.fixtures",
    "_pytest.nodes", "_pytest.outcomes", "_pytest.skipping", "_pytest.mark", "_pytest.mark.structures",
    "_pytest.config", "_pytest.terminal", "_pytest.capture", "_pytest.assertion", "_pytest.assertion.rewrite",
    "_pytest.assertion.util", "_pytest.python_api", "_pytest.unittest", "_pytest.warnings", "_pytest.logging",
    "_pytest.monkeypatch", "_pytest.tmpdir", "_pytest.recwarn", "_pytest.junitxml", "_pytest.doctest",
    "_pytest.nose", "_pytest.stepwise", "_pytest.setuponly", "_pytest.setupplan", "_pytest.faulthandler",
    "_pytest.threadexception", "_pytest.unraisableexception", "_pytest.legacypath", "_pytest.pathlib",
    "_pytest.compat", "unittest", "unittest.case", "unittest.mock", "pluggy._hooks", "pluggy._manager",
    "pluggy._callers", "pluggy._result",
):
    try:
        importlib.import_module(_name)
    except ImportError:
        pass

_KEY = bytes.fromhex(_job["key"])
_REPORT_FD = os.open(_job["report"], os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND | os.O_CLOEXEC, 0o600)
_WORKSPACE = _job["workspace"]
_ALLOWED_CONFTESTS = set(os.path.join(_WORKSPACE, p) for p in _job["conftests"])
_write = os.write
_hmac_new = hmac.new
_sha256 = hashlib.sha256
_dumps = json.dumps
_id = id
_isinstance = isinstance
_FunctionType = types.FunctionType

# Names pytest itself rebinds during a run (checked empirically; see grade tests), never checked.
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
_WATCHED_PREFIXES = ("pytest", "_pytest", "pluggy", "unittest", "builtins", "json", "hmac", "hashlib", "__main__", "importlib", "os", "posix")


def _watched(name):
    return any(name == p or name.startswith(p + ".") for p in _WATCHED_PREFIXES)


def _describe(obj):
    """What a value is, deep enough that swapping a function's code, defaults or a class's
    method is seen: the object's id, plus for functions the ids of code/defaults/closure."""
    if _isinstance(obj, _FunctionType):
        return (_id(obj), _id(obj.__code__), _id(obj.__defaults__), _id(obj.__kwdefaults__), _id(obj.__closure__))
    if _isinstance(obj, (classmethod, staticmethod)):
        return (_id(obj),) + _describe(obj.__func__)
    if _isinstance(obj, property):
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


class CruciblePlugin:
    def __init__(self):
        self.phases = {}
        self.items = {}
        self.tampered = []
        self.snapshot = None
        self.plugins = None

    def pytest_sessionstart(self, session):
        # pytest has configured itself (its rewrite hook, capture, builtin plugins); code from
        # the workspace has not run unless a task-owned conftest imported it
        self.snapshot = _snapshot()
        self.plugins = set(_id(p) for p in session.config.pluginmanager.get_plugins())
        self.meta_path = list(sys.meta_path)
        self.path_hooks = list(sys.path_hooks)

    @pytest.hookimpl(trylast=True)
    def pytest_collection_finish(self, session):
        for item in session.items:
            fn = getattr(item, "obj", None)
            self.items[item.nodeid] = (item, fn, _describe(fn) if fn is not None else None)

    def pytest_runtest_logreport(self, report):
        # the framework is checked at every result too: code that patches it for one test and
        # restores it afterwards is still seen (the rest only at the end, after teardown: a
        # test's own monkeypatch of builtins or os is legitimate while it runs)
        if report.when == "call" and self.snapshot is not None and len(self.tampered) < 20:
            for problem in _diff(self.snapshot, framework_only=True):
                if problem not in self.tampered:
                    self.tampered.append(problem)
        d = self.phases.setdefault(report.nodeid, {})
        # a phase reported twice (a forged call) is kept as its worst outcome; an xfail is
        # reported as skipped by pytest, so it never counts as a pass
        prev = d.get(report.when)
        outcome = report.outcome
        if prev is None or prev == "passed":
            d[report.when] = outcome

    def _check(self, session):
        problems = list(self.tampered)
        problems += _diff(self.snapshot) if self.snapshot is not None else ["the session never started"]
        if sys.gettrace() is not None or sys.getprofile() is not None:
            problems.append("a trace or profile function is installed")
        if getattr(threading, "_trace_hook", None) is not None or getattr(threading, "_profile_hook", None) is not None:
            problems.append("a thread trace or profile hook is installed")
        if list(sys.meta_path) != self.meta_path or list(sys.path_hooks) != self.path_hooks:
            problems.append("import hooks changed (sys.meta_path / sys.path_hooks)")
        for p in session.config.pluginmanager.get_plugins():
            if _id(p) in self.plugins:
                continue
            f = getattr(p, "__file__", None)
            name = getattr(p, "__name__", "")
            if f in _ALLOWED_CONFTESTS or (name.startswith("_pytest.") and f and f.startswith(os.path.dirname(_pytest.__file__))):
                continue
            if type(p).__module__.startswith("_pytest.") and not _isinstance(p, types.ModuleType):
                continue  # pytest's own session objects (Session, FixtureManager…), whose methods are in the snapshot
            problems.append("a plugin was registered during the run: %r" % (name or type(p).__name__))
        for nodeid, (item, fn, desc) in self.items.items():
            if fn is not None and _describe(getattr(item, "obj", None)) != desc:
                problems.append("test function replaced: " + nodeid)
            code = getattr(fn, "__code__", None)
            path = str(getattr(item, "path", ""))
            if code is not None and code.co_filename != path:
                problems.append("test %s runs code from %s" % (nodeid, code.co_filename))
            mod = getattr(item, "module", None)
            loader = getattr(getattr(mod, "__spec__", None), "loader", None)
            if mod is not None and type(loader).__module__ not in ("_pytest.assertion.rewrite", "importlib._bootstrap_external", "_frozen_importlib_external"):
                problems.append("test module %s loaded by %s" % (mod.__name__, type(loader).__name__))
        return problems[:20]

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session, exitstatus):
        results = {}
        for nodeid, d in self.phases.items():
            if d.get("setup") not in (None, "passed"):
                results[nodeid] = "error" if d.get("setup") == "failed" else "skipped"
            elif d.get("call") is None:
                results[nodeid] = "error"
            elif d.get("teardown") == "failed":
                results[nodeid] = "error"
            else:
                results[nodeid] = d["call"]
        doc = _dumps({"nonce": _job["nonce"], "results": results, "tampered": self._check(session), "exitstatus": int(exitstatus)}, sort_keys=True)
        body = doc.encode("utf-8")
        mac = _hmac_new(_KEY, body, _sha256).hexdigest()
        _write(_REPORT_FD, body + b"\n" + mac.encode("ascii") + b"\n")


# what `python -m pytest` in the workspace root would have on sys.path (with -I, cwd is not)
sys.path.insert(0, _WORKSPACE)
os.chdir(_WORKSPACE)
_plugin = CruciblePlugin()
sys.stdout.write("CRUCIBLE-GRADE-READY %s\n" % _job["nonce"])
sys.stdout.flush()
_code = pytest.main(list(_job["args"]), plugins=[_plugin])
sys.stdout.flush()
os._exit(0 if int(_code) in (0, 1) else 3)
