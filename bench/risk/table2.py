"""Rebuild the paper's Table 2: dataset statistics, r-separation and linear separation.

Usage: ``python -m bench.risk.table2 [--quick] [--datasets a,b] [--data-dir D] [--out DIR]``
(or ``xpg bench separation ...``).

Per dataset (features scaled to [0, 1], :mod:`bench.risk.data`): rows, features, binary
features, share of the positive label; r-separateness at ``r = 1e-5`` (the paper: "r >=
1e-5"), exactly (:func:`xpg.learn.r_separation`: a minimum vertex cover of the conflict graph)
and ``2r``, the least l-infinity distance between differently labelled points that remain;
linear separateness (:func:`xpg.learn.linear_separateness`: l1-regularised linear SVMs over
``C = 1e-10, ..., 1e10``, the lowest training error) and the l1 margin ``gamma`` of the points
that SVM classifies correctly.  The paper's values are beside ours.  ``--quick``: breastcancer
and heart.  Writes ``risk_table2.csv`` and ``risk_table2.md``.

Examples
--------
>>> row = measure("heart")
>>> row["samples"], row["features"], row["sep_r"]
(270, 20, 1.0)
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from typing import Any

from bench.risk.data import DATASETS, MISSING, QUICK, load
from bench.risk.paper import TABLE2
from bench.tables import RESULTS_DIR, csv_text, out_dir, write_outputs

R = 1e-5
COLUMNS = [
    "dataset",
    "samples",
    "features",
    "binary",
    "positive",
    "sep_r",
    "two_r",
    "sep_linear",
    "gamma",
    "seconds",
]


def measure(name: str, data_dir: str | None = None) -> dict[str, Any]:
    """One dataset's row of Table 2."""
    from xpg.learn.separation import linear_separateness, r_separation

    start = time.perf_counter()
    data = load(name, data_dir)
    rsep = r_separation(data.X, data.y, R)
    lin = linear_separateness(data.X, data.y)
    return {
        "dataset": name,
        "samples": len(data.y),
        "features": data.X.shape[1],
        "binary": data.binary,
        "positive": round(float(data.y.mean()), 2),
        "sep_r": round(rsep.separateness, 4),
        "two_r": float(f"{rsep.separation:.3g}"),
        "sep_linear": round(lin.separateness, 4),
        "gamma": float(f"{lin.gamma:.3g}"),
        "seconds": round(time.perf_counter() - start, 1),
    }


def markdown(rows: list[dict[str, Any]]) -> str:
    """Table 2 as Markdown, each cell ``ours / paper``."""
    cols = COLUMNS[1:-1]
    lines = [
        "# Table 2: dataset statistics and separation (ours / paper)",
        "",
        f"r-separateness at r = {R}; not available here: {', '.join(MISSING)}.",
        "",
        "| dataset | " + " | ".join(cols) + " | seconds |",
        "|---" * (len(cols) + 2) + "|",
    ]
    for r in rows:
        paper = TABLE2.get(r["dataset"], {})
        cells = [f"{r[c]} / {paper[c]}" if c in paper else str(r[c]) for c in cols]
        lines.append(f"| {r['dataset']} | " + " | ".join(cells) + f" | {r['seconds']} |")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Run Table 2 (``argv`` as on the command line)."""
    p = argparse.ArgumentParser(prog="python -m bench.risk.table2", description=__doc__)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--datasets", help="comma-separated names (default: all 11)")
    p.add_argument("--data-dir")
    p.add_argument("--out", default=str(RESULTS_DIR), help="output folder (default %(default)s)")
    args = p.parse_args(argv)
    names = args.datasets.split(",") if args.datasets else list(QUICK if args.quick else DATASETS)
    unknown = [n for n in names if n not in DATASETS]
    if unknown:
        print(f"unknown dataset: {', '.join(unknown)}", file=sys.stderr)
        return 2
    rows = []
    for name in names:
        rows.append(measure(name, args.data_dir))
        print(f"[separation] {rows[-1]}", file=sys.stderr, flush=True)
    write_outputs(
        out_dir(args.out), "risk_table2", {".csv": csv_text(rows, COLUMNS), ".md": markdown(rows)}
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
