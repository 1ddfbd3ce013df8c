# Crucible pytest runner, part 09: the task's files from the runner's copy (layer 1), compared values checked (layer 2).
# The parts are one program, concatenated in name order (grade-repo-task.ts).


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

    import linecache

    out = {}
    for path, b64 in sources.items():
        source = base64.b64decode(b64)
        # tracebacks and inspect show a test's own lines from linecache (real tests assert on
        # them: boltons' tbutils tests); an entry without an mtime is never re-read from disk,
        # where only the placeholder lies. In memory, like the loaded test modules themselves
        # (docs/agents.md, residual risk).
        text = source.decode("utf-8", "replace")
        linecache.cache[path] = (len(text), None, text.splitlines(True), path)
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
    lines is one the patch added (or, for a call, where the calling line is not). What the
    agent wrote, and code compiled at run time, is not."""
    cache = {}

    def trusted(code, line=None):
        # with `line` (a frame's current line): whether that line is the repository's, so a
        # call the library always made stays its own even in a function the patch changed
        name = code.co_filename
        if name in pinned or name in unchanged:
            return True
        added = changed_lines.get(name)
        if added is None:
            return False
        if line is not None:
            return line not in added
        known = cache.get(code)
        if known is None:
            lines = [ln for _s, _e, ln in code.co_lines() if ln is not None]
            lo, hi = min(lines + [code.co_firstlineno]), max(lines + [code.co_firstlineno])
            known = cache[code] = not any(lo <= ln <= hi for ln in added)
        return known

    return trusted


def _value_check(trusted):
    """`@crucible_value`: returns its argument; first, when a compared value (or one inside a
    builtin container) equals what nothing honest equals — fresh probes: an instance of a class
    made here, a random string, a random number — or is a known wildcard (an approx of
    unbounded tolerance), reports it through the audit hook, which holds the grade for review.
    Who wrote the `__eq__` does not matter: the repository's own `Version("1.0") == "1.0"`, or
    an `__eq__` the agent's fix rewrote, equal no probe; `unittest.mock.ANY` equals all."""
    audit = sys.audit
    plain = frozenset((int, float, complex, bool, str, bytes, type(None), bytearray))
    containers = frozenset((list, tuple, dict, set, frozenset))
    isfinite = __import__("math").isfinite
    token = os.urandom(8).hex()

    def probes():
        return (type("CrucibleProbe" + token, (), {})(), "crucible-probe-" + token, int(token, 16) + 0.5)

    def wildcard(v):
        for p in probes():
            try:
                if (v == p) is True or (v != p) is False or (p == v) is True:
                    return "%s equals a value made to equal nothing (%r)" % (type.__getattribute__(type(v), "__qualname__"), type(p).__name__)
            except Exception:
                pass
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
            why = wildcard(v)
            if why is None and type.__getattribute__(t, "__module__") == "_pytest.python_api":
                tol = [getattr(v, k, None) for k in ("abs", "rel")]
                if any(type(x) is float and not isfinite(x) for x in tol):
                    why = "an approx with unbounded tolerance"
            if why is not None:
                audit("crucible.suspect", "a compared value is a wildcard: %s" % why)
                break
        return value

    return check
