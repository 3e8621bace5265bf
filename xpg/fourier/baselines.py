"""The usual removal-based explainers, run on the same removal game as the Fourier ones.

Each baseline reads a :class:`~xpg.fourier.game.RemovalGame` and returns its explanation as a
polynomial surrogate over the kept-indicators ``z_i = (1 + x_i) / 2``, the seed paper's "global
extension": ``g(z) = v(empty) + sum_T I(T) prod_{i in T} z_i`` over the explained subsets
``T`` (Appendix E), stored as a :class:`~xpg.fourier.basis.FourierPolynomial` so that every
metric applies unchanged.  ``indices_`` keeps the raw indices ``{T: I(T)}`` (``() -> v(empty)``).

Exact indices, by enumeration of all ``2**n`` coalitions (small games), from the Moebius
coefficients ``a(S) = sum_{L subset of S} (-1)^{|S|-|L|} v(L)``:

* Shapley values: ``phi_i = sum_{S ni i} a(S) / |S|``.
* Shapley interaction index (Grabisch and Roubens): ``I(T) = sum_{S sup T} a(S) / (|S|-|T|+1)``.
* Shapley-Taylor index of order ``k`` (Sundararajan et al.): ``a(T)`` for ``|T| < k`` and
  ``sum_{S sup T} a(S) / C(|S|, k)`` for ``|T| = k``.
* Faith-SHAP of order ``l`` (Tsai, Yeh, Ravikumar, Theorem 19): for ``0 < |T| <= l``,
  ``a(T) + (-1)^(l-|T|) |T| / (l+|T|) C(l,|T|) sum_{S sup T, |S| > l} C(|S|-1, l) /
  C(|S|+l-1, l+|T|) a(S)``.

With ``n_samples`` set, the index is approximated within that budget of game queries by the
``shapiq`` library (optional extra ``fourier-baselines``).  LIME runs through
:class:`lime.lime_base.LimeBase` on masks drawn as ``LimeTextExplainer`` draws them, and
KernelSHAP through :class:`shap.KernelExplainer` on the mask space (kept = instance value 1,
removed = background value 0), both also optional.

Examples
--------
>>> import numpy as np
>>> from xpg.fourier.game import RemovalGame
>>> z = lambda x: (1 + x) / 2
>>> game = RemovalGame(lambda x: z(x[:, 0]) * z(x[:, 1]) * z(x[:, 2]), 3)  # unanimity game
>>> ShapleyValues().fit(game).indices_  # doctest: +ELLIPSIS
{(): 0.0, (0,): 0.333..., (1,): 0.333..., (2,): 0.333...}
>>> ShapleyTaylorIndex(order=2).fit(game).indices_[(0, 1)]  # doctest: +ELLIPSIS
0.333...
>>> FaithShapIndex(order=3).fit(game).interpretation_.to_string()
'0.125 + 0.125 x0 + 0.125 x1 + 0.125 x2 + 0.125 x0 x1 + 0.125 x0 x2 + 0.125 x1 x2 + 0.125 x0 x1 x2'

References
----------
Zhang, Yuan et al. Trade-off Between Efficiency and Consistency for Removal-based Explanations,
section 3.2, Appendix E and F; Shapley (1953); Grabisch, Roubens. An axiomatic approach to the
concept of interaction among players in cooperative games. IJGT 28 (1999); Sundararajan,
Dhamdhere, Agarwal. The Shapley Taylor Interaction Index. ICML 2020; Tsai, Yeh, Ravikumar.
Faith-Shap: The Faithful Shapley Interaction Index. JMLR 24 (2023); Ribeiro, Singh, Guestrin.
"Why should I trust you?" KDD 2016 (LIME); Lundberg, Lee. A Unified Approach to Interpreting
Model Predictions. NeurIPS 2017 (KernelSHAP); Muschalik et al. shapiq. NeurIPS 2024.
"""

from __future__ import annotations

import abc
import importlib
from collections.abc import Callable
from math import comb
from typing import Any

import numpy as np

from xpg.core.validation import Interval, Options, check_param, random_generator
from xpg.errors import InvalidExplainerError, MissingExtraError
from xpg.fourier.basis import FourierPolynomial, Subset
from xpg.fourier.explainer import RemovalExplainer
from xpg.fourier.game import RemovalGame
from xpg.fourier.masks import all_masks, check_enumerable

