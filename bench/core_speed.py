"""Speed of the core (issue 2): linear reachability, full enumeration, one AXp, vs the reference.

Usage: ``python -m bench.core_speed [--quick] [--timeout S] [--ours-only] [--shell-only]
[--no-shell] [--repeat N] [--out DIR]``.

1. **Reachability is linear.**  The parity ladder (:func:`xpg.testing.ladder`) has 2n
   nodes and 2^n root-to-terminal paths.  xpg's ``path_to_zero`` with every feature free
   for n = 20, 40, 80, 1,000 (and more), against the reference's ``path_to_zero``, a
   breadth-first search without a visited set, which doubles with every feature.
2. **Full enumeration** of every AXp and CXp on the six reference graphs of
   ``../shared/xpg-examples`` and on random trees and reduced OBDDs of 100 to 10,000 nodes
   over 10 to 200 features, by xpg and by the reference (its best of two AXp modes), with
   identical explanation sets required.  A reference run stopped by the per-run timeout
   gives a lower bound on the ratio.
3. **One AXp on a reduced OBDD of about 1,000 nodes over 200 features** (dd, random DNF):
   xpg's ``find_axp`` on a fresh explanation graph (adjacency lists included) against the
   reference's ``find_axp``.

4. **Whole command from the shell** (issue 13): ``xpg enum FILE.xpg`` against the
   reference's command line ``XpG.py -a FILE.xpg`` (both enumerate every AXp and CXp), on
   the six example graphs and on three larger ones (the parity ladder with 22 features, a
   reduced OBDD of about 1,000 nodes over 50 features, a random tree of about 10,000
   nodes), written as ``.xpg`` files.  Wall clock of each process (interpreter start-up,
   imports, reading, enumeration, printing), best of ``--repeat`` (5) runs interleaved
   ours/reference per graph; both run with bytecode caching on, as an installed package
   does (``PYTHONDONTWRITEBYTECODE`` is dropped, and one untimed run warms the caches).  The
   explanation sets are compared from untimed runs (``xpg enum --json`` and ``XpG.py -a
   -v``); ``read_s`` is xpg's in-process reading of the file (``read_xpg``, best of 3) and
   ``enum_s`` its enumeration as the command reports it, so the rest of ``ours_s`` is
   start-up.  A start-up table times the floors: ``python -c pass``, ``import numpy`` and
   ``import xpg`` in each environment.  Geometric-mean ratios are printed per group.
5. **The cost of a timeout**: 19,683 AXps enumerated with and without ``timeout`` (xpg
   alone; the ``ref_s`` column holds the time without a timeout).

Sections 1-3 time both sides in-process the same way (:func:`bench.runners.timing.cpu_time`:
CPU time, best of 3 loops), without interpreter start-up or file loading.  ``--shell-only``
runs section 4 alone, ``--no-shell`` skips it.  Writes ``core_speed.csv`` and
``core_speed.md`` (``--out``, default ``bench/results``).

References
----------
Huang, Izza, Ignatiev, Marques-Silva. On Efficiently Explaining Graph-Based Classifiers.
KR 2021, Alg. 1 (pathToZero), Algs. 2-4; reference implementation PyPI XpGraph 0.0.1.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import re
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from bench.data import REPO_ROOT
from bench.peers import PEERS, VENVS_DIR, ensure_venv, is_ready, run_runner
from bench.peers_compare import as_sets
from bench.randgen import random_tree
from bench.runners.timing import cpu_time
from bench.tables import RESULTS_DIR, csv_text, out_dir, write_outputs
from xpg.core.features import Feature
from xpg.core.graph import DecisionGraph
from xpg.core.xpgraph import ExplanationGraph
from xpg.explain.axp_cxp import find_axp
from xpg.explain.marco import enumerate_explanations
from xpg.explain.reach import path_to_zero
from xpg.io import read_xpg, write_xpg
from xpg.models.obdd import from_bdd
from xpg.testing import dnf_obdd, ladder, random_reduced_obdd

EXAMPLES = REPO_ROOT.parent / "shared" / "xpg-examples"
COLUMNS = [
    "section",
    "graph",
    "nodes",
    "edges",
    "features",
    "n_axps",
    "n_cxps",
    "ours_s",
    "ref_s",
    "ref_status",
    "ratio",
    "identical",
    "ref_modes",
]


def best_time(fn: Callable[[], Any], repeat: int = 3) -> tuple[float, Any]:
    """CPU time per call of ``fn()`` and its result, as the reference's runner measures it."""
    return cpu_time(fn, repeat=repeat)


