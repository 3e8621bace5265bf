"""Precision error: exact propagation against enumeration of every completion, and sampling.

The independent reference is :func:`enumerate_reference`, written here from the definition:
every completion of ``x_S`` with its probability, classified by ``DecisionGraph.predict``
(the graph's own path-following, not the vectorised evaluation the package uses).
"""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier

from xpg.core.features import Feature, Literal
from xpg.core.graph import DecisionGraph
from xpg.errors import (
    ExactPrecisionUnavailableError,
    InvalidFeatureSetError,
    InvalidGraphError,
    InvalidParameterError,
)
from xpg.probabilistic import (
    BlackBox,
    EmpiricalDistribution,
    GraphPrecision,
    MarginalDistribution,
    UniformDistribution,
    precision_error,
)
from xpg.probabilistic.precision import clopper_pearson
from xpg.testing import (
    random_bounded_graph,
    random_features,
    random_obdd,
    random_row,
    random_tree,
)


def marginal_support(dist, j):
    """Values and probabilities of feature j, from the distribution's own description."""
    f = dist.features[j]
    if isinstance(dist, UniformDistribution):
        values = list(f.values) if f.is_discrete else list(range(int(f.low), int(f.high) + 1))
        return [(v, 1.0 / len(values)) for v in values]
    return list(zip(dist.values_[j].tolist(), dist.probabilities_[j].tolist(), strict=True))


def enumerate_reference(dg: DecisionGraph, row: list, fixed: set[int], dist) -> float:
    """Pr[f(z) != f(x) | z_S = x_S] by listing every completion (product distribution)."""
    target = dg.predict(row)
    free = [j for j in range(len(row)) if j not in fixed]
    error = 0.0
    for combo in itertools.product(*(marginal_support(dist, j) for j in free)):
        z = list(row)
        p = 1.0
        for j, (v, q) in zip(free, combo, strict=True):
            z[j] = v
            p *= q
        if dg.predict(z) != target:
            error += p
    return error


def discrete_graphs(count: int):
    kinds = ("boolean", "categorical", "integer")
    for seed in range(count):
        yield seed, random_bounded_graph(seed, kinds=kinds)


@pytest.mark.parametrize("block", range(4))
def test_exact_equals_enumeration_on_random_discrete_graphs(block: int) -> None:
    checked = 0
    for seed, dg in discrete_graphs(100 * (block + 1)):
        if seed < 100 * block:
            continue
        rng = np.random.default_rng(seed)
        row = random_row(rng, dg.features)
        dist = UniformDistribution(dg.features)
        try:
            exact = GraphPrecision(dg, row, dist)
        except ExactPrecisionUnavailableError:
            assert not dg.is_tree()  # only non-read-once DAGs are refused
            continue
        for _ in range(3):
            fixed = {j for j in range(len(row)) if rng.random() < 0.4}
            mask = np.array([j in fixed for j in range(len(row))])
            expected = enumerate_reference(dg, row, fixed, dist)
            assert exact.error(mask) == pytest.approx(expected, abs=1e-12)
            checked += 1
    assert checked >= 150


def test_exact_equals_enumeration_on_obdds_up_to_12_features() -> None:
    for seed in range(40):
        n_vars = 4 + seed % 9  # 4..12 variables
        dg = random_obdd(seed, n_vars)
        rng = np.random.default_rng(seed)
        row = [int(v) for v in rng.integers(0, 2, n_vars)]
        dist = UniformDistribution(dg.features)
        exact = GraphPrecision(dg, row, dist)
        for _ in range(2):
            fixed = {j for j in range(n_vars) if rng.random() < 0.3}
            mask = np.array([j in fixed for j in range(n_vars)])
            assert exact.error(mask) == pytest.approx(
                enumerate_reference(dg, row, fixed, dist), abs=1e-12
            )
            # the package's own enumeration (vectorised, any black box) agrees as well
            via_queries = precision_error(dg, row, mask, dist, method="enumerate")
            assert via_queries.error == pytest.approx(exact.error(mask), abs=1e-12)
            assert via_queries.n_queries == 2 ** (n_vars - len(fixed))


def test_exact_equals_enumeration_under_data_marginals_with_real_features() -> None:
    """Reals under the training data's marginals: finitely many values, so enumerable."""
    for seed in range(60):
        rng = random.Random(seed)
        features = random_features(rng, rng.randint(1, 5), real_range=(0.0, 10.0), bounded=1.0)
        dg = random_tree(rng, features, 2, rng.randint(1, 4), rng.random() < 0.5)
        nprng = np.random.default_rng(seed)
        data = [random_row(nprng, dg.features) for _ in range(12)]
        dist = MarginalDistribution(features).fit(data)
        row = data[0]
        exact = GraphPrecision(dg, row, dist)
        for _ in range(3):
            fixed = {j for j in range(len(row)) if nprng.random() < 0.4}
            mask = np.array([j in fixed for j in range(len(row))])
            assert exact.error(mask) == pytest.approx(
                enumerate_reference(dg, row, fixed, dist), abs=1e-12
            )


