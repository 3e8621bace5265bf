"""Compilation time and graph size; time to build the explanation graph of a new instance.

Three tables:

1. decision lists of 10 to 200 random rules over 20 to 500 boolean features, compiled to a
   reduced OBDD with dd's pure-Python back-end (``autoref``) and with CUDD (``cudd``): time to
   build the BDD, time to turn it into a decision graph, dd nodes, DG nodes and edges;
2. scikit-learn trees of depth 6 to 20 trained on a dataset of the data directory (default
   PMLB ``adult``): fit and compile time, nodes, edges;
3. microseconds per instance to build the XpG (one vectorised labelling of the edges) for
   layered decision graphs of 10,000 and 1,000,000 edges over mixed features, and for the trees.

Writes ``compile_speed.csv`` (one row per measurement) and, with matplotlib, ``compile_speed.png``.

Usage::

    python bench/compile/compile_speed.py --quick
    python bench/compile/compile_speed.py --data-dir ../shared/datasets --out bench/compile/results

References
----------
Huang, Izza, Ignatiev, Marques-Silva. On Efficiently Explaining Graph-Based Classifiers.
KR 2021, Sec. 7 (decision lists compiled to OBDDs; XpGs built per instance).
"""

from __future__ import annotations

import argparse
import csv
import os
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from xpg.compile import from_sklearn_tree
from xpg.core.features import Feature, Literal
from xpg.core.graph import DecisionGraph
from xpg.core.xpgraph import ExplanationGraph
from xpg.errors import XpgError
from xpg.learn import load_dataset
from xpg.models.decision_list import DecisionList, Rule, decision_list_to_obdd
from xpg.testing import reachable_part

REPO_ROOT = Path(__file__).resolve().parents[2]


def random_list(
    rng: random.Random, n_rules: int, n_features: int, window: int = 10
) -> DecisionList:
    """Random rules of 1 to 4 literals, two classes, over boolean features x0..x{n-1}.

    Each rule draws its features from a window of ``window`` consecutive features (rule
    learners pick correlated, nearby attributes); rules over features drawn from the whole
    range make the OBDD of a long list exponential in the number of rules for any order.
    """
    feats = [Feature.boolean(f"x{i}") for i in range(n_features)]
    width = min(window, n_features)
    rules = []
    for _ in range(n_rules):
        start = rng.randrange(n_features - width + 1)
        chosen = rng.sample(range(start, start + width), rng.randint(1, 4))
        rules.append(
            Rule([Literal.eq(f"x{j}", rng.randint(0, 1)) for j in chosen], rng.randint(0, 1))
        )
    return DecisionList(feats, [0, 1], rules, rng.randint(0, 1))


def bench_lists(
    rules: list[int], features: list[int], backends: list[str], seed: int
) -> list[dict[str, Any]]:
    rows = []
    for n_features in features:
        for n_rules in rules:
            dl = random_list(random.Random(seed + n_rules * 1000 + n_features), n_rules, n_features)
            for backend in backends:
                start = time.perf_counter()
                obdd = decision_list_to_obdd(dl, backend=backend)  # type: ignore[arg-type]
                built = time.perf_counter()
                dg = obdd.to_decision_graph()
                done = time.perf_counter()
                rows.append(
                    {
                        "table": "decision-list",
                        "model": f"DL {n_rules} rules / {n_features} features",
                        "backend": backend,
                        "rules": n_rules,
                        "features": n_features,
                        "bdd_seconds": built - start,
                        "dg_seconds": done - built,
                        "compile_seconds": done - start,
                        "dd_nodes": obdd.n_nodes,
                        "nodes": len(dg),
                        "edges": dg.n_edges,
                    }
                )
                print(_fmt_list_row(rows[-1]), flush=True)
    return rows


def _fmt_list_row(r: dict[str, Any]) -> str:
    return (
        f"{r['model']:<32} {r['backend']:<8} bdd {r['bdd_seconds']:8.3f} s"
        f"  dg {r['dg_seconds']:7.3f} s"
        f"  dd nodes {r['dd_nodes']:7d}  DG {r['nodes']:7d} nodes {r['edges']:8d} edges"
    )


