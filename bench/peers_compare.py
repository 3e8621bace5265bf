"""xpg against the reference implementation (PyPI ``XpGraph``) on the same ``.xpg`` files.

Usage: ``python -m bench.peers_compare [--quick] [--runs R] [--tables 1,2] [--datasets a,b]
[--max-instances N] [--timeout S] [--ours-only] [--data-dir D] [--out DIR]``.

For every dataset of Tables 1 and 2 the paper's model is trained (:mod:`bench.models`), the
explanation graphs of the tested instances are exported as ``.xpg`` files, and both tools
enumerate every AXp and CXp of each file. Both are timed in-process, without interpreter
start-up or file loading: for the reference ``MarcoXpG(g).enum()`` after
``XpGraph.from_file`` (which builds its networkx graph), in each of its two AXp modes (graph
traversal, its command line's default, and Horn encoding, its library's default), keeping
the faster; for xpg ``enumerate_explanations(xg)`` after ``read_xpg`` and the adjacency
lists are built. Both sides are timed the same way (:mod:`bench.runners.timing`, the protocol
of every peer comparison): CPU time of each process, the reference in a long-lived runner in
its own environment and xpg here, taking turns on each graph: a first call of each side and
mode (not measured; the reference's under the ``--timeout`` CPU limit), then three rounds
each measuring xpg and the reference's modes once (a loop of about 5 ms, collector off), in
an order that rotates between rounds and graphs; each keeps its best. The speed-up of a
graph is the reference's time over xpg's; the whole comparison is run ``--runs`` times
(default 3). The explanation sets must be identical; a graph that shows a difference is
copied to ``<out>/peers_mismatches/``. The reference's standalone CXp extractor has a known
bug (its initial set is not a weak CXp); its enumeration path, compared here, does not use it.

Writes ``peers.csv`` (one row per graph: best times over runs, median speed-up over runs),
``peers_summary.csv`` (per dataset: the median speed-up over graphs, its minimum and median
over runs, the total time ratio, mismatches) and ``peers.md``.  ``--ours-only`` skips the
reference (no network needed) and checks xpg alone.

References
----------
Huang, Izza, Ignatiev, Marques-Silva. On Efficiently Explaining Graph-Based Classifiers.
KR 2021; reference implementation https://github.com/yizza91/xpg (PyPI XpGraph 0.0.1).
"""

from __future__ import annotations

import math
import shutil
import statistics
import sys
import tempfile
from collections.abc import Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any, Protocol

from bench.data import TABLE1, TABLE2, instance, load_dataset
from bench.models import train_obdd, train_tree
from bench.peers import PEERS, RunnerSession, ensure_venv, is_ready
from bench.runners.timing import ROUNDS, calibrate, interleave, measure, over_runs
from bench.tables import (
    base_parser,
    chosen,
    csv_text,
    out_dir,
    pick_rows,
    progress,
    write_outputs,
)
from xpg.core.xpgraph import ExplanationGraph
from xpg.explain.marco import enumerate_explanations
from xpg.io import read_xpg, write_xpg

Sets = frozenset[frozenset[str]]

ROW_COLUMNS = [
    "table",
    "dataset",
    "row",
    "nodes",
    "edges",
    "n_axps",
    "n_cxps",
    "ours_s",
    "ref_traverse_s",
    "ref_horn_s",
    "ref_status",
    "ratio",
    "identical",
]
SUMMARY_COLUMNS = [
    "table",
    "dataset",
    "graphs",
    "ours_median_s",
    "ref_median_s",
    "runs",
    "median_ratio",
    "median_ratio_min",
    "median_ratio_median",
    "total_ratio",
    "ref_timeouts",
    "mismatches",
]


def as_sets(lists: Sequence[Sequence[str]]) -> Sets:
    """A list of explanations as a set of sets (order-free comparison)."""
    return frozenset(frozenset(x) for x in lists)