def instance_of(dg: DecisionGraph, seed: int) -> list[int]:
    rng = random.Random(seed)
    return [rng.randrange(2) for _ in dg.features]


def reference(task: str, files: Sequence[Path], timeout: float, modes: Sequence[str]) -> Any:
    """``{file: {mode: result}}`` from the reference runner."""
    job = {
        "task": task,
        "files": [str(f) for f in files],
        "modes": list(modes),
        "timeout": timeout,
    }
    budget = len(files) * len(modes) * (3 * timeout + 5) + 60
    out: dict[str, dict[str, Any]] = {}
    for res in run_runner(PEERS["xpgraph"], job, timeout=budget)["results"]:
        out.setdefault(res["file"], {})[res["mode"]] = res
    return out


def _modes(results: dict[str, Any]) -> str:
    """Each reference mode's time or status, e.g. ``traverse 0.35 s, horn 0.011 s``."""
    return ", ".join(
        f"{m} {r['seconds']:.4g} s" if r["status"] == "ok" else f"{m} {r['status']}"
        for m, r in results.items()
    )


def _ref_summary(results: dict[str, Any]) -> tuple[float, str, list[Any]]:
    """Best time over the reference's modes, its status, and the OK results."""
    ok = [r for r in results.values() if r["status"] == "ok"]
    if ok:
        return min(r["seconds"] for r in ok), "ok", ok
    statuses = {r["status"] for r in results.values()}
    status = "timeout" if statuses == {"timeout"} else "error"
    return min(r["seconds"] for r in results.values()), status, []


def ladder_section(
    sizes: Sequence[int], ref_sizes: Sequence[int], timeout: float, tmp: Path, ref: bool
) -> list[dict[str, Any]]:
    rows, gave_up = [], False
    for n in sizes:
        dg = ladder(n)
        x = [0] * n
        xg = ExplanationGraph.from_decision_graph(dg, x)
        every = list(range(n))

        def fresh(xg: ExplanationGraph = xg, every: list[int] = every) -> bool:
            xg._adjacency = None  # time the adjacency lists too
            return path_to_zero(xg, every)

        seconds, reachable = best_time(fresh, 5)
        row = {
            "section": "ladder path_to_zero",
            "graph": f"ladder n={n}",
            "nodes": xg.n_nodes,
            "edges": len(xg.edge_src),
            "features": n,
            "ours_s": round(seconds, 7),
            "ref_s": "",
            "ref_status": "not run",
            "ratio": "",
            "identical": "",
        }
        if ref and n in ref_sizes and gave_up:
            row["ref_status"] = "skipped (timed out on a smaller ladder)"
        elif ref and n in ref_sizes:
            path = tmp / f"ladder_{n}.xpg"
            write_xpg(xg, path)
            res = reference("path_to_zero", [path], timeout, ["traverse"])[str(path)]["traverse"]
            row["ref_status"] = res["status"]
            row["ref_s"] = round(res["seconds"], 6)
            row["ratio"] = round(res["seconds"] / seconds, 1)
            if res["status"] == "ok":
                row["identical"] = res["reachable"] == reachable
            gave_up = res["status"] != "ok"
        rows.append(row)
        print(f"ladder n={n}: {seconds * 1e6:.0f} us, reference {row['ref_s']}", file=sys.stderr)
    return rows