def xpg_microseconds(dg: DecisionGraph, instances: list[Any], repeat: int) -> float:
    """Mean microseconds per instance of ExplanationGraph.from_decision_graph (table cached)."""
    ExplanationGraph.from_decision_graph(dg, instances[0])  # builds the per-graph edge table
    start = time.perf_counter()
    for _ in range(repeat):
        for x in instances:
            ExplanationGraph.from_decision_graph(dg, x)
    return (time.perf_counter() - start) / (repeat * len(instances)) * 1e6


def bench_trees(
    data_dir: str | None, dataset: str, depths: list[int], repeat: int
) -> list[dict[str, Any]]:
    from sklearn.tree import DecisionTreeClassifier

    try:
        data = load_dataset(dataset, data_dir=data_dir)
    except XpgError as err:
        sys.exit(f"compile_speed: {err}")
    X = data.X.astype(np.float64)
    y = data.y
    feats = [Feature.real(n) for n in data.feature_names]
    rows = []
    for depth in depths:
        start = time.perf_counter()
        clf = DecisionTreeClassifier(max_depth=depth, random_state=0).fit(X, y)
        fitted = time.perf_counter()
        dg = from_sklearn_tree(clf, feats)
        done = time.perf_counter()
        instances = [list(X[i]) for i in range(0, len(X), max(1, len(X) // 50))][:50]
        us = xpg_microseconds(dg, instances, repeat)
        rows.append(
            {
                "table": "sklearn-tree",
                "model": f"{data.name} depth {depth}",
                "backend": "",
                "depth": depth,
                "fit_seconds": fitted - start,
                "compile_seconds": done - fitted,
                "nodes": len(dg),
                "edges": dg.n_edges,
                "xpg_us_per_instance": us,
            }
        )
        r = rows[-1]
        print(
            f"{r['model']:<24} fit {r['fit_seconds']:7.3f} s  compile {r['compile_seconds']:7.3f} s"
            f"  {r['nodes']:7d} nodes {r['edges']:7d} edges  XpG {us:9.1f} us/instance",
            flush=True,
        )
    return rows


def layered_graph(n_edges: int, seed: int, n_features: int = 40) -> DecisionGraph:
    """A read-once layered DG: every non-terminal node has two children in the next layer, and
    every node of a layer has a parent in the one before (the root layer excepted, which
    reaches a fraction of the second layer); layers test boolean, categorical (3 values, one
    edge per part) and real features."""
    rng = np.random.default_rng(seed)
    feats: list[Feature] = []
    for i in range(n_features):
        kind = i % 3
        if kind == 0:
            feats.append(Feature.boolean(f"b{i}"))
        elif kind == 1:
            feats.append(Feature.categorical(f"c{i}", ["p", "q", "r"]))
        else:
            feats.append(Feature.real(f"r{i}"))
    n_layers = n_features
    width = max(1, n_edges // (2 * n_layers))
    while 2 * sum(min(width + 1, 2**layer) for layer in range(n_layers)) <= n_edges:
        width += 1
    widths = [min(width, 2**layer) for layer in range(n_layers)]
    dg = DecisionGraph(feats, classes=[0, 1], root=(0, 0))
    for layer in range(n_layers):
        for k in range(widths[layer]):
            dg.add_node((layer, k), feats[layer].name)
    dg.add_terminal("t0", 0)
    dg.add_terminal("t1", 1)
    for layer in range(n_layers):
        f = feats[layer]
        if f.kind == "boolean":
            lits = [Literal.eq(f.name, 0), Literal.eq(f.name, 1)]
        elif f.kind == "categorical":
            lits = [Literal.isin(f.name, ["p"]), Literal.isin(f.name, ["q", "r"])]
        else:
            t = float(rng.normal())
            lits = [Literal.le(f.name, t), Literal.gt(f.name, t)]
        below = widths[layer + 1] if layer + 1 < n_layers else 1
        targets = rng.permutation(below)  # edge j of node k -> node targets[(2k + j) % below]
        for k in range(widths[layer]):
            for j, lit in enumerate(lits):
                if layer + 1 < n_layers:
                    child: Any = (layer + 1, int(targets[(2 * k + j) % below]))
                else:
                    child = "t0" if rng.random() < 0.5 else "t1"
                dg.add_edge((layer, k), child, lit)
    return dg


def bench_xpg(sizes: list[int], repeat: int, seed: int) -> list[dict[str, Any]]:
    rows = []
    for size in sizes:
        start = time.perf_counter()
        dg = reachable_part(layered_graph(size, seed))
        built = time.perf_counter() - start
        rng = np.random.default_rng(seed)
        instances = [
            [
                int(rng.integers(2))
                if f.kind == "boolean"
                else (
                    str(rng.choice(["p", "q", "r"]))
                    if f.kind == "categorical"
                    else float(rng.normal())
                )
                for f in dg.features
            ]
            for _ in range(20)
        ]
        table_start = time.perf_counter()
        ExplanationGraph.from_decision_graph(dg, instances[0])
        first = time.perf_counter() - table_start
        us = xpg_microseconds(dg, instances, repeat)
        rows.append(
            {
                "table": "xpg-build",
                "model": f"layered DG {dg.n_edges} edges",
                "backend": "",
                "nodes": len(dg),
                "edges": dg.n_edges,
                "build_seconds": built,
                "first_xpg_seconds": first,
                "xpg_us_per_instance": us,
            }
        )
        print(
            f"layered DG {len(dg):8d} nodes {dg.n_edges:8d} edges: built in {built:6.2f} s, "
            f"first XpG (edge table) {first:6.3f} s, then {us:10.1f} us/instance",
            flush=True,
        )
    return rows


def write_csv(rows: list[dict[str, Any]], path: Path) -> None:
    keys: list[str] = []
    for r in rows:
        keys += [k for k in r if k not in keys]
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=keys)
            w.writeheader()
            w.writerows(rows)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def plot(rows: list[dict[str, Any]], path: Path) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not installed: no plot")
        return
    lists = [r for r in rows if r["table"] == "decision-list"]
    fig, ax = plt.subplots(figsize=(6, 4))
    for backend in sorted({r["backend"] for r in lists}):
        for n_features in sorted({r["features"] for r in lists}):
            pts = sorted(
                (r["rules"], r["compile_seconds"])
                for r in lists
                if r["backend"] == backend and r["features"] == n_features
            )
            ax.plot(
                *zip(*pts),
                marker="o",
                linestyle="-" if backend == "cudd" else "--",
                label=f"{backend}, {n_features} features",
            )
    ax.set_xlabel("rules")
    ax.set_ylabel("compile time (s)")
    ax.set_yscale("log")
    ax.set_title("Decision list -> reduced OBDD -> decision graph")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".png")
    os.close(fd)
    try:
        fig.savefig(tmp, dpi=120)
        os.replace(tmp, path)
    finally:
        Path(tmp).unlink(missing_ok=True)
        plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--data-dir",
        help="datasets folder (default: $XPG_SHARED_DIR/datasets or ../shared/datasets)",
    )
    p.add_argument("--dataset", default="pmlb/adult", help="dataset for the trees")
    p.add_argument("--out", default=str(REPO_ROOT / "bench" / "results" / "compile"))
    p.add_argument("--quick", action="store_true", help="small sizes (a smoke run)")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if args.quick:
        rules, features, depths, sizes, repeat = [10, 50], [20, 100], [6, 10], [10_000], 2
    else:
        rules, features, depths = [10, 50, 100, 200], [20, 100, 500], [6, 10, 14, 20]
        sizes, repeat = [10_000, 1_000_000], 3
    print("== decision lists -> OBDD (dd) -> decision graph ==")
    rows = bench_lists(rules, features, ["autoref", "cudd"], args.seed)
    print(f"== scikit-learn trees ({args.dataset}) ==")
    rows += bench_trees(args.data_dir, args.dataset, depths, repeat)
    print("== XpG construction for a new instance ==")
    rows += bench_xpg(sizes, repeat, args.seed)
    write_csv(rows, out / "compile_speed.csv")
    plot(rows, out / "compile_speed.png")
    print(f"wrote {out / 'compile_speed.csv'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
