"""Harmonica, Low-degree, Harmonica-local and Harmonica-anchor.

Recovery on low-order polynomials (Appendix F setting: up to 12 variables), each fit checked
against an independent computation (scikit-learn's Lasso on the recorded samples, closed-form
least squares, brute-force nearest anchors).
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.linear_model import Lasso

from xpg.errors import ExplainerNotFittedError, InvalidExplainerError
from xpg.fourier.basis import (
    FourierPolynomial,
    parity_features,
    subsets_up_to_degree,
)
from xpg.fourier.game import RemovalGame
from xpg.fourier.harmonica import (
    AnchoredInterpretation,
    Harmonica,
    HarmonicaAnchor,
    HarmonicaLocal,
    LowDegree,
    fit_coupled_lasso,
)
from xpg.fourier.masks import all_masks, enumerate_ball, uniform_masks
from xpg.fourier.metrics import errors_on_masks, mean_spectrum_distance
from xpg.testing import random_fourier_polynomial

N_VARIABLES = 12


def random_polynomial(order: int, seed: int, n: int = N_VARIABLES) -> FourierPolynomial:
    """A polynomial of exactly ``order`` in the kept-indicators z (as in Appendix F)."""
    p = random_fourier_polynomial(seed, order, n)
    assert p.degree == order
    return p


def max_coefficient_error(p: FourierPolynomial, q: FourierPolynomial) -> float:
    subsets = set(p.coefficients) | set(q.coefficients)
    return max(abs(p.coefficient(s) - q.coefficient(s)) for s in subsets)


class RecordingGame(RemovalGame):
    """A game that keeps every mask it was asked about (for independent re-fits)."""

    def __init__(self, function: FourierPolynomial) -> None:
        self.seen: list[np.ndarray] = []
        super().__init__(self._record, function.n_players)
        self.function = function

    def _record(self, masks: np.ndarray) -> np.ndarray:
        self.seen.append(masks.copy())
        return self.function(masks)


@pytest.mark.parametrize("order", [1, 2, 3])
@pytest.mark.parametrize("seed", range(3))
def test_harmonica_recovers_low_order_polynomials(order: int, seed: int) -> None:
    truth = random_polynomial(order, seed)
    game = RemovalGame(truth, N_VARIABLES)
    # Lasso (alpha = 1e-3) shrinks each coefficient by about alpha: tolerance 0.01
    fit = Harmonica(degree=order, n_samples=2000, random_state=seed).fit(game)
    assert fit.n_queries_ == 2000 == game.n_queries
    assert max_coefficient_error(fit.interpretation_, truth) <= 0.01
    # least-squares refit on the selected support removes the shrinkage
    refit = Harmonica(degree=order, n_samples=2000, refit=True, random_state=seed).fit(game)
    assert max_coefficient_error(refit.interpretation_, truth) <= 1e-8


@pytest.mark.parametrize("order", [1, 2, 3])
@pytest.mark.parametrize("seed", range(3))
def test_low_degree_recovers_low_order_polynomials(order: int, seed: int) -> None:
    truth = random_polynomial(order, 10 + seed)
    n_samples = 20_000
    fit = LowDegree(degree=order, n_samples=n_samples, random_state=seed).fit(
        RemovalGame(truth, N_VARIABLES)
    )
    # each estimate is a mean of f * chi_S: standard deviation <= ||f||_2 / sqrt(m)
    norm = float(np.sqrt(sum(c * c for c in truth.coefficients.values())))
    assert max_coefficient_error(fit.interpretation_, truth) <= 4.5 * norm / np.sqrt(n_samples)


def test_low_degree_is_the_sample_mean() -> None:
    table = np.random.default_rng(5).normal(size=2**5)
    game = RecordingGame(FourierPolynomial(5, {}))
    game.value_function = lambda x: table[((x > 0) * (1 << np.arange(5))).sum(axis=1)]
    fit = LowDegree(degree=2, n_samples=300, random_state=1).fit(game)
    masks = uniform_masks(5, 300, np.random.default_rng(1))
    values = game.value_function(masks)
    for s in subsets_up_to_degree(5, 2):
        expected = float(np.mean(values * np.prod(masks[:, list(s)], axis=1)))
        assert fit.interpretation_.coefficient(s) == pytest.approx(expected, abs=1e-12)


def test_harmonica_matches_sklearn_lasso_on_its_samples() -> None:
    truth = random_polynomial(3, 42, n=8)
    game = RecordingGame(truth)
    fit = Harmonica(degree=2, n_samples=500, alpha=0.01, tol=1e-10, random_state=0).fit(game)
    masks = np.vstack(game.seen)
    subsets = subsets_up_to_degree(8, 2, include_empty=False)
    ref = Lasso(alpha=0.01, max_iter=100_000, tol=1e-10).fit(
        parity_features(masks, subsets), truth(masks)
    )
    assert fit.interpretation_.coefficient(()) == pytest.approx(ref.intercept_, abs=1e-5)
    for s, c in zip(subsets, ref.coef_, strict=True):
        assert fit.interpretation_.coefficient(s) == pytest.approx(c, abs=1e-5)


def test_harmonica_local_is_exact_on_its_ball() -> None:
    rng = np.random.default_rng(7)
    table = rng.normal(size=2**8)
    game = RemovalGame(lambda x: table[((x > 0) * (1 << np.arange(8))).sum(axis=1)], 8)
    ball = enumerate_ball(8, 2)
    local = HarmonicaLocal(degree=2, radius=2, n_samples=400, alpha=0.0, random_state=0).fit(game)
    # degree-2 parities span every function on the radius-2 ball (Moebius inversion)
    assert errors_on_masks(local.interpretation_, ball, game(ball)).l1 < 1e-9
    glob = Harmonica(degree=2, n_samples=400, alpha=0.0, random_state=0).fit(game)
    assert errors_on_masks(glob.interpretation_, ball, game(ball)).l1 > 0.1


def test_anchored_interpretation_uses_the_nearest_anchor() -> None:
    rng = np.random.default_rng(3)
    anchors = uniform_masks(7, 5, rng)
    polys = [FourierPolynomial(7, {(): float(k)}) for k in range(5)]
    interp = AnchoredInterpretation(anchors, polys)
    masks = all_masks(7)
    for mask, k, value in zip(masks, interp.assign(masks), interp(masks), strict=True):
        distances = [int(np.sum(mask != a)) for a in anchors]
        assert k == distances.index(min(distances))  # first anchor on ties
        assert value == float(k)


def test_harmonica_anchor_fits_each_region_with_lasso() -> None:
    truth = random_polynomial(3, 8, n=9)
    game = RecordingGame(truth)
    fit = HarmonicaAnchor(
        degree=2, n_anchors=4, n_samples=900, alpha=0.005, tol=1e-10, random_state=2
    ).fit(game)
    assert fit.n_queries_ == 900
    assert fit.anchors_[0].tolist() == [1] * 9  # the instance is the first anchor
    masks = np.vstack(game.seen)
    which = fit.interpretation_.assign(masks)
    subsets = subsets_up_to_degree(9, 2, include_empty=False)
    for k, poly in enumerate(fit.polynomials_):
        rows = which == k
        assert rows.any()
        ref = Lasso(alpha=0.005, max_iter=100_000, tol=1e-10).fit(
            parity_features(masks[rows], subsets), truth(masks[rows])
        )
        assert poly.coefficient(()) == pytest.approx(ref.intercept_, abs=1e-5)
        for s, c in zip(subsets, ref.coef_, strict=True):
            assert poly.coefficient(s) == pytest.approx(c, abs=1e-5)


def _blocks(seed: int, k: int = 3, n: int = 5) -> tuple[list[np.ndarray], list[np.ndarray]]:
    rng = np.random.default_rng(seed)
    subsets = subsets_up_to_degree(n, 2)
    designs, targets = [], []
    for _ in range(k):
        masks = uniform_masks(n, int(rng.integers(60, 120)), rng)
        designs.append(parity_features(masks, subsets))
        targets.append(rng.normal(size=len(masks)))
    return designs, targets


def test_coupled_lasso_without_penalty_is_separate_lassos() -> None:
    designs, targets = _blocks(0)
    theta = fit_coupled_lasso(
        designs, targets, alpha=0.02, penalty=0.0, tol=1e-12, max_iter=200_000
    )
    for row, a, y in zip(theta, designs, targets, strict=True):
        ref = Lasso(alpha=0.02, max_iter=200_000, tol=1e-12).fit(a[:, 1:], y)
        assert row[0] == pytest.approx(ref.intercept_, abs=1e-6)
        np.testing.assert_allclose(row[1:], ref.coef_, atol=1e-6)


def test_coupled_lasso_without_l1_is_the_linear_solution() -> None:
    designs, targets = _blocks(1)
    k, p, lam = len(designs), designs[0].shape[1], 0.3
    # normal equations: (A_k^T A_k / m_k) theta_k + lam (K theta_k - sum_l theta_l) = A_k^T y / m_k
    system = np.kron(lam * (k * np.eye(k) - np.ones((k, k))), np.eye(p))
    rhs = []
    for j, (a, y) in enumerate(zip(designs, targets, strict=True)):
        system[j * p : (j + 1) * p, j * p : (j + 1) * p] += a.T @ a / len(a)
        rhs.append(a.T @ y / len(a))
    expected = np.linalg.solve(system, np.concatenate(rhs)).reshape(k, p)
    theta = fit_coupled_lasso(designs, targets, alpha=0.0, penalty=lam, tol=1e-13, max_iter=200_000)
    np.testing.assert_allclose(theta, expected, atol=1e-7)


def test_anchor_penalty_pulls_the_polynomials_together() -> None:
    table = np.random.default_rng(9).normal(size=2**7)
    game = RemovalGame(lambda x: table[((x > 0) * (1 << np.arange(7))).sum(axis=1)], 7)
    distances = []
    for penalty in (0.0, 0.1, 1.0, 100.0):
        fit = HarmonicaAnchor(
            degree=2,
            n_anchors=3,
            n_samples=600,
            alpha=0.01,
            penalty=penalty,
            tol=1e-9,
            random_state=4,
        ).fit(game)
        assert len(fit.polynomials_) == 3
        distances.append(mean_spectrum_distance(fit.interpretation_))
    assert distances == sorted(distances, reverse=True)
    assert distances[-1] < 0.02 * distances[0]


def test_parameters_and_state_errors() -> None:
    game = RemovalGame(lambda x: x[:, 0], 3)
    with pytest.raises(
        InvalidExplainerError, match="Harmonica: degree: expected an integer >= 0, found -1"
    ):
        Harmonica(degree=-1).fit(game)
    with pytest.raises(
        InvalidExplainerError, match="LowDegree: n_samples: expected an integer >= 1, found 0"
    ):
        LowDegree(n_samples=0).fit(game)
    with pytest.raises(
        InvalidExplainerError, match="HarmonicaAnchor: alpha: expected a number >= 0, found -1.0"
    ):
        HarmonicaAnchor(alpha=-1.0).fit(game)
    with pytest.raises(InvalidExplainerError, match="expected a RemovalGame"):
        Harmonica().fit(lambda x: x)  # type: ignore[arg-type]
    with pytest.raises(InvalidExplainerError, match="parity features, expected at most"):
        Harmonica(degree=4).fit(RemovalGame(lambda x: x[:, 0], 80))
    with pytest.raises(ExplainerNotFittedError, match="not fitted yet"):
        Harmonica().predict([[1, 1, 1]])
    fitted = Harmonica(degree=1, n_samples=50, random_state=0).fit(game)
    assert fitted.predict([[1, -1, 1]]).shape == (1,)
    assert "degree=1" in repr(fitted)
