"""Crucible's pytest runner for grading repository tasks (workers/agent/grade).

Runs inside the grading sandbox as `python3 -I -B RUNNER`, with a one-line JSON job on stdin.
Everything that decides the verdict is set up here BEFORE any workspace code is imported:
the job (with the report key) is read and stdin closed, the report file is created (O_EXCL)
outside the workspace, pytest and its plugins are imported, and the framework's state is
snapshotted. The plugin below runs each collected test itself and records its outcome from
pytest's own reports and, at session end, checks that the framework was not changed by the
code under test; then `_main` writes ONE report: a JSON document and its HMAC-SHA256 under
the job's key. The host accepts only that exact shape. What the tests print, exit codes, and
any other file are never read.

The code under test runs in this process, so nothing it can reach may sign a report:
- the key, the report's fd and every result live only in `_main`'s local variables (its frame
  stays on the stack for the whole run); no module global, attribute or closure reaches them;
- the plugin's hooks find that state by walking up the stack, and only when the whole chain
  of callers is pytest's and pluggy's own code rooted at `_main` (a hook called by anything
  else is tampering);
- an audit hook, installed before any workspace code and never removable, refuses (and records
  as tampering) every way to get at frames or raw memory: gc's object walks, sys._getframe and
  sys._current_frames except from a few stdlib callers that only read a module name, traceback
  and generator frames except for the traceback module's own walk, trace/profile functions,
  ctypes, /proc/*/mem, and further audit hooks; the process is made non-dumpable, so a child
  process cannot read its memory either.
"""
import sys
import os


def _read_job():
    """The job line from fd 0, parsed; the key's hex never becomes a Python str (it is decoded
    from the raw bytes, which are then overwritten), and stdin is closed."""
    import json
    import binascii

    raw = bytearray()
    while not raw.endswith(b"\n"):
        chunk = os.read(0, 65536)
        if not chunk:
            break
        raw += chunk
    os.close(0)
    os.open("/dev/null", os.O_RDONLY)  # fd 0 again, so nothing later reads the job
    at = raw.find(b'"key":"') + 7
    if at < 7 or raw.find(b'"', at) != at + 64:
        raise SystemExit("crucible runner: the job has no key")
    key = binascii.unhexlify(bytes(raw[at : at + 64]))
    raw[at : at + 64] = b"0" * 64
    job = json.loads(bytes(raw))
    raw[:] = b"\0" * len(raw)
    return job, key


def _no_dumps():
    """PR_SET_DUMPABLE 0: no other process (a test's subprocess included) may read this
    process's memory through /proc/PID/mem; then ctypes is forgotten (the audit hook refuses
    importing it again)."""
    import ctypes

    ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0)
    for name in list(sys.modules):
        if name in ("ctypes", "_ctypes") or name.startswith("ctypes."):
            del sys.modules[name]


import hmac
import hashlib
import json
import types
import threading
import importlib
import importlib.abc
import importlib.machinery
import inspect
import traceback
import builtins
import _thread
import posix
import collections
import typing
import enum
import logging
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
    "_pytest.compat", "_pytest._code.code", "unittest", "unittest.case", "unittest.mock", "pluggy._hooks",
    "pluggy._manager", "pluggy._callers", "pluggy._result",
):
    try:
        importlib.import_module(_name)
    except ImportError:
        pass
import _pytest.config

# …and every plugin pytest may load by name (`-p pytester`), so their functions are the ones trusted
for _name in tuple(_pytest.config.default_plugins) + tuple(sorted(_pytest.config.builtin_plugins)):
    try:
        importlib.import_module("_pytest." + _name)
    except ImportError:
        pass
del _name

import _pytest.main
import _pytest.python
import _pytest.reports
import _pytest.runner
import _pytest.nodes
import _pytest._code.code
import pluggy._callers
import pluggy._manager
import pluggy._hooks

_write = os.write
_hmac_new = hmac.new
_sha256 = hashlib.sha256
_dumps = json.dumps
_id = id
_isinstance = isinstance
_FunctionType = types.FunctionType
_getframe = sys._getframe
_runtestprotocol = _pytest.runner.runtestprotocol

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


