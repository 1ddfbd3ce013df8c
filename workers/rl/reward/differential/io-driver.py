# Reference io driver (differential test only; never part of the harness). Imports the
# solution as an ordinary module, calls the entry point once per input, and writes what came
# back, tagged by type, to a results file (so the candidate's own prints cannot interfere).
# Usage: python3 io-driver.py JOB.json RESULTS.json
import importlib.util
import json
import math
import sys
import traceback


def observe(v):
    # Typed like reference-compare.ts expects; bool before int because bool is an int.
    if v is None:
        return None
    if isinstance(v, bool):
        return {"t": "bool", "v": v}
    if isinstance(v, int):
        return {"t": "num", "v": v} if abs(v) <= 2**53 else {"t": "bigint", "v": str(v)}
    if isinstance(v, float):
        return {"t": "num", "v": v} if math.isfinite(v) else {"t": "nonfinite", "v": repr(v)}
    if isinstance(v, str):
        return {"t": "str", "v": v}
    if isinstance(v, (list, tuple)):
        return {"t": "list", "v": [observe(x) for x in v]}
    if isinstance(v, dict) and all(isinstance(k, str) for k in v):
        return {"t": "obj", "v": {k: observe(x) for k, x in v.items()}}
    return {"t": "other", "v": "%s %s" % (type(v).__name__, repr(v)[:200])}


def error_text(e):
    return "".join(traceback.format_exception_only(type(e), e)).strip()[-300:]


def main():
    job_path, results_path = sys.argv[1], sys.argv[2]
    with open(job_path) as f:
        job = json.load(f)

    def finish(record):
        with open(results_path, "w") as f:
            json.dump(record, f)

    try:
        spec = importlib.util.spec_from_file_location("solution", job["path"])
        module = importlib.util.module_from_spec(spec)
        sys.modules["solution"] = module
        spec.loader.exec_module(module)
        fn = getattr(module, job["entryPoint"], None)
        if not callable(fn):
            raise NameError("no function named %s" % job["entryPoint"])
    except BaseException as e:  # SystemExit too: a program that exits on import has no entry point
        finish({"loadError": error_text(e)})
        return
    results = []
    for args in job["inputs"]:
        try:
            results.append({"value": observe(fn(*args))})
        except BaseException as e:
            results.append({"error": error_text(e)})
    finish({"results": results})


main()
