"""Feature classes on trees: the dispatcher's race against the listing (issue 27).

``classify_features`` on a tree XpG lists the CXps (Prop. 6) unless AXps found by deletion,
or on large trees enumeration, decide every class within the time the listing is estimated
to take (:func:`xpg.explain.relevance.listing_seconds`).  These tests check the policy
without timing anything: the structures the tree route builds, which route the race takes
when the estimate leaves it all the time it needs or none, and that every branch gives the
Oracle's answer.
"""

from __future__ import annotations

import random

import pytest

import xpg.core.costs as costs
import xpg.explain.relevance as relevance
from xpg import ExplanationGraph
from xpg.explain.reach import IncrementalReach
from xpg.explain.relevance import classify_features
from xpg.testing import Oracle, antichain_xpg, fresh_copy, irrelevant_subtree_xpg, random_xpg


def _classes(result: relevance.FeatureClassification) -> tuple[tuple[str, ...], ...]:
    return result.necessary, result.relevant, result.irrelevant


def test_tree_route_builds_no_adjacency_lists(monkeypatch: pytest.MonkeyPatch) -> None:
    """The issue's tree: 16 features, 12,870 CXps in one antichain.  The tree route used to
    build per-node adjacency lists for the necessary features (131,071 lists on a cold
    graph, several times the whole SAT route); it now runs on the traversal views the
    deletions share.  Both routes and the dispatcher give the same classes."""
    xg = antichain_xpg(16)
    expected = _classes(classify_features(fresh_copy(xg), route="sat"))
    assert expected == ((), tuple(xg.var_names), ())

    def no_lists(self: ExplanationGraph) -> None:
        raise AssertionError("per-node adjacency lists built")

    monkeypatch.setattr(ExplanationGraph, "adjacency", no_lists)
    for route in (None, "tree-polynomial"):
        result = classify_features(fresh_copy(xg), route=route)  # type: ignore[arg-type]
        assert result.route == "tree-polynomial" and result.sat_calls == 0
        assert _classes(result) == expected


def test_listing_estimate_is_linear_in_the_edges() -> None:
    xg = antichain_xpg(16)
    assert relevance.listing_seconds(xg) == pytest.approx(costs.LIST_SECONDS_PER_EDGE * 131_070)
    small = antichain_xpg(4)
    assert relevance.listing_seconds(small) == pytest.approx(costs.DFS_LIST_SECONDS_PER_EDGE * 30)


def test_enumeration_decides_trees_with_few_explanations(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two AXps, one CXp, 16,384 paths to 0-terminals: given the time (here the estimate is
    made generous, so that the test does not depend on the machine), enumeration completes
    after three explanations and the dispatcher never lists; the old dispatcher always
    listed.  The forced tree route never enumerates; all answers agree."""
    xg = irrelevant_subtree_xpg(14)
    assert xg.n_edges > costs.RACE_EDGES  # enumeration races on this tree
    expected = ((), ("x0", "x1"), tuple(f"y{i}" for i in range(14)))
    monkeypatch.setattr(costs, "LIST_SECONDS_PER_EDGE", 1.0)
    result = classify_features(fresh_copy(xg))
    assert result.route == "sat" and result.sat_calls == 0 and result.enumerated == 3
    assert "enumeration (MARCO) found all 3 explanations" in result.reason
    assert "14 tested features are in none" in result.reason
    assert _classes(result) == expected
    forced = classify_features(fresh_copy(xg), route="tree-polynomial")
    assert forced.route == "tree-polynomial" and forced.enumerated == 0
    assert _classes(forced) == expected
    assert _classes(classify_features(fresh_copy(xg), route="sat")) == expected
    # the queries strategy keeps enumeration out of the race
    queries = classify_features(fresh_copy(xg), strategy="queries")
    assert queries.route == "tree-polynomial" and _classes(queries) == expected


def test_no_time_no_deletions(monkeypatch: pytest.MonkeyPatch) -> None:
    """Antichain of 16 sets of 15 features: AXps are pairs, and each deletion explores most
    of the tree.  With no time left for them (the estimate made negative), the dispatcher
    lists at once: not one feature is tried by deletion (the old code always extracted a
    first AXp, however long it took), and the classes are the same."""
    xg = antichain_xpg(16, 15)
    expected = _classes(classify_features(fresh_copy(xg), route="tree-polynomial"))
    tried: list[int] = []
    original = IncrementalReach.refuse_each

    def counting(self: IncrementalReach, order: list[int]) -> list[int]:
        order = list(order)
        tried.extend(order)
        return original(self, order)

    monkeypatch.setattr(IncrementalReach, "refuse_each", counting)
    monkeypatch.setattr(relevance, "listing_seconds", lambda xg: -1.0, raising=False)
    result = classify_features(fresh_copy(xg))
    assert tried == []
    assert result.route == "tree-polynomial" and result.enumerated == 0
    assert "0 AXps found by deletion left some features undecided" in result.reason
    assert _classes(result) == expected


@pytest.mark.parametrize("allowance", ["none", "ample"])
def test_every_branch_matches_the_oracle(allowance: str, monkeypatch) -> None:
    """Random trees of 64 edges and more, with the race on every size of tree: with no time
    (always the listing) or ample time (deletions, then enumeration decide when they can),
    the classes are the Oracle's."""
    monkeypatch.setattr(costs, "RACE_EDGES", 0)
    seconds = -1.0 if allowance == "none" else 60.0
    monkeypatch.setattr(relevance, "listing_seconds", lambda xg: seconds, raising=False)
    rng = random.Random(27)
    routes = set()
    checked = 0
    while checked < 60:
        xg = random_xpg(rng, tree=True, max_vars=8, max_internal=60)
        if xg.n_edges < costs.LIST_FIRST_EDGES:
            continue
        checked += 1
        truth = Oracle.of_xpg(xg)
        members = set().union(*truth.axps) if truth.axps else set()
        result = classify_features(xg)
        routes.add(result.route)
        assert set(result.necessary) == truth.necessary()
        assert set(result.relevant) == members - truth.necessary()
        assert set(result.irrelevant) == set(xg.var_names) - members
    assert routes == ({"tree-polynomial"} if allowance == "none" else {"tree-polynomial", "sat"})
