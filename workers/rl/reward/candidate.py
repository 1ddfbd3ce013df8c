# Crucible reward harness, CANDIDATE side (Python). Runs the untrusted program in this
# process and answers the trusted side's requests (fd 3 in, fd 4 out, one JSON line each).
# It holds nothing worth stealing: no marker, no expected values, no check code. Whatever
# the candidate does to this process can change only the values it reports, which is no
# more than returning them.
import base64, itertools, json, math, os, sys, traceback, types

MAX_ITEMS = 100_000  # a returned generator is drained up to this many items

src_path = sys.argv[1]
req = os.fdopen(3, "rb")
resp = os.fdopen(4, "wb")


def send(rec):
    # the candidate's prints first: the trusted side SIGKILLs this process when done
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            pass
    resp.write((json.dumps(rec) + "\n").encode())
    resp.flush()


def to_wire(v, depth=0):
    # isinstance, not exact types: a namedtuple is a tuple and an IntEnum an int, as one
    # program would compare them. Builtin methods read the data, so overridden dunders
    # on a subclass cannot change what is sent (only plain data leaves this process).
    if depth > 100:
        raise TypeError("value nested too deeply")
    if v is None:
        return ["n"]
    if isinstance(v, bool):
        return ["b", bool(v)]
    if isinstance(v, int):
        return ["i", int.__repr__(v)]
    if isinstance(v, float):
        f = float.__float__(v)
        return ["f", f if math.isfinite(f) else repr(f)]
    if isinstance(v, str):
        return ["s", str.__str__(v)]
    if isinstance(v, bytes):
        return ["y", base64.b64encode(bytes(v)).decode()]
    if isinstance(v, tuple):
        return ["t", [to_wire(x, depth + 1) for x in tuple.__iter__(v)]]
    if isinstance(v, list):
        return ["l", [to_wire(x, depth + 1) for x in list.__iter__(v)]]
    if isinstance(v, frozenset):
        return ["F", [to_wire(x, depth + 1) for x in frozenset.__iter__(v)]]
    if isinstance(v, set):
        return ["S", [to_wire(x, depth + 1) for x in set.__iter__(v)]]
    if isinstance(v, dict):
        return ["d", [[to_wire(k, depth + 1), to_wire(x, depth + 1)] for k, x in dict.items(v)]]
    if isinstance(v, types.GeneratorType):
        return ["G", [to_wire(x, depth + 1) for x in itertools.islice(v, MAX_ITEMS)]]
    cls = type(v)
    if getattr(module, cls.__name__, None) is cls and hasattr(v, "__dict__"):
        # an instance of a class the program defines (e.g. the prompt's dataclass): its fields,
        # rebuilt on the other side with that side's own class of the same name
        return ["o", cls.__name__, [[k, to_wire(x, depth + 1)] for k, x in dict.items(vars(v))]]
    raise TypeError("returned a %s, not a plain value" % cls.__name__)


def from_wire(w):
    tag, v = w[0], (w[1] if len(w) > 1 else None)
    if tag == "n":
        return None
    if tag == "b":
        return bool(v)
    if tag == "i":
        return int(v)
    if tag == "f":
        return float(v)
    if tag == "s":
        return v
    if tag == "y":
        return base64.b64decode(v)
    if tag in ("l", "t", "S", "F"):
        return {"l": list, "t": tuple, "S": set, "F": frozenset}[tag](from_wire(x) for x in v)
    if tag == "d":
        return {from_wire(k): from_wire(x) for k, x in v}
    if tag == "G":
        return iter([from_wire(x) for x in v])
    if tag == "o":
        cls = getattr(module, v, None)
        obj = object.__new__(cls)
        obj.__dict__.update({k: from_wire(x) for k, x in w[2]})
        return obj
    raise ValueError("unknown value tag %r" % tag)


def describe(e):
    # bases: the trusted side rebuilds a class it does not know as its nearest known base
    return {"type": type(e).__name__, "message": str(e)[:400] if not isinstance(e, SystemExit) else repr(e.code),
            "bases": [c.__name__ for c in type(e).__mro__[1:]][:32],
            "trace": "".join(traceback.format_exception_only(type(e), e)).strip()[-500:]}


# Not "__main__": as in OpenAI human-eval's exec of the program, and as an import would,
# an `if __name__ == "__main__":` block does not run (it would wait on stdin).
module = types.ModuleType("solution")
module.__file__ = "solution.py"
module.__builtins__ = __builtins__
sys.modules["solution"] = module
sys.argv = ["solution.py"]

for line in req:
    try:
        msg = json.loads(line)
    except ValueError:
        continue
    rid = msg.get("id")
    if msg.get("op") == "load":
        try:
            with open(src_path) as f:
                source = f.read()
            exec(compile(source, "solution.py", "exec"), module.__dict__)
            names = [k for k, v in list(module.__dict__.items()) if callable(v) and not k.startswith("__")]
            send({"id": rid, "ok": True, "callables": names})
        except BaseException as e:
            send({"id": rid, "load_error": describe(e)})
        continue
    if msg.get("op") == "call":
        try:
            args = [from_wire(a) for a in msg["args"]]
            kwargs = {k: from_wire(v) for k, v in msg["kwargs"]}
            fn = module.__dict__[msg["fn"]]
            value = fn(*args, **kwargs)
        except BaseException as e:
            send({"id": rid, "error": describe(e)})
            continue
        try:
            rec = {"id": rid, "value": to_wire(value)}
        except BaseException as e:
            rec = {"id": rid, "value": ["u", str(e)]}
        try:
            rec["after"] = [to_wire(a) if isinstance(a, (list, dict, set)) else ["n"] for a in args]
        except BaseException:
            pass
        send(rec)
