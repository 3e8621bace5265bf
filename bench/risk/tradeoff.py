"""Rebuild the paper's Figure 1: BBM-RS's IC, exact ER and accuracy against the noise tau.

Usage: ``python -m bench.risk.tradeoff [--quick] [--datasets spambase] [--taus 0,0.05,...]
[--splits 10] [--data-dir D] [--out DIR]`` (or ``xpg bench risk-tradeoff ...``).

For each dataset (default spambase, the paper's Figure 1) and each tau in 0, 0.05, ..., 0.25
(the authors' grid), the protocol of :mod:`bench.risk.table3` for BBM-RS alone: 2:1 splits,
``T`` by 5-fold cross-validation over 5, 10, ..., 30, IC, test accuracy and the mean exact ER
of 100 correctly classified test rows.  Writes ``risk_tradeoff.csv``, ``risk_tradeoff.md`` and
``risk_tradeoff.png`` (matplotlib: ER against IC, one point per tau, its area the accuracy,
as the paper draws it; the paper's two end points in grey).  ``--quick``: heart, tau 0 and
0.25, 2 splits, a grid of (5, 15).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bench.risk.baselines import GRID, fit_bbm
from bench.risk.data import DATASETS, load
from bench.risk.paper import FIGURE1
from bench.risk.table3 import exact_er, split
from bench.tables import RESULTS_DIR, csv_text, out_dir, write_outputs
from xpg.io.atomic import write_bytes_atomic

TAUS = (0.0, 0.05, 0.1, 0.15, 0.2, 0.25)
COLUMNS = ["dataset", "tau", "splits", "T", "ic", "ic_se", "accuracy", "er", "er_se"]


def measure(
    name: str, tau: float, splits: int, grid: Sequence[int], data_dir: str | None = None
) -> dict[str, Any]:
    """BBM-RS at noise ``tau`` on ``splits`` splits: means and standard errors."""
    data = load(name, data_dir)
    ics, accs, ers, Ts = [], [], [], []
    for s in range(splits):
        train, test = split(data.y, s)
        fitted = fit_bbm(data.X[train], data.y[train], data.features, grid, s, tau=tau)
        ics.append(fitted.ic)
        Ts.append(fitted.param)
        accs.append(float(np.mean(fitted.model.predict_batch(data.X[test]) == data.y[test])))
        ers.append(exact_er(fitted.model, data.X[test], data.y[test], 100, s))

    def se(v: Sequence[float]) -> float:
        return float(np.std(v, ddof=1) / np.sqrt(len(v))) if len(v) > 1 else float("nan")

    return {
        "dataset": name,
        "tau": tau,
        "splits": splits,
        "T": round(float(np.mean(Ts)), 1),
        "ic": round(float(np.mean(ics)), 2),
        "ic_se": round(se(ics), 2),
        "accuracy": round(float(np.mean(accs)), 4),
        "er": round(float(np.mean(ers)), 4),
        "er_se": round(se(ers), 4),
    }


def plot(rows: list[dict[str, Any]]) -> bytes:
    """The figure as PNG bytes."""
    import io

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(dict.fromkeys(r["dataset"] for r in rows))
    fig, axes = plt.subplots(1, len(names), figsize=(5 * len(names), 4), squeeze=False)
    for ax, name in zip(axes[0], names, strict=True):
        mine = [r for r in rows if r["dataset"] == name]
        sizes = [600 * r["accuracy"] ** 4 for r in mine]
        points = ax.scatter(
            [r["ic"] for r in mine],
            [r["er"] for r in mine],
            s=sizes,
            c=[r["tau"] for r in mine],
            cmap="viridis",
            alpha=0.8,
        )
        for r in mine:
            ax.annotate(
                f"tau={r['tau']:g}\nacc={r['accuracy']:.2f}",
                (r["ic"], r["er"]),
                fontsize=7,
                xytext=(8, 6),
                textcoords="offset points",
            )
        if name == "spambase":
            for tau, (ic, er) in FIGURE1.items():
                ax.scatter([ic], [er], marker="x", color="grey")
                ax.annotate(
                    f"paper, tau={tau:g}",
                    (ic, er),
                    fontsize=7,
                    color="grey",
                    xytext=(-10, -14),
                    textcoords="offset points",
                )
        ax.margins(x=0.2, y=0.15)
        ax.set_xlabel("IC (conditions)")
        ax.set_ylabel("exact ER (l-inf, normalised)")
        ax.set_title(f"BBM-RS on {name}: IC and ER against tau (area: accuracy)", fontsize=9)
        fig.colorbar(points, ax=ax, label="tau")
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110)
    plt.close(fig)
    return buf.getvalue()


def markdown(rows: list[dict[str, Any]]) -> str:
    lines = [
        "# Figure 1: BBM-RS's IC, accuracy and exact ER against tau",
        "",
        "Paper (spambase, Figure 1's caption): tau = 0: IC 22.5, ER 0.006; tau = 0.25: IC 2.3, "
        "ER 0.33.",
        "",
        "| dataset | tau | splits | mean T | IC | accuracy | ER |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['dataset']} | {r['tau']:g} | {r['splits']} | {r['T']} | {r['ic']} ± "
            f"{r['ic_se']} | {r['accuracy']:.3f} | {r['er']:.3f} ± {r['er_se']} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the trade-off benchmark (``argv`` as on the command line)."""
    p = argparse.ArgumentParser(prog="python -m bench.risk.tradeoff", description=__doc__)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--datasets", help="comma-separated names (default: spambase)")
    p.add_argument("--taus", help="comma-separated noise levels (default 0, 0.05, ..., 0.25)")
    p.add_argument("--splits", type=int, default=10)
    p.add_argument("--data-dir")
    p.add_argument("--out", default=str(RESULTS_DIR), help="output folder (default %(default)s)")
    args = p.parse_args(argv)
    names = ["heart"] if args.quick else ["spambase"]
    taus: Sequence[float] = (0.0, 0.25) if args.quick else TAUS
    splits, grid = (2, (5, 15)) if args.quick else (args.splits, GRID)
    if args.datasets:
        names = args.datasets.split(",")
    if args.taus:
        taus = [float(t) for t in args.taus.split(",")]
    unknown = [n for n in names if n not in DATASETS]
    if unknown:
        print(f"unknown dataset: {', '.join(unknown)}", file=sys.stderr)
        return 2
    rows = []
    for name in names:
        for tau in taus:
            rows.append(measure(name, tau, splits, grid, args.data_dir))
            print(f"[tradeoff] {rows[-1]}", file=sys.stderr, flush=True)
    folder = out_dir(args.out)
    write_outputs(folder, "risk_tradeoff", {".csv": csv_text(rows, COLUMNS), ".md": markdown(rows)})
    write_bytes_atomic(Path(folder) / "risk_tradeoff.png", plot(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
