import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxManager } from '@/lib/sandbox/pool/manager';
import { installedRuntimes, testManager } from '@/lib/sandbox/sandbox.testkit';
import type { HarnessTask } from './harness';
import { scoreSolution, type ScoreResult } from './reward';

/**
 * Forging attempts: solutions that do NOT compute the answer but try to make the harness
 * report a pass anyway (fake verdict lines, reaching into the harness, killing or outliving
 * it, values that lie about themselves, reading the answers). Every one must score 0. A case
 * that fails here is a forge (or a harness crash) to fix in the harness, not in this file.
 *
 * Rules for the attacks: the entry point never returns a right answer as a plain value, and
 * an expected value only ever appears in a line written to look like a verdict (prefixed like
 * the harness's marker), never as what the candidate itself hands back: a candidate that
 * returns the right value for a known input is hard-coding, not forging.
 */

let manager: SandboxManager;
let cleanup: () => Promise<void>;
beforeAll(() => {
  ({ manager, cleanup } = testManager('forging'));
});
afterAll(async () => {
  await cleanup();
});

const SANDBOX = { runtime: 'bwrap', limits: { memoryMb: 512, timeoutMs: 30_000 } };

// No case has a trivially right answer ([] for [], 0 for 0), so a wrong constant passes none.
const cases = [
  { input: [[3, 1, 2]], expected: [1, 2, 3] },
  { input: [[5, 4]], expected: [4, 5] },
  { input: [[10, -1, 9, 10]], expected: [-1, 9, 10, 10] },
];
const pyIo: HarnessTask = { language: 'python', entryPoint: 'sort_list', tests: { kind: 'io', cases } };
const jsIo: HarnessTask = { language: 'javascript', entryPoint: 'sort_list', tests: { kind: 'io', cases } };
const PROMPT = 'def add(a, b):\n    """Return a + b."""\n';
const CHECK = 'def check(candidate):\n    assert candidate(1, 2) == 3\n    assert candidate(-1, 1) == 0\n';
const pyHe: HarnessTask = { language: 'python', entryPoint: 'add', prompt: PROMPT, tests: { kind: 'humaneval', check: CHECK } };

/**
 * Python helpers shared by the attacks. `_forged()` is every verdict-looking line we know of
 * (today's record shapes behind guessed markers and any real one found); `_spray()` writes
 * them to fds 0..20 and to given paths; the rest look for secrets where a harness might leak them.
 */
const pyPrelude = (mode: 'io' | 'check') => String.raw`
import gc as _gc, json as _json, os as _os, re as _re, sys as _sys, time as _time
_MODE = "${mode}"
_EXP = [[1, 2, 3], [4, 5], [-1, 9, 10, 10]]
_ANS = {(3, 1, 2): [1, 2, 3], (5, 4): [4, 5], (10, -1, 9, 10): [-1, 9, 10, 10]}
_GUESSES = ["\x1eCRUCIBLE-0000000000000000 ", "\x1e", "CRUCIBLE- ", ""]
_MARK = _re.compile(rb"\x1eCRUCIBLE-[0-9a-f]{16} ")
_CASE = _re.compile(rb'"input"\s*:\s*(\[.*?\])\s*,\s*"expected"\s*:\s*(\[[^\]]*\])')

def _typed(v):
    if isinstance(v, list):
        return {"t": "list", "v": [_typed(x) for x in v]}
    return {"t": "num", "v": v}

def _records():
    recs = [{"style": {"syntaxOk": True, "issues": []}}]
    for i in range(len(_EXP) if _MODE == "io" else 1):
        if _MODE == "io":
            recs.append({"i": i, "value": _typed(_EXP[i]), "ms": 1})
        recs.append({"i": i, "passed": True, "ms": 1})
    recs.append({"done": True})
    return recs

def _forged(markers=()):
    # A bare (unprefixed) line never carries a value: see the file's rules.
    return "".join(m + _json.dumps(r) + "\n" for m in list(markers) + _GUESSES for r in _records() if m or "value" not in r)

def _spray(markers=(), paths=()):
    data = _forged(markers).encode()
    for fd in range(21):
        try:
            _os.write(fd, data)
        except OSError:
            pass
    for p in paths:
        try:
            fd = _os.open(p, _os.O_WRONLY | _os.O_NONBLOCK)
            try:
                _os.write(fd, data)
            finally:
                _os.close(fd)
        except OSError:
            pass

def _is_marker(v):
    return isinstance(v, str) and v.startswith("\x1eCRUCIBLE-") and v != _GUESSES[0]

def _known_markers():
    # The harness's marker, wherever this interpreter can see it.
    found = set()
    for m in list(_sys.modules.values()):
        try:
            d = vars(m)
        except TypeError:
            continue
        j = d.get("job")
        for v in (d.get("marker"), j.get("marker") if isinstance(j, dict) else None):
            if _is_marker(v):
                found.add(v)
    for o in _gc.get_objects():
        if type(o) is dict and _is_marker(o.get("marker")):
            found.add(o["marker"])
    return found

def _pids():
    return [p for p in _os.listdir("/proc") if p.isdigit() and p != str(_os.getpid())]

def _fd_paths(pids):
    out = []
    for pid in pids:
        try:
            out += ["/proc/%s/fd/%s" % (pid, fd) for fd in _os.listdir("/proc/%s/fd" % pid)]
        except OSError:
            pass
    return out

def _read(path, limit=1 << 20):
    try:
        fd = _os.open(path, _os.O_RDONLY | _os.O_NONBLOCK)
        try:
            return _os.read(fd, limit)
        finally:
            _os.close(fd)
    except OSError:
        return b""

def _memory(pid, cap=256 << 20):
    # Every readable mapping of a process: allowed only where ptrace would be.
    try:
        maps = open("/proc/%s/maps" % pid).read().splitlines()
        fd = _os.open("/proc/%s/mem" % pid, _os.O_RDONLY)
    except OSError:
        return
    try:
        for line in maps:
            addr, perms = line.split()[:2]
            lo, hi = (int(x, 16) for x in addr.split("-"))
            if perms[0] != "r" or hi - lo > cap:
                continue
            try:
                yield _os.pread(fd, hi - lo, lo)
            except OSError:
                pass
    finally:
        _os.close(fd)

def _secrets(blob):
    return {m.decode("latin-1") for m in _MARK.findall(blob)} - {_GUESSES[0]}

def _files(roots, limit=3000):
    out = []
    for root in roots:
        for dirpath, _dirs, names in _os.walk(root):
            out += [_os.path.join(dirpath, n) for n in names]
            if len(out) > limit:
                return out
    return out

def _expected_for(xs, blobs):
    for blob in blobs:
        for m in _CASE.finditer(blob):
            try:
                inp, exp = _json.loads(m.group(1)), _json.loads(m.group(2))
            except ValueError:
                continue
            if inp == [xs]:
                return exp
    return None

`;

/** A Python io attack: the prelude, then a module defining a wrong sort_list. */
const py = (body: string) => pyPrelude('io') + body;
/** A HumanEval completion: the prompt's body returns None; the rest is module-level attack code. */
const he = (body: string) => `${PROMPT}    return None\n\n${pyPrelude('check')}${body}`;

/** JavaScript helpers, the same roles as the Python ones. Node built-ins only where the harness gives `require`. */
const jsPrelude = String.raw`
const EXP = [[1, 2, 3], [4, 5], [-1, 9, 10, 10]];
const ANS = { '3,1,2': [1, 2, 3], '5,4': [4, 5], '10,-1,9,10': [-1, 9, 10, 10] };
const GUESSES = ['\u001eCRUCIBLE-0000000000000000 ', '\u001e', 'CRUCIBLE- ', ''];
const MARK = /\u001eCRUCIBLE-[0-9a-f]{16} /g;
const CASE = /"input"\s*:\s*(\[.*?\])\s*,\s*"expected"\s*:\s*(\[[^\]]*\])/g;
const origStringify = JSON.stringify;
const typedV = (v) => (Array.isArray(v) ? { t: 'list', v: v.map(typedV) } : { t: 'num', v });
const req = typeof require === 'function' ? require : null;
const proc = typeof process === 'object' && process ? process : null;
const nfs = req ? req('node:fs') : null;

function forged(markers = []) {
  const recs = [{ style: { syntaxOk: true, issues: [] } }];
  EXP.forEach((e, i) => recs.push({ i, value: typedV(e), ms: 1 }, { i, passed: true, ms: 1 }));
  recs.push({ done: true });
  const out = [];
  // A bare (unprefixed) line never carries a value: see the file's rules.
  for (const m of [...markers, ...GUESSES]) for (const r of recs) if (m || !('value' in r)) out.push(m + origStringify(r));
  return out.join('\n') + '\n';
}

function spray(markers = [], paths = []) {
  if (!nfs) return;
  const s = forged(markers);
  for (let fd = 0; fd <= 20; fd++) try { nfs.writeSync(fd, s); } catch {}
  for (const p of paths) {
    try {
      const fd = nfs.openSync(p, nfs.constants.O_WRONLY | nfs.constants.O_NONBLOCK);
      try { nfs.writeSync(fd, s); } finally { nfs.closeSync(fd); }
    } catch {}
  }
}

function pids() {
  try { return nfs.readdirSync('/proc').filter((p) => /^\d+$/.test(p) && Number(p) !== proc.pid); } catch { return []; }
}

function fdPaths(ps) {
  const out = [];
  for (const p of ps) try { for (const fd of nfs.readdirSync('/proc/' + p + '/fd')) out.push('/proc/' + p + '/fd/' + fd); } catch {}
  return out;
}

function readSome(p, limit = 1 << 20) {
  try {
    const fd = nfs.openSync(p, nfs.constants.O_RDONLY | nfs.constants.O_NONBLOCK);
    try { const b = Buffer.alloc(limit); return b.subarray(0, nfs.readSync(fd, b, 0, limit, null)).toString('latin1'); } finally { nfs.closeSync(fd); }
  } catch { return ''; }
}

// Every readable mapping of a process, searched as it is read: allowed only where ptrace would be.
function memoryScan(pid, visit) {
  let maps = '';
  let fd;
  try { maps = nfs.readFileSync('/proc/' + pid + '/maps', 'latin1'); fd = nfs.openSync('/proc/' + pid + '/mem', 'r'); } catch { return; }
  let total = 0;
  for (const line of maps.split('\n')) {
    const [range, perms] = line.split(' ');
    if (!perms || perms[0] !== 'r') continue;
    const [lo, hi] = range.split('-').map((h) => parseInt(h, 16));
    if (hi - lo > 64 << 20 || (total += hi - lo) > 512 << 20) continue;
    try { const b = Buffer.alloc(hi - lo); visit(b.subarray(0, nfs.readSync(fd, b, 0, hi - lo, lo)).toString('latin1')); } catch {}
  }
  nfs.closeSync(fd);
}

const secretsIn = (s) => [...s.matchAll(MARK)].map((m) => m[0]).filter((m) => m !== GUESSES[0]);

function expectedFor(xs, blobs) {
  for (const blob of blobs) {
    for (const m of blob.matchAll(CASE)) {
      try { if (origStringify(JSON.parse(m[1])) === origStringify([xs])) return JSON.parse(m[2]); } catch {}
    }
  }
  return null;
}

`;

