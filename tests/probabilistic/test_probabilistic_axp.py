"""Probabilistic AXps: with delta = 0 they are AXps (the core's), otherwise subset-minimal."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier

from xpg.core.features import Feature
from xpg.core.xpgraph import ExplanationGraph
from xpg.errors import ExactPrecisionUnavailableError, InvalidParameterError
from xpg.explain.marco import enumerate_explanations
from xpg.probabilistic import (
    BlackBox,
    UniformDistribution,
    find_probabilistic_axp,
    is_weak_probabilistic_axp,
    precision_error,
)
from xpg.testing import random_bounded_graph, random_obdd, random_row


def graphs():
    """Random discrete trees and read-once DAGs, and OBDDs up to 12 variables."""
    for seed in range(120):
        dg = random_bounded_graph(seed, kinds=("boolean", "categorical", "integer"))
        if seed % 3 != 2:  # trees and read-once DAGs
            yield seed, dg
    for seed in range(30):
        yield 1000 + seed, random_obdd(seed, 4 + seed % 9)


def test_delta_zero_gives_an_axp_of_the_core() -> None:
    checked = 0
    for seed, dg in graphs():
        rng = np.random.default_rng(seed)
        row = random_row(rng, dg.features)
        axps = set(enumerate_explanations(ExplanationGraph.from_decision_graph(dg, row)).axps)
        result = find_probabilistic_axp(dg, row, delta=0.0)
        assert result.features in axps, (seed, result.features, axps)
        assert result.error == 0.0 and result.optimal
        # every order of deletion still lands on an AXp
        order = [f.name for f in dg.features][::-1]
        assert find_probabilistic_axp(dg, row, delta=0.0, order=order).features in axps
        # with delta = 0 precision is monotone: deletion alone (no exhaustive step) is an AXp
        local = find_probabilistic_axp(dg, row, delta=0.0, max_exhaustive=0)
        assert local.features in axps and local.error == 0.0
        checked += 1
    assert checked >= 100


@pytest.mark.parametrize("delta", [0.05, 0.2, 0.4])
def test_positive_delta_gives_a_subset_minimal_weak_paxp(delta: float) -> None:
    """Checked by enumeration of every completion (not the propagation the search uses)."""
    for seed, dg in graphs():
        if len(dg.features) > 8:
            continue
        rng = np.random.default_rng(seed)
        row = random_row(rng, dg.features)
        result = find_probabilistic_axp(dg, row, delta=delta)
        names = result.features

        def error(subset: tuple[str, ...], dg=dg, row=row) -> float:  # type: ignore[no-untyped-def]
            return precision_error(dg, row, list(subset), method="enumerate").error

        assert error(names) <= delta + 1e-12
        assert result.error == pytest.approx(error(names), abs=1e-12)
        for size in range(len(names)):
            for sub in itertools.combinations(names, size):
                assert error(sub) > delta + 1e-12, (seed, names, sub)
        # without the exhaustive step: within delta, and no single feature can go
        local = find_probabilistic_axp(dg, row, delta=delta, max_exhaustive=0).features
        assert error(local) <= delta + 1e-12
        for name in local:
            assert error(tuple(n for n in local if n != name)) > delta + 1e-12, (seed, local)


def test_non_monotone_precision_is_handled() -> None:
    """Fixing more features can lower the precision; deletion alone may then stop early.

    f = (a and b) or (not a and c): for x = (1, 1, 0), {b} alone has error 1/4, {a} has 1/2,
    and {} has 1/2.  With delta = 0.3, the answer must be {b} (subset-minimal).
    """
    from xpg.core.features import Literal
    from xpg.core.graph import DecisionGraph

    dg = DecisionGraph([Feature.boolean(n) for n in "abc"], classes=[0, 1])
    dg.add_node("r", "a")
    dg.add_node("nb", "b")
    dg.add_node("nc", "c")
    dg.add_terminal("t0", 0)
    dg.add_terminal("t1", 1)
    dg.add_edge("r", "nb", Literal.eq("a", 1))
    dg.add_edge("r", "nc", Literal.eq("a", 0))
    dg.add_edge("nb", "t1", Literal.eq("b", 1))
    dg.add_edge("nb", "t0", Literal.eq("b", 0))
    dg.add_edge("nc", "t1", Literal.eq("c", 1))
    dg.add_edge("nc", "t0", Literal.eq("c", 0))
    row = [1, 1, 0]
    assert precision_error(dg, row, ["b"]).error == 0.25
    result = find_probabilistic_axp(dg, row, delta=0.3)
    assert result.features == ("b",) and result.details["minimality"] == "subset"
    # one deletion pass in order a, b, c keeps {a, b} ({b, c} has error 1/2 while c is fixed);
    # repeating passes until no single feature can go reaches {b} here as well
    local = find_probabilistic_axp(dg, row, delta=0.3, max_exhaustive=0)
    assert local.features == ("b",) and local.details["minimality"] == "local"
    assert is_weak_probabilistic_axp(dg, row, ["b"], delta=0.3)
    assert not is_weak_probabilistic_axp(dg, row, ["a"], delta=0.3)


def test_exhaustive_step_finds_a_subset_of_a_locally_minimal_set() -> None:
    """f = 0 iff n < t(a, b), n uniform on 0..9, t(1,1) = 3, t(1,0) = t(0,1) = 4, t(0,0) = 0.

    For x = (1, 1, 9) and delta = 0.3: {a, b} has error 0.3, {a} and {b} 0.35 each, so
    {a, b} is locally minimal; but {} has error (0.3 + 0.4 + 0.4 + 0) / 4 = 0.275.
    """
    from xpg.core.features import Literal
    from xpg.core.graph import DecisionGraph

    features = [Feature.boolean("a"), Feature.boolean("b"), Feature.integer("n", 0, 9)]
    dg = DecisionGraph(features, classes=[0, 1])
    dg.add_node("r", "a")
    dg.add_terminal("t0", 0)
    dg.add_terminal("t1", 1)
    for a in (0, 1):
        dg.add_node(("b", a), "b")
        dg.add_edge("r", ("b", a), Literal.eq("a", a))
        for b in (0, 1):
            cut = {(1, 1): 3, (1, 0): 4, (0, 1): 4, (0, 0): 0}[(a, b)]
            if cut == 0:
                dg.add_edge(("b", a), "t1", Literal.eq("b", b))
                continue
            dg.add_node(("n", a, b), "n")
            dg.add_edge(("b", a), ("n", a, b), Literal.eq("b", b))
            dg.add_edge(("n", a, b), "t0", Literal.isin("n", range(cut)))
            dg.add_edge(("n", a, b), "t1", Literal.isin("n", range(cut, 10)))
    dg.validate()
    row = [1, 1, 9]
    errors = {s: precision_error(dg, row, list(s)).error for s in ["", "a", "b", "ab"]}
    assert errors == pytest.approx({"": 0.275, "a": 0.35, "b": 0.35, "ab": 0.3})
    local = find_probabilistic_axp(dg, row, delta=0.3, order=["n", "a", "b"], max_exhaustive=0)
    assert local.features == ("a", "b") and local.details["minimality"] == "local"
    full = find_probabilistic_axp(dg, row, delta=0.3, order=["n", "a", "b"])
    assert full.features == () and full.optimal and full.error == pytest.approx(0.275)


def test_sklearn_tree_and_locally_minimal_fallback() -> None:
    rng = np.random.default_rng(1)
    X = rng.integers(0, 2, (500, 8))
    y = (X[:, 0] & X[:, 1]) | (X[:, 2] ^ X[:, 5])
    tree = DecisionTreeClassifier(random_state=0).fit(X, y)
    model = BlackBox.from_sklearn_tree(tree, [Feature.boolean(f"x{i}") for i in range(8)])
    full = find_probabilistic_axp(model, X[3], delta=0.1)
    local = find_probabilistic_axp(model, X[3], delta=0.1, max_exhaustive=0)
    assert full.optimal and full.details["minimality"] == "subset"
    assert local.details["minimality"] == "local" and local.optimal is False
    assert set(full.features) <= set(local.features) or full.size <= local.size
    assert local.error is not None and local.error <= 0.1


def test_requires_a_compiled_model_and_a_valid_delta() -> None:
    features = [Feature.boolean("a")]
    with pytest.raises(ExactPrecisionUnavailableError, match="compiled"):
        find_probabilistic_axp(BlackBox(lambda X: X[:, 0], features), [1])
    dg = random_obdd(0, 4)
    with pytest.raises(InvalidParameterError, match="delta"):
        find_probabilistic_axp(dg, [0, 0, 0, 0], delta=1.0)
    assert UniformDistribution(dg.features).is_product
