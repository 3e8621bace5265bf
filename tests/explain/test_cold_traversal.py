"""A first AXp on a fresh graph ("cold") against the same on a graph whose traversal
structures are built ("warm"), and the structures against plain references.

A fresh graph builds its traversal arrays with one scatter, its 1-path shortcut by pointer
doubling onto two sentinels, and only when the refused attempts are expected to pay for it;
an AXp with the default seed tries every variable when they are few beside the nodes.  None
of this may change an answer: the cold, warm and reference answers must be identical, on
graphs large enough to take the memoryview branch and on small ones with the thresholds
forced.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

import xpg.core.costs as costs
from bench.randgen import random_layered_xpg, random_tree_xpg
from xpg.core.xpgraph import ExplanationGraph
from xpg.errors import InvalidGraphError
from xpg.explain.axp_cxp import axp_from_fixed, find_axp, find_cxp
from xpg.testing import (
    antichain_xpg,
    fresh_copy,
    random_instance,
    random_reduced_obdd,
    random_xpg,
)


def walked_ends(xg: ExplanationGraph) -> np.ndarray:
    """Per node, its 1-path ends at a 0-terminal: every node one step at a time."""
    one = np.asarray([-1] * xg.n_nodes)
    lab = xg.edge_label
    one[xg.edge_src[lab]] = xg.edge_dst[lab]
    at = np.arange(xg.n_nodes)
    while (one[at] >= 0).any():
        at = np.where(one[at] >= 0, one[at], at)
    return xg.terminal_value[at] == 0


def warm(xg: ExplanationGraph) -> ExplanationGraph:
    xg = fresh_copy(xg)
    xg.csr()
    xg.views()
    xg.ends_at_zero()
    xg.tested_vars()
    return xg


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("kind", ["obdd", "tree"])
@pytest.mark.slow
def test_cold_and_warm_agree_on_large_graphs(kind: str, seed: int) -> None:
    """Past LIST_EDGES (memoryviews), many features: the first AXp, cold and warm, from the
    default seed and from the tested variables, and the CXp."""
    if kind == "obdd":
        xg = random_layered_xpg(110_000, 400, seed=seed)
    else:
        xg = random_tree_xpg(220_001, 400, seed=seed)
    assert len(xg.edge_src) >= costs.LIST_EDGES
    cold = fresh_copy(xg)
    axp = find_axp(cold)
    assert "tested_vars" not in cold._cache  # the default seed did not need them
    hot = warm(xg)
    assert axp == find_axp(hot) == hot.names(axp_from_fixed(hot, hot.tested_vars()))
    assert find_cxp(fresh_copy(xg)) == find_cxp(hot)
    assert np.array_equal(cold.ends_at_zero(), walked_ends(xg))


def test_shortcut_built_mid_search(monkeypatch: pytest.MonkeyPatch) -> None:
    """The shortcut built after the first refused attempt that explored anything, on the
    memoryview path: the same AXp as a search that never builds it and as one that starts
    with it, for every deletion order tried."""
    monkeypatch.setattr(costs, "SMALL_EDGES", 0)
    monkeypatch.setattr(costs, "LIST_EDGES", 0)
    built = 0
    for seed in range(40):
        rng = random.Random(seed)
        xg = random_xpg(rng, tree=seed % 2 == 0, max_vars=8, max_internal=40)
        tested = xg.tested_vars()
        for _ in range(5):
            order = rng.sample(tested, len(tested))
            answers = []
            for low, fraction, prebuilt in ((0, 10**9, False), (10**9, 1, False), (0, 1, True)):
                monkeypatch.setattr(costs, "SHORTCUT_MIN", low)
                monkeypatch.setattr(costs, "SHORTCUT_FRACTION", fraction)
                copy = fresh_copy(xg)
                if prebuilt:
                    copy.ends_at_zero()
                answers.append(axp_from_fixed(copy, order))
                built += copy.has_ends_at_zero() and not prebuilt
            assert answers[0] == answers[1] == answers[2]
    assert built > 50  # the early rule did build it in the middle of many searches


def test_ends_at_zero_against_walks() -> None:
    rng = random.Random(5)
    for _ in range(60):
        xg = fresh_copy(random_xpg(rng, tree=rng.random() < 0.5, max_internal=60))
        assert xg.ends_at_zero().tolist() == walked_ends(xg).tolist()


def test_ends_at_zero_with_missing_one_edges_and_cycles() -> None:
    # r -0-> a, a -1-> t0 (0-terminal), b has no 1-edge: b's 1-path ends at b itself
    xg = ExplanationGraph(
        ["x"],
        ["r", "a", "b", "t0", "t1"],
        0,
        np.array([0, 0, 0, -1, -1]),
        np.array([-1, -1, -1, 0, 1]),
        np.array([0, 0, 1, 2]),
        np.array([1, 4, 3, 3]),
        np.array([False, True, True, False]),
        check=False,
    )
    assert xg.ends_at_zero().tolist() == [False, True, False, True, False]
    cycle = ExplanationGraph(
        ["x"],
        ["r", "a", "t"],
        0,
        np.array([0, 0, -1]),
        np.array([-1, -1, 0]),
        np.array([0, 1, 0]),
        np.array([1, 0, 2]),
        np.array([True, True, False]),
        check=False,
    )
    with pytest.raises(InvalidGraphError, match="cycle"):
        cycle.ends_at_zero()


def renumbered(xg: ExplanationGraph, order: np.ndarray) -> ExplanationGraph:
    """The same graph with node ``order[k]`` renumbered ``k``."""
    new = np.empty(xg.n_nodes, dtype=np.int64)
    new[order] = np.arange(xg.n_nodes)
    return ExplanationGraph(
        xg.var_names,
        [xg.node_ids[i] for i in order.tolist()],
        int(new[xg.root]),
        xg.node_var[order],
        xg.terminal_value[order],
        new[xg.edge_src],
        new[xg.edge_dst],
        xg.edge_label,
        check=False,
    )


def layouts(rng: random.Random, xg: ExplanationGraph) -> list[ExplanationGraph]:
    """Terminals first, terminals last, and a random order (the 0-children's nodes form one
    run in the first two when every non-terminal has a 0-edge)."""
    key = (xg.node_var < 0).astype(int)
    return [
        renumbered(xg, np.argsort(-key, kind="stable")),
        renumbered(xg, np.argsort(key, kind="stable")),
        renumbered(xg, np.asarray(rng.sample(range(xg.n_nodes), xg.n_nodes))),
    ]


def test_traversal_arrays_with_several_zero_edges() -> None:
    """Binary and non-binary nodes, node orders with the 0-children's nodes in one run and
    not, against a plain loop; several 1-edges are still reported."""
    rng = random.Random(9)
    seen_multi = False
    graphs = [random_xpg(rng, tree=rng.random() < 0.5, max_internal=40) for _ in range(30)]
    for _ in range(15):  # binary graphs
        dg = random_reduced_obdd(8, rng.randint(4, 20), seed=rng.randrange(10**6))
        graphs.append(
            ExplanationGraph.from_decision_graph(dg, random_instance(rng, dg.features, {}))
        )
    graphs += [antichain_xpg(d) for d in (2, 3, 5)]
    runs = 0
    for xg in [g for original in graphs for g in layouts(rng, original)]:
        t = xg.csr()
        runs += t.zero_idx.base is not None and t.zero_idx.base is t.one.base
        zero = [[] for _ in range(xg.n_nodes)]
        one = [-1] * xg.n_nodes
        for s, d, lab in zip(xg.edge_src.tolist(), xg.edge_dst.tolist(), xg.edge_label.tolist()):
            if lab:
                one[s] = d
            else:
                zero[s].append(d)
        seen_multi |= any(len(z) > 1 for z in zero)
        assert t.one.tolist() == one
        assert [t.zero_idx[a:b].tolist() for a, b in zip(t.zero_ptr, t.zero_ptr[1:])] == zero
    assert seen_multi and runs > 20
    bad = ExplanationGraph(
        ["a"],
        ["r", "t", "u", "w"],
        0,
        np.array([0, -1, -1, -1]),
        np.array([-1, 1, 0, 0]),
        np.array([0, 0, 0]),
        np.array([1, 2, 3]),
        np.array([False, True, True]),
        check=False,
    )
    with pytest.raises(InvalidGraphError, match="'r' has 2 outgoing edges labelled 1"):
        bad.csr()
