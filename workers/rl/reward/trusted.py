# Crucible reward harness, TRUSTED side. Runs inside the sandbox, but never runs candidate
# code in its own process: the candidate runs in a child (candidate.py / candidate.mjs) and
# every call into it is proxied as plain serialised data over two private pipes. This
# process alone holds the job (per-run marker, the task's check code and prompt helpers),
# makes itself non-dumpable so the child cannot read its memory or file descriptors, kills
# every candidate process before it writes anything, and only then writes its records to
# stdout, one marked line each. For io tests it reports returned values; the host compares
# them with expected values that never enter the sandbox.
# Job (JSON on stdin): marker, language, entryPoint, testTimeoutMs (the candidate's CPU time
# per test), wallCeilingMs (the wall-clock safety net per test), mode ('io'|'check'), inputs,
# prompt, check, source, runners: {python, javascript} (paths of the child runners).
import ast, base64, builtins, collections, ctypes, errno, json, math, os, select, shutil, signal, sys, tempfile, threading, time

PR_SET_DUMPABLE = 4
PR_SET_CHILD_SUBREAPER = 36
MAX_MESSAGE = 16 << 20
MAX_OUTPUT = 16 << 10
# All records together stay under this; harness.ts raises the exec's stdout cap above it (the
# sandbox default, 1 MiB, would cut off the records of a correct program's large values).
MAX_RECORDS = 32 << 20

# Dispositions and masks survive exec: whatever started us, children must be waitable and
# SIGALRM deliverable (here and in the candidate).
signal.pthread_sigmask(signal.SIG_SETMASK, [])
signal.signal(signal.SIGCHLD, signal.SIG_DFL)
# The candidate runs as the same user and can signal this process. Stopping or killing it
# only loses the verdict (a 0), but a KeyboardInterrupt raised here could turn a scored run
# into an unscored one: these signals do nothing. (Handlers, not SIG_IGN: they reset on exec.)
for _sig in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2, signal.SIGPIPE):
    signal.signal(_sig, lambda signum, frame: None)
job = json.loads(sys.stdin.buffer.read())
os.close(0)
out_fd = os.dup(1)
os.dup2(2, 1)  # nothing but emit() may reach the verdict channel
records = []  # marked lines, ready to write
record_bytes = 0
outputs = bytearray()  # the candidate's own stdout/stderr, from every child, capped


def emit(rec):
    global record_bytes
    line = job["marker"] + json.dumps(rec) + "\n"  # ASCII: its length is its size
    if "value" in rec and record_bytes + len(line) > MAX_RECORDS - (1 << 20):  # room left for the small records
        line = job["marker"] + json.dumps({"i": rec["i"], "error": "returned a value too large to report", "ms": rec["ms"]}) + "\n"
    record_bytes += len(line)
    records.append(line)


def flush_and_exit(code=0):
    data = "".join(records).encode()
    while data:
        data = data[os.write(out_fd, data):]
    os._exit(code)


def in_supervised_sandbox():
    # PID 1 is Crucible's sandbox supervisor: a PID namespace holding only this exec's tree
    try:
        with open("/proc/1/cmdline", "rb") as f:
            return b"crucible-supervisor" in f.read().split(b"\0")[0]
    except OSError:
        return False


# Without a subreaper (gVisor 20221219 lacks PR_SET_CHILD_SUBREAPER), orphans are found as
# every process of the sandbox's PID namespace that is not this one or an ancestor: allowed
# only when PID 1 is the sandbox supervisor, so nothing outside this exec's tree is visible.
subreaper = True
try:
    libc = ctypes.CDLL(None, use_errno=True)
    # non-dumpable: the child cannot open /proc/<this>/fd, mem or environ; subreaper: what
    # the candidate forks and orphans becomes this process's child, so it can be found and killed
    for option in (PR_SET_DUMPABLE, PR_SET_CHILD_SUBREAPER):
        if libc.prctl(option, 0 if option == PR_SET_DUMPABLE else 1, 0, 0, 0) != 0:
            err = ctypes.get_errno()
            if option == PR_SET_CHILD_SUBREAPER and err == errno.EINVAL and in_supervised_sandbox():
                subreaper = False
                continue
            raise OSError(err, "prctl(%d) failed" % option)
except Exception as e:  # without it the child could read this process: refuse to score
    emit({"harness_error": "cannot protect the trusted side: %s" % e})
    flush_and_exit(0)