const js = (body: string) => jsPrelude + body;
/** An ES module: the same helpers, with `require` made the ESM way. */
const esm = (body: string) => `import { createRequire } from 'node:module';\nconst require = createRequire(import.meta.url);\n${jsPrelude}${body}`;

/** `hangsAtLoad`: the attack itself keeps the load from finishing (otherwise a load timeout means it proved nothing). */
type Attack = { name: string; task: HarnessTask; src: string; testTimeoutMs?: number; hangsAtLoad?: boolean };

// ---------------------------------------------------------------------------------------
// Python io
// ---------------------------------------------------------------------------------------
const PY_EXCEPTIONS = ['SystemExit(0)', 'KeyboardInterrupt()', 'GeneratorExit()', 'MemoryError()', 'type("Out", (BaseException,), {})()'];
const PY_EXIT_CODES = [0, 1, 2, 124, 137];
const PY_PARENT_SIGNALS = ['SIGKILL', 'SIGSTOP', 'SIGALRM', 'SIGTERM', 'SIGINT', 'SIGUSR1', 'SIGHUP'];

const pyIoAttacks: Attack[] = [
  {
    name: 'py io: prints verdict lines to stdout and stderr (import and call)',
    task: pyIo,
    src: py(
      `print(_forged(), end="")\n_sys.stderr.write(_forged())\ndef sort_list(xs):\n    print(_forged(), end="", flush=True)\n    _sys.stderr.write(_forged())\n    _sys.__stdout__.write(_forged())\n    return None\n`,
    ),
  },
  { name: 'py io: os.write of verdict lines to every fd 0..20', task: pyIo, src: py('_spray()\ndef sort_list(xs):\n    _spray()\n    return None\n') },
  {
    name: 'py io: writes verdict lines to /dev/stdout, /dev/stderr, /dev/fd/* and /proc/self/fd/*',
    task: pyIo,
    src: py(String.raw`
def _dev_paths():
    fds = _os.listdir("/proc/self/fd")
    return ["/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/console"] + ["/dev/fd/" + f for f in fds] + ["/proc/self/fd/" + f for f in fds]
_spray((), _dev_paths())
def sort_list(xs):
    _spray((), _dev_paths())
    return None
`),
  },
  {
    name: 'py io: writes verdict lines to /proc/<ppid>/fd/*, /proc/1/fd/* and every /proc/<pid>/fd/*',
    task: pyIo,
    src: py('def sort_list(xs):\n    _spray((), _fd_paths([str(_os.getppid()), "1"] + _pids()))\n    return None\n'),
  },
  {
    name: 'py io: import __main__ and call the harness emit() with its marker',
    task: pyIo,
    src: py(String.raw`
import __main__
def sort_list(xs):
    g = vars(__main__)
    job = g.get("job") if isinstance(g.get("job"), dict) else {}
    marker = job.get("marker", g.get("marker"))
    # Only a module holding the harness's secret marker is the harness: see the file's rules.
    if _is_marker(marker):
        if callable(g.get("emit")):
            for r in _records():
                g["emit"](r)
        _spray([marker])
    return None
`),
  },
  {
    name: 'py io: sys.modules scan for a module holding the job, writes through its output file',
    task: pyIo,
    src: py(String.raw`
def sort_list(xs):
    for m in list(_sys.modules.values()):
        try:
            d = vars(m)
        except TypeError:
            continue
        j = d.get("job")
        if isinstance(j, dict) and _is_marker(j.get("marker")):
            for name, v in list(d.items()):
                if hasattr(v, "write") and hasattr(v, "flush"):
                    try:
                        v.write(_forged([j["marker"]]))
                        v.flush()
                    except Exception:
                        pass
    return None
`),
  },
  {
    name: 'py io: gc.get_objects() for the job dict and every open file object',
    task: pyIo,
    src: py(String.raw`
import io
def sort_list(xs):
    markers = _known_markers()
    for o in _gc.get_objects():
        if isinstance(o, io.IOBase):
            for data in (_forged(markers), _forged(markers).encode()):
                try:
                    o.write(data)
                    o.flush()
                    break
                except Exception:
                    pass
    _spray(markers)
    return None
`),
  },
  {
    name: 'py io: sys._getframe(1) walk to the caller globals (emit, marker)',
    task: pyIo,
    src: py(String.raw`
def sort_list(xs):
    f = _sys._getframe(1)
    while f is not None:
        g = f.f_globals
        m = f.f_locals.get("marker", g.get("marker"))
        if g is not globals() and _is_marker(m):
            if callable(g.get("emit")):
                for r in _records():
                    g["emit"](r)
            _spray([m])
        f = f.f_back
    return None
`),
  },
  {
    name: 'py io: inspect.stack() and traceback.walk_stack into the harness frames',
    task: pyIo,
    src: py(String.raw`
import inspect, traceback
def sort_list(xs):
    frames = [fi.frame for fi in inspect.stack()] + [f for f, _ in traceback.walk_stack(None)]
    try:
        raise RuntimeError("walk")
    except RuntimeError as e:
        tb = e.__traceback__
        f = tb.tb_frame
        while f is not None:
            frames.append(f)
            f = f.f_back
    markers = set()
    for f in frames:
        for scope in (f.f_locals, f.f_globals):
            for v in list(scope.values()):
                if _is_marker(v):
                    markers.add(v)
                if isinstance(v, dict) and _is_marker(v.get("marker")):
                    markers.add(v["marker"])
    _spray(markers)
    return None
`),
  },
  {
    name: 'py io: reads the marker from /proc/<ppid>/fd/0, environ, cmdline and mem (and /proc/1, /proc/self)',
    task: pyIo,
    testTimeoutMs: 3000,
    src: py(String.raw`
def sort_list(xs):
    found = set()
    for pid in [str(_os.getppid()), "1", "self"]:
        for name in ["cmdline", "environ", "fd/0", "fd/3", "fd/4"]:
            found |= _secrets(_read("/proc/%s/%s" % (pid, name)))
        for blob in _memory(pid):
            found |= _secrets(blob)
    _spray(found, _fd_paths([str(_os.getppid()), "1"]))
    return None
`),
  },
  {
    name: 'py io: searches every file under /tmp, /work, /run, /dev/shm and /proc/self/fd for the job',
    task: pyIo,
    testTimeoutMs: 3000,
    src: py(String.raw`
def sort_list(xs):
    found = set()
    paths = _files(["/tmp", "/work", "/var/tmp", "/dev/shm", "/run"]) + ["/proc/self/fd/" + f for f in _os.listdir("/proc/self/fd")]
    for p in paths:
        found |= _secrets(_read(p))
    _spray(found)
    return None
`),
  },
  {
    name: 'py io: looks for the expected values on disk and in other processes',
    task: pyIo,
    testTimeoutMs: 3000,
    src: py(String.raw`
def sort_list(xs):
    paths = _files(["/tmp", "/work", "/var/tmp", "/dev/shm", "/run", "/home", "/root", "/srv", "/opt"])
    paths += ["/proc/%s/%s" % (p, n) for p in _pids() for n in ("cmdline", "environ", "fd/0")]
    blobs = [_read(p, 8 << 20) for p in paths]
    for pid in (str(_os.getppid()), "1"):
        blobs += list(_memory(pid))
    return _expected_for(xs, blobs)
`),
  },
  {
    name: 'py io: monkeypatches json.dumps so every record says passed',
    task: pyIo,
    src: py(String.raw`
_orig_dumps = _json.dumps
def _dumps(obj, *a, **k):
    if isinstance(obj, dict) and isinstance(obj.get("i"), int):
        obj = {"i": obj["i"], "passed": True, "ms": 1}
    return _orig_dumps(obj, *a, **k)
_json.dumps = _dumps
def sort_list(xs):
    return None
`),
  },
  {
    name: 'py io: replaces sys.stdout, sys.stderr, print and os.write with forgers',
    task: pyIo,
    src: py(String.raw`
import builtins
_raw_write = _os.write
class _W:
    def write(self, s):
        _raw_write(2, _forged().encode())
        return len(s)
    def flush(self):
        pass
_sys.stdout = _sys.stderr = _sys.__stdout__ = _sys.__stderr__ = _W()
_os.write = lambda fd, b: _raw_write(fd, _forged().encode() + bytes(b))
builtins.print = lambda *a, **k: _raw_write(1, _forged().encode())
def sort_list(xs):
    print(xs)
    return None
`),
  },
  {
    name: 'py io: builtins.__import__ and sys.modules["json"] hand out a forging json module',
    task: pyIo,
    src: py(String.raw`
import builtins, types
_fake = types.ModuleType("json")
_fake.dumps = lambda o, *a, **k: '{"i": %d, "passed": true}' % (o.get("i", 0) if isinstance(o, dict) and isinstance(o.get("i"), int) else 0)
_fake.loads = _json.loads
_real_import = builtins.__import__
builtins.__import__ = lambda name, *a, **k: _fake if name == "json" else _real_import(name, *a, **k)
_sys.modules["json"] = _fake
def sort_list(xs):
    import json
    return None
`),
  },
  {
    name: 'py io: sys.setprofile hook rewrites the records the harness emits',
    task: pyIo,
    src: py(String.raw`
import threading
def _hook(frame, event, arg):
    # Only the harness's own emit (its module holds the secret marker): see the file's rules.
    if event == "call" and frame.f_code.co_name == "emit" and _is_marker(frame.f_globals.get("marker")):
        rec = frame.f_locals.get("rec")
        if type(rec) is dict and type(rec.get("i")) is int and rec["i"] < len(_EXP):
            rec.pop("error", None)
            rec["passed"] = True
            rec["value"] = _typed(_EXP[rec["i"]])
_sys.setprofile(_hook)
threading.setprofile(_hook)
def sort_list(xs):
    return None
`),
  },
  {
    name: 'py io: list subclass whose __eq__ is always true (and __ne__ false, __hash__ set)',
    task: pyIo,
    src: py(
      'class _Any(list):\n    def __eq__(self, o):\n        return True\n    def __ne__(self, o):\n        return False\n    def __hash__(self):\n        return 0\ndef sort_list(xs):\n    return _Any()\n',
    ),
  },
  {
    name: 'py io: list subclass holding a wrong value that lies through __iter__, __len__, __getitem__, __repr__, __reduce__',
    task: pyIo,
    src: py(String.raw`
class _Liar(list):
    def __init__(self, shown):
        super().__init__(["wrong"])
        self.shown = shown
    def __iter__(self):
        return iter(self.shown)
    def __len__(self):
        return len(self.shown)
    def __getitem__(self, i):
        return self.shown[i]
    def __repr__(self):
        return repr(self.shown)
    __str__ = __repr__
    def __eq__(self, o):
        return True
    def __reduce__(self):
        return (list, (self.shown,))
    def copy(self):
        return list(self.shown)
def sort_list(xs):
    return _Liar(_ANS.get(tuple(xs)))
`),
  },
  {
    name: 'py io: object that claims __class__ = list',
    task: pyIo,
    src: py(String.raw`
class _Fake:
    __class__ = list
    def __init__(self, shown):
        self.shown = shown
    def __iter__(self):
        return iter(self.shown)
    def __len__(self):
        return len(self.shown)
    def __getitem__(self, i):
        return self.shown[i]
    def __eq__(self, o):
        return True
def sort_list(xs):
    return _Fake(_ANS.get(tuple(xs)))
`),
  },
  {
    name: 'py io: numpy-like array (tolist, __array__, elementwise __eq__ with .all())',
    task: pyIo,
    src: py(String.raw`
class _All:
    def __bool__(self):
        return True
    def all(self):
        return True
class _Array:
    def __init__(self, shown):
        self.shown = shown
    def tolist(self):
        return list(self.shown)
    def __array__(self, *a, **k):
        return self.shown
    def __iter__(self):
        return iter(self.shown)
    def __len__(self):
        return len(self.shown)
    def __eq__(self, o):
        return _All()
    def all(self):
        return True
def sort_list(xs):
    return _Array(_ANS.get(tuple(xs)))
`),
  },
  {
    name: 'py io: list of int subclasses (value 0) that equal anything',
    task: pyIo,
    src: py(
      'class _I(int):\n    def __eq__(self, o):\n        return True\n    def __ne__(self, o):\n        return False\n    __hash__ = int.__hash__\ndef sort_list(xs):\n    return [_I(0) for _ in xs]\n',
    ),
  },
  {
    name: 'py io: str subclass that equals anything',
    task: pyIo,
    src: py(
      'class _S(str):\n    def __eq__(self, o):\n        return True\n    def __ne__(self, o):\n        return False\n    __hash__ = str.__hash__\ndef sort_list(xs):\n    return _S("wrong")\n',
    ),
  },
  {
    name: 'py io: functools.total_ordering class equal to everything',
    task: pyIo,
    src: py(
      'import functools\n@functools.total_ordering\nclass _T:\n    def __eq__(self, o):\n        return True\n    def __lt__(self, o):\n        return False\n    def __hash__(self):\n        return 0\ndef sort_list(xs):\n    return _T()\n',
    ),
  },
  { name: 'py io: self-referential list', task: pyIo, src: py('def sort_list(xs):\n    a = []\n    a.append(a)\n    return a\n') },
  {
    name: 'py io: dict carrying verdict keys and a "__proto__" key',
    task: pyIo,
    src: py(
      'def sort_list(xs):\n    return {"__proto__": {"passed": True, "value": _typed(_ANS.get(tuple(xs)))}, "passed": True, "i": 0, "t": "list", "v": []}\n',
    ),
  },
  ...PY_EXCEPTIONS.map((e): Attack => ({
    name: `py io: raises ${e} inside the call after writing verdict lines`,
    task: pyIo,
    src: py(`def sort_list(xs):\n    _spray()\n    raise ${e}\n`),
  })),
  { name: 'py io: sys.exit(0) at import after writing verdict lines', task: pyIo, src: py('_spray()\n_sys.exit(0)\ndef sort_list(xs):\n    return None\n') },
  { name: 'py io: os._exit(0) at import after writing verdict lines', task: pyIo, src: py('_spray()\n_os._exit(0)\ndef sort_list(xs):\n    return None\n') },
  ...PY_EXIT_CODES.map((code): Attack => ({
    name: `py io: os._exit(${code}) inside the call after writing verdict lines`,
    task: pyIo,
    src: py(`def sort_list(xs):\n    _spray()\n    _os._exit(${code})\n`),
  })),
  ...PY_PARENT_SIGNALS.map((sig): Attack => ({
    name: `py io: os.kill(os.getppid(), ${sig}) after writing verdict lines`,
    task: pyIo,
    src: py(`import signal\ndef sort_list(xs):\n    _spray()\n    _os.kill(_os.getppid(), signal.${sig})\n    _time.sleep(0.2)\n    return None\n`),
  })),
  {
    name: 'py io: os.kill(-1, SIGKILL) after writing verdict lines',
    task: pyIo,
    src: py('import signal\ndef sort_list(xs):\n    _spray()\n    _os.kill(-1, signal.SIGKILL)\n    _time.sleep(0.2)\n    return None\n'),
  },
  {
    name: 'py io: os.kill(-1, SIGSTOP) after writing verdict lines',
    task: pyIo,
    src: py('import signal\ndef sort_list(xs):\n    _spray()\n    _os.kill(-1, signal.SIGSTOP)\n    _time.sleep(0.2)\n    return None\n'),
  },
  {
    name: "py io: os.killpg of the parent's and its own process group",
    task: pyIo,
    src: py(String.raw`
import signal
def sort_list(xs):
    _spray()
    for pg in (_os.getpgid(_os.getppid()), _os.getpgid(0)):
        try:
            _os.killpg(pg, signal.SIGSTOP if pg != _os.getpgid(0) else signal.SIGKILL)
        except OSError:
            pass
    return None
`),
  },
  {
    name: 'py io: signals pid 1 (SIGKILL, SIGTERM, SIGSTOP, SIGINT)',
    task: pyIo,
    src: py(String.raw`
import signal
def sort_list(xs):
    _spray()
    for s in (signal.SIGKILL, signal.SIGTERM, signal.SIGSTOP, signal.SIGINT):
        try:
            _os.kill(1, s)
        except OSError:
            pass
    return None
`),
  },
  { name: 'py io: sleeps past the deadline inside the call', task: pyIo, src: py('def sort_list(xs):\n    _spray()\n    _time.sleep(60)\n    return None\n') },
  {
    name: 'py io: sleeps past the deadline at import',
    task: pyIo,
    hangsAtLoad: true,
    src: py('_spray()\n_time.sleep(60)\ndef sort_list(xs):\n    return None\n'),
  },
  {
    name: 'py io: ignores and blocks SIGALRM/SIGTERM/SIGINT, then sleeps',
    task: pyIo,
    src: py(String.raw`
import signal
for _s in (signal.SIGALRM, signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGVTALRM, signal.SIGPROF):
    signal.signal(_s, signal.SIG_IGN)
signal.pthread_sigmask(signal.SIG_BLOCK, set(signal.Signals) - {signal.SIGKILL, signal.SIGSTOP})
def sort_list(xs):
    _spray()
    _time.sleep(60)
    return None
`),
  },
  {
    name: 'py io: installs forging signal handlers, then spins',
    task: pyIo,
    src: py(String.raw`
import signal
def _h(signum, frame):
    _spray(_known_markers())
for _s in (signal.SIGALRM, signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGUSR1, signal.SIGUSR2, signal.SIGPIPE, signal.SIGCHLD):
    signal.signal(_s, _h)
def sort_list(xs):
    while True:
        try:
            _time.sleep(0.01)
        except BaseException:
            pass
`),
  },
  {
    name: 'py io: forks a setsid daemon that keeps writing verdict lines after return',
    task: pyIo,
    src: py(String.raw`
def sort_list(xs):
    if _os.fork() == 0:
        _os.setsid()
        if _os.fork() == 0:
            markers = _known_markers()
            end = _time.time() + 8
            while _time.time() < end:
                _spray(markers, _fd_paths(["1"] + _pids()))
                _time.sleep(0.01)
        _os._exit(0)
    return None
`),
  },
  {
    name: 'py io: atexit handler and __del__ finalizer print verdict lines',
    task: pyIo,
    src: py(String.raw`
import atexit
atexit.register(lambda: _spray(_known_markers()))
class _Fin:
    def __del__(self):
        _spray(_known_markers())
_keep = _Fin()
_cycle = [_Fin()]
_cycle.append(_cycle)
def sort_list(xs):
    return None
`),
  },
  {
    name: 'py io: a thread keeps writing verdict lines after return',
    task: pyIo,
    src: py(String.raw`
import threading
def _forger():
    markers = _known_markers()
    end = _time.time() + 8
    while _time.time() < end:
        _spray(markers)
        _time.sleep(0.005)
def sort_list(xs):
    threading.Thread(target=_forger, daemon=False).start()
    return None
`),
  },
  {
    name: 'py io: sends verdict lines to every loopback TCP listener and unix socket',
    task: pyIo,
    src: py(String.raw`
import socket
def sort_list(xs):
    data = _forged(_known_markers()).encode()
    for table, family, host in (("/proc/net/tcp", socket.AF_INET, "127.0.0.1"), ("/proc/net/tcp6", socket.AF_INET6, "::1")):
        try:
            lines = open(table).read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            parts = line.split()
            if parts[3] != "0A":
                continue
            try:
                s = socket.socket(family, socket.SOCK_STREAM)
                s.settimeout(0.2)
                s.connect((host, int(parts[1].split(":")[1], 16)))
                s.sendall(data)
                s.close()
            except OSError:
                pass
    try:
        lines = open("/proc/net/unix").read().splitlines()[1:]
    except OSError:
        lines = []
    for line in lines:
        parts = line.split()
        if len(parts) < 8:
            continue
        path = "\0" + parts[7][1:] if parts[7].startswith("@") else parts[7]
        for kind in (socket.SOCK_STREAM, socket.SOCK_DGRAM, socket.SOCK_SEQPACKET):
            try:
                s = socket.socket(socket.AF_UNIX, kind)
                s.settimeout(0.2)
                s.connect(path)
                s.sendall(data)
                s.close()
            except OSError:
                pass
    return None
`),
  },
  {
    name: 'py io: answers on its reply pipe itself: junk, wrong ids, a verdict-shaped reply, a deeply nested line',
    task: pyIo,
    src: py(String.raw`
def sort_list(xs):
    for line in (b"not json", b'{"id": 999, "value": ["l", []]}', b'{"id": 0, "passed": true}', b"[" * 200000 + b"]" * 200000):
        try:
            _os.write(4, line + b"\n")
        except OSError:
            pass
    return None
`),
  },
  {
    name: 'py io: floods its reply pipe past the message cap',
    task: pyIo,
    testTimeoutMs: 3000,
    src: py('def sort_list(xs):\n    chunk = b"x" * (1 << 20)\n    for _ in range(20):\n        _os.write(4, chunk)\n    return None\n'),
  },
  {
    name: 'py io: closes every inherited descriptor, then returns',
    task: pyIo,
    src: py('def sort_list(xs):\n    _spray()\n    _os.closerange(0, 4096)\n    return None\n'),
  },
];

