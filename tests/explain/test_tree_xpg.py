"""Prop. 6: all CXps of tree XpGs in polynomial time, all AXps by hitting-set duality.

Checked against exhaustive evaluation of the XpG function and against MARCO on hundreds of
seeded random trees (built directly, and from random decision trees and instances).
"""

from __future__ import annotations

import random

import pytest

from xpg import ExplanationGraph, InvalidGraphError, XpgError, enumerate_explanations
from xpg.errors import NotATreeError
from xpg.examples import AGE, CREDIT, INCOME, STUDENT, paper_figure1
from xpg.explain.reach import minimal_masks
from xpg.explain.tree_xpg import minimal_hitting_sets, tree_axps, tree_cxp_masks, tree_cxps
from xpg.io import read_xpg_text
from xpg.testing import Oracle, brute_minimal_hitting_sets, random_dg_xpgs, random_xpg


def _trees(seed: int, count: int) -> list[ExplanationGraph]:
    rng = random.Random(seed)
    direct = [random_xpg(rng, tree=True) for _ in range(count)]
    return direct + random_dg_xpgs(rng, "tree", count)


def _sets(items) -> frozenset[frozenset[str]]:
    return frozenset(frozenset(x) for x in items)


@pytest.mark.parametrize("seed", range(8))
def test_tree_cxps_and_axps_match_exhaustive_evaluation_and_marco(seed: int) -> None:
    for xg in _trees(seed, 25):  # 400 trees in all
        assert xg.is_tree()
        truth = Oracle.of_xpg(xg)
        cxps = list(tree_cxps(xg))
        assert len(cxps) == len(set(cxps)), "a CXp was listed twice"
        assert [len(c) for c in cxps] == sorted(len(c) for c in cxps), "not smallest first"
        assert _sets(cxps) == truth.cxps
        for method in ("lbx", "sorted"):
            axps = list(tree_axps(xg, method=method))
            assert len(axps) == len(set(axps)), "an AXp was listed twice"
            assert _sets(axps) == truth.axps, method
        marco = enumerate_explanations(xg)
        assert marco.complete
        assert _sets(marco.cxps) == _sets(cxps) and _sets(marco.axps) == truth.axps


def test_paper_figure1_tree() -> None:
    xg = ExplanationGraph.from_decision_graph(
        paper_figure1(), {AGE: "O", INCOME: "L", STUDENT: "Y", CREDIT: "P"}
    )
    assert xg.is_tree()
    assert list(tree_axps(xg)) == [tuple(n for n in xg.var_names if n in {AGE, CREDIT})]
    cxps = _sets(tree_cxps(xg))
    assert cxps == {frozenset({AGE}), frozenset({CREDIT})}


def test_names_are_features_of_the_model() -> None:
    rng = random.Random(5)
    for xg in random_dg_xpgs(rng, "tree", 30):
        for cxp in tree_cxps(xg):
            assert list(cxp) == [n for n in xg.var_names if n in cxp]  # feature order


def test_constant_prediction_has_no_cxp_and_the_empty_axp() -> None:
    xg = read_xpg_text(
        "NN: 3\nRoot: 1\nT: 2 3\nTDef:\n2 1\n3 1\nNT: 1\nNTDef:\n1 2 1\n1 3 0\n"
        "NV: 1\nVarDef:\n1 x\n"
    )
    assert list(tree_cxps(xg)) == []
    assert list(tree_axps(xg)) == [()]
    assert Oracle.of_xpg(xg).axps == {frozenset()}


def test_repeated_variable_on_a_path_counts_once() -> None:
    # root tests x (0-edge to a node testing x again, whose 0-edge reaches a 0-terminal)
    xg = read_xpg_text(
        "NN: 5\nRoot: 1\nT: 3 4 5\nTDef:\n3 1\n4 0\n5 1\nNT: 1 2\nNTDef:\n"
        "1 3 1\n1 2 0\n2 4 0\n2 5 1\nNV: 1\nVarDef:\n1 x\n2 x\n"
    )
    assert tree_cxp_masks(xg) == [0b1]
    assert list(tree_cxps(xg)) == [("x",)]


def test_dag_is_refused_with_a_named_node() -> None:
    xg = read_xpg_text(
        "NN: 4\nRoot: 1\nT: 3 4\nTDef:\n3 1\n4 0\nNT: 1 2\nNTDef:\n1 2 1\n1 4 0\n"
        "2 3 1\n2 4 0\nNV: 2\nVarDef:\n1 a\n2 b\n"
    )
    assert not xg.is_tree()
    with pytest.raises(NotATreeError, match=r"found node 4 with 2 parents$") as err:
        list(tree_cxps(xg))
    assert isinstance(err.value, InvalidGraphError)
    assert isinstance(err.value, XpgError) and isinstance(err.value, ValueError)
    with pytest.raises(NotATreeError):
        next(tree_axps(xg))


def test_minimal_masks_and_hitting_sets_against_brute_force() -> None:
    rng = random.Random(11)
    for _ in range(200):
        n = rng.randint(1, 6)
        family = [
            frozenset(rng.sample(range(n), rng.randint(1, n))) for _ in range(rng.randint(0, 6))
        ]
        masks = [sum(1 << v for v in s) for s in family]
        kept = {frozenset(v for v in range(n) if m >> v & 1) for m in minimal_masks(masks)}
        assert kept == {s for s in family if not any(t < s for t in family)}
        expected = brute_minimal_hitting_sets(family, n)
        for method in ("lbx", "sorted"):
            found = [frozenset(h) for h in minimal_hitting_sets(family, method)]
            assert len(found) == len(set(found))
            assert set(found) == expected
        sizes = [len(h) for h in minimal_hitting_sets(family, "sorted")]
        assert sizes == sorted(sizes), "the sorted method yields smallest sets first"


def test_deep_tree_is_listed_in_polynomial_time() -> None:
    # a complete binary tree of depth 14 over 20 variables: 16384 paths, enumeration of
    # CXps by MARCO would need one SAT call per explanation; Prop. 6 needs one traversal
    rng = random.Random(3)
    depth, n_vars = 14, 20
    node_var, src, dst, label = [], [], [], []
    frontier = [(0, 0)]
    node_var.append(rng.randrange(n_vars))
    while frontier:
        n, d = frontier.pop()
        for lab in (True, False):
            c = len(node_var)
            node_var.append(rng.randrange(n_vars) if d + 1 < depth else -1)
            src.append(n)
            dst.append(c)
            label.append(lab)
            if d + 1 < depth:
                frontier.append((c, d + 1))
    value = [-1 if v >= 0 else rng.randint(0, 1) for v in node_var]
    node = 0
    while node_var[node] >= 0:
        node = next(d for s, d, lab in zip(src, dst, label, strict=True) if s == node and lab)
    value[node] = 1
    xg = ExplanationGraph(
        [f"v{i}" for i in range(n_vars)], range(len(node_var)), 0, node_var, value, src, dst, label
    )
    cxps = list(tree_cxps(xg))
    assert cxps and all(cxps)
    # every CXp is minimal: dropping any one feature leaves no 0-terminal reachable
    from xpg.explain.axp_cxp import is_weak_cxp

    for cxp in cxps[:50]:
        idx = xg.indices(cxp)
        assert is_weak_cxp(xg, idx)
        assert not any(is_weak_cxp(xg, idx - {v}) for v in idx)
