"""xpg against the reference implementation (PyPI ``XpGraph``) on the same ``.xpg`` files.

Usage: ``python -m bench.peers_compare [--quick] [--tables 1,2] [--datasets a,b]
[--max-instances N] [--timeout S] [--ours-only] [--data-dir D] [--out DIR]``.

For every dataset of Tables 1 and 2 the paper's model is trained (:mod:`bench.models`), the
explanation graphs of the tested instances are exported as ``.xpg`` files, and both tools
enumerate every AXp and CXp of each file. Both are timed in-process, without interpreter
start-up or file loading: for the reference ``MarcoXpG(g).enum()`` after
``XpGraph.from_file`` (which builds its networkx graph), in each of its two AXp modes (graph
traversal, its command line's default, and Horn encoding, its library's default), keeping
the faster; for xpg ``enumerate_explanations(xg)`` after ``read_xpg`` and the adjacency
lists are built. Both sides are timed the same way (:func:`bench.runners.timing.cpu_time`:
CPU time, best of 3 loops, garbage collector off). The explanation sets must be identical; a
graph that shows a difference is copied to ``<out>/peers_mismatches/``. The reference's
standalone CXp extractor has a known bug (its initial set is not a weak CXp); its
enumeration path, compared here, does not use it.

Writes ``peers.csv`` (one row per graph), ``peers_summary.csv`` (per dataset: median time
ratio, total time ratio, mismatches) and ``peers.md``.  ``--ours-only`` skips the reference
(no network needed) and checks xpg alone.

References
----------
Huang, Izza, Ignatiev, Marques-Silva. On Efficiently Explaining Graph-Based Classifiers.
KR 2021; reference implementation https://github.com/yizza91/xpg (PyPI XpGraph 0.0.1).
"""

from __future__ import annotations

import shutil
import statistics
import sys
import tempfile
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any

from bench.data import TABLE1, TABLE2, instance, load_dataset
from bench.models import train_obdd, train_tree
from bench.peers import PEERS, ensure_venv, is_ready, run_runner
from bench.runners.timing import cpu_time
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
    "median_ratio",
    "total_ratio",
    "ref_timeouts",
    "mismatches",
]


def as_sets(lists: Sequence[Sequence[str]]) -> Sets:
    """A list of explanations as a set of sets (order-free comparison)."""
    return frozenset(frozenset(x) for x in lists)


def time_ours(path: Path) -> tuple[float, Sets, Sets]:
    """CPU time of xpg's enumeration of one ``.xpg`` file (``cpu_time``), and its results."""
    xg = read_xpg(path)
    xg.adjacency()  # part of loading, as the reference's networkx graph is
    seconds, result = cpu_time(partial(enumerate_explanations, xg))
    return seconds, as_sets(result.axps), as_sets(result.cxps)


def reference_results(
    files: Sequence[Path], timeout: float, modes: Sequence[str]
) -> dict[str, dict[str, dict[str, Any]]]:
    """``{file: {mode: runner result}}`` from the reference's runner."""
    job = {
        "task": "enum",
        "files": [str(f) for f in files],
        "modes": list(modes),
        "timeout": timeout,
    }
    budget = len(files) * len(modes) * (3 * timeout + 5) + 60
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for res in run_runner(PEERS["xpgraph"], job, timeout=budget)["results"]:
        out.setdefault(res["file"], {})[res["mode"]] = res
    return out


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


def summarise(table: str, name: str, rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Per-dataset medians and totals (ratios only over graphs the reference finished)."""
    done = [r for r in rows if r["ref_status"] == "ok"]
    ratios = [r["ratio"] for r in done]
    ref_times = [
        min(float(r[k]) for k in ("ref_traverse_s", "ref_horn_s") if _is_number(r[k])) for r in done
    ]
    ours_done = [r["ours_s"] for r in done]
    return {
        "table": table,
        "dataset": name,
        "graphs": len(rows),
        "ours_median_s": round(statistics.median([r["ours_s"] for r in rows]), 7),
        "ref_median_s": round(statistics.median(ref_times), 7) if ref_times else "",
        "median_ratio": round(statistics.median(ratios), 2) if ratios else "",
        "total_ratio": round(sum(ref_times) / sum(ours_done), 2) if done else "",
        "ref_timeouts": sum(r["ref_status"] == "timeout" for r in rows),
        "mismatches": sum(r["identical"] is False for r in rows),
    }


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def markdown(summary: Sequence[dict[str, Any]], rows: Sequence[dict[str, Any]]) -> str:
    """The per-dataset table and the overall medians."""
    lines = [
        "### xpg vs the reference implementation (PyPI XpGraph 0.0.1), full enumeration",
        "",
        "| Table | Dataset | graphs | xpg median (ms) | reference median (ms) | median ratio "
        "| total ratio | ref. timeouts | mismatches |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for s in summary:

        def ms(x: Any) -> str:
            return f"{1000 * x:.3f}" if _is_number(x) else "-"

        lines.append(
            f"| {s['table']} | {s['dataset']} | {s['graphs']} | {ms(s['ours_median_s'])} | "
            f"{ms(s['ref_median_s'])} | {s['median_ratio'] or '-'} | {s['total_ratio'] or '-'} "
            f"| {s['ref_timeouts']} | {s['mismatches']} |"
        )
    lines.append("")
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
    args = parser.parse_args(argv)
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
        for name in names:
            tag = pool[name]
            ds = load_dataset(name, args.data_dir, seed=args.seed)
            model = (train_obdd if tag == "1" else train_tree)(ds, args.seed)
            files: list[tuple[int, Path, ExplanationGraph]] = []
            for row in pick_rows(ds, limit, args.seed):
                xg = ExplanationGraph.from_decision_graph(model.dg, instance(ds, row))
                path = Path(tmp) / f"{name}_{row}.xpg"
                write_xpg(xg, path)
                files.append((row, path, xg))
            ref = (
                None
                if args.ours_only
                else reference_results(
                    [p for _, p, _ in files], args.timeout, args.modes.split(",")
                )
            )
            ds_rows = []
            for row, path, xg in progress(files, name, not args.no_progress):
                res = compare_graph(path, time_ours(path), None if ref is None else ref[str(path)])
                res.update(
                    table=tag, dataset=name, row=row, nodes=xg.n_nodes, edges=len(xg.edge_src)
                )
                if res["identical"] is False:
                    mismatch_dir.mkdir(exist_ok=True)
                    shutil.copy(path, mismatch_dir / path.name)
                ds_rows.append(res)
            rows += ds_rows
            summary.append(summarise(tag, name, ds_rows))
            s = summary[-1]
            print(
                f"{name}: {len(ds_rows)} graphs, median ratio {s['median_ratio'] or '-'}, "
                f"mismatches {s['mismatches']}",
                file=sys.stderr,
            )
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