language = job["language"]


class TestTimeout(BaseException):
    pass


class HostBusy(BaseException):
    """The wall ceiling expired while the candidate mostly waited for a CPU: not its failure."""


# ---- time limits: the candidate's own CPU time, with a wall-clock ceiling as a safety net ----
#
# A test fails as a timeout once the candidate's processes (every live descendant of this
# process: the subreaper makes orphans ours) used `limit` seconds of CPU, counted from the
# kernel's utime+stime (+ what they reaped) and what this process reaped. A busy host slows
# the wall clock, not that. The ceiling catches a candidate that is blocked (sleeping, waiting
# on a pipe or lock that never comes): when it expires, the candidate's runqueue wait over the
# test (run_delay, /proc/<pid>/task/<tid>/schedstat, plus /proc/stat steal time spread over
# the CPUs: a VM guest's vCPU held back by its host) decides: mostly waiting for a CPU is the
# host's failure (HostBusy: the whole scoring is reported unscored, retried), anything else
# the candidate's timeout. The same rule as lib/sandbox/limits/cpu-verdict.ts.
#
# Tiers: bwrap and OCI (runc, crun) run on the host kernel: both measurements are exact.
# microVM: the guest kernel's; with KVM steal-time accounting, CPU time excludes what the
# host withheld and steal shows it; under TCG CPU time includes it (the host side checks the
# VM's own wait, harness.ts). gVisor: the Sentry's clock, which counts a task's time in the
# running state (host preemption included) and has no schedstat: runnable time is sampled
# from the process state instead, and the host side checks the sandbox's own wait too.

limit = job["testTimeoutMs"] / 1000.0
ceiling = max(job.get("wallCeilingMs", 0) / 1000.0, limit)
CLK_TCK = float(os.sysconf("SC_CLK_TCK"))
NCPU = max(1, os.cpu_count() or 1)
MY_PID = os.getpid()