def enumeration_section(
    graphs: list[tuple[str, Path]], timeout: float, ref: bool
) -> list[dict[str, Any]]:
    refs = reference("enum", [p for _, p in graphs], timeout, ["traverse", "horn"]) if ref else {}
    rows = []
    for name, path in graphs:
        xg = read_xpg(path)
        xg.adjacency()
        seconds, result = best_time(partial(enumerate_explanations, xg))
        row: dict[str, Any] = {
            "section": "full enumeration",
            "graph": name,
            "nodes": xg.n_nodes,
            "edges": len(xg.edge_src),
            "features": len(xg.tested_vars()),
            "n_axps": len(result.axps),
            "n_cxps": len(result.cxps),
            "ours_s": round(seconds, 7),
            "ref_s": "",
            "ref_status": "not run",
            "ratio": "",
            "identical": "",
        }
        if ref:
            ref_s, status, ok = _ref_summary(refs[str(path)])
            row.update(ref_s=round(ref_s, 6), ref_status=status, ratio=round(ref_s / seconds, 1))
            row["ref_modes"] = _modes(refs[str(path)])
            if ok:
                row["identical"] = all(
                    as_sets(r["axps"]) == as_sets(result.axps)
                    and as_sets(r["cxps"]) == as_sets(result.cxps)
                    for r in ok
                )
        rows.append(row)
        print(
            f"{name}: {seconds * 1e3:.2f} ms, reference {row['ref_status']} "
            f"{row['ref_s']} s, ratio {row['ratio']}",
            file=sys.stderr,
        )
    return rows


def axp_section(seeds: Sequence[int], timeout: float, tmp: Path, ref: bool) -> list[dict[str, Any]]:
    rows, files = [], []
    for seed in seeds:
        dg = random_reduced_obdd(200, 1000, seed=seed)
        xg = ExplanationGraph.from_decision_graph(dg, instance_of(dg, seed))
        path = tmp / f"obdd1000_{seed}.xpg"
        write_xpg(xg, path)
        files.append((seed, path, xg))
    refs = reference("axp", [p for _, p, _ in files], timeout, ["traverse", "horn"]) if ref else {}
    for seed, path, _ in files:
        xg = read_xpg(path)  # the file's variable order, which the reference deletes in

        def fresh(xg: ExplanationGraph = xg) -> tuple[str, ...]:
            xg._adjacency = None
            return find_axp(xg)

        seconds, axp = best_time(fresh, 5)
        row: dict[str, Any] = {
            "section": "one AXp, reduced OBDD",
            "graph": f"dnf obdd seed={seed}",
            "nodes": xg.n_nodes,
            "edges": len(xg.edge_src),
            "features": 200,
            "n_axps": 1,
            "n_cxps": "",
            "ours_s": round(seconds, 7),
            "ref_s": "",
            "ref_status": "not run",
            "ratio": "",
            "identical": "",
        }
        if ref:
            ref_s, status, ok = _ref_summary(refs[str(path)])
            row.update(ref_s=round(ref_s, 6), ref_status=status, ratio=round(ref_s / seconds, 1))
            row["ref_modes"] = _modes(refs[str(path)])
            if ok:
                row["identical"] = all(sorted(r["axp"]) == sorted(axp) for r in ok)
        rows.append(row)
        print(
            f"AXp on {xg.n_nodes}-node OBDD: {seconds * 1e3:.2f} ms, reference "
            f"{row['ref_status']} {row['ref_s']} s",
            file=sys.stderr,
        )
    return rows


def or_of_ands(terms: int, width: int) -> ExplanationGraph:
    """``OR`` of ``terms`` disjoint ``AND``s of ``width`` booleans, every feature 0: the AXps
    pick one feature per term (``width ** terms``: 19,683 for 9 terms of 3), the CXps are the
    terms; one SAT call per AXp."""
    names = [f"t{i}v{j}" for i in range(terms) for j in range(width)]
    bdd, u = dnf_obdd([[(f"t{i}v{j}", True) for j in range(width)] for i in range(terms)], names)
    dg = from_bdd(u, [Feature.boolean(n) for n in names])
    return ExplanationGraph.from_decision_graph(dg, [0] * len(names))


