"""The paper's set-ups: the unbiased truthful-gap estimate, LIME as the paper ran it (coin flips,
exponential cosine kernel, Lasso) and Harmonica-anchor's query budget as the authors spend it.
Each is checked against an independent computation (exact spectra, closed forms, counting)."""

from __future__ import annotations

import numpy as np
import pytest

from xpg.fourier import (
    FourierPolynomial,
    HarmonicaAnchor,
    LimeExplainer,
    RemovalGame,
    estimate_truthful_gap,
    fourier_transform,
    truthful_gap,
    truthful_gap_on_masks,
)
from xpg.fourier.masks import all_masks, uniform_masks


def _random_polynomial(n: int, rng: np.random.Generator) -> FourierPolynomial:
    coefs = {(): float(rng.normal())}
    for _ in range(3 * n):
        size = int(rng.integers(1, n + 1))
        subset = tuple(int(i) for i in rng.choice(n, size=size, replace=False))
        coefs[subset] = coefs.get(subset, 0.0) + float(rng.normal(scale=0.5))
    return FourierPolynomial(n, coefs)


@pytest.mark.parametrize("seed", range(6))
def test_gap_estimate_agrees_with_the_exact_gap(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 8))
    f = _random_polynomial(n, rng)
    spectrum = fourier_transform(f.truth_table())  # exact reference, by brute force
    g = _random_polynomial(n, rng).truncate(2)
    variance = float(np.mean((f.truth_table() - g(all_masks(n))) ** 2))
    for degree in sorted({0, 1, 2, n}):
        exact = truthful_gap(g, spectrum, degree)
        est = estimate_truthful_gap(RemovalGame(f, n), g, degree, 20_000, random_state=seed)
        # each of the <= 2**n coefficients has error about sqrt(variance / m)
        assert abs(est - exact) <= 0.05 * variance + 1e-12, (degree, est, exact)


def test_gap_estimate_is_unbiased_where_the_plug_in_is_not() -> None:
    f = FourierPolynomial(6, {(): 0.2, (0, 1, 2, 3, 4): 1.0})  # gap to itself up to 2: 0
    masks_rng = np.random.default_rng(3)
    estimates, plug_in = [], []
    for _ in range(200):
        masks = uniform_masks(6, 50, masks_rng)
        values = f(masks)
        zero = FourierPolynomial(6, {(): 0.2})
        estimates.append(truthful_gap_on_masks(zero, masks, values, 2))
        h = values - 0.2
        from xpg.fourier.basis import parity_features, subsets_up_to_degree

        plug_in.append(
            float(np.sum((parity_features(masks, subsets_up_to_degree(6, 2)).T @ h / 50) ** 2))
        )
    # the plug-in sum of squared means is biased up by about 22 / 50; the estimate is not
    assert abs(np.mean(estimates)) < 0.03
    assert np.mean(plug_in) > 0.3


def test_paper_lime_recovers_a_linear_game() -> None:
    rng = np.random.default_rng(0)
    n = 7
    c = rng.normal(size=n)
    game = RemovalGame(lambda x: 0.3 + x @ c, n)
    exact = LimeExplainer(n_samples=400, setup="paper", lasso_alpha=0.0, random_state=1).fit(game)
    for i in range(n):  # kept-indicator z = (1 + x) / 2: weight 2 c_i, Fourier coefficient c_i
        assert exact.indices_[(i,)] == pytest.approx(2 * c[i], abs=1e-9)
        assert exact.interpretation_.coefficient([i]) == pytest.approx(c[i], abs=1e-9)
    assert exact.interpretation_.coefficient([]) == pytest.approx(0.3, abs=1e-9)
    lasso = LimeExplainer(n_samples=400, setup="paper", random_state=1).fit(game)
    assert max(abs(lasso.interpretation_.coefficient([i]) - c[i]) for i in range(n)) < 0.01
    assert lasso.n_queries_ == 400


def test_paper_lime_samples_by_coin_flips_and_weights_by_cosine() -> None:
    seen: list[np.ndarray] = []

    def record(x: np.ndarray) -> np.ndarray:
        seen.append(x.copy())
        return np.zeros(len(x))

    LimeExplainer(n_samples=4000, setup="paper", random_state=0).fit(RemovalGame(record, 10))
    masks = np.vstack(seen)
    kept = (masks > 0).mean(axis=0)
    assert masks.shape == (4000, 10) and np.all(np.abs(kept - 0.5) < 0.04)
    # not LIME-text sampling: no row is forced to be the instance
    assert (masks > 0).all(axis=1).sum() < 20


@pytest.mark.parametrize(
    ("local_queries", "k", "expected"), [("within", 3, 900), ("extra", 3, 1200), ("extra", 4, 1125)]
)
def test_anchor_budget(local_queries: str, k: int, expected: int) -> None:
    calls: list[np.ndarray] = []

    def record(x: np.ndarray) -> np.ndarray:
        calls.append(x.copy())
        return x[:, 0] + 0.5 * x[:, 1] * x[:, 2]

    game = RemovalGame(record, 8)
    h = HarmonicaAnchor(
        degree=2,
        n_anchors=k,
        n_samples=900,
        local_queries=local_queries,
        local_radius=2,
        random_state=0,
    ).fit(game)
    assert h.n_queries_ == expected == game.n_queries
    masks = np.vstack(calls)
    removed = (masks < 0).sum(axis=1)
    assert (removed <= 2).sum() >= 900 // k  # the local samples are in the ball of radius 2
