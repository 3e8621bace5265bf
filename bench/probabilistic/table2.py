"""Koriche et al.'s Table 2 protocol: Cop and Sat against Anchors on MLP black boxes.

For each dataset: 3 quantile bins per attribute, one-hot (binary features); a scikit-learn
MLP with default parameters trained on 75% of the rows; random test instances (100 in the
paper) explained with k = 5:

* Cop and Sat: m = 1000 uniform samples, CP-SAT with one worker and a *deterministic* time
  limit (``--deterministic-time``, CP-SAT's ``max_deterministic_time``): results do not
  depend on the machine's load.  The paper's limit was 60 wall-clock seconds;
* ``anchors``: anchor-exp's beam search with beam 10, precision threshold 0.995 and
  confidence 0.99 (our reading of the paper's "tolerance and precision of 99% and 99.5%"),
  at most 5 features, perturbing with the training data (the paper's set-up: anchor-exp's
  tabular explainer given the training data);
* ``anchors-uniform``: the same search perturbing with uniform inputs;
* ``certificate`` (on request, ``--methods``): the greedy noise-stabilizing tree of depth 5.

Rule size is the number of chosen features (see :mod:`xpg.probabilistic.optimal_rule`).
Each explanation is measured on fresh uniform inputs: its precision error (the paper's
empirical precision error, 1000 inputs agreeing with the instance on the set) and its rule
loss (Eq. 3).  Per dataset, Cop is compared with each Anchors set-up instance by instance:
wins / ties / losses on the precision error and the two-sided Wilcoxon signed-rank p-value.
The paper's Table 2 figures are printed beside ours.

An Anchors search stopped by its query budget (``--anchors-queries``) gets an empty row in
``table2.csv`` (``budget exceeded`` in ``features``); the instance is then left out of every
method's summary, so that all methods are compared on the same instances, and counted in the
summary's ``budget exceeded`` column.

Writes ``table2.csv`` (one row per dataset, instance and method) and ``table2_summary.csv``,
both rewritten after each dataset.

Usage::

    python bench/probabilistic/table2.py --quick
    python bench/probabilistic/table2.py --instances 100 --datasets compas iris

References
----------
Koriche, Lagniez, Mengel, Tran. Learning Model Agnostic Explanations via Constraint
Programming, section 4 and Table 2.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

if __package__ in (None, ""):  # run as a script: make the checkout's ``bench`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench.probabilistic.common import (  # noqa: E402
    DATASETS,
    QUICK_DATASETS,
    REPO_ROOT,
    data_dir,
    mean_std,
    print_table,
    write_csv,
)
from bench.probabilistic.protocol import (  # noqa: E402
    METHODS,
    BudgetExceeded,
    Settings,
    explain,
    measure,
    prepare,
)

DEFAULT_METHODS = ["cop", "sat", "anchors", "anchors-uniform"]
ROW_HEADER = [
    "dataset",
    "instance",
    "method",
    "size",
    "precision_error",
    "rule_loss",
    "seconds",
    "deterministic_seconds",
    "n_queries",
    "optimal",
    "features",
]


def compare(cop: list[float], other: list[float]) -> str:
    """``wins/ties/losses p=...`` of Cop against another method on paired errors."""
    from scipy.stats import wilcoxon

    a, b = np.asarray(cop), np.asarray(other)
    wins, ties, losses = int(np.sum(a < b)), int(np.sum(a == b)), int(np.sum(a > b))
    if wins + losses == 0:
        return f"{wins}/{ties}/{losses} p=1"
    p = float(wilcoxon(a, b, zero_method="wilcox").pvalue)
    return f"{wins}/{ties}/{losses} p={p:.2g}"


def summarise(
    name: str,
    task_d: int,
    accuracy: float,
    outcomes: dict[str, list[tuple | None]],
    methods: list[str],
) -> list[object]:
    """One summary line; ``outcomes[method][n]`` is None where the method gave no answer
    (Anchors' query budget), and such instances are left out for every method."""
    ds = DATASETS[name]
    total = len(next(iter(outcomes.values()))) if outcomes else 0
    keep = [n for n in range(total) if all(outcomes[m][n] is not None for m in methods)]
    results: dict[str, list[tuple]] = {
        m: [o for n in keep if (o := outcomes[m][n]) is not None] for m in methods
    }
    line: list[object] = [name, task_d, f"{accuracy:.2f}", len(keep)]
    for method in methods:
        res = results[method]
        line += [
            mean_std([r[0] for r in res]),
            mean_std([r[1] for r in res]),
            f"{np.median([r[2] for r in res]):.2f}" if res else "-",
            f"{np.mean([r[3] for r in res]):.1f}" if res else "-",
        ]
    cop = results.get("cop", [])
    line.append(f"{sum(bool(r[4]) for r in cop)}/{len(cop)}" if cop else "-")
    for other in ("anchors", "anchors-uniform"):
        if cop and other in results:
            line.append(compare([r[0] for r in cop], [r[0] for r in results[other]]))
        else:
            line.append("-")
    line += [ds.paper_cop, ds.paper_sat, ds.paper_anchors, f"{ds.paper_cop_seconds:.2f}"]
    return line + [total - len(keep)]


def shard(text: str) -> tuple[int, int]:
    """``"K/N"`` as ``(K, N)`` with ``0 <= K < N``.

    >>> shard("1/2")
    (1, 2)
    """
    k, _, n = text.partition("/")
    try:
        pair = int(k), int(n)
    except ValueError:
        pair = (-1, 0)
    if not 0 <= pair[0] < pair[1]:
        raise argparse.ArgumentTypeError(f"expected K/N with 0 <= K < N, got {text!r}")
    return pair


def shown(outcome: tuple | None) -> str:
    """A method's precision error on one instance, for the progress line."""
    return "budget exceeded" if outcome is None else f"{outcome[0]:.2f}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--data-dir",
        help="datasets folder (default: $XPG_SHARED_DIR/datasets or ../shared/datasets)",
    )
    parser.add_argument("--datasets", nargs="+", choices=sorted(DATASETS), help="default: all 15")
    parser.add_argument("--instances", type=int, default=100, help="test instances per dataset")
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--m", type=int, default=1000, help="samples Cop and Sat learn from")
    parser.add_argument("--eval-samples", type=int, default=1000)
    parser.add_argument(
        "--deterministic-time",
        type=float,
        default=60.0,
        help="CP-SAT deterministic time limit per rule (load-independent; default 60)",
    )
    parser.add_argument(
        "--time-limit", type=float, default=3600.0, help="CP-SAT wall-clock backstop, seconds"
    )
    parser.add_argument("--workers", type=int, default=1, help="CP-SAT search workers")
    parser.add_argument(
        "--anchors-queries",
        type=int,
        default=Settings.anchors_queries,
        help="stop an Anchors search after this many model queries (default 200,000)",
    )
    parser.add_argument("--max-rows", type=int, default=20000, help="subsample larger datasets")
    parser.add_argument("--methods", nargs="+", choices=METHODS, default=DEFAULT_METHODS)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="3 small datasets, 3 instances")
    parser.add_argument(
        "--shard",
        type=shard,
        default=(0, 1),
        metavar="K/N",
        help="run only the instances n with n %% N == K (same seeds as a whole run); "
        "merge_table2.py joins the shards",
    )
    parser.add_argument(
        "--out", type=Path, default=REPO_ROOT / "bench" / "results" / "probabilistic"
    )
    args = parser.parse_args(argv)
    names = args.datasets or (QUICK_DATASETS if args.quick else list(DATASETS))
    if args.quick:
        args.instances = min(args.instances, 3)
        args.deterministic_time = min(args.deterministic_time, 5.0)
    settings = Settings(
        k=args.k,
        m=args.m,
        deterministic_time=args.deterministic_time,
        time_limit=args.time_limit,
        workers=args.workers,
        anchors_queries=args.anchors_queries,
    )
    directory = data_dir(args.data_dir)
    rows: list[list[object]] = []
    summary: list[list[object]] = []
    header = ["dataset", "d", "acc", "n"]
    for method in args.methods:
        header += [f"{method} err", f"{method} loss", f"{method} s(med)", f"{method} size"]
    header += [
        "cop optimal",
        "cop vs anchors w/t/l",
        "cop vs anchors-uniform w/t/l",
        "paper cop",
        "paper sat",
        "paper anchors",
        "paper cop s",
        "budget exceeded",
    ]
    for name in names:
        task = prepare(name, directory, args.instances, args.eval_samples, args.max_rows, args.seed)
        results: dict[str, list[tuple | None]] = {m: [] for m in args.methods}
        for n, x in enumerate(task.instances):
            if n % args.shard[1] != args.shard[0]:
                continue
            for method in args.methods:
                seed = args.seed * 100_003 + n
                try:
                    r = explain(method, task, x, settings, seed)
                except BudgetExceeded:
                    results[method].append(None)
                    rows.append(
                        [name, int(task.indices[n]), method] + [""] * 7 + ["budget exceeded"]
                    )
                    continue
                err, loss = measure(task, x, r, args.eval_samples, seed + 1)
                work = float(r.details.get("deterministic_seconds", 0.0))
                results[method].append((err, loss, r.seconds, r.size, r.optimal))
                rows.append(
                    [
                        name,
                        int(task.indices[n]),
                        method,
                        r.size,
                        f"{err:.4f}",
                        f"{loss:.4f}",
                        f"{r.seconds:.3f}",
                        f"{work:.3f}",
                        r.n_queries,
                        r.optimal,
                        ";".join(r.features),
                    ]
                )
            print(
                f"{name} instance {n + 1}/{len(task.instances)}: "
                + ", ".join(f"{m} {shown(results[m][-1])}" for m in args.methods),
                flush=True,
            )
            write_csv(args.out / "table2.csv", ROW_HEADER, rows)  # a dead run keeps its rows
        summary.append(summarise(name, task.d, task.accuracy, results, args.methods))
        write_csv(args.out / "table2.csv", ROW_HEADER, rows)
        write_csv(args.out / "table2_summary.csv", header, summary)
    print()
    print_table(header, summary)
    print(f"\nwrote {args.out / 'table2.csv'} and {args.out / 'table2_summary.csv'}")


if __name__ == "__main__":
    start = time.perf_counter()
    main()
    print(f"total {time.perf_counter() - start:.0f} s")