def timeout_section(repeat: int = 5) -> list[dict[str, Any]]:
    """5. The cost of ``timeout``: one enumeration of 19,683 AXps and 9 CXps with and
    without a (never reached) timeout, best of ``repeat`` interleaved runs (wall clock)."""
    xg = or_of_ands(9, 3)
    xg.adjacency()
    best = {None: math.inf, 3600.0: math.inf}
    results = {}
    for _ in range(repeat):
        for budget in best:
            start = time.perf_counter()
            results[budget] = enumerate_explanations(xg, timeout=budget)
            best[budget] = min(best[budget], time.perf_counter() - start)
    plain, timed = results[None], results[3600.0]
    cost = best[3600.0] / best[None] - 1
    print(f"timeout cost: {best[None]:.3f} s without, {best[3600.0]:.3f} s with", file=sys.stderr)
    return [
        {
            "section": "timeout cost",
            "graph": "or of 9 ands of 3",
            "nodes": xg.n_nodes,
            "edges": len(xg.edge_src),
            "features": 27,
            "n_axps": len(plain.axps),
            "n_cxps": len(plain.cxps),
            "ours_s": round(best[3600.0], 5),
            "ref_s": round(best[None], 5),
            "ref_status": "ok",
            "ratio": round(best[3600.0] / best[None], 3),
            "identical": (plain.axps, plain.cxps) == (timed.axps, timed.cxps),
            "ref_modes": f"with a timeout: {cost:+.1%} (ref_s: the same without a timeout)",
        }
    ]


def random_graphs(quick: bool, tmp: Path) -> list[tuple[str, Path]]:
    """Example graphs and random trees / reduced OBDDs, written as ``.xpg`` files."""
    graphs = [(p.stem, p) for p in sorted(EXAMPLES.glob("*/*.xpg"))]
    sizes = [(100, 10), (1000, 50)] if quick else [(100, 10), (1000, 50), (3000, 100), (10000, 200)]
    seeds = range(1) if quick else range(3)
    for n, f in sizes:
        for seed in seeds:
            for kind, dg in (
                ("tree", random_tree(n, f, seed=seed, relevant=5)),
                ("obdd", random_reduced_obdd(f, n, seed=seed)),
            ):
                xg = ExplanationGraph.from_decision_graph(dg, instance_of(dg, seed))
                name = f"{kind} n={len(dg)} f={f} seed={seed}"
                path = tmp / f"{kind}_{n}_{f}_{seed}.xpg"
                write_xpg(xg, path)
                graphs.append((name, path))
    return graphs


# -- section 4: whole commands from the shell -------------------------------------------------
SHELL_COLUMNS = [
    "group",
    "graph",
    "nodes",
    "edges",
    "n_axps",
    "n_cxps",
    "ours_s",
    "ref_s",
    "ref_status",
    "ratio",
    "installed_s",
    "installed_ratio",
    "read_s",
    "enum_s",
    "identical",
]


def larger_graphs(tmp: Path) -> list[tuple[str, Path]]:
    """The three larger graphs of issue 13, written as ``.xpg`` files."""
    ladder_dg = ladder(22)
    obdd = random_reduced_obdd(50, 1000, seed=0)
    tree = random_tree(10_000, 200, seed=0, relevant=5)
    out = []
    for name, dg, x in (
        ("ladder n=22", ladder_dg, [0] * 22),
        ("obdd n=1000 f=50", obdd, instance_of(obdd, 0)),
        ("tree n=10000 f=200", tree, instance_of(tree, 0)),
    ):
        path = tmp / (name.split()[0] + ".xpg")
        write_xpg(ExplanationGraph.from_decision_graph(dg, x), path)
        out.append((name, path))
    return out


