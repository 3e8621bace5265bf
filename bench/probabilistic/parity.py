"""The parity example of Blanc et al. (section 4): f(x) = x_i xor x_j among d uniform bits.

Every instance has the certificate {i, j}, yet every single feature has precision 1/2, so a
greedy search guided by precision (Anchors) has nothing to tell i and j from the d - 2
irrelevant features and may return larger sets.  For seeded repetitions (random i, j and
instance) this script runs the certificate finder at its defaults, Anchors with beam 10 (as
in Koriche et al.) and with beam 1 (what anchor-exp's ``explain_instance`` actually runs),
and the Cop and Sat rules (k = 5), and reports how often each returns exactly {i, j}, a set
larger than {i, j}, or a set missing i or j.  Precision errors are exact: the parity is also
compiled into a decision graph.

Writes ``parity.csv`` (one row per repetition and method) and ``parity_summary.csv``.

Usage::

    python bench/probabilistic/parity.py --quick
    python bench/probabilistic/parity.py --repetitions 50

References
----------
Blanc, Lange, Tan. Provably efficient, succinct, and precise explanations. NeurIPS 2021,
section 4 ("Comparison with the certificate-finding algorithm of [RSG18]").
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from xpg.core.features import Feature, Literal
from xpg.core.graph import DecisionGraph
from xpg.probabilistic import (
    BlackBox,
    find_anchor,
    find_certificate,
    find_optimal_rule,
    precision_error,
)

if __package__ in (None, ""):  # run as a script: make the checkout's ``bench`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench.probabilistic.common import REPO_ROOT, print_table, write_csv  # noqa: E402

METHODS = ("certificate", "anchors-beam10", "anchors-beam1", "cop", "sat")


def parity_graph(features: list[Feature], i: int, j: int) -> DecisionGraph:
    """x_i xor x_j as a decision graph (for exact precision)."""
    a, b = features[i].name, features[j].name
    dg = DecisionGraph(features, classes=[0, 1])
    dg.add_node("r", a)
    dg.add_terminal("t0", 0)
    dg.add_terminal("t1", 1)
    for v in (0, 1):
        dg.add_node(("b", v), b)
        dg.add_edge("r", ("b", v), Literal.eq(a, v))
        dg.add_edge(("b", v), "t1", Literal.eq(b, 1 - v))
        dg.add_edge(("b", v), "t0", Literal.eq(b, v))
    return dg


def run(method: str, model: BlackBox, x: list[int], seed: int):
    if method == "certificate":
        return find_certificate(model, x, seed=seed)
    if method.startswith("anchors"):
        beam = 10 if method.endswith("10") else 1
        return find_anchor(model, x, beam_size=beam, seed=seed)
    return find_optimal_rule(model, x, k=5, encoding=method, seed=seed)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--d", type=int, default=20, help="number of features")
    parser.add_argument("--repetitions", type=int, default=50)
    parser.add_argument("--methods", nargs="+", choices=METHODS, default=list(METHODS))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="10 repetitions")
    parser.add_argument(
        "--out", type=Path, default=REPO_ROOT / "bench" / "results" / "probabilistic"
    )
    args = parser.parse_args(argv)
    reps = min(args.repetitions, 10) if args.quick else args.repetitions
    features = [Feature.boolean(f"x{k}") for k in range(args.d)]
    rows = []
    stats: dict[str, list[tuple[int, int, int, int, float, int, float]]] = {
        m: [] for m in args.methods
    }
    for r in range(reps):
        rng = np.random.default_rng(args.seed * 7919 + r)
        i, j = (int(v) for v in rng.choice(args.d, 2, replace=False))
        x = rng.integers(0, 2, args.d).tolist()
        model = BlackBox(
            lambda X, i=i, j=j: (X[:, i] != X[:, j]).astype(int),
            features,
            graph=parity_graph(features, i, j),
        )
        relevant = {f"x{i}", f"x{j}"}
        for method in args.methods:
            res = run(method, model, x, seed=args.seed * 7919 + r)
            got = set(res.features)
            error = precision_error(model, x, res.features).error  # exact propagation
            exact = int(got == relevant)
            larger = int(got > relevant)
            missing = int(not relevant <= got)
            stats[method].append(
                (exact, larger, missing, res.size, error, res.n_queries, res.seconds)
            )
            rows.append(
                [r, i, j, method, res.size, exact, larger, missing, f"{error:.4f}"]
                + [res.n_queries, f"{res.seconds:.3f}", ";".join(res.features)]
            )
        print(f"repetition {r + 1}/{reps} done", flush=True)
    header = ["method", "runs", "exactly {i,j}", "larger than {i,j}", "missing i or j"]
    header += ["mean size", "mean exact error", "mean queries", "mean s"]
    summary = []
    for method, res in stats.items():
        a = np.array(res, dtype=float)
        summary.append(
            [method, len(res)]
            + [f"{100 * a[:, c].mean():.0f}%" for c in (0, 1, 2)]
            + [f"{a[:, 3].mean():.2f}", f"{a[:, 4].mean():.3f}", f"{a[:, 5].mean():.0f}"]
            + [f"{a[:, 6].mean():.2f}"]
        )
    print()
    print_table(header, summary)
    columns = ["repetition", "i", "j", "method", "size", "exact", "larger", "missing"]
    columns += ["exact_error", "n_queries", "seconds", "features"]
    write_csv(args.out / "parity.csv", columns, rows)
    write_csv(args.out / "parity_summary.csv", header, summary)
    print(f"\nwrote {args.out / 'parity.csv'} and {args.out / 'parity_summary.csv'}")


if __name__ == "__main__":
    start = time.perf_counter()
    main()
    print(f"total {time.perf_counter() - start:.0f} s")