@pytest.mark.slow
def test_sklearn_tree_exact_matches_enumeration_on_integer_and_boolean_features() -> None:
    for seed in range(10):
        rng = np.random.default_rng(seed)
        X = np.column_stack(
            [rng.integers(0, 2, 200), rng.integers(0, 6, 200), rng.integers(0, 2, 200)]
        )
        y = (X[:, 0] + (X[:, 1] > 2) + rng.integers(0, 2, 200)) % 2
        tree = DecisionTreeClassifier(max_depth=4, random_state=seed).fit(X, y)
        features = [Feature.boolean("a"), Feature.integer("n", 0, 5), Feature.boolean("c")]
        model = BlackBox.from_sklearn_tree(tree, features)
        dist = UniformDistribution(features)
        for row in X[:10]:
            for fixed in ([], [0], [1], [0, 2], [1, 2]):
                mask = np.isin(np.arange(3), fixed)
                exact = precision_error(model, row, mask, dist)
                assert exact.method == "exact-propagation"
                brute = enumerate_reference(model.graph, row.tolist(), set(fixed), dist)
                assert exact.error == pytest.approx(brute, abs=1e-12)
                queried = precision_error(model, row, mask, dist, method="enumerate")
                assert queried.error == pytest.approx(brute, abs=1e-12)


@pytest.mark.slow
def test_exact_equals_enumeration_on_sklearn_trees_with_12_features() -> None:
    """Trees up to the 12 features of the issue, under uniform and data-marginal distributions."""
    features = [Feature.boolean(f"b{i}") for i in range(8)] + [
        Feature.integer(f"n{i}", 0, 2) for i in range(4)
    ]
    for seed in range(6):
        rng = np.random.default_rng(seed)
        X = np.column_stack([rng.integers(0, 2, (300, 8)), rng.integers(0, 3, (300, 4))])
        y = (X[:, 0] ^ X[:, 3]) | (X[:, 8] + X[:, 11] > 2) | (rng.random(300) < 0.1)
        tree = DecisionTreeClassifier(max_depth=8, random_state=seed).fit(X, y)
        model = BlackBox.from_sklearn_tree(tree, features)
        dists = [UniformDistribution(features), MarginalDistribution(features).fit(X[:40])]
        for row, dist in zip(X[:2], dists, strict=True):
            fixed = {int(j) for j in rng.choice(12, size=int(rng.integers(0, 4)), replace=False)}
            mask = np.isin(np.arange(12), sorted(fixed))
            exact = precision_error(model, row, mask, dist)
            assert exact.method == "exact-propagation"
            brute = enumerate_reference(model.graph, row.tolist(), fixed, dist)
            assert exact.error == pytest.approx(brute, abs=1e-12)


def test_uniform_real_feature_exact_value() -> None:
    """x ~ U[0, 10], y ~ U[0, 4]: class 1 iff x > 2.5 and y <= 1 (areas by hand)."""
    fx, fy = Feature.real("x", 0.0, 10.0), Feature.real("y", 0.0, 4.0)
    dg = DecisionGraph([fx, fy], classes=[0, 1])
    dg.add_node("r", "x")
    dg.add_node("n", "y")
    dg.add_terminal("t0", 0)
    dg.add_terminal("t1", 1)
    dg.add_edge("r", "t0", Literal.le("x", 2.5))
    dg.add_edge("r", "n", Literal.gt("x", 2.5))
    dg.add_edge("n", "t1", Literal.le("y", 1.0))
    dg.add_edge("n", "t0", Literal.gt("y", 1.0))
    x = {"x": 5.0, "y": 0.5}  # class 1
    assert precision_error(dg, x, []).error == pytest.approx(1 - 0.75 * 0.25)
    assert precision_error(dg, x, ["x"]).error == pytest.approx(0.75)
    assert precision_error(dg, x, ["y"]).error == pytest.approx(0.25)
    assert precision_error(dg, x, ["x", "y"]).error == 0.0


def test_sampled_interval_covers_the_exact_value_at_the_stated_rate() -> None:
    """Clopper-Pearson 95% intervals: the exact error is inside in at least ~95% of runs."""
    hits = total = 0
    for seed in range(300):
        dg = random_bounded_graph(3 * seed, kinds=("boolean", "integer", "real"))  # trees only
        rng = np.random.default_rng(seed)
        row = random_row(rng, dg.features)
        mask = rng.random(len(row)) < 0.3
        exact = precision_error(dg, row, mask, method="exact").error
        est = precision_error(dg, row, mask, method="sample", n_samples=200, seed=seed)
        assert est.method == "sampled" and est.n_queries == 200 and est.confidence == 0.95
        # the interval is the 95% Clopper-Pearson one of the observed failures, not a wider one
        failures = round(est.error * 200)
        assert est.error == failures / 200
        assert (est.low, est.high) == pytest.approx(clopper_pearson(failures, 200, 0.95))
        hits += est.low <= exact <= est.high
        total += 1
    # binomial(300, >= 0.95): below 0.92 with probability < 0.3%
    assert hits / total >= 0.92