def read_text(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def descendants():
    """{pid: (state, cpu seconds incl. reaped children)} of every live process below this one."""
    procs = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return {}
    for entry in entries:
        if not entry.isdigit():
            continue
        stat = read_text("/proc/%s/stat" % entry)
        if not stat:
            continue
        f = stat[stat.rindex(")") + 2:].split()
        try:
            procs[int(entry)] = (int(f[1]), f[0], sum(int(x) for x in f[11:15]) / CLK_TCK)
        except (ValueError, IndexError):
            continue
    kids = collections.defaultdict(list)
    for pid, (ppid, _, _) in procs.items():
        kids[ppid].append(pid)
    out, todo = {}, list(kids.get(MY_PID, ()))
    while todo:
        pid = todo.pop()
        if pid in out or pid == MY_PID:
            continue
        out[pid] = procs[pid][1:]
        todo.extend(kids.get(pid, ()))
    return out


def reaped_cpu():
    t = os.times()
    return t.children_user + t.children_system


def run_delays(pids):
    """run_delay (seconds) of every thread of these processes, by (pid, tid); None without schedstat."""
    out = {}
    for pid in pids:
        try:
            tids = os.listdir("/proc/%d/task" % pid)
        except OSError:
            continue
        for tid in tids:
            t = read_text("/proc/%d/task/%s/schedstat" % (pid, tid))
            if t is None:
                continue
            f = t.split()
            if len(f) >= 2 and f[1].isdigit():
                out[(pid, tid)] = int(f[1]) / 1e9
    return out


def steal_seconds():
    t = read_text("/proc/stat") or ""
    f = t.split("\n", 1)[0].split()
    return int(f[8]) / CLK_TCK if len(f) > 8 and f[0] == "cpu" and f[8].isdigit() else 0.0


def schedstat_available():
    t = (read_text("/proc/thread-self/schedstat") or "").split()
    return len(t) >= 3 and t[2].isdigit() and int(t[2]) > 0


HAS_SCHEDSTAT = schedstat_available()
host_busy = None  # set once a ceiling expired on a busy host: the run is reported unscored


class Budget:
    """One test's limits: `limit` s of the candidate's CPU, `ceiling` s of wall clock."""

    def __init__(self):
        self.t0 = self.last = time.monotonic()
        procs = descendants()
        self.cpu0 = sum(c for _, c in procs.values()) + reaped_cpu()
        self.waits0 = run_delays(procs) if HAS_SCHEDSTAT else {}
        self.steal0 = steal_seconds()
        self.runnable = 0.0  # sampled runnable time, where schedstat is missing (gVisor)
        self.next_at = self.t0

    def measure(self, now):
        procs = descendants()
        if not HAS_SCHEDSTAT and any(st == "R" for st, _ in procs.values()):
            self.runnable += now - self.last
        self.last = now
        return procs, sum(c for _, c in procs.values()) + reaped_cpu() - self.cpu0

    def check(self):
        """Raise TestTimeout (the candidate's) or HostBusy (the host's) once a limit is passed."""
        now = time.monotonic()
        expired = now - self.t0 >= ceiling
        if now < self.next_at and not expired:
            return
        procs, cpu = self.measure(now)
        if cpu >= limit:
            raise TestTimeout()
        if expired:
            wall = now - self.t0
            wait = self.wait_seconds(procs, cpu)
            not_running = max(0.0, wall - cpu)
            if wait > 0 and wait >= 0.5 * not_running and wait >= 0.1 * wall:
                global host_busy
                # kept here too: check code's bare `except:` must not turn it into a scored failure
                host_busy = (
                    "the host was too busy: a test ran %.1f s of wall clock (the ceiling) with %.2f s of the candidate's CPU time "
                    "(limit %.2f s); it waited %.1f s for a CPU" % (wall, cpu, limit, wait)
                )
                raise HostBusy(host_busy)
            raise TestTimeout()
        # the earliest the limit can be reached, with every CPU busy; checks stay cheap and rare
        self.next_at = now + min(0.1, max(0.005, (limit - cpu) / NCPU))

    def wait_seconds(self, procs, cpu):
        steal = max(0.0, steal_seconds() - self.steal0) / NCPU
        if HAS_SCHEDSTAT:
            now = run_delays(procs)
            return steal + sum(max(0.0, v - self.waits0.get(k, 0.0)) for k, v in now.items())
        return steal + max(0.0, self.runnable - cpu)

    def left(self):
        """Seconds to wait before the next check."""
        return max(0.0, min(self.next_at, self.t0 + ceiling) - time.monotonic())


class CandidateExited(Exception):
    pass


# ---- wire format: tagged JSON both ways; what comes back is rebuilt as plain builtins ----

def to_wire(v, depth=0):
    if depth > 100:
        raise TypeError("value nested too deeply")
    if v is None:
        return ["n"]
    t = type(v)
    if t is bool:
        return ["b", v]
    if t is int:
        return ["i", str(v)]
    if t is float:
        return ["f", v if math.isfinite(v) else repr(v)]
    if t is str:
        return ["s", v]
    if t is bytes:
        return ["y", base64.b64encode(v).decode()]
    if t is list:
        return ["l", [to_wire(x, depth + 1) for x in v]]
    if t is tuple:
        return ["t", [to_wire(x, depth + 1) for x in v]]
    if t is set:
        return ["S", [to_wire(x, depth + 1) for x in v]]
    if t is frozenset:
        return ["F", [to_wire(x, depth + 1) for x in v]]
    if t is dict:
        return ["d", [[to_wire(k, depth + 1), to_wire(x, depth + 1)] for k, x in v.items()]]
    if prompt_class(t.__name__) is t and hasattr(v, "__dict__"):
        return ["o", t.__name__, [[k, to_wire(x, depth + 1)] for k, x in vars(v).items()]]
    raise TypeError("cannot pass a %s to the candidate" % t.__name__)


prompt_classes = {}  # name -> class, for the classes the task's prompt defines (filled before check runs)


def prompt_class(name):
    return prompt_classes.get(name)


def from_wire(w, depth=0):
    # Only these exact builtin types come out, whatever the child sent.
    if depth > 100 or type(w) is not list or not w or type(w[0]) is not str:
        raise ValueError("malformed value")
    tag = w[0]
    v = w[1] if len(w) > 1 else None
    if tag == "n":
        return None
    if tag == "b" and type(v) is bool:
        return v
    if tag == "i" and type(v) is str and len(v) <= 5000:
        return int(v)
    if tag == "f":
        if type(v) in (int, float):
            return float(v)
        if v in ("nan", "inf", "-inf"):
            return float(v)
    if tag == "s" and type(v) is str:
        return v
    if tag == "y" and type(v) is str:
        return base64.b64decode(v)
    if tag in ("l", "t", "S", "F") and type(v) is list:
        items = [from_wire(x, depth + 1) for x in v]
        return {"l": list, "t": tuple, "S": set, "F": frozenset}[tag](items)
    if tag == "d" and type(v) is list:
        return {from_wire(p[0], depth + 1): from_wire(p[1], depth + 1) for p in v if type(p) is list and len(p) == 2}
    if tag == "G" and type(v) is list:  # a generator the child drained: handed to check as an iterator
        return iter([from_wire(x, depth + 1) for x in v])
    if tag == "o" and type(v) is str and prompt_class(v) is not None and len(w) == 3 and type(w[2]) is list:
        # an instance of a class the prompt defines, rebuilt with the prompt's own class (the
        # candidate's same-named class, if it redefined one, never runs here)
        obj = object.__new__(prompt_class(v))
        obj.__dict__.update({p[0]: from_wire(p[1], depth + 1) for p in w[2] if type(p) is list and len(p) == 2 and type(p[0]) is str})
        return obj
    if tag == "o" and type(v) is str:
        raise TypeError("returned a %s, not a plain value" % v[:100])
    if tag == "u":  # an unplain value the child could not serialise: only its description survives
        raise TypeError(str(v)[:200])
    raise ValueError("malformed value")


def typed(v, depth=0):
    # The host's comparison format (compare.ts Typed): JSON has no tuples or sets.
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
        return {"t": "num", "v": v} if math.isfinite(v) else {"t": "float", "v": repr(v)}
    if t is str:
        return {"t": "str", "v": v}
    if t in (list, tuple):
        return {"t": "list", "v": [typed(x, depth + 1) for x in v]}
    if t is dict:
        if any(type(k) is not str for k in v):
            raise TypeError("returned a dict with non-string keys")
        return {"t": "obj", "v": {k: typed(x, depth + 1) for k, x in v.items()}}
    raise TypeError("returned a %s, not a plain value" % t.__name__)


# ---- the candidate child ----

class Child:
    def __init__(self, path):
        req_r, self.req_w = os.pipe()
        self.resp_r, resp_w = os.pipe()
        out_r, out_w = os.pipe()
        if language == "python":
            argv = ["python3", "-I", "-S", job["runners"]["python"], path]
        else:
            argv = ["node", "--max-old-space-size=256", "--stack-size=4000", job["runners"]["javascript"], path, job["entryPoint"]]
        self.pid = os.fork()
        if self.pid == 0:
            try:
                os.setsid()  # its own group: one kill ends it and what it forked
                # lift the sources above 0..4 first: a pipe may already sit on a target number
                null, o, rq, rs = (os.dup2(fd, 100 + k) for k, fd in enumerate((os.open("/dev/null", os.O_RDONLY), out_w, req_r, resp_w)))
                for src, dst in ((null, 0), (o, 1), (o, 2), (rq, 3), (rs, 4)):
                    os.dup2(src, dst)
                os.closerange(5, 65536)
                os.execvp(argv[0], argv)
            finally:
                os._exit(127)
        for fd in (req_r, resp_w, out_w):
            os.close(fd)
        self.partial = []  # pieces of the line still being received
        self.partial_len = 0
        self.lines = collections.deque()  # complete lines not yet looked at
        self.seq = 0
        self.alive = True
        self.status = None
        self.reader = threading.Thread(target=self._drain, args=(out_r,), daemon=True)
        self.reader.start()

    def _drain(self, fd):
        while True:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            if len(outputs) < MAX_OUTPUT:
                outputs.extend(chunk[: MAX_OUTPUT - len(outputs)])
        os.close(fd)

    def request(self, msg, budget):
        self.seq += 1
        msg["id"] = self.seq
        data = (json.dumps(msg) + "\n").encode()
        try:
            while data:
                data = data[os.write(self.req_w, data):]
        except OSError:
            note = self.exit_note()
            self.kill()
            raise CandidateExited(note)
        seen = 0
        while True:
            # Line by line, each looked at once and the limits checked as they go: a flood
            # of short lines must not keep this side busy past them (re-slicing one buffer
            # per line was quadratic and could hold it until the exec's own deadline).
            while self.lines:
                seen += 1
                if seen % 256 == 0:
                    self.check(budget)
                line = self.lines.popleft()
                if not line.startswith(b"{"):
                    continue  # every answer is a JSON object
                try:
                    rec = json.loads(line)
                except (ValueError, RecursionError, MemoryError):
                    # not a protocol line; nesting past the decoder's recursion limit must not
                    # crash this side (RecursionError is no ValueError)
                    continue
                if type(rec) is dict and rec.get("id") == self.seq:
                    return rec
            self.check(budget)
            ready, _, _ = select.select([self.resp_r], [], [], budget.left())
            if not ready:
                continue
            chunk = os.read(self.resp_r, 1 << 20)
            if not chunk:
                note = self.exit_note()
                self.kill()
                raise CandidateExited(note)
            *done, rest = chunk.split(b"\n")
            if done:
                done[0] = b"".join(self.partial) + done[0]
                self.lines.extend(done)
                self.partial, self.partial_len = [], 0
            self.partial.append(rest)
            self.partial_len += len(rest)
            if self.partial_len > MAX_MESSAGE:
                self.kill()
                raise CandidateExited("the candidate returned more than %d MiB" % (MAX_MESSAGE >> 20))

    def check(self, budget):
        try:
            budget.check()
        except (TestTimeout, HostBusy):
            self.kill()
            raise

    def exit_note(self):
        status = self.reap(1.0)
        if status is None:
            return "the program stopped answering"
        if os.WIFSIGNALED(status):
            return "the program was killed by signal %d" % os.WTERMSIG(status)
        return "the program exited with code %d instead of returning" % os.WEXITSTATUS(status)

    def reap(self, wait_s):
        if self.status is not None:
            return self.status
        end = time.monotonic() + wait_s
        while True:
            try:
                pid, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:
                return None
            if pid:
                self.status = status
                return status
            if time.monotonic() >= end:
                return None
            time.sleep(0.005)

    def kill(self):
        if self.alive:
            self.alive = False
            try:
                os.killpg(self.pid, signal.SIGKILL)
            except OSError:
                pass
            self.reap(1.0)
        for fd in (self.req_w, self.resp_r):
            try:
                os.close(fd)
            except OSError:
                pass


def short_exc(err):
    name = err.get("type") or "Error"
    msg = err.get("message") or ""
    if name == "SystemExit":
        return "called exit(%s) instead of returning" % (msg or "None")
    return ("%s: %s" % (name, msg) if msg else name)[:500]


# ---- style (Python: parsed here, never executed; JavaScript: linted by the host) ----

def py_style(source):
    try:
        tree = ast.parse(source)
    except SyntaxError as e:
        return {"syntaxOk": False, "issues": ["syntax error: %s (line %s)" % (e.msg, e.lineno)]}
    except (ValueError, RecursionError, MemoryError) as e:
        # NUL bytes (ValueError on 3.11) or nesting too deep for the parser: it does not compile
        # in the child either; this side must not crash on it
        return {"syntaxOk": False, "issues": ["syntax error: %s" % (type(e).__name__,)]}
    issues = []
    lines = source.split("\n")
    if any(len(l) > 100 for l in lines):
        issues.append("line longer than 100 characters")
    if any(l != l.rstrip() for l in lines):
        issues.append("trailing whitespace")
    if any("\t" in l[: len(l) - len(l.lstrip())] for l in lines):
        issues.append("tab indentation")
    nodes = list(ast.walk(tree))
    if any(isinstance(n, ast.ExceptHandler) and n.type is None for n in nodes):
        issues.append("bare except")
    if any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("eval", "exec") for n in nodes):
        issues.append("uses eval/exec")
    if any(isinstance(n, ast.ImportFrom) and any(a.name == "*" for a in n.names) for n in nodes):
        issues.append("wildcard import")
    return {"syntaxOk": True, "issues": issues}