# --- failure reports without frames ------------------------------------------------------------
# pytest's own failure rendering walks frames (and calls `__tracebackhide__` callables found in
# them), which the audit hook refuses. The verdict never reads that text, so failures are
# rendered from the traceback module's own walk instead (a native traceback), the only frame
# access the audit hook allows.
_ReprFileLocation = _pytest._code.code.ReprFileLocation
_ExceptionChainRepr = _pytest._code.code.ExceptionChainRepr
_ReprTracebackNative = _pytest._code.code.ReprTracebackNative


def _getreprcrash(self):
    try:
        last = traceback.extract_tb(self.tb)[-1]
        where = (last.filename, last.lineno)
    except Exception:
        where = ("?", 0)
    return _ReprFileLocation(where[0], where[1], self.exconly(tryshort=True))


def _getrepr(self, *args, **kwargs):
    try:
        lines = traceback.format_exception(self.type, self.value, self.tb)
    except Exception as e:
        lines = ["(the traceback could not be rendered: %s)\n" % type(e).__name__]
    return _ExceptionChainRepr([(_ReprTracebackNative(lines), _getreprcrash(self), None)])


def _repr_failure_py(self, excinfo, style=None):
    return _getrepr(excinfo)


_pytest._code.code.ExceptionInfo._getreprcrash = _getreprcrash
_pytest._code.code.ExceptionInfo.getrepr = _getrepr
_pytest.nodes.Node._repr_failure_py = _repr_failure_py


# --- the audit hook ----------------------------------------------------------------------------
def _nested(code, name):
    return next(c for c in code.co_consts if _isinstance(c, types.CodeType) and c.co_name == name)


