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

The walk stops at depth ``max_depth`` (the tree's depth ``k``) or as soon as the path so far
passes the certification test below; the path's features are the certificate.

*Certification* (FINDCERTIFICATE's step 4, Fig. 1). The paper certifies ``C`` only when
``Pr[f(y) != f(x) | y_C = x_C] <= eps`` holds "with confidence at least 1 - delta", from
``O(log(1/delta) / eps^2)`` queries; it names no bound (that sample size is Hoeffding's). Here
a set is certified when the exact one-sided Clopper-Pearson upper confidence bound of its error
(:func:`error_upper_bound`: binomial tail inversion, valid for every sample size and never
looser than Hoeffding's bound) is at most ``eps``. Every test uses samples drawn after the set
was chosen. The walk tests at most ``T = min(k, d) + 1`` sets (each prefix of the path at its
node, then the final set on ``n_check`` fresh samples), so each test runs at confidence
``1 - delta / T`` (union bound): whatever the model, the probability that a returned set is marked
certified while its error exceeds ``eps`` is at most ``delta``. Otherwise the answer is "no
certificate" (``details["certified"]`` is False and ``details["verdict"]`` says why); the
walked set is still returned, with its measured precision, as the paper's ``bot`` would not be.

*Where this departs from Theorem 1.*

* Early stopping: the theorem's tree is complete, of depth ``k`` (ISLEAF iff ``|alpha| = k``,
  Lemma 4.1), and only the depth-``k`` path is checked.  Here a prefix that passes its test is
  returned at once.  The certification guarantee above is unaffected (the union bound covers
  every test); a shorter set is returned where the theorem's set would be longer, and each
  test runs at ``delta / T`` instead of ``delta``, which costs a little power.
* Parameters: the defaults (``p = 0.2``, ``k = 10``, ``eta = 0.05``) are practical choices.
  Theorem 1 sets ``k``, ``eta`` and ``p`` from the unknown certificate complexity ``C(f)``
  with constants the paper does not give: :func:`theorem1_parameters` computes them (every
  hidden constant taken as 1) and :func:`theorem3_sample_size` the samples per node that make
  the walked path one of a depth-``k`` ``eta``-approximate greedy tree (Def. 9), the premise of
  Theorem 3.  The default per-node sample (:func:`score_sample_size`) is smaller: each node's
  scores are ``eta``-accurate at ``1 - delta``, with no union bound over the nodes.
* The theorem's guarantee is over a uniformly random instance; for a given instance a set of
  error just below ``eps`` may go uncertified (no test can separate ``eps`` from
  ``eps - tiny``), and the theorem does not say how often.
* The analysis is for Boolean features under the uniform distribution; other product
  distributions are handled as the paper handles the uniform one (re-drawing a coordinate =
  drawing it from its marginal); under the training data, the base points are data rows and
  re-drawn coordinates come from the marginals.

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
Defs. 1 and 6-9, Lemma 2.1 (FINDCERTIFICATE, Fig. 1), Lemma 4.1, Theorems 1 and 3;
Clopper, Pearson. Biometrika 1934.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from xpg.core.graph import DecisionGraph
from xpg.core.validation import Interval, check_param
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

#: What counts (features, depths, sample sizes) and rates (eps, delta, eta, p) accept.
_COUNT = Interval(int, 1, None)
_RATE = Interval(float, 0, 1, closed="neither")


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


def error_upper_bound(failures: int, n: int, confidence: float) -> float:
    """One-sided Clopper-Pearson upper confidence bound of an error rate.

    The largest ``q`` with ``Pr[Binomial(n, q) <= failures] >= 1 - confidence``: with
    probability at least ``confidence`` the true rate is at most the bound, for every ``n``.

    Examples
    --------
    >>> round(error_upper_bound(0, 738, 0.95), 5)   # 1 - 0.05 ** (1 / 738)
    0.00405
    >>> error_upper_bound(738, 738, 0.95)
    1.0
    """
    check_param("n", n, _COUNT)
    check_param("failures", failures, Interval(int, 0, n))
    if failures == n:
        return 1.0
    # the one-sided bound at level c is the two-sided Clopper-Pearson bound at level 2c - 1
    return clopper_pearson(failures, n, 2.0 * confidence - 1.0)[1]


def theorem3_sample_size(
    n_features: int, max_depth: int, score_accuracy: float, confidence: float
) -> int:
    """Samples per node that make the walked path one of Theorem 3's trees, w.p. ``confidence``.

    Theorem 3 is about a depth-``k`` ``eta``-approximate greedy tree (Def. 9): at each node
    the queried feature's score is within ``eta`` of the best.  That holds on ``x``'s path when
    every one of the at most ``d k`` score estimates along it is within ``eta / 2`` of its
    true value.  A score is a mean of differences in [-1, 1], so Hoeffding gives
    ``Pr[|estimate - score| >= t] <= 2 exp(-n t^2 / 2)``; with ``t = eta / 2`` and a union
    bound over ``d k`` estimates, ``n = ceil(8 ln(2 d k / delta) / eta^2)``.

    Examples
    --------
    >>> theorem3_sample_size(20, 10, 0.05, 0.95)
    28760
    """
    d = check_param("n_features", n_features, _COUNT)
    k = check_param("max_depth", max_depth, _COUNT)
    eta = check_param("score_accuracy", score_accuracy, _RATE)
    delta = 1.0 - check_param("confidence", confidence, _RATE)
    return math.ceil(8.0 * math.log(2.0 * d * k / delta) / eta**2)


@dataclass(frozen=True)
class Theorem1Parameters:
    """The settings under which Theorem 1's proof goes through, every hidden constant = 1.

    Attributes
    ----------
    error, confidence : float
        ``eps`` and ``1 - delta`` of the theorem.
    closeness : float
        ``eps delta / 2``: how close the implicit tree must be to ``f`` (Lemma 2.1, item 1).
    tree_depth : float
        ``D(f, eps delta / 2)``: given, or bounded by ``C(f)^2 / (eps delta / 2)^9``
        (Corollary 3.1).
    max_depth : int
        ``k = (D / closeness)^3`` (Theorem 3), capped at ``d``.
    complete : bool
        True when ``k`` reached ``d``: the complete depth-``d`` tree equals ``f``, whatever the
        order of its queries.
    score_accuracy, noise_rate : float
        ``eta = 1 / k`` (at most 1/2) and ``p = closeness / D`` (Theorem 3).
    n_score_samples : int
        :func:`theorem3_sample_size` for these ``d``, ``k``, ``eta`` and ``delta``.
    """

    error: float
    confidence: float
    closeness: float
    tree_depth: float
    max_depth: int
    complete: bool
    score_accuracy: float
    noise_rate: float
    n_score_samples: int

    def options(self) -> dict[str, Any]:
        """These settings as keyword arguments of :func:`find_certificate`."""
        return {
            "error": self.error,
            "confidence": self.confidence,
            "max_depth": self.max_depth,
            "score_accuracy": self.score_accuracy,
            "noise_rate": self.noise_rate,
            "n_score_samples": self.n_score_samples,
        }


def theorem1_parameters(
    error: float,
    confidence: float,
    n_features: int,
    *,
    certificate_complexity: float | None = None,
    tree_depth: float | None = None,
) -> Theorem1Parameters:
    """Theorem 1's ``k``, ``eta``, ``p`` and samples per node for ``eps``, ``delta`` and ``d``.

    The proof makes the implicit tree ``(eps delta / 2)``-close to ``f`` (Lemma 2.1) by
    Theorem 3 at accuracy ``eps' = eps delta / 2``: ``k = (D / eps')^3``, ``eta = 1 / k``,
    ``p = eps' / D`` with ``D = D(f, eps')``, the depth of a decision tree ``eps'``-close to
    ``f``.  Give ``tree_depth`` when it is known (a depth-``D`` tree model: any ``eps'``), else
    ``certificate_complexity`` ``C(f)``, and Corollary 3.1 bounds ``D <= C^2 / eps'^9``.  The
    paper states these up to constants it does not give; they are taken as 1 here, so the
    values show the theorem's scale, not a calibrated recipe (they are astronomically large
    unless ``k`` reaches ``d``).

    Examples
    --------
    >>> t = theorem1_parameters(0.1, 0.9, 20, tree_depth=3)
    >>> t.max_depth, t.complete, t.score_accuracy, round(t.noise_rate, 6), t.n_score_samples
    (20, True, 0.05, 0.001667, 28760)
    >>> theorem1_parameters(0.05, 0.95, 10**6, certificate_complexity=2).tree_depth > 1e26
    True
    """
    eps = check_param("error", error, _RATE)
    delta = 1.0 - check_param("confidence", confidence, _RATE)
    d = check_param("n_features", n_features, _COUNT)
    closeness = eps * delta / 2.0
    if (tree_depth is None) == (certificate_complexity is None):
        raise InvalidParameterError(
            "expected exactly one of tree_depth and certificate_complexity, found "
            f"tree_depth={tree_depth!r}, certificate_complexity={certificate_complexity!r}"
        )
    if tree_depth is not None:
        depth = float(check_param("tree_depth", tree_depth, _COUNT))
    else:
        c = check_param("certificate_complexity", certificate_complexity, Interval(float, 1, None))
        depth = c**2 / closeness**9
    raw_k = (depth / closeness) ** 3
    complete = raw_k >= d
    k = d if complete else max(1, math.ceil(raw_k))
    eta = min(1.0 / k, 0.5)
    return Theorem1Parameters(
        error=eps,
        confidence=1.0 - delta,
        closeness=closeness,
        tree_depth=depth,
        max_depth=k,
        complete=complete,
        score_accuracy=eta,
        noise_rate=closeness / depth,
        n_score_samples=theorem3_sample_size(d, k, eta, 1.0 - delta),
    )


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
        ``method="certificate"``; ``precision`` is the final check on ``n_check`` fresh
        samples (sampled, with its two-sided Clopper-Pearson interval at ``confidence``);
        ``details`` holds the features in the order the tree queried them, their scores, the
        sampled error of each prefix, the certification tests (``tests``: size, failures,
        samples and upper bound of each set tested), ``certified`` (a test of the returned set
        found its error's upper confidence bound at most ``eps``, at confidence
        ``1 - delta / T`` for the ``T`` sets the walk may test) and ``verdict``, a sentence
        saying which test decided, or that there is no certificate.

    Raises
    ------
    InvalidParameterError
        For a rate outside (0, 1) or a count that is not a positive integer.
    """
    start = time.perf_counter()
    bb = as_black_box(model)
    for name, value in (
        ("noise_rate", noise_rate),
        ("score_accuracy", score_accuracy),
        ("error", error),
        ("confidence", confidence),
    ):
        check_param(name, value, _RATE)
    check_param("n_score_samples", n_score_samples, _COUNT, None)
    check_param("n_check", n_check, _COUNT, None)
    check_param("max_depth", max_depth, Interval(int, 0, None))
    run = ExplainerRun.begin(bb, instance, distribution)
    counter, dist, row, prediction = run.counter, run.distribution, run.row, run.prediction
    rng = make_rng(seed)
    d = bb.n_features
    n_tests = min(max_depth, d) + 1
    test_confidence = 1.0 - (1.0 - confidence) / n_tests
    fixed = np.zeros(d, dtype=bool)
    order: list[str] = []
    scores_taken: list[float] = []
    path_errors: list[float] = []
    tests: list[dict[str, Any]] = []
    passed = False
    while len(order) < max_depth and not fixed.all():
        n_free = int(d - fixed.sum())
        n = n_score_samples or score_sample_size(n_free, score_accuracy, confidence)
        scores, path_error = noise_stabilizing_scores(
            counter, dist, row, fixed, prediction, noise_rate, n, rng
        )
        path_errors.append(path_error)
        failures = int(round(path_error * n))
        tests.append(_test(len(order), failures, n, test_confidence, "search"))
        if tests[-1]["upper_bound"] <= error:
            passed = True
            break
        best = int(np.argmax(scores))
        fixed[best] = True
        order.append(bb.features[best].name)
        scores_taken.append(float(scores[best]))
    search_queries = counter.n_queries
    seconds = time.perf_counter() - start
    m = n_check or check_sample_size(error, test_confidence)
    check = counter(dist.sample_agreeing(row, fixed, m, rng)) != prediction
    failures = int(check.sum())
    low, high = clopper_pearson(failures, m, confidence)
    estimate = PrecisionEstimate(failures / m, "sampled", low, high, confidence, m, m)
    if not passed:
        tests.append(_test(len(order), failures, m, test_confidence, "final check"))
        passed = tests[-1]["upper_bound"] <= error
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
            "certified": passed,
            "verdict": _verdict(passed, tests[-1], error, test_confidence),
            "tests": tuple(tests),
            "test_confidence": test_confidence,
            "noise_rate": noise_rate,
            "max_depth": max_depth,
            "score_accuracy": score_accuracy,
            "error": error,
            "confidence": confidence,
        },
    )


def _test(size: int, failures: int, n: int, confidence: float, where: str) -> dict[str, Any]:
    """One certification test of a set of ``size`` features: its counts and upper bound."""
    return {
        "size": size,
        "failures": failures,
        "samples": n,
        "upper_bound": error_upper_bound(failures, n, confidence),
        "where": where,
    }


def _verdict(passed: bool, test: dict[str, Any], error: float, confidence: float) -> str:
    """The sentence saying whether, and by which test, the set is certified."""
    bound = (
        f"the upper confidence bound of its error is {test['upper_bound']:.4g} "
        f"({test['failures']} failures in {test['samples']} samples, {test['where']}, "
        f"confidence {confidence:.4g})"
    )
    if passed:
        return f"certified: {bound} <= eps = {error:g}"
    return f"no certificate: {bound} > eps = {error:g}"