def _our_env() -> dict[str, str]:
    """This checkout's ``xpg``, with bytecode caching as in an installed package."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(REPO_ROOT)
    return env


def _ref_env() -> dict[str, str]:
    return {
        k: v
        for k, v in os.environ.items()
        if k not in ("PYTHONPATH", "PYTHONHOME", "PYTHONDONTWRITEBYTECODE")
    }


def our_command(*args: str) -> list[str]:
    """The ``xpg`` console script beside this interpreter (``python -m xpg`` without one)."""
    script = Path(sys.executable).parent / "xpg"
    return [str(script), *args] if script.exists() else [sys.executable, "-m", "xpg", *args]


#: this checkout installed as users install it (:func:`install_xpg`)
INSTALLED_VENV = VENVS_DIR / "xpg-installed"


def install_xpg(tmp: Path) -> Path:
    """This checkout installed from a wheel, as ``pip install xpg-toolkit`` installs it, in a
    virtual environment of its own (``bench/.venvs/xpg-installed``) whose dependencies are this
    environment's packages (one path in a ``.pth`` file); returns its ``xpg`` script.

    The checkout's own environment holds an editable install, whose import hook costs every
    command about 8 ms; the reference is a regular install, and so is this one."""
    wheels = tmp / "wheel"

    def run(*cmd: str | Path) -> str:
        proc = subprocess.run(
            [str(c) for c in cmd], capture_output=True, text=True, check=False, env=_ref_env()
        )
        if proc.returncode:
            raise RuntimeError(f"{' '.join(map(str, cmd))} failed: {proc.stderr.strip()[-500:]}")
        return proc.stdout

    run(sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
        "-w", wheels, REPO_ROOT)  # fmt: skip
    run(sys.executable, "-m", "venv", "--clear", "--without-pip", INSTALLED_VENV)
    python = INSTALLED_VENV / "bin" / "python"
    run(sys.executable, "-m", "pip", "--python", python, "install", "-q", "--no-deps",
        "--no-index", *sorted(wheels.glob("*.whl")))  # fmt: skip
    site = run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])").strip()
    Path(site, "_xpg_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return INSTALLED_VENV / "bin" / "xpg"


def ref_command(*args: str) -> list[str]:
    """The reference's ``XpG.py`` script in its environment."""
    python = PEERS["xpgraph"].python
    return [str(python), str(python.parent / "XpG.py"), *args]


def wall(cmd: Sequence[str], env: dict[str, str], cwd: Path, timeout: float) -> float | None:
    """Wall-clock seconds of one process, output discarded (None: killed at ``timeout``).

    The process is waited for by a blocking ``wait()``, a timer thread killing it at the
    timeout: ``wait(timeout=...)`` polls with growing sleeps (0.5 ms doubling to 50 ms), which
    rounds every time up to the next poll (31.5, 63.5, 113.5, 163.5 ms, ...).
    """
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=subprocess.DEVNULL)
    killer = threading.Timer(timeout, proc.kill)
    killer.start()
    try:
        status = proc.wait()
    finally:
        killer.cancel()
    seconds = time.perf_counter() - start
    if status < 0 and seconds >= timeout:  # killed by the timer
        return None
    if status:
        raise subprocess.CalledProcessError(status, cmd)
    return seconds


def reference_features(path: Path) -> list[str]:
    """The reference's feature list of a ``.xpg`` file: VarDef names in order of appearance."""
    lines = path.read_text(encoding="utf-8").splitlines()
    names: list[str] = []
    start = next(i for i, line in enumerate(lines) if line.startswith("VarDef:"))
    for line in lines[start + 1 :]:
        parts = line.split()
        if parts and not line.startswith("#"):
            name = " ".join(parts[1:])
            if name not in names:
                names.append(name)
    return names