def _make_audit_hook(state):
    """The audit hook and the switch that arms it. Until armed (just before pytest.main) it
    allows everything; armed, it refuses what would reach frames or memory, records each
    refusal in `state["tampered"]` and raises. Its own lookups re-enter it: those pass.

    Everything it uses is bound here, in its closure: it looks up no module global and no
    builtin by name, so rebinding `__main__`'s names or `builtins` cannot change what it does,
    and it calls no library code written in Python (whose globals could have been rebound)."""
    getframe, get_ident, readlink, listdir, getcwd = sys._getframe, _thread.get_ident, posix.readlink, posix.listdir, posix.getcwd
    access, W_OK = posix.access, posix.W_OK
    isinstance_, len_, str_, bytes_, zip_, vars_, tuple_ = isinstance, len, str, bytes, zip, vars, tuple
    OSError_, RuntimeError_ = OSError, RuntimeError
    bi, tb_mod = builtins, traceback
    frame_attrs = frozenset(("tb_frame", "gi_frame", "cr_frame", "ag_frame"))
    always = frozenset((
        "gc.get_objects", "gc.get_referrers", "gc.get_referents", "sys._current_frames", "sys._current_exceptions",
        "sys.settrace", "sys.setprofile", "sys.addaudithook",
    ))
    watch = always | {"sys._getframe", "object.__getattr__", "object.__setattr__", "function.__new__", "import", "open", "exec", "code.__new__", "compile", "crucible.suspect"}
    # the repository's own code as it was before the agent's patch, and the task's files: a
    # frame they ask for is the library's business (sentinels, logging, decorators in real
    # libraries), not the agent's; what the agent added or changed is never on this list
    trusted_files = state["trusted_files"]
    trusted = state["trusted"]
    suspect = state["suspect"]
    # stdlib helpers that hand their caller a frame: the caller decides
    frame_returners = frozenset((inspect.currentframe.__code__, inspect.stack.__code__))
    # the import system compiles every module it loads under the module's own file name
    source_to_code = importlib.machinery.SourceFileLoader.source_to_code.__code__
    # the task's own Python files (tests, conftests, test helpers), compiled before any
    # workspace code ran: a module of that name may only ever run as exactly that code
    pinned = state["pinned"]
    code_type = types.CodeType
    path_chars = "/.abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"
    busy = set()
    armed = [False]
    tampered = state["tampered"]
    # callers that may get a frame: they only read a module name or a location from it
    getframe_ok = {
        collections.namedtuple.__code__: None,
        typing._caller.__code__: None,
        vars(enum.EnumType)["_create_"].__code__: None,
        pytest.Config.issue_config_time_warning.__code__: None,
        logging.currentframe.__code__: frozenset((logging.Logger.findCaller.__code__,)),
        _genuine.__code__: None,
    }
    # the traceback module's own walk (format_exception, extract_tb, print_exc, logging's
    # exception text): it turns frames into strings and hands none out
    from_gen = traceback.StackSummary._extract_from_extended_frame_gen.__func__.__code__
    ext_gen = _nested(traceback.StackSummary.extract.__func__.__code__, "extended_frame_gen")
    walk_tb = traceback.walk_tb.__code__
    walk_full = traceback._walk_tb_with_full_positions.__code__
    # …as long as nothing it renders locals with was rebound (that would be handed frames)
    tb_module = dict(vars(traceback))
    tb_classes = ((traceback.StackSummary, dict(vars(traceback.StackSummary))), (traceback.FrameSummary, dict(vars(traceback.FrameSummary))))
    real_repr, real_str = builtins.repr, builtins.str
    protected = frozenset(getframe_ok) | {from_gen, ext_gen, walk_tb, walk_full}

    def traceback_intact():
        if bi.repr is not real_repr or bi.str is not real_str:
            return False
        now = vars_(tb_mod)
        for k, v in tb_module.items():
            if now.get(k) is not v:
                return False
        for cls, before in tb_classes:
            now = vars_(cls)
            for k, v in before.items():
                if now.get(k) is not v:
                    return False
        return True

    def tb_walk_ok(caller):
        code, up = caller.f_code, caller.f_back
        if up is None:
            return False
        if code is walk_full:
            return up.f_code is from_gen
        if code is walk_tb:
            if up.f_code is from_gen:
                return True
            return up.f_code is ext_gen and up.f_back is not None and up.f_back.f_code is from_gen
        return False

    def resolve(path, base):
        # `path` (relative to `base`) with every symlink followed, by readlink alone
        if not path.startswith("/"):
            path = base + "/" + path
        todo = [p for p in path.split("/") if p and p != "."]
        done = []
        hops = 0
        while todo:
            part = todo.pop(0)
            if part == "..":
                if done:
                    done.pop()
                continue
            here = "/" + "/".join(done + [part])
            try:
                link = readlink(here)
            except OSError_:
                done.append(part)
                continue
            hops += 1
            if hops > 40 or not link or link[0] not in path_chars:
                done.append(part)  # a loop, or a magic link (pipe:[…], anon_inode:…): not a path
                continue
            if link.startswith("/"):
                done = []
            todo = [p for p in link.split("/") if p and p != "."] + todo
        return "/" + "/".join(done)

    def is_memory(path):
        # whether opening `path` opens a process's memory (/proc/PID/mem) through any symlink; a
        # relative path is tried against the working directory and every directory this process
        # has open (os.open(…, dir_fd=…): the audit event does not carry the dir_fd)
        if isinstance_(path, bytes_):
            path = path.decode("utf-8", "surrogateescape")
        if not isinstance_(path, str_):
            return False
        bases = [getcwd()]
        if not path.startswith("/"):
            for fd in listdir("/proc/self/fd"):
                try:
                    bases.append(readlink("/proc/self/fd/" + fd))
                except OSError_:
                    pass
        for base in bases:
            if base.startswith("/"):
                real = resolve(path, base)
                if real.startswith("/proc/") and real.rsplit("/", 1)[-1] == "mem":
                    return True
        return False

    # native code may come only from the environment's read-only system directories: an
    # extension module the code under test wrote (into the workspace, /tmp, /dev/shm) could
    # read and write this process's memory, key and results included
    system_dirs = ("/usr/", "/lib/", "/lib64/", "/opt/")

    def system_file(path):
        if isinstance_(path, bytes_):
            path = path.decode("utf-8", "surrogateescape")
        if not isinstance_(path, str_) or not path.startswith("/") or "/../" in path or "/./" in path or "//" in path:
            return False
        real = resolve(path, "/")
        cut = real.rfind("/")
        return (
            path.startswith(system_dirs)
            and real.startswith(system_dirs)
            and not access(real, W_OK)
            and not access(real[:cut] or "/", W_OK)
        )

    def where(code):
        return "%s (%s)" % (code.co_name, code.co_filename)

    def refuse(event, args):
        # None, or (kind, why): "tampered" fails every test; "suspect" refuses the call (it
        # raises where it was made) and holds the grade for review with the evidence: frame
        # access the repository's own code did not make may still be honest code of the agent's
        if event in always:
            return "tampered", event
        if event == "sys._getframe":
            caller = getframe(2)
            code = caller.f_code
            if code in getframe_ok:
                parents = getframe_ok[code]
                if parents is None or (caller.f_back is not None and caller.f_back.f_code in parents):
                    return None
            if code in frame_returners and caller.f_back is not None:
                code = caller.f_back.f_code
            if trusted(code):
                return None
            return "suspect", "sys._getframe from %s, code the repository did not have" % where(code)
        if event == "object.__getattr__":
            caller = getframe(2)
            if args[1] == "tb_frame" and tb_walk_ok(caller) and traceback_intact():
                return None
            if trusted(caller.f_code):
                return None
            return "suspect", "%s from %s, code the repository did not have" % (args[1], where(caller.f_code))
        if event == "crucible.suspect":
            return "suspect", str_(args[0])[:300] if len_(args) else "suspect"
        if event == "compile":
            # code compiled under the name of one of the repository's or the task's files would
            # pass for theirs (frames, comparisons); the import system's own compile is the one
            # allowed to
            name = args[1]
            if isinstance_(name, bytes_):
                name = name.decode("utf-8", "surrogateescape")
            if isinstance_(name, str_) and (name in trusted_files or name in pinned):
                caller = getframe(2)
                up = caller.f_back
                if not (caller.f_code.co_name == "_call_with_frames_removed" and up is not None and up.f_code is source_to_code):
                    return "suspect", "code compiled under the name of %s" % name
            return None
        if event == "object.__setattr__":
            return "tampered", "setting %s" % args[1]
        if event == "function.__new__":
            if args[0] in protected:
                return "tampered", "a new function from a grader-trusted code object"
            return ("tampered", "a function made by hand from code of %s" % args[0].co_filename) if args[0].co_filename in pinned else None
        if event == "exec":
            code = args[0]
            if not isinstance_(code, code_type) or code.co_filename not in pinned:
                return None
            variants = pinned[code.co_filename]
            for good in variants if isinstance_(variants, tuple_) else ():
                if code == good:
                    return None
            return "tampered", "running code as %s that is not the task's file" % code.co_filename
        if event == "code.__new__":
            return ("tampered", "making a code object named as the task's %s" % args[1]) if isinstance_(args[1], str_) and args[1] in pinned else None
        if event == "import":
            name, path = args[0], args[1]
            if name in ("ctypes", "_ctypes") or name.startswith("ctypes."):
                return "tampered", "importing %s" % name
            # a path is only given when an extension module (native code) is loaded
            if path is not None and not system_file(path):
                return "tampered", "loading native code from %r (an extension module outside the environment's read-only directories)" % (path,)
            return None
        if event == "open":
            return ("tampered", "opening %r (process memory)" % (args[0],)) if is_memory(args[0]) else None
        return None

    def hook(event, args):
        if event not in watch and not event.startswith("ctypes."):
            return
        if not armed[0]:
            return
        if event == "object.__getattr__" and args[1] not in frame_attrs:
            return
        if event == "object.__setattr__" and args[1] != "__code__":
            return
        tid = get_ident()
        if tid in busy:
            return
        busy.add(tid)
        try:
            verdict = ("tampered", event) if event.startswith("ctypes.") else refuse(event, args)
        finally:
            busy.discard(tid)
        if verdict:
            kind, why = verdict
            if kind == "suspect":
                if len_(suspect) < 20 and why not in suspect:
                    suspect.append(why)
                if event in ("crucible.suspect", "compile"):
                    return  # evidence only: the call itself goes ahead
            elif len_(tampered) < 20:
                tampered.append("refused: " + why)
            raise RuntimeError_("crucible grader: %s is not allowed while grading" % why)

    return hook, armed


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
        # a callable added later could shadow a builtin the tests call (`len`, `sorted`)
        for k, v in list(now.items()):
            if k not in names and not (k.startswith("__") and k.endswith("__")) and callable(v):
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
        if code is not None and code.co_filename != path:
            problems.append("test %s runs code from %s" % (nodeid, code.co_filename))
        mod = getattr(item, "module", None)
        loader = getattr(getattr(mod, "__spec__", None), "loader", None)
        if mod is not None and type(loader) is not _TaskFileLoader:
            problems.append("test module %s loaded by %s" % (mod.__name__, type(loader).__name__))
    return problems[:20]


