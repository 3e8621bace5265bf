"""Batch explanation (issue 14): rows per second of every route, per-row overhead, scaling.

Usage: ``python -m bench.batch_speed [--quick] [--data-dir D] [--out DIR] [--workers 2]
[--chunk-rows 256] [--heavy-rows 2000] [--csv-rows 10000] [--max-rows N] [--repeat 3]``
(or ``xpg bench batch ...``).

Cases:

* **Table 2 trees**: every tested instance of adult, shuttle and pendigits (the depth-6
  trees and the 30% draw of :mod:`bench.table2`, :func:`bench.models.train_tree`).
* **Heavy rows**: rows taking at least 1 ms each, the rows of the issue's scaling target:
  the first ``--heavy-rows`` tested rows of adult on a depth-14 tree (2,239 nodes, the size
  of the issue's 2,471-node tree), those whose loop time is >= 1 ms kept.  The Table 2 rows
  take 0.1-0.2 ms each: too little work per row for extra processes to pay off.
* **10,000-row CSV**: the first ``--csv-rows`` tested rows of adult written as a CSV, explained
  by the ``xpg explain`` command (a fresh interpreter: start-up, model loading, reading,
  writing JSON Lines included; ``(run)`` rows: the time the command reports, from reading
  the first row to the last record) with ``--workers 1``, ``--workers N`` and
  ``--scheduler local:N``, on the Table 2 tree; and with ``--workers 1`` on the depth-14
  tree.  Their ``loop`` runs in a fresh interpreter too (:data:`FRESH_LOOP`).

Routes, on the same rows: ``loop`` (a Python loop: ``ExplanationGraph.from_decision_graph``
and ``enumerate_explanations`` per row, as a user would write it), ``in-process chunks``
(:func:`xpg.explain.parallel.run_in_process`: the records encoded as JSON Lines, as the
command writes them; every route below encodes too), ``processes 1`` and
``processes N`` (:func:`xpg.explain.parallel.run_processes`: process start-up included),
``dask N`` (:func:`xpg.explain.parallel.run_dask` on a ``LocalCluster`` of N single-threaded
worker processes; the cluster's start-up is reported apart, as a cluster outlives one
batch).  Every route's records are checked equal to the loop's.  Times are wall-clock
(``time.perf_counter``, parallel work cannot be measured in the CPU time of one process),
the best of ``--repeat`` rounds, every route measured in turn in each round (so that a change
in the machine's load hits all routes alike).
``overhead_us`` is the worker time per row beyond the loop's, ``(N * seconds - loop
seconds) / rows``; ``efficiency`` is the speed-up over the loop divided by N.  The machine
may be busy with other work, which inflates wall-clock times of parallel routes most: so
the CPU time of every process of a route is measured too (``cpu_s``: this process and its
children, :func:`cpu_clock`), ``cpu_overhead_us`` is the CPU time per row beyond the loop's,
and ``free_cores_rows_per_s`` (``N * rows / cpu_s``) what the route would do on N free cores
if its CPU work spread evenly over them.

Writes ``batch_speed.csv`` and ``batch_speed.md`` to ``--out``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bench.data import load_dataset
from bench.models import train_tree
from bench.tables import RESULTS_DIR, csv_text, out_dir, write_outputs
from xpg import Explainer, ExplanationGraph, enumerate_explanations
from xpg.explain.batch import BatchExplainer
from xpg.explain.parallel import (
    dask_client,
    run_dask,
    run_in_process,
    run_processes,
    start_method,
)

COLUMNS = ["case", "route", "workers", "rows", "seconds", "rows_per_s", "vs_loop"]
COLUMNS += ["overhead_us", "efficiency", "cpu_s", "cpu_overhead_us", "free_cores_rows_per_s"]
TABLE2_TREES = ("adult", "shuttle", "pendigits")
REPO_ROOT = Path(__file__).resolve().parent.parent


def _frame(ds: Any, rows: Sequence[int]) -> Any:
    import pandas as pd

    return pd.DataFrame(ds.X[list(rows)], columns=ds.feature_names)


def _chunks(frame: Any, size: int) -> list[Any]:
    return [frame.iloc[i : i + size] for i in range(0, len(frame), size)]


def _strip(records: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return sorted(
        (r["row"], r["prediction"], json.dumps(r["axps"]), json.dumps(r["cxps"])) for r in records
    )


def cpu_clock() -> float:
    """CPU seconds of this process and of its children, those alive (psutil) and those ended
    and reaped (``RUSAGE_CHILDREN``): a route's work wherever it ran, which the machine's other
    load does not inflate (wall-clock time it does)."""
    import resource

    import psutil

    live = 0.0
    for child in psutil.Process().children(recursive=True):
        try:
            times = child.cpu_times()
        except psutil.Error:
            continue
        live += times.user + times.system
    ended = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + ended.ru_utime + ended.ru_stime + live


def loop_times(dg: Any, frame: Any) -> tuple[np.ndarray, list[dict[str, Any]]]:
    """The loop's records (for checking the routes), and the wall time of each row."""
    values = frame.to_numpy().tolist()
    times = np.empty(len(values))
    records = []
    for i, x in enumerate(values):
        t = time.perf_counter()
        xg = ExplanationGraph.from_decision_graph(dg, x)
        result = enumerate_explanations(xg).to_json()
        times[i] = time.perf_counter() - t
        records.append({"row": i, "prediction": str(xg.prediction), **result})
    return times, records


