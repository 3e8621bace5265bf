"""Separation statistics against brute force on small point sets."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import xpg
from xpg.errors import InvalidDataError, InvalidParameterError
from xpg.learn.separation import (
    conflict_pairs,
    linear_separateness,
    max_l1_margin,
    r_separation,
    separation_distance,
)


def _naive_distance(X: np.ndarray, y: np.ndarray) -> float:
    best = math.inf
    for i, j in itertools.combinations(range(len(X)), 2):
        if y[i] != y[j]:
            best = min(best, float(np.max(np.abs(X[i] - X[j]))))
    return best


def _conflicts(X: np.ndarray, y: np.ndarray, r: float, kept: list[int]) -> bool:
    return any(
        y[i] != y[j] and np.max(np.abs(X[i] - X[j])) < 2 * r
        for i, j in itertools.combinations(kept, 2)
    )


def _brute_removals(X: np.ndarray, y: np.ndarray, r: float) -> int:
    n = len(X)
    for k in range(n + 1):
        for removed in itertools.combinations(range(n), k):
            kept = [i for i in range(n) if i not in removed]
            if not _conflicts(X, y, r, kept):
                return k
    raise AssertionError("unreachable: removing every point leaves no conflict")


def _points(rng: np.random.Generator, n: int, d: int, grid: int) -> np.ndarray:
    """Points on a coarse grid (duplicates and distances of exactly 2r happen)."""
    return rng.integers(0, grid, size=(n, d)).astype(float) / 2


def test_r_separation_against_every_subset() -> None:
    rng = np.random.default_rng(0)
    for case in range(150):
        n = int(rng.integers(1, 11))
        X = _points(rng, n, int(rng.integers(1, 3)), 4)
        y = rng.integers(0, 2, size=n)
        r = float(rng.choice([0.25, 0.5, 0.75, 1.0]))
        res = r_separation(X, y, r)
        assert res.n_removed == _brute_removals(X, y, r), (case, X.tolist(), y.tolist(), r)
        kept = np.flatnonzero(res.keep).tolist()
        assert len(kept) == n - res.n_removed and not _conflicts(X, y, r, kept)
        assert res.separateness == pytest.approx(1 - res.n_removed / n)
        assert res.separation == _naive_distance(X[res.keep], y[res.keep]) >= 2 * r


def test_conflicts_are_strictly_below_2r() -> None:
    X = np.array([[0.0], [0.5], [2.0], [2.4]])
    y = np.array([0, 1, 0, 1])
    assert conflict_pairs(X, y, 0.25) == [(2, 3)]  # 0.5 apart is not below 2r = 0.5
    assert r_separation(X, y, 0.25).n_removed == 1
    assert r_separation(X, y, 0.0).n_removed == 0


def test_duplicates_of_both_labels() -> None:
    X = np.zeros((9, 3))
    y = np.array([1] * 5 + [0] * 4)
    res = r_separation(X, y, 1e-5)
    assert res.n_removed == 4 and res.keep.tolist() == [True] * 5 + [False] * 4
    assert math.isinf(res.separation)


def test_separation_distance_against_all_pairs() -> None:
    rng = np.random.default_rng(1)
    for _ in range(100):
        n = int(rng.integers(2, 40))
        X = rng.random((n, int(rng.integers(1, 5)))).round(2)
        y = rng.integers(0, int(rng.integers(1, 4)), size=n)
        assert separation_distance(X, y) == _naive_distance(X, y)


def test_binary_and_coarse_data_against_all_pairs() -> None:
    """The shortcuts: different binary rows are 1 apart; with 2r at most the smallest gap
    between values, only equal rows conflict."""
    rng = np.random.default_rng(6)
    for _ in range(60):
        n, d = int(rng.integers(2, 30)), int(rng.integers(1, 6))
        X = rng.integers(0, 2, size=(n, d)).astype(float) * float(rng.choice([1.0, 0.5]))
        y = rng.integers(0, 2, size=n)
        assert separation_distance(X, y) == _naive_distance(X, y)
        if n <= 10:
            r = float(rng.choice([1e-5, 0.25]))
            assert r_separation(X, y, r).n_removed == _brute_removals(X, y, r)


def test_separation_distance_on_30000_rows() -> None:
    """Linear memory: 30,000 x 30,000 distances would take 7 GB."""
    rng = np.random.default_rng(2)
    X = rng.random((30_000, 4))
    y = (X[:, 0] > 0.5).astype(int)
    d = separation_distance(X, y)
    sample = rng.choice(30_000, 600, replace=False)
    assert 0 <= d <= _naive_distance(X[sample], y[sample])


def test_max_l1_margin_against_a_grid_of_directions() -> None:
    rng = np.random.default_rng(3)
    for _ in range(30):
        n = int(rng.integers(2, 9))
        X = rng.random((n, 2))
        s = np.where(rng.random(n) < 0.5, -1.0, 1.0)
        gamma, w, b = max_l1_margin(X, s)
        # the returned weights reach gamma within the l1 ball
        assert np.abs(w).sum() + abs(b) <= 1 + 1e-9
        assert np.min(s * (X @ w + b)) == pytest.approx(gamma, abs=1e-7)
        # no point of a fine grid on the l1 sphere of (w1, w2, b) does better (w = 0, b = 0
        # reaches 0: gamma is 0 when the points are not strictly separable)
        t = np.linspace(-1, 1, 81)
        w1, w2 = (a.ravel() for a in np.meshgrid(t, t))
        rest = 1 - np.abs(w1) - np.abs(w2)
        W = np.c_[w1, w2, rest][rest >= 0]
        W = np.vstack([W, W * [1, 1, -1]])
        best = float(np.max(np.min(s[:, None] * (X @ W[:, :2].T + W[:, 2]), axis=0)))
        best = max(best, 0.0)
        assert best <= gamma + 1e-9 and best >= gamma - 0.05


def test_linear_separateness_of_separable_data() -> None:
    rng = np.random.default_rng(4)
    X = rng.random((200, 3))
    score = X @ np.array([0.5, 0.3, 0.2]) - 0.5
    keep = np.abs(score) > 0.05
    X, y = X[keep], (score[keep] > 0).astype(int)
    res = linear_separateness(X, y)
    assert res.error == 0.0 and res.separateness == 1.0 and res.keep.all()
    # the planted separator, l1-normalised with its bias, has margin 0.05 / (1 + 0.5)
    assert res.gamma >= 0.05 / 1.5 - 1e-9
    assert set(res.errors) == {10.0**k for k in range(-10, 11, 2)}
    assert min(res.errors.values()) == res.error


def test_linear_separateness_is_at_most_r_separateness_on_a_grid() -> None:
    """Correctly classified points are strictly separated, hence r-separated on grid data for a
    tiny r: removing the misclassified points is one way to separate, so it removes no fewer."""
    rng = np.random.default_rng(5)
    for _ in range(20):
        n = int(rng.integers(5, 30))
        X = _points(rng, n, 2, 4)
        y = rng.integers(0, 2, size=n)
        if len(np.unique(y)) < 2:
            continue
        lin = linear_separateness(X, y, Cs=(1e-2, 1.0, 1e2))
        rsep = r_separation(X, y, 1e-5)
        assert lin.separateness <= rsep.separateness + 1e-12
        assert not _conflicts(X, y, 1e-5, np.flatnonzero(lin.keep).tolist())
        assert np.all(lin.keep == ((2 * (y == 1) - 1) * (X @ lin.coef + lin.intercept) > 0))


def test_bad_input() -> None:
    X = np.zeros((3, 2))
    with pytest.raises(InvalidDataError, match="two classes"):
        r_separation(X, [0, 1, 2], 0.1)
    with pytest.raises(InvalidDataError, match="NaN"):
        separation_distance([[np.nan], [0.0]], [0, 1])
    with pytest.raises(InvalidDataError, match="one label per row"):
        linear_separateness(X, [0, 1])
    with pytest.raises(InvalidDataError, match="2-D"):
        separation_distance([0.0, 1.0], [0, 1])
    with pytest.raises(InvalidDataError, match="numbers"):
        separation_distance([["a"], ["b"]], [0, 1])
    for r in (-1.0, math.inf, math.nan):
        with pytest.raises(InvalidParameterError):
            r_separation(X, [0, 1, 1], r)
    with pytest.raises(InvalidParameterError, match="Cs"):
        linear_separateness(X, [0, 1, 1], Cs=(0.0,))
    with pytest.raises(InvalidParameterError, match=r"Cs\[1\]: expected a number > 0, found -1"):
        linear_separateness(X, [0, 1, 1], Cs=(1.0, -1))
    with pytest.raises(InvalidParameterError, match="max_iter"):
        linear_separateness(X, [0, 1, 1], max_iter=0)


@pytest.mark.parametrize("bad", [math.inf, -math.inf, math.nan])
def test_non_finite_values_are_invalid_data(bad: float) -> None:
    X = [[0.0, 1.0], [2.0, 0.0], [1.0, bad], [bad, 0.5]]
    y = [0, 1, 1, 0]
    calls = [
        lambda: separation_distance(X, y),
        lambda: r_separation(X, y, 0.25),
        lambda: conflict_pairs(X, y, 0.25),
        lambda: linear_separateness(X, y, Cs=(1.0,)),
        lambda: max_l1_margin(X, [-1, 1, 1, -1]),
    ]
    found = "NaN" if math.isnan(bad) else str(bad)
    for call in calls:
        with pytest.raises(InvalidDataError, match="expected finite numbers") as err:
            call()
        assert f"found {found}" in str(err.value)
        assert "at row 2, column 1 (and 1 more non-finite value)" in str(err.value)


def test_max_l1_margin_and_conflict_pairs_check_their_input() -> None:
    with pytest.raises(InvalidDataError, match="2-D"):
        max_l1_margin([0.0, 1.0], [-1, 1])
    with pytest.raises(InvalidDataError, match="one sign per row"):
        max_l1_margin([[0.0], [1.0]], [-1])
    with pytest.raises(InvalidDataError, match="found 0.0 at row 0"):
        max_l1_margin([[0.0], [1.0]], [0, 1])
    with pytest.raises(InvalidDataError, match="numbers"):
        max_l1_margin([["a"], [1.0]], [-1, 1])
    for r in (-1.0, math.inf, math.nan):
        with pytest.raises(InvalidParameterError, match="r: expected"):
            conflict_pairs([[0.0], [1.0]], [0, 1], r)


def test_one_label() -> None:
    X = np.zeros((3, 1))
    assert math.isinf(separation_distance(X, [1, 1, 1]))
    assert r_separation(X, [1, 1, 1], 0.5).n_removed == 0
    res = linear_separateness(X, [1, 1, 1])
    assert res.error == 0.0 and res.gamma > 0


def test_exported_lazily() -> None:
    assert xpg.r_separation is r_separation
    assert xpg.separation_distance is separation_distance
    assert xpg.linear_separateness is linear_separateness
