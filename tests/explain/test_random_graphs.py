"""Explanations of hundreds of random decision graphs against exhaustive evaluation.

The reference is the decision graph's own classification function evaluated on
every representative input (not the explanation graph), so these tests check
Prop. 5 of the core paper as well as the code.
"""

from __future__ import annotations

import random

import pytest

from xpg import ExplanationGraph, counterexample, enumerate_explanations, find_axp, find_cxp
from xpg.explain.axp_cxp import is_weak_axp, is_weak_cxp
from xpg.testing import ClassTable, random_decision_graph


@pytest.mark.parametrize("kind", ["tree", "dag", "ordered"])
@pytest.mark.parametrize("seed", range(10))
def test_explanations_match_exhaustive_evaluation(kind: str, seed: int) -> None:
    rng = random.Random(1000 * seed + ["tree", "dag", "ordered"].index(kind))  # hash() varies
    for _ in range(10):  # 10 graphs per case: 300 graphs in all
        dg = random_decision_graph(rng, kind)
        dg.validate()
        brute = ClassTable.of_graph(dg)
        points = brute.points()
        for x in rng.sample(points, min(5, len(points))):
            xg = ExplanationGraph.from_decision_graph(dg, x)
            assert xg.prediction == dg.predict(x)
            truth = brute.oracle(x)
            axps, cxps = truth.axps, truth.cxps
            result = enumerate_explanations(xg)
            assert result.complete
            assert len(result.axps) == len(set(result.axps)), "an AXp was reported twice"
            assert len(result.cxps) == len(set(result.cxps)), "a CXp was reported twice"
            assert {frozenset(a) for a in result.axps} == axps
            assert {frozenset(c) for c in result.cxps} == cxps
            for c in result.cxps:  # a counterexample changes only the CXp and flips the class
                change, other = counterexample(xg, c)
                assert set(change) <= set(c) and other != xg.prediction
                assert dg.predict({**dict(zip(xg.var_names, x)), **change}) == other
            assert frozenset(find_axp(xg)) in axps
            cxp = find_cxp(xg)
            assert (cxp is None and not cxps) or frozenset(cxp) in cxps
            # from a random seed: the result lies inside the seed
            n = xg.n_vars
            fixed = {i for i in range(n) if rng.random() < 0.6}
            if is_weak_axp(xg, fixed):
                axp = find_axp(xg, seed=sorted(fixed))
                assert set(xg.indices(axp)) <= fixed and frozenset(axp) in axps
            free = {i for i in range(n) if rng.random() < 0.6}
            if is_weak_cxp(xg, free):
                cxp = find_cxp(xg, seed=sorted(free))
                assert cxp is not None and set(xg.indices(cxp)) <= free
                assert frozenset(cxp) in cxps


def test_generators_produce_dags_and_trees() -> None:
    rng = random.Random(7)
    kinds = {
        k: [random_decision_graph(rng, k).is_tree() for _ in range(20)]
        for k in ("tree", "dag", "ordered")
    }
    assert all(kinds["tree"])
    assert sum(not t for t in kinds["dag"]) >= 10
    assert sum(not t for t in kinds["ordered"]) >= 10
