"""Rebuild the paper's Table 3: IC, test accuracy and exact ER of DT, RobDT, LCPA and BBM-RS.

Usage: ``python -m bench.risk.table3 [--quick] [--datasets a,b] [--methods DT,BBM-RS]
[--splits 10] [--baseline-splits N] [--points 100] [--data-dir D] [--out DIR]`` (or ``xpg bench
risk ...``).

Protocol (Sec. 6.2 and Appendix B; the learners in :mod:`bench.risk.baselines`): features
scaled to [0, 1]; for each split ``s`` a stratified 2:1 train/test split seeded with ``s``;
hyperparameters by 5-fold cross-validation on accuracy over 5, 10, ..., 30; IC = internal
nodes of a tree, conditions with non-zero points of a risk score (BBM-RS's distinct weak
learners, the paper's count, beside it in ``ic_learners``); test accuracy of the xpg
model; ER = mean exact l-infinity robustness (:func:`xpg.robustness`, not an
attack) over 100 correctly classified test rows drawn with seed ``s`` (``inf`` for a constant
model; counted as 1 in the summary, see :func:`summarise`).  Per dataset and method,
the mean and standard error over the splits, beside the paper's.  ``--baseline-splits`` runs
GROOT and FasterRisk (minutes per split) on the first N splits only.  ``--quick``: breastcancer
and heart, 2 splits, DT and BBM-RS, a grid of (5, 15).

Writes ``risk_table3.csv`` (one row per dataset, method and split), ``risk_table3_summary.csv``
and ``risk_table3.md`` (after each dataset and method, so a long run can be stopped);
``--combine A.csv,B.csv`` merges the rows of separate runs (e.g. the fast learners on every
split, the slow baselines on a few) into one table.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from bench.risk import baselines
from bench.risk.data import DATASETS, MISSING, QUICK, load
from bench.risk.paper import TABLE3
from bench.tables import RESULTS_DIR, csv_text, out_dir, write_outputs

COLUMNS = [
    "dataset",
    "method",
    "split",
    "param",
    "ic",
    "ic_learners",
    "accuracy",
    "er",
    "er_points",
    "agrees",
    "seconds",
]
SUMMARY = [
    "dataset",
    "method",
    "splits",
    "constant",
    "ic",
    "ic_se",
    "ic_learners",
    "ic_learners_se",
    "accuracy",
    "accuracy_se",
    "er",
    "er_se",
    "paper_ic",
    "paper_accuracy",
    "paper_er",
]


def exact_er(model: Any, X: np.ndarray, y: np.ndarray, points: int, seed: int) -> float:
    """Mean exact robustness over ``points`` correctly classified rows drawn with ``seed``."""
    from xpg.explain.exact_robustness import robustness

    graph = model.to_decision_graph()
    correct = np.flatnonzero(model.predict_batch(X) == y)
    if len(correct) == 0:
        return float("nan")
    rng = np.random.RandomState(seed)
    picked = rng.choice(correct, size=min(points, len(correct)), replace=False)
    return float(np.mean([robustness(graph, X[i].tolist()).distance for i in picked]))


def split(y: np.ndarray, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The 2:1 train/test split of seed ``seed`` (stratified)."""
    from sklearn.model_selection import train_test_split

    rows = np.arange(len(y))
    train, test = train_test_split(rows, test_size=1 / 3, random_state=seed, stratify=y)
    return np.sort(train), np.sort(test)


def run_one(method: str, data: Any, s: int, grid: Sequence[int], points: int) -> dict[str, Any]:
    """One method on one split: the row of ``risk_table3.csv``."""
    train, test = split(data.y, s)
    X, y = data.X[train], data.y[train]
    start = time.perf_counter()
    if method == "DT":
        fitted = baselines.fit_dt(X, y, data.features, grid, s)
    elif method == "BBM-RS":
        fitted = baselines.fit_bbm(X, y, data.features, grid, s)
    elif method == "RobDT":
        fitted = baselines.fit_robdt(X, y, data.features, grid, s, data.X[test])
    else:
        fitted = baselines.fit_lcpa(X, y, data.features, grid, s, data.X[test])
    accuracy = float(np.mean(fitted.model.predict_batch(data.X[test]) == data.y[test]))
    er = exact_er(fitted.model, data.X[test], data.y[test], points, s)
    return {
        "dataset": data.name,
        "method": method,
        "split": s,
        "param": fitted.param,
        "ic": fitted.ic,
        "ic_learners": "" if fitted.learners is None else fitted.learners,
        "accuracy": round(accuracy, 4),
        "er": round(er, 4),
        "er_points": min(points, len(test)),
        "agrees": "" if fitted.agrees is None else fitted.agrees,
        "seconds": round(time.perf_counter() - start, 2),
    }


