"""BBM-RS: risk scores learned by Boost-by-Majority over threshold conditions ``x_i >= theta``.

Algorithm 1 of Moshkovitz, Yang and Chaudhuri (2021), exactly as written:

1. labels become +1 (the positive class) and -1; every example ``(x, y)`` is replaced by
   ``(x - tau * y * 1, y)`` with the features normalised to [0, 1] (positives look a little
   more negative and negatives more positive: the learned score is then robust at radius
   about ``tau``, Claim 7).  The paper normalises each feature to [0, 1] over the whole
   dataset (Appendix B), so ``tau`` is a share of each feature's range: each feature moves by
   ``tau`` times the width of its declared domain (1 for a boolean) or, when the domain is
   unbounded, times the range of the rows fitted (:func:`noise_units`).  A domain declared
   over the whole data thus gives every subset of its rows (a training split, a fold) the
   paper's noise, and thresholds come out in the data's own units, with no round trip;
2. round ``t = 1 .. T``: the Boost-by-Majority distribution (Freund 1995) weighs an example
   whose ``t - 1`` earlier votes sum (times ``y``) to ``s`` by the probability that it ends
   exactly undecided, ``w_t(s) = C(T-t, k) (1/2 + gamma)^k (1/2 - gamma)^(T-t-k)`` with
   ``k = floor((T - t - s + 1) / 2)`` the number of correct votes it still needs (0 when
   ``k < 0`` or ``k > T - t``: its majority is already decided), normalised to sum 1
   (:func:`bbm_weights`);
3. the weak learner is the condition ``x_i >= theta`` of highest weighted accuracy on the
   noisy data, over all features and all thresholds that split the observed values
   (between two consecutive distinct noisy values, at their midpoint, as the authors' code
   does, plus the lowest value: the constant +1).  Only ``x_i >= theta``: the paper leaves
   out ``x_i <= theta`` on purpose, so that the score is monotone, which is what makes it
   robust (Claim 6).  One pass per round: each feature is sorted once, and a cumulative sum
   of the signed weights in that order gives every threshold's accuracy at once, in floats;
   the conditions within a proven bound of the best float are then scored exactly (integer
   weights, below), so that ties go to the lowest feature, then the lowest threshold, as
   the authors' strict ``>`` scan does, and not to rounding;
4. stop after ``T`` rounds, or before a round whose best condition's weighted accuracy is
   not above ``1/2 + gamma`` (the paper's 0.51; decided exactly, ``gamma`` read as the
   decimal it prints as: an accuracy of exactly 51/100 stops), or when every weight is 0;
5. the risk score: one point per round for its condition (a condition chosen in several
   rounds gets their sum), bias ``-ceil(m / 2)`` for the ``m`` rounds made, positive when
   the total is >= 0, i.e. when at least half of the conditions hold (an integer bias with
   the same function as the paper's ``-m/2``).  A condition that no value of the feature's
   domain satisfies is left off the card, and one that every value satisfies (the constant
   learner ``x >= lowest value``, on a bounded domain) is added to the bias: the same
   function, a shorter card.

Exact weights: with ``p = 1/2 + gamma = P / D`` in lowest terms and ``q = Q / D``, the
weight ``C(n, k) p^k q^(n-k)`` is the integer ``C(n, k) P^k Q^(n-k)`` over ``D^n``, common to
all examples, so a condition's weighted accuracy is a ratio of Python integers (at most ``t``
distinct weights in round ``t``: a few integer products per round).

The weights are those of the authors' code up to a factor common to all examples (their
``floor`` in the second exponent differs from the book's ``ceil`` only for odd ``T``, by a
factor ``1/q``); they add ``1e-6`` to every weight where this stops once every weight is 0
(nothing left to gain on the training set).  With an even ``T`` a tie at the end counts as a
loss in these weights, which favours the examples the first condition gets right: the same
condition then tends to be chosen round after round until every example is decided (on
adult, T = 30: one condition, 16 rounds; a re-run of the authors' loop picks that condition
in all 30 rounds), while an odd ``T`` gives varied cards (adult, T = 15: 3 conditions;
``bench/risk_speed.py`` lists both on every dataset).

Examples
--------
>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> X = rng.random((200, 3))
>>> y = np.where(X[:, 0] + X[:, 1] > 1.0, "yes", "no")
>>> rs = bbm_rs(X, y, T=5, feature_names=["a", "b", "c"])
>>> rs.classes, rs.tested_features()
(['no', 'yes'], ['a', 'b'])
>>> float(np.mean(rs.predict_batch(X) == y)) > 0.8
True

References
----------
Moshkovitz, Yang, Chaudhuri. Connecting Interpretability and Robustness in Decision Trees
through Separation. ICML 2021, Sec. 5.3, Algorithm 1 and Appendix B; Freund. Boosting a weak
learning algorithm by majority. Information and Computation 1995; Schapire, Freund.
Boosting: Foundations and Algorithms. MIT Press 2012, Ch. 13 (the weights ``w_t(s)``).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from xpg.core.features import Feature, Literal
from xpg.core.validation import Interval, validate_params
from xpg.core.valuesets import as_value_set
from xpg.errors import InvalidDataError
from xpg.learn.feature_types import infer_features
from xpg.models.risk_score import RiskScore, at_least


def bbm_weights(T: int, t: int, margins: np.ndarray, gamma: float) -> np.ndarray:
    """The Boost-by-Majority weights of round ``t`` (1-based) of ``T``, unnormalised.

    ``margins[e]`` is the sum of ``y * h(x)`` over the ``t - 1`` earlier rounds of example
    ``e``.  ``w = C(n, k) p^k q^(n-k)`` with ``n = T - t``, ``k = floor((n - s + 1) / 2)``,
    ``p = 1/2 + gamma``, ``q = 1/2 - gamma``; 0 outside ``0 <= k <= n``.  Computed once per
    distinct margin (in logs beyond ``n = 1000``, where ``C(n, k)`` overflows a float).

    Examples
    --------
    >>> bbm_weights(3, 1, np.array([0]), 0.0).tolist()   # C(2, 1) / 4
    [0.5]
    >>> bbm_weights(3, 3, np.array([-2, 0, 2]), 0.1).tolist()  # last round: only ties count
    [0.0, 1.0, 0.0]
    """
    n = T - t
    p, q = 0.5 + gamma, 0.5 - gamma
    s = np.asarray(margins, dtype=np.int64)
    values, inverse = np.unique(s, return_inverse=True)
    table = np.zeros(len(values))
    for i, m in enumerate(values.tolist()):
        k = (n - m + 1) // 2
        if 0 <= k <= n and n <= 1000:  # C(1000, 500) < 1e300: exact, then one rounding
            table[i] = math.comb(n, k) * p**k * q ** (n - k)
        elif 0 <= k <= n:
            log_c = math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)
            table[i] = math.exp(log_c + k * math.log(p) + (n - k) * math.log(q))
    return table[inverse.reshape(-1)]


@dataclass(frozen=True)
class BBMRound:
    """One round of BBM-RS: the condition chosen, its accuracy, and the distribution.

    Attributes
    ----------
    feature : int
        The column of the condition ``x[feature] >= threshold``.
    threshold : float
        In the data's own units.
    accuracy : float
        Its weighted accuracy on the noisy data under ``weights`` (the exact ratio, rounded).
    weights : numpy.ndarray
        The round's Boost-by-Majority distribution over the examples (sums to 1).
    """

    feature: int
    threshold: float
    accuracy: float
    weights: np.ndarray = field(repr=False)


@dataclass
class BBMResult:
    """What :func:`run_bbm_rs` learned and how.

    Attributes
    ----------
    model : RiskScore
        The score card.
    rounds : list of BBMRound
        The rounds made, in order.
    stopped : str
        ``"T"`` (all ``T`` rounds made), ``"weak"`` (no condition above ``1/2 + gamma``)
        or ``"decided"`` (every weight 0: every example's majority is already fixed).
    noisy : numpy.ndarray
        The noisy training data the weak learners saw, ``x - tau * y * unit`` (the unit of
        :func:`noise_units`: the domain's width, or the rows' range when it is unbounded).
    signs : numpy.ndarray
        The labels as +1 / -1.
    """

    model: RiskScore
    rounds: list[BBMRound]
    stopped: str
    noisy: np.ndarray = field(repr=False)
    signs: np.ndarray = field(repr=False)


#: the accepted values of BBM-RS's parameters (:func:`~xpg.core.validation.validate_params`)
PARAMETER_CONSTRAINTS: dict[str, list[Any]] = {
    "T": [Interval(int, 1, None)],
    "tau": [Interval(float, 0, 1, closed="left")],
    "gamma": [Interval(float, 0, 0.5, closed="left")],
}


def _check(T: Any, tau: Any, gamma: Any) -> tuple[int, float, float]:
    """``T``, ``tau`` and ``gamma`` checked, as plain ``int`` and ``float`` values."""
    checked = validate_params({"T": T, "tau": tau, "gamma": gamma}, PARAMETER_CONSTRAINTS)
    return checked["T"], checked["tau"], checked["gamma"]


def _data(
    X: Any, y: Any, feature_names: Sequence[str] | None, positive: Any
) -> tuple[np.ndarray, np.ndarray, list[Any], list[str]]:
    """``X`` as floats, the labels as +1/-1, the classes (negative, positive), the names."""
    if feature_names is None and hasattr(X, "columns"):
        feature_names = [str(c) for c in X.columns]
    try:
        M = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidDataError(
            "BBM-RS needs numeric features (encode categorical columns first)"
        ) from None
    labels = np.asarray(y).reshape(-1) if np.ndim(y) else np.asarray([y])
    if M.ndim != 2 or len(M) == 0 or len(labels) != len(M):
        raise InvalidDataError(
            f"expected X with rows and y with one label per row, found X of shape {M.shape} "
            f"and {len(labels)} labels"
        )
    if not np.isfinite(M).all():
        raise InvalidDataError("X holds a missing or infinite value")
    names = [f"x{j}" for j in range(M.shape[1])] if feature_names is None else list(feature_names)
    if len(names) != M.shape[1]:
        raise InvalidDataError(f"expected {M.shape[1]} feature names, found {len(names)}")
    found = sorted({_plain(v) for v in labels.tolist()}, key=lambda v: (str(type(v)), v))
    if len(found) != 2:
        raise InvalidDataError(f"BBM-RS needs two classes in y, found {found!r}")
    if positive is None:
        positive = found[1]
    if positive not in found:
        raise InvalidDataError(
            f"positive: expected one of the classes {found!r}, found {positive!r}"
        )
    negative = found[0] if found[1] == positive else found[1]
    signs = np.where(np.asarray([_plain(v) == positive for v in labels.tolist()]), 1, -1)
    return M, signs, [negative, positive], [str(n) for n in names]


def _plain(v: Any) -> Any:
    return v.item() if isinstance(v, np.generic) else v


def _condition(f: Feature, threshold: float) -> Literal | None:
    """``f >= threshold`` as a literal of ``f``'s kind; ``None`` when no value of its domain
    satisfies it (the condition never holds and is left off the card)."""
    if f.kind == "boolean":
        allowed = [v for v in (0, 1) if v >= threshold]
        return Literal.isin(f.name, allowed) if allowed else None
    if f.kind not in ("integer", "real"):
        raise InvalidDataError(f"feature {f.name!r}: BBM-RS needs numeric features, found {f.kind}")
    lit = at_least(f.name, threshold)
    return None if f.is_empty(f.domain_set() & lit.allowed) else lit


def noise_units(feats: Sequence[Feature], M: np.ndarray) -> np.ndarray:
    """Each feature's unit of noise: the width of its declared domain (1 for a boolean), or
    the range of the rows ``M`` when the domain is unbounded.

    >>> noise_units([Feature.real("a", 0, 1), Feature.real("b"), Feature.boolean("c")],
    ...             np.array([[0.2, 5.0, 0], [0.4, 9.0, 0]])).tolist()
    [1.0, 4.0, 1.0]
    """
    observed = M.max(axis=0) - M.min(axis=0)
    units = []
    for f, seen in zip(feats, observed.tolist(), strict=True):
        if f.kind == "boolean":
            units.append(1.0)
        elif math.isfinite(f.low) and math.isfinite(f.high):
            units.append(float(f.high - f.low))
        else:
            units.append(seen)
    return np.asarray(units, dtype=np.float64)


def _exact_gamma(gamma: float) -> Fraction:
    """``gamma`` as the decimal it prints as (0.01 is 1/100, not the nearest binary float)."""
    return Fraction(repr(float(gamma)))


def _integer_weights(T: int, t: int, margins: Sequence[int], gamma: Fraction) -> list[int]:
    """The weights of :func:`bbm_weights` for the distinct ``margins``, exactly: integers
    ``C(n, k) P^k Q^(n-k)``, with ``p = P / D`` and ``q = Q / D``, all times ``D^n``.

    >>> _integer_weights(3, 2, [-1, 1], Fraction(1, 100))  # p = 51/100, q = 49/100
    [51, 49]
    """
    n = T - t
    p = Fraction(1, 2) + gamma
    P, Q = p.numerator, p.denominator - p.numerator
    out = []
    for m in margins:
        k = (n - m + 1) // 2
        out.append(math.comb(n, k) * P**k * Q ** (n - k) if 0 <= k <= n else 0)
    return out


class _WeakLearner:
    """Every condition ``x_j >= theta`` on the noisy data, scored in one vectorised pass."""

    def __init__(self, noisy: np.ndarray, signs: np.ndarray) -> None:
        n, _ = noisy.shape
        self.order = np.argsort(noisy, axis=0, kind="stable")
        ordered = np.take_along_axis(noisy, self.order, axis=0)
        # cut k: positions >= k (in sorted order) are predicted +1; k = 0 predicts all +1
        self.valid = np.ones_like(ordered, dtype=bool)
        self.valid[1:] = ordered[1:] > ordered[:-1]
        low, high = ordered[:-1], ordered[1:]
        mid = low + (high - low) / 2
        mid = np.where(mid > low, mid, high)  # adjacent floats: the upper one still splits
        self.thresholds = np.vstack([ordered[:1], mid])
        self.n = n
        self.signs = signs
        # each float weight is within eps / 2 (relative) of its exact share, and a sum of n
        # of them adds at most n eps / 2 of a total of 1: a float accuracy is within
        # (n + 4) eps of the exact one, so the best exact one is within twice that of the
        # best float (margin: 4 (n + 4) eps)
        self.slack = 4.0 * (n + 4) * float(np.finfo(np.float64).eps)

    def best(self, groups: np.ndarray, weights: list[int]) -> tuple[int, int, int, int]:
        """``(feature, cut, numerator, denominator)`` of the best condition, its weighted
        accuracy exactly ``numerator / denominator``, when example ``e`` weighs
        ``weights[groups[e]]``; ties go to the lowest feature, then the lowest threshold.
        The denominator (the total weight) is 0 when every weight is."""
        sizes = np.bincount(groups, minlength=len(weights)).tolist()
        total = sum(w * c for w, c in zip(weights, sizes, strict=True))
        if total == 0:
            return -1, -1, 0, 0
        share = np.array([w / total for w in weights])  # int / int: correctly rounded
        w = share[groups]
        signed = (w * self.signs)[self.order]
        before = np.cumsum(signed, axis=0) - signed  # sum of w*y over the positions < k
        positive_mass = float(w[self.signs > 0].sum())
        accuracy = np.where(self.valid, positive_mass - before, -np.inf)
        near = np.flatnonzero(accuracy.T >= accuracy.max() - self.slack)  # feature-major
        positive = np.bincount(groups[self.signs > 0], minlength=len(weights))
        best: tuple[int, int, int, int] = (-1, -1, -1, total)
        for flat in near.tolist():  # ascending: the first of equals is the lowest
            j, k = divmod(flat, self.n)
            if k == 0 and best[0] >= 0 and best[1] == 0:
                continue  # every feature's cut 0 predicts +1 everywhere: one condition
            below = self.order[:k, j]  # predicted -1: right on the negatives, wrong otherwise
            signed_below = np.bincount(
                groups[below], weights=self.signs[below], minlength=len(weights)
            )
            right = (positive - signed_below).round().astype(np.int64).tolist()
            numerator = sum(wt * r for wt, r in zip(weights, right, strict=True))
            if numerator > best[2]:
                best = (j, k, numerator, total)
        return best


def run_bbm_rs(
    X: Any,
    y: Any,
    *,
    T: int,
    tau: float = 0.05,
    gamma: float = 0.01,
    feature_names: Sequence[str] | None = None,
    features: Sequence[Feature] | None = None,
    positive: Any = None,
) -> BBMResult:
    """BBM-RS with its trace: the score card, every round, why it stopped (see
    :func:`bbm_rs` for the parameters).

    Examples
    --------
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]]); y = np.array([0, 0, 1, 1])
    >>> result = run_bbm_rs(X, y, T=3, tau=0.0)
    >>> [(r.feature, r.threshold, r.accuracy) for r in result.rounds], result.stopped
    ([(0, 1.5, 1.0), (0, 1.5, 1.0)], 'decided')
    >>> print(result.model.describe())   # two votes won: the third cannot change a majority
    condition  points
    bias term      -1
    x0 >= 1.5       2
    predict 1 (positive) if the total score >= 0, else 0
    """
    T, tau, gamma = _check(T, tau, gamma)
    M, signs, classes, names = _data(X, y, feature_names, positive)
    if features is None:
        feats = infer_features(M, names)
    else:
        feats = list(features)
        if len(feats) != M.shape[1]:
            raise InvalidDataError(f"expected {M.shape[1]} features, found {len(feats)}")
    for f in feats:
        if f.kind == "categorical":
            raise InvalidDataError(
                f"feature {f.name!r}: BBM-RS needs numeric features, found categorical"
            )
    noisy = M - tau * signs[:, None] * noise_units(feats, M)[None, :]
    learner = _WeakLearner(noisy, signs)
    exact_gamma = _exact_gamma(gamma)
    edge = Fraction(1, 2) + exact_gamma
    margins = np.zeros(len(M), dtype=np.int64)
    rounds: list[BBMRound] = []
    stopped = "T"
    for t in range(1, T + 1):
        low = int(margins.min())
        groups = margins - low  # example e weighs weights[groups[e]]
        values = range(low, int(margins.max()) + 1)
        weights = _integer_weights(T, t, values, exact_gamma)
        j, k, numerator, total = learner.best(groups, weights)
        if total == 0:
            stopped = "decided"
            break
        if not Fraction(numerator, total) > edge:
            stopped = "weak"
            break
        theta = float(learner.thresholds[k, j])
        w = np.array([v / total for v in weights])[groups]
        rounds.append(BBMRound(j, theta, numerator / total, w))
        margins += signs * np.where(noisy[:, j] >= theta, 1, -1)
    return BBMResult(_score_card(feats, classes, rounds, signs), rounds, stopped, noisy, signs)


def _score_card(
    feats: list[Feature], classes: list[Any], rounds: list[BBMRound], signs: np.ndarray
) -> RiskScore:
    if not rounds:  # no vote: the majority class (ties: positive)
        bias = 0 if 2 * int((signs > 0).sum()) >= len(signs) else -1
        return RiskScore(feats, classes, [], bias)
    points: Counter[tuple[int, float]] = Counter((r.feature, r.threshold) for r in rounds)
    merged: dict[Literal, int] = {}
    bias = -math.ceil(len(rounds) / 2)
    for j, theta in sorted(points):
        f, lit = feats[j], _condition(feats[j], theta)
        if lit is None:
            continue
        if f.is_empty(f.domain_set() - as_value_set(f, lit)):
            bias += points[(j, theta)]  # every value satisfies it: a constant, into the bias
        else:  # several thresholds may give one literal (boolean features)
            merged[lit] = merged.get(lit, 0) + points[(j, theta)]
    return RiskScore(feats, classes, list(merged.items()), bias)


def bbm_rs(X: Any, y: Any, *, T: int, **options: Any) -> RiskScore:
    """Learn a risk score with BBM-RS (Algorithm 1 of Moshkovitz, Yang and Chaudhuri 2021).

    Parameters
    ----------
    X : array-like of shape (n, d)
        Numeric data (a pandas DataFrame gives its column names).
    y : array-like of shape (n,)
        Two classes.
    T : int
        The number of rounds: at most ``T`` conditions, one point each.
    **options
        ``tau``, ``gamma``, ``feature_names``, ``features``, ``positive`` of
        :func:`run_bbm_rs`, as follows.
    tau : float
        The noise level, in units of each feature's range (the paper's 0.05): the width of
        its declared domain, or the range of the rows in ``X`` when the domain is unbounded
        (:func:`noise_units`).
    gamma : float
        The weak learners' edge: a round needs weighted accuracy above ``1/2 + gamma`` (the
        paper stops at 0.51 and below), and the Boost-by-Majority weights use it; read as the
        decimal it prints as (0.01 is exactly 1/100), and compared exactly.
    feature_names : sequence of str, optional
        Default: the DataFrame's columns, else ``x0, x1, ...``.
    features : sequence of Feature, optional
        The domains (boolean, integer or real); default inferred from the columns as
        :func:`~xpg.learn.trees.learn_tree` does.
    positive : class label, optional
        The class predicted when at least half of the conditions hold (default: the greater
        of the two labels).

    Returns
    -------
    RiskScore
        ``classes = [negative, positive]``; conditions ``x >= theta`` in the data's own
        units (``x = 1`` on a boolean feature), ordered by feature and threshold.

    Raises
    ------
    InvalidDataError
        Not two classes, a non-numeric or missing value, shapes that do not match.
    InvalidParameterError
        ``T`` not a positive integer, ``tau`` outside [0, 1), ``gamma`` outside [0, 1/2).

    Examples
    --------
    >>> X = np.array([[0, 5.0], [0, 7.0], [1, 6.0], [1, 8.0]]); y = [0, 0, 1, 1]
    >>> rs = bbm_rs(X, y, T=1, tau=0.0, feature_names=["b", "r"])
    >>> str(rs.conditions[0].literal), rs.bias, rs.predict_batch(X).tolist()
    ('b = 1', -1, [0, 0, 1, 1])
    """
    return run_bbm_rs(X, y, T=T, **options).model


__all__ = ["BBMResult", "BBMRound", "bbm_rs", "bbm_weights", "noise_units", "run_bbm_rs"]