# --- the task's files, from the runner's own copy ------------------------------------------------
# The task's Python files (tests, conftests, helpers in test directories) are never read from
# disk: what lies in the workspace under their names is a placeholder (docs/agents.md, layer 1),
# so the code under test cannot read the hidden tests and answer from them. The job carries
# their bytes; they are compiled here, before any workspace code runs, and a finder at the
# front of sys.meta_path serves exactly that code when pytest (or a test) imports them.

_EQ_OPS = (__import__("ast").Eq, __import__("ast").NotEq, __import__("ast").In, __import__("ast").NotIn)
# unittest's assertions that compare their first two arguments with == (or `in`)
_UNITTEST_COMPARING = frozenset((
    "assertEqual", "assertEquals", "assertNotEqual", "assertNotEquals", "assertListEqual", "assertTupleEqual",
    "assertDictEqual", "assertSetEqual", "assertSequenceEqual", "assertCountEqual", "assertIn", "assertNotIn",
    "assertMultiLineEqual", "assertAlmostEqual", "assertNotAlmostEqual",
))
_VALUE_CHECK = "@crucible_value"


def _mark_compared_values(tree):
    """Every value a test compares with ==, !=, `in` (in an assert statement, or in unittest's
    comparing assertions) goes through `@crucible_value` first, which returns it unchanged and
    holds the grade for review when its equality is the agent's own code (layer 2)."""
    import ast

    def wrap(node):
        return ast.copy_location(ast.Call(func=ast.Name(id=_VALUE_CHECK, ctx=ast.Load()), args=[node], keywords=[]), node)

    class Compares(ast.NodeTransformer):
        def visit_Compare(self, node):
            self.generic_visit(node)
            if any(_isinstance(op, _EQ_OPS) for op in node.ops):
                node.left = wrap(node.left)
                node.comparators = [wrap(c) for c in node.comparators]
            return node

    class Tests(ast.NodeTransformer):
        def visit_Assert(self, node):
            node.test = Compares().visit(node.test)
            return node

        def visit_Call(self, node):
            self.generic_visit(node)
            f = node.func
            if _isinstance(f, ast.Attribute) and f.attr in _UNITTEST_COMPARING and len(node.args) >= 2:
                node.args = [wrap(a) for a in node.args[:2]] + node.args[2:]
            return node

    tree = Tests().visit(tree)
    ast.fix_missing_locations(tree)
    return tree