def reference_sets(path: Path, timeout: float) -> tuple[Any, Any] | None:
    """Every AXp and CXp printed by ``XpG.py -a -v`` (feature names), None if it fails."""
    try:
        proc = subprocess.run(
            ref_command("-a", "-v", str(path)),
            env=_ref_env(),
            cwd=path.parent,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=True,
        )
    except (subprocess.TimeoutExpired, subprocess.CalledProcessError):
        return None
    names = reference_features(path)
    found: dict[str, list[list[str]]] = {"AXp": [], "CXp": []}
    for m in re.finditer(r"^(AXp|CXp): \[([0-9, ]*)\]", proc.stdout, re.M):
        found[m.group(1)].append([names[int(i)] for i in m.group(2).split(",") if i.strip()])
    return as_sets(found["AXp"]), as_sets(found["CXp"])


def our_run(path: Path) -> dict[str, Any]:
    """``xpg enum --json``: the explanation sets and the enumeration time it reports."""
    proc = subprocess.run(
        our_command("enum", "--json", str(path)),
        env=_our_env(),
        cwd=path.parent,
        capture_output=True,
        text=True,
        check=True,
    )
    doc = json.loads(proc.stdout)
    return {"axps": as_sets(doc["axps"]), "cxps": as_sets(doc["cxps"]), "seconds": doc["seconds"]}


def geometric_mean(values: Sequence[float]) -> float:
    """The geometric mean of positive numbers.

    >>> round(geometric_mean([2.0, 8.0]), 6)
    4.0
    """
    return math.exp(sum(math.log(v) for v in values) / len(values))


def startup_rows(tmp: Path, repeat: int) -> list[dict[str, Any]]:
    """Floors of a command: the interpreter, ``import numpy``, ``import xpg`` on each side."""
    ref_python = str(PEERS["xpgraph"].python)
    pairs = [
        ("python -c pass", [sys.executable, "-c", "pass"], [ref_python, "-c", "pass"]),
        (
            "import numpy",
            [sys.executable, "-c", "import numpy"],
            [ref_python, "-c", "import numpy"],
        ),
        ("import xpg", [sys.executable, "-c", "import xpg"], [ref_python, "-c", "import xpg"]),
    ]
    best: dict[tuple[str, str], float] = {}
    for _ in range(repeat):
        for name, ours, theirs in pairs:
            for side, cmd, env in (("ours", ours, _our_env()), ("ref", theirs, _ref_env())):
                t = wall(cmd, env, tmp, 60.0)
                if t is not None:
                    best[name, side] = min(best.get((name, side), math.inf), t)
    return [
        {
            "group": "start-up",
            "graph": name,
            "ours_s": round(best[name, "ours"], 4),
            "ref_s": round(best[name, "ref"], 4),
            "ref_status": "ok",
            "ratio": round(best[name, "ref"] / best[name, "ours"], 2),
        }
        for name, _, _ in pairs
    ]


