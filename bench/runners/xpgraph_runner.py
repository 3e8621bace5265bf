"""Runner for the reference implementation (PyPI ``XpGraph``, imported as ``xpg``).

Executed by ``bench/peers.py`` inside ``bench/.venvs/xpgraph``, never in the project's
environment.  Usage: ``python xpgraph_runner.py JOB.json OUT.json`` (a whole job), or
``python xpgraph_runner.py --serve`` (request by request, ``serve.py``; see below).

Job: ``{"task": "enum" | "axp" | "path_to_zero", "files": [...], "modes": ["traverse",
"horn"], "timeout": CPU seconds per run}``.  Each file is loaded once with
``XpGraph.from_file`` (not timed); then only the peer's own call is timed, in-process:
``MarcoXpG(g, 0, horn).enum()`` for ``enum`` (its AXp extractor by graph traversal, the
``XpG.py`` default, or by its Horn encoding, the library default),
``MarcoXpG(g, 0, horn).find_axp()`` for ``axp``, or ``g.path_to_zero([True] * nv)`` for
``path_to_zero``.  Time is CPU time, measured as for xpg (``timing.cpu_time``); a first
call longer than ``timeout`` CPU seconds is stopped (SIGPROF) and reported as such.

Output: ``{"results": [{"file", "mode", "status": "ok"|"timeout"|"error", "seconds",
"axps": [[names]], "cxps": [[names]], "axp": [names], "reachable": bool, "error": str}]}``.

Serving (``bench/peers_compare.py`` takes turns with xpg on each graph this way):

* ``{"op": "load", "file": path}``: ``XpGraph.from_file`` (not timed);
* ``{"op": "first", "task", "mode", "timeout"}``: the first call, not a measurement, under
  the CPU-time limit: a result as above (``seconds`` is the first call's), and the loop
  length of later measurements (``timing.loops_for``);
* ``{"op": "measure", "task", "mode", "timeout"}``: one measurement, ``{"status",
  "seconds"}`` per call (``timing.measure``), under the same limit.
"""

import gc
import json
import signal
import sys
import time
import traceback

from serve import serve, take_stdout  # bench/runners/serve.py, beside this script
from timing import cpu_time, loops_for, measure  # bench/runners/timing.py, beside this script

CHANNEL = take_stdout() if sys.argv[1:] == ["--serve"] else None  # before the peer's import

from xpg import MarcoXpG, XpGraph  # type: ignore[attr-defined]  # noqa: E402  # the peer's xpg

STATE = {}


class RunTimeout(Exception):
    pass


def _alarm(signum, frame):
    raise RunTimeout()


def _names(g, sets):
    return [sorted(g.features[i] for i in s) for s in sets]


def _call(g, task, mode):
    if task == "enum":
        return lambda: MarcoXpG(g, 0, mode == "horn").enum()
    if task == "axp":
        return lambda: MarcoXpG(g, 0, mode == "horn").find_axp()
    return lambda: g.path_to_zero([True] * g.nv)


def run_one(g, task, mode, timeout, precise=True):
    """One measurement: a first call under a CPU-time limit, then (if it was quick and
    ``precise``) the precise loop of ``timing.cpu_time``."""
    call = _call(g, task, mode)
    signal.signal(signal.SIGPROF, _alarm)
    gc.disable()
    start = time.process_time()
    try:
        signal.setitimer(signal.ITIMER_PROF, timeout)
        try:
            out = call()
        finally:
            signal.setitimer(signal.ITIMER_PROF, 0)
    except RunTimeout:
        return {"status": "timeout", "seconds": time.process_time() - start}
    except Exception as err:  # the peer's assertions and bugs are reported, not fatal
        detail = traceback.format_exception_only(type(err), err)[-1].strip()
        return {"status": "error", "seconds": time.process_time() - start, "error": detail}
    finally:
        gc.enable()
    seconds = time.process_time() - start
    if precise and seconds < 0.2:
        seconds, out = cpu_time(call)
    res = {"status": "ok", "seconds": seconds}
    if task == "enum":
        res.update(axps=_names(g, out[0]), cxps=_names(g, out[1]))
    elif task == "axp":
        res["axp"] = sorted(g.features[i] for i in out)
    else:
        res["reachable"] = bool(out)
    return res


def main(job_path, out_path):
    with open(job_path, encoding="utf-8") as fh:
        job = json.load(fh)
    task = job.get("task", "enum")
    modes = job.get("modes", ["traverse"])
    timeout = float(job.get("timeout", 60.0))
    results = []
    for path in job["files"]:
        g = XpGraph.from_file(path)
        for mode in modes if task in ("enum", "axp") else ["traverse"]:
            res = run_one(g, task, mode, timeout)
            res.update(file=path, mode=mode)
            results.append(res)
    with open(out_path, "w", encoding="utf-8") as fh:
        json.dump({"results": results}, fh)


def load(req):
    STATE.clear()
    STATE["graph"] = XpGraph.from_file(req["file"])
    return {}


def first(req):
    res = run_one(STATE["graph"], req["task"], req["mode"], float(req["timeout"]), False)
    STATE[req["task"], req["mode"]] = loops_for(res["seconds"])
    return res


def measure_call(req):
    """One measurement under the CPU-time limit (a loop that overruns it is a timeout)."""
    task, mode, timeout = req["task"], req["mode"], float(req["timeout"])
    call, loops = _call(STATE["graph"], task, mode), STATE[task, mode]
    signal.signal(signal.SIGPROF, _alarm)
    signal.setitimer(signal.ITIMER_PROF, timeout * loops)
    try:
        return {"status": "ok", "seconds": measure(call, loops)}
    except RunTimeout:
        return {"status": "timeout", "seconds": timeout}
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)


if __name__ == "__main__":
    if sys.argv[1:] == ["--serve"]:
        serve({"load": load, "first": first, "measure": measure_call}, channel=CHANNEL)
    else:
        main(sys.argv[1], sys.argv[2])