class Reference(Protocol):
    """The reference's side of a comparison, one graph at a time."""

    def first(self, path: Path) -> dict[str, dict[str, Any]]:
        """``{mode: result}`` of each mode's first call (``status``, ``seconds``, the sets)."""
        ...

    def measure(self, path: Path, mode: str) -> float:
        """One measurement of ``mode`` on ``path`` (seconds per call; ``inf``: timed out)."""
        ...

    def close(self) -> None:
        """Release the runner."""
        ...


class LiveReference:
    """The reference's runner, kept alive in its environment, serving one request at a time."""

    def __init__(self, timeout: float, modes: Sequence[str]) -> None:
        self.timeout, self.modes = timeout, list(modes)
        self.session = RunnerSession(PEERS["xpgraph"])
        self.wait = 3 * timeout + 60  # wall seconds for one request (CPU limit, load, start)

    def first(self, path: Path) -> dict[str, dict[str, Any]]:
        self.session.request("load", wait=self.wait, file=str(path))
        return {m: self._ask("first", m) for m in self.modes}

    def measure(self, path: Path, mode: str) -> float:
        res = self._ask("measure", mode)
        return float(res["seconds"]) if res["status"] == "ok" else math.inf

    def _ask(self, op: str, mode: str) -> dict[str, Any]:
        return self.session.request(
            op, wait=self.wait, task="enum", mode=mode, timeout=self.timeout
        )

    def close(self) -> None:
        self.session.close()


class RecordedReference:
    """Results the reference gave beforehand, ``{file: {mode: result}}``: each measurement
    replays the recorded seconds (for a batch job's results, or fakes in tests)."""

    def __init__(self, results: Mapping[str, Mapping[str, dict[str, Any]]]) -> None:
        self.results = results

    def first(self, path: Path) -> dict[str, dict[str, Any]]:
        return dict(self.results[str(path)])

    def measure(self, path: Path, mode: str) -> float:
        return float(self.results[str(path)][mode]["seconds"])

    def close(self) -> None:
        pass


def reference_results(files: Sequence[Path], timeout: float, modes: Sequence[str]) -> Reference:
    """The reference's side for ``files``: its runner, started and measured graph by graph.

    ``timeout`` is the CPU limit of each call, ``modes`` the AXp modes (``traverse``,
    ``horn``). Anything that maps each file to ``{mode: result}`` is also accepted by
    :func:`as_reference` (recorded results).
    """
    return LiveReference(timeout, modes)


def as_reference(ref: Reference | Mapping[str, Mapping[str, dict[str, Any]]]) -> Reference:
    """A live reference as it is; recorded results (a mapping) replayed."""
    return RecordedReference(ref) if isinstance(ref, Mapping) else ref


def measure_graph(
    path: Path, ref: Reference | None, rounds: int, index: int
) -> tuple[tuple[float, Sets, Sets], dict[str, dict[str, Any]] | None]:
    """xpg's and the reference's times on one ``.xpg`` file, measured in turn.

    xpg's side: ``enumerate_explanations`` after ``read_xpg`` and the adjacency lists (part
    of loading, as the reference's networkx graph is). Returns ``((seconds, axps, cxps),
    {mode: result})``, each reference mode that finished its first call carrying its best
    measured ``seconds``.
    """
    xg = read_xpg(path)
    xg.adjacency()
    call = partial(enumerate_explanations, xg)
    _, loops, result = calibrate(call)
    firsts = ref.first(path) if ref is not None else None
    ok = [m for m, r in (firsts or {}).items() if r["status"] == "ok"]
    sides = [partial(measure, call, loops)]
    sides += [partial(ref.measure, path, m) for m in ok] if ref is not None else []
    best = interleave(sides, rounds, start=index)
    if firsts is not None:
        for mode, seconds in zip(ok, best[1:]):
            firsts[mode] = {**firsts[mode], "seconds": seconds}
    return (best[0], as_sets(result.axps), as_sets(result.cxps)), firsts


