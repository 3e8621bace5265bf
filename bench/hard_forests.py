"""``xpg bench hard-forests`` (issue 32): one AXp on every training row of 100-tree random
forests, the distribution of its CPU time.

The forests: scikit-learn's ``RandomForestClassifier(n_estimators=100, max_depth=D,
random_state=0)`` trained on every row of breast cancer (30 features, 2 classes), wine (13, 3)
and digits (64, 10), the datasets bundled with scikit-learn; ``D`` 6 and 8.  Each row's AXp is
asked of :class:`xpg.Explainer` (its default route) with a budget (``--timeout``, seconds of
wall time); its CPU time (``time.process_time``) is kept, a row past the budget with the CPU
time it took (marked timed out).  The AXps of the first ``--check`` rows are checked: sufficient (no
input of another class with its features fixed) and subset-minimal (freeing any one feature
lets another class in), by a fresh oracle that keeps no state from the search (its bounds,
branch and bound and z3 are each tested against brute force elsewhere; z3 alone on every
question takes minutes per row on these forests).

Writes ``hard_forests.csv`` (one line per row) and ``hard_forests.md`` (per forest: median,
p90, p99 and max CPU seconds, rows over the 2 s target, rows timed out).

Examples
--------
>>> sorted(DATASETS)
['cancer', 'digits', 'wine']
>>> quantiles([1.0, 2.0, 3.0, 4.0])["median"]
2.5
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from bench.tables import RESULTS_DIR, csv_text, out_dir, plain_table, write_outputs

#: dataset name -> scikit-learn loader
DATASETS = {"cancer": "load_breast_cancer", "wine": "load_wine", "digits": "load_digits"}
#: the issue's target: CPU seconds for one AXp, on every row
TARGET_SECONDS = 2.0
COLUMNS = ["dataset", "depth", "row", "cpu_s", "size", "timed_out", "checked"]
SUMMARY_COLUMNS = [
    "dataset",
    "depth",
    "rows",
    "median_s",
    "p90_s",
    "p99_s",
    "max_s",
    "over_target",
    "timed_out",
    "slowest_rows",
]


def quantiles(seconds: Sequence[float]) -> dict[str, float]:
    """Median, p90, p99 and max of ``seconds`` (linear interpolation)."""
    xs = np.asarray(seconds, dtype=float)
    return {
        "median": float(np.quantile(xs, 0.5)),
        "p90": float(np.quantile(xs, 0.9)),
        "p99": float(np.quantile(xs, 0.99)),
        "max": float(xs.max()),
    }


def forest(name: str, depth: int) -> tuple[Any, Any, Any]:
    """The forest of ``name`` at ``depth``, its xpg model and the rows (a DataFrame)."""
    import sklearn.datasets
    from sklearn.ensemble import RandomForestClassifier

    import xpg

    X, y = getattr(sklearn.datasets, DATASETS[name])(return_X_y=True, as_frame=True)
    X.columns = [str(c) for c in X.columns]
    rf = RandomForestClassifier(n_estimators=100, max_depth=depth, random_state=0).fit(X, y)
    return rf, xpg.import_model(rf), X


def checked(model: Any, instance: dict[str, Any], axp: Sequence[str]) -> bool:
    """Whether ``axp`` is sufficient and subset-minimal, by a fresh oracle."""
    import xpg

    with xpg.Explainer(model, route="sat").explain(instance) as decision:
        oracle = decision.oracle
        fixed = [oracle.index(f) for f in axp]
        if oracle.check(fixed) is not None:
            return False
        return all(oracle.check([v for v in fixed if v != u]) is not None for u in fixed)


def run_forest(
    name: str, depth: int, rows: slice, timeout: float, check: int
) -> list[dict[str, Any]]:
    """One line per row: the CPU time of one AXp, its size, whether it timed out, and (for
    the first ``check`` rows) whether it was checked sound."""
    import xpg
    from xpg.explain.decision import QueryTimeout

    _, model, X = forest(name, depth)
    start = time.process_time()
    explainer = xpg.Explainer(model)  # compiled when it fits its budget
    print(f"{name} d{depth}: route {explainer.route}, made in {time.process_time() - start:.1f} "
          "CPU-s", file=sys.stderr, flush=True)  # fmt: skip
    lines = []
    for i, row in enumerate(range(len(X))[rows]):
        instance = X.iloc[row].to_dict()
        start = time.process_time()
        with explainer.explain(instance) as decision:
            try:
                axp: tuple[str, ...] | None = decision.axp(timeout=timeout)
            except QueryTimeout:
                axp = None
        cpu = time.process_time() - start
        ok = "" if axp is None or i >= check else checked(model, instance, axp)
        if ok is False:
            raise RuntimeError(f"{name} depth {depth} row {row}: {axp} is not an AXp")
        lines.append(
            {
                "dataset": name,
                "depth": depth,
                "row": row,
                "cpu_s": round(cpu, 4),
                "size": "" if axp is None else len(axp),
                "timed_out": axp is None,
                "checked": ok,
            }
        )
        print(f"{name} d{depth} row {row}: {cpu:.3f} s{' (timeout)' if axp is None else ''}",
              file=sys.stderr, flush=True)  # fmt: skip
    return lines


def summary(lines: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per forest: the distribution of the rows' CPU seconds."""
    table = []
    for key in dict.fromkeys((line["dataset"], line["depth"]) for line in lines):
        mine = [line for line in lines if (line["dataset"], line["depth"]) == key]
        q = quantiles([line["cpu_s"] for line in mine])
        slowest = sorted(mine, key=lambda line: -line["cpu_s"])[:3]
        table.append(
            {
                "dataset": key[0],
                "depth": key[1],
                "rows": len(mine),
                "median_s": round(q["median"], 3),
                "p90_s": round(q["p90"], 3),
                "p99_s": round(q["p99"], 3),
                "max_s": round(q["max"], 3),
                "over_target": sum(line["cpu_s"] > TARGET_SECONDS for line in mine),
                "timed_out": sum(bool(line["timed_out"]) for line in mine),
                "slowest_rows": " ".join(f"{s['row']} ({s['cpu_s']:.1f})" for s in slowest),
            }
        )
    return table