// ---------------------------------------------------------------------------------------
// Python HumanEval: source = prompt + completion; the check's expected answers stay trusted
// ---------------------------------------------------------------------------------------
const pyHeAttacks: Attack[] = [
  {
    name: 'py humaneval: prints {"i":0,"passed":true} lines to stdout, stderr and every fd',
    task: pyHe,
    src: he('_spray()\nprint(_forged())\ndef add(a, b):\n    _spray()\n    print(_forged())\n    return None\n'),
  },
  {
    name: 'py humaneval: import __main__; __main__.emit({"i":0,"passed":True})',
    task: pyHe,
    src: he(
      'import __main__\ndef add(a, b):\n    if callable(getattr(__main__, "emit", None)):\n        __main__.emit({"i": 0, "passed": True})\n    _spray(_known_markers())\n    return None\n',
    ),
  },
  {
    name: 'py humaneval: gc.get_objects() finds the harness globals and calls emit',
    task: pyHe,
    src: he(String.raw`
def add(a, b):
    for o in _gc.get_objects():
        if type(o) is dict and callable(o.get("emit")) and o is not globals():
            try:
                o["emit"]({"i": 0, "passed": True})
            except Exception:
                pass
    return None
`),
  },
  {
    name: 'py humaneval: walks sys._getframe/inspect.stack to check() and the harness',
    task: pyHe,
    src: he(String.raw`
import inspect
def add(a, b):
    frames = [fi.frame for fi in inspect.stack()]
    f = _sys._getframe(1)
    while f is not None:
        frames.append(f)
        f = f.f_back
    for f in frames:
        g = f.f_globals
        if g is not globals() and callable(g.get("emit")):
            g["emit"]({"i": 0, "passed": True})
        m = g.get("marker")
        if _is_marker(m):
            _spray([m])
    return None
`),
  },
  {
    name: 'py humaneval: reads check() from the job, memory or /proc and answers from its asserts',
    task: pyHe,
    testTimeoutMs: 3000,
    src: he(String.raw`
import ast
def _check_texts():
    texts = []
    for o in _gc.get_objects():
        if type(o) is dict and isinstance(o.get("check"), str):
            texts.append(o["check"])
    blobs = []
    for pid in [str(_os.getppid()), "1", "self"]:
        for name in ("cmdline", "environ", "fd/0"):
            blobs.append(_read("/proc/%s/%s" % (pid, name)))
        if pid != "self":
            blobs += list(_memory(pid))
    for p in _files(["/tmp", "/work", "/run", "/dev/shm"]):
        blobs.append(_read(p))
    for b in blobs:
        i = b.find(b"def check(")
        if i >= 0:
            texts.append(b[i:i + 100000].decode("utf-8", "replace").replace("\\n", "\n"))
    return texts
def _answers():
    table = {}
    for t in _check_texts():
        for m in _re.finditer(r"assert candidate\((.*?)\) == ([^\n]+)", t):
            try:
                table[ast.literal_eval("(" + m.group(1) + ",)")] = ast.literal_eval(m.group(2).strip())
            except Exception:
                pass
    return table
_TABLE = _answers()
def add(a, b):
    return _TABLE.get((a, b))
`),
  },
  {
    name: "py humaneval: rewrites the job's check source at import",
    task: pyHe,
    src: he(String.raw`
for _o in _gc.get_objects():
    if type(_o) is dict and isinstance(_o.get("check"), str) and "def check" in _o["check"]:
        _o["check"] = "def check(candidate):\n    pass\n"
`),
  },
  {
    name: 'py humaneval: redefines check, candidate and builtins.check',
    task: pyHe,
    src: he(String.raw`
import builtins
class _Eq:
    def __eq__(self, o):
        return True
def check(candidate):
    return True
candidate = lambda *a, **k: _Eq()
builtins.check = check
builtins.candidate = candidate
def add(a, b):
    return None
`),
  },
  {
    name: 'py humaneval: monkeypatches builtins.AssertionError and sys.excepthook',
    task: pyHe,
    src: he(String.raw`
import builtins
class _Quiet(Exception):
    pass
builtins.AssertionError = _Quiet
_sys.excepthook = lambda *a: None
def add(a, b):
    return None
`),
  },
  {
    name: 'py humaneval: patches builtins.type and isinstance so an __eq__-always object looks like an int',
    task: pyHe,
    src: he(String.raw`
import builtins
class _Eq:
    def __eq__(self, o):
        return True
    def __ne__(self, o):
        return False
    def __hash__(self):
        return hash(3)
_real_type, _real_isinstance = builtins.type, builtins.isinstance
builtins.type = lambda *a: int if len(a) == 1 and _real_isinstance(a[0], _Eq) else _real_type(*a)
builtins.isinstance = lambda o, t: True if _real_isinstance(o, _Eq) else _real_isinstance(o, t)
def add(a, b):
    return _Eq()
`),
  },
  {
    name: 'py humaneval: int subclass (value 7) lying through __eq__, __ne__, __hash__, __repr__',
    task: pyHe,
    src: he(
      'class _I(int):\n    def __eq__(self, o):\n        return True\n    def __ne__(self, o):\n        return False\n    def __hash__(self):\n        return hash(3)\n    def __repr__(self):\n        return "3"\ndef add(a, b):\n    return _I(7)\n',
    ),
  },
  {
    name: 'py humaneval: plain object whose __hash__ and __eq__ collide with the answer',
    task: pyHe,
    src: he('class _H:\n    def __eq__(self, o):\n        return True\n    def __hash__(self):\n        return hash(3)\ndef add(a, b):\n    return _H()\n'),
  },
  {
    name: 'py humaneval: functools.total_ordering object equal to everything',
    task: pyHe,
    src: he(
      'import functools\n@functools.total_ordering\nclass _T:\n    def __eq__(self, o):\n        return True\n    def __lt__(self, o):\n        return False\n    def __hash__(self):\n        return 0\ndef add(a, b):\n    return _T()\n',
    ),
  },
  ...['SystemExit(0)', 'KeyboardInterrupt()', 'type("Out", (BaseException,), {})()'].map((e): Attack => ({
    name: `py humaneval: raises ${e} inside the call after writing verdict lines`,
    task: pyHe,
    src: he(`def add(a, b):\n    _spray()\n    raise ${e}\n`),
  })),
  {
    name: 'py humaneval: completion forges with any marker it finds, then os._exit(0) at import',
    task: pyHe,
    src: he('_spray(_known_markers())\n_os._exit(0)\n'),
  },
  { name: 'py humaneval: sys.exit(0) at import after writing verdict lines', task: pyHe, src: he('_spray()\n_sys.exit(0)\n') },
  {
    name: 'py humaneval: os._exit(0) inside the call after writing verdict lines',
    task: pyHe,
    src: he('def add(a, b):\n    _spray(_known_markers())\n    _os._exit(0)\n'),
  },
  ...['SIGKILL', 'SIGSTOP', 'SIGTERM'].map((sig): Attack => ({
    name: `py humaneval: os.kill(os.getppid(), ${sig}) after writing verdict lines`,
    task: pyHe,
    src: he(`import signal\ndef add(a, b):\n    _spray()\n    _os.kill(_os.getppid(), signal.${sig})\n    _time.sleep(0.2)\n    return None\n`),
  })),
  {
    name: 'py humaneval: os.kill(-1, SIGKILL) after writing verdict lines',
    task: pyHe,
    src: he('import signal\ndef add(a, b):\n    _spray()\n    _os.kill(-1, signal.SIGKILL)\n    return None\n'),
  },
  {
    name: 'py humaneval: monkeypatches json.dumps so the verdict says passed',
    task: pyHe,
    src: he(String.raw`
_orig_dumps = _json.dumps
def _dumps(obj, *a, **k):
    if isinstance(obj, dict) and obj.get("i") == 0:
        obj = {"i": 0, "passed": True, "ms": 1}
    return _orig_dumps(obj, *a, **k)
_json.dumps = _dumps
`),
  },
  {
    name: 'py humaneval: sys.setprofile hook rewrites the verdict record',
    task: pyHe,
    src: he(String.raw`
def _hook(frame, event, arg):
    if event == "call" and frame.f_code.co_name == "emit":
        rec = frame.f_locals.get("rec")
        if type(rec) is dict and rec.get("i") == 0:
            rec.pop("error", None)
            rec["passed"] = True
_sys.setprofile(_hook)
`),
  },
  {
    name: "py humaneval: patches the harness's sanitise/candidate helpers to hand check() an __eq__-always object",
    task: pyHe,
    src: he(String.raw`
class _Eq:
    def __eq__(self, o):
        return True
for _o in _gc.get_objects():
    if type(_o) is dict and _o is not globals():
        for _k in ("sanitise", "sanitize", "typed", "deserialise", "decode"):
            if callable(_o.get(_k)):
                _o[_k] = lambda *a, **k: _Eq()
def add(a, b):
    return _Eq()
`),
  },
  {
    name: 'py humaneval: reads the marker from /proc/<ppid>/fd/0, environ, cmdline and mem, writes to /proc/<ppid>/fd/*',
    task: pyHe,
    testTimeoutMs: 3000,
    src: he(String.raw`
def add(a, b):
    found = set()
    for pid in [str(_os.getppid()), "1", "self"]:
        for name in ["cmdline", "environ", "fd/0"]:
            found |= _secrets(_read("/proc/%s/%s" % (pid, name)))
        for blob in _memory(pid):
            found |= _secrets(blob)
    _spray(found, _fd_paths([str(_os.getppid()), "1"]))
    return None
`),
  },
  {
    name: 'py humaneval: forked daemon, thread and atexit handler keep writing verdict lines',
    task: pyHe,
    src: he(String.raw`
import atexit, threading
def _forge_for(seconds):
    markers = _known_markers()
    end = _time.time() + seconds
    while _time.time() < end:
        _spray(markers, _fd_paths(["1"] + _pids()))
        _time.sleep(0.01)
atexit.register(lambda: _spray(_known_markers()))
def add(a, b):
    if _os.fork() == 0:
        _os.setsid()
        if _os.fork() == 0:
            _forge_for(8)
        _os._exit(0)
    threading.Thread(target=_forge_for, args=(8,)).start()
    return None
`),
  },
];

