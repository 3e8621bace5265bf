"""Shapley-style indices, LIME and KernelSHAP on removal games.

The library computes exact indices from Moebius coefficients; here they are checked against
their defining sums over coalitions (Shapley 1953, Grabisch-Roubens 1999, Sundararajan et al.
2020), Faith-SHAP against its defining constrained weighted least squares (Tsai et al.), all
against closed forms on unanimity games, and against shapiq where it is installed.
"""

from __future__ import annotations

import itertools
from math import comb, factorial

import numpy as np
import pytest
import shapiq

from xpg.errors import GameTooLargeError, InvalidExplainerError
from xpg.fourier.baselines import (
    FaithShapIndex,
    KernelShapExplainer,
    LimeExplainer,
    ShapleyInteractionIndex,
    ShapleyTaylorIndex,
    ShapleyValues,
    exact_indices,
    moebius_transform,
)
from xpg.fourier.basis import FourierPolynomial
from xpg.fourier.game import RemovalGame
from xpg.fourier.masks import all_masks
from xpg.testing import table_game


def code(subset) -> int:
    return sum(1 << i for i in subset)


def subsets(n: int, max_size: int | None = None):
    top = n if max_size is None else max_size
    for k in range(top + 1):
        yield from itertools.combinations(range(n), k)


def discrete_derivative(v: np.ndarray, t: tuple[int, ...], s: tuple[int, ...]) -> float:
    return sum(
        (-1) ** (len(t) - k) * v[code(s + sub)]
        for k in range(len(t) + 1)
        for sub in itertools.combinations(t, k)
    )


def shapley_by_definition(v: np.ndarray, n: int) -> dict:
    out = {}
    for i in range(n):
        others = [j for j in range(n) if j != i]
        out[(i,)] = sum(
            factorial(len(s))
            * factorial(n - len(s) - 1)
            / factorial(n)
            * (v[code(s) | 1 << i] - v[code(s)])
            for k in range(n)
            for s in itertools.combinations(others, k)
        )
    return out


def sii_by_definition(v: np.ndarray, n: int, order: int) -> dict:
    out = {}
    for t in subsets(n, order):
        if not t:
            continue
        rest = [j for j in range(n) if j not in t]
        out[t] = sum(
            factorial(n - len(s) - len(t))
            * factorial(len(s))
            / factorial(n - len(t) + 1)
            * discrete_derivative(v, t, s)
            for k in range(len(rest) + 1)
            for s in itertools.combinations(rest, k)
        )
    return out


def stii_by_definition(v: np.ndarray, n: int, order: int) -> dict:
    out = {}
    for t in subsets(n, order):
        if not t:
            continue
        if len(t) < order:
            out[t] = discrete_derivative(v, t, ())
            continue
        rest = [j for j in range(n) if j not in t]
        out[t] = (
            order
            / n
            * sum(
                discrete_derivative(v, t, s) / comb(n - 1, len(s))
                for k in range(len(rest) + 1)
                for s in itertools.combinations(rest, k)
            )
        )
    return out


def faith_shap_by_least_squares(v: np.ndarray, n: int, order: int) -> dict:
    """argmin sum_S mu(S) (v(S) - sum_{T in S, |T| <= l} E(T))^2, exact at S = {} and S = N."""
    terms = list(subsets(n, order))
    coalitions = list(subsets(n))
    x = np.array([[float(set(t) <= set(s)) for t in terms] for s in coalitions])
    y = np.array([v[code(s)] for s in coalitions])
    inner = [0 < len(s) < n for s in coalitions]
    mu = np.array(
        [
            (n - 1) / (comb(n, len(s)) * len(s) * (n - len(s))) if inside else 0.0
            for s, inside in zip(coalitions, inner, strict=True)
        ]
    )
    constraints = x[[not inside for inside in inner]]
    targets = y[[not inside for inside in inner]]
    p, c = len(terms), len(constraints)
    kkt = np.zeros((p + c, p + c))
    kkt[:p, :p] = 2 * x.T @ (mu[:, None] * x)
    kkt[:p, p:] = constraints.T
    kkt[p:, :p] = constraints
    rhs = np.concatenate([2 * x.T @ (mu * y), targets])
    solution = np.linalg.lstsq(kkt, rhs, rcond=None)[0][:p]
    return {t: float(e) for t, e in zip(terms, solution, strict=True) if t}


#: Relative accuracy of shapiq's regression solves (see test_sampled_indices_through_shapiq).
REGRESSION_RTOL = 1e-4


def max_abs(indices: dict) -> float:
    return max(abs(v) for v in indices.values())


def assert_same(found: dict, expected: dict, atol: float = 1e-10) -> None:
    for t, value in expected.items():
        assert found[t] == pytest.approx(value, abs=atol), t