def _precompile(sources):
    """Each of the task's Python files compiled from the job's bytes: the values it compares
    marked (see above), its asserts rewritten as pytest would (the verdict reads only pass or
    fail, but a test's own pytest.raises/approx behave as under pytest)."""
    import ast
    import base64
    from _pytest.assertion.rewrite import rewrite_asserts

    out = {}
    for path, b64 in sources.items():
        source = base64.b64decode(b64)
        try:
            tree = _mark_compared_values(ast.parse(source, filename=path))
            rewrite_asserts(tree, source, path, None)
            out[path] = (compile(tree, path, "exec", dont_inherit=True),)
        except (SyntaxError, ValueError) as e:
            out[path] = e  # it fails to load as it would have: with its own syntax error
    return out


class _TaskFileLoader(importlib.abc.Loader):
    """Loads one of the task's files as the code compiled from the runner's copy."""

    def __init__(self, code, check):
        self._code = code
        self._check = check

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        code = self._code
        if _isinstance(code, BaseException):
            raise code
        module.__dict__[_VALUE_CHECK] = self._check
        exec(code[0], module.__dict__)


class _TaskFileFinder(importlib.abc.MetaPathFinder):
    """Finds modules as the path finder would (the same sys.path, the same precedence), and
    when what it found is one of the task's files, loads the runner's copy instead."""

    def __init__(self, pinned, check):
        self._pinned = pinned
        self._check = check

    def find_spec(self, fullname, path=None, target=None):
        spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
        if spec is None or spec.origin not in self._pinned:
            return spec
        spec.loader = _TaskFileLoader(self._pinned[spec.origin], self._check)
        return spec