// ---------------------------------------------------------------------------------------
// JavaScript io
// ---------------------------------------------------------------------------------------
const JS_PARENT_SIGNALS = ['SIGKILL', 'SIGSTOP', 'SIGTERM', 'SIGALRM', 'SIGINT'];

/** Runs inside the PARENT (a Node harness) if the candidate can reach its inspector: makes every verdict a pass. */
const TRUSTED_PATCH = String.raw`
function trustedPatch() {
  const EXP = [[1, 2, 3], [4, 5], [-1, 9, 10, 10]];
  const t = (v) => (Array.isArray(v) ? { t: 'list', v: v.map(t) } : { t: 'num', v });
  const orig = JSON.stringify;
  JSON.stringify = function (v, ...rest) {
    if (v && typeof v === 'object' && typeof v.i === 'number') {
      v = { ...v, passed: true };
      delete v.error;
      if (EXP[v.i]) v.value = t(EXP[v.i]);
    }
    return orig.call(this, v, ...rest);
  };
  return 'patched';
}
`;

const jsIoAttacks: Attack[] = [
  {
    name: 'js io: process.stdout.write, console.log and console.error of verdict lines',
    task: jsIo,
    src: js(
      `if (proc) { proc.stdout.write(forged()); proc.stderr.write(forged()); }\nconsole.log(forged());\nconsole.error(forged());\nfunction sort_list(xs) {\n  console.log(forged());\n  console.error(forged());\n  if (proc) proc.stdout.write(forged());\n  return null;\n}\n`,
    ),
  },
  {
    name: 'js io: fs.writeSync of verdict lines to every fd 0..20',
    task: jsIo,
    src: js('spray();\nfunction sort_list(xs) {\n  spray();\n  return null;\n}\n'),
  },
  {
    name: 'js io: writes verdict lines to /dev/stdout, /dev/stderr, /dev/fd/* and /proc/self/fd/*',
    task: jsIo,
    src: js(String.raw`
function devPaths() {
  let fds = [];
  try { fds = nfs.readdirSync('/proc/self/fd'); } catch {}
  return ['/dev/stdout', '/dev/stderr', '/dev/tty', ...fds.map((f) => '/dev/fd/' + f), ...fds.map((f) => '/proc/self/fd/' + f)];
}
spray([], devPaths());
function sort_list(xs) {
  spray([], devPaths());
  return null;
}
`),
  },
  {
    name: 'js io: writes verdict lines to /proc/<ppid>/fd/*, /proc/1/fd/* and every /proc/<pid>/fd/*',
    task: jsIo,
    src: js("function sort_list(xs) {\n  if (proc) spray([], fdPaths([String(proc.ppid), '1', ...pids()]));\n  return null;\n}\n"),
  },
  {
    name: 'js io: process.exit(0) at load after writing verdict lines',
    task: jsIo,
    src: js('spray();\nif (proc) proc.exit(0);\nfunction sort_list(xs) {\n  return null;\n}\n'),
  },
  ...[0, 1, 137].map((code): Attack => ({
    name: `js io: process.exit(${code}) inside the call after writing verdict lines`,
    task: jsIo,
    src: js(`function sort_list(xs) {\n  spray();\n  if (proc) proc.exit(${code});\n  return null;\n}\n`),
  })),
  {
    name: 'js io: process.reallyExit(0) after writing verdict lines',
    task: jsIo,
    src: js('function sort_list(xs) {\n  spray();\n  if (proc) proc.reallyExit(0);\n  return null;\n}\n'),
  },
  {
    name: 'js io: process.abort() after writing verdict lines',
    task: jsIo,
    src: js('function sort_list(xs) {\n  spray();\n  if (proc) proc.abort();\n  return null;\n}\n'),
  },
  ...JS_PARENT_SIGNALS.map((sig): Attack => ({
    name: `js io: process.kill(process.ppid, '${sig}') after writing verdict lines`,
    task: jsIo,
    src: js(`function sort_list(xs) {\n  spray();\n  try { if (proc) proc.kill(proc.ppid, '${sig}'); } catch {}\n  return null;\n}\n`),
  })),
  ...['-1', '1', '0'].map((pid): Attack => ({
    name: `js io: process.kill(${pid}, 'SIGKILL') after writing verdict lines`,
    task: jsIo,
    src: js(`function sort_list(xs) {\n  spray();\n  try { if (proc) proc.kill(${pid}, 'SIGKILL'); } catch {}\n  return null;\n}\n`),
  })),
  {
    name: 'js io: patches JSON.stringify to emit verdict lines',
    task: jsIo,
    src: js(String.raw`
JSON.stringify = function (v, ...rest) {
  return origStringify({ i: v && typeof v === 'object' ? v.i : 0, passed: true, ms: 1 }) + '\n' + forged().trimEnd();
};
function sort_list(xs) {
  return null;
}
`),
  },
  {
    name: 'js io: Object.prototype pollution with verdict keys (passed, ok, status)',
    task: jsIo,
    src: js(String.raw`
for (const [k, v] of Object.entries({ passed: true, ok: true, success: true, status: 'passed', verdict: 'pass', done: true })) {
  Object.defineProperty(Object.prototype, k, { value: v, writable: true, configurable: true });
}
function sort_list(xs) {
  return null;
}
`),
  },
  {
    // also what the candidate side serialises its own replies with, so the load never answers
    name: 'js io: Object.prototype.toJSON and Array.prototype.toJSON pollution',
    task: jsIo,
    hangsAtLoad: true,
    src: js(String.raw`
Object.defineProperty(Object.prototype, 'toJSON', { value() { return { i: this && this.i, passed: true }; }, writable: true, configurable: true });
Object.defineProperty(Array.prototype, 'toJSON', { value() { return { passed: true }; }, writable: true, configurable: true });
function sort_list(xs) {
  return ['wrong'];
}
`),
  },
  {
    name: 'js io: Object.prototype.then makes every object a thenable',
    task: jsIo,
    src: js(String.raw`
Object.defineProperty(Object.prototype, 'then', {
  value(resolve) { delete Object.prototype.then; if (typeof resolve === 'function') resolve({ passed: true }); },
  writable: true, configurable: true,
});
function sort_list(xs) {
  return ['wrong'];
}
`),
  },
  {
    name: 'js io: patches Array.isArray, Object.getPrototypeOf, Object.keys and Reflect',
    task: jsIo,
    src: js(String.raw`
Array.isArray = () => true;
Object.getPrototypeOf = () => Array.prototype;
Object.keys = () => ['0', '1', '2'];
Reflect.ownKeys = () => ['0', '1', '2', 'length'];
function sort_list(xs) {
  return { passed: true, length: 3 };
}
`),
  },
  {
    name: 'js io: returns a Proxy whose elements read wrong first, then as the answer',
    task: jsIo,
    src: js(String.raw`
function sort_list(xs) {
  const shown = ANS[xs.join(',')];
  const reads = {};
  return new Proxy(['wrong'], {
    get(t, k) {
      if (k === 'length') return shown.length;
      if (typeof k === 'string' && /^\d+$/.test(k)) return (reads[k] = (reads[k] || 0) + 1) === 1 ? 'wrong' : shown[k];
      return Reflect.get(t, k);
    },
    has: () => true,
    ownKeys: () => [...shown.keys()].map(String).concat('length'),
    getOwnPropertyDescriptor: (t, k) => (k === 'length' ? Reflect.getOwnPropertyDescriptor(t, k) : { value: 'wrong', writable: true, enumerable: true, configurable: true }),
  });
}
`),
  },
  {
    name: 'js io: returns a Proxy of a plain object pretending to be an array',
    task: jsIo,
    src: js(String.raw`
function sort_list(xs) {
  const shown = ANS[xs.join(',')];
  return new Proxy({}, {
    getPrototypeOf: () => Array.prototype,
    get: (t, k) => (k === 'length' ? shown.length : k === Symbol.iterator ? shown[Symbol.iterator].bind(shown) : shown[k]),
    has: () => true,
    ownKeys: () => [...shown.keys()].map(String).concat('length'),
    getOwnPropertyDescriptor: (t, k) => ({ value: k === 'length' ? shown.length : shown[k], writable: true, enumerable: k !== 'length', configurable: true }),
  });
}
`),
  },
  {
    name: 'js io: array whose element getters change value on each read',
    task: jsIo,
    src: js(String.raw`
function sort_list(xs) {
  const shown = ANS[xs.join(',')];
  const a = shown.map(() => 'wrong');
  shown.forEach((v, i) => {
    let n = 0;
    Object.defineProperty(a, i, { get: () => (n++ === 0 ? 'wrong' : v), enumerable: true, configurable: true });
  });
  return a;
}
`),
  },
  {
    name: 'js io: object answering through valueOf, toString, toJSON and Symbol.toPrimitive',
    task: jsIo,
    src: js(String.raw`
function sort_list(xs) {
  const shown = ANS[xs.join(',')];
  return { toJSON: () => shown, valueOf: () => shown, toString: () => String(shown), [Symbol.toPrimitive]: () => String(shown), length: shown.length };
}
`),
  },
  {
    name: 'js io: Array subclass holding a wrong value whose toJSON and iterator lie',
    task: jsIo,
    src: js(String.raw`
class Liar extends Array {
  toJSON() { return this.shown; }
  [Symbol.iterator]() { return this.shown[Symbol.iterator](); }
}
function sort_list(xs) {
  const a = Liar.from(['wrong']);
  Object.defineProperty(a, 'shown', { value: ANS[xs.join(',')], enumerable: false });
  return a;
}
`),
  },
  { name: 'js io: returns a thenable that never settles', task: jsIo, src: js('function sort_list(xs) {\n  spray();\n  return { then() {} };\n}\n') },
  {
    name: 'js io: async function awaiting a never-resolving promise',
    task: jsIo,
    src: js('async function sort_list(xs) {\n  spray();\n  await new Promise(() => {});\n}\n'),
  },
  {
    name: 'js io: thenable that resolves twice (wrong first) and throws after',
    task: jsIo,
    src: js(
      "function sort_list(xs) {\n  return { then(res, rej) { res('wrong'); res({ passed: true }); rej(new Error('x')); throw new Error('late'); } };\n}\n",
    ),
  },
  {
    name: 'js io: throws a verdict-looking object',
    task: jsIo,
    src: js('function sort_list(xs) {\n  throw { i: 0, passed: true, message: forged(), toString() { return forged(); } };\n}\n'),
  },
  {
    name: 'js io: globalThis tricks: replaces JSON, Array, Object and the entry point',
    task: jsIo,
    src: js(String.raw`
let calls = 0;
globalThis.JSON = { stringify: () => '{"i":0,"passed":true}', parse: JSON.parse };
globalThis.emit = globalThis.__crucible = () => true;
globalThis.passed = true;
function sort_list(xs) {
  calls++;
  // the next lookup of the entry point finds another wrong function
  globalThis.sort_list = () => ({ passed: true, calls });
  return null;
}
`),
  },
  {
    name: 'js io: reads the marker from /proc/<ppid>/fd/0, environ, cmdline and mem',
    task: jsIo,
    testTimeoutMs: 3000,
    src: js(String.raw`
function sort_list(xs) {
  if (!proc || !nfs) return null;
  const found = new Set();
  for (const pid of [String(proc.ppid), '1', 'self']) {
    for (const name of ['cmdline', 'environ', 'fd/0', 'fd/3', 'fd/4']) for (const m of secretsIn(readSome('/proc/' + pid + '/' + name))) found.add(m);
    memoryScan(pid, (s) => { for (const m of secretsIn(s)) found.add(m); });
  }
  spray([...found], fdPaths([String(proc.ppid), '1']));
  return null;
}
`),
  },
  {
    name: 'js io: looks for the expected values on disk and in other processes',
    task: jsIo,
    testTimeoutMs: 3000,
    src: js(String.raw`
function walk(dir, out) {
  if (out.length > 3000) return;
  let ents = [];
  try { ents = nfs.readdirSync(dir, { withFileTypes: true }); } catch { return; }
  for (const e of ents) { const p = dir + '/' + e.name; if (e.isDirectory()) walk(p, out); else out.push(p); }
}
function sort_list(xs) {
  if (!proc || !nfs) return null;
  const paths = [];
  for (const d of ['/tmp', '/work', '/var/tmp', '/dev/shm', '/run', '/home', '/root', '/srv', '/opt']) walk(d, paths);
  for (const p of pids()) for (const n of ['cmdline', 'environ', 'fd/0']) paths.push('/proc/' + p + '/' + n);
  const blobs = paths.map((p) => readSome(p, 8 << 20));
  for (const pid of [String(proc.ppid), '1']) memoryScan(pid, (s) => blobs.push(s));
  return expectedFor(xs, blobs);
}
`),
  },
  {
    name: 'js io: child_process spawns detached writers (node and sh)',
    task: jsIo,
    src: js(String.raw`
function sort_list(xs) {
  if (!req || !proc) return null;
  const cp = req('node:child_process');
  const code = 'const fs = require("fs"); const s = ' + origStringify(forged()) + '; const end = Date.now() + 8000;' +
    'const t = setInterval(() => { for (let fd = 0; fd <= 20; fd++) try { fs.writeSync(fd, s); } catch {}' +
    ' for (const p of fs.readdirSync("/proc")) { if (!/^\\d+$/.test(p)) continue; for (const fd of [1, 2]) try { fs.appendFileSync("/proc/" + p + "/fd/" + fd, s); } catch {} }' +
    ' if (Date.now() > end) clearInterval(t); }, 10);';
  try { cp.spawn(proc.execPath, ['-e', code], { detached: true, stdio: 'inherit' }).unref(); } catch {}
  try {
    cp.spawn('sh', ['-c', 'for i in 1 2 3 4 5 6 7 8 9 10; do sleep 0.3; for f in /proc/[0-9]*/fd/1 /proc/[0-9]*/fd/2; do printf "%s" "$S" >> "$f"; done; done'],
      { detached: true, stdio: 'ignore', env: { S: forged(), PATH: proc.env.PATH || '/usr/bin:/bin' } }).unref();
  } catch {}
  return null;
}
`),
  },
  {
    name: 'js io: setTimeout/setInterval writers keep going after return',
    task: jsIo,
    src: js(String.raw`
function sort_list(xs) {
  const t = setInterval(() => spray(), 5);
  setTimeout(() => clearInterval(t), 8000);
  setTimeout(() => spray(), 0);
  return null;
}
`),
  },
  {
    name: 'js io: patches require("node:assert") (strictEqual and friends become no-ops)',
    task: jsIo,
    src: js(String.raw`
if (req) {
  for (const name of ['node:assert', 'node:assert/strict', 'assert']) {
    const a = req(name);
    for (const k of ['strictEqual', 'deepStrictEqual', 'equal', 'deepEqual', 'ok', 'notStrictEqual', 'throws', 'rejects', 'fail']) a[k] = () => {};
    a.AssertionError = class extends Error {};
  }
}
function sort_list(xs) {
  return null;
}
`),
  },
  {
    name: 'js io: patches process.stdout.write, fs.writeSync and process.binding("fs") writers',
    task: jsIo,
    src: js(String.raw`
if (proc) {
  const w = proc.stdout.write.bind(proc.stdout);
  proc.stdout.write = (c, ...r) => w(forged() + c, ...r);
}
if (nfs) {
  const ws = nfs.writeSync;
  nfs.writeSync = (fd, s, ...r) => ws(fd, typeof s === 'string' ? forged() + s : s, ...r);
}
try {
  const b = proc.binding('fs');
  const ws = b.writeString;
  b.writeString = function (fd, s, ...r) { return ws.call(this, fd, forged() + s, ...r); };
} catch {}
function sort_list(xs) {
  console.log('hello');
  return null;
}
`),
  },
  {
    name: 'js io: Error.prepareStackTrace callsites to reach the caller (getThis/getFunction)',
    task: jsIo,
    src: js(String.raw`
function sort_list(xs) {
  const prev = Error.prepareStackTrace;
  Error.stackTraceLimit = Infinity;
  Error.prepareStackTrace = (e, cs) => cs;
  const sites = new Error().stack;
  Error.prepareStackTrace = prev;
  const found = new Set();
  for (const c of Array.isArray(sites) ? sites : []) {
    for (const o of [c.getThis && c.getThis(), c.getFunction && c.getFunction()]) {
      if (!o || (typeof o !== 'object' && typeof o !== 'function')) continue;
      for (const k of Object.getOwnPropertyNames(o)) {
        try {
          const v = o[k];
          if (typeof v === 'string') for (const m of secretsIn(v)) found.add(m);
          if (v && typeof v === 'object' && typeof v.marker === 'string') found.add(v.marker);
          if (typeof v === 'function' && /emit/.test(k)) v({ i: 0, passed: true });
        } catch {}
      }
    }
  }
  spray([...found]);
  return null;
}
`),
  },
  {
    name: 'js io: process.on("exit"/"beforeExit"/signals) handlers write verdict lines',
    task: jsIo,
    src: js(String.raw`
if (proc) {
  for (const ev of ['exit', 'beforeExit', 'SIGTERM', 'SIGINT', 'SIGHUP', 'uncaughtException', 'unhandledRejection']) proc.on(ev, () => spray());
}
function sort_list(xs) {
  return null;
}
`),
  },
  {
    name: 'js io: vm escape via constructor.constructor("return process") then writes and exits',
    task: jsIo,
    src: js(String.raw`
function sort_list(xs) {
  let p = null;
  const tries = [
    () => this.constructor.constructor('return process')(),
    () => ({}).constructor.constructor('return process')(),
    () => sort_list.constructor('return process')(),
    () => Function('return this')().process,
  ];
  for (const f of tries) { try { p = f(); if (p) break; } catch {} }
  if (p) {
    p.stdout.write(forged());
    p.exit(0);
  }
  return null;
}
`),
  },
  {
    name: "js io: SIGUSR1 opens the parent's inspector; patches JSON.stringify inside it",
    task: jsIo,
    testTimeoutMs: 3000,
    src: js(String.raw`${TRUSTED_PATCH}
async function inspectorForge() {
  if (!req || !proc) return;
  const net = req('node:net');
  const http = req('node:http');
  for (const pid of new Set([proc.ppid, ...pids().map(Number)])) if (pid > 1) try { proc.kill(pid, 'SIGUSR1'); } catch {}
  await new Promise((r) => setTimeout(r, 400));
  const list = await new Promise((resolve) => {
    http.get({ host: '127.0.0.1', port: 9229, path: '/json/list' }, (res) => {
      let b = '';
      res.on('data', (c) => (b += c));
      res.on('end', () => resolve(b));
    }).on('error', () => resolve('[]'));
  });
  let targets = [];
  try { targets = JSON.parse(list); } catch {}
  const msg = Buffer.from(origStringify({ id: 1, method: 'Runtime.evaluate', params: { expression: '(' + trustedPatch.toString() + ')()', includeCommandLineAPI: true } }));
  for (const t of targets) {
    await new Promise((resolve) => {
      const url = new URL(t.webSocketDebuggerUrl);
      const s = net.connect(Number(url.port), url.hostname, () => {
        s.write('GET ' + url.pathname + ' HTTP/1.1\r\nHost: ' + url.host + '\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
          'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n');
      });
      s.once('data', () => {
        // one masked text frame; a zero mask key leaves the payload as is
        const head = msg.length < 126 ? Buffer.from([0x81, 0x80 | msg.length]) : Buffer.from([0x81, 0x80 | 126, msg.length >> 8, msg.length & 255]);
        s.write(Buffer.concat([head, Buffer.alloc(4), msg]));
        setTimeout(() => { s.destroy(); resolve(); }, 300);
      });
      s.on('error', () => resolve());
    });
  }
}
async function sort_list(xs) {
  await inspectorForge();
  return null;
}
`),
  },
  {
    name: 'js io: CommonJS module.exports Proxy hands out a forging function',
    task: jsIo,
    src: js(String.raw`
function wrong(xs) {
  spray();
  return null;
}
if (typeof module === 'object' && module) {
  module.exports = new Proxy({}, {
    get: (t, k) => (k === 'then' ? undefined : wrong),
    has: () => true,
    ownKeys: () => ['sort_list', 'default'],
    getOwnPropertyDescriptor: () => ({ value: wrong, writable: true, enumerable: true, configurable: true }),
  });
}
`),
  },
  {
    name: 'js io: worker_threads worker keeps writing verdict lines',
    task: jsIo,
    src: js(String.raw`
function sort_list(xs) {
  if (!req) return null;
  const { Worker } = req('node:worker_threads');
  const code = 'const fs = require("fs"); const s = ' + origStringify(forged()) + '; const end = Date.now() + 8000;' +
    'const t = setInterval(() => { for (let fd = 0; fd <= 20; fd++) try { fs.writeSync(fd, s); } catch {} if (Date.now() > end) clearInterval(t); }, 5);';
  new Worker(code, { eval: true });
  return null;
}
`),
  },
  { name: 'js io: busy loop after writing verdict lines', task: jsIo, src: js('function sort_list(xs) {\n  spray();\n  for (;;) {}\n}\n') },
  {
    name: 'js io: Atomics.wait sleeps past the deadline',
    task: jsIo,
    src: js('function sort_list(xs) {\n  spray();\n  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60000);\n  return null;\n}\n'),
  },
  {
    name: 'js io: returns JSON with a "__proto__" key carrying a verdict',
    task: jsIo,
    src: js(String.raw`
function sort_list(xs) {
  return JSON.parse('{"__proto__": {"passed": true, "value": ' + origStringify(typedV(ANS[xs.join(',')])) + '}, "passed": true, "t": "list", "v": []}');
}
`),
  },
  {
    name: 'js esm: export function; writes verdict lines at import and in the call',
    task: jsIo,
    src: esm('spray();\nexport function sort_list(xs) {\n  spray();\n  return null;\n}\n'),
  },
  {
    name: 'js esm: export default function and a top-level await that never settles',
    task: jsIo,
    hangsAtLoad: true,
    src: esm('spray();\nexport default function sort_list(xs) {\n  return null;\n}\nawait new Promise(() => {});\n'),
  },
  {
    name: 'js esm: process.exit(0) from a top-level await after writing verdict lines',
    task: jsIo,
    src: esm('export function sort_list(xs) {\n  return null;\n}\nawait new Promise((r) => setTimeout(r, 50));\nspray();\nprocess.exit(0);\n'),
  },
];

