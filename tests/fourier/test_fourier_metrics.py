"""Interpretation error, truthful gap, spectrum distance and inconsistency."""

from __future__ import annotations

import math

import numpy as np
import pytest

from xpg.errors import InvalidMetricError
from xpg.fourier.basis import FourierPolynomial, fourier_transform, subsets_up_to_degree
from xpg.fourier.game import RemovalGame
from xpg.fourier.harmonica import AnchoredInterpretation
from xpg.fourier.masks import all_masks, ball_size
from xpg.fourier.metrics import (
    count_distinct_models,
    errors_on_masks,
    inconsistency,
    interpretation_error,
    mean_spectrum_distance,
    spectrum_distance,
    truthful_gap,
)
from xpg.testing import table_game


@pytest.mark.parametrize("seed", range(30))
def test_interpretation_error_is_exact_on_enumerated_neighbourhoods(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 8))
    table = rng.normal(size=2**n)
    g = FourierPolynomial(n, {s: float(rng.normal()) for s in subsets_up_to_degree(n, 1)})
    x = all_masks(n)
    diff = np.abs(table - g(x))
    removed = (x == -1).sum(axis=1)
    for radius in (0, 1, 2, None):
        err = interpretation_error(table_game(table), g, radius=radius, tolerance=0.5)
        inside = removed <= (n if radius is None else radius)
        assert err.exact and err.n_masks == int(inside.sum())
        assert err.n_masks == (2**n if radius is None else ball_size(n, radius))
        assert err.l1 == pytest.approx(float(diff[inside].mean()), rel=1e-12)
        assert err.rms == pytest.approx(float(np.sqrt(np.mean(diff[inside] ** 2))), rel=1e-12)
        assert err.mse == pytest.approx(float(np.mean(diff[inside] ** 2)), rel=1e-12)
        assert err.fraction_above == pytest.approx(float(np.mean(diff[inside] >= 0.5)))


@pytest.mark.parametrize("seed", range(20))
def test_exact_spectrum_of_all_degrees_has_zero_error(seed: int) -> None:
    rng = np.random.default_rng(50 + seed)
    n = int(rng.integers(1, 9))
    table = rng.normal(size=2**n)
    spectrum = fourier_transform(table)
    game = table_game(table)
    for radius in (1, 3, None):
        err = interpretation_error(game, spectrum.truncate(n), radius=radius)
        assert err.l1 < 1e-12 and err.rms < 1e-12 and err.mse < 1e-12 and err.fraction_above == 0.0
    # dropping the top degree leaves exactly the energy of the dropped part (Parseval)
    top = sum(c * c for s, c in spectrum.coefficients.items() if len(s) == n)
    err = interpretation_error(game, spectrum.truncate(n - 1), radius=None)
    assert err.mse == pytest.approx(top, rel=1e-9, abs=1e-15)


def test_sampled_error_on_large_neighbourhoods() -> None:
    f = FourierPolynomial(16, {(0, 1): 0.5})
    err = interpretation_error(
        RemovalGame(f, 16), FourierPolynomial(16, {}), radius=8, n_samples=500, random_state=0
    )
    assert not err.exact and err.n_masks == 500
    assert err.l1 == pytest.approx(0.5) and err.fraction_above == 1.0
    # "above" counts |f - g| >= tolerance: the boundary is included
    for tolerance, expected in ((0.5, 1.0), (0.5 + 1e-9, 0.0)):
        err = interpretation_error(
            RemovalGame(f, 16),
            FourierPolynomial(16, {}),
            radius=8,
            tolerance=tolerance,
            n_samples=200,
            random_state=1,
        )
        assert err.fraction_above == expected


@pytest.mark.parametrize("seed", range(20))
def test_truthful_gap_is_the_projected_distance(seed: int) -> None:
    rng = np.random.default_rng(80 + seed)
    n = int(rng.integers(2, 7))
    f_table, g_table = rng.normal(size=2**n), rng.normal(size=2**n)
    f, g = fourier_transform(f_table), fourier_transform(g_table)
    x = all_masks(n)
    for degree in range(n + 1):
        # project f - g on the parities of degree <= C by least squares on the whole cube
        subsets = subsets_up_to_degree(n, degree)
        basis = np.array([[np.prod(row[list(s)]) for s in subsets] for row in x], dtype=float)
        coef = np.linalg.lstsq(basis, f_table - g_table, rcond=None)[0]
        projected = basis @ coef
        assert truthful_gap(g, f, degree) == pytest.approx(float(np.mean(projected**2)), rel=1e-9)
    assert truthful_gap(f, f, n) == 0.0


@pytest.mark.parametrize("seed", range(20))
def test_spectrum_distance_matches_function_distance(seed: int) -> None:
    rng = np.random.default_rng(120 + seed)
    n = int(rng.integers(1, 7))
    a, b = rng.normal(size=2**n), rng.normal(size=2**n)
    p, q = fourier_transform(a), fourier_transform(b)
    assert spectrum_distance(p, q, 2) == pytest.approx(float(np.sqrt(np.mean((a - b) ** 2))))
    diffs = [abs(p.coefficient(s) - q.coefficient(s)) for s in subsets_up_to_degree(n, n)]
    assert spectrum_distance(p, q, 1) == pytest.approx(sum(diffs))
    assert spectrum_distance(p, q, math.inf) == pytest.approx(max(diffs))
    assert spectrum_distance(p, p, 0) == 0.0
    assert spectrum_distance(p, q, 0) == sum(d != 0 for d in diffs)


def test_inconsistency_counts_distinct_models() -> None:
    p = FourierPolynomial(3, {(): 1.0})
    q = FourierPolynomial(3, {(): 1.0, (2,): 0.5})
    assert inconsistency(p) == 0.0
    assert count_distinct_models([p, p, q, q + FourierPolynomial(3, {(2,): 1e-12})]) == 2
    assert inconsistency([p, q, q - q, p * 2]) == 2.0
    anchored = AnchoredInterpretation([[1, 1, 1], [-1, -1, -1]], [p, q])
    assert inconsistency(anchored) == 1.0
    assert inconsistency(anchored, masks=[[1, 1, 1], [1, 1, -1]]) == 0.0  # one region used
    assert mean_spectrum_distance(anchored) == pytest.approx(0.5)
    assert mean_spectrum_distance(p) == 0.0


def test_bad_metric_arguments() -> None:
    p = FourierPolynomial(2, {})
    with pytest.raises(InvalidMetricError, match="one game value per mask"):
        errors_on_masks(p, np.ones((3, 2)), [1.0, 2.0])
    with pytest.raises(
        InvalidMetricError, match="radius: expected an integer >= 0 or None, found -1"
    ):
        interpretation_error(RemovalGame(lambda x: x[:, 0], 2), p, radius=-1)
    with pytest.raises(InvalidMetricError, match="interpretation has 2 players, the reference 3"):
        truthful_gap(p, FourierPolynomial(3, {}), 1)
    with pytest.raises(InvalidMetricError, match="expected a FourierPolynomial"):
        spectrum_distance(p, lambda x: x)  # type: ignore[arg-type]