def timed_loop(dg: Any, frame: Any) -> tuple[float, float]:
    """Wall and CPU time of the plain loop, a user's: the XpG and every explanation of each
    row, nothing kept (keeping every result would add garbage-collection work of its own)."""
    values = frame.to_numpy().tolist()
    cpu = time.process_time()
    start = time.perf_counter()
    for x in values:
        enumerate_explanations(ExplanationGraph.from_decision_graph(dg, x))
    return time.perf_counter() - start, time.process_time() - cpu


#: The loop of a user, in a fresh interpreter (as the command runs in one: a process that
#: holds many objects pays more for garbage collection): the model and the rows are read
#: first, then only the loop is timed.
FRESH_LOOP = """
import json, sys, time
import pandas as pd
import xpg
dg = xpg.load_model(sys.argv[1])
values = pd.read_csv(sys.argv[2])[[f.name for f in dg.features]].to_numpy().tolist()
cpu, start = time.process_time(), time.perf_counter()
for x in values:
    xpg.enumerate_explanations(xpg.ExplanationGraph.from_decision_graph(dg, x))
print(json.dumps([time.perf_counter() - start, time.process_time() - cpu]))
"""


def fresh_loop(model: Path, csv: Path, env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU time of :data:`FRESH_LOOP` on the rows of ``csv``."""
    argv = [sys.executable, "-c", FRESH_LOOP, str(model), str(csv)]
    proc = subprocess.run(argv, capture_output=True, text=True, env=env, check=True)
    wall, cpu = json.loads(proc.stdout)
    return float(wall), float(cpu)


def _route_row(
    case: str,
    route: str,
    rows: int,
    seconds: float,
    loop: float,
    workers: int,
    cpu: float | None,
    loop_cpu: float,
) -> dict[str, Any]:
    return {
        "case": case,
        "route": route,
        "workers": workers,
        "rows": rows,
        "seconds": round(seconds, 3),
        "rows_per_s": round(rows / seconds, 1),
        "vs_loop": round(loop / seconds, 3),
        "overhead_us": round(1e6 * (workers * seconds - loop) / rows, 1),
        "efficiency": round(loop / seconds / workers, 3),
        "cpu_s": "" if cpu is None else round(cpu, 3),
        "cpu_overhead_us": "" if cpu is None else round(1e6 * (cpu - loop_cpu) / rows, 1),
        "free_cores_rows_per_s": "" if cpu is None else round(workers * rows / cpu, 1),
    }


class Case:
    """The rows of one case, the loop's records, and the best (wall, CPU, workers) of each
    route over the rounds measured so far."""

    def __init__(self, name: str, dg: Any, frame: Any, chunk_rows: int) -> None:
        self.name, self.dg, self.frame = name, dg, frame
        self.chunks = _chunks(frame, chunk_rows)
        self.explainer = BatchExplainer(Explainer(dg, many=True))
        self.expected = _strip(loop_times(dg, frame)[1])
        self.best: dict[str, tuple[float, float | None, int]] = {}

    def keep(self, route: str, wall: float, cpu: float | None, workers: int) -> None:
        if route not in self.best or wall < self.best[route][0]:
            self.best[route] = (wall, cpu, workers)
        rate = len(self.frame) / wall
        print(f"{self.name:>30} {route:>18}: {rate:>9.1f} rows/s", file=sys.stderr)

    def measure_loop(self) -> None:
        wall, cpu = timed_loop(self.dg, self.frame)
        self.keep("loop", wall, cpu, 1)

    def measure(self, route: str, workers: int, run: Callable[[], Any]) -> None:
        """Time ``run()`` (an iterator of encoded chunks: JSON Lines, as ``xpg explain``
        writes them) and check its records."""
        cpu_start = cpu_clock()
        start = time.perf_counter()
        records = [json.loads(line) for chunk in run() for line in chunk.text.splitlines()]
        wall = time.perf_counter() - start
        cpu = cpu_clock() - cpu_start
        if _strip(records) != self.expected:
            raise RuntimeError(f"{self.name}, {route}: the records differ from the loop's")
        self.keep(route, wall, cpu, workers)

    def local_routes(self, workers: int) -> None:
        """The loop, in process, then local processes (while no Dask thread runs: see
        :func:`xpg.explain.parallel.start_method`)."""
        explainer, chunks = self.explainer, self.chunks
        self.measure_loop()
        self.measure("in-process chunks", 1, lambda: run_in_process(explainer, chunks, encode=True))
        self.measure("processes 1", 1, lambda: run_processes(explainer, chunks, 1, encode=True))
        self.measure(
            f"processes {workers}",
            workers,
            lambda: run_processes(explainer, chunks, workers, encode=True),
        )

    def rows(self) -> list[dict[str, Any]]:
        loop, loop_cpu, _ = self.best["loop"]
        n = len(self.frame)
        return [
            _route_row(self.name, route, n, wall, loop, w, cpu, loop_cpu or 0.0)
            for route, (wall, cpu, w) in self.best.items()
        ]


def heavy_case(ds: Any, rows: Sequence[int], chunk_rows: int) -> tuple[Case, str]:
    """Rows taking at least 1 ms: adult's tested rows on a depth-14 tree (the size of the
    issue's 2,471-node tree), those whose loop time is >= 1 ms kept."""
    model = train_tree(ds, max_depth=14)
    times, _ = loop_times(model.dg, _frame(ds, rows))
    kept = [int(rows[i]) for i in np.flatnonzero(times >= 1e-3)]
    note = (
        f"heavy rows: the first {len(rows)} tested rows of adult on a depth-14 tree "
        f"({len(model.dg)} nodes); the {len(kept)} taking >= 1 ms in the loop are kept "
        f"(median {1e3 * float(np.median(times[times >= 1e-3])):.2f} ms per row)"
    )
    name = f"adult depth 14 ({len(model.dg)} nodes), rows >= 1 ms"
    return Case(name, model.dg, _frame(ds, kept), chunk_rows), note


def cli_runs(
    ds: Any,
    model: Any,
    rows: Sequence[int],
    routes: Sequence[tuple[str, list[str], int]],
    folder: Path,
    repeat: int,
    label: str,
) -> list[dict[str, Any]]:
    """``xpg explain`` on a CSV of ``rows``, by route (name, options, workers), against the
    loop on the same rows."""
    import pandas as pd

    from xpg.io import save_model
    from xpg.models.tree import tree_from_sklearn

    frame = _frame(ds, rows)
    csv = folder / "rows.csv"
    data = frame.copy()
    data["target"] = [str(v) for v in ds.y[list(rows)]]
    data.to_csv(csv, index=False)
    model_path = folder / "model.json"
    save_model(tree_from_sklearn(model.original, ds.features), model_path)
    back = pd.read_csv(csv)[ds.feature_names]  # the loop explains what the command reads
    expected = _strip(loop_times(model.dg, back)[1])
    case = f"CSV {len(rows):,} rows ({label})"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO_ROOT), *sys.path])}
    argv = [sys.executable, "-m", "xpg", "explain", str(model_path), "--data", str(csv)]
    best: dict[str, tuple[float, float | None, int]] = {}

    def keep(route: str, wall: float, cpu: float | None, workers: int) -> None:
        if route not in best or wall < best[route][0]:
            best[route] = (wall, cpu, workers)

    for _ in range(repeat):  # rounds: every route in turn, so that the load hits all alike
        keep("loop", *fresh_loop(model_path, csv, env), 1)
        for route, extra, n in routes:
            target = folder / "out.jsonl"
            cpu_start = cpu_clock()
            start = time.perf_counter()
            proc = subprocess.run(
                [*argv, "-o", str(target), *extra], capture_output=True, text=True, env=env
            )
            wall = time.perf_counter() - start
            cpu = cpu_clock() - cpu_start
            if proc.returncode != 0:
                raise RuntimeError(f"{route}: exit {proc.returncode}: {proc.stderr.strip()}")
            records = [json.loads(line) for line in target.read_text().splitlines()]
            if _strip(records) != expected:
                raise RuntimeError(f"{route}: the records differ from the loop's")
            # "xpg explain: R rows, E errors, X rows/s (S s)": S is the command's own run time
            inner = float(proc.stderr.rsplit("(", 1)[1].split(" s)")[0])
            keep(route + " (run)", inner, None, n)
            keep(route + " (whole)", wall, cpu, n)
            print(f"{case:>22} {route:>18}: {len(rows) / inner:>9.1f} rows/s", file=sys.stderr)
    loop, loop_cpu, _ = best["loop"]
    return [
        _route_row(case, route, len(rows), wall, loop, n, cpu, loop_cpu or 0.0)
        for route, (wall, cpu, n) in best.items()
    ]


