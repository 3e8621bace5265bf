"""The decision-list compilers give *reduced* diagrams (no redundant test, no duplicate node)
that test features in the order, for multi-valued features too."""

from __future__ import annotations

import random
from typing import Any

import pytest

from xpg.core.features import Feature, Literal
from xpg.core.graph import DecisionGraph
from xpg.models.decision_list import DecisionList, Rule, compile_decision_list
from xpg.testing import random_decision_list, random_features


def _assert_reduced_and_ordered(dg: DecisionGraph, order: list[str]) -> None:
    level = {name: i for i, name in enumerate(order)}
    seen: dict[Any, Any] = {}
    for n in dg.nodes:
        if dg.is_terminal(n):
            key: Any = ("t", repr(dg.class_of(n)))
        else:
            kids = dg.children(n)
            assert len({c for c, _ in kids}) == len(kids) >= 2, f"node {n!r} is redundant"
            f = dg.feature_of(n)
            assert all(
                dg.is_terminal(c) or level[f] < level[str(dg.feature_of(c))] for c, _ in kids
            ), "a path tests against the order"
            key = (f, frozenset((c, lit) for c, lit in kids))
        assert key not in seen, f"nodes {seen.get(key)!r} and {n!r} are the same node"
        seen[key] = n


@pytest.mark.parametrize("kinds", [["boolean"], None])
def test_decision_list_diagrams_are_reduced(kinds: list[str] | None) -> None:
    rng = random.Random(41)
    for _ in range(60):
        feats = random_features(rng, rng.randint(1, 5), kinds)
        dl = random_decision_list(rng, feats, rng.randint(2, 4), rng.randint(0, 8))
        order = [f.name for f in feats]
        rng.shuffle(order)
        methods = ["auto", "mdd"] if kinds else ["auto"]
        for method in methods:
            dg = compile_decision_list(dl, order=order, method=method)  # type: ignore[arg-type]
            dg.validate()
            _assert_reduced_and_ordered(dg, order)


def test_reduction_merges_equivalent_rules() -> None:
    """Two lists with the same function, written differently, compile to the same size."""
    feats = [Feature.categorical("c", ["p", "q", "r"]), Feature.integer("n", 0, 4)]
    one = DecisionList(
        feats, [0, 1], [Rule([Literal.isin("c", ["p", "q"]), Literal.gt("n", 2)], 1)], 0
    )
    two = DecisionList(
        feats,
        [0, 1],
        [
            Rule([Literal.eq("c", "r")], 0),
            Rule([Literal.le("n", 2)], 0),
            Rule([Literal.eq("c", "p")], 1),
            Rule([Literal.isin("n", [3, 4])], 1),
        ],
        0,
    )
    a, b = compile_decision_list(one), compile_decision_list(two)
    assert len(a) == len(b) == 4 and a.n_edges == b.n_edges == 4


@pytest.mark.parametrize(
    ("method", "backend"), [("mdd", "autoref"), ("bdd", "autoref"), ("bdd", "cudd")]
)
def test_compile_budget(method: str, backend: str) -> None:
    """Within its budget a list compiles to the same graph as without one; beyond it the
    compiler stops with GraphTooLargeError (it never builds the whole diagram first)."""
    from xpg.errors import GraphTooLargeError

    rng = random.Random(43)
    refused = 0
    for _ in range(30):
        feats = random_features(rng, rng.randint(2, 6), ["boolean"])
        dl = random_decision_list(rng, feats, rng.randint(2, 3), rng.randint(2, 10))
        free = compile_decision_list(dl, method=method, backend=backend, budget=None)  # type: ignore[arg-type]
        same = compile_decision_list(dl, method=method, backend=backend, budget=10 * len(free))  # type: ignore[arg-type]
        assert (len(same), same.n_edges) == (len(free), free.n_edges)
        if len(free) > 3:
            with pytest.raises(GraphTooLargeError, match="budget of 2 diagram nodes"):
                compile_decision_list(dl, method=method, backend=backend, budget=2)  # type: ignore[arg-type]
            refused += 1
    assert refused >= 10