# ---- run ----

workdir = tempfile.mkdtemp(prefix="crucible-candidate-")
os.chmod(workdir, 0o755)
src_path = os.path.join(workdir, "solution.src")
with open(src_path, "w") as f:
    f.write(job["source"])
os.chmod(src_path, 0o444)

if language == "python":
    emit({"style": py_style(job["source"])})

child = None


def start():
    """A fresh child with the candidate loaded: (child, None) or (None, load error)."""
    c = Child(src_path)
    try:
        rec = c.request({"op": "load"}, Budget())
    except TestTimeout:
        return None, "timeout (loading the program did not finish)"
    except CandidateExited as e:
        return None, str(e)
    if "load_error" in rec:
        c.kill()
        return None, short_exc(rec["load_error"]) if type(rec["load_error"]) is dict else str(rec["load_error"])[:500]
    names = rec.get("callables") if type(rec.get("callables")) is list else []
    if job["entryPoint"] not in names:
        c.kill()
        return None, "NameError: no function named %s" % job["entryPoint"]
    c.callables = [n for n in names if type(n) is str]
    return c, None


def call(c, name, args, kwargs, budget):
    """Call the candidate's function; returns the value, raises what it raised (rebuilt here)."""
    rec = c.request({"op": "call", "fn": name, "args": [to_wire(a) for a in args], "kwargs": [[k, to_wire(v)] for k, v in kwargs.items()]}, budget)
    if "error" in rec:
        raise Raised(rec["error"] if type(rec["error"]) is dict else {"type": "Error", "message": str(rec["error"])})
    value = from_wire(rec.get("value"))
    after = rec.get("after")
    if type(after) is list and len(after) == len(args):
        # in-place changes the candidate made to list/dict/set arguments, as one program would see them
        for orig, w in zip(args, after):
            try:
                new = from_wire(w)
            except Exception:
                continue
            if type(orig) is list and type(new) is list:
                orig[:] = new
            elif type(orig) is dict and type(new) is dict:
                orig.clear()
                orig.update(new)
            elif type(orig) is set and type(new) is set:
                orig.clear()
                orig.update(new)
    return value