def _wait_for_no_thread(seconds: float = 10.0) -> None:
    """Wait until the threads a closed Dask cluster leaves behind have ended, so that local
    processes are forked as ``xpg explain`` forks them (see ``start_method``)."""
    import threading

    deadline = time.perf_counter() + seconds
    while threading.active_count() > 1 and time.perf_counter() < deadline:
        time.sleep(0.1)


def markdown(rows: list[dict[str, Any]], notes: list[str]) -> str:
    head = "| " + " | ".join(COLUMNS) + " |\n|" + "---|" * len(COLUMNS) + "\n"
    body = "".join("| " + " | ".join(str(r[c]) for c in COLUMNS) + " |\n" for r in rows)
    return (
        "## Batch explanation: rows per second by route\n\n"
        + head
        + body
        + "\n"
        + "\n".join(f"- {n}" for n in notes)
    )


def _find(rows: list[dict[str, Any]], case: str, route: str) -> dict[str, Any]:
    return next(r for r in rows if r["case"].startswith(case) and r["route"] == route)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark (``argv`` as on the command line)."""
    parser = argparse.ArgumentParser(prog="python -m bench.batch_speed", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="2,000 rows per case (CI)")
    parser.add_argument(
        "--data-dir", help="datasets folder (default $XPG_SHARED_DIR/datasets or ../shared)"
    )
    parser.add_argument("--out", default=str(RESULTS_DIR), help="output folder")
    parser.add_argument("--workers", type=int, default=2, help="N of the parallel routes")
    parser.add_argument("--chunk-rows", type=int, default=256, help="rows per chunk")
    parser.add_argument(
        "--heavy-rows", type=int, default=2000, help="adult rows tried for the heavy case"
    )
    parser.add_argument("--csv-rows", type=int, default=10_000, help="rows of the CSV case")
    parser.add_argument("--repeat", type=int, default=3, help="best of this many runs")
    parser.add_argument("--max-rows", type=int, help="at most this many rows per Table 2 tree")
    args = parser.parse_args(argv)
    cap = args.max_rows if args.max_rows else (2000 if args.quick else None)
    heavy_n = min(args.heavy_rows, 300) if args.quick else args.heavy_rows
    csv_n = min(args.csv_rows, 2000) if args.quick else args.csv_rows
    folder = out_dir(args.out)
    load_start = os.getloadavg()[0]
    cases = []
    trained = {}
    for name in TABLE2_TREES:
        ds = load_dataset(name, args.data_dir)
        model = train_tree(ds)
        trained[name] = (ds, model)
        frame = _frame(ds, ds.tested.tolist()[:cap])
        cases.append(Case(f"{name} ({len(model.dg)} nodes)", model.dg, frame, args.chunk_rows))
    adult, adult_model = trained["adult"]
    tested = adult.tested.tolist()
    heavy, note = heavy_case(adult, tested[:heavy_n], max(1, min(args.chunk_rows, 32)))
    cases.append(heavy)
    method = start_method()
    dask_start = math.inf
    for _ in range(args.repeat):  # rounds: every route in turn, so that the load hits all alike
        _wait_for_no_thread()
        for case in cases:
            case.local_routes(args.workers)
        start = time.perf_counter()
        client, cluster = dask_client(f"local:{args.workers}")
        dask_start = min(dask_start, time.perf_counter() - start)
        try:
            list(run_dask(cases[0].explainer, cases[0].chunks[:2], client))  # workers import xpg
            for case in cases:
                case.measure(
                    f"dask {args.workers}",
                    args.workers,
                    lambda e=case.explainer, c=case.chunks, k=client: run_dask(
                        e, c, k, encode=True
                    ),
                )
        finally:
            client.close()
            cluster.close()
    table = [row for case in cases for row in case.rows()]
    notes = [
        f"machine: {os.cpu_count()} cores (shared with other work while measured); Dask "
        f"LocalCluster start-up {dask_start:.2f} s, not in the dask rows; chunks of "
        f"{args.chunk_rows} rows (32 for the heavy rows); processes started with "
        f"'{method}'; best of {args.repeat} rounds, each route in turn in every round",
        note,
    ]
    w = args.workers
    with tempfile.TemporaryDirectory() as tmp:
        routes = [
            ("xpg explain --workers 1", [], 1),
            (f"xpg explain --workers {w}", ["--workers", str(w)], w),
            (f"xpg explain --scheduler local:{w}", ["--scheduler", f"local:{w}"], w),
        ]
        table += cli_runs(
            adult, adult_model, tested[:csv_n], routes, Path(tmp), args.repeat, "adult, Table 2"
        )
        deep = train_tree(adult, max_depth=14)
        table += cli_runs(adult, deep, tested[:csv_n], routes[:1], Path(tmp), 1, "adult, depth 14")
    csv_case = f"CSV {csv_n:,} rows (adult, Table 2)"
    deep_case = f"CSV {csv_n:,} rows (adult, depth 14)"
    cli_run = _find(table, csv_case, "xpg explain --workers 1 (run)")
    cli_whole = _find(table, csv_case, "xpg explain --workers 1 (whole)")
    p1 = _find(table, "adult depth 14", "processes 1")
    pw = _find(table, "adult depth 14", f"processes {w}")
    dw = _find(table, "adult depth 14", f"dask {w}")
    loop_csv = _find(table, csv_case, "loop")

    def met(ok: bool) -> str:
        return "met" if ok else "NOT met"

    def free(row: dict[str, Any]) -> float:
        return float(row["free_cores_rows_per_s"])

    deep_loop = _find(table, deep_case, "loop")
    deep_run = _find(table, deep_case, "xpg explain --workers 1 (run)")
    deep_whole = _find(table, deep_case, "xpg explain --workers 1 (whole)")
    t1, t1_cpu = cli_run["vs_loop"], loop_csv["cpu_s"] / cli_whole["cpu_s"]
    t2, t2_cpu = pw["rows_per_s"] / p1["rows_per_s"], free(pw) / free(p1)
    t3, t3_cpu = dw["rows_per_s"] / pw["rows_per_s"], free(dw) / free(pw)
    notes += [
        f"load average (1 min) {load_start:.1f} at the start, {os.getloadavg()[0]:.1f} at the "
        "end: wall-clock figures of parallel routes depend on it; the CPU columns do not",
        f"target 1, xpg explain --workers 1 >= 80% of the loop's rows/s on the CSV: "
        f"{100 * t1:.0f}% by wall-clock time of the command's run ({met(t1 >= 0.8)}); "
        f"{100 * cli_whole['vs_loop']:.0f}% with interpreter start-up; by CPU time, start-up "
        f"included, {100 * t1_cpu:.0f}% ({met(t1_cpu >= 0.8)}); on the depth-14 tree "
        f"({1e3 * deep_loop['seconds'] / deep_loop['rows']:.2f} ms per row in the loop): "
        f"{100 * deep_run['vs_loop']:.0f}% for the run ({met(deep_run['vs_loop'] >= 0.8)}), "
        f"{100 * deep_whole['vs_loop']:.0f}% with start-up ({met(deep_whole['vs_loop'] >= 0.8)})",
        f"target 2, {w} processes >= 1.6x one on rows >= 1 ms: {t2:.2f}x by wall-clock time "
        f"({met(t2 >= 1.6)}); {t2_cpu:.2f}x on free cores, from CPU time ({met(t2_cpu >= 1.6)})",
        f"target 3, dask {w} >= 70% of {w} processes on rows >= 1 ms: {100 * t3:.0f}% by "
        f"wall-clock time ({met(t3 >= 0.7)}); {100 * t3_cpu:.0f}% on free cores, from CPU "
        f"time ({met(t3_cpu >= 0.7)})",
    ]
    md = markdown(table, notes) + "\n"
    for path in write_outputs(folder, "batch_speed", {".csv": csv_text(table, COLUMNS), ".md": md}):
        print(f"wrote {path}", file=sys.stderr)
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