def compare_graph(
    path: Path, ours: tuple[float, Sets, Sets], ref: dict[str, dict[str, Any]] | None
) -> dict[str, Any]:
    """One CSV row: times, the best reference mode, the ratio, and whether the sets agree."""
    seconds, axps, cxps = ours
    row: dict[str, Any] = {
        "n_axps": len(axps),
        "n_cxps": len(cxps),
        "ours_s": round(seconds, 7),
        "ref_traverse_s": "",
        "ref_horn_s": "",
        "ref_status": "skipped",
        "ratio": "",
        "identical": "",
    }
    if ref is None:
        return row
    ok = {m: r for m, r in ref.items() if r["status"] == "ok"}
    for mode, r in ref.items():
        row[f"ref_{mode}_s"] = round(r["seconds"], 7) if r["status"] == "ok" else r["status"]
    if not ok:
        statuses = {r["status"] for r in ref.values()}
        row["ref_status"] = "timeout" if statuses == {"timeout"} else "error"
        if row["ref_status"] == "timeout":
            row["ratio"] = round(min(r["seconds"] for r in ref.values()) / seconds, 2)
        return row
    row["ref_status"] = "ok"
    row["ratio"] = round(min(r["seconds"] for r in ok.values()) / seconds, 2)
    row["identical"] = all(
        as_sets(r["axps"]) == axps and as_sets(r["cxps"]) == cxps for r in ok.values()
    )
    return row