@pytest.mark.parametrize("seed", range(25))
def test_exact_indices_match_their_definitions(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 6))
    v = rng.normal(size=2**n)
    game = table_game(v)
    assert_same(ShapleyValues().fit(game).indices_, shapley_by_definition(v, n))
    for order in range(1, n + 1):
        assert_same(
            ShapleyInteractionIndex(order).fit(game).indices_, sii_by_definition(v, n, order)
        )
        assert_same(ShapleyTaylorIndex(order).fit(game).indices_, stii_by_definition(v, n, order))
        assert_same(
            FaithShapIndex(order).fit(game).indices_,
            faith_shap_by_least_squares(v, n, order),
            atol=1e-8,
        )
        for cls in (ShapleyInteractionIndex, ShapleyTaylorIndex, FaithShapIndex):
            assert cls(order).fit(game).indices_[()] == v[0]


@pytest.mark.parametrize("size", [1, 2, 3, 4, 5])
def test_unanimity_games_closed_forms(size: int) -> None:
    n = 6
    members = tuple(range(1, size + 1))
    v = np.array([float(set(members) <= {i for i in range(n) if c >> i & 1}) for c in range(2**n)])
    game = table_game(v)
    sv = ShapleyValues().fit(game).indices_
    assert_same(sv, {(i,): (1 / size if i in members else 0.0) for i in range(n)})
    sii = ShapleyInteractionIndex(order=3).fit(game).indices_
    for t in subsets(n, 3):
        if t:
            expected = 1 / (size - len(t) + 1) if set(t) <= set(members) else 0.0
            assert sii[t] == pytest.approx(expected, abs=1e-12)
    for k in (1, 2, 3):
        st = ShapleyTaylorIndex(order=k).fit(game).indices_
        for t in subsets(n, k):
            if not t:
                continue
            if size <= k:
                expected = float(t == members)
            else:
                expected = 1 / comb(size, k) if len(t) == k and set(t) <= set(members) else 0.0
            assert st[t] == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("seed", range(10))
def test_efficiency_axioms(seed: int) -> None:
    rng = np.random.default_rng(200 + seed)
    n = int(rng.integers(2, 7))
    v = rng.normal(size=2**n)
    game = table_game(v)
    full = np.ones((1, n))
    sv = ShapleyValues().fit(game)
    assert sum(c for t, c in sv.indices_.items() if t) == pytest.approx(v[-1] - v[0])
    assert sv.interpretation_(full)[0] == pytest.approx(v[-1])  # efficient at the instance
    for order in range(1, n + 1):
        # generalised efficiency of Shapley-Taylor, and Faith-SHAP's exactness at N
        for cls in (ShapleyTaylorIndex, FaithShapIndex):
            fit = cls(order).fit(game)
            assert fit.interpretation_(full)[0] == pytest.approx(v[-1], abs=1e-8)
    # at order n, Shapley-Taylor and Faith-SHAP are the Moebius transform: exact everywhere
    moebius = moebius_transform(v)
    for cls in (ShapleyTaylorIndex, FaithShapIndex):
        fit = cls(n).fit(game)
        np.testing.assert_allclose(fit.interpretation_(all_masks(n)), v, atol=1e-8)
        for t, value in fit.indices_.items():
            if t:
                assert value == pytest.approx(moebius[code(t)], abs=1e-8)


def polynomial_game(order: int, seed: int, n: int = 12) -> tuple[RemovalGame, np.ndarray]:
    """Appendix F setting: a random polynomial of exactly ``order`` in the kept-indicators."""
    rng = np.random.default_rng(seed)
    terms: dict[tuple[int, ...], float] = {(): 0.3}
    terms.update({(i,): float(rng.normal()) for i in range(n)})
    for k, count in ((2, 5), (3, 3)):
        if k <= order:
            for _ in range(count):
                terms[tuple(sorted(rng.choice(n, k, replace=False).tolist()))] = 1.0
    f = FourierPolynomial.from_subset_values(n, terms)
    return RemovalGame(f, n), f(all_masks(n))


def max_error(explainer, game: RemovalGame, table: np.ndarray) -> float:
    fit = explainer.fit(game)
    return float(np.max(np.abs(fit.interpretation_(all_masks(game.n_players)) - table)))


@pytest.mark.parametrize("order", [1, 2, 3])
def test_which_exact_indices_recover_which_orders(order: int) -> None:
    """Appendix F: every index recovers order 1; Shapley-Taylor and Faith-SHAP of the
    polynomial's order recover it; Shapley values and the Shapley interaction index fail
    beyond order 1; Shapley-Taylor of order 2 fails on order 3."""
    game, table = polynomial_game(order, seed=order)
    assert (max_error(ShapleyValues(), game, table) < 1e-9) == (order == 1)
    assert (max_error(ShapleyInteractionIndex(order), game, table) < 1e-9) == (order == 1)
    assert max_error(ShapleyTaylorIndex(order), game, table) < 1e-9
    assert max_error(FaithShapIndex(order), game, table) < 1e-8
    if order == 3:
        assert max_error(ShapleyTaylorIndex(2), game, table) > 0.1
        assert max_error(FaithShapIndex(2), game, table) > 0.1


