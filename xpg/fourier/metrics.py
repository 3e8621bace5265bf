"""Quality of an interpretation: interpretation error, truthful gap and inconsistency.

* Interpretation error (Def. 2.5): how far an interpretation ``g`` is from the game ``f`` on a
  neighbourhood of the instance, the uniform distribution on masks with at most ``r`` removed
  players (or the whole cube).  The summaries of the paper's tables: the L1 error
  ``E|f - g|``, the mean squared error ``E (f - g)^2`` (what the paper's tables call "L2":
  they always show it below L1, impossible for a root mean square of errors below 1) and the
  fraction of masks where ``|f - g| >= tolerance`` (the paper's "L0", tolerance 0.1); the root
  mean square ``sqrt(E (f - g)^2)`` is given beside them.
* Truthful gap (Def. 2.4, Lemma 3.4): ``sum_{|S| <= C} (f_S - g_S)^2``, how far ``g`` is from
  the part of ``f`` that bases of degree at most ``C`` can express; exact from a spectrum, or
  estimated without bias from uniform masks when ``f`` is too large to transform
  (:func:`estimate_truthful_gap`, the paper's Appendix K).
* Inconsistency (section 3.3 and 4): the spectrum distance ``(sum_S |p_S - q_S|^q)^(1/q)``
  between interpretations, and ``log2`` of the number of distinct interpretation models used
  on a neighbourhood (0 for one global polynomial).

Examples
--------
>>> import numpy as np
>>> from xpg.fourier.basis import FourierPolynomial
>>> from xpg.fourier.game import RemovalGame
>>> f = FourierPolynomial(3, {(): 0.5, (0,): 0.25, (1, 2): 0.125})
>>> g = f.truncate(1)
>>> err = interpretation_error(RemovalGame(f, 3), g, radius=None)
>>> (err.l1, err.mse, err.rms, err.fraction_above, err.exact)
(0.125, 0.015625, 0.125, 1.0, True)
>>> truthful_gap(g, f, degree=1), truthful_gap(g, f, degree=2)
(0.0, 0.015625)
>>> spectrum_distance(f, g, order=1)
0.125

References
----------
Zhang, Yuan et al. Trade-off Between Efficiency and Consistency for Removal-based Explanations,
Def. 2.4-2.5, Lemma 3.4, Def. 3.5, section 4 (number of interpretation models) and Appendix I/K.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from xpg.core.validation import Interval, Options, check_param, random_generator
from xpg.errors import InvalidMetricError
from xpg.fourier.basis import FourierPolynomial, Subset, check_masks, parity_sums
from xpg.fourier.game import RemovalGame
from xpg.fourier.harmonica import AnchoredInterpretation, parity_basis
from xpg.fourier.masks import neighbourhood_masks, uniform_masks

Interpretation = Callable[[np.ndarray], ArrayLike]
Models = FourierPolynomial | AnchoredInterpretation | Sequence[FourierPolynomial]


@dataclass(frozen=True)
class InterpretationError:
    """Interpretation error of one interpretation on one neighbourhood.

    Attributes
    ----------
    l1 : float
        Mean absolute difference ``E|f - g|``.
    mse : float
        Mean squared difference ``E (f - g)^2`` (the paper's "L2").
    rms : float
        Root mean squared difference ``sqrt(E (f - g)^2)``.
    fraction_above : float
        Fraction of masks with ``|f - g| >= tolerance``.
    tolerance : float
    radius : int or None
        Largest number of removed players (``None``: the whole cube).
    n_masks : int
        Number of masks the means are taken over.
    exact : bool
        True when the neighbourhood was enumerated (the numbers are then exact).
    """

    l1: float
    mse: float
    rms: float
    fraction_above: float
    tolerance: float
    radius: int | None
    n_masks: int
    exact: bool


def errors_on_masks(
    interpretation: Interpretation,
    masks: ArrayLike,
    values: ArrayLike,
    tolerance: float = 0.1,
    radius: int | None = None,
    exact: bool = False,
) -> InterpretationError:
    """Interpretation error of ``interpretation`` against known game ``values`` on ``masks``.

    Use this to score many interpretations on one shared set of game evaluations.
    """
    x = np.asarray(masks, dtype=float)
    y = np.asarray(values, dtype=float).reshape(-1)
    if x.ndim != 2 or x.shape[0] != y.size or y.size == 0:
        raise InvalidMetricError(
            f"expected one game value per mask, found {y.size} values for masks of shape {x.shape}"
        )
    diff = np.abs(np.asarray(interpretation(x), dtype=float).reshape(-1) - y)
    return InterpretationError(
        l1=float(diff.mean()),
        mse=float(np.mean(diff**2)),
        rms=float(np.sqrt(np.mean(diff**2))),
        fraction_above=float(np.mean(diff >= tolerance)),
        tolerance=float(tolerance),
        radius=radius,
        n_masks=int(y.size),
        exact=exact,
    )


def interpretation_error(
    game: RemovalGame,
    interpretation: Interpretation,
    radius: int | None = None,
    n_samples: int = 10_000,
    tolerance: float = 0.1,
    random_state: int | None = None,
) -> InterpretationError:
    """Interpretation error on the neighbourhood of ``radius`` around the instance (Def. 2.5).

    The neighbourhood (masks with at most ``radius`` removed players; ``None``: the whole
    cube) is enumerated when it has at most ``n_samples`` masks, which makes the result exact;
    otherwise ``n_samples`` masks are drawn uniformly from it.
    """
    check_param("radius", radius, Interval(int, 0, None), None, error=InvalidMetricError)
    rng = random_generator(random_state, "random_state")
    masks, exact = neighbourhood_masks(game.n_players, radius, n_samples, rng)
    return errors_on_masks(interpretation, masks, game(masks), tolerance, radius, exact)


def _spectrum_of(p: FourierPolynomial, who: str) -> FourierPolynomial:
    if not isinstance(p, FourierPolynomial):
        raise InvalidMetricError(f"{who}: expected a FourierPolynomial, found {type(p).__name__}")
    return p


def truthful_gap(
    interpretation: FourierPolynomial, reference: FourierPolynomial, degree: int
) -> float:
    """``sum_{|S| <= degree} (f_S - g_S)^2`` (Lemma 3.4 with the bases up to ``degree``).

    ``reference`` is the game's spectrum: exact (:func:`~xpg.fourier.basis.fourier_transform`,
    :func:`~xpg.fourier.tree_spectrum.tree_game_spectrum`) or estimated
    (:class:`~xpg.fourier.harmonica.LowDegree`).
    """
    degree = _check_degree(degree, "truthful_gap: ")
    g = _spectrum_of(interpretation, "truthful_gap interpretation")
    f = _spectrum_of(reference, "truthful_gap reference")
    if f.n_players != g.n_players:
        raise InvalidMetricError(
            f"truthful_gap: the interpretation has {g.n_players} players, "
            f"the reference {f.n_players}"
        )
    diff = (f - g).truncate(degree)
    return float(sum(c * c for c in diff.coefficients.values()))


def _check_degree(degree: object, who: str) -> int:
    return check_param(
        "degree", degree, Interval(int, 0, None), error=InvalidMetricError, where=who
    )


def estimate_truthful_gap(
    game: RemovalGame,
    interpretation: FourierPolynomial,
    degree: int,
    n_samples: int = 20_000,
    random_state: int | None = None,
) -> float:
    """Unbiased estimate of ``truthful_gap(interpretation, spectrum of game, degree)``.

    With ``h = f - g`` on ``m`` uniform masks, ``d_S = mean(h chi_S)`` estimates ``f_S - g_S``
    and ``(m d_S^2 - mean(h^2)) / (m - 1)`` estimates its square without bias (``chi_S^2 = 1``);
    their sum over ``|S| <= degree`` is returned.  This is the sampling estimate of the paper's
    Appendix K for games too large to transform exactly; it can be slightly negative when the
    gap is close to 0.  The ``n_samples`` game queries are counted by the game.

    Examples
    --------
    >>> f = FourierPolynomial(4, {(): 0.5, (0,): 0.25, (1, 2): 0.125})
    >>> est = estimate_truthful_gap(RemovalGame(f, 4), f.truncate(1), 2, random_state=0)
    >>> abs(est - 0.125**2) < 2e-3
    True
    """
    who = "estimate_truthful_gap: "
    degree = _check_degree(degree, who)
    g = _spectrum_of(interpretation, "estimate_truthful_gap interpretation")
    if not isinstance(game, RemovalGame) or game.n_players != g.n_players:
        raise InvalidMetricError(
            f"estimate_truthful_gap: expected a RemovalGame on {g.n_players} players, "
            f"found {game!r}"
        )
    n_samples = check_param(
        "n_samples", n_samples, Interval(int, 2, None), error=InvalidMetricError, where=who
    )
    subsets = _gap_basis(g.n_players, degree, who)
    masks = uniform_masks(g.n_players, n_samples, random_generator(random_state, "random_state"))
    return _gap_estimate(g, masks.astype(float), game(masks), subsets)


def truthful_gap_on_masks(
    interpretation: FourierPolynomial, masks: ArrayLike, values: ArrayLike, degree: int
) -> float:
    """:func:`estimate_truthful_gap` from known game ``values`` on uniform ``masks``.

    Use this to score many interpretations on one shared set of game evaluations.
    """
    who = "truthful_gap_on_masks: "
    degree = _check_degree(degree, who)
    g = _spectrum_of(interpretation, "truthful_gap_on_masks interpretation")
    x = check_masks(masks, g.n_players, where="truthful_gap_on_masks masks")
    y = np.asarray(values, dtype=float).reshape(-1)
    if y.size != x.shape[0] or y.size < 2:
        raise InvalidMetricError(
            f"truthful_gap_on_masks: expected one game value per mask and at least 2 masks, "
            f"found {y.size} values for {x.shape[0]} masks"
        )
    return _gap_estimate(g, x, y, _gap_basis(g.n_players, degree, who))


def _gap_basis(n_players: int, degree: int, who: str) -> list[Subset]:
    return parity_basis(n_players, degree, include_empty=True, error=InvalidMetricError, where=who)


def _gap_estimate(
    g: FourierPolynomial, masks: np.ndarray, values: np.ndarray, subsets: list[Subset]
) -> float:
    """The unbiased estimate of :func:`estimate_truthful_gap` from checked masks and values."""
    h = values - g(masks)
    m = float(len(h))
    d = parity_sums(masks, h, subsets) / m
    return float(np.sum((m * d * d - np.mean(h * h)) / (m - 1)))


def spectrum_distance(p: FourierPolynomial, q: FourierPolynomial, order: float = 2) -> float:
    """Spectrum distance ``(sum_S |p_S - q_S|^order)^(1/order)`` (Def. 3.5, Appendix A.4).

    ``order = 0`` counts the subsets where the coefficients differ (the paper's strict L0
    case); ``order = 2`` equals the L2 distance of the functions (Parseval).
    """
    p = _spectrum_of(p, "spectrum_distance")
    q = _spectrum_of(q, "spectrum_distance")
    check_param(
        "order",
        order,
        Interval(float, 0, None),
        Options([math.inf]),
        error=InvalidMetricError,
        where="spectrum_distance: ",
    )
    diffs = np.abs(np.fromiter((p - q).coefficients.values(), dtype=float))
    if order == 0:
        return float(np.count_nonzero(diffs))
    if math.isinf(order):
        return float(diffs.max(initial=0.0))
    return float(np.sum(diffs**order) ** (1.0 / order))


def _models(models: Models, masks: ArrayLike | None) -> list[FourierPolynomial]:
    if isinstance(models, FourierPolynomial):
        return [models]
    if isinstance(models, AnchoredInterpretation):
        if masks is None:
            return list(models.polynomials)
        used = np.unique(models.assign(check_masks(masks, models.n_players)))
        return [models.polynomials[k] for k in used]
    polys = list(models)
    for p in polys:
        _spectrum_of(p, "inconsistency")
    return polys


def count_distinct_models(
    models: Models, masks: ArrayLike | None = None, atol: float = 1e-9
) -> int:
    """Number of different polynomials (up to ``atol`` in every coefficient).

    For an :class:`~xpg.fourier.harmonica.AnchoredInterpretation`, only the anchors some of
    ``masks`` fall to are counted when ``masks`` is given.
    """
    distinct: list[FourierPolynomial] = []
    for p in _models(models, masks):
        if not any(spectrum_distance(p, q, order=math.inf) <= atol for q in distinct):
            distinct.append(p)
    return len(distinct)


def inconsistency(models: Models, masks: ArrayLike | None = None, atol: float = 1e-9) -> float:
    """``log2`` of the number of distinct interpretation models (section 4; 0 = consistent).

    Pass one polynomial per explained point for attribution-style explainers (up to ``2**n``
    different models, inconsistency up to ``n``), or an anchored interpretation.
    """
    count = count_distinct_models(models, masks, atol)
    if count == 0:
        raise InvalidMetricError(
            "inconsistency: expected at least one interpretation model, found none"
        )
    return math.log2(count)


def mean_spectrum_distance(models: Models, order: float = 2) -> float:
    """Mean spectrum distance over all pairs of models (0 for a single model)."""
    polys = _models(models, None)
    pairs = list(itertools.combinations(polys, 2))
    if not pairs:
        return 0.0
    return float(np.mean([spectrum_distance(p, q, order) for p, q in pairs]))