def test_clopper_pearson_against_scipy_binomtest() -> None:
    from scipy.stats import binomtest

    for k, n in [(0, 10), (3, 10), (10, 10), (17, 250), (249, 250)]:
        ci = binomtest(k, n).proportion_ci(0.9, method="exact")
        assert clopper_pearson(k, n, 0.9) == pytest.approx((ci.low, ci.high))


def test_auto_falls_back_to_sampling_and_exact_refuses_when_not_read_once() -> None:
    features = [Feature.integer("n", 0, 3), Feature.boolean("b")]
    dg = DecisionGraph(features, classes=[0, 1])
    # n is tested at the root and again at k, which both branches reach: not read-once
    dg.add_node("r", "n")
    dg.add_node("m", "b")
    dg.add_node("k", "n")
    dg.add_terminal("t0", 0)
    dg.add_terminal("t1", 1)
    dg.add_edge("r", "m", Literal.isin("n", [0, 1]))
    dg.add_edge("r", "k", Literal.isin("n", [2, 3]))
    dg.add_edge("m", "k", Literal.eq("b", 0))
    dg.add_edge("m", "t1", Literal.eq("b", 1))
    dg.add_edge("k", "t0", Literal.isin("n", [0, 2]))
    dg.add_edge("k", "t1", Literal.isin("n", [1, 3]))
    dg.validate()
    with pytest.raises(ExactPrecisionUnavailableError, match="'n' is tested twice"):
        precision_error(dg, [3, 0], [], method="exact")
    auto = precision_error(dg, [3, 0], [], n_samples=100, seed=0)
    assert auto.method == "sampled"
    # class 0 exactly on (n, b) in {(0, 0), (2, 0), (2, 1)}: 3 of 8 inputs
    assert precision_error(dg, [3, 0], [], method="enumerate").error == 0.375
    assert enumerate_reference(dg, [3, 0], set(), UniformDistribution(features)) == 0.375


def test_empirical_distribution_enumerates_rows_and_is_not_a_product() -> None:
    features = [Feature.boolean("a"), Feature.boolean("b")]
    model = BlackBox(lambda X: (X[:, 0] * X[:, 1]).astype(int), features)
    data = EmpiricalDistribution(features).fit([[0, 0], [0, 1], [1, 1], [1, 1]])
    # fix a = 1: rows become (1,0), (1,1), (1,1), (1,1): one in four differs from class 1
    est = precision_error(model, [1, 1], ["a"], data, method="enumerate")
    assert (est.error, est.method, est.n_queries) == (0.25, "exact-enumeration", 4)
    with pytest.raises(ExactPrecisionUnavailableError, match="no compiled graph"):
        precision_error(model, [1, 1], ["a"], data, method="exact")


def test_continuous_enumeration_and_too_many_completions_are_refused() -> None:
    model = BlackBox(lambda X: (X[:, 0] > 0.5).astype(int), [Feature.real("x", 0.0, 1.0)])
    with pytest.raises(ExactPrecisionUnavailableError, match="continuous"):
        precision_error(model, [0.7], [], method="enumerate")
    wide = [Feature.boolean(f"b{i}") for i in range(30)]
    big = BlackBox(lambda X: X[:, 0], wide)
    with pytest.raises(ExactPrecisionUnavailableError, match="max_enumeration"):
        precision_error(big, [0] * 30, [], method="enumerate")


def test_bad_inputs_raise_named_errors() -> None:
    model = BlackBox(lambda X: X[:, 0], [Feature.boolean("a")])
    with pytest.raises(InvalidFeatureSetError, match="unknown feature 'z'"):
        precision_error(model, [1], ["z"])
    with pytest.raises(InvalidFeatureSetError, match="out of range"):
        precision_error(model, [1], [3])
    with pytest.raises(InvalidParameterError, match="method"):
        precision_error(model, [1], [], method="magic")  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError, match="confidence"):
        precision_error(model, [1], [], confidence=1.5)


def test_graph_not_partitioning_the_support_is_reported() -> None:
    """A literal set missing part of the domain makes probabilities sum below 1."""
    f = Feature.integer("n", 0, 3)
    dg = DecisionGraph([f], classes=[0, 1])
    dg.add_node("r", "n")
    dg.add_terminal("t0", 0)
    dg.add_terminal("t1", 1)
    dg.add_edge("r", "t0", Literal.isin("n", [0, 1]))
    dg.add_edge("r", "t1", Literal.isin("n", [2]))  # 3 is missing
    with pytest.raises(InvalidGraphError, match="sum to"):
        GraphPrecision(dg, [0], UniformDistribution([f])).error([])
