"""Quality of an interpretation: interpretation error, truthful gap and inconsistency.

* Interpretation error (Def. 2.5): how far an interpretation ``g`` is from the game ``f`` on a
  neighbourhood of the instance, the uniform distribution on masks with at most ``r`` removed
  players (or the whole cube).  Three summaries, as in the paper's tables: the L1 error
  ``E|f - g|``, the L2 error ``sqrt(E (f - g)^2)`` and the fraction of masks where
  ``|f - g| >= tolerance`` (the paper's "L0", tolerance 0.1).
* Truthful gap (Def. 2.4, Lemma 3.4): ``sum_{|S| <= C} (f_S - g_S)^2``, how far ``g`` is from
  the part of ``f`` that bases of degree at most ``C`` can express.
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
>>> (err.l1, err.l2, err.fraction_above, err.exact)
(0.125, 0.125, 1.0, True)
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

from xpg.errors import InvalidMetricError
from xpg.fourier.basis import FourierPolynomial, check_masks
from xpg.fourier.game import RemovalGame
from xpg.fourier.harmonica import AnchoredInterpretation
from xpg.fourier.masks import neighbourhood_masks

Interpretation = Callable[[np.ndarray], ArrayLike]
Models = FourierPolynomial | AnchoredInterpretation | Sequence[FourierPolynomial]


@dataclass(frozen=True)
class InterpretationError:
    """Interpretation error of one interpretation on one neighbourhood.

    Attributes
    ----------
    l1 : float
        Mean absolute difference ``E|f - g|``.
    l2 : float
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
    l2: float
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
        l2=float(np.sqrt(np.mean(diff**2))),
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
    if radius is not None and (int(radius) != radius or radius < 0):
        raise InvalidMetricError(f"expected radius >= 0 or None, found {radius!r}")
    rng = np.random.default_rng(random_state)
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
    g = _spectrum_of(interpretation, "truthful_gap interpretation")
    f = _spectrum_of(reference, "truthful_gap reference")
    if f.n_players != g.n_players:
        raise InvalidMetricError(
            f"truthful_gap: the interpretation has {g.n_players} players, "
            f"the reference {f.n_players}"
        )
    diff = (f - g).truncate(degree)
    return float(sum(c * c for c in diff.coefficients.values()))


def spectrum_distance(p: FourierPolynomial, q: FourierPolynomial, order: float = 2) -> float:
    """Spectrum distance ``(sum_S |p_S - q_S|^order)^(1/order)`` (Def. 3.5, Appendix A.4).

    ``order = 0`` counts the subsets where the coefficients differ (the paper's strict L0
    case); ``order = 2`` equals the L2 distance of the functions (Parseval).
    """
    p = _spectrum_of(p, "spectrum_distance")
    q = _spectrum_of(q, "spectrum_distance")
    if order < 0:
        raise InvalidMetricError(f"spectrum_distance: expected order >= 0, found {order!r}")
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
    return math.log2(count_distinct_models(models, masks, atol))


def mean_spectrum_distance(models: Models, order: float = 2) -> float:
    """Mean spectrum distance over all pairs of models (0 for a single model)."""
    polys = _models(models, None)
    pairs = list(itertools.combinations(polys, 2))
    if not pairs:
        return 0.0
    return float(np.mean([spectrum_distance(p, q, order) for p, q in pairs]))
