"""Membership that scales with its output (issue 13): the superset filter, the vectorised
0-path masks of trees, and the budgeted dispatcher.

* :func:`xpg.explain.mask_families.minimal_masks` equals a brute-force minimal-set filter on
  thousands of seeded random families (random, antichains, chains, wide masks), and with a
  budget it returns either that answer or ``None``;
* the vectorised tree pass equals the depth-first one (also beyond 64 variables);
* the dispatcher's answers (``is_member``, ``classify_features``) equal the Oracle's on
  hundreds of random trees and DAGs, with the real budget and with a zero budget that
  sends trees to the SAT route;
* the antichain family has exactly ``C(d, d/2)`` CXps and every feature is a member.
"""

from __future__ import annotations

import itertools
import random
from math import comb

import numpy as np
import pytest

import xpg.core.costs as costs
import xpg.explain.mask_families
from xpg import ExplanationGraph
from xpg.explain.mask_families import minimal_masks, tree_zero_masks
from xpg.explain.membership import MembershipQueries, is_member, membership_route
from xpg.explain.relevance import classify_features
from xpg.explain.tree_xpg import tree_cxp_masks, tree_cxps, tree_singleton_cxps
from xpg.testing import Oracle, antichain_xpg, random_cases, random_dg_xpgs, random_xpg

pytestmark = pytest.mark.slow


def brute_minimal(masks: list[int]) -> list[int]:
    """Subset-minimal masks by comparing every pair, fewest bits first, ties by value (the
    pairs compared all at once by numpy when every mask fits in 64 bits)."""
    family = sorted(set(masks))
    if family and family[-1] >= 1 << 64:
        kept = [m for m in family if not any(k != m and k & m == k for k in family)]
    else:
        array = np.array(family, dtype=np.uint64)
        inside = (array[None, :] & array[:, None]) == array[None, :]  # [m, k]: k inside m
        np.fill_diagonal(inside, False)
        kept = [m for m, has_subset in zip(family, inside.any(axis=1)) if not has_subset]
    return sorted(kept, key=lambda m: (m.bit_count(), m))


def random_family(rng: random.Random) -> list[int]:
    """Random masks of one of several shapes: uniform, sparse, antichain, chain, wide."""
    shape = rng.choice(["uniform", "sparse", "antichain", "chain", "wide", "mixed"])
    n = rng.randint(1, 12)
    count = rng.randint(0, 60)
    if shape == "uniform":
        return [rng.getrandbits(n) for _ in range(count)]
    if shape == "sparse":
        return [rng.getrandbits(n) & rng.getrandbits(n) for _ in range(count)]
    if shape == "antichain":  # all sets of one size
        k = rng.randint(0, n)
        subsets = list(itertools.combinations(range(n), k))
        return [sum(1 << v for v in s) for s in rng.sample(subsets, min(count, len(subsets)))]
    if shape == "chain":  # nested sets, shuffled
        order = rng.sample(range(n), n)
        chain = [sum(1 << v for v in order[:i]) for i in range(rng.randint(0, n) + 1)]
        return rng.sample(chain, len(chain)) * rng.randint(1, 2)
    if shape == "wide":  # variables far beyond one machine word
        return [
            rng.getrandbits(300) & rng.getrandbits(300) & rng.getrandbits(300) for _ in range(count)
        ]
    small = [sum(1 << v for v in rng.sample(range(n), rng.randint(0, n))) for _ in range(count)]
    return small + [m | rng.getrandbits(n) for m in small]


@pytest.mark.parametrize("method", [None, "scan", "pairwise", "bitsets"])
def test_minimal_masks_against_brute_force(method: str | None, monkeypatch) -> None:
    """Each subset test (forced for every group, or chosen by cost) on 1500 families."""
    if method is not None:
        monkeypatch.setattr(xpg.explain.mask_families, "_method", lambda *_: method)
    rng = random.Random(str(method))
    for _ in range(1500):
        masks = random_family(rng)
        expected = brute_minimal(masks)
        assert minimal_masks(masks) == expected, masks
        budget = rng.choice([0, 1, 100, 1000, 10**9])
        limited = minimal_masks(iter(masks), max_work=budget)
        assert limited is None or limited == expected


