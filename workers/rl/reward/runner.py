# Crucible reward harness, Python side. Runs INSIDE the sandbox, next to untrusted code.
# It never sees expected values: it only calls the candidate and reports what came back,
# serialised type-strictly; the host compares. Protocol: the job arrives as JSON on stdin;
# each result is one line on a private copy of stdout, prefixed with the job's marker.
import ast, json, math, os, signal, sys, time, traceback

job = json.loads(sys.stdin.read())
marker = job["marker"]
out = os.fdopen(os.dup(1), "w", buffering=1)
# The candidate's own prints go to stderr so they can never be mistaken for results.
os.dup2(2, 1)
sys.stdout = sys.stderr

def emit(rec):
    out.write(marker + json.dumps(rec) + "\n")
    out.flush()

class TestTimeout(BaseException):
    pass

def on_alarm(signum, frame):
    raise TestTimeout()

def typed(v, depth=0):
    # Exact builtin types only: a subclass could override __eq__, __str__, __iter__...
    if depth > 50:
        raise TypeError("value nested too deeply")
    t = type(v)
    if v is None:
        return None
    if t is bool:
        return {"t": "bool", "v": v}
    if t is int:
        return {"t": "num", "v": v} if abs(v) < 2**53 else {"t": "bigint", "v": str(v)}
    if t is float:
        if math.isnan(v) or math.isinf(v):
            return {"t": "float", "v": repr(v)}
        return {"t": "num", "v": v}
    if t is str:
        return {"t": "str", "v": v}
    if t is list:
        return {"t": "list", "v": [typed(x, depth + 1) for x in list.__iter__(v)]}
    if t is tuple:
        return {"t": "list", "v": [typed(x, depth + 1) for x in tuple.__iter__(v)]}
    if t is dict:
        items = dict.items(v)
        if any(type(k) is not str for k, _ in items):
            raise TypeError("dict keys must be str")
        return {"t": "obj", "v": {k: typed(x, depth + 1) for k, x in items}}
    raise TypeError("returned a %s, not a plain value" % t.__name__)

def sanitise(v):
    # For HumanEval checks: hand check() a plain copy the candidate's types cannot fake.
    t = type(v)
    if v is None or t in (bool, int, float, str):
        return v
    if t is list:
        return [sanitise(x) for x in list.__iter__(v)]
    if t is tuple:
        return tuple(sanitise(x) for x in tuple.__iter__(v))
    if t is dict:
        return {sanitise(k): sanitise(x) for k, x in dict.items(v)}
    if t is set:
        return {sanitise(x) for x in set.__iter__(v)}
    raise TypeError("returned a %s, not a plain value" % t.__name__)

def short_error(e):
    if isinstance(e, TestTimeout):
        return "timeout"
    if isinstance(e, SystemExit):
        return "called exit(%r) instead of returning" % (e.code,)
    return "".join(traceback.format_exception_only(type(e), e)).strip()[-500:]

def style(source):
    # Syntax check plus a few lint rules a reviewer would flag; names match runner.mjs.
    try:
        tree = ast.parse(source)
    except SyntaxError as e:
        return {"syntaxOk": False, "issues": ["syntax error: %s (line %s)" % (e.msg, e.lineno)]}
    issues = []
    lines = source.split("\n")
    if any(len(l) > 100 for l in lines):
        issues.append("line longer than 100 characters")
    if any(l != l.rstrip() for l in lines):
        issues.append("trailing whitespace")
    if any("\t" in l[: len(l) - len(l.lstrip())] for l in lines):
        issues.append("tab indentation")
    for node in ast.walk(tree):
        if isinstance(node, ast.ExceptHandler) and node.type is None:
            issues.append("bare except")
            break
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("eval", "exec"):
            issues.append("uses eval/exec")
            break
    if any(isinstance(n, ast.ImportFrom) and any(a.name == "*" for a in n.names) for n in ast.walk(tree)):
        issues.append("wildcard import")
    return {"syntaxOk": True, "issues": issues}

signal.signal(signal.SIGALRM, on_alarm)
limit = job["testTimeoutMs"] / 1000.0
source = job["source"]
emit({"style": style(source)})
ns = {"__name__": "solution"}
try:
    signal.setitimer(signal.ITIMER_REAL, limit)
    exec(compile(source, "solution.py", "exec"), ns)
    signal.setitimer(signal.ITIMER_REAL, 0)
    fn = ns.get(job["entryPoint"])
    if not callable(fn):
        raise NameError("no function named %s" % job["entryPoint"])
except BaseException as e:
    signal.setitimer(signal.ITIMER_REAL, 0)
    emit({"load_error": short_error(e)})
    os._exit(0)

if job["mode"] == "io":
    for i, args in enumerate(job["inputs"]):
        t0 = time.perf_counter()
        try:
            signal.setitimer(signal.ITIMER_REAL, limit)
            value = fn(*args)
            signal.setitimer(signal.ITIMER_REAL, 0)
            emit({"i": i, "value": typed(value), "ms": (time.perf_counter() - t0) * 1000})
        except BaseException as e:
            signal.setitimer(signal.ITIMER_REAL, 0)
            emit({"i": i, "error": short_error(e), "ms": (time.perf_counter() - t0) * 1000})
else:
    def candidate(*a, **k):
        return sanitise(fn(*a, **k))
    t0 = time.perf_counter()
    try:
        check_ns = {"__name__": "check"}
        exec(compile(job["check"], "check.py", "exec"), check_ns)
        signal.setitimer(signal.ITIMER_REAL, limit)
        check_ns["check"](candidate)
        signal.setitimer(signal.ITIMER_REAL, 0)
        emit({"i": 0, "passed": True, "ms": (time.perf_counter() - t0) * 1000})
    except BaseException as e:
        signal.setitimer(signal.ITIMER_REAL, 0)
        emit({"i": 0, "error": short_error(e), "ms": (time.perf_counter() - t0) * 1000})
emit({"done": True})
os._exit(0)
