"""Membership, feature classification and smallest explanations on hundreds of seeded random
tree and DAG XpGs, against exhaustive evaluation of the XpG function.

Also: the route is ``tree-polynomial`` exactly when the graph is a tree, and the SAT route
makes exactly one SAT call per query (counted with a spy around python-sat's solver).
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
from pysat.solvers import Solver as RealSolver

import xpg.solvers.sat
from xpg import ExplanationGraph
from xpg.explain.membership import MembershipQueries, is_member, membership_route
from xpg.explain.relevance import classify_features
from xpg.explain.smallest import smallest_axp, smallest_cxp
from xpg.testing import Oracle, random_cases, random_dg_xpgs

pytestmark = pytest.mark.slow


class SolveCounter:
    """Replaces python-sat's Solver in the SAT encodings; counts every solve call."""

    calls = 0
    built = 0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        SolveCounter.built += 1
        self._solver = RealSolver(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._solver, name)
        if name.startswith("solve"):

            def counted(*args: Any, **kwargs: Any) -> Any:
                SolveCounter.calls += 1
                return attr(*args, **kwargs)

            return counted
        return attr


@pytest.fixture
def counter(monkeypatch: pytest.MonkeyPatch) -> type[SolveCounter]:
    SolveCounter.calls = SolveCounter.built = 0
    monkeypatch.setattr(xpg.solvers.sat, "Solver", SolveCounter)
    return SolveCounter


def _is_tree(xg: ExplanationGraph) -> bool:
    """Independent of the library: no node has two parents."""
    parents = Counter(xg.edge_dst.tolist())
    return all(k <= 1 for k in parents.values())


