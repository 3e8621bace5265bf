"""Array-native traversal against the Python-list path, the original algorithms and the Oracle.

Every traversal can run three ways: over Python lists (small graphs), over memoryviews of
the numpy CSR arrays node by node (large graphs), and as vectorised frontier passes (past
``costs.PYTHON_BUDGET`` visited nodes).  The thresholds are forced here so that each way
runs on the same hundreds of seeded random graphs (trees, DAGs, OBDDs), and every answer
must be identical: the same AXp for the same deletion order, the same depth-first path,
hence the same CXp.  The reference is a copy of the original list-based algorithms.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import numpy as np
import pytest

import xpg.core.costs as costs
from xpg.core.xpgraph import ExplanationGraph
from xpg.errors import InvalidGraphError
from xpg.explain.axp_cxp import axp_from_fixed, find_axp, find_cxp, shrink_weak_cxp
from xpg.explain.reach import IncrementalReach, path_to_zero, zero_edge_vars, zero_path
from xpg.testing import (
    Oracle,
    fresh_copy,
    random_instance,
    random_reduced_obdd,
    random_xpg,
)
from xpg.testing.graphs import ladder
from xpg.testing.xpgs import random_dg_xpgs

# (SMALL_EDGES, LIST_EDGES, PYTHON_BUDGET, pre-built 1-path shortcut)
MODES = {
    "lists": (10**9, 10**9, 10**9, False),
    "csr-lists": (0, 10**9, 10**9, False),
    "arrays": (0, 0, 10**9, False),
    "arrays-shortcut": (0, 0, 10**9, True),
    "frontier": (0, 0, 1, True),
    "mixed": (0, 0, 3, False),
}


# -- the original algorithms (lists), as the reference ------------------------------------------
def _lists(xg: ExplanationGraph) -> tuple[list[int], list[list[int]]]:
    one = [-1] * xg.n_nodes
    zero: list[list[int]] = [[] for _ in range(xg.n_nodes)]
    for s, d, lab in zip(xg.edge_src.tolist(), xg.edge_dst.tolist(), xg.edge_label.tolist()):
        if lab:
            one[s] = d
        else:
            zero[s].append(d)
    return one, zero


def ref_zero_path(xg: ExplanationGraph, free: set[int]) -> list[int] | None:
    one, zero = _lists(xg)
    var, value = xg.node_var.tolist(), xg.terminal_value.tolist()
    parent = [-1] * xg.n_nodes
    seen = bytearray(xg.n_nodes)
    seen[xg.root] = 1
    stack = [xg.root]
    while stack:
        n = stack.pop()
        if value[n] == 0:
            path = [n]
            while parent[path[-1]] >= 0:
                path.append(parent[path[-1]])
            return path[::-1]
        if var[n] < 0:
            continue
        kids = ([one[n]] if one[n] >= 0 else []) + (zero[n] if var[n] in free else [])
        for c in kids:
            if not seen[c]:
                seen[c] = 1
                parent[c] = n
                stack.append(c)
    return None


def ref_axp(xg: ExplanationGraph, fixed: list[int]) -> list[int]:
    """Alg. 2: try to free each variable in order, keep it free if no 0-terminal is reachable."""
    free = set(range(xg.n_vars)) - set(fixed)
    kept = []
    for v in fixed:
        if ref_zero_path(xg, free | {v}) is None:
            free.add(v)
        else:
            kept.append(v)
    return kept


def ref_shrink(xg: ExplanationGraph, current: set[int]) -> list[int]:
    one, _ = _lists(xg)
    var = xg.node_var.tolist()
    necessary: set[int] = set()
    while True:
        open_vars = sorted(current - necessary)
        if not open_vars:
            return sorted(current)
        path = ref_zero_path(xg, current - {open_vars[0]})
        if path is None:
            necessary.add(open_vars[0])
        else:
            current = {var[p] for p, c in zip(path, path[1:]) if c != one[p]}


def ref_find_cxp(xg: ExplanationGraph) -> tuple[str, ...] | None:
    first = ref_zero_path(xg, set(xg.tested_vars()))
    if first is None:
        return None
    one, _ = _lists(xg)
    start = {int(xg.node_var[p]) for p, c in zip(first, first[1:]) if c != one[p]}
    return xg.names(ref_shrink(xg, start))


# -- graphs ---------------------------------------------------------------------------------------
def graphs(seed: int) -> Iterator[ExplanationGraph]:
    """About 20 graphs per seed: random XpG trees and DAGs, XpGs of random decision graphs
    (trees, merged DAGs, ordered DAGs), and of reduced OBDDs."""
    rng = random.Random(seed)
    for _ in range(4):
        yield random_xpg(rng, tree=True, max_vars=6, max_internal=20)
        yield random_xpg(rng, tree=False, max_vars=6, max_internal=20)
    for kind in ("tree", "dag", "ordered"):
        yield from random_dg_xpgs(rng, kind, 3)
    for _ in range(3):
        dg = random_reduced_obdd(10, rng.randint(8, 40), seed=rng.randrange(10**6))
        yield ExplanationGraph.from_decision_graph(dg, random_instance(rng, dg.features, {}))


@pytest.fixture(params=list(MODES))
def mode(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    small, as_lists, budget, _ = MODES[request.param]
    monkeypatch.setattr(costs, "SMALL_EDGES", small)
    monkeypatch.setattr(costs, "LIST_EDGES", as_lists)
    monkeypatch.setattr(costs, "PYTHON_BUDGET", budget)
    return str(request.param)


def prepared(xg: ExplanationGraph, mode: str) -> ExplanationGraph:
    xg = fresh_copy(xg)
    if MODES[mode][3]:
        xg.ends_at_zero()
    return xg


@pytest.mark.parametrize("seed", range(12))
def test_every_way_gives_the_original_answers(seed: int, mode: str) -> None:
    rng = random.Random(seed)
    for original in graphs(seed):
        xg = prepared(original, mode)
        tested = xg.tested_vars()
        for _ in range(4):
            free = {v for v in range(xg.n_vars) if rng.random() < 0.5}
            path = zero_path(xg, free)
            assert path == ref_zero_path(xg, free)
            assert path_to_zero(xg, free) == (path is not None)
            if path is not None:
                assert zero_edge_vars(xg, path) <= free
                assert shrink_weak_cxp(xg, zero_edge_vars(xg, path)) == ref_shrink(
                    xg, zero_edge_vars(xg, path)
                )
            order = rng.sample(tested, len(tested))
            fixed = [v for v in order if rng.random() < 0.7 or v not in free]
            if ref_zero_path(xg, set(range(xg.n_vars)) - set(fixed)) is None:
                assert axp_from_fixed(xg, fixed) == ref_axp(xg, fixed)
        assert find_axp(xg) == xg.names(ref_axp(xg, tested))
        assert find_cxp(xg) == ref_find_cxp(xg)


@pytest.mark.parametrize("seed", range(8))
def test_explanations_are_the_oracles(seed: int, mode: str) -> None:
    for original in graphs(100 + seed):
        xg = prepared(original, mode)
        truth = Oracle.of_xpg(xg)
        assert frozenset(find_axp(xg)) in truth.axps
        cxp = find_cxp(xg)
        assert (cxp is None and not truth.cxps) or frozenset(cxp or ()) in truth.cxps


@pytest.mark.parametrize("n", [6, 30])
def test_deep_ladders(n: int, mode: str) -> None:
    """Many frontier levels, 2**n paths; every variable free reaches the 0-terminal."""
    dg = ladder(n)
    x = {f.name: 1 for f in dg.features}
    xg = prepared(ExplanationGraph.from_decision_graph(dg, x), mode)
    every = list(range(xg.n_vars))
    assert zero_path(xg, every) == ref_zero_path(xg, set(every))
    assert axp_from_fixed(xg, every) == ref_axp(xg, every)
    assert find_cxp(xg) == ref_find_cxp(xg)


def test_incremental_reach_undoes_refused_attempts(mode: str) -> None:
    for original in graphs(7):
        xg = prepared(original, mode)
        r = IncrementalReach(xg, [], budget=MODES[mode][2])
        if r.hits_zero:
            continue
        for v in xg.tested_vars():
            before = bytes(r.reached)
            if not r.try_free(v):
                assert bytes(r.reached) == before
        reached = np.frombuffer(r.reached, dtype=np.uint8).astype(bool)
        assert not (reached & (xg.terminal_value == 0)).any()


def test_traversal_arrays_match_a_plain_loop() -> None:
    rng = random.Random(3)
    for _ in range(50):
        xg = fresh_copy(random_xpg(rng, tree=rng.random() < 0.5, max_internal=30))
        t = xg.csr()
        one, zero = _lists(xg)
        assert t.one.tolist() == one
        assert [t.zero_idx[a:b].tolist() for a, b in zip(t.zero_ptr, t.zero_ptr[1:])] == zero
        ptr, idx = xg.var_nodes()
        for v in range(xg.n_vars):
            assert idx[ptr[v] : ptr[v + 1]].tolist() == np.flatnonzero(xg.node_var == v).tolist()
        ends = []
        for n in range(xg.n_nodes):
            while one[n] >= 0:
                n = one[n]
            ends.append(xg.terminal_value[n] == 0)
        assert xg.ends_at_zero().tolist() == ends
        small = list(xg.views())
        with pytest.MonkeyPatch.context() as m:
            m.setattr(costs, "SMALL_EDGES", 0)
            assert [list(s) for s in fresh_copy(xg).views()] == [list(s) for s in small]
            m.setattr(costs, "LIST_EDGES", 0)
            assert all(isinstance(s, memoryview) for s in fresh_copy(xg).views())
            assert [list(s) for s in fresh_copy(xg).views()] == [list(s) for s in small]


def test_several_one_edges_are_reported() -> None:
    xg = ExplanationGraph(
        ["a"],
        ["r", "t", "u"],
        0,
        np.array([0, -1, -1]),
        np.array([-1, 1, 0]),
        np.array([0, 0]),
        np.array([1, 2]),
        np.array([True, True]),
        check=False,
    )
    for small in (0, 10**9):
        with pytest.MonkeyPatch.context() as m:
            m.setattr(costs, "SMALL_EDGES", small)
            with pytest.raises(InvalidGraphError, match="'r' has 2 outgoing edges labelled 1"):
                fresh_copy(xg).views()