def merge_runs(runs: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """One graph's rows from several runs as one: each side's best time over the runs, the
    median of the runs' speed-ups, identical only if every run was.

    Examples
    --------
    >>> a = {"ours_s": 2.0, "ref_traverse_s": 9.0, "ref_horn_s": "timeout", "ref_status": "ok",
    ...      "ratio": 4.5, "identical": True}
    >>> b = {**a, "ours_s": 1.0, "ref_traverse_s": 8.0, "ratio": 8.0}
    >>> c = {**a, "ratio": 5.0}
    >>> m = merge_runs([a, b, c])
    >>> m["ours_s"], m["ref_traverse_s"], m["ref_horn_s"], m["ratio"], m["identical"]
    (1.0, 8.0, 'timeout', 5.0, True)
    """
    row = dict(runs[0])
    row["ours_s"] = min(r["ours_s"] for r in runs)
    for key in ("ref_traverse_s", "ref_horn_s"):
        numbers = [r[key] for r in runs if _is_number(r[key])]
        row[key] = min(numbers) if numbers else runs[0][key]
    statuses = [r["ref_status"] for r in runs]
    row["ref_status"] = next((st for st in statuses if st != "ok"), "ok")
    ratios = [r["ratio"] for r in runs if _is_number(r["ratio"])]
    row["ratio"] = round(statistics.median(ratios), 2) if ratios else ""
    verdicts = [r["identical"] for r in runs]
    row["identical"] = False if False in verdicts else (True if True in verdicts else "")
    return row


def run_median(rows: Sequence[dict[str, Any]]) -> float | None:
    """A run's median speed-up over the graphs the reference finished (None: none did)."""
    ratios = [r["ratio"] for r in rows if r["ref_status"] == "ok"]
    return statistics.median(ratios) if ratios else None


def summarise(
    table: str, name: str, rows: Sequence[dict[str, Any]], per_run: Sequence[float | None] = ()
) -> dict[str, Any]:
    """Per-dataset medians and totals (ratios only over graphs the reference finished).

    ``rows`` are the merged rows (:func:`merge_runs`); ``per_run`` each run's median
    speed-up (:func:`run_median`), whose minimum and median over the runs are reported
    (``median_ratio`` is that median; with no runs given, the median over ``rows``).
    """
    done = [r for r in rows if r["ref_status"] == "ok"]
    ratios = [r["ratio"] for r in done]
    ref_times = [
        min(float(r[k]) for k in ("ref_traverse_s", "ref_horn_s") if _is_number(r[k])) for r in done
    ]
    ours_done = [r["ours_s"] for r in done]
    medians = [m for m in per_run if m is not None]
    spread = over_runs(medians) if medians else None
    median = spread["median"] if spread else (statistics.median(ratios) if ratios else None)
    return {
        "table": table,
        "dataset": name,
        "graphs": len(rows),
        "runs": len(per_run) or 1,
        "ours_median_s": round(statistics.median([r["ours_s"] for r in rows]), 7),
        "ref_median_s": round(statistics.median(ref_times), 7) if ref_times else "",
        "median_ratio": round(median, 2) if median is not None else "",
        "median_ratio_min": round(spread["min"], 2) if spread else "",
        "median_ratio_median": round(spread["median"], 2) if spread else "",
        "total_ratio": round(sum(ref_times) / sum(ours_done), 2) if done else "",
        "ref_timeouts": sum(r["ref_status"] == "timeout" for r in rows),
        "mismatches": sum(r["identical"] is False for r in rows),
    }


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def spread(s: dict[str, Any]) -> str:
    """A summary's speed-up cell: ``min, median`` over runs."""
    if s["median_ratio_min"] == "":
        return str(s["median_ratio"] or "-")
    return f"{s['median_ratio_min']}, {s['median_ratio_median']}"


def markdown(summary: Sequence[dict[str, Any]], rows: Sequence[dict[str, Any]]) -> str:
    """The per-dataset table and the overall medians."""
    lines = [
        "### xpg vs the reference implementation (PyPI XpGraph 0.0.1), full enumeration",
        "",
        "| Table | Dataset | graphs | xpg median (ms) | reference median (ms) | median speed-up "
        "min, med over runs | total ratio | ref. timeouts | mismatches |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for s in summary:

        def ms(x: Any) -> str:
            return f"{1000 * x:.3f}" if _is_number(x) else "-"

        lines.append(
            f"| {s['table']} | {s['dataset']} | {s['graphs']} | {ms(s['ours_median_s'])} | "
            f"{ms(s['ref_median_s'])} | {spread(s)} | {s['total_ratio'] or '-'} "
            f"| {s['ref_timeouts']} | {s['mismatches']} |"
        )
    runs = summary[0]["runs"] if summary else 1
    lines += [
        "",
        f"Times: CPU time of one enumeration, best of 3 measurements (xpg and the reference "
        f"measured in turn on each graph) and of {runs} run(s); median over graphs. Speed-up: "
        "the reference's time over xpg's per graph, median over graphs, min and median over "
        "runs.",
        "",
    ]
    for table in sorted({s["table"] for s in summary}):
        ratios = [r["ratio"] for r in rows if r["table"] == table and r["ref_status"] == "ok"]
        per_ds = [
            s["median_ratio"] for s in summary if s["table"] == table and s["median_ratio"] != ""
        ]
        if ratios:
            lines.append(
                f"Table {table}: median speed-up over all {len(ratios)} graphs "
                f"{statistics.median(ratios):.1f}x; median of the per-dataset medians "
                f"{statistics.median(per_ds):.1f}x."
            )
    compared = [r for r in rows if r["identical"] != ""]
    same = sum(r["identical"] is True for r in compared)
    lines.append(f"Identical explanation sets: {same} of {len(compared)} compared graphs.")
    return "\n".join(lines) + "\n"


def export_graphs(
    name: str, tag: str, args: Any, folder: Path, limit: int
) -> list[tuple[int, Path, ExplanationGraph]]:
    """Train the dataset's model and write the tested instances' explanation graphs."""
    ds = load_dataset(name, args.data_dir, seed=args.seed)
    model = (train_obdd if tag == "1" else train_tree)(ds, args.seed)
    files = []
    for row in pick_rows(ds, limit, args.seed):
        xg = ExplanationGraph.from_decision_graph(model.dg, instance(ds, row))
        path = folder / f"{name}_{row}.xpg"
        write_xpg(xg, path)
        files.append((row, path, xg))
    return files


def measure_dataset(
    name: str, tag: str, files: list[tuple[int, Path, ExplanationGraph]], args: Any, run: int
) -> list[dict[str, Any]]:
    """One run over a dataset's graphs: a row per graph (:func:`compare_graph`)."""
    ref = (
        None
        if args.ours_only
        else as_reference(
            reference_results([p for _, p, _ in files], args.timeout, args.modes.split(","))
        )
    )
    rows = []
    try:
        for i, (row, path, xg) in enumerate(progress(files, name, not args.no_progress)):
            res = compare_graph(path, *measure_graph(path, ref, args.rounds, i))
            res.update(table=tag, dataset=name, row=row, nodes=xg.n_nodes, edges=len(xg.edge_src))
            rows.append(res)
    finally:
        if ref is not None:
            ref.close()
    med = run_median(rows)
    print(
        f"run {run + 1}/{args.runs} {name}: {len(rows)} graphs, median speed-up "
        f"{'-' if med is None else f'{med:.2f}'}, mismatches "
        f"{sum(r['identical'] is False for r in rows)}",
        file=sys.stderr,
    )
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    """Run the comparison (``argv`` as on the command line)."""
    parser = base_parser(
        "python -m bench.peers_compare", "xpg vs the reference XpGraph on the same .xpg files."
    )
    parser.add_argument("--tables", default="1,2", help="which tables' models (default 1,2)")
    parser.add_argument(
        "--timeout", type=float, default=60.0, help="per-run limit for the reference (s)"
    )
    parser.add_argument("--modes", default="traverse,horn", help="reference AXp modes")
    parser.add_argument("--ours-only", action="store_true", help="skip the reference")
    parser.add_argument("--runs", type=int, default=3, help="whole runs (default 3)")
    parser.add_argument("--rounds", type=int, default=ROUNDS, help="measurements per side")
    args = parser.parse_args(argv)
    if args.ours_only:
        args.runs = 1  # nothing to compare: one run checks xpg
    tables = [t.strip() for t in args.tables.split(",") if t.strip()]
    known = {"1": TABLE1, "2": TABLE2}
    pool = {name: t for t in tables for name in known[t]}  # dataset -> "1" or "2"
    names = chosen(args.datasets, pool)
    limit = args.max_instances if args.max_instances is not None else (5 if args.quick else 100)
    if not args.ours_only and not is_ready(PEERS["xpgraph"]):
        ensure_venv(PEERS["xpgraph"])
    folder = out_dir(args.out)
    mismatch_dir = folder / "peers_mismatches"
    rows: list[dict[str, Any]] = []
    summary: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="xpg-peers-") as tmp:
        graphs = [(pool[n], n, export_graphs(n, pool[n], args, Path(tmp), limit)) for n in names]
        by_run = [
            [measure_dataset(name, tag, files, args, run) for tag, name, files in graphs]
            for run in range(args.runs)
        ]
        for i, (tag, name, files) in enumerate(graphs):
            runs = [run[i] for run in by_run]
            ds_rows = [merge_runs(list(g)) for g in zip(*runs)]
            for (_, path, _), res in zip(files, ds_rows):
                if res["identical"] is False:
                    mismatch_dir.mkdir(exist_ok=True)
                    shutil.copy(path, mismatch_dir / path.name)
            rows += ds_rows
            per_run = [run_median(r) for r in runs] if not args.ours_only else []
            summary.append(summarise(tag, name, ds_rows, per_run))
    md = markdown(summary, rows)
    if args.ours_only:
        md += "\nReference skipped (--ours-only): xpg timings only.\n"
    paths = write_outputs(
        folder,
        "peers",
        {
            ".csv": csv_text(rows, ROW_COLUMNS),
            "_summary.csv": csv_text(summary, SUMMARY_COLUMNS),
            ".md": md,
        },
    )
    print(md)
    for p in paths:
        print(f"wrote {p}")
    return 1 if any(r["identical"] is False for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
