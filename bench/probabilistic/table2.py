"""Koriche et al.'s Table 2 protocol: Cop, Sat, Anchors and certificates on MLP black boxes.

For each dataset: 3 quantile bins per attribute, one-hot (binary features); a scikit-learn
MLP with default parameters trained on 75% of the rows; random test instances explained
with k = 5 under the uniform distribution over {0, 1}^d:

* Cop and Sat: m = 1000 uniform samples, CP-SAT (time limit ``--time-limit``);
* Anchors: anchor-exp's beam search with beam 10, precision threshold 0.995 and confidence
  0.99 (our reading of the paper's "tolerance and precision of 99% and 99.5%"), at most 5
  features;
* certificate: the greedy noise-stabilizing tree of depth 5 at the default parameters.

Each explanation is measured on fresh samples: its precision error (1000 uniform inputs
agreeing with the instance on the set) and its rule loss (the rule "if z agrees with x on S
then f(x)" scored on 1000 unconditioned uniform inputs, Eq. 3 of the paper, the same inputs
for every method).  The paper's Table 2 figures are printed beside ours.

Writes ``table2.csv`` (one row per dataset, instance and method) and ``table2_summary.csv``.

Usage::

    python bench/probabilistic/table2.py --quick
    python bench/probabilistic/table2.py --instances 10 --out bench/probabilistic/results

References
----------
Koriche, Lagniez, Mengel, Tran. Learning Model Agnostic Explanations via Constraint
Programming, section 4 and Table 2.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.neural_network import MLPClassifier

from xpg.probabilistic import (
    BlackBox,
    UniformDistribution,
    find_anchor,
    find_certificate,
    find_optimal_rule,
    precision_error,
)

if __package__ in (None, ""):  # run as a script: make the checkout's ``bench`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench.probabilistic.common import (  # noqa: E402
    DATASETS,
    QUICK_DATASETS,
    REPO_ROOT,
    binarise,
    data_dir,
    load,
    mean_std,
    print_table,
    write_csv,
)

METHODS = ("cop", "sat", "anchors", "certificate")


def explain(method: str, model: BlackBox, x: np.ndarray, args: argparse.Namespace, seed: int):
    if method in ("cop", "sat"):
        return find_optimal_rule(
            model,
            x,
            k=args.k,
            n_samples=args.m,
            encoding=method,
            time_limit=args.time_limit,
            workers=args.workers,
            evaluate=None,
            seed=seed,
        )
    if method == "anchors":
        return find_anchor(
            model,
            x,
            beam_size=10,
            threshold=0.995,
            delta=0.01,
            max_anchor_size=args.k,
            evaluate=None,
            seed=seed,
        )
    return find_certificate(model, x, max_depth=args.k, seed=seed)


def rule_loss(
    model: BlackBox, x: np.ndarray, features: tuple[str, ...], Z: np.ndarray, labels: np.ndarray
) -> float:
    """Eq. 3 on the inputs Z: the rule fires when z agrees with x on the set."""
    cols = [model.feature_names.index(f) for f in features]
    fires = (Z[:, cols] == x[cols]).all(axis=1) if cols else np.ones(len(Z), dtype=bool)
    same = labels == model.predict_one(x)
    return float(np.mean(fires != same))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--data-dir", help="datasets folder (default: $XPG_DATA_DIR or ../shared/datasets)"
    )
    parser.add_argument("--datasets", nargs="+", choices=sorted(DATASETS), help="default: all 14")
    parser.add_argument("--instances", type=int, default=10, help="test instances per dataset")
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--m", type=int, default=1000, help="samples Cop and Sat learn from")
    parser.add_argument("--eval-samples", type=int, default=1000)
    parser.add_argument("--time-limit", type=float, default=60.0, help="CP-SAT seconds per rule")
    parser.add_argument("--workers", type=int, default=1, help="CP-SAT search workers")
    parser.add_argument("--max-rows", type=int, default=20000, help="subsample larger datasets")
    parser.add_argument("--methods", nargs="+", choices=METHODS, default=list(METHODS))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="3 small datasets, 3 instances")
    parser.add_argument(
        "--out", type=Path, default=REPO_ROOT / "bench" / "results" / "probabilistic"
    )
    args = parser.parse_args(argv)
    names = args.datasets or (QUICK_DATASETS if args.quick else list(DATASETS))
    if args.quick:
        args.instances = min(args.instances, 3)
    directory = data_dir(args.data_dir)
    rows, summary = [], []
    for name in names:
        ds = DATASETS[name]
        X, y, columns = load(ds, directory, args.max_rows, args.seed)
        data = binarise(X, y, columns, args.seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            mlp = MLPClassifier(random_state=args.seed).fit(data.train, data.y_train)
        accuracy = float(mlp.score(data.test, data.y_test))
        model = BlackBox(mlp, data.features)
        uniform = UniformDistribution(data.features)
        rng = np.random.default_rng(args.seed)
        picked = rng.choice(len(data.test), min(args.instances, len(data.test)), replace=False)
        Z = uniform.sample(args.eval_samples, rng)
        Z_labels = model.predict(Z)
        results: dict[str, list[tuple[float, float, float, int, bool | None]]] = {
            m: [] for m in args.methods
        }
        for n, i in enumerate(picked):
            x = data.test[i]
            for method in args.methods:
                seed = args.seed * 100_003 + n
                r = explain(method, model, x, args, seed)
                err = precision_error(
                    model,
                    x,
                    r.features,
                    uniform,
                    method="sample",
                    n_samples=args.eval_samples,
                    seed=seed + 1,
                ).error
                loss = rule_loss(model, x, r.features, Z, Z_labels)
                results[method].append((err, loss, r.seconds, r.size, r.optimal))
                rows.append(
                    [
                        name,
                        int(i),
                        method,
                        r.size,
                        f"{err:.4f}",
                        f"{loss:.4f}",
                        f"{r.seconds:.3f}",
                        r.n_queries,
                        r.optimal,
                        ";".join(r.features),
                    ]
                )
            print(
                f"{name} instance {n + 1}/{len(picked)}: "
                + ", ".join(f"{m} {results[m][-1][0]:.2f}" for m in args.methods),
                flush=True,
            )
        line = [name, len(data.features), f"{accuracy:.2f}", len(picked)]
        for method in args.methods:
            res = results[method]
            line += [
                mean_std([r[0] for r in res]),
                mean_std([r[1] for r in res]),
                f"{np.median([r[2] for r in res]):.2f}",
                f"{np.mean([r[3] for r in res]):.1f}",
            ]
        cop = results.get("cop", [])
        line.append(f"{sum(bool(r[4]) for r in cop)}/{len(cop)}" if cop else "-")
        line += [
            ds.paper_cop,
            ds.paper_sat,
            ds.paper_anchors,
            f"{ds.paper_cop_seconds:.2f}",
            f"{ds.paper_sat_seconds:.2f}",
        ]
        summary.append(line)
    header = ["dataset", "d", "acc", "n"]
    for method in args.methods:
        header += [f"{method} err", f"{method} loss", f"{method} s(med)", f"{method} size"]
    header += [
        "cop optimal",
        "paper cop",
        "paper sat",
        "paper anchors",
        "paper cop s",
        "paper sat s",
    ]
    print()
    print_table(header, summary)
    write_csv(
        args.out / "table2.csv",
        [
            "dataset",
            "instance",
            "method",
            "size",
            "precision_error",
            "rule_loss",
            "seconds",
            "n_queries",
            "optimal",
            "features",
        ],
        rows,
    )
    write_csv(args.out / "table2_summary.csv", header, summary)
    print(f"\nwrote {args.out / 'table2.csv'} and {args.out / 'table2_summary.csv'}")


if __name__ == "__main__":
    start = time.perf_counter()
    main()
    print(f"total {time.perf_counter() - start:.0f} s")