def _trust(pinned, unchanged, changed_lines):
    """Whether a code object is the repository's own (as it was before the agent's patch) or
    the task's: from a file the patch left alone, or from a changed file where none of its
    lines is one the patch added. What the agent wrote, and code compiled at run time, is not."""
    cache = {}

    def trusted(code):
        name = code.co_filename
        if name in pinned or name in unchanged:
            return True
        added = changed_lines.get(name)
        if added is None:
            return False
        known = cache.get(code)
        if known is None:
            lines = [ln for _s, _e, ln in code.co_lines() if ln is not None]
            lo, hi = min(lines + [code.co_firstlineno]), max(lines + [code.co_firstlineno])
            known = cache[code] = not any(lo <= ln <= hi for ln in added)
        return known

    return trusted


def _value_check(trusted):
    """`@crucible_value`: returns its argument; first, when the equality that will decide the
    comparison is not the repository's or Python's own (an `__eq__` the agent wrote: a value
    equal to everything), or is a known wildcard (unittest.mock.ANY, an approx of unbounded
    tolerance), reports it through the audit hook, which holds the grade for review."""
    audit = sys.audit
    plain = frozenset((int, float, complex, bool, str, bytes, type(None), bytearray))
    containers = frozenset((list, tuple, dict, set, frozenset))
    builtin_eq = frozenset(type(getattr(t, "__eq__")) for t in (int, object))
    isfinite = __import__("math").isfinite

    def eq_source(t):
        """Where type t's __eq__/__ne__ come from: None when Python's own, else a reason."""
        for name in ("__eq__", "__ne__"):
            for klass in type.__getattribute__(t, "__mro__"):
                d = type.__getattribute__(klass, "__dict__")
                if name not in d:
                    continue
                fn = d[name]
                if type(fn) in builtin_eq:
                    break  # a C slot: int's, str's, object's identity
                if type(fn) is not _FunctionType:
                    return "%s.%s is a %s" % (klass.__qualname__, name, type(fn).__name__)
                code = fn.__code__
                if not trusted(code) and not code.co_filename.startswith(("/usr/", "<frozen ")):
                    return "%s.%s is defined in %s" % (klass.__qualname__, name, code.co_filename)
                break
        mod = type.__getattribute__(t, "__module__")
        if mod == "unittest.mock" and type.__getattribute__(t, "__name__") == "_ANY":
            return "unittest.mock.ANY"
        return None

    def check(value):
        todo = [value]
        seen = 0
        while todo and seen < 10_000:
            v = todo.pop()
            seen += 1
            t = type(v)
            if t in plain:
                continue
            if t in containers:
                if t is dict:
                    todo.extend(dict.keys(v))
                    todo.extend(dict.values(v))
                else:
                    todo.extend(v)
                continue
            why = eq_source(t)
            if why is None and type.__getattribute__(t, "__module__") == "_pytest.python_api":
                tol = [getattr(v, k, None) for k in ("abs", "rel")]
                if any(type(x) is float and not isfinite(x) for x in tol):
                    why = "an approx with unbounded tolerance"
            if why is not None:
                audit("crucible.suspect", "a compared value's equality is not the repository's: %s" % why)
                break
        return value

    return check