def shell_section(
    groups: dict[str, list[tuple[str, Path]]], repeat: int, timeout: float, tmp: Path
) -> list[dict[str, Any]]:
    """Section 4: each whole command, best of ``repeat`` interleaved runs."""
    graphs = [(group, name, path) for group, items in groups.items() for name, path in items]
    installed = str(install_xpg(tmp))
    for _, _, path in graphs[:1]:  # write the bytecode caches once, untimed
        subprocess.run(our_command("enum", str(path)), env=_our_env(), stdout=subprocess.DEVNULL)
        subprocess.run([installed, "enum", str(path)], env=_ref_env(), stdout=subprocess.DEVNULL)
    ours_best = {path: math.inf for _, _, path in graphs}
    installed_best = {path: math.inf for _, _, path in graphs}
    ref_best: dict[Path, float | None] = {path: math.inf for _, _, path in graphs}
    for _ in range(repeat):
        for _, _, path in graphs:
            t = wall(our_command("enum", str(path)), _our_env(), path.parent, timeout)
            ours_best[path] = min(ours_best[path], math.inf if t is None else t)
            t = wall([installed, "enum", str(path)], _ref_env(), path.parent, timeout)
            installed_best[path] = min(installed_best[path], math.inf if t is None else t)
            previous = ref_best[path]
            if previous is not None:  # a reference run killed at the timeout is not retried
                t = wall(ref_command("-a", str(path)), _ref_env(), path.parent, timeout)
                ref_best[path] = None if t is None else min(previous, t)
    rows = []
    for group, name, path in graphs:
        xg = read_xpg(path)
        read_s, _ = best_time(partial(read_xpg, path))
        ours = our_run(path)
        theirs = reference_sets(path, timeout)
        ref_s = ref_best[path]
        row: dict[str, Any] = {
            "group": group,
            "graph": name,
            "nodes": xg.n_nodes,
            "edges": len(xg.edge_src),
            "n_axps": len(ours["axps"]),
            "n_cxps": len(ours["cxps"]),
            "ours_s": round(ours_best[path], 4),
            "ref_s": "" if ref_s is None else round(ref_s, 4),
            "ref_status": "timeout" if ref_s is None else "ok",
            "ratio": "" if ref_s is None else round(ref_s / ours_best[path], 2),
            "installed_s": round(installed_best[path], 4),
            "installed_ratio": "" if ref_s is None else round(ref_s / installed_best[path], 2),
            "read_s": round(read_s, 4),
            "enum_s": round(ours["seconds"], 4),
            "identical": "" if theirs is None else theirs == (ours["axps"], ours["cxps"]),
        }
        rows.append(row)
        print(
            f"shell {name}: xpg {row['ours_s']} s (installed {row['installed_s']} s; read "
            f"{row['read_s']}, enum {row['enum_s']}), reference "
            f"{row['ref_s'] or row['ref_status']} s, ratio {row['ratio']}, same {row['identical']}",
            file=sys.stderr,
        )
    return rows