class Raised(Exception):
    def __init__(self, err):
        super().__init__(short_exc(err))
        self.err = err


ns = {"__name__": "__main__", "__builtins__": builtins}
if job["mode"] == "check":
    # The prompt runs before any candidate process exists: nothing the candidate does can
    # make it fail (a failure here is the task's, reported unscored, never as a 0).
    prompt = job.get("prompt") or ""
    try:
        try:
            code = compile(prompt, "prompt.py", "exec")
        except SyntaxError:
            code = compile(prompt.rstrip() + "\n    pass\n", "prompt.py", "exec")  # a prompt that ends at the signature
        exec(code, ns)
    except BaseException as e:
        emit({"harness_error": "the task's prompt does not run: %s: %s" % (type(e).__name__, e)})
        flush_and_exit(0)

try:
    child, load_error = start()
except HostBusy:
    child, load_error = None, None
if host_busy is not None:
    pass
elif load_error is not None:
    emit({"load_error": load_error})
    if language == "javascript":
        emit({"syntaxOk": not load_error.startswith("SyntaxError")})
elif job["mode"] == "io":
    if language == "javascript":
        emit({"syntaxOk": True})
    for i, args in enumerate(job["inputs"]):
        t0 = time.perf_counter()
        try:
            if child is None:
                child, err = start()
                if err is not None:
                    raise CandidateExited(err)
            value = call(child, job["entryPoint"], args, {}, Budget())
            emit({"i": i, "value": typed(value), "ms": (time.perf_counter() - t0) * 1000})
        except HostBusy:
            break  # the candidate is killed; nothing more is scored
        except BaseException as e:
            if isinstance(e, (TestTimeout, CandidateExited)) and child is not None:
                child.kill()
                child = None
            detail = "timeout" if isinstance(e, TestTimeout) else str(e)[:500] or type(e).__name__
            emit({"i": i, "error": detail, "ms": (time.perf_counter() - t0) * 1000})