#: Largest number of players for exact (enumerated) Shapley-style indices.
MAX_EXACT_PLAYERS = 16

#: The indices :func:`exact_indices` computes.
EXACT_INDICES = ("SV", "SII", "STII", "FSII")


def _require(module: str, who: str) -> Any:
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingExtraError(
            f"{who} needs the optional package {module.split('.')[0]!r}: "
            "pip install -e '.[fourier-baselines]' from a clone of xpg"
        ) from exc


# -- exact indices from the Moebius transform ---------------------------------------------------
def moebius_transform(table: np.ndarray) -> np.ndarray:
    """Moebius coefficients ``a(S)`` of a game given on every coalition (bit code order).

    Examples
    --------
    >>> moebius_transform(np.array([0.0, 1.0, 2.0, 5.0])).tolist()  # v(0)=1, v(1)=2, v(01)=5
    [0.0, 1.0, 2.0, 2.0]
    """
    a = np.array(table, dtype=float)
    n = int(a.size).bit_length() - 1
    for i in range(n):
        v = a.reshape(-1, 2, 2**i)
        v[:, 1, :] -= v[:, 0, :]
    return a


def _popcounts(n: int) -> np.ndarray:
    codes = np.arange(2**n, dtype=np.int64)[:, None]
    return ((codes >> np.arange(n, dtype=np.int64)) & 1).sum(axis=1)


def _superset_sums_by_size(moebius: np.ndarray, n: int) -> np.ndarray:
    """``Z[s, T] = sum of a(S) over supersets S of T with |S| = s``, for every ``s`` and ``T``."""
    sizes = _popcounts(n)
    z = np.zeros((n + 1, 2**n))
    z[sizes, np.arange(2**n)] = moebius
    for i in range(n):
        v = z.reshape(n + 1, -1, 2, 2**i)
        v[:, :, 0, :] += v[:, :, 1, :]
    return z


def _subset_of(code: int, n: int) -> Subset:
    return tuple(i for i in range(n) if code >> i & 1)


def exact_indices(table: np.ndarray, index: str, order: int) -> dict[Subset, float]:
    """Exact Shapley-style indices of a game given on all coalitions (bit code order).

    ``index`` is ``"SV"`` (order 1), ``"SII"``, ``"STII"`` or ``"FSII"``; returned for every
    subset ``T`` with ``1 <= |T| <= order``, plus ``() -> v(empty)``.
    """
    check_param("index", index, Options(EXACT_INDICES), error=InvalidExplainerError)
    table = np.asarray(table, dtype=float)
    n = int(table.size).bit_length() - 1
    a = moebius_transform(table)
    z = _superset_sums_by_size(a, n)
    sizes = _popcounts(n)
    s = np.arange(n + 1, dtype=float)[:, None]
    out: dict[Subset, float] = {(): float(table[0])}
    for t in range(1, min(order, n) + 1):
        codes = np.flatnonzero(sizes == t)
        zt = z[:, codes]
        if index in ("SV", "SII"):
            weights = np.where(s >= t, 1.0 / np.maximum(s - t + 1, 1), 0.0)
            values = (weights * zt).sum(axis=0)
        elif index == "STII":
            if t < order:
                values = a[codes]
            else:
                weights = np.array([1.0 / comb(int(k), t) if k >= t else 0.0 for k in s[:, 0]])
                values = weights @ zt
        else:  # "FSII"
            weights = np.array(
                [
                    comb(int(k) - 1, order) / comb(int(k) + order - 1, order + t)
                    if k > order
                    else 0.0
                    for k in s[:, 0]
                ]
            )
            factor = (-1) ** (order - t) * t / (order + t) * comb(order, t)
            values = a[codes] + factor * (weights @ zt)
        out.update({_subset_of(int(c), n): float(v) for c, v in zip(codes, values, strict=True)})
    return out


# -- explainers -----------------------------------------------------------------------------------
def _coalition_game(game: RemovalGame) -> Callable[[np.ndarray], np.ndarray]:
    """The game as a function of boolean coalitions (True = kept), the form shapiq expects."""

    def value(coalitions: np.ndarray) -> np.ndarray:
        c = np.atleast_2d(np.asarray(coalitions, dtype=bool))
        return game(np.where(c, 1, -1))

    return value