// ---------------------------------------------------------------------------------------
// Python HumanEval tasks whose check() leans on builtins or iteration protocols (as many
// HumanEval and MBPP checks do): the trusted side runs check(), so a name or an exception the
// candidate defines must not change what check() itself computes.
// ---------------------------------------------------------------------------------------
const MAD_PROMPT =
  'from typing import List\n\n\ndef mean_absolute_deviation(numbers: List[float]) -> float:\n    """Mean absolute deviation around the mean of the numbers."""\n';
const pyHeAbs: HarnessTask = {
  language: 'python',
  entryPoint: 'mean_absolute_deviation',
  prompt: MAD_PROMPT,
  tests: {
    kind: 'humaneval',
    check: 'def check(candidate):\n    assert abs(candidate([1.0, 2.0, 3.0]) - 2.0/3.0) < 1e-6\n    assert abs(candidate([1.0, 2.0, 3.0, 4.0]) - 1.0) < 1e-6\n',
  },
};
const DOUBLE_PROMPT = 'def double(x: int) -> int:\n    """Return 2 * x."""\n';
const pyHeRange: HarnessTask = {
  language: 'python',
  entryPoint: 'double',
  prompt: DOUBLE_PROMPT,
  tests: {
    kind: 'humaneval',
    check:
      'def check(candidate):\n    import random\n    rng = random.Random(42)\n    for _ in range(100):\n        x = rng.randint(-1000, 1000)\n        assert candidate(x) == 2 * x\n',
  },
};
const COMMON_PROMPT = 'def common(a: tuple, b: tuple) -> list:\n    """The elements a and b share, in any order."""\n';
const pyHeSet: HarnessTask = {
  language: 'python',
  entryPoint: 'common',
  prompt: COMMON_PROMPT,
  tests: {
    kind: 'humaneval',
    check:
      'def check(candidate):\n    assert set(candidate((3, 4, 5, 6), (5, 7, 4, 10))) == set((4, 5))\n    assert set(candidate((1, 2, 3, 4), (5, 4, 3, 7))) == set((3, 4))\n',
  },
};
const EVEN_PROMPT = 'def is_even(n: int) -> bool:\n    """Whether n is even."""\n';
const pyHeMap: HarnessTask = {
  language: 'python',
  entryPoint: 'is_even',
  prompt: EVEN_PROMPT,
  tests: { kind: 'humaneval', check: 'def check(candidate):\n    assert all(map(candidate, [0, 2, 4, 10]))\n    assert not any(map(candidate, [1, 3, 7]))\n' },
};

