# Crucible pytest runner, part 10: the run: the job, the state, the audit hook, pytest, the one signed report.
# The parts are one program, concatenated in name order (grade-repo-task.ts).


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
    cpu_seconds = job.get("cpu_seconds")
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
    # the run's CPU budget, enforced by the kernel (soft = hard: the code under test cannot
    # raise it): a test that spins is stopped at its budget however busy the host is
    if cpu_seconds:
        import resource

        resource.setrlimit(resource.RLIMIT_CPU, (int(cpu_seconds), int(cpu_seconds)))
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