def markdown(table: Sequence[dict[str, Any]], note: str) -> str:
    title = "## One AXp per training row, 100-tree random forests (CPU seconds)"
    return f"{title}\n\n{plain_table(table, SUMMARY_COLUMNS)}\n{note}\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="xpg bench hard-forests", description=__doc__)
    parser.add_argument("--datasets", default="cancer,wine,digits", help="default: all three")
    parser.add_argument("--depths", default="6,8", help="default 6,8")
    parser.add_argument("--rows", type=int, help="N rows only (default: every row)")
    parser.add_argument("--start", type=int, default=0, help="the first row (0)")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per AXp (60)")
    parser.add_argument("--check", type=int, default=20, help="rows checked per forest (20)")
    parser.add_argument("--quick", action="store_true", help="wine, depth 4, 3 rows (CI)")
    parser.add_argument("--out", default=str(RESULTS_DIR), help="output folder")
    args = parser.parse_args(argv)
    names = [n for n in args.datasets.split(",") if n]
    depths = [int(d) for d in args.depths.split(",") if d]
    if args.quick:
        names, depths, args.rows, args.check = ["wine"], [4], 3, 3
    unknown = [n for n in names if n not in DATASETS]
    if unknown:
        parser.error(
            f"--datasets: unknown {', '.join(unknown)}; expected some of cancer, wine, digits"
        )
    lines: list[dict[str, Any]] = []
    for name in names:
        for depth in depths:
            rows = slice(args.start, None if args.rows is None else args.start + args.rows)
            lines += run_forest(name, depth, rows, args.timeout, args.check)
    table = summary(lines)
    note = (
        f"CPU seconds of `Explainer(model).explain(row).axp(timeout={args.timeout:g})` per row; "
        f"a timed-out row counts at its CPU time; target {TARGET_SECONDS:g} s on every row"
    )
    text = markdown(table, note)
    print(text)
    write_outputs(
        out_dir(args.out),
        "hard_forests",
        {".csv": csv_text(lines, COLUMNS), ".md": text},
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
