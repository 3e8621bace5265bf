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

``--part cells`` (issue 31's speed target) measures one core instead, on the depth-6 adult
tree with ``--kinds axp,cxp``: ``--cells-rows`` rows (1,000,000 by default) resampled from
adult (with replacement, their labels as ``--target``), and as many all-distinct rows (each
feature drawn from adult's values of that feature independently, repeated rows drawn again),
each written as a CSV.  Routes: ``in process`` (a fresh :class:`BatchExplainer`, so that its
cell cache starts empty: :func:`xpg.io.tables.iter_table_chunks`, ``run_in_process`` with
``encode=True`` and the text written to a file: the command's work without its start-up),
``in process, no cache`` (the same with ``cell_cache_size = 0``, on the first
``--before-rows`` rows), and ``xpg explain --workers 1`` (a fresh interpreter, the first
``--cli-rows`` rows; ``(run)``: the time the command reports).  Best of ``--repeat`` rounds;
wall and CPU times.  The outputs are checked equal (but for ``"seconds"``) to the
uncached records.  Writes ``batch_speed_cells.csv`` and ``.md``.

Issue 31's other parts run ``xpg explain`` in fresh interpreters (:class:`Command`: wall time,
CPU time and peak RSS of the command and of the children it waited for, and the time its
summary line reports), best of ``--repeat`` rounds, every command in turn in each round:

* ``--part memory``: peak RSS of ``-o OUT.jsonl``, ``-o OUT.parquet`` and ``--resume`` on a
  complete JSON Lines output, at each of ``--memory-rows`` rows (100,000 and 1,000,000)
  resampled from adult, depth-6 tree; the ratio of the peaks (flat: within 10%).
* ``--part spread``: a 50-tree depth-6 random forest on adult, too large to compile (about
  a CPU second per row, some rows many), ``--spread-rows`` rows, ``--workers 1`` against
  ``--workers 2`` with the default chunking: the speed-up.
* ``--part dask``: ``--scheduler local:N`` against ``--workers N`` (``--workers``, 2) on
  ``--dask-rows`` rows resampled from adult, depth-6 tree; each also on ``--dask-small-rows``
  rows, so that the rate without start-up (the cluster's included) is the difference's.

Each writes ``batch_speed_<part>.csv`` and ``.md``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
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


CELLS_COLUMNS = ["case", "route", "rows", "seconds", "rows_per_s", "cpu_s", "rows_per_cpu_s"]
CELLS_COLUMNS += ["cells", "target_met"]
#: issue 31: 10 million rows a minute on 16 cores
CELLS_TARGET = 10_400


def distinct_rows(ds: Any, n: int, rng: Any) -> np.ndarray:
    """``n`` distinct rows, each feature drawn from adult's values of that feature (its
    rows' values, so as often as they occur), independently of the others."""
    found = np.empty((0, ds.X.shape[1]))
    while len(found) < n:
        more = np.column_stack(
            [rng.choice(ds.X[:, j], size=n - len(found) + 1000) for j in range(ds.X.shape[1])]
        )
        both = np.concatenate([found, more])
        _, first = np.unique(both, axis=0, return_index=True)
        found = both[np.sort(first)]  # the first of each row, in the order drawn
    return found[:n]


_SECONDS = re.compile(r'"seconds": [0-9.e+-]+')


def _same_records(text: str, reference: str) -> bool:
    """The same records but for their ``"seconds"``."""
    return _SECONDS.sub("", text) == _SECONDS.sub("", reference)


def cells_part(args: argparse.Namespace, folder: Path) -> int:
    """``--part cells``: rows per second of one core on the depth-6 adult tree (see the
    module's docstring)."""
    import pandas as pd

    from xpg.cli.batch import model_fingerprint
    from xpg.explain.cell_cache import cache_of
    from xpg.io import save_model
    from xpg.io.tables import iter_table_chunks
    from xpg.models.tree import tree_from_sklearn

    quick = args.quick
    n = min(args.cells_rows, 20_000) if quick else args.cells_rows
    before_n = min(args.before_rows, n)
    cli_n = min(args.cli_rows or n, n)
    ds = load_dataset("adult", args.data_dir)
    model = train_tree(ds)
    rng = np.random.default_rng(0)
    picked = rng.integers(0, len(ds.X), n)
    cases = {
        "adult, resampled": (ds.X[picked], ds.y[picked]),
        "all-distinct": (distinct_rows(ds, n, rng), ds.y[rng.integers(0, len(ds.X), n)]),
    }
    table: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        env = _env(tmp)
        model_path = tmp / "model.json"
        save_model(tree_from_sklearn(model.original, ds.features), model_path)
        fingerprint = model_fingerprint(str(model_path))
        for case, (X, y) in cases.items():
            frame = pd.DataFrame(X, columns=ds.feature_names)
            frame["target"] = [str(v) for v in y]
            csv = tmp / "rows.csv"
            frame.to_csv(csv, index=False)
            head = {k: tmp / f"head_{k}.csv" for k in ("before", "cli")}
            frame.iloc[:before_n].to_csv(head["before"], index=False)
            frame.iloc[:cli_n].to_csv(head["cli"], index=False)
            del frame
            best: dict[str, tuple[float, float, int, int | str]] = {}

            def keep(
                route: str,
                wall: float,
                cpu: float,
                rows: int,
                cells: int | str,
                best: dict[str, Any] = best,
                case: str = case,
            ) -> None:
                if route not in best or wall < best[route][0]:
                    best[route] = (wall, cpu, rows, cells)
                print(f"{case:>18} {route:>34}: {rows / wall:>9.1f} rows/s", file=sys.stderr)

            def in_process(data: Path, cache: bool) -> tuple[float, float, int, str]:
                batch = BatchExplainer(
                    Explainer(model_path_model(model_path), many=True),
                    kinds="axp,cxp",
                    target="target",
                    model_id=fingerprint,
                )
                if not cache:
                    batch.cell_cache_size = 0  # type: ignore[attr-defined]
                out = tmp / ("cached.jsonl" if cache else "plain.jsonl")
                cpu, start = time.process_time(), time.perf_counter()
                rows = 0
                with open(out, "w", encoding="utf-8") as fh:
                    for chunk in run_in_process(
                        batch, iter_table_chunks(data, args.chunk_rows), encode=True
                    ):
                        fh.write(chunk.text)
                        rows += chunk.rows
                wall, cpu = time.perf_counter() - start, time.process_time() - cpu
                found = cache_of(batch)
                return wall, cpu, rows, "" if found is None else str(len(found))

            argv = [sys.executable, "-m", "xpg", "explain", str(model_path), "--kinds", "axp,cxp"]
            argv += ["--target", "target", "--workers", "1", "--data", str(head["cli"])]
            for round_ in range(args.repeat):
                wall, cpu, rows, cells = in_process(head["before"], cache=False)
                keep("in process, no cache", wall, cpu, rows, "")
                wall, cpu, rows, cells = in_process(csv, cache=True)
                keep("in process", wall, cpu, rows, int(cells))
                target = tmp / "cli.jsonl"
                cpu_start, start = cpu_clock(), time.perf_counter()
                proc = subprocess.run(
                    [*argv, "-o", str(target)], capture_output=True, text=True, env=env
                )
                wall, cpu = time.perf_counter() - start, cpu_clock() - cpu_start
                if proc.returncode != 0:
                    raise RuntimeError(f"xpg explain: exit {proc.returncode}: {proc.stderr}")
                inner = float(proc.stderr.rsplit("(", 1)[1].split(" s)")[0])
                keep("xpg explain --workers 1 (whole)", wall, cpu, cli_n, "")
                keep("xpg explain --workers 1 (run)", inner, math.nan, cli_n, "")
                if round_ == 0:  # every route's records, checked against the uncached ones
                    plain = (tmp / "plain.jsonl").read_text(encoding="utf-8")
                    cached = (tmp / "cached.jsonl").read_text(encoding="utf-8")
                    lines = cached.splitlines(keepends=True)
                    if not _same_records("".join(lines[:before_n]), plain):
                        raise RuntimeError(f"{case}: the cached records differ")
                    cli = target.read_text(encoding="utf-8")
                    if not _same_records(cli, "".join(lines[:cli_n])):
                        raise RuntimeError(f"{case}: the command's records differ")
            for route, (wall, cpu, rows, cells) in best.items():
                rate = rows / wall
                table.append(
                    {
                        "case": f"{case} ({n:,} rows)",
                        "route": route,
                        "rows": rows,
                        "seconds": round(wall, 3),
                        "rows_per_s": round(rate, 1),
                        "cpu_s": "" if math.isnan(cpu) else round(cpu, 3),
                        "rows_per_cpu_s": "" if math.isnan(cpu) else round(rows / cpu, 1),
                        "cells": cells,
                        "target_met": "met" if rate >= CELLS_TARGET else "NOT met",
                    }
                )
    head_ = "| " + " | ".join(CELLS_COLUMNS) + " |\n|" + "---|" * len(CELLS_COLUMNS) + "\n"
    body = "".join("| " + " | ".join(str(r[c]) for c in CELLS_COLUMNS) + " |\n" for r in table)
    notes = [
        f"machine: {os.cpu_count()} cores shared with other work; depth-6 adult tree "
        f"({len(model.dg)} nodes), --kinds axp,cxp, chunks of {args.chunk_rows} rows; best of "
        f"{args.repeat} rounds, each route in turn in every round",
        f"target: {CELLS_TARGET:,} rows/s per core (10 million rows a minute on 16 cores), "
        "`target_met` by wall-clock rows/s (rows_per_cpu_s: what a free core would do); "
        "`cells`: the cells explained (the cache's size at the end, at most "
        "xpg.explain.cell_cache.DEFAULT_CELLS)",
        "in process: reading the CSV in chunks, explaining, writing JSON Lines (no interpreter "
        "start-up, no model loading); `(whole)`: the command from start to exit; `(run)`: "
        "the time the command reports, from the first row read to the last record",
    ]
    md = (
        "## Batch explanation, one core: the cell cache\n\n"
        + head_
        + body
        + "\n"
        + "\n".join(f"- {x}" for x in notes)
        + "\n"
    )
    files = {".csv": csv_text(table, CELLS_COLUMNS), ".md": md}
    for path in write_outputs(folder, "batch_speed_cells", files):
        print(f"wrote {path}", file=sys.stderr)
    print(md)
    return 0


# -- issue 31: --part memory, --part spread, --part dask ------------------------------------------

#: issue 31: peak RSS at 1,000,000 rows within 10% of that at 100,000
MEMORY_TARGET = 1.10
#: issue 31: Dask ``local:2`` at least this fraction of two local processes' rows/s
DASK_TARGET = 0.85
_SUMMARY = re.compile(r"(\d+) rows, (\d+) errors, [0-9.]+ rows/s \(([0-9.]+) s\)")


#: runs a command and prints its resource usage: a process of its own, because a child
#: started from a large process (vfork and exec) starts its peak RSS at that process's
#: (Linux sets it from the old memory map at exec), which would hide the command's own
_LAUNCHER = """
import json, resource, subprocess, sys
status = subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL)
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps([status, usage.ru_utime + usage.ru_stime, usage.ru_maxrss]))
"""


class Command:
    """One ``xpg explain`` run in a fresh interpreter: wall time, the CPU time and peak RSS of
    the process and of the children it waited for (``RUSAGE_CHILDREN`` of a small launcher,
    :data:`_LAUNCHER`: every measurement has its own peak), and its summary line's figures."""

    def __init__(self, argv: Sequence[str], env: dict[str, str], folder: Path) -> None:
        log = folder / "stderr.txt"
        with open(log, "w", encoding="utf-8") as err:
            start = time.perf_counter()
            proc = subprocess.run(
                [sys.executable, "-c", _LAUNCHER, *argv],
                stdout=subprocess.PIPE,
                stderr=err,
                env=env,
                text=True,
                check=True,
            )
            self.wall = time.perf_counter() - start
        self.status, self.cpu, peak_kb = json.loads(proc.stdout)
        self.peak_mb = peak_kb / 1024  # kilobytes on Linux
        self.stderr = log.read_text(encoding="utf-8")
        if self.status != 0:
            raise RuntimeError(f"{' '.join(argv[2:])}: exit {self.status}: {self.stderr}")
        found = _SUMMARY.findall(self.stderr)
        if not found:
            raise RuntimeError(f"no summary line: {self.stderr}")
        rows, errors, run = found[-1]
        self.rows, self.errors, self.run = int(rows), int(errors), float(run)


def _tree_file(ds: Any, folder: Path) -> tuple[Any, Path]:
    """The depth-6 tree of ``ds`` (:func:`bench.models.train_tree`) written as a model file."""
    from xpg.io import save_model
    from xpg.models.tree import tree_from_sklearn

    model = train_tree(ds)
    path = folder / "tree.json"
    save_model(tree_from_sklearn(model.original, ds.features), path)
    return model, path


def _resampled_csv(ds: Any, n: int, rng: Any, path: Path) -> Path:
    """``n`` rows drawn from ``ds`` with replacement, written as a CSV."""
    import pandas as pd

    pd.DataFrame(ds.X[rng.integers(0, len(ds.X), n)], columns=ds.feature_names).to_csv(
        path, index=False
    )
    return path


def _env(folder: Path) -> dict[str, str]:
    """The commands' environment: this checkout's xpg, its bytecode compiled once into
    ``folder`` as an install compiles it (under ``PYTHONDONTWRITEBYTECODE``, which this
    machine sets, every command compiled xpg from source, twice on the Dask route: in the
    command and in the fork server of its workers)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO_ROOT), *sys.path])}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(folder / "pycache")
    compile_all = [sys.executable, "-m", "compileall", "-q", str(REPO_ROOT / "xpg")]
    subprocess.run(compile_all, env=env, check=True, stdout=subprocess.DEVNULL)
    return env


def _write_part(
    folder: Path,
    stem: str,
    title: str,
    rows: list[dict[str, Any]],
    columns: Sequence[str],
    notes: list[str],
) -> int:
    head = "| " + " | ".join(columns) + " |\n|" + "---|" * len(columns) + "\n"
    body = "".join("| " + " | ".join(str(r[c]) for c in columns) + " |\n" for r in rows)
    md = f"## {title}\n\n" + head + body + "\n" + "\n".join(f"- {x}" for x in notes) + "\n"
    for path in write_outputs(folder, stem, {".csv": csv_text(rows, columns), ".md": md}):
        print(f"wrote {path}", file=sys.stderr)
    print(md)
    return 0


def _output_rows(path: Path) -> int:
    """The records in a JSON Lines or Parquet output."""
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        return int(pq.ParquetFile(path).metadata.num_rows)
    with open(path, "rb") as fh:
        return sum(1 for _ in fh)


def _machine_note(repeat: int, load: float) -> str:
    return (
        f"machine: {os.cpu_count()} cores shared with other work (load average {load:.1f} at "
        f"the start, {os.getloadavg()[0]:.1f} at the end); best of {repeat} rounds, every "
        "command in turn in each round; `cpu_s`: the command's CPU time and its waited "
        "children's, which the other load does not inflate"
    )


MEMORY_COLUMNS = ["case", "rows", "peak_rss_mb", "seconds", "run_s", "cpu_s", "rows_per_s"]
MEMORY_COLUMNS += ["rss_ratio", "target_met"]


def memory_part(args: argparse.Namespace, folder: Path) -> int:
    """``--part memory`` (issue 31, item 10): peak RSS of ``xpg explain`` writing JSON Lines
    and Parquet, and of ``--resume`` on a complete JSON Lines output (nothing left to do),
    at each of ``--memory-rows`` rows resampled from adult (the depth-6 tree,
    ``--kinds axp,cxp``); each measurement a fresh interpreter.  The ratio of the peak at the
    largest number of rows to that at the smallest: flat memory is a ratio near 1."""
    sizes = sorted(int(x) for x in args.memory_rows.split(","))
    if args.quick:
        sizes = [max(1, s // 50) for s in sizes]
    load = os.getloadavg()[0]
    ds = load_dataset("adult", args.data_dir)
    rng = np.random.default_rng(0)
    table: list[dict[str, Any]] = []
    best: dict[tuple[str, int], Command] = {}
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        env = _env(tmp)
        model, model_path = _tree_file(ds, tmp)
        data = {n: _resampled_csv(ds, n, rng, tmp / f"rows_{n}.csv") for n in sizes}
        argv = [sys.executable, "-m", "xpg", "explain", str(model_path), "--kinds", "axp,cxp"]

        def keep(case: str, n: int, run: Command) -> None:
            old = best.get((case, n))
            if old is None or run.peak_mb < old.peak_mb:
                best[(case, n)] = run
            print(f"{case:>22} {n:>9,}: {run.peak_mb:8.1f} MB {run.wall:8.2f} s", file=sys.stderr)

        for _ in range(args.repeat):
            for n in sizes:
                for suffix in (".jsonl", ".parquet"):
                    out = tmp / f"out_{n}{suffix}"
                    out.unlink(missing_ok=True)
                    run = Command([*argv, "--data", str(data[n]), "-o", str(out)], env, tmp)
                    if run.rows != n or _output_rows(out) != n:
                        raise RuntimeError(f"{out.name}: {_output_rows(out)} records, not {n}")
                    keep(f"-o OUT{suffix}", n, run)
                out = tmp / f"out_{n}.jsonl"
                run = Command([*argv, "--data", str(data[n]), "-o", str(out), "--resume"], env, tmp)
                if run.rows != 0 or _output_rows(out) != n:
                    raise RuntimeError(f"--resume of a complete output: {run.stderr}")
                keep("--resume (all done)", n, run)
    for case in ("-o OUT.jsonl", "-o OUT.parquet", "--resume (all done)"):
        ratio = best[(case, sizes[-1])].peak_mb / best[(case, sizes[0])].peak_mb
        for n in sizes:
            run = best[(case, n)]
            last = n == sizes[-1] and len(sizes) > 1
            table.append(
                {
                    "case": case,
                    "rows": n,
                    "peak_rss_mb": round(run.peak_mb, 1),
                    "seconds": round(run.wall, 2),
                    "run_s": round(run.run, 2),
                    "cpu_s": round(run.cpu, 2),
                    "rows_per_s": round(n / run.run, 1) if run.rows else "",
                    "rss_ratio": round(ratio, 3) if last else "",
                    "target_met": ("met" if ratio <= MEMORY_TARGET else "NOT met") if last else "",
                }
            )
    notes = [
        _machine_note(args.repeat, load),
        f"`xpg explain MODEL --data ROWS.csv -o OUT --kinds axp,cxp` (--workers 1), the depth-6 "
        f"adult tree ({len(model.dg)} nodes), rows resampled from adult; `--resume (all done)`: "
        "the same command with --resume on the complete JSON Lines output of the row above "
        "(every row already there: reading the output is the work)",
        "`peak_rss_mb`: the command's peak resident set (ru_maxrss: the process and the "
        "children it waited for), the smallest over the rounds; `seconds`, `cpu_s`: that "
        "round's; `run_s`: the time the command reports (from the first row read to the last "
        "record); `rss_ratio`: peak at the most rows over peak at the fewest",
        f"target: memory flat in the rows, rss_ratio <= {MEMORY_TARGET} (issue 31)",
    ]
    title = "Batch explanation: peak memory by the number of rows"
    return _write_part(folder, "batch_speed_memory", title, table, MEMORY_COLUMNS, notes)


SPREAD_COLUMNS = ["case", "route", "rows", "seconds", "run_s", "cpu_s", "rows_per_s"]
SPREAD_COLUMNS += ["speedup", "run_speedup"]


def _forest_file(ds: Any, folder: Path, trees: int, depth: int) -> tuple[Path, str]:
    """A scikit-learn random forest on ``ds``'s training split, written as a model file, and
    the route its rows take (``sat-pb``: too large to compile)."""
    from sklearn.ensemble import RandomForestClassifier

    from bench.models import _labels, split_rows
    from xpg.io import save_model
    from xpg.models.ensemble_import import ensemble_from_sklearn

    train, _ = split_rows(len(ds.X), 0)
    rf = RandomForestClassifier(trees, max_depth=depth, random_state=0)
    rf.fit(ds.X[train], np.asarray(_labels(ds.y))[train])
    model = ensemble_from_sklearn(rf, ds.features)
    path = folder / "forest.json"
    save_model(model, path)
    route = BatchExplainer(Explainer(model_path_model(path), many=True)).route
    return path, str(route)


def _records_by_row(path: Path) -> dict[int, str]:
    return {
        json.loads(line)["row"]: _SECONDS.sub("", line.strip())
        for line in path.read_text(encoding="utf-8").splitlines()
    }


def spread_part(args: argparse.Namespace, folder: Path) -> int:
    """``--part spread`` (issue 31, item 13): slow rows spread over workers.  A 50-tree
    depth-6 random forest on adult, too large to compile (the SAT route: about half a CPU
    second per row, some rows several seconds), ``--spread-rows`` rows resampled from adult;
    ``xpg explain --workers 1`` against ``--workers 2``, default chunking."""
    n = min(args.spread_rows, 12) if args.quick else args.spread_rows
    load = os.getloadavg()[0]
    ds = load_dataset("adult", args.data_dir)
    best: dict[int, Command] = {}
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        env = _env(tmp)
        model_path, route = _forest_file(ds, tmp, 50, 6)
        if route == "graph":
            raise RuntimeError("the forest compiles: pick a larger one")
        data = _resampled_csv(ds, n, np.random.default_rng(1), tmp / "rows.csv")
        argv = [sys.executable, "-m", "xpg", "explain", str(model_path), "--data", str(data)]
        outs = {w: tmp / f"out_{w}.jsonl" for w in (1, 2)}
        for _ in range(args.repeat):
            for w in (1, 2):
                outs[w].unlink(missing_ok=True)
                run = Command([*argv, "-o", str(outs[w]), "--workers", str(w)], env, tmp)
                if run.rows != n:
                    raise RuntimeError(f"--workers {w}: {run.rows} rows, not {n}")
                if w not in best or run.wall < best[w].wall:
                    best[w] = run
                print(f"--workers {w}: {run.wall:8.2f} s, {run.cpu:8.2f} CPU-s", file=sys.stderr)
        costs = [
            float(json.loads(line).get("seconds", 0.0))
            for line in outs[1].read_text(encoding="utf-8").splitlines()
        ]
        one, two = _records_by_row(outs[1]), _records_by_row(outs[2])
        differ = [r for r in one if one[r] != two.get(r)]
        stopped = sum('"complete": false' in one[r] for r in one)
        # a row stopped at its time budget may list other explanations in another run
        if any('"complete": false' not in one[r] for r in differ) or set(one) != set(two):
            raise RuntimeError(f"--workers 2 gives other records on rows {differ[:10]}")
    table = []
    for w, run in best.items():
        table.append(
            {
                "case": f"adult, 50-tree forest ({route}), {n} rows",
                "route": f"xpg explain --workers {w}",
                "rows": n,
                "seconds": round(run.wall, 2),
                "run_s": round(run.run, 2),
                "cpu_s": round(run.cpu, 2),
                "rows_per_s": round(n / run.wall, 2),
                "speedup": round(best[1].wall / run.wall, 3),
                "run_speedup": round(best[1].run / run.run, 3),
            }
        )
    one_cpu = best[1].cpu / n
    free = [0.0, 0.0]  # two workers taking the rows one at a time, in row order
    for cost in costs:
        free[free.index(min(free))] += cost
    notes = [
        _machine_note(args.repeat, load),
        f"scikit-learn RandomForestClassifier(50, max_depth=6) on adult's training split, not "
        f"compiled (route {route}), default --kinds, --limit, --timeout and chunking; "
        f"{one_cpu:.2f} CPU-s per row with one worker; {stopped} rows stopped at the budget "
        f"(their explanations may differ between runs: {len(differ)} rows differ)",
        "`speedup`: wall time of --workers 1 over that of the route (`run_speedup`: the same "
        "with the time the command reports, without start-up); with 2 cores shared with other "
        "work, wall-clock speed-ups of 2 workers are below what 2 free cores give",
        f"the rows' own times (their records' `seconds`, --workers 1) add up to "
        f"{sum(costs):.1f} s, median {1e3 * float(np.median(costs)):.0f} ms, longest "
        f"{max(costs):.1f} s: two free workers taking them one at a time in row order would "
        f"take {max(free):.1f} s, {sum(costs) / max(free):.2f}x (the best spread can give "
        "on these rows)",
        "issue 31 (item 13): 1.08x with the default --chunk-rows 256, 1.23x with 16-row chunks",
    ]
    title = "Batch explanation: slow rows spread over workers"
    return _write_part(folder, "batch_speed_spread", title, table, SPREAD_COLUMNS, notes)


DASK_COLUMNS = ["route", "rows", "seconds", "run_s", "cpu_s", "rows_per_s", "rows_per_cpu_s"]
DASK_COLUMNS += ["fixed_s", "marginal_rows_per_s", "vs_processes", "marginal_vs_processes"]


def dask_part(args: argparse.Namespace, folder: Path) -> int:
    """``--part dask`` (issue 31): ``xpg explain --scheduler local:2`` against
    ``--workers 2`` on ``--dask-rows`` rows resampled from adult (the depth-6 tree,
    ``--kinds axp,cxp``).  Each command also runs on ``--dask-small-rows`` rows: the
    difference of the two times is the time of the extra rows, without the interpreter's
    and the cluster's start-up and shut-down (the command's own time includes the
    cluster's start-up)."""
    n = min(args.dask_rows, 20_000) if args.quick else args.dask_rows
    small = min(args.dask_small_rows, n // 10)
    load = os.getloadavg()[0]
    ds = load_dataset("adult", args.data_dir)
    rng = np.random.default_rng(2)
    w = args.workers
    routes = {
        f"--workers {w}": ["--workers", str(w)],
        f"--scheduler local:{w}": ["--scheduler", f"local:{w}"],
    }
    best: dict[tuple[str, int], Command] = {}
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        env = _env(tmp)
        model, model_path = _tree_file(ds, tmp)
        data = {k: _resampled_csv(ds, k, rng, tmp / f"rows_{k}.csv") for k in (small, n)}
        argv = [sys.executable, "-m", "xpg", "explain", str(model_path), "--kinds", "axp,cxp"]
        outs: dict[str, Path] = {}
        for _ in range(args.repeat):
            for k in (small, n):
                for route, extra in routes.items():
                    out = tmp / f"out_{k}_{extra[0][2:]}.jsonl"
                    out.unlink(missing_ok=True)
                    run = Command([*argv, "--data", str(data[k]), "-o", str(out), *extra], env, tmp)
                    if run.rows != k or _output_rows(out) != k:
                        raise RuntimeError(f"{route}: {run.rows} rows, not {k}")
                    if (route, k) not in best or run.wall < best[(route, k)].wall:
                        best[(route, k)] = run
                    outs[route] = out
                    print(
                        f"{route:>22} {k:>9,}: {run.wall:8.2f} s, {run.cpu:8.2f} CPU-s",
                        file=sys.stderr,
                    )
        # Dask writes records as they arrive: the same records, maybe in another order
        texts = [sorted(_records_by_row(p).items()) for p in outs.values()]
        if texts[0] != texts[1]:
            raise RuntimeError("--scheduler gives other records than --workers")
    table = []
    procs = f"--workers {w}"
    marginal = {}
    for route in routes:
        big, few = best[(route, n)], best[(route, small)]
        marginal[route] = (n - small) / (big.wall - few.wall)
    for route in routes:
        big, few = best[(route, n)], best[(route, small)]
        table.append(
            {
                "route": f"xpg explain {route}",
                "rows": n,
                "seconds": round(big.wall, 2),
                "run_s": round(big.run, 2),
                "cpu_s": round(big.cpu, 2),
                "rows_per_s": round(n / big.wall, 1),
                "rows_per_cpu_s": round(n / big.cpu, 1),
                "fixed_s": round(few.wall - small * (big.wall - few.wall) / (n - small), 2),
                "marginal_rows_per_s": round(marginal[route], 1),
                "vs_processes": round(best[(procs, n)].wall / big.wall, 3),
                "marginal_vs_processes": round(marginal[route] / marginal[procs], 3),
            }
        )
    dask_row = table[-1]

    def met(x: float) -> str:
        return "met" if x >= DASK_TARGET else "NOT met"

    notes = [
        _machine_note(args.repeat, load),
        f"`xpg explain MODEL --data ROWS.csv -o OUT.jsonl --kinds axp,cxp`, the depth-6 adult "
        f"tree ({len(model.dg)} nodes), {n:,} rows resampled from adult; `cpu_s` of the Dask "
        "route is the client's alone (its workers are the fork server's children)",
        f"`fixed_s`: the time a run takes beyond its rows (start-up, the cluster's start and "
        f"stop), from the same command on {small:,} rows; `marginal_rows_per_s`: "
        f"(rows - {small:,}) / (seconds - seconds on {small:,} rows): the rate without them",
        f"target: Dask local:{w} >= {DASK_TARGET}x {w} local processes: "
        f"{dask_row['vs_processes']}x whole runs ({met(dask_row['vs_processes'])}), "
        f"{dask_row['marginal_vs_processes']}x without start-up "
        f"({met(dask_row['marginal_vs_processes'])})",
    ]
    title = f"Batch explanation: Dask local:{w} against {w} local processes"
    return _write_part(folder, "batch_speed_dask", title, table, DASK_COLUMNS, notes)


def model_path_model(path: Path) -> Any:
    """The model of a model file (as ``xpg explain`` reads it)."""
    from xpg.io.model_json import read_model

    return read_model(str(path))


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
    parser.add_argument(
        "--part",
        choices=("routes", "cells", "memory", "spread", "dask"),
        default="routes",
        help="what to measure",
    )
    parser.add_argument(
        "--cells-rows", type=int, default=1_000_000, help="rows of each --part cells case"
    )
    parser.add_argument(
        "--before-rows", type=int, default=20_000, help="--part cells: rows without the cache"
    )
    parser.add_argument(
        "--cli-rows", type=int, help="--part cells: rows given to xpg explain (default all)"
    )
    parser.add_argument(
        "--memory-rows",
        default="100000,1000000",
        help="--part memory: the numbers of rows compared (comma-separated)",
    )
    parser.add_argument(
        "--spread-rows", type=int, default=60, help="--part spread: rows of the forest"
    )
    parser.add_argument(
        "--dask-rows", type=int, default=200_000, help="--part dask: rows explained"
    )
    parser.add_argument(
        "--dask-small-rows",
        type=int,
        default=10_000,
        help="--part dask: rows of the runs that measure start-up",
    )
    args = parser.parse_args(argv)
    parts = {"cells": cells_part, "memory": memory_part, "spread": spread_part, "dask": dask_part}
    if args.part in parts:
        return parts[args.part](args, out_dir(args.out))
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
