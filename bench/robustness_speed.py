"""Exact robustness: time per query against graph size, for both routes.

Usage: ``python -m bench.robustness_speed [--quick] [--instances K] [--seed S] [--out DIR]``
(or ``xpg bench robustness ...``).

Families of growing graphs:

* ``obdd``: reduced OBDDs of random DNFs over 40 booleans
  (:func:`xpg.testing.random_reduced_obdd`), read-once;
* ``ladder``: the parity chain (:func:`xpg.testing.ladder`), read-once, with ``2^n`` paths;
* ``sklearn-tree``: unpruned scikit-learn trees on random real data with a noisy label, which
  test features again below themselves (the best-first route; on a tree it meets each node once).

For each graph, ``K`` random instances; per route (``auto``, and ``best-first`` on the read-once
families), the mean CPU seconds per query and the microseconds per edge.  Linear time shows as
a flat ``us_per_edge`` column.  The graphs come from generators and compilers that guarantee
Def. 2, so they are not validated again here (``validate()`` keeps the values possible on the
paths into each node: quadratic memory on a 16,000-bit ladder).  Writes
``robustness_speed.csv`` and ``robustness_speed.md``.

Examples
--------
>>> rows = measure_family("ladder", [50], instances=2, seed=0)
>>> [(r["route"], r["edges"]) for r in rows]
[('read-once', 198), ('best-first', 198)]
"""

from __future__ import annotations

import argparse
import gc
import random
import sys
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from bench.tables import RESULTS_DIR, csv_text, out_dir, write_outputs
from xpg.compile import from_sklearn_tree
from xpg.core.features import Feature
from xpg.core.graph import DecisionGraph
from xpg.explain.exact_robustness import is_read_once, robustness
from xpg.testing import ladder, random_reduced_obdd

FULL_SIZES = {
    "obdd": [1_000, 4_000, 16_000],
    "ladder": [1_000, 4_000, 16_000],
    "sklearn-tree": [2_000, 8_000, 32_000],
}
QUICK_SIZES = {"obdd": [300, 1_200], "ladder": [200, 800], "sklearn-tree": [500, 2_000]}
COLUMNS = ["family", "size", "nodes", "edges", "route", "seconds", "us_per_edge", "mean_distance"]


def build(family: str, size: int, seed: int) -> DecisionGraph:
    """The graph of a family at a size (nodes for OBDDs, bits for ladders, rows for trees)."""
    if family == "obdd":
        return random_reduced_obdd(40, size, seed=seed)
    if family == "ladder":
        return ladder(size)
    if family == "sklearn-tree":
        from sklearn.tree import DecisionTreeClassifier

        rng = np.random.default_rng(seed)
        X = rng.random((size, 6)) * 10
        y = (X[:, 0] + X[:, 1] + rng.normal(0, 2, size) > 10).astype(int)
        clf = DecisionTreeClassifier(random_state=seed).fit(X, y)
        return from_sklearn_tree(clf, [Feature.real(f"x{i}") for i in range(6)])
    raise ValueError(f"unknown family {family!r}")


def _instances(dg: DecisionGraph, k: int, seed: int) -> list[list[Any]]:
    rng = random.Random(seed)
    out = []
    for _ in range(k):
        row = []
        for f in dg.features:
            row.append(rng.choice(f.values) if f.is_discrete else rng.random() * 10)
        out.append(row)
    return out


def measure_family(
    family: str, sizes: Sequence[int], *, instances: int, seed: int
) -> list[dict[str, Any]]:
    """One row per size and route."""
    rows = []
    for size in sizes:
        dg = build(family, size, seed)
        points = _instances(dg, instances, seed)
        routes = ["auto", "best-first"] if is_read_once(dg) else ["auto"]
        for route in routes:
            gc.collect()
            gc.disable()
            try:
                start = time.process_time()
                results = [robustness(dg, x, route=route) for x in points]  # type: ignore[arg-type]
                seconds = (time.process_time() - start) / len(points)
            finally:
                gc.enable()
            finite = [r.distance for r in results if np.isfinite(r.distance)]
            rows.append(
                {
                    "family": family,
                    "size": size,
                    "nodes": len(dg),
                    "edges": dg.n_edges,
                    "route": results[0].route,
                    "seconds": seconds,
                    "us_per_edge": 1e6 * seconds / dg.n_edges,
                    "mean_distance": float(np.mean(finite)) if finite else float("inf"),
                }
            )
    return rows


def markdown(rows: Sequence[dict[str, Any]]) -> str:
    lines = [
        "# Exact robustness: seconds per query",
        "",
        "| family | size | nodes | edges | route | s/query | us/edge | mean ER |",
        "|---|---:|---:|---:|---|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['family']} | {r['size']} | {r['nodes']} | {r['edges']} | {r['route']} | "
            f"{r['seconds']:.4f} | {r['us_per_edge']:.2f} | {r['mean_distance']:.3g} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="xpg bench robustness", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small graphs (CI)")
    parser.add_argument("--instances", type=int, default=20, help="instances per graph")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--out", default=str(RESULTS_DIR), help="output folder (default %(default)s)"
    )
    args = parser.parse_args(argv)
    sizes = QUICK_SIZES if args.quick else FULL_SIZES
    rows: list[dict[str, Any]] = []
    for family, family_sizes in sizes.items():
        rows += measure_family(family, family_sizes, instances=args.instances, seed=args.seed)
    text = markdown(rows)
    print(text, end="")
    folder = out_dir(args.out)
    write_outputs(folder, "robustness_speed", {".csv": csv_text(rows, COLUMNS), ".md": text})
    return 0


if __name__ == "__main__":
    sys.exit(main())
