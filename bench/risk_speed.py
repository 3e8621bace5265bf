"""How fast BBM-RS learns and how big the exact decision graphs of risk scores are.

Usage: ``python -m bench.risk_speed [--quick] [--T T] [--tau TAU] [--repeat R] [--seed S]
[--data-dir DIR] [--out DIR]`` (or ``xpg bench risk-speed ...``).

* Learning: BBM-RS (``xpg.learn.risk_score.run_bbm_rs``) with ``--T`` rounds (default 15
  and 30) and noise ``--tau`` (0.05) on every dataset of ``riskslim/`` and
  ``interpretable-robust-trees/`` in the data directory, all rows (``--quick``: adult and
  breastcancer): ``fit_s`` (best of ``--repeat`` rounds, wall clock), the rounds made and why
  it stopped, the interpretation complexity (conditions with non-zero points), the training
  accuracy, then ``compile_s`` and the size of the compiled graph.
* Compilation (:func:`compile_row`): seeded random risk scores over 10 real features and
  weighted majorities of boolean votes, ``n`` conditions of 1 to 3 points, ``n`` in 10, 20,
  40, 80, 160 (``--quick``: up to 40): ``compile_s`` and nodes / edges beside the bound
  ``levels x (score range + 1) + 2``.

Writes ``risk_speed.csv``, ``risk_compile.csv`` and ``risk_speed.md``.

Examples
--------
>>> row = compile_row("threshold", 10, seed=0, repeat=1)
>>> row["conditions"], row["nodes"] <= row["bound"]
(10, True)
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bench.tables import RESULTS_DIR, csv_text, out_dir, write_outputs
from xpg.core.features import Feature, Literal
from xpg.learn.datasets import default_data_dir, load_dataset
from xpg.learn.risk_score import run_bbm_rs
from xpg.models.risk_score import RiskScore, compile_risk_score
from xpg.testing import random_risk_score

FOLDERS = ("riskslim", "interpretable-robust-trees")
QUICK = ("adult_data", "breastcancer_data")
LEARN_COLUMNS = [
    "dataset",
    "rows",
    "features",
    "T",
    "tau",
    "fit_s",
    "rounds",
    "stopped",
    "ic",
    "train_accuracy",
    "compile_s",
    "nodes",
    "edges",
]
COMPILE_COLUMNS = [
    "kind",
    "conditions",
    "levels",
    "score_range",
    "bound",
    "nodes",
    "edges",
    "compile_s",
]


def best_of(repeat: int, fn: Any) -> tuple[float, Any]:
    """The least wall-clock time of ``repeat`` calls of ``fn`` and its last result."""
    best, out = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return best, out


def learn_row(path: Path, T: int, tau: float, repeat: int) -> dict[str, Any]:
    """BBM-RS on one dataset file: time, rounds, complexity, accuracy, compiled size."""
    folder = path.parent.name
    data = load_dataset(f"{folder}/{path.name}", data_dir=path.parent.parent)
    X = np.asarray(data.X, dtype=np.float64)
    fit_s, result = best_of(
        repeat, lambda: run_bbm_rs(X, data.y, T=T, tau=tau, features=data.features)
    )
    rs = result.model
    compile_s, dg = best_of(repeat, lambda: compile_risk_score(rs))
    return {
        "dataset": data.name.removesuffix("_data").removeprefix("proc-"),
        "rows": len(X),
        "features": X.shape[1],
        "T": T,
        "tau": tau,
        "fit_s": round(fit_s, 4),
        "rounds": len(result.rounds),
        "stopped": result.stopped,
        "ic": rs.complexity,
        "train_accuracy": round(float(np.mean(rs.predict_batch(X) == data.y)), 4),
        "compile_s": round(compile_s, 5),
        "nodes": len(dg),
        "edges": dg.n_edges,
    }


def compile_row(kind: str, n: int, seed: int, repeat: int) -> dict[str, Any]:
    """Compile one seeded risk score of ``n`` conditions: ``"random"``
    (:func:`~xpg.testing.random_risk_score` over 10 real features, 1 to 3 points) or
    ``"threshold"`` (``n`` boolean features, 1 to 3 points each, bias minus half the total:
    a weighted majority, the case where every partial score stays open longest)."""
    if kind == "random":
        feats = [Feature.real(f"f{i}") for i in range(10)]
        rs = random_risk_score(seed, feats, n, max_points=3)
    else:
        rng = np.random.default_rng(seed)
        feats = [Feature.boolean(f"b{i}") for i in range(n)]
        points = rng.integers(1, 4, size=n).tolist()
        conditions = [(Literal.eq(f.name, 1), p) for f, p in zip(feats, points, strict=True)]
        rs = RiskScore(feats, [0, 1], conditions, bias=-(sum(points) // 2))
    compile_s, dg = best_of(repeat, lambda: compile_risk_score(rs))
    least, most = rs.score_range()
    levels = len(rs.tested_features())
    return {
        "kind": kind,
        "conditions": n,
        "levels": levels,
        "score_range": most - least,
        "bound": levels * (most - least + 1) + 2,
        "nodes": len(dg),
        "edges": dg.n_edges,
        "compile_s": round(compile_s, 5),
    }


def markdown(learn: Sequence[dict[str, Any]], compiled: Sequence[dict[str, Any]]) -> str:
    """The two tables as markdown."""
    lines = ["## BBM-RS: learning time and the compiled graph", ""]
    lines.append("| " + " | ".join(LEARN_COLUMNS) + " |")
    lines.append("|" + "---|" * len(LEARN_COLUMNS))
    lines += ["| " + " | ".join(str(r[c]) for c in LEARN_COLUMNS) + " |" for r in learn]
    lines += ["", "## Compiling risk scores: nodes against the bound levels x (range + 1)", ""]
    lines.append("| " + " | ".join(COMPILE_COLUMNS) + " |")
    lines.append("|" + "---|" * len(COMPILE_COLUMNS))
    lines += ["| " + " | ".join(str(r[c]) for c in COMPILE_COLUMNS) + " |" for r in compiled]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark (``argv`` as on the command line)."""
    parser = argparse.ArgumentParser(prog="python -m bench.risk_speed", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="two datasets, smaller scores")
    parser.add_argument(
        "--T", default="15,30", help="BBM-RS rounds, comma-separated (default %(default)s)"
    )
    parser.add_argument("--tau", type=float, default=0.05, help="noise (default %(default)s)")
    parser.add_argument("--repeat", type=int, default=3, help="rounds (default %(default)s)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--data-dir", default=None, help="default: $XPG_SHARED_DIR/datasets or ../shared"
    )
    parser.add_argument(
        "--out", default=str(RESULTS_DIR), help="output folder (default %(default)s)"
    )
    args = parser.parse_args(argv)
    root = Path(args.data_dir) if args.data_dir else default_data_dir()
    files = sorted(p for folder in FOLDERS for p in (root / folder).glob("*.csv.gz"))
    if args.quick:
        files = [p for p in files if p.name.removesuffix(".csv.gz") in QUICK]
    if not files:
        print(f"no dataset found under {root} ({', '.join(FOLDERS)})", file=sys.stderr)
        return 2
    learn = []
    for path in files:
        for T in (int(t) for t in str(args.T).split(",")):
            learn.append(learn_row(path, T, args.tau, args.repeat))
        print(f"{path.name}: done", file=sys.stderr)
    sizes = (10, 20, 40) if args.quick else (10, 20, 40, 80, 160)
    compiled = [
        compile_row(kind, n, args.seed + n, args.repeat)
        for kind in ("random", "threshold")
        for n in sizes
    ]
    md = markdown(learn, compiled)
    paths = write_outputs(
        out_dir(args.out),
        "risk_speed",
        {".md": md, ".csv": csv_text(learn, LEARN_COLUMNS)},
    )
    paths += write_outputs(
        out_dir(args.out), "risk_compile", {".csv": csv_text(compiled, COMPILE_COLUMNS)}
    )
    print(md)
    for p in paths:
        print(f"wrote {p}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