class _ShapleyStyleIndex(RemovalExplainer):
    """Shared fit: exact enumeration, or a shapiq approximator within ``n_samples`` queries."""

    _index = "SV"
    _parameter_constraints = {"n_samples": [Interval(int, 2, None), None]}
    n_samples: int | None
    random_state: int | None

    @abc.abstractmethod
    def _order(self) -> int:
        """Largest size of an explained subset."""

    @abc.abstractmethod
    def _approximator(self, shapiq: Any, n: int, order: int) -> Any:
        """The shapiq approximator used when ``n_samples`` is set."""

    def fit(self, game: RemovalGame) -> _ShapleyStyleIndex:
        """Compute the indices and the surrogate polynomial."""
        who = type(self).__name__
        game, params = self._validated(game)
        order = self._order()
        before = game.n_queries
        budget = params["n_samples"]
        if budget is None:
            check_enumerable(game.n_players, f"exact {who}", MAX_EXACT_PLAYERS)
            table = game(all_masks(game.n_players))
            indices = exact_indices(table, self._index, order)
        else:
            shapiq = _require("shapiq", who)
            approximator = self._approximator(shapiq, game.n_players, order)
            values = approximator.approximate(budget=budget, game=_coalition_game(game))
            indices = {(): float(values.baseline_value)}
            for subset, v in values.dict_values.items():
                if 1 <= len(subset) <= order:
                    indices[tuple(sorted(int(i) for i in subset))] = float(v)
        self.n_queries_ = game.n_queries - before
        self.indices_ = indices
        self.interpretation_ = FourierPolynomial.from_subset_values(
            game.n_players, indices, game.feature_names
        )
        return self


class _InteractionIndex(_ShapleyStyleIndex):
    _parameter_constraints = {
        **_ShapleyStyleIndex._parameter_constraints,
        "order": [Interval(int, 1, None)],
    }

    def __init__(
        self, order: int = 2, n_samples: int | None = None, random_state: int | None = None
    ) -> None:
        self.order = order
        self.n_samples = n_samples
        self.random_state = random_state

    def _order(self) -> int:
        return int(self.order)


class ShapleyValues(_ShapleyStyleIndex):
    """Shapley values; surrogate ``v(empty) + sum_i phi_i z_i`` (efficient at the instance).

    Parameters
    ----------
    n_samples : int or None
        ``None``: exact, by enumerating all ``2**n`` coalitions (``n <= 16``); otherwise
        shapiq's KernelSHAP with this budget.
    random_state : int or None
    """

    _index = "SV"

    def __init__(self, n_samples: int | None = None, random_state: int | None = None) -> None:
        self.n_samples = n_samples
        self.random_state = random_state

    def _order(self) -> int:
        return 1

    def _approximator(self, shapiq: Any, n: int, order: int) -> Any:
        return shapiq.KernelSHAP(n, random_state=self.random_state)


class ShapleyInteractionIndex(_InteractionIndex):
    """Shapley interaction index (Grabisch-Roubens) of every subset up to ``order``.

    Parameters
    ----------
    order : int
    n_samples : int or None
        ``None``: exact (``n <= 16``); otherwise shapiq's KernelSHAPIQ (index ``"SII"``).
    random_state : int or None
    """

    _index = "SII"

    def _approximator(self, shapiq: Any, n: int, order: int) -> Any:
        return shapiq.KernelSHAPIQ(n, max_order=order, index="SII", random_state=self.random_state)


class ShapleyTaylorIndex(_InteractionIndex):
    """Shapley-Taylor interaction index of order ``order`` (generalised efficiency).

    Parameters
    ----------
    order : int
    n_samples : int or None
        ``None``: exact (``n <= 16``); otherwise shapiq's permutation sampling for STII (the
        Monte Carlo estimator of Sundararajan et al.); on the benchmark's 16-22 player games it
        had the lowest interpretation error of shapiq's STII approximators at 2,000 queries
        (SVARM-IQ was 10-50 times worse at 22 players).
    random_state : int or None
    """

    _index = "STII"

    def _approximator(self, shapiq: Any, n: int, order: int) -> Any:
        return shapiq.PermutationSamplingSTII(n, max_order=order, random_state=self.random_state)


