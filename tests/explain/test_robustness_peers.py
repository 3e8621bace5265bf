"""Exact robustness of trees against two independent tools: Veritas and GROOT's tree attack.

Veritas computes the largest and smallest output of a tree on a box.  For each random tree and
instance, with ``D`` our exact robustness: the closed box of radius ``D - 1e-6`` holds no input
of another class, the one of radius ``D + 1e-6`` holds one, and the one of radius exactly ``D``
holds one exactly when the infimum is attained.  Marked ``peers``: ``pytest -m peers`` creates
``bench/.venvs/veritas`` from PyPI on first use.  The translation of the trees into Veritas's
form is checked offline, by evaluating both on every test point.

GROOT (``groot-trees``) computes, for a scikit-learn tree, the l-infinity distance from a point
to the nearest leaf box of another class: on fitted trees it must equal our ER (up to the
float32 rounding of scikit-learn's thresholds, which our compiled graph follows exactly).
"""

from __future__ import annotations

import base64
import math
import pickle
import random
import sys
from typing import Any

import pytest
from conftest import REPO_ROOT

from xpg.compile import from_sklearn_tree
from xpg.core.features import Feature, Literal
from xpg.core.graph import DecisionGraph
from xpg.explain.exact_robustness import robustness
from xpg.testing import random_real_sklearn_tree

sys.path.insert(0, str(REPO_ROOT))  # bench/ is a folder of the checkout, not a package
from bench.peers import RUNNERS_DIR, Peer, ensure_venv, run_runner  # noqa: E402

VERITAS = Peer(
    "veritas", ("dtai-veritas==0.3.1", "numpy"), "import veritas", RUNNERS_DIR / "veritas_runner.py"
)
GROOT = Peer(
    "groot", ("groot-trees==0.0.17",), "import groot.adversary", RUNNERS_DIR / "groot_runner.py"
)
EPS = 1e-6


def random_lt_tree(rng: random.Random, n_features: int, depth: int) -> tuple[list[dict], Any]:
    """A tree with Veritas's splits ``x_i < t`` (left) over real features, leaves +1 or -1:
    its node list (Veritas's form) and the same tree as a decision graph."""
    features = [Feature.real(f"x{i}") for i in range(n_features)]
    dg = DecisionGraph(features, classes=[0, 1])
    nodes: list[dict] = []

    def grow(bounds: list[tuple[float, float]], d: int) -> int:
        k = len(nodes)
        nodes.append({})
        choices = [
            (i, t / 2) for i, (lo, hi) in enumerate(bounds) for t in range(1, 20) if lo < t / 2 < hi
        ]
        if d == 0 or not choices or rng.random() < 0.2:
            value = rng.choice([-1.0, 1.0])
            nodes[k] = {"value": value}
            dg.add_terminal(k, int(value > 0))
            return k
        i, t = rng.choice(choices)
        lo, hi = bounds[i]
        dg.add_node(k, f"x{i}")
        left = grow([*bounds[:i], (lo, t), *bounds[i + 1 :]], d - 1)
        right = grow([*bounds[:i], (t, hi), *bounds[i + 1 :]], d - 1)
        nodes[k] = {"feature": i, "threshold": t, "left": left, "right": right}
        dg.add_edge(k, left, Literal.interval(f"x{i}", -math.inf, t, closed="neither"))
        dg.add_edge(k, right, Literal.interval(f"x{i}", t, math.inf, closed="left"))
        return k

    grow([(-math.inf, math.inf)] * n_features, depth)
    dg.validate()
    return nodes, dg


def evaluate(nodes: list[dict], x: list[float]) -> float:
    k = 0
    while "value" not in nodes[k]:
        item = nodes[k]
        k = item["left"] if x[item["feature"]] < item["threshold"] else item["right"]
    return float(nodes[k]["value"])


def cases(seed: int, n: int) -> list[tuple[list[dict], DecisionGraph, list[float]]]:
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        nodes, dg = random_lt_tree(rng, rng.randint(1, 4), rng.randint(1, 5))
        for _ in range(3):
            x = [rng.randrange(0, 40) / 4 for _ in dg.features]  # on thresholds, or between
            out.append((nodes, dg, x))
    return out


def test_the_translation_for_veritas_is_the_same_tree() -> None:
    rng = random.Random(1)
    for nodes, dg, x in cases(0, 150):
        for _ in range(5):
            y = [v + rng.choice([-0.5, -0.25, 0.0, 0.25]) for v in x]
            assert (evaluate(nodes, y) > 0) == (dg.predict(y) == 1)


@pytest.mark.peers
def test_exact_robustness_of_trees_agrees_with_veritas() -> None:
    ensure_venv(VERITAS)
    items = cases(0, 300)
    trees: list[dict] = []
    index: dict[int, int] = {}
    queries: list[dict] = []
    expected: list[tuple[bool, str]] = []  # (another class in the box?, what)
    for nodes, dg, x in items:
        if id(nodes) not in index:
            index[id(nodes)] = len(trees)
            trees.append({"nodes": nodes})
        er = robustness(dg, x)
        radii: list[tuple[float, bool]] = []
        if math.isinf(er.distance):
            radii.append((100.0, False))
        else:
            radii += [(er.distance + EPS, True), (er.distance, er.attained)]
            if er.distance > EPS:
                radii.append((er.distance - EPS, False))
        for r, other in radii:
            box = [[v - r, v + r] for v in x]
            queries.append({"tree": index[id(nodes)], "box": box, "pred": er.prediction})
            expected.append((other, f"x={x} r={r} D={er.distance} attained={er.attained}"))
    answer = run_runner(VERITAS, {"trees": trees, "queries": queries}, timeout=600)
    assert len(answer["answers"]) == len(queries)
    for q, a, (other, what) in zip(queries, answer["answers"], expected, strict=True):
        assert a["optimal"], what
        found = a["min"] < 0 if q["pred"] == 1 else a["max"] > 0
        assert found == other, what


@pytest.mark.peers
def test_exact_robustness_of_sklearn_trees_agrees_with_groot() -> None:
    ensure_venv(GROOT)
    trees, queries, ours = [], [], []
    for seed in range(60):
        clf, X = random_real_sklearn_tree(seed)
        dg = from_sklearn_tree(clf)
        trees.append(base64.b64encode(pickle.dumps(clf)).decode("ascii"))
        for row in X[:8]:
            er = robustness(dg, list(row))
            queries.append({"tree": seed, "x": row.tolist(), "label": int(er.prediction)})
            ours.append(er.distance)
    answer = run_runner(GROOT, {"trees": trees, "queries": queries}, timeout=600)
    assert len(answer["distances"]) == len(ours) == 480
    for q, theirs, mine in zip(queries, answer["distances"], ours, strict=True):
        if theirs is None:
            assert math.isinf(mine), q
        else:
            assert mine == pytest.approx(theirs, rel=1e-6, abs=1e-6), q
