"""Depth-6 trees of the Table 2 datasets: every explainer's answer, measured exactly.

Each dataset is discretised as in Koriche et al.'s protocol (3 bins per attribute, one-hot),
a scikit-learn decision tree of depth 6 is trained and compiled into a decision graph, and
random test instances are explained under the uniform distribution over {0, 1}^d by Cop,
Sat, Anchors and the certificate finder (k = 5 as in Table 2), and by the probabilistic AXp
with delta = 0.05.  Every answer's precision error is computed exactly (probability
propagation on the compiled tree), next to its size and to the smallest exact AXp (all AXps
enumerated by the core's MARCO).

Writes ``exact_trees.csv`` (one row per dataset, instance and method) and
``exact_trees_summary.csv``.

Usage::

    python bench/probabilistic/exact_trees.py --quick
    python bench/probabilistic/exact_trees.py --instances 10

References
----------
Koriche, Lagniez, Mengel, Tran (Table 2 protocol); Huang, Izza, Ignatiev, Marques-Silva.
On Efficiently Explaining Graph-Based Classifiers. KR 2021 (AXps, Alg. 4); Izza et al.
On computing probabilistic abductive explanations. IJAR 2023.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.tree import DecisionTreeClassifier

from xpg.core.xpgraph import ExplanationGraph
from xpg.explain.marco import enumerate_explanations
from xpg.probabilistic import (
    BlackBox,
    find_anchor,
    find_certificate,
    find_optimal_rule,
    find_probabilistic_axp,
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
    print_table,
    write_csv,
)

METHODS = ("cop", "sat", "anchors", "certificate", "paxp-0.05")


def explain(method: str, model: BlackBox, x: np.ndarray, k: int, seed: int):
    if method in ("cop", "sat"):
        return find_optimal_rule(model, x, k=k, encoding=method, seed=seed)
    if method == "anchors":
        return find_anchor(model, x, beam_size=10, max_anchor_size=k, seed=seed)
    if method == "certificate":
        return find_certificate(model, x, max_depth=k, seed=seed)
    return find_probabilistic_axp(model, x, delta=0.05)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--data-dir",
        help="datasets folder (default: $XPG_SHARED_DIR/datasets or ../shared/datasets)",
    )
    parser.add_argument("--datasets", nargs="+", choices=sorted(DATASETS), help="default: all 15")
    parser.add_argument("--instances", type=int, default=10)
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--depth", type=int, default=6)
    parser.add_argument("--max-rows", type=int, default=20000)
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
        X, y, columns = load(DATASETS[name], directory, args.max_rows, args.seed)
        data = binarise(X, y, columns, args.seed)
        tree = DecisionTreeClassifier(max_depth=args.depth, random_state=args.seed)
        tree.fit(data.train, data.y_train)
        model = BlackBox.from_sklearn_tree(tree, data.features)
        assert model.graph is not None
        rng = np.random.default_rng(args.seed)
        picked = rng.choice(len(data.test), min(args.instances, len(data.test)), replace=False)
        errors: dict[str, list[float]] = {m: [] for m in args.methods}
        sizes: dict[str, list[int]] = {m: [] for m in args.methods}
        smallest: list[int] = []
        for n, i in enumerate(picked):
            x = data.test[i]
            xg = ExplanationGraph.from_decision_graph(model.graph, x.tolist())
            enumeration = enumerate_explanations(xg, timeout=60)
            best = min(len(a) for a in enumeration.axps)
            smallest.append(best)
            for method in args.methods:
                r = explain(method, model, x, args.k, seed=args.seed * 100_003 + n)
                exact = precision_error(model, x, r.features)  # the certificate's is sampled
                assert exact.method == "exact-propagation"
                errors[method].append(exact.error)
                sizes[method].append(r.size)
                rows.append(
                    [name, int(i), method, r.size, f"{exact.error:.6f}", best]
                    + [f"{r.seconds:.3f}", ";".join(r.features)]
                )
            print(f"{name} instance {n + 1}/{len(picked)} done", flush=True)
        line = [name, len(data.features), tree.get_n_leaves(), len(picked)]
        for method in args.methods:
            line += [f"{np.mean(errors[method]):.3f}", f"{np.mean(sizes[method]):.1f}"]
        line.append(f"{np.mean(smallest):.1f}")
        summary.append(line)
    header = ["dataset", "d", "leaves", "n"]
    for method in args.methods:
        header += [f"{method} err", f"{method} size"]
    header.append("smallest AXp size")
    print()
    print_table(header, summary)
    columns = ["dataset", "instance", "method", "size", "exact_error", "smallest_axp_size"]
    columns += ["seconds", "features"]
    write_csv(args.out / "exact_trees.csv", columns, rows)
    write_csv(args.out / "exact_trees_summary.csv", header, summary)
    print(f"\nwrote {args.out / 'exact_trees.csv'} and {args.out / 'exact_trees_summary.csv'}")


if __name__ == "__main__":
    start = time.perf_counter()
    main()
    print(f"total {time.perf_counter() - start:.0f} s")