else:
    # HumanEval: the prompt's own definitions (helpers, imports, exception classes) and the
    # check run here; the entry point, and any other function only the candidate defines,
    # are proxies into the child. A candidate that redefines a prompt helper changes only
    # its own copy.
    t0 = time.perf_counter()
    budget = Budget()  # the whole check: the candidate's CPU over all its calls
    prompt_classes.update({k: v for k, v in ns.items() if isinstance(v, type) and v.__module__ == "__main__"})

    def rebuild(err):
        # The same exception class the one-program run would raise, where it exists here; for
        # a class only the candidate defines, its nearest base that exists here (its own
        # `class Bad(ValueError)` must still be caught by the check's `except ValueError`).
        # Claiming a base gains nothing: the candidate could raise that base itself.
        bases = err.get("bases") if type(err.get("bases")) is list else []
        cls = None
        for name in [err.get("type")] + bases[:32]:
            if type(name) is str:
                cls = ns.get(name) or getattr(builtins, name, None)
                if isinstance(cls, type) and issubclass(cls, BaseException):
                    break
        if not (isinstance(cls, type) and issubclass(cls, Exception)):
            return Raised(err)
        if issubclass(cls, (StopIteration, StopAsyncIteration)):
            # would end a check's all(map(candidate, …)) early and make it vacuously true
            # (PEP 479 turns it into RuntimeError inside generators for the same reason)
            return RuntimeError("%s raised by the candidate" % cls.__name__)
        try:
            exc = cls(err.get("message") or "")
        except Exception:
            return Raised(err)
        return exc

    def proxy(name):
        def candidate(*args, **kwargs):
            try:
                return call(child, name, args, kwargs, budget)
            except Raised as r:
                raise rebuild(r.err) from None
        candidate.__name__ = name
        return candidate

    for name in child.callables:
        # never a builtin's name: a candidate's own abs(), range() or set() must not replace
        # the real one inside check() and the prompt's helpers
        if name == job["entryPoint"] or (name not in ns and not hasattr(builtins, name)):
            ns[name] = proxy(name)

    def on_alarm(signum, frame):
        # the wall ceiling, for the check code that runs here: whose fault, as for a call
        budget.next_at = 0
        budget.check()
        raise TestTimeout()

    signal.signal(signal.SIGALRM, on_alarm)
    try:
        signal.setitimer(signal.ITIMER_REAL, ceiling + 0.5)
        exec(compile(job["check"], "check.py", "exec"), ns)
        ns["check"](ns[job["entryPoint"]])
        signal.setitimer(signal.ITIMER_REAL, 0)
        emit({"i": 0, "passed": True, "ms": (time.perf_counter() - t0) * 1000})
    except BaseException as e:
        signal.setitimer(signal.ITIMER_REAL, 0)
        if isinstance(e, HostBusy) or host_busy is not None:
            detail = None
        elif isinstance(e, TestTimeout):
            detail = "timeout"
        elif isinstance(e, AssertionError):
            detail = "check failed" + (": %s" % e if str(e) else "")
        else:
            detail = ("%s: %s" % (type(e).__name__, e) if str(e) else type(e).__name__)
        if detail is not None:
            emit({"i": 0, "error": detail[:500], "ms": (time.perf_counter() - t0) * 1000})

