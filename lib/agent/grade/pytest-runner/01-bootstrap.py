"""Crucible's pytest runner for grading repository tasks (lib/agent/grade).

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