def _main():
    job, key = _read_job()
    report_fd = os.open(job["report"], os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND | os.O_CLOEXEC, 0o600)
    nonce = job["nonce"]
    workspace = job["workspace"]
    args = list(job["args"])
    conftests = set(os.path.join(workspace, p) for p in job["conftests"])
    pinned = _precompile({os.path.join(workspace, p): b for p, b in job["sources"].items()})
    trusted_files = frozenset(pinned) | frozenset(os.path.join(workspace, p) for p in job["unchanged"])
    job_paths = list(job.get("pythonpath", []))
    changed_lines = {os.path.join(workspace, p): frozenset(v) for p, v in job["changed_lines"].items()}
    trusted = _trust(pinned, trusted_files, changed_lines)
    # every file whose name code compiled at run time must not take (see the audit hook's "compile")
    trusted_files = trusted_files | frozenset(changed_lines)
    job = None
    # everything the verdict depends on; reachable only through this frame (see _genuine)
    state = {
        "tampered": [],
        "phases": {},
        "items": None,
        "session": None,
        "snapshot": None,
        "plugins": None,
        "meta_path": None,
        "path_hooks": None,
        "finished": False,
        "pinned": pinned,
        "conftest_files": frozenset(conftests),
        "trusted_fns": set(_CRUCIBLE_FNS),
        "relay": None,
        "callers": {},
        "modules": {},
        "seen": set(),
        "logged": {},
        "current": None,
        "set_up": None,
        "collected": {},
        "trusted_files": trusted_files,
        "trusted": trusted,
        "suspect": [],
    }
    state["conftest_plugins"] = _allowed_plugins(workspace, conftests, state)
    _no_dumps()
    hook, armed = _make_audit_hook(state)
    sys.addaudithook(hook)
    hook = None
    # what `python -m pytest` in the workspace root would have on sys.path (with -I, cwd is not)
    sys.path.insert(0, workspace)
    # a src layout's packages, as an editable install would have them (pytest-options.ts)
    for extra in reversed(job_paths):
        sys.path.insert(0, os.path.join(workspace, extra))
    os.chdir(workspace)
    sys.meta_path.insert(0, _TaskFileFinder(pinned, _value_check(trusted)))
    sys.stdout.write("CRUCIBLE-GRADE-READY %s\n" % nonce)
    sys.stdout.flush()
    armed[0] = True
    try:
        code = pytest.main(args, plugins=[CruciblePlugin()])
    except BaseException as e:  # a report still says what happened (and scores nothing)
        state["tampered"].append("pytest crashed: %s" % type(e).__name__)
        code = 3
    sys.stdout.flush()
    tampered = list(state["tampered"])
    if not state["finished"]:
        tampered.append("the session did not finish")
    results = {}
    for nodeid, d in state["phases"].items():
        if d.get("setup") not in (None, "passed"):
            results[nodeid] = "error" if d.get("setup") == "failed" else "skipped"
        elif d.get("call") is None:
            results[nodeid] = "error"
        elif d.get("teardown") == "failed":
            results[nodeid] = "error"
        else:
            results[nodeid] = d["call"]
    suspect = list(state["suspect"])[:20]
    body = _dumps({"nonce": nonce, "results": results, "tampered": tampered[:20], "suspect": suspect, "exitstatus": int(code)}, sort_keys=True).encode("utf-8")
    mac = _hmac_new(key, body, _sha256).hexdigest()
    _write(report_fd, body + b"\n" + mac.encode("ascii") + b"\n")
    os._exit(0 if int(code) in (0, 1) else 3)


_MAIN = _main.__code__
_HOOKS = frozenset(v.__code__ for k, v in vars(CruciblePlugin).items() if k.startswith("pytest_"))
_CRUCIBLE_FNS = frozenset(v for k, v in vars(CruciblePlugin).items() if k.startswith("pytest_"))
_CHAIN = _TRUSTED | _HOOKS
# pytest_pyfunc_call implementations the grader's own stands in for: its own and pytest's
_PYFUNC_OK = frozenset((vars(CruciblePlugin)["pytest_pyfunc_call"], _pytest.python.pytest_pyfunc_call))
_TestReport = _pytest.reports.TestReport
_Function = _pytest.python.Function
_main()
