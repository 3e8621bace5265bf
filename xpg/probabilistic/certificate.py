"""Succinct certificates by implicitly learning the greedy noise-stabilizing decision tree.

Blanc, Lange and Tan explain ``f(x)`` by walking the path of ``x`` in a decision tree that is
never built: at each node ``alpha`` (the features fixed so far, at ``x``'s values) the tree
queries the feature with the highest *noise-stabilizing score* of the restriction
``f_alpha`` (Defs. 6-9)::

    Score(i) = NS_p(f_alpha) - E_b[NS_p(f_alpha, i=b)]

where ``NS_p`` is the probability that ``f`` changes when every free coordinate is re-drawn
with probability ``p``.  Fixing coordinate ``i`` removes exactly the flips caused by
re-drawing ``i``, so both terms are estimated on the same noisy pairs: with ``x'`` a noisy
copy of ``x`` and ``x'^(i)`` the same copy with coordinate ``i`` restored,
``Score(i) = E[1[f(x) != f(x')] - 1[f(x) != f(x'^(i))]]``.  A feature the function ignores
gets a score of exactly 0 on every sample, which makes the estimates sharp.  Each node uses
``n = ceil(2 ln(2 d / delta) / eta^2)`` samples, so every score is within ``eta`` with
probability ``1 - delta`` (Hoeffding, Lemma 4.1).

The walk stops at depth ``max_depth`` (the tree's depth ``k``) or as soon as the sampled
precision error of the path is at most ``error`` (the subtree below is then a leaf to that
accuracy); the path's features are the certificate.  FINDCERTIFICATE's last step (Fig. 1)
checks the certificate on ``ceil(ln(2 / delta) / (2 error^2))`` fresh samples.

Product distributions are handled as the paper handles the uniform one (re-drawing a
coordinate = drawing it from its marginal); under the training data, the base points are data
rows and re-drawn coordinates come from the marginals.

Examples
--------
>>> import numpy as np
>>> from xpg.core.features import Feature
>>> from xpg.probabilistic.blackbox import BlackBox
>>> features = [Feature.boolean(f"x{i}") for i in range(20)]
>>> f = BlackBox(lambda X: (X[:, 3] != X[:, 11]).astype(int), features)
>>> cert = find_certificate(f, [0] * 20, seed=0)
>>> cert.features, cert.error
(('x3', 'x11'), 0.0)

References
----------
Blanc, Lange, Tan. Provably efficient, succinct, and precise explanations. NeurIPS 2021,
Defs. 1 and 6-9, Lemma 2.1 (FINDCERTIFICATE, Fig. 1) and Lemma 4.1.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from xpg.core.graph import DecisionGraph
from xpg.errors import InvalidParameterError
from xpg.probabilistic.blackbox import BlackBox, QueryCounter
from xpg.probabilistic.distributions import (
    SamplingDistribution,
    Seed,
    make_rng,
)
from xpg.probabilistic.precision import PrecisionEstimate, clopper_pearson
from xpg.probabilistic.result import ExplainerRun, ProbabilisticExplanation, as_black_box

#: Default noise rate p of the noise sensitivity NS_p.
NOISE_RATE = 0.2
#: Default depth k of the implicit tree (largest certificate).
MAX_DEPTH = 10
#: Default accuracy eta of the score estimates.
SCORE_ACCURACY = 0.05
#: Default precision error eps a certificate must reach.
ERROR = 0.05
#: Default confidence 1 - delta of the estimates.
CONFIDENCE = 0.95


def _check_unit(name: str, value: float) -> None:
    if not 0.0 < value < 1.0:
        raise InvalidParameterError(f"{name}: expected a value in (0, 1), found {value!r}")


def score_sample_size(n_free: int, score_accuracy: float, confidence: float) -> int:
    """Samples per node so that ``n_free`` scores are all within ``score_accuracy`` w.p.
    ``confidence`` (Hoeffding on differences in [-1, 1], union bound).

    Examples
    --------
    >>> score_sample_size(20, 0.05, 0.95)
    5348
    """
    delta = 1.0 - confidence
    return math.ceil(2.0 * math.log(2.0 * max(n_free, 1) / delta) / score_accuracy**2)


def check_sample_size(error: float, confidence: float) -> int:
    """Samples of FINDCERTIFICATE's final check: ``ceil(ln(2 / delta) / (2 eps^2))``.

    Examples
    --------
    >>> check_sample_size(0.05, 0.95)
    738
    """
    return math.ceil(math.log(2.0 / (1.0 - confidence)) / (2.0 * error**2))


def noise_stabilizing_scores(
    predict: QueryCounter,
    distribution: SamplingDistribution,
    row: np.ndarray,
    fixed: np.ndarray,
    prediction: Any,
    noise_rate: float,
    n: int,
    rng: np.random.Generator,
) -> tuple[np.ndarray, float]:
    """Estimated scores of every feature for ``f`` restricted to ``row`` on ``fixed``.

    Returns the scores (``-inf`` for fixed features) and the sampled precision error of
    ``fixed`` (the fraction of base points whose class differs from ``prediction``).
    """
    d = len(row)
    base = distribution.sample_agreeing(row, fixed, n, rng)
    y = predict(base)
    path_error = float(np.mean(y != prediction))
    noisy = base.copy()
    redraw = rng.random((n, d)) < noise_rate
    redraw[:, fixed] = False
    for j in np.flatnonzero(redraw.any(axis=0)):
        rows = np.flatnonzero(redraw[:, j])
        noisy[rows, j] = distribution.sample_column(int(j), len(rows), rng)
    y_noisy = predict(noisy)
    flipped = (y != y_noisy).astype(np.int64)
    changed = noisy != base
    rows_of, cols_of = np.nonzero(changed)
    restored = noisy[rows_of].copy()
    restored[np.arange(len(rows_of)), cols_of] = base[rows_of, cols_of]
    y_restored = predict(restored) if len(rows_of) else y_noisy[:0]
    gain = flipped[rows_of] - (y[rows_of] != y_restored).astype(np.int64)
    scores = np.bincount(cols_of, weights=gain, minlength=d) / n
    scores[fixed] = -np.inf
    return scores, path_error


def find_certificate(
    model: BlackBox | DecisionGraph,
    instance: Any,
    distribution: SamplingDistribution | None = None,
    *,
    noise_rate: float = NOISE_RATE,
    max_depth: int = MAX_DEPTH,
    score_accuracy: float = SCORE_ACCURACY,
    error: float = ERROR,
    confidence: float = CONFIDENCE,
    n_score_samples: int | None = None,
    n_check: int | None = None,
    seed: Seed = None,
) -> ProbabilisticExplanation:
    """A succinct certificate for ``instance``: the path of the greedy noise-stabilizing tree.

    Parameters
    ----------
    model : BlackBox or DecisionGraph
    instance : mapping or sequence
    distribution : SamplingDistribution, optional
        Default: uniform over the feature domains (the paper's setting).
    noise_rate : float, default 0.2
        ``p`` of ``NS_p``: each free coordinate is re-drawn with this probability.
    max_depth : int, default 10
        ``k``, the depth of the implicit tree: the certificate has at most ``k`` features.
    score_accuracy : float, default 0.05
        ``eta``: every score estimate is within ``eta`` with probability ``confidence``.
    error : float, default 0.05
        ``eps``: the walk stops once the path's sampled precision error is at most ``eps``;
        the final check tests the certificate against ``eps``.
    confidence : float, default 0.95
        ``1 - delta`` for the score estimates and the final check.
    n_score_samples, n_check : int, optional
        Override the sample sizes derived from ``eta``, ``eps`` and ``delta``.
    seed : int or numpy Generator, optional

    Returns
    -------
    ProbabilisticExplanation
        ``method="certificate"``; ``precision`` is the final check (sampled, with its
        Clopper-Pearson interval); ``details`` holds the features in the order the tree
        queried them, their scores, and ``certified`` (the check's estimate is at most
        ``eps``: FINDCERTIFICATE returns the set, otherwise it would return "no certificate").
    """
    start = time.perf_counter()
    bb = as_black_box(model)
    for name, value in (
        ("noise_rate", noise_rate),
        ("score_accuracy", score_accuracy),
        ("error", error),
        ("confidence", confidence),
    ):
        _check_unit(name, value)
    for name, count in (("n_score_samples", n_score_samples), ("n_check", n_check)):
        if count is not None and count < 1:
            raise InvalidParameterError(f"{name}: expected a positive integer, found {count}")
    if max_depth < 0:
        raise InvalidParameterError(
            f"max_depth: expected a non-negative integer, found {max_depth}"
        )
    run = ExplainerRun.begin(bb, instance, distribution)
    counter, dist, row, prediction = run.counter, run.distribution, run.row, run.prediction
    rng = make_rng(seed)
    d = bb.n_features
    fixed = np.zeros(d, dtype=bool)
    order: list[str] = []
    scores_taken: list[float] = []
    path_errors: list[float] = []
    while True:
        n_free = int(d - fixed.sum())
        n = n_score_samples or score_sample_size(n_free, score_accuracy, confidence)
        if len(order) >= max_depth or n_free == 0:
            break
        scores, path_error = noise_stabilizing_scores(
            counter, dist, row, fixed, prediction, noise_rate, n, rng
        )
        path_errors.append(path_error)
        if path_error <= error:
            break
        best = int(np.argmax(scores))
        fixed[best] = True
        order.append(bb.features[best].name)
        scores_taken.append(float(scores[best]))
    search_queries = counter.n_queries
    seconds = time.perf_counter() - start
    m = n_check or check_sample_size(error, confidence)
    check = counter(dist.sample_agreeing(row, fixed, m, rng)) != prediction
    failures = int(check.sum())
    low, high = clopper_pearson(failures, m, confidence)
    estimate = PrecisionEstimate(failures / m, "sampled", low, high, confidence, m, m)
    return run.explanation(
        "certificate",
        fixed,
        estimate,
        n_queries=search_queries,
        seconds=seconds,
        details={
            "order": tuple(order),
            "scores": tuple(scores_taken),
            "path_errors": tuple(path_errors),
            "certified": estimate.error <= error,
            "noise_rate": noise_rate,
            "max_depth": max_depth,
            "score_accuracy": score_accuracy,
            "error": error,
            "confidence": confidence,
        },
    )
