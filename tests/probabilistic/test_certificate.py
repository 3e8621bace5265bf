"""Certificates (Blanc, Lange, Tan): the parity example, guarantees, and score estimates."""

from __future__ import annotations

import numpy as np
import pytest

from xpg.core.features import Feature
from xpg.errors import InvalidParameterError
from xpg.probabilistic import (
    BlackBox,
    MarginalDistribution,
    UniformDistribution,
    find_certificate,
    precision_error,
)
from xpg.probabilistic.blackbox import QueryCounter
from xpg.probabilistic.certificate import noise_stabilizing_scores

D = 20
FEATURES = [Feature.boolean(f"x{i}") for i in range(D)]


def parity(i: int, j: int) -> BlackBox:
    return BlackBox(lambda X: (X[:, i] != X[:, j]).astype(int), FEATURES)


@pytest.mark.parametrize("seed", range(25))
def test_parity_certificate_is_exactly_the_two_relevant_features(seed: int) -> None:
    """Sec. 4 of the paper: f = x_i xor x_j among 20 uniform bits, default parameters."""
    rng = np.random.default_rng(seed)
    i, j = (int(v) for v in rng.choice(D, 2, replace=False))
    x = rng.integers(0, 2, D).tolist()
    cert = find_certificate(parity(i, j), x, seed=seed)
    assert set(cert.features) == {f"x{i}", f"x{j}"}
    assert cert.error == 0.0 and cert.details["certified"]
    assert cert.n_queries > 0 and cert.method == "certificate"


def test_scores_match_the_closed_form_on_parity() -> None:
    """NS_p(x_i xor x_j) - E NS_p(restriction) = q (1 - 2q), q = p/2, for i and j; 0 elsewhere."""
    p, n = 0.3, 200_000
    model = QueryCounter(parity(2, 7))
    row = np.zeros(D)
    scores, err = noise_stabilizing_scores(
        model,
        UniformDistribution(FEATURES),
        row,
        np.zeros(D, bool),
        0,
        p,
        n,
        np.random.default_rng(1),
    )
    q = p / 2
    assert scores[2] == pytest.approx(q * (1 - 2 * q), abs=0.005)
    assert scores[7] == pytest.approx(q * (1 - 2 * q), abs=0.005)
    assert np.all(np.delete(scores, [2, 7]) == 0.0)  # coupled estimates: exactly zero
    assert err == pytest.approx(0.5, abs=0.01)
    # after fixing x2, x7 alone decides: its score is NS_p(+-x7) = q
    fixed = np.zeros(D, bool)
    fixed[2] = True
    scores, _ = noise_stabilizing_scores(
        model, UniformDistribution(FEATURES), row, fixed, 0, p, n, np.random.default_rng(2)
    )
    assert scores[7] == pytest.approx(q, abs=0.005) and scores[2] == -np.inf


def test_certificate_of_a_conjunction_and_the_depth_bound() -> None:
    features = [Feature.boolean(f"x{i}") for i in range(10)]
    conj = BlackBox(lambda X: (X[:, 1] * X[:, 4] * X[:, 8]).astype(int), features)
    x = [0, 1, 0, 0, 1, 0, 0, 0, 1, 0]  # class 1: the only certificate is {1, 4, 8}
    cert = find_certificate(conj, x, seed=3)
    assert cert.features == ("x1", "x4", "x8")
    short = find_certificate(conj, x, max_depth=2, seed=3)
    assert short.size == 2 and not short.details["certified"]
    exact = BlackBox(lambda X: (X[:, 1] * X[:, 4] * X[:, 8]).astype(int), features)
    for r in (cert, short):
        truth = precision_error(exact, x, r.features, method="enumerate").error
        assert r.precision is not None
        assert r.precision.low <= truth <= r.precision.high


@pytest.mark.parametrize("seed", range(5))
def test_the_walk_queries_the_highest_score_first(seed: int) -> None:
    """f = (x1 and x4) or x8 at x1 = x4 = x8 = 1: x8 has influence 3/4, x1 and x4 only 1/4.

    The greedy tree queries x8 first, after which f is constant: the certificate is {x8};
    a walk starting from x1 or x4 would need two features.
    """
    features = [Feature.boolean(f"x{i}") for i in range(10)]
    model = BlackBox(lambda X: np.maximum(X[:, 1] * X[:, 4], X[:, 8]).astype(int), features)
    cert = find_certificate(model, [0, 1, 0, 0, 1, 0, 0, 0, 1, 0], seed=seed)
    assert cert.features == ("x8",) and cert.details["certified"]
    # the root's sampled path error estimates Pr[f(z) = 0] = 1/2 * 3/4
    assert cert.details["path_errors"][0] == pytest.approx(0.375, abs=0.05)
    assert cert.details["path_errors"][-1] == 0.0


def test_certificate_under_data_marginals_and_query_count() -> None:
    rng = np.random.default_rng(0)
    data = rng.integers(0, 2, (300, D))
    marginals = MarginalDistribution(FEATURES).fit(data)
    rows_seen: list[int] = []

    def f(X: np.ndarray) -> np.ndarray:
        rows_seen.append(len(X))
        return (X[:, 0] != X[:, 5]).astype(int)

    cert = find_certificate(BlackBox(f, FEATURES), data[0], marginals, seed=0)
    assert set(cert.features) == {"x0", "x5"}
    assert cert.precision is not None
    assert sum(rows_seen) == cert.n_queries + cert.precision.n_queries


def test_parameters_are_checked() -> None:
    for bad in ({"noise_rate": 0.0}, {"error": 1.0}, {"score_accuracy": -1}, {"max_depth": -1}):
        with pytest.raises(InvalidParameterError):
            find_certificate(parity(0, 1), [0] * D, **bad)