class FaithShapIndex(_InteractionIndex):
    """Faith-SHAP (faithful Shapley interaction index) of order ``order``.

    Parameters
    ----------
    order : int
    n_samples : int or None
        ``None``: exact (``n <= 16``); otherwise shapiq's RegressionFSII (weighted least
        squares on sampled coalitions).
    random_state : int or None
    """

    _index = "FSII"

    def _approximator(self, shapiq: Any, n: int, order: int) -> Any:
        return shapiq.RegressionFSII(n, max_order=order, random_state=self.random_state)


class LimeExplainer(RemovalExplainer):
    """LIME on the removal game: a weighted linear model of the game over kept-indicators.

    Two set-ups:

    * ``setup="lime"`` (default): masks are drawn as ``lime.lime_text.LimeTextExplainer`` draws
      them: the instance itself, then masks removing ``k`` random players with ``k`` uniform in
      ``1..n``; weights are LIME's kernel ``sqrt(exp(-d^2 / width^2))`` of the cosine distance
      ``d`` (times 100) to the instance (width 25); the fit is
      :meth:`lime.lime_base.LimeBase.explain_instance_with_data` with every feature kept and
      LIME's default Ridge regressor.  Needs the ``lime`` package.
    * ``setup="paper"``: the seed paper's set-up (Captum's ``LimeBase``): every player kept or
      removed by a fair coin flip, weights ``exp(-d^2 / (2 width^2))`` of the cosine distance
      ``d`` between kept-indicators (Captum's exponential cosine kernel, width 1), and a Lasso
      with ``alpha = 0.001`` (scikit-learn).  The all-removed mask is at distance 1.

    Parameters
    ----------
    n_samples : int
        Number of masks (= game queries), the instance included for ``setup="lime"``.
    kernel_width : float or None
        Kernel width (``None``: 25 for ``"lime"``, 1 for ``"paper"``).
    random_state : int or None
    setup : {"lime", "paper"}
    lasso_alpha : float
        Lasso penalty of the ``"paper"`` set-up.

    Examples
    --------
    >>> from xpg.fourier.game import RemovalGame
    >>> game = RemovalGame(lambda x: 0.5 + 0.25 * x[:, 0], 3)
    >>> lime = LimeExplainer(n_samples=500, setup="paper", random_state=0).fit(game)
    >>> round(lime.indices_[(0,)], 2)  # kept-indicator weight: 0.25 * 2, shrunk by the Lasso
    0.5
    """

    _parameter_constraints = {
        "n_samples": [Interval(int, 2, None)],
        "kernel_width": [Interval(float, 0, None, closed="neither"), None],
        "setup": [Options(["lime", "paper"])],
        "lasso_alpha": [Interval(float, 0, None)],
    }

    def __init__(
        self,
        n_samples: int = 2000,
        kernel_width: float | None = None,
        random_state: int | None = None,
        setup: str = "lime",
        lasso_alpha: float = 1e-3,
    ) -> None:
        self.n_samples = n_samples
        self.kernel_width = kernel_width
        self.random_state = random_state
        self.setup = setup
        self.lasso_alpha = lasso_alpha

    def fit(self, game: RemovalGame) -> LimeExplainer:
        """Sample, weight and fit LIME's linear model."""
        game, params = self._validated(game)
        n_samples, width = params["n_samples"], params["kernel_width"]
        if width is None:
            width = 25.0 if self.setup == "lime" else 1.0
        n = game.n_players
        rng = random_generator(self.random_state, "random_state")
        if self.setup == "paper":
            alpha = params["lasso_alpha"]
            intercept, weights = self._fit_paper(game, n, n_samples, width, alpha, rng)
        else:
            who = type(self).__name__
            intercept, weights = self._fit_lime(game, n, n_samples, width, rng, who)
        indices: dict[Subset, float] = {(): intercept}
        indices.update({(i,): float(weights[i]) for i in range(n)})
        self.indices_ = indices
        self.interpretation_ = FourierPolynomial.from_subset_values(n, indices, game.feature_names)
        return self

    def _fit_paper(
        self,
        game: RemovalGame,
        n: int,
        n_samples: int,
        width: float,
        alpha: float,
        rng: np.random.Generator,
    ) -> tuple[float, np.ndarray]:
        import warnings

        from sklearn.exceptions import ConvergenceWarning
        from sklearn.linear_model import Lasso, LinearRegression

        data = rng.integers(0, 2, size=(n_samples, n)).astype(float)
        values = self._query(game, 2 * data - 1)
        kept = data.sum(axis=1)
        # cosine similarity of a 0/1 row with the all-ones row: kept / sqrt(kept * n)
        distance = 1.0 - np.sqrt(kept / n)
        weights = np.exp(-(distance**2) / (2 * width**2))
        model = LinearRegression() if alpha == 0.0 else Lasso(alpha=alpha, max_iter=10_000)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            model.fit(data, values, sample_weight=weights)
        return float(model.intercept_), np.asarray(model.coef_, dtype=float)

    def _fit_lime(
        self,
        game: RemovalGame,
        n: int,
        n_samples: int,
        width: float,
        rng: np.random.Generator,
        who: str,
    ) -> tuple[float, np.ndarray]:
        lime_base = _require("lime.lime_base", who)
        from sklearn.metrics import pairwise_distances

        data = np.ones((n_samples, n))
        removed = rng.integers(1, n + 1, size=n_samples - 1)
        for row, k in enumerate(removed, start=1):
            data[row, rng.choice(n, size=k, replace=False)] = 0.0
        values = self._query(game, 2 * data - 1)
        distances = pairwise_distances(data, data[:1], metric="cosine").ravel() * 100

        def kernel(d: np.ndarray, kernel_width: float = width) -> np.ndarray:
            return np.sqrt(np.exp(-(d**2) / kernel_width**2))

        base = lime_base.LimeBase(kernel, random_state=self.random_state)
        intercept, pairs, _score, _local = base.explain_instance_with_data(
            data, values[:, None], distances, label=0, num_features=n, feature_selection="none"
        )
        weights = np.zeros(n)
        for i, w in pairs:
            weights[int(i)] = float(w)
        return float(intercept), weights


