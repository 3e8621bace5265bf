"""Fourier-basis explainers: Harmonica, Low-degree, Harmonica-local and Harmonica-anchor.

All of them read a removal game ``f: {-1, 1}^n -> R`` through sampled masks and return a
readable polynomial over parity functions of degree at most ``degree``:

* :class:`Harmonica` (Alg. 1 of the seed paper): sparse (Lasso) regression of ``f`` on every
  parity function of degree ``1..d``, from masks drawn uniformly from the cube.
* :class:`LowDegree` (Appendix D): each coefficient estimated on its own as the sample mean of
  ``f(x) chi_S(x)`` over uniform masks (Linial, Mansour, Nisan).
* :class:`HarmonicaLocal` (section 4): Harmonica on masks drawn uniformly from the Hamming
  ball of radius ``r`` around the instance, trading global accuracy for local accuracy.
* :class:`HarmonicaAnchor` (Alg. 2-3): several anchors (the instance, then random masks); each
  mask is explained by the polynomial of its nearest anchor, each fitted on the samples nearest
  to it.  With ``penalty > 0`` (Harmonica-anchor-constrained) the polynomials are fitted
  jointly with a penalty on their squared spectrum distances.

Lasso is scikit-learn's coordinate descent (:class:`sklearn.linear_model.Lasso`): the parity
features of uniform masks are orthonormal in expectation, so the Lasso solution is close to a
soft-thresholding of the empirical coefficients and coordinate descent converges fast.  The
default ``alpha = 0.001`` is ours; the authors' code uses ``alpha = 0.01`` for Harmonica (and
Harmonica-local) and ``alpha = 0.001`` only for the anchor variants, which is what the
benchmarks in ``bench/fourier`` run.  ``refit=True`` re-estimates the selected coefficients by
least squares, which removes the Lasso shrinkage.

Examples
--------
>>> import numpy as np
>>> from xpg.fourier.game import RemovalGame
>>> game = RemovalGame(lambda x: 0.5 + 0.25 * x[:, 0] - 0.125 * x[:, 1] * x[:, 2], 4)
>>> h = Harmonica(degree=2, n_samples=300, refit=True, random_state=0).fit(game)
>>> print(h.interpretation_.to_string(precision=3))
0.5 + 0.25 x0 - 0.125 x1 x2
>>> low = LowDegree(degree=1, n_samples=4000, random_state=0).fit(game).interpretation_
>>> abs(low.coefficient([0]) - 0.25) < 0.05  # a sample mean: about 1/sqrt(4000) off
True

References
----------
Zhang, Yuan et al. Trade-off Between Efficiency and Consistency for Removal-based Explanations,
Alg. 1 (Harmonica), Appendix D (Low-degree), section 4 and Alg. 2-3 (Harmonica-local,
Harmonica-anchor, Harmonica-anchor-constrained); Hazan, Klivans, Yuan. Hyperparameter
Optimization: A Spectral Approach. ICLR 2018; Linial, Mansour, Nisan. Constant depth circuits,
Fourier transform, and learnability. JACM 40 (1993).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike
from scipy.sparse.linalg import eigsh
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import Lasso

from xpg.core.validation import Interval, Options, random_generator
from xpg.errors import InvalidExplainerError, InvalidParameterError, InvalidPolynomialError
from xpg.fourier.basis import (
    FourierPolynomial,
    Subset,
    check_masks,
    count_subsets_up_to_degree,
    parity_features,
    parity_sums,
    subsets_up_to_degree,
)
from xpg.fourier.explainer import RemovalExplainer
from xpg.fourier.game import RemovalGame
from xpg.fourier.masks import ball_masks, uniform_masks

#: Largest number of parity features a fit builds (the design matrix is rows x features floats).
MAX_PARITY_FEATURES = 50_000

#: What every sampling explainer's ``degree`` and ``n_samples`` accept.
_DEGREE_AND_SAMPLES: dict[str, list[object]] = {
    "degree": [Interval(int, 0, None)],
    "n_samples": [Interval(int, 1, None)],
}


def parity_basis(
    n_players: int,
    degree: int,
    *,
    include_empty: bool = False,
    error: type[InvalidParameterError] = InvalidExplainerError,
    where: str = "",
) -> list[Subset]:
    """:func:`~xpg.fourier.basis.subsets_up_to_degree`, refused with ``error`` (its message
    starting with ``where``) when it holds more than :data:`MAX_PARITY_FEATURES` subsets.

    Examples
    --------
    >>> parity_basis(3, 1)
    [(0,), (1,), (2,)]
    >>> parity_basis(600, 3, where="Harmonica: ")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    xpg.errors.InvalidExplainerError: Harmonica: degree 3 on 600 players gives 36000500 parity ...
    """
    # counted before anything is built: the list itself is what would not fit
    count = count_subsets_up_to_degree(n_players, degree) - (0 if include_empty else 1)
    if count > MAX_PARITY_FEATURES:
        raise error(
            f"{where}degree {degree} on {n_players} players gives {count} parity "
            f"features, expected at most {MAX_PARITY_FEATURES}; lower the degree or group players"
        )
    return subsets_up_to_degree(n_players, degree, include_empty=include_empty)


def sparse_parity_regression(
    masks: np.ndarray,
    values: np.ndarray,
    subsets: Sequence[Subset],
    alpha: float,
    refit: bool = False,
    max_iter: int = 10_000,
    tol: float = 1e-6,
) -> tuple[float, np.ndarray]:
    """Fit ``values ~ c0 + sum_S c_S chi_S(masks)`` by Lasso (least squares when ``alpha == 0``).

    Minimises ``(1 / 2m) ||values - c0 - Phi c||^2 + alpha ||c||_1`` with scikit-learn's
    :class:`~sklearn.linear_model.Lasso` (the constant ``c0`` is not penalised).  With
    ``refit`` the non-zero coefficients are re-estimated by least squares.  Returns ``(c0, c)``.
    """
    phi = parity_features(masks, subsets)
    if alpha == 0.0 or phi.shape[1] == 0:
        design = np.hstack([np.ones((phi.shape[0], 1)), phi])
        theta = np.linalg.lstsq(design, values, rcond=None)[0]
        return float(theta[0]), theta[1:]
    with warnings.catch_warnings():
        # a Lasso path that stops at max_iter is still a usable interpretation
        warnings.simplefilter("ignore", ConvergenceWarning)
        lasso = Lasso(alpha=alpha, fit_intercept=True, max_iter=max_iter, tol=tol)
        lasso.fit(phi, values)
    coef = np.array(lasso.coef_, dtype=float)
    intercept = float(lasso.intercept_)
    if refit:
        support = np.flatnonzero(coef)
        design = np.hstack([np.ones((phi.shape[0], 1)), phi[:, support]])
        theta = np.linalg.lstsq(design, values, rcond=None)[0]
        intercept, coef = float(theta[0]), np.zeros_like(coef)
        coef[support] = theta[1:]
    return intercept, coef


def _polynomial(
    game: RemovalGame, intercept: float, subsets: Sequence[Subset], coef: np.ndarray
) -> FourierPolynomial:
    coefs: dict[Subset, float] = {(): intercept}
    coefs.update({s: float(c) for s, c in zip(subsets, coef, strict=True) if c != 0.0})
    return FourierPolynomial(game.n_players, coefs, game.feature_names)


class Harmonica(RemovalExplainer):
    """Harmonica: Lasso over all parity functions up to ``degree`` from uniform masks (Alg. 1).

    Parameters
    ----------
    degree : int
        Largest interaction order of the interpretation.
    n_samples : int
        Number of masks drawn uniformly from {-1, 1}^n (= game queries).
    alpha : float
        Lasso penalty (0: ordinary least squares).
    refit : bool
        Re-estimate the selected coefficients by least squares (removes the Lasso shrinkage).
    max_iter, tol : int, float
        Coordinate-descent limits of the Lasso.
    random_state : int or None
        Seed of the mask sampler.

    Attributes
    ----------
    interpretation_ : FourierPolynomial
    n_queries_ : int
    """

    _parameter_constraints = {**_DEGREE_AND_SAMPLES, "alpha": [Interval(float, 0, None)]}

    def __init__(
        self,
        degree: int = 2,
        n_samples: int = 2000,
        alpha: float = 1e-3,
        refit: bool = False,
        max_iter: int = 10_000,
        tol: float = 1e-6,
        random_state: int | None = None,
    ) -> None:
        self.degree = degree
        self.n_samples = n_samples
        self.alpha = alpha
        self.refit = refit
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    def _sample(self, game: RemovalGame, rng: np.random.Generator) -> np.ndarray:
        return uniform_masks(game.n_players, self.n_samples, rng)

    def fit(self, game: RemovalGame) -> Harmonica:
        """Sample masks, query the game, and fit the sparse polynomial."""
        game, params = self._validated(game)
        subsets = parity_basis(game.n_players, params["degree"], where=f"{type(self).__name__}: ")
        masks = self._sample(game, random_generator(self.random_state, "random_state"))
        values = self._query(game, masks)
        intercept, coef = sparse_parity_regression(
            masks, values, subsets, params["alpha"], self.refit, self.max_iter, self.tol
        )
        self.interpretation_ = _polynomial(game, intercept, subsets, coef)
        return self


class HarmonicaLocal(Harmonica):
    """Harmonica on masks drawn uniformly from the Hamming ball of ``radius`` (section 4).

    Parameters
    ----------
    degree, n_samples, alpha, refit, max_iter, tol, random_state
        As for :class:`Harmonica`.
    radius : int
        Largest number of removed players in a sampled mask.
    """

    _parameter_constraints = {
        **Harmonica._parameter_constraints,
        "radius": [Interval(int, 0, None)],
    }

    def __init__(
        self,
        degree: int = 2,
        radius: int = 4,
        n_samples: int = 2000,
        alpha: float = 1e-3,
        refit: bool = False,
        max_iter: int = 10_000,
        tol: float = 1e-6,
        random_state: int | None = None,
    ) -> None:
        super().__init__(degree, n_samples, alpha, refit, max_iter, tol, random_state)
        self.radius = radius

    def _sample(self, game: RemovalGame, rng: np.random.Generator) -> np.ndarray:
        return ball_masks(game.n_players, int(self.radius), self.n_samples, rng)


class LowDegree(RemovalExplainer):
    """Low-degree algorithm: ``c_S`` = sample mean of ``f(x) chi_S(x)``, ``|S| <= degree``.

    Parameters
    ----------
    degree, n_samples, random_state
        As for :class:`Harmonica`.

    Attributes
    ----------
    interpretation_ : FourierPolynomial
    n_queries_ : int
    """

    _parameter_constraints = dict(_DEGREE_AND_SAMPLES)

    def __init__(
        self, degree: int = 2, n_samples: int = 2000, random_state: int | None = None
    ) -> None:
        self.degree = degree
        self.n_samples = n_samples
        self.random_state = random_state

    def fit(self, game: RemovalGame) -> LowDegree:
        """Estimate every coefficient of degree at most ``degree`` by a sample mean."""
        game, params = self._validated(game)
        n_samples = params["n_samples"]
        where = f"{type(self).__name__}: "
        subsets = [()] + parity_basis(game.n_players, params["degree"], where=where)
        masks = uniform_masks(
            game.n_players, n_samples, random_generator(self.random_state, "random_state")
        )
        coef = parity_sums(masks, self._query(game, masks), subsets) / n_samples
        self.interpretation_ = FourierPolynomial(
            game.n_players, dict(zip(subsets, coef, strict=True)), game.feature_names
        )
        return self


class AnchoredInterpretation:
    """A piecewise polynomial: each mask is explained by the polynomial of its nearest anchor.

    Parameters
    ----------
    anchors : array of shape (k, n)
        Anchor masks; ties in Hamming distance go to the anchor listed first.
    polynomials : sequence of FourierPolynomial
        One per anchor.

    Examples
    --------
    >>> a = AnchoredInterpretation([[1, 1], [-1, -1]],
    ...     [FourierPolynomial(2, {(): 1.0}), FourierPolynomial(2, {(): 2.0})])
    >>> a([[1, 1], [1, -1], [-1, -1]]).tolist()
    [1.0, 1.0, 2.0]
    """

    def __init__(self, anchors: ArrayLike, polynomials: Sequence[FourierPolynomial]) -> None:
        polys = list(polynomials)
        if not polys:
            raise InvalidPolynomialError("expected at least one anchor polynomial, found none")
        n = polys[0].n_players
        self.anchors = check_masks(anchors, n, where="anchors").astype(np.int8)
        if len(self.anchors) != len(polys) or any(p.n_players != n for p in polys):
            raise InvalidPolynomialError(
                f"expected one polynomial on {n} players per anchor, found {len(polys)} "
                f"polynomials for {len(self.anchors)} anchors"
            )
        self.polynomials = polys
        self.n_players = n

    @property
    def n_models(self) -> int:
        """Number of polynomials (interpretation models)."""
        return len(self.polynomials)

    def assign(self, masks: ArrayLike) -> np.ndarray:
        """Index of the nearest anchor of each mask (first one on ties)."""
        x = check_masks(masks, self.n_players)
        distance = (self.n_players - x @ self.anchors.T.astype(float)) / 2
        return np.argmin(distance, axis=1)

    def __call__(self, masks: ArrayLike) -> np.ndarray:
        x = check_masks(masks, self.n_players)
        which = self.assign(x)
        out = np.empty(x.shape[0])
        for k, poly in enumerate(self.polynomials):
            rows = which == k
            if rows.any():
                out[rows] = poly(x[rows])
        return out

    def __repr__(self) -> str:
        return f"AnchoredInterpretation(n_players={self.n_players}, n_models={self.n_models})"


def _distinct_anchors(n: int, count: int, rng: np.random.Generator) -> np.ndarray:
    """The all-ones mask, then distinct uniform random masks (at most ``2**n`` in all)."""
    anchors = [np.ones(n, dtype=np.int8)]
    seen = {anchors[0].tobytes()}
    while len(anchors) < min(count, 2 ** min(n, 62)):
        mask = uniform_masks(n, 1, rng)[0]
        if mask.tobytes() not in seen:
            seen.add(mask.tobytes())
            anchors.append(mask)
    return np.array(anchors, dtype=np.int8)


def fit_coupled_lasso(
    designs: Sequence[np.ndarray],
    targets: Sequence[np.ndarray],
    alpha: float,
    penalty: float,
    max_iter: int = 20_000,
    tol: float = 1e-9,
) -> np.ndarray:
    """Jointly fit one coefficient vector per anchor with a spectrum-distance penalty.

    Minimises, over ``theta_k`` (column 0 of each design is the constant, not penalised),

    ``sum_k (1 / 2 m_k) ||y_k - A_k theta_k||^2 + alpha sum_k ||theta_k[1:]||_1
    + (penalty / 2) sum_{k < l} ||theta_k - theta_l||^2``

    by FISTA (accelerated proximal gradient with adaptive restart).  With ``penalty = 0`` the
    problems separate into one scikit-learn Lasso per anchor.  Returns an array ``(K, p)``.
    """
    k_count = len(designs)
    grams = np.array([a.T @ a / a.shape[0] for a in designs])
    rhs = np.array([a.T @ y / a.shape[0] for a, y in zip(designs, targets, strict=True)])
    p = grams[0].shape[0]
    smooth = max(
        float(eigsh(g, k=1, which="LA", return_eigenvectors=False)[0]) if p > 1 else float(g[0, 0])
        for g in grams
    )
    step = 1.0 / (smooth + penalty * k_count)
    theta = np.zeros((k_count, p))
    momentum, t = theta.copy(), 1.0

    def objective_gradient(z: np.ndarray) -> np.ndarray:
        grad = np.einsum("kij,kj->ki", grams, z) - rhs
        return grad + penalty * (k_count * z - z.sum(axis=0))

    for _ in range(max_iter):
        candidate = momentum - step * objective_gradient(momentum)
        candidate[:, 1:] = np.sign(candidate[:, 1:]) * np.maximum(
            np.abs(candidate[:, 1:]) - step * alpha, 0.0
        )
        change = candidate - theta
        if np.sum((momentum - candidate) * change) > 0:  # restart when momentum goes uphill
            t = 1.0
        t_next = (1 + np.sqrt(1 + 4 * t * t)) / 2
        momentum = candidate + ((t - 1) / t_next) * change
        theta, t = candidate, t_next
        if np.max(np.abs(change)) <= tol * (1 + np.max(np.abs(theta))):
            break
    return theta


class HarmonicaAnchor(RemovalExplainer):
    """Harmonica-anchor (Alg. 2) and, with ``penalty > 0``, Harmonica-anchor-constrained (Alg. 3).

    The first anchor is the instance (all players kept), the others are uniform random masks.
    ``n_samples // n_anchors`` masks are drawn from the ball of ``local_radius`` around the
    instance (so the instance's anchor always has data, as in the paper's code); with
    ``local_queries="within"`` they are part of the ``n_samples`` queries (the rest uniform on
    the cube), with ``local_queries="extra"`` they come on top of ``n_samples`` uniform masks,
    as the authors' code spends its budget (2,000 uniform plus 2,000 / K local queries).  Each
    sample goes to its nearest anchor and each anchor's polynomial is fitted on its samples;
    anchors left without samples are dropped.

    Parameters
    ----------
    degree, n_samples, alpha, refit, random_state
        As for :class:`Harmonica` (``refit`` only applies when ``penalty == 0``).
    n_anchors : int
        Number of anchors (1 gives Harmonica with extra local samples).
    local_radius : int or None
        Radius of the local samples (``None``: every sample uniform, no local samples).
    local_queries : {"within", "extra"}
        Whether the local samples are taken out of ``n_samples`` or added to it.
    penalty : float
        Weight of the squared spectrum distances between anchor polynomials.
    max_iter, tol : int, float
        Solver limits (Lasso coordinate descent, or FISTA when ``penalty > 0``).

    Attributes
    ----------
    anchors_ : array of shape (k, n)
    polynomials_ : list of FourierPolynomial
    interpretation_ : AnchoredInterpretation
    n_queries_ : int
    """

    _parameter_constraints = {
        **Harmonica._parameter_constraints,
        "n_anchors": [Interval(int, 1, None)],
        "local_radius": [Interval(int, 0, None), None],
        "local_queries": [Options(["within", "extra"])],
        "penalty": [Interval(float, 0, None)],
    }

    def __init__(
        self,
        degree: int = 2,
        n_anchors: int = 3,
        n_samples: int = 2000,
        alpha: float = 1e-3,
        local_radius: int | None = 4,
        penalty: float = 0.0,
        refit: bool = False,
        max_iter: int = 10_000,
        tol: float = 1e-6,
        random_state: int | None = None,
        local_queries: str = "within",
    ) -> None:
        self.degree = degree
        self.n_anchors = n_anchors
        self.local_queries = local_queries
        self.n_samples = n_samples
        self.alpha = alpha
        self.local_radius = local_radius
        self.penalty = penalty
        self.refit = refit
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    def fit(self, game: RemovalGame) -> HarmonicaAnchor:
        """Choose anchors, sample, split the samples by nearest anchor and fit."""
        game, params = self._validated(game)
        n_anchors, n_samples = params["n_anchors"], params["n_samples"]
        alpha, penalty, radius = params["alpha"], params["penalty"], params["local_radius"]
        n = game.n_players
        subsets = parity_basis(n, params["degree"], where=f"{type(self).__name__}: ")
        rng = random_generator(self.random_state, "random_state")
        anchors = _distinct_anchors(n, n_anchors, rng)
        if radius is None:
            masks = uniform_masks(n, n_samples, rng)
        else:
            n_local = n_samples // n_anchors
            n_uniform = n_samples if self.local_queries == "extra" else n_samples - n_local
            masks = np.vstack(
                [ball_masks(n, radius, n_local, rng), uniform_masks(n, n_uniform, rng)]
            )
        values = self._query(game, masks)
        which = AnchoredInterpretation(anchors, [FourierPolynomial(n, {})] * len(anchors)).assign(
            masks
        )
        used = [k for k in range(len(anchors)) if np.any(which == k)]
        if penalty == 0.0:
            fits = [
                sparse_parity_regression(
                    masks[which == k],
                    values[which == k],
                    subsets,
                    alpha,
                    self.refit,
                    self.max_iter,
                    self.tol,
                )
                for k in used
            ]
        else:
            designs = [
                np.hstack(
                    [
                        np.ones((int(np.sum(which == k)), 1)),
                        parity_features(masks[which == k], subsets),
                    ]
                )
                for k in used
            ]
            theta = fit_coupled_lasso(
                designs,
                [values[which == k] for k in used],
                alpha,
                penalty,
                max_iter=max(self.max_iter, 1),
                tol=self.tol,
            )
            fits = [(float(row[0]), row[1:]) for row in theta]
        self.anchors_ = anchors[used]
        self.polynomials_ = [_polynomial(game, c0, subsets, c) for c0, c in fits]
        self.interpretation_ = AnchoredInterpretation(self.anchors_, self.polynomials_)
        return self