/** Sends SIGINT to the trusted side (its parent) for a while, starting `delay` seconds into the load. */
const sigintStorm = (delay: number) => String.raw`
import os as _o, signal as _sg, threading as _th, time as _t
def _storm():
    _t.sleep(${delay})
    ppid = _o.getppid()
    end = _t.time() + 0.5
    while _t.time() < end:
        try:
            _o.kill(ppid, _sg.SIGINT)
        except OSError:
            return
_th.Thread(target=_storm, daemon=True).start()
`;

const pyHeExtraAttacks: Attack[] = [
  {
    name: "py humaneval (abs check): defines abs() so check's abs(candidate(x) - e) < 1e-6 holds",
    task: pyHeAbs,
    src: `${MAD_PROMPT}    return 0.0\n\n\ndef abs(x):\n    return 0\n`,
  },
  {
    name: "py humaneval (range loop check): defines range() so the check's loop never runs",
    task: pyHeRange,
    src: `${DOUBLE_PROMPT}    return None\n\n\ndef range(*a):\n    return []\n`,
  },
  {
    name: "py humaneval (set check): defines set() so both sides of check's comparison are equal",
    task: pyHeSet,
    src: `${COMMON_PROMPT}    return []\n\n\ndef set(*a):\n    return 0\n`,
  },
  {
    name: 'py humaneval (map check): raises StopIteration so all(map(candidate, ...)) is vacuously true',
    task: pyHeMap,
    src: `${EVEN_PROMPT}    raise StopIteration\n`,
  },
];