def test_lime_and_kernel_shap_on_additive_and_pairwise_games() -> None:
    game, table = polynomial_game(1, seed=5)
    # LIME's default Ridge (alpha = 1) shrinks slightly: recovered to 2% of the range
    assert max_error(LimeExplainer(n_samples=2000, random_state=0), game, table) < 0.02 * np.ptp(
        table
    )
    kernel = KernelShapExplainer(n_samples=2000, random_state=0)
    assert max_error(kernel, game, table) < 1e-8
    assert kernel.n_queries_ <= 2000
    game2, table2 = polynomial_game(2, seed=6)
    assert max_error(LimeExplainer(n_samples=2000, random_state=0), game2, table2) > 0.1
    fit = KernelShapExplainer(n_samples=2000, random_state=0).fit(game2)
    errors = np.abs(fit.interpretation_(all_masks(12)) - table2)
    assert errors[-1] < 1e-8 and errors.max() > 0.1  # efficient at the instance only


def test_kernel_shap_enumerating_every_coalition_is_exact() -> None:
    v = np.random.default_rng(4).normal(size=2**5)
    exact = ShapleyValues().fit(table_game(v)).indices_
    fit = KernelShapExplainer(n_samples=66, random_state=0).fit(table_game(v))
    assert_same(fit.indices_, exact, atol=1e-9)


def test_lime_is_reproducible_and_weights_the_instance() -> None:
    game, _ = polynomial_game(2, seed=7)
    a = LimeExplainer(n_samples=500, random_state=3).fit(game).indices_
    b = LimeExplainer(n_samples=500, random_state=3).fit(game).indices_
    assert a == b and len(a) == 13


def test_shapiq_exact_computer_agrees() -> None:
    v = np.random.default_rng(11).normal(size=2**6)
    game = table_game(v)

    def value(coalitions: np.ndarray) -> np.ndarray:
        c = np.atleast_2d(coalitions).astype(int)
        return v[(c * (1 << np.arange(6))).sum(axis=1)]

    computer = shapiq.ExactComputer(n_players=6, game=value)
    pairs = [
        ("SII", ShapleyInteractionIndex),
        ("STII", ShapleyTaylorIndex),
        ("FSII", FaithShapIndex),
    ]
    for order in (1, 2, 3):
        for name, cls in pairs:
            reference = computer(name, order=order).dict_values
            mine = cls(order).fit(game).indices_
            for t, value_ in mine.items():
                if t:
                    assert value_ == pytest.approx(reference.get(t, 0.0), abs=1e-7), (name, t)


def test_sampled_indices_through_shapiq() -> None:
    game, table = polynomial_game(2, seed=9, n=10)
    exact = FaithShapIndex(2).fit(game).indices_
    fit = FaithShapIndex(2, n_samples=800, random_state=0).fit(game)
    assert fit.n_queries_ <= 800
    # An order-2 game is fitted without residual by order-2 Faith-SHAP regression, so the only
    # error is the solve's.  shapiq enforces efficiency with weight big_M = 1e8 and solves the
    # normal equations; their condition number is about 4e10 here, so a backward-stable solve
    # is accurate to cond * eps ~ 1e-5 relative.  A sampling or indexing mistake is >= 1e-2.
    assert_same(fit.indices_, exact, atol=REGRESSION_RTOL * max_abs(exact))
    st = ShapleyTaylorIndex(2, n_samples=800, random_state=0).fit(game)
    assert st.n_queries_ <= 800
    assert st.indices_[()] == pytest.approx(table[0])
    additive, _ = polynomial_game(1, seed=9, n=10)
    sv = ShapleyValues(n_samples=500, random_state=0).fit(additive)
    exact_sv = ShapleyValues().fit(additive).indices_
    assert_same(sv.indices_, exact_sv, atol=REGRESSION_RTOL * max_abs(exact_sv))


def test_errors() -> None:
    with pytest.raises(GameTooLargeError, match="at most 16 players, found 17"):
        ShapleyValues().fit(RemovalGame(lambda x: x[:, 0], 17))
    with pytest.raises(
        InvalidExplainerError, match="FaithShapIndex: order: expected an integer >= 1, found 0"
    ):
        FaithShapIndex(order=0).fit(RemovalGame(lambda x: x[:, 0], 3))
    with pytest.raises(InvalidExplainerError, match="index: expected one of .*found 'XYZ'"):
        exact_indices(np.zeros(4), "XYZ", 1)