def shell_markdown(rows: Sequence[dict[str, Any]], repeat: int) -> str:
    """The whole-command tables, with the geometric-mean ratio of each group."""
    lines = [
        "### Whole command from the shell: `xpg enum FILE.xpg` against `XpG.py -a FILE.xpg`",
        "",
        f"Wall clock per process, best of {repeat} interleaved runs. xpg runs twice: from this "
        "checkout's editable install (`pip install -e .`, whose import hook costs every command "
        "about 8 ms) and installed from a wheel as users install it, like the reference; read "
        "and enum are xpg's in-process reading and enumeration (the rest is interpreter "
        "start-up, imports and printing).",
        "",
        "| group | graph | nodes | edges | AXps | CXps | xpg editable (s) | xpg installed (s) | "
        "reference (s) | ratio editable | ratio installed | xpg read (s) | xpg enum (s) | same |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        if r["group"] == "start-up":
            continue
        ref = r["ref_s"] if r["ref_status"] == "ok" else r["ref_status"]
        lines.append(
            f"| {r['group']} | {r['graph']} | {r['nodes']} | {r['edges']} | {r['n_axps']} | "
            f"{r['n_cxps']} | {r['ours_s']} | {r['installed_s']} | {ref} | {r['ratio']} | "
            f"{r['installed_ratio']} | {r['read_s']} | {r['enum_s']} | {r['identical']} |"
        )
    lines.append("")
    for group in dict.fromkeys(r["group"] for r in rows if r["group"] != "start-up"):
        for key, how in (("ratio", "editable"), ("installed_ratio", "installed")):
            ratios = [r[key] for r in rows if r["group"] == group and r[key] != ""]
            if ratios:
                lines.append(
                    f"Geometric-mean speed-up, {group}, {how}: {geometric_mean(ratios):.2f}x "
                    f"over {len(ratios)} graphs."
                )
    start = [r for r in rows if r["group"] == "start-up"]
    if start:
        lines += ["", "| start-up floor | xpg env (s) | reference env (s) |", "|---|---|---|"]
        lines += [f"| {r['graph']} | {r['ours_s']} | {r['ref_s']} |" for r in start]
    return "\n".join(lines) + "\n"


def markdown(rows: Sequence[dict[str, Any]]) -> str:
    lines = ["### Core speed (issue 2) against the reference implementation (PyPI XpGraph)", ""]
    for section in dict.fromkeys(r["section"] for r in rows):
        part = [r for r in rows if r["section"] == section]
        lines += [
            f"#### {section}",
            "",
            "| graph | nodes | edges | AXps | CXps | xpg (ms) | reference (s) | ratio | same "
            "| reference by mode |",
            "|---|---|---|---|---|---|---|---|---|---|",
        ]
        for r in part:
            ref = r["ref_s"] if r["ref_status"] == "ok" else f"{r['ref_status']} {r['ref_s']}"
            lines.append(
                f"| {r['graph']} | {r['nodes']} | {r['edges']} | {r.get('n_axps', '')} | "
                f"{r.get('n_cxps', '')} | {1000 * r['ours_s']:.3f} | {ref} | "
                f"{'>' if r['ref_status'] == 'timeout' else ''}{r['ratio']} | {r['identical']} "
                f"| {r.get('ref_modes', '')} |"
            )
        ratios = [r["ratio"] for r in part if r["ratio"] != ""]
        if ratios:
            lines += [
                "",
                f"Median ratio: {statistics.median(ratios):.1f}x "
                "(a timeout counts as its lower bound).",
            ]
        lines.append("")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the core speed benchmark (``argv`` as on the command line)."""
    parser = argparse.ArgumentParser(prog="python -m bench.core_speed", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small sizes, short timeouts")
    parser.add_argument("--timeout", type=float, help="per-run limit for the reference (s)")
    parser.add_argument("--ours-only", action="store_true", help="skip the reference")
    parser.add_argument("--shell-only", action="store_true", help="only the whole commands")
    parser.add_argument("--no-shell", action="store_true", help="skip the whole commands")
    parser.add_argument(
        "--repeat", type=int, default=5, help="runs per whole command (default %(default)s)"
    )
    parser.add_argument(
        "--out", default=str(RESULTS_DIR), help="output folder (default %(default)s)"
    )
    args = parser.parse_args(argv)
    timeout = args.timeout or (5.0 if args.quick else 20.0)
    ref = not args.ours_only
    if ref and not is_ready(PEERS["xpgraph"]):
        ensure_venv(PEERS["xpgraph"])
    sizes = [20, 40, 80, 1000] if args.quick else [10, 14, 16, 18, 20, 22, 40, 80, 1000, 10000]
    ref_sizes = [10, 14, 16, 18, 20] if args.quick else [10, 14, 16, 18, 20, 22, 40, 80, 1000]
    rows: list[dict[str, Any]] = []
    shell_rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="xpg-core-speed-") as name:
        tmp = Path(name)
        if not args.shell_only:
            rows = ladder_section(sizes, ref_sizes, timeout, tmp, ref)
            rows += enumeration_section(random_graphs(args.quick, tmp), timeout, ref)
            rows += axp_section(range(2) if args.quick else range(5), timeout, tmp, ref)
            rows += timeout_section(args.repeat)
        if ref and not args.no_shell:
            groups = {
                "six examples": [(p.stem, p) for p in sorted(EXAMPLES.glob("*/*.xpg"))],
                "three larger": larger_graphs(tmp),
            }
            shell_rows = startup_rows(tmp, args.repeat)
            shell_rows += shell_section(groups, args.repeat, max(timeout, 60.0), tmp)
    md = (markdown(rows) if rows else "") + (
        "\n" + shell_markdown(shell_rows, args.repeat) if shell_rows else ""
    )
    outputs = {".md": md}
    if rows:
        outputs[".csv"] = csv_text(rows, COLUMNS)
    if shell_rows:
        outputs["_shell.csv"] = csv_text(shell_rows, SHELL_COLUMNS)
    paths = write_outputs(out_dir(args.out), "core_speed", outputs)
    print(md)
    for p in paths:
        print(f"wrote {p}")
    return 1 if any(r.get("identical") is False for r in [*rows, *shell_rows]) else 0


if __name__ == "__main__":
    sys.exit(main())