def summarise(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Mean and standard error per dataset and method, with the paper's means.

    A constant model (a risk score with no condition) has infinite robustness: no input has
    another class; in the summary its ER counts as 1, the l-infinity diameter of the
    normalised domain [0, 1]^d, and ``constant`` says how many models of the row were so.
    """
    out = []
    keys = dict.fromkeys((r["dataset"], r["method"]) for r in rows)
    for name, method in keys:
        mine = [r for r in rows if r["dataset"] == name and r["method"] == method]
        row: dict[str, Any] = {"dataset": name, "method": method, "splits": len(mine)}
        er = np.array([float(r["er"]) for r in mine])
        row["constant"] = int(np.isinf(er).sum())
        for col in ("ic", "ic_learners", "accuracy", "er"):
            if any(r.get(col) in (None, "") for r in mine):  # ic_learners: BBM-RS only
                row[col], row[f"{col}_se"] = "", ""
                continue
            values = np.array([float(r[col]) for r in mine])
            if col == "er":  # a constant model: no other class in [0, 1]^d, of diameter 1
                values = np.minimum(values, 1.0)
            se = values.std(ddof=1) / np.sqrt(len(values)) if len(values) > 1 else float("nan")
            row[col], row[f"{col}_se"] = round(float(values.mean()), 4), round(float(se), 4)
        paper = TABLE3.get(name, {}).get(method)
        row["paper_ic"], row["paper_accuracy"], row["paper_er"] = (
            (paper[0], paper[2], paper[4]) if paper else ("", "", "")
        )
        out.append(row)
    return out


def markdown(summary: list[dict[str, Any]], note: str) -> str:
    """Table 3 as Markdown: ours (mean ± se) / the paper's, per criterion and method; for
    BBM-RS also its IC counted as the paper counts it (distinct weak learners)."""
    methods = [m for m in baselines.METHODS if any(r["method"] == m for r in summary)]
    # (column, method, heading): the learners' count beside BBM-RS's IC when measured
    columns = [("ic", m, f"IC {m}") for m in methods]
    if any(r["method"] == "BBM-RS" and r.get("ic_learners") != "" for r in summary):
        columns.append(("ic_learners", "BBM-RS", "IC BBM-RS, paper's count"))
    columns += [("accuracy", m, f"acc {m}") for m in methods]
    columns += [("er", m, f"ER {m}") for m in methods]
    lines = [
        "# Table 3: IC, test accuracy and exact ER (ours ± se / paper)",
        "",
        note,
        "",
        "| dataset | " + " | ".join(head for _, _, head in columns) + " |",
        "|---" * (1 + len(columns)) + "|",
    ]
    for name in dict.fromkeys(r["dataset"] for r in summary):
        cells = []
        for col, m, _ in columns:
            fmt = "{:.1f}" if col.startswith("ic") else "{:.2f}"
            r = next((r for r in summary if r["dataset"] == name and r["method"] == m), None)
            if r is None or r[col] == "":
                cells.append("-")
                continue
            se = "" if np.isnan(r[f"{col}_se"]) else " ± " + fmt.format(r[f"{col}_se"])
            paper = r["paper_ic" if col == "ic_learners" else f"paper_{col}"]
            ref = "" if paper == "" else " / " + fmt.format(paper)
            cells.append(fmt.format(r[col]) + se + ref)
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def write_table(folder: Any, stem: str, rows: list[dict[str, Any]]) -> None:
    """The three output files of ``rows``."""
    summary = summarise(rows)
    note = (
        f"Datasets run: {', '.join(dict.fromkeys(r['dataset'] for r in rows))} "
        f"(not available: {', '.join(MISSING)}); splits per method: "
        + ", ".join(f"{r['dataset']}/{r['method']} {r['splits']}" for r in summary)
        + ". Constant models (no other class anywhere: ER infinite, counted as 1): "
        + (
            ", ".join(
                f"{r['dataset']}/{r['method']} {r['constant']}" for r in summary if r["constant"]
            )
            or "none"
        )
        + "."
    )
    write_outputs(folder, stem, {".csv": csv_text(rows, COLUMNS), ".md": markdown(summary, note)})
    write_outputs(folder, stem + "_summary", {".csv": csv_text(summary, SUMMARY)})


def combine(paths: Sequence[str], folder: Any, stem: str) -> int:
    """Merge earlier runs' ``risk_table3*.csv`` rows (datasets in the paper's order)."""
    import csv

    rows: list[dict[str, Any]] = []
    for path in paths:
        with open(path, newline="", encoding="utf-8") as fh:
            rows.extend(csv.DictReader(fh))
    order = {name: k for k, name in enumerate(DATASETS)}
    method_order = {m: k for k, m in enumerate(baselines.METHODS)}
    rows.sort(key=lambda r: (order[r["dataset"]], method_order[r["method"]], int(r["split"])))
    write_table(folder, stem, rows)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run Table 3 (``argv`` as on the command line)."""
    p = argparse.ArgumentParser(prog="python -m bench.risk.table3", description=__doc__)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--datasets", help="comma-separated names (default: all 11)")
    p.add_argument("--methods", help="comma-separated, of " + ",".join(baselines.METHODS))
    p.add_argument("--splits", type=int, default=10)
    p.add_argument("--first-split", type=int, default=0, help="start at this split")
    p.add_argument("--baseline-splits", type=int, help="GROOT and FasterRisk on N splits only")
    p.add_argument("--points", type=int, default=100, help="ER rows per model (default 100)")
    p.add_argument(
        "--lcpa-grid", help="FasterRisk's l0 grid, comma-separated (default: the paper's)"
    )
    p.add_argument("--data-dir")
    p.add_argument("--out", default=str(RESULTS_DIR), help="output folder (default %(default)s)")
    p.add_argument("--stem", default="risk_table3", help="output file names' stem")
    p.add_argument(
        "--combine",
        metavar="A.csv,B.csv",
        help="run nothing: merge the rows of earlier runs' CSV files into one table",
    )
    args = p.parse_args(argv)
    if args.combine:
        return combine(args.combine.split(","), out_dir(args.out), args.stem)
    names = list(QUICK) if args.quick else list(DATASETS)
    methods = ["DT", "BBM-RS"] if args.quick else list(baselines.METHODS)
    splits = 2 if args.quick else args.splits
    grid: Sequence[int] = (5, 15) if args.quick else baselines.GRID
    if args.datasets:
        names = args.datasets.split(",")
    if args.methods:
        methods = args.methods.split(",")
    unknown = [n for n in names if n not in DATASETS] + [
        m for m in methods if m not in baselines.METHODS
    ]
    if unknown:
        print(f"unknown dataset or method: {', '.join(unknown)}", file=sys.stderr)
        return 2
    rows: list[dict[str, Any]] = []
    folder = out_dir(args.out)
    for name in names:
        data = load(name, args.data_dir)
        for method in methods:
            n = splits
            if method in ("RobDT", "LCPA") and args.baseline_splits is not None:
                n = min(n, args.baseline_splits)
            method_grid = grid
            if method == "LCPA" and args.lcpa_grid:
                method_grid = [int(k) for k in args.lcpa_grid.split(",")]
            for s in range(args.first_split, n):
                row = run_one(method, data, s, method_grid, args.points)
                rows.append(row)
                print(
                    f"[risk] {name} {method} split {s}: T/depth/k={row['param']} "
                    f"IC={row['ic']} acc={row['accuracy']} ER={row['er']} "
                    f"({row['seconds']} s)",
                    file=sys.stderr,
                    flush=True,
                )
            write_table(folder, args.stem, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