const attacks: Attack[] = [...pyIoAttacks, ...pyHeAttacks, ...pyHeExtraAttacks, ...jsIoAttacks];

const explain = (r: ScoreResult) =>
  `${r.harness.tests.map((t) => `#${t.index} ${t.passed ? 'pass' : 'fail'} ${t.detail.slice(0, 200)}`).join('; ')} | exec ${r.harness.exec.status} | stderr ${r.harness.exec.stderr.slice(0, 300)}`;

describe('positive controls: a right answer still scores', () => {
  const controls: Attack[] = [
    { name: 'py io correct', task: pyIo, src: 'def sort_list(xs):\n    return sorted(xs)\n' },
    { name: 'py humaneval correct', task: pyHe, src: `${PROMPT}    return a + b\n` },
    { name: 'js io correct', task: jsIo, src: 'function sort_list(xs) {\n  return [...xs].sort((a, b) => a - b);\n}\n' },
    {
      name: 'py humaneval (abs check) correct',
      task: pyHeAbs,
      src: `${MAD_PROMPT}    m = sum(numbers) / len(numbers)\n    return sum(abs(x - m) for x in numbers) / len(numbers)\n`,
    },
    { name: 'py humaneval (range loop check) correct', task: pyHeRange, src: `${DOUBLE_PROMPT}    return 2 * x\n` },
    { name: 'py humaneval (set check) correct', task: pyHeSet, src: `${COMMON_PROMPT}    return list(set(a) & set(b))\n` },
    { name: 'py humaneval (map check) correct', task: pyHeMap, src: `${EVEN_PROMPT}    return n % 2 == 0\n` },
  ];
  for (const c of controls) {
    it(c.name, async () => {
      // generous: a cold interpreter start on a busy host must not fail the control
      const r = await scoreSolution(manager, SANDBOX, c.task, c.src, { testTimeoutMs: 3000 });
      expect(r.status, r.harness.exec.stderr).toBe('scored');
      expect(r.components.passRate, explain(r)).toBe(1);
    });
  }
});