def _cases(seed: int, count: int) -> list[tuple[ExplanationGraph, Oracle]]:
    rng = random.Random(seed)
    cases = random_cases(rng, True, count) + random_cases(rng, False, count)
    for kind in ("tree", "dag", "ordered"):
        cases += [(xg, Oracle.of_xpg(xg)) for xg in random_dg_xpgs(rng, kind, count // 2)]
    return cases


def _check_membership(
    xg: ExplanationGraph, truth: Oracle, counter: type[SolveCounter], route: str | None
) -> None:
    members = truth.members()
    expected_route = "tree-polynomial" if _is_tree(xg) else "sat"
    assert membership_route(xg).route == expected_route
    for kind in ("axp", "cxp"):
        for name in xg.var_names:
            before = counter.calls
            answer = is_member(xg, name, kind, route=route)  # type: ignore[arg-type]
            made = counter.calls - before
            assert answer.route == (route or expected_route)
            if answer.route == "sat":
                assert made == 1 and answer.sat_calls == 1, "one SAT call per query"
            else:
                assert made == 0 and answer.sat_calls == 0
            assert answer.member == (name in members), (kind, name)
            if answer.member:
                assert answer.witness is not None and name in answer.witness
                assert frozenset(answer.witness) in truth.of_kind(kind), "not a verified XP"
                assert list(answer.witness) == [n for n in xg.var_names if n in answer.witness]
            else:
                assert answer.witness is None
            doc = answer.to_json()
            assert list(doc) == ["feature", "kind", "member", "route", "witness"]
            assert doc["feature"] == name and doc["kind"] == kind
    # many queries on one solver: still one SAT call each, same answers
    before = counter.built
    with MembershipQueries(xg, route=route) as queries:  # type: ignore[arg-type]
        for kind in ("axp", "cxp"):
            for name in xg.var_names:
                answer = queries.is_member(name, kind)  # type: ignore[arg-type]
                assert answer.member == (name in members)
                assert answer.sat_calls == (answer.route == "sat")
                if answer.member:
                    assert answer.witness is not None and name in answer.witness
                    assert frozenset(answer.witness) in truth.of_kind(kind)
        on_sat = queries.choice.route == "sat"
        assert queries.sat_calls == (2 * xg.n_vars if on_sat else 0)
    assert counter.built - before == (1 if on_sat else 0), "one solver for all queries"


@pytest.mark.parametrize("seed", range(10))
def test_membership_matches_exhaustive_evaluation(seed: int, counter) -> None:
    for xg, truth in _cases(seed, 20):  # 70 graphs per seed, 700 in all
        _check_membership(xg, truth, counter, route=None)


@pytest.mark.parametrize("seed", range(2))
def test_sat_route_on_trees_agrees(seed: int, counter) -> None:
    """The SAT encoding is sound on trees too (forced route), so both routes cross-check."""
    rng = random.Random(100 + seed)
    for xg, truth in random_cases(rng, True, 40):
        _check_membership(xg, truth, counter, route="sat")


@pytest.mark.parametrize("tree", [True, False])
def test_larger_graphs(tree: bool, counter) -> None:
    """Up to 10 features and 40 non-terminals (up to 1024 subsets evaluated per graph)."""
    rng = random.Random(77 + tree)
    for xg, truth in random_cases(rng, tree, 60, max_vars=10, max_internal=40):
        _check_membership(xg, truth, counter, route=None)
        for strategy in ("portfolio", "queries", "enumeration"):
            result = classify_features(xg, route="sat", strategy=strategy)  # type: ignore[arg-type]
            assert set(result.necessary) == truth.necessary()
            assert set(result.relevant) == truth.members() - truth.necessary()
        ax = smallest_axp(xg)
        assert ax.features is not None and frozenset(ax.features) in truth.axps
        assert len(ax.features) == min(len(a) for a in truth.axps)


@pytest.mark.parametrize("seed", range(8))
def test_feature_classes_match_exhaustive_evaluation(seed: int, counter) -> None:
    for xg, truth in _cases(1000 + seed, 20):
        necessary = truth.necessary()
        members = truth.members()
        runs = [(None, "portfolio")] + [("sat", s) for s in ("portfolio", "queries", "enumeration")]
        for route, strategy in runs:
            before = counter.calls
            result = classify_features(xg, route=route, strategy=strategy)  # type: ignore[arg-type]
            if strategy == "enumeration":
                assert result.sat_calls == 0
            if strategy == "queries":
                assert result.enumerated == 0
            assert result.route == (route or ("tree-polynomial" if _is_tree(xg) else "sat"))
            assert counter.calls - before == result.sat_calls
            if result.route == "tree-polynomial":
                assert result.sat_calls == 0
            for name in xg.var_names:
                expected = (
                    "necessary"
                    if name in necessary
                    else "relevant"
                    if name in members
                    else "irrelevant"
                )
                assert result.classes[name] == expected, (name, route)
            assert set(result.necessary) == necessary
            assert set(result.necessary) | set(result.relevant) == members
            assert list(result.classes) == xg.var_names


@pytest.mark.parametrize("seed", range(8))
def test_smallest_explanations_match_exhaustive_evaluation(seed: int) -> None:
    for xg, truth in _cases(2000 + seed, 20):
        min_axp = min(len(a) for a in truth.axps)
        methods = [None, "implicit-hitting-set"] if _is_tree(xg) else [None]
        for method in methods:
            ax = smallest_axp(xg, method=method)  # type: ignore[arg-type]
            assert ax.optimal and ax.features is not None
            assert frozenset(ax.features) in truth.axps
            assert len(ax.features) == min_axp == ax.lower_bound
            cx = smallest_cxp(xg, method=method)  # type: ignore[arg-type]
            if not truth.cxps:
                assert cx.features is None and cx.optimal
                continue
            assert cx.features is not None and cx.optimal
            assert frozenset(cx.features) in truth.cxps
            assert len(cx.features) == min(len(c) for c in truth.cxps) == cx.lower_bound
            if cx.method == "implicit-hitting-set":
                # each iteration but the last adds a new AXp to hit
                assert 1 <= cx.iterations <= len(truth.axps) + 1
            if ax.method == "implicit-hitting-set":
                assert 1 <= ax.iterations <= len(truth.cxps) + 1
        # a budget of one hitting set: the answer is a real AXp and says whether it is optimal
        one = smallest_axp(xg, method="implicit-hitting-set", max_iterations=1)
        assert one.iterations == (1 if truth.cxps else 0) and one.features is not None
        assert frozenset(one.features) in truth.axps
        assert one.lower_bound <= min_axp <= len(one.features)
        if one.optimal:
            assert len(one.features) == min_axp
        else:
            assert one.lower_bound < len(one.features)