class KernelShapExplainer(RemovalExplainer):
    """KernelSHAP (``shap.KernelExplainer``) on the removal game, ``n_samples`` coalitions.

    The explained model is the game on kept-indicators; the instance is all ones and the
    background the all-zeros row, so KernelSHAP's "feature absent" is exactly "removed".
    No L1 feature selection is applied (``l1_reg=False``).

    Parameters
    ----------
    n_samples : int
        Game queries in all: KernelSHAP evaluates the instance and the background once each,
        then ``n_samples - 2`` sampled coalitions (its ``nsamples``).
    random_state : int or None
        shap draws from NumPy's global generator: it is seeded for the call and restored after.
    """

    _parameter_constraints = {"n_samples": [Interval(int, 3, None)]}

    def __init__(self, n_samples: int = 2000, random_state: int | None = None) -> None:
        self.n_samples = n_samples
        self.random_state = random_state

    def fit(self, game: RemovalGame) -> KernelShapExplainer:
        """Run KernelSHAP and build the additive surrogate."""
        game, params = self._validated(game)
        n_samples = params["n_samples"]
        shap = _require("shap", type(self).__name__)
        n = game.n_players
        before = game.n_queries

        def model(data: np.ndarray) -> np.ndarray:
            return game(np.where(np.asarray(data) > 0.5, 1, -1))

        saved = np.random.get_state()
        try:
            if self.random_state is not None:
                np.random.seed(self.random_state)
            explainer = shap.KernelExplainer(model, np.zeros((1, n)))
            phi = explainer.shap_values(
                np.ones((1, n)), nsamples=n_samples - 2, l1_reg=False, silent=True
            )
        finally:
            np.random.set_state(saved)
        self.n_queries_ = game.n_queries - before
        phi = np.asarray(phi, dtype=float).reshape(-1)
        indices: dict[Subset, float] = {(): float(np.ravel(explainer.expected_value)[0])}
        indices.update({(i,): float(phi[i]) for i in range(n)})
        self.indices_ = indices
        self.interpretation_ = FourierPolynomial.from_subset_values(n, indices, game.feature_names)
        return self