def test_minimal_masks_edge_cases() -> None:
    assert minimal_masks([]) == []
    assert minimal_masks([0]) == [0] and minimal_masks([7, 0, 3]) == [0]
    n = 10
    chain = [(1 << i) - 1 for i in range(1, n + 1)]
    assert minimal_masks(chain[::-1]) == [1]
    antichain = [sum(1 << v for v in s) for s in itertools.combinations(range(n), n // 2)]
    assert minimal_masks(antichain) == sorted(antichain)
    assert minimal_masks(antichain, max_work=0) == sorted(antichain)  # one size: no test
    assert minimal_masks([1, 3], max_work=0) is None  # 3 must be tested against 1


def _wide_tree(rng: random.Random, n_vars: int, n_internal: int) -> ExplanationGraph:
    """A random tree XpG over many variables, built from random_xpg's shape with the
    variables renumbered into a wide range."""
    xg = random_xpg(rng, True, 8, n_internal)
    spread = sorted(rng.sample(range(n_vars), xg.n_vars))
    node_var = [spread[v] if v >= 0 else -1 for v in xg.node_var_list]
    return ExplanationGraph(
        [f"v{i}" for i in range(n_vars)],
        xg.node_ids,
        xg.root,
        node_var,  # type: ignore[arg-type]
        xg.terminal_value,
        xg.edge_src,
        xg.edge_dst,
        xg.edge_label,
    )


def test_vectorised_tree_masks_equal_depth_first(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(5)
    trees = [random_xpg(rng, True, 10, 40) for _ in range(150)]
    trees += random_dg_xpgs(rng, "tree", 100)
    trees += [_wide_tree(rng, rng.choice([64, 65, 130, 300]), 40) for _ in range(100)]
    trees += [antichain_xpg(d) for d in range(1, 9)]
    depth_first = [tree_zero_masks(xg) for xg in trees]
    monkeypatch.setattr(costs, "DFS_EDGES", 0)  # numpy on every tree
    for xg, expected in zip(trees, depth_first, strict=True):
        assert tree_zero_masks(xg) == expected
        assert tree_zero_masks(xg, max_masks=len(expected or ())) == expected
        if expected:
            assert tree_zero_masks(xg, max_masks=len(expected) - 1) is None


def _cases(seed: int) -> list[tuple[ExplanationGraph, Oracle]]:
    rng = random.Random(seed)
    cases = random_cases(rng, True, 30) + random_cases(rng, False, 15)
    cases += random_cases(rng, True, 20, max_vars=10, max_internal=40)
    cases += [(xg, Oracle.of_xpg(xg)) for xg in random_dg_xpgs(rng, "tree", 15)]
    cases += [(xg, Oracle.of_xpg(xg)) for xg in random_dg_xpgs(rng, "dag", 10)]
    return cases


def _check_against_oracle(xg: ExplanationGraph, truth: Oracle) -> set[str]:
    """Membership (both kinds) and classification agree with the Oracle; the routes taken."""
    members = truth.members()
    routes = set()
    with MembershipQueries(xg) as queries:
        for kind in ("axp", "cxp"):
            for name in xg.var_names:
                answer = queries.is_member(name, kind)  # type: ignore[arg-type]
                assert answer.member == (name in members), (kind, name)
                assert answer.sat_calls == (answer.route == "sat")
                if answer.member:
                    assert answer.witness is not None and name in answer.witness
                    assert frozenset(answer.witness) in truth.of_kind(kind)
        routes.add(queries.choice.route)
    result = classify_features(xg)
    routes.add(result.route)
    assert set(result.necessary) == truth.necessary()
    assert set(result.relevant) == members - truth.necessary()
    assert set(result.irrelevant) == set(xg.var_names) - members
    if result.route == "tree-polynomial":
        assert result.sat_calls == 0
    return routes


@pytest.mark.parametrize("seed", range(3))
def test_dispatcher_matches_oracle(seed: int) -> None:
    for xg, truth in _cases(300 + seed):  # 90 graphs per seed
        routes = _check_against_oracle(xg, truth)
        assert routes == ({"tree-polynomial"} if xg.is_tree() else {"sat"})


@pytest.mark.parametrize("seed", range(3))
def test_dispatcher_beyond_budget_matches_oracle(seed: int, monkeypatch) -> None:
    """With no filter budget, trees whose candidates need a subset test take the SAT
    route; the answers stay the Oracle's."""
    monkeypatch.setattr(costs, "FILTER_WORK_BASE", 0)
    monkeypatch.setattr(costs, "FILTER_WORK_PER_EDGE", 0)
    on_sat = 0
    for xg, truth in _cases(400 + seed):
        routes = _check_against_oracle(xg, truth)
        if xg.is_tree() and "sat" in routes:
            on_sat += 1
            choice = membership_route(xg)
            assert choice.route == "sat" and "budget of 0 work units" in choice.reason
    assert on_sat >= 10


def test_route_reason_names_the_counts() -> None:
    xg = antichain_xpg(6)
    choice = membership_route(xg)
    assert choice.route == "tree-polynomial" and choice.cxp_masks is not None
    assert "20 paths to 0-terminals give 20 distinct candidate CXps" in choice.reason
    assert "filtered to 20 CXps" in choice.reason
    assert list(choice.cxp_masks) == tree_cxp_masks(xg)


@pytest.mark.parametrize("depth", [2, 4, 6, 8])
def test_antichain_family(depth: int) -> None:
    xg = antichain_xpg(depth)
    cxps = list(tree_cxps(xg))
    assert len(cxps) == len(set(cxps)) == comb(depth, depth // 2)
    assert {len(c) for c in cxps} == {depth // 2}
    truth = Oracle.of_xpg(xg)
    assert truth.cxps == {frozenset(c) for c in cxps}
    for route in ("tree-polynomial", "sat", None):
        for name in xg.var_names:
            assert is_member(xg, name, route=route).member  # type: ignore[arg-type]
        result = classify_features(xg, route=route)  # type: ignore[arg-type]
        assert result.irrelevant == ()
        assert result.necessary == (tuple(xg.var_names) if depth == 2 else ())


def test_tree_singleton_cxps_are_the_necessary_features() -> None:
    rng = random.Random(9)
    cases = random_cases(rng, True, 100, max_vars=8, max_internal=30)
    cases += [(xg, Oracle.of_xpg(xg)) for xg in random_dg_xpgs(rng, "tree", 50)]
    for xg, truth in cases:
        assert set(xg.names(tree_singleton_cxps(xg))) == truth.necessary()


def large_family(rng: random.Random) -> list[int]:
    """Hundreds to thousands of masks over up to 64 variables: few minimal sets with many
    supersets (peeling decides alone), a large antichain (peeling stops at once), or both."""
    n = rng.randint(8, 64)
    shape = rng.choice(["few-minimal", "antichain", "both"])
    seeds = [sum(1 << v for v in rng.sample(range(n), rng.randint(1, 4))) for _ in range(6)]
    family = [rng.choice(seeds) | rng.getrandbits(n) for _ in range(rng.randint(300, 3000))]
    if shape != "few-minimal":
        k = min(n, 10) // 2
        chain = [sum(1 << v for v in s) for s in itertools.combinations(range(min(n, 10)), k)]
        family = chain + (family if shape == "both" else [])
    return family


@pytest.mark.parametrize("bitwise_count", [True, False])
def test_minimal_masks_by_peeling_against_brute_force(bitwise_count: bool, monkeypatch) -> None:
    """Families past SMALL_FAMILY: the peeled answer, with or without numpy's bit count,
    with the peeling rules forced to stop at once or never, equals brute force."""
    if not bitwise_count:
        monkeypatch.delattr(xpg.explain.mask_families.np, "bitwise_count", raising=False)
    rng = random.Random(int(bitwise_count))
    for k in range(60):
        masks = large_family(rng)
        expected = brute_minimal(masks)
        assert minimal_masks(masks) == expected
        with monkeypatch.context() as m:
            passes, gain = [(0, 0), (10**9, 0), (10**9, 10**9)][k % 3]  # stop at once,
            m.setattr(costs, "PEEL_PASSES", passes)  # never, after 8 masks
            m.setattr(costs, "PEEL_GAIN", gain)
            assert minimal_masks(masks) == expected
        limited = minimal_masks(masks, max_work=rng.choice([0, 10**4, 10**6, 10**9]))
        assert limited is None or limited == expected


@pytest.mark.parametrize("bitwise_count", [True, False])
def test_popcount_matches_python(bitwise_count: bool, monkeypatch) -> None:
    if not bitwise_count:
        monkeypatch.delattr(xpg.explain.mask_families.np, "bitwise_count", raising=False)
    rng = random.Random(4)
    values = [0, 1, 2**64 - 1, 2**63] + [rng.getrandbits(64) for _ in range(500)]
    array = xpg.explain.mask_families.np.array(values, dtype=xpg.explain.mask_families.np.uint64)
    counts = xpg.explain.mask_families._popcount(array).tolist()
    assert counts == [v.bit_count() for v in values]


def test_only_axp_shortcut_matches_oracle() -> None:
    """When the first AXp holds only necessary features it is the only AXp: the classes
    are read off it without listing CXps or calling SAT.  On random trees (64 edges and
    more) and DAGs, the shortcut's answers equal the Oracle's, it is taken only when the
    Oracle has one AXp, and it is taken on some graphs of both kinds."""
    taken = {"tree": 0, "dag": 0}
    rng = random.Random(17)
    for k in range(300):
        tree = k % 2 == 0
        xg = random_xpg(rng, tree=tree, max_vars=8, max_internal=60)
        if tree and len(xg.edge_src) < 64:
            continue
        truth = Oracle.of_xpg(xg)
        result = classify_features(xg)
        assert set(result.necessary) == truth.necessary()
        members = set().union(*truth.axps) if truth.axps else set()
        assert set(result.relevant) == members - truth.necessary()
        if "holds only necessary features" in result.reason:
            assert len(truth.axps) == 1 and result.sat_calls == 0 and result.enumerated == 0
            taken["tree" if tree else "dag"] += 1
    assert taken["tree"] > 0 and taken["dag"] > 0, taken
