"""The two routes of the enumerator agree with exhaustive evaluation on random graphs.

Small graphs get every CXp up front as bit masks (``xpg.explain.reach.zero_path_masks``) and shrink
AXps with bit operations; large ones (or when the masks would be too many) use graph
traversals.  Both routes, the mask computation itself, and the adjacency structures built
for large graphs are checked here against independent references.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

import xpg.core.costs as costs
from xpg import ExplanationGraph, InvalidGraphError, enumerate_explanations
from xpg.explain.reach import minimal_masks, zero_path_masks
from xpg.testing import (
    ClassTable,
    merge_subtrees,
    random_decision_graph,
    random_features,
    random_tree,
)


@pytest.mark.parametrize("route", ["masks", "graph"])
@pytest.mark.parametrize("kind", ["tree", "dag", "ordered"])
def test_routes_match_exhaustive_evaluation(
    route: str, kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(costs, "MASK_EDGES", 10**9 if route == "masks" else -1)
    rng = random.Random(f"{route}-{kind}")  # hash() of a str varies between runs
    checked = 0
    for _ in range(40):
        dg = random_decision_graph(rng, kind)
        brute = ClassTable.of_graph(dg)
        points = brute.points()
        for x in rng.sample(points, min(3, len(points))):
            xg = ExplanationGraph.from_decision_graph(dg, x)
            truth = brute.oracle(x)
            axps, cxps = truth.axps, truth.cxps
            result = enumerate_explanations(xg)
            assert result.complete
            assert len(result.axps) == len(set(result.axps))
            assert len(result.cxps) == len(set(result.cxps))
            assert {frozenset(a) for a in result.axps} == axps
            assert {frozenset(c) for c in result.cxps} == cxps
            masks = zero_path_masks(xg)
            assert masks is not None
            assert {
                frozenset(xg.var_names[v] for v in range(xg.n_vars) if m >> v & 1) for m in masks
            } == cxps
            checked += 1
    assert checked >= 100


def test_masks_give_up_beyond_the_budget() -> None:
    rng = random.Random(3)
    feats = random_features(rng, 5)
    dg = merge_subtrees(random_tree(rng, feats, 2, 5, restrict=False))
    x = ClassTable.of_graph(dg).points()[0]
    xg = ExplanationGraph.from_decision_graph(dg, x)
    full = zero_path_masks(xg)
    assert full is not None and len(full) >= 2
    assert zero_path_masks(xg, max_masks=0) is None


def test_minimal_masks() -> None:
    assert minimal_masks([0b111, 0b011, 0b110, 0b011, 0b100]) == [0b100, 0b011]
    assert minimal_masks([]) == [] and minimal_masks([0, 5]) == [0]


@pytest.mark.parametrize("n_edges", [100, 5_000, 250_000])
@pytest.mark.slow
def test_adjacency_matches_a_plain_loop(n_edges: int) -> None:
    """Loop, numpy lists and numpy lazy slices (by size) give the same children, in order."""
    rng = np.random.default_rng(n_edges)
    n = n_edges // 2 + 2
    src = rng.integers(0, n - 2, size=n_edges)
    dst = src + 1 + rng.integers(0, 2, size=n_edges)
    label = rng.random(n_edges) < 0.3
    node_var = np.where(rng.random(n) < 0.8, rng.integers(0, 7, size=n), -1)
    xg = ExplanationGraph(
        [f"v{i}" for i in range(7)],
        list(range(n)),
        0,
        node_var,
        np.full(n, -1),
        src,
        dst,
        label,
        check=False,
    )
    one, zero, by_var = xg.adjacency()
    ref_one = [[] for _ in range(n)]
    ref_zero = [[] for _ in range(n)]
    for s, d, lab in zip(src.tolist(), dst.tolist(), label.tolist()):
        (ref_one if lab else ref_zero)[s].append(d)
    assert [list(one[i]) for i in range(n)] == ref_one
    assert [list(zero[i]) for i in range(n)] == ref_zero
    assert [list(by_var[v]) for v in range(7)] == [
        [i for i in range(n) if node_var[i] == v] for v in range(7)
    ]
    if any(len(c) > 1 for c in ref_one):
        with pytest.raises(InvalidGraphError, match="outgoing edges labelled 1"):
            xg.one_child()