if child is not None:
    child.kill()


def proc_stat(pid):
    # (state, parent pid) of a process, or None once it is gone
    try:
        with open("/proc/%d/stat" % pid) as f:
            stat = f.read()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2:].split()
    return fields[0], int(fields[1])


def parent_of(pid):
    st = proc_stat(pid)
    return st[1] if st else None


def kill_descendants():
    # As subreaper, every process the candidate left behind (setsid, double fork) is, once
    # its parent is dead, a direct child of this one: kill and reap until none is left.
    # Without one (see `subreaper`), every process but this one and its ancestors.
    me = os.getpid()
    keep = {me}
    p = me
    while not subreaper and p and p not in (0, 1):
        p = parent_of(p)
        if p is None:
            break
        keep.add(p)
    keep.add(1)
    end = time.monotonic() + 3.0
    while time.monotonic() < end:  # each round frees the next generation; the pids cgroup bounds a fork bomb
        kids = []
        live = False
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            pid = int(entry)
            st = proc_stat(pid)
            if st is None:
                continue
            if subreaper:
                if st[1] == me:
                    kids.append(pid)
                    live = True
            elif pid not in keep:
                # killed anyway: a leader that exited looks like a zombie while its other threads run;
                # a dead orphan stays a zombie until PID 1 reaps it, so only the others keep us looping
                kids.append(pid)
                live = live or st[0] != "Z"
        if not kids:
            return
        for pid in kids:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        if not live:
            return  # only zombies were left: signalled (with any threads they still had), PID 1 reaps them
        for pid in kids:
            try:
                os.waitpid(pid, 0)  # not our child without a subreaper: its parent or PID 1 reaps it
            except OSError:
                pass
        if not subreaper:
            time.sleep(0.01)  # killed non-children vanish once PID 1 reaps them


kill_descendants()
for t in threading.enumerate():
    if t is not threading.current_thread():
        t.join(0.5)
shutil.rmtree(workdir, ignore_errors=True)
if outputs:
    emit({"output": outputs.decode("utf-8", "replace")})
if host_busy is not None:
    emit({"host_busy": host_busy})
emit({"done": True})
flush_and_exit(0)
