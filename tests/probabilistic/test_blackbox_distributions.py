"""Black-box wrappers and sampling distributions."""

from __future__ import annotations

import random

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from xpg.core.features import Feature, Literal
from xpg.errors import (
    InvalidDataError,
    InvalidInstanceError,
    InvalidModelError,
    UnboundedDomainError,
)
from xpg.probabilistic import (
    BlackBox,
    EmpiricalDistribution,
    MarginalDistribution,
    UniformDistribution,
)
from xpg.probabilistic.blackbox import QueryCounter
from xpg.testing import random_bounded_graph, random_features, random_row


def test_vectorised_graph_prediction_equals_path_following() -> None:
    for seed in range(150):
        dg = random_bounded_graph(seed)
        rng = np.random.default_rng(seed)
        rows = [random_row(rng, dg.features) for _ in range(40)]
        dtype = object if any(f.kind == "categorical" for f in dg.features) else float
        X = np.array(rows, dtype=dtype)
        assert dg.predict_batch(X).tolist() == [dg.predict(r) for r in rows]


def test_wrappers_of_callables_estimators_and_graphs() -> None:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(100, 3))
    y = (X[:, 0] > 0).astype(int)
    features = [Feature.real(f"x{i}", -5, 5) for i in range(3)]
    lr = LogisticRegression().fit(X, y)
    wrapped = BlackBox(lr, features)
    assert wrapped.classes == [0, 1] and wrapped.graph is None
    assert wrapped.predict(X[:5]).tolist() == lr.predict(X[:5]).tolist()
    assert wrapped.predict_one({"x0": 1.0, "x1": 0.0, "x2": 0.0}) == 1
    column = BlackBox(lambda Z: (Z[:, 0] > 0).astype(int)[:, None], features)
    assert column.predict(X[:3]).shape == (3,)
    dg = random_bounded_graph(0)
    assert BlackBox(dg).features == tuple(dg.features) and BlackBox(dg).graph is dg


def test_wrapper_errors_say_what_was_expected() -> None:
    features = [Feature.boolean("a"), Feature.boolean("b")]
    with pytest.raises(InvalidModelError, match="feature specification"):
        BlackBox(lambda X: X[:, 0])
    with pytest.raises(InvalidModelError, match="predict method"):
        BlackBox(42, features)
    with pytest.raises(InvalidModelError, match="distinct"):
        BlackBox(lambda X: X[:, 0], [Feature.boolean("a"), Feature.boolean("a")])
    bad = BlackBox(lambda X: X[:2, 0], features)
    with pytest.raises(InvalidModelError, match="one label per row"):
        bad.predict(np.zeros((5, 2)))
    with pytest.raises(InvalidModelError, match="2 columns"):
        bad.predict(np.zeros((5, 3)))
    with pytest.raises(InvalidInstanceError, match="'b'"):
        bad.row({"a": 1})
    with pytest.raises(InvalidInstanceError, match="expected one of"):
        bad.row([1, 7])


def test_uniform_marginals_match_their_masses() -> None:
    """Sampled frequencies agree with mass() for every kind of feature (4-sigma bounds)."""
    rng = random.Random(0)
    features = random_features(rng, 12, real_range=(0.0, 10.0), bounded=1.0)
    dist = UniformDistribution(features)
    Z = dist.sample(20000, seed=1)
    for j, f in enumerate(features):
        if f.is_discrete:
            lit = Literal.isin(f.name, f.values[:1])
        elif f.kind == "integer":
            lit = Literal.interval(f.name, 0.5, 2.0)  # the integers 1 and 2
        else:
            lit = Literal.interval(f.name, 2.5, 6.0)
        p = dist.mass(j, lit.allowed)
        freq = float(np.mean([lit.satisfied_by(v) for v in Z[:, j]]))
        assert abs(freq - p) < 4 * np.sqrt(p * (1 - p) / len(Z)) + 1e-9
    assert (
        UniformDistribution([Feature.integer("n", 0, 4)]).mass(0, Literal.le("n", 1.5).allowed)
        == 0.4
    )
    assert UniformDistribution([Feature.real("r", 2, 2)]).mass(0, Literal.le("r", 3).allowed) == 1.0


def test_unbounded_domains_are_refused_for_the_uniform_distribution() -> None:
    with pytest.raises(UnboundedDomainError, match="'age' \\(integer\\)"):
        UniformDistribution([Feature.integer("age", 0)])
    with pytest.raises(UnboundedDomainError, match="finite bounds"):
        UniformDistribution([Feature.real("r")])
    # the data's marginals need no bounds: they use the observed values
    marg = MarginalDistribution([Feature.real("r")]).fit([[1.5], [2.5], [2.5], [10.0]])
    assert marg.mass(0, Literal.gt("r", 2.0).allowed) == 0.75


def test_agreeing_samples_fix_exactly_the_chosen_features() -> None:
    features = [
        Feature.boolean("a"),
        Feature.categorical("c", ["x", "y", "z"]),
        Feature.integer("n", 0, 9),
    ]
    row = np.array([1, "y", 4], dtype=object)
    fixed = np.array([False, True, True])
    data = [[0, "x", 1], [1, "z", 2], [0, "y", 3]]
    for dist in (
        UniformDistribution(features),
        MarginalDistribution(features).fit(data),
        EmpiricalDistribution(features).fit(data),
    ):
        Z = dist.sample_agreeing(row, fixed, 500, seed=0)
        assert Z.dtype == object and Z.shape == (500, 3)
        assert set(Z[:, 1]) == {"y"} and set(Z[:, 2]) == {4}
        assert set(Z[:, 0]) == {0, 1}
    rows = EmpiricalDistribution(features).fit(data).sample(300, seed=0)
    assert {tuple(r) for r in rows.tolist()} == {tuple(r) for r in data}  # whole rows


def test_data_is_checked_against_the_domains() -> None:
    features = [Feature.boolean("a"), Feature.integer("n", 0, 3)]
    with pytest.raises(InvalidDataError, match="row 1, column 1"):
        MarginalDistribution(features).fit([[0, 1], [1, 7]])
    with pytest.raises(InvalidDataError, match="2 columns"):
        EmpiricalDistribution(features).fit([[0, 1, 2]])
    with pytest.raises(InvalidDataError, match="not fitted"):
        MarginalDistribution(features).sample(3)


def test_query_counter_counts_rows() -> None:
    counter = QueryCounter(BlackBox(lambda X: X[:, 0], [Feature.boolean("a")]))
    counter(np.zeros((7, 1)))
    counter(np.zeros((3, 1)))
    assert counter.n_queries == 10


def test_a_distribution_over_other_features_is_refused() -> None:
    from xpg.probabilistic import find_certificate, precision_error

    model = BlackBox(lambda X: X[:, 0], [Feature.boolean("a"), Feature.boolean("b")])
    other = UniformDistribution([Feature.boolean("b"), Feature.boolean("a")])
    with pytest.raises(InvalidDataError, match="expected the model's"):
        precision_error(model, [1, 0], ["a"], other)
    with pytest.raises(InvalidDataError, match="expected the model's"):
        find_certificate(model, [1, 0], other)