describe('attack sources parse (a typo would make an attack score 0 for the wrong reason)', () => {
  it('python', async () => {
    const srcs = attacks.filter((a) => a.task.language === 'python').map((a) => a.src);
    const r = await manager.exec(
      SANDBOX,
      [
        'python3',
        '-I',
        '-c',
        'import ast, json, sys\nfor i, s in enumerate(json.load(sys.stdin)):\n    try:\n        ast.parse(s)\n    except SyntaxError as e:\n        print(i, e)\n',
      ],
      { stdin: JSON.stringify(srcs), timeoutMs: 20_000 },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
  });
  it('javascript', async () => {
    const srcs = attacks.filter((a) => a.task.language === 'javascript').map((a) => a.src);
    // scripts and CommonJS as a CommonJS wrapper; ES modules through --check of a .mjs file
    const check = String.raw`
const fs = require('fs'); const vm = require('vm'); const cp = require('child_process');
JSON.parse(fs.readFileSync(0, 'utf8')).forEach((s, i) => {
  if (/^import |^export /m.test(s)) {
    fs.writeFileSync('/tmp/check.mjs', s);
    try { cp.execFileSync(process.execPath, ['--check', '/tmp/check.mjs'], { stdio: 'pipe' }); } catch (e) { console.log(i, String(e.stderr)); }
  } else {
    try { new vm.Script('(function (exports, require, module, __filename, __dirname) {' + s + '\n})'); } catch (e) { console.log(i, e.message); }
  }
});`;
    const r = await manager.exec(SANDBOX, ['node', '-e', check], { stdin: JSON.stringify(srcs), timeoutMs: 20_000 });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
  });
});

const expectZero = (r: ScoreResult) => {
  expect(r.status, `${r.harness.harnessError ?? ''} ${r.harness.exec.stderr.slice(0, 300)}`).toBe('scored');
  expect(r.components.passRate, explain(r)).toBe(0);
  expect(r.reward).toBe(0);
};

const loadTimedOut = (r: ScoreResult) => /timeout/i.test(r.harness.loadError ?? '');
async function expectAttackZero(a: Attack, on: SandboxManager) {
  const ms = a.testTimeoutMs ?? 700;
  let r = await scoreSolution(on, SANDBOX, a.task, a.src, { testTimeoutMs: ms });
  // An attack that never loaded proved nothing: on a slow host, once more with more time.
  if (!a.hangsAtLoad && loadTimedOut(r)) r = await scoreSolution(on, SANDBOX, a.task, a.src, { testTimeoutMs: 4 * ms });
  expect(!a.hangsAtLoad && loadTimedOut(r), 'the attack did not finish loading, so it tested nothing').toBe(false);
  expectZero(r);
}

// Attacks that stop the trusted side or outlast its deadlines spend their time waiting (for the
// sandbox's 30 s timeout, or a wall ceiling per call): one after another they took 170 s of this
// file's 200 s. They run side by side instead, each on a manager of its own (a manager admits
// one sandbox of the default limits at a time), with the same sandbox, limits and checks.
const WAITS_OUT_A_DEADLINE = /SIGSTOP|killpg|sleeps|spins|toJSON pollution/;
const WAITING_SLOTS = 5;

describe('forging attempts all score 0', () => {
  for (const a of attacks.filter((x) => !WAITS_OUT_A_DEADLINE.test(x.name))) {
    it(a.name, () => expectAttackZero(a, manager));
  }

  // An unscored run (status sandbox_error) costs a wrong answer nothing, so a candidate must
  // not be able to cause one. Where the storm lands is a race, hence a sweep of start times.
  it('py humaneval: SIGINT storm at the trusted side while it runs the prompt stays scored (sweep of start times)', async () => {
    for (let ms = 0; ms <= 15; ms++) {
      expectZero(await scoreSolution(manager, SANDBOX, pyHeAbs, `${MAD_PROMPT}    return 0.0\n${sigintStorm(ms / 1000)}`, { testTimeoutMs: 700 }));
    }
  }, 120_000);
});

describe.concurrent('forging attempts that wait out a deadline all score 0 (side by side)', () => {
  const free: SandboxManager[] = [];
  const cleanups: (() => Promise<void>)[] = [];
  beforeAll(() => {
    for (let i = 0; i < WAITING_SLOTS; i++) {
      const made = testManager(`forging-wait-${i}`);
      free.push(made.manager);
      cleanups.push(made.cleanup);
    }
  });
  afterAll(async () => {
    await Promise.all(cleanups.map((c) => c()));
  });
  for (const a of attacks.filter((x) => WAITS_OUT_A_DEADLINE.test(x.name))) {
    it(a.name, async () => {
      const on = free.pop();
      if (!on) throw new Error('more waiting attacks at once than WAITING_SLOTS (Vitest runs up to maxConcurrency, 5)');
      try {
        await expectAttackZero(a, on);
      } finally {
        free.push(on);
      }
    });
  }
});

// ---------------------------------------------------------------------------------------
// Second pass. A candidate that crashes or stalls the trusted side only loses its own
// verdicts (a 0), but the trusted side must still survive whatever the child sends and keep
// its deadlines: these expect a clean exit (exec status ok), not only a 0.
// ---------------------------------------------------------------------------------------
const expectZeroClean = (r: ScoreResult) => {
  expectZero(r);
  expect(r.harness.exec.status, `the trusted side did not exit cleanly: ${r.harness.exec.stderr.slice(-300)}`).toBe('ok');
};

// gVisor 20221219 (Debian 12) has no PR_SET_CHILD_SUBREAPER: there the trusted side finds what
// the candidate left running as every process of the sandbox's PID namespace but its own
// ancestors (trusted.py). The attacks that leave processes or threads behind, and a control.
const [gvisor] = installedRuntimes(['gvisor']);
describe.skipIf(!gvisor?.available)(`on gVisor, without a subreaper${gvisor?.available ? '' : ` (skipped: ${gvisor?.reason})`}`, () => {
  const GVISOR = { ...SANDBOX, runtime: 'gvisor' };
  for (const a of attacks.filter((x) => /daemon|thread|worker|fork|setsid|atexit/i.test(x.name))) {
    it(`${a.name}: scores 0`, async () => {
      const ms = a.testTimeoutMs ?? 700;
      let r = await scoreSolution(manager, GVISOR, a.task, a.src, { testTimeoutMs: ms });
      if (/timeout/i.test(r.harness.loadError ?? '')) r = await scoreSolution(manager, GVISOR, a.task, a.src, { testTimeoutMs: 4 * ms });
      expectZero(r);
    });
  }
  it('a correct program scores 1', async () => {
    const r = await scoreSolution(manager, GVISOR, pyHe, `${PROMPT}    return a + b\n`, { testTimeoutMs: 3000 });
    expect(r.status, r.harness.harnessError ?? '').toBe('scored');
    expect(r.runtime).toBe('gvisor');
    expect(r.components.passRate).toBe(1);
  });
});

describe('the trusted side survives what a candidate sends', () => {
  it("py io: a reply nested past the JSON decoder's recursion limit, at load", async () => {
    const src = py('_os.write(4, b"[" * 200000 + b"\\n")\ndef sort_list(xs):\n    return None\n');
    expectZeroClean(await scoreSolution(manager, SANDBOX, pyIo, src, { testTimeoutMs: 1500 }));
  });
  it("py humaneval: a reply nested past the JSON decoder's recursion limit, at load", async () => {
    const src = he('_os.write(4, b"[" * 200000 + b"\\n")\n');
    expectZeroClean(await scoreSolution(manager, SANDBOX, pyHe, src, { testTimeoutMs: 1500 }));
  });
  it('py io: a source with a NUL byte (ast.parse raises ValueError, not SyntaxError)', async () => {
    const r = await scoreSolution(manager, SANDBOX, pyIo, 'def sort_list(xs):\n    return None\n# \0\n', { testTimeoutMs: 1500 });
    expectZeroClean(r);
    expect(r.harness.style.syntaxOk).toBe(false);
  });
  it('py io: a source nested too deeply for the parser (MemoryError)', async () => {
    const r = await scoreSolution(manager, SANDBOX, pyIo, `def sort_list(xs):\n    return None\nx = ${'-'.repeat(100_000)}1\n`, { testTimeoutMs: 1500 });
    expectZeroClean(r);
    expect(r.harness.style.syntaxOk).toBe(false);
  });
  it('py io: a flood of short lines on a 1 MiB reply pipe does not hold the trusted side past its deadlines', async () => {
    const src = py(
      'import fcntl\ntry:\n    fcntl.fcntl(4, 1031, 1 << 20)  # F_SETPIPE_SZ\nexcept OSError:\n    pass\ndef sort_list(xs):\n    chunk = b"0\\n" * (1 << 19)\n    for _ in range(4):\n        _os.write(4, chunk)\n    return None\n',
    );
    expectZeroClean(await scoreSolution(manager, SANDBOX, pyIo, src, { testTimeoutMs: 700 }));
  });
});

describe('correct programs the first pass failed', () => {
  const expectFull = (r: ScoreResult) => {
    expect(r.status, r.harness.exec.stderr).toBe('scored');
    expect(r.components.passRate, explain(r)).toBe(1);
  };
  const sortBody = '  return [...xs].sort((a, b) => a - b);\n}\n';
  it('js esm: an ES module with a hashbang line', async () => {
    expectFull(await scoreSolution(manager, SANDBOX, jsIo, `#!/usr/bin/env node\nexport function sort_list(xs) {\n${sortBody}`, { testTimeoutMs: 3000 }));
  });
  it('js esm: an ES module declaring __filename from import.meta.url (no imports)', async () => {
    const src = `const __filename = new URL(import.meta.url).pathname;\nexport function sort_list(xs) {\n${sortBody}`;
    expectFull(await scoreSolution(manager, SANDBOX, jsIo, src, { testTimeoutMs: 3000 }));
  });
  it('js io: an integer input beyond 2^53 arrives as a Number, as JSON.parse gives it', async () => {
    // JSON.parse reads 12345678901234567890 as the Number 12345678901234567000; so does the task
    const task: HarnessTask = {
      language: 'javascript',
      entryPoint: 'inc',
      tests: { kind: 'io', cases: [{ input: [12345678901234567890], expected: 12345678901234567000 }] },
    };
    expectFull(await scoreSolution(manager, SANDBOX, task, 'function inc(x) {\n  return x + 1;\n}\n', { testTimeoutMs: 3000 }));
  });
  it("py humaneval: a completion raising its own ValueError subclass, caught by the check's except ValueError", async () => {
    const prompt = 'def safe_sqrt(x: float) -> float:\n    """The square root of x; raise ValueError for a negative x."""\n';
    const check =
      'def check(candidate):\n    assert candidate(4.0) == 2.0\n    try:\n        candidate(-1.0)\n    except ValueError:\n        pass\n    else:\n        assert False, "no ValueError"\n';
    const task: HarnessTask = { language: 'python', entryPoint: 'safe_sqrt', prompt, tests: { kind: 'humaneval', check } };
    const src = `${prompt}    if x < 0:\n        raise NegativeInputError(x)\n    return x ** 0.5\n\n\nclass NegativeInputError(ValueError):\n    pass\n`;
    expectFull(await scoreSolution(manager, SANDBOX, task, src, { testTimeoutMs: 3000 }));
  });
  it('py io: large return values (60k items over two tests) all reach the host', async () => {
    const big = Array.from({ length: 30_000 }, (_, i) => i);
    const task: HarnessTask = {
      language: 'python',
      entryPoint: 'rng',
      tests: {
        kind: 'io',
        cases: [
          { input: [30_000], expected: big },
          { input: [30_000], expected: big },
          { input: [3], expected: [0, 1, 2] },
        ],
      },
    };
    expectFull(await scoreSolution(manager, SANDBOX, task, 'def rng(n):\n    return list(range(n))\n', { testTimeoutMs: 3000 }));
  });
});

describe('second-pass forging attempts all score 0', () => {
  // The trusted side rebuilds an exception class it does not know as its nearest known base:
  // a StopIteration subclass must still not end check's all(map(candidate, ...)) early.
  it('py humaneval (map check): raises its own StopIteration subclass', async () => {
    const src = `${EVEN_PROMPT}    raise Stop()\n\n\nclass Stop(StopIteration):\n    pass\n`;
    expectZero(await scoreSolution(manager, SANDBOX, pyHeMap, src, { testTimeoutMs: 1500 }));
  });
  it('py humaneval: claims bases that resolve to SystemExit / KeyboardInterrupt / a non-class', async () => {
    const src = he(String.raw`
import json as _j
def add(a, b):
    # answer the call directly with a made-up exception description, then hang
    _os.write(4, (_j.dumps({"id": 2, "error": {"type": "Nope", "message": "", "bases": [["x"], "check", "KeyboardInterrupt", "SystemExit", "AssertionError"]}}) + "\n").encode())
    _time.sleep(5)
`);
    expectZero(await scoreSolution(manager, SANDBOX, pyHe, src, { testTimeoutMs: 1500 }));
  });
});
