# Crucible pytest runner, part 03: pytest's failure rendering without frames.
# The parts are one program, concatenated in name order (grade-repo-task.ts).


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
