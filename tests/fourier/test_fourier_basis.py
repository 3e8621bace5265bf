"""Masks, the parity basis, readable polynomials and the exact Walsh-Hadamard transform.

Every fast routine is checked against the definition evaluated naively.
"""

from __future__ import annotations

import itertools
from math import comb

import numpy as np
import pytest

from xpg.errors import GameTooLargeError, InvalidPolynomialError, XpgError
from xpg.fourier.basis import (
    FourierPolynomial,
    count_subsets_up_to_degree,
    fourier_transform,
    parity_features,
    subsets_up_to_degree,
)
from xpg.fourier.masks import (
    all_masks,
    ball_masks,
    ball_size,
    enumerate_ball,
    masks_to_codes,
    neighbourhood_masks,
    uniform_masks,
)


def naive_coefficient(table: np.ndarray, subset: tuple[int, ...]) -> float:
    """f_S = 2^-n sum_x f(x) prod_{i in S} x_i, straight from the definition."""
    n = int(table.size).bit_length() - 1
    total = 0.0
    for code in range(2**n):
        x = [1 if code >> i & 1 else -1 for i in range(n)]
        total += table[code] * np.prod([x[i] for i in subset])
    return total / 2**n


def test_all_masks_order_and_codes() -> None:
    x = all_masks(4)
    for code, row in enumerate(x):
        assert [1 if code >> i & 1 else -1 for i in range(4)] == row.tolist()
    assert masks_to_codes(x).tolist() == list(range(16))
    assert x[-1].tolist() == [1, 1, 1, 1]  # the instance itself


def test_enumerate_ball_is_the_ball() -> None:
    for n in range(1, 7):
        for r in range(n + 1):
            ball = enumerate_ball(n, r)
            assert len(ball) == ball_size(n, r) == len({tuple(m) for m in ball})
            assert ((ball == -1).sum(axis=1) <= r).all()


def test_ball_masks_are_uniform_on_the_ball() -> None:
    n, r, draws = 5, 2, 32_000
    masks = ball_masks(n, r, draws, np.random.default_rng(3))
    assert ((masks == -1).sum(axis=1) <= r).all()
    codes, counts = np.unique(masks_to_codes(masks), return_counts=True)
    size = ball_size(n, r)
    assert len(codes) == size == 16
    expected = draws / size
    # chi-square with 15 degrees of freedom: 40 is far in the tail (p < 0.001)
    assert float(((counts - expected) ** 2 / expected).sum()) < 40.0


def test_uniform_masks_and_neighbourhoods() -> None:
    rng = np.random.default_rng(0)
    u = uniform_masks(10, 5000, rng)
    assert set(np.unique(u)) == {-1, 1}
    assert abs(float((u == 1).mean()) - 0.5) < 0.02
    masks, exact = neighbourhood_masks(6, 2, 100, rng)
    assert exact and len(masks) == ball_size(6, 2)
    masks, exact = neighbourhood_masks(6, None, 100, rng)
    assert exact and len(masks) == 64
    masks, exact = neighbourhood_masks(12, 3, 100, rng)
    assert not exact and len(masks) == 100 and ((masks == -1).sum(axis=1) <= 3).all()
    with pytest.raises(GameTooLargeError, match="at most 20 players, found 21"):
        all_masks(21)


def test_subsets_up_to_degree_counts() -> None:
    for n in range(0, 8):
        for d in range(0, 5):
            subsets = subsets_up_to_degree(n, d)
            assert len(subsets) == count_subsets_up_to_degree(n, d)
            assert len(subsets) == sum(comb(n, k) for k in range(min(d, n) + 1))
            assert len(set(subsets)) == len(subsets)


def test_parity_features_match_products() -> None:
    rng = np.random.default_rng(1)
    masks = uniform_masks(6, 40, rng)
    subsets = subsets_up_to_degree(6, 4)
    phi = parity_features(masks, subsets)
    for j, s in enumerate(subsets):
        expected = [float(np.prod([row[i] for i in s])) for row in masks]
        assert phi[:, j].tolist() == expected


@pytest.mark.parametrize("seed", range(60))
def test_fourier_transform_matches_definition_and_inverts(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 7))
    table = rng.normal(size=2**n)
    p = fourier_transform(table)
    for k in range(n + 1):
        for s in itertools.combinations(range(n), k):
            assert p.coefficient(s) == pytest.approx(naive_coefficient(table, s), abs=1e-12)
    np.testing.assert_allclose(p.truth_table(), table, atol=1e-12)
    np.testing.assert_allclose(p(all_masks(n)), table, atol=1e-12)
    # Parseval: sum of squared coefficients = mean of the squared function
    energy = sum(c * c for c in p.coefficients.values())
    assert energy == pytest.approx(float(np.mean(table**2)), rel=1e-12)


@pytest.mark.parametrize("seed", range(40))
def test_subset_basis_round_trip(seed: int) -> None:
    rng = np.random.default_rng(100 + seed)
    n = int(rng.integers(1, 7))
    subsets = subsets_up_to_degree(n, n)
    chosen = rng.choice(len(subsets), size=min(len(subsets), 6), replace=False)
    moebius = {subsets[j]: float(rng.normal()) for j in chosen}
    p = FourierPolynomial.from_subset_values(n, moebius)
    x = all_masks(n)
    z = (x + 1) / 2
    direct = sum(m * np.prod(z[:, list(t)], axis=1) for t, m in moebius.items())
    np.testing.assert_allclose(p(x), direct, atol=1e-12)
    back = p.to_subset_values()
    for t in subsets:
        assert back.get(t, 0.0) == pytest.approx(moebius.get(t, 0.0), abs=1e-12)


def test_readable_string_and_arithmetic() -> None:
    p = FourierPolynomial(4, {(): 0.31, (3,): 0.12, (3, 1): -0.08})
    assert str(p) == "0.31 + 0.12 x3 - 0.08 x1 x3"
    assert p.to_string(max_terms=2) == "0.31 + 0.12 x3 + ..."
    assert FourierPolynomial(2, {}).to_string() == "0"
    assert str(FourierPolynomial(2, {(0,): -1.0, (1,): 1.0})) == "-x0 + x1"
    q = p - p.truncate(1)
    assert dict(q.coefficients) == {(): 0.0, (3,): 0.0, (1, 3): -0.08}
    assert (2 * p).coefficient((1, 3)) == pytest.approx(-0.16)
    assert p.degree == 2 and p.truncate(0).degree == 0
    named = p.with_feature_names(["a", "b", "c", "d"])
    assert str(named) == "0.31 + 0.12 d - 0.08 b d"


def test_bad_input_is_named() -> None:
    p = FourierPolynomial(3, {(0,): 1.0})
    with pytest.raises(InvalidPolynomialError, match=r"shape \(m, 3\), found shape \(2, 2\)"):
        p([[1, 1], [1, -1]])
    with pytest.raises(InvalidPolynomialError, match="found 0.5 at row 0, column 1"):
        p([[1, 0.5, 1]])
    with pytest.raises(InvalidPolynomialError, match="distinct players in 0..2"):
        FourierPolynomial(3, {(0, 3): 1.0})
    with pytest.raises(InvalidPolynomialError, match="length 2\\*\\*n, found length 3"):
        fourier_transform([1.0, 2.0, 3.0])
    with pytest.raises(XpgError):
        p + FourierPolynomial(4, {})
    assert isinstance(InvalidPolynomialError("x"), ValueError)
