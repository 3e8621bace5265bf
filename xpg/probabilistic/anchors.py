"""Anchors (Ribeiro et al.) as a baseline, driven through the same interface as the others.

The ``anchor-exp`` package (optional extra ``anchors``) implements the Anchors beam search
with KL-LUCB bandits in ``anchor.anchor_base.AnchorBaseBeam.anchor_beam``.  Its tabular
front end, ``AnchorTabularExplainer.explain_instance``, accepts ``beam_size`` but never
passes it on (the search always runs with a beam of 1), and it perturbs through a LIME
discretiser of its own.  This module therefore calls ``anchor_beam`` directly, with the
beam size asked for (10 in Koriche et al.'s baseline) and a sampling function that draws
from the same :class:`~xpg.probabilistic.distributions.SamplingDistribution` as the other
explainers: the candidate predicates are "feature ``j`` equals the instance's value", so an
anchor is a feature set whose precision is the one every explainer here is measured by.

Perturbations: anchor-exp's tabular explainer, given training data, draws training rows and
overwrites the anchored columns with the instance's values (Koriche et al.'s set-up).  Pass
``EmpiricalDistribution(features).fit(X_train)`` as ``distribution`` for exactly that; the
default, uniform inputs, perturbs with the distribution the explanation is evaluated on.

``anchor_beam`` draws from numpy's global random state; the call seeds it from ``seed`` and
restores the previous state afterwards, so runs are reproducible and callers' streams are
left untouched.

Examples
--------
>>> import numpy as np
>>> from xpg.core.features import Feature
>>> from xpg.probabilistic.blackbox import BlackBox
>>> features = [Feature.boolean(f"x{i}") for i in range(6)]
>>> f = BlackBox(lambda X: (X[:, 0] * X[:, 1]).astype(int), features)
>>> anchor = find_anchor(f, [1, 1, 0, 0, 0, 0], seed=0)  # doctest: +SKIP
>>> anchor.features  # doctest: +SKIP
('x0', 'x1')

References
----------
Ribeiro, Singh, Guestrin. Anchors: High-precision model-agnostic explanations. AAAI 2018;
Koriche, Lagniez, Mengel, Tran. Learning Model Agnostic Explanations via Constraint
Programming, section 4.1 (beam 10); Blanc, Lange, Tan. Provably efficient, succinct, and
precise explanations. NeurIPS 2021, section 4 (comparison with Anchors).
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from xpg.core.graph import DecisionGraph
from xpg.core.validation import Interval, check_param
from xpg.errors import MissingExtraError
from xpg.probabilistic.blackbox import BlackBox, QueryCounter
from xpg.probabilistic.distributions import (
    SamplingDistribution,
    Seed,
    make_rng,
)
from xpg.probabilistic.precision import PrecisionMethod
from xpg.probabilistic.result import ExplainerRun, ProbabilisticExplanation, as_black_box


def anchor_base() -> Any:
    """The ``anchor.anchor_base`` module of ``anchor-exp``, or a clear error when missing."""
    try:
        return importlib.import_module("anchor.anchor_base")
    except ImportError as err:
        raise MissingExtraError(
            f"Anchors needs the anchor-exp package ({err}): pip install -e '.[anchors]' from a "
            "clone of xpg"
        ) from None


def _sample_function(
    predict: QueryCounter,
    distribution: SamplingDistribution,
    row: np.ndarray,
    prediction: Any,
    rng: np.random.Generator,
) -> Callable[..., tuple[np.ndarray, np.ndarray, Any]]:
    """``sample_fn(present, n, compute_labels=True)`` in anchor_base's contract.

    ``present`` lists the anchored features; returns the raw samples, their 0/1 agreement
    with the instance on every feature, and 1 where the model keeps the instance's class.
    """
    d = len(row)

    def sample_fn(
        present: list[int], num_samples: int, compute_labels: bool = True
    ) -> tuple[np.ndarray, np.ndarray, Any]:
        fixed = np.zeros(d, dtype=bool)
        fixed[list(present)] = True
        raw = distribution.sample_agreeing(row, fixed, num_samples, rng)
        agreement = (raw == row[None, :]).astype(int)
        labels: Any = []
        if compute_labels:
            labels = (predict(raw) == prediction).astype(int)
        return raw, agreement, labels

    return sample_fn


def find_anchor(
    model: BlackBox | DecisionGraph,
    instance: Any,
    distribution: SamplingDistribution | None = None,
    *,
    beam_size: int = 10,
    threshold: float = 0.95,
    delta: float = 0.1,
    tau: float = 0.15,
    batch_size: int = 100,
    max_anchor_size: int | None = None,
    coverage_samples: int = 10000,
    evaluate: PrecisionMethod | None = "auto",
    n_check: int = 1000,
    seed: Seed = None,
) -> ProbabilisticExplanation:
    """The Anchors explanation of ``instance`` (anchor-exp's beam search, beam ``beam_size``).

    Parameters
    ----------
    model : BlackBox or DecisionGraph
    instance : mapping or sequence
    distribution : SamplingDistribution, optional
        Where perturbations come from (default: uniform over the domains;
        :class:`~xpg.probabilistic.distributions.EmpiricalDistribution` fitted on the
        training data for anchor-exp's training-data perturbations).
    beam_size : int, default 10
        Candidates kept per anchor size (Koriche et al.'s baseline: 10).
    threshold : float, default 0.95
        Precision an anchor must reach (anchor-exp's ``desired_confidence``).
    delta, tau : float
        The bandit's confidence parameter and tolerance (anchor-exp's ``delta`` and
        ``epsilon``; its defaults 0.1 and 0.15).
    batch_size : int, default 100
        Samples drawn per bandit pull.
    max_anchor_size : int, optional
        Largest anchor, at least 1 (default: every feature).
    coverage_samples : int
        Unlabelled samples anchor-exp uses to estimate coverage.
    evaluate : {"auto", "exact", "enumerate", "sample"} or None
        How to measure the returned set's precision (None: do not).
    n_check : int
        Samples for a sampled evaluation.
    seed : int or numpy Generator, optional

    Returns
    -------
    ProbabilisticExplanation
        ``method="anchors"``; ``details`` holds the features in the order Anchors added them
        and Anchors' own precision and coverage estimates.

    Raises
    ------
    InvalidParameterError
        For a rate outside (0, 1] or a count that is not a positive integer (checked before
        anchor-exp is called).
    MissingExtraError
        When anchor-exp is not installed.
    """
    start = time.perf_counter()
    bb = as_black_box(model)
    for name, value in (("threshold", threshold), ("delta", delta), ("tau", tau)):
        check_param(name, value, Interval(float, 0, 1, closed="right"))
    count = Interval(int, 1, None)
    beam_size = check_param("beam_size", beam_size, count)
    batch_size = check_param("batch_size", batch_size, count)
    coverage_samples = check_param("coverage_samples", coverage_samples, count)
    n_check = check_param("n_check", n_check, count)
    # anchor-exp fails inside its search on 0 or a negative size (argmax of an empty list)
    max_anchor_size = check_param("max_anchor_size", max_anchor_size, count, None)
    rng = make_rng(seed)
    base = anchor_base()
    run = ExplainerRun.begin(bb, instance, distribution)
    sample_fn = _sample_function(run.counter, run.distribution, run.row, run.prediction, rng)
    saved = np.random.get_state()
    np.random.seed(int(rng.integers(2**32 - 1)))
    try:
        found = base.AnchorBaseBeam.anchor_beam(
            sample_fn,
            delta=delta,
            epsilon=tau,
            batch_size=batch_size,
            desired_confidence=threshold,
            beam_size=beam_size,
            max_anchor_size=max_anchor_size,
            coverage_samples=coverage_samples,
        )
    finally:
        np.random.set_state(saved)
    seconds = time.perf_counter() - start
    order = [int(j) for j in found["feature"]]
    mask = np.zeros(bb.n_features, dtype=bool)
    mask[order] = True
    own = found["precision"][-1] if found["precision"] else found["all_precision"]
    return run.explanation(
        "anchors",
        mask,
        run.evaluate(mask, evaluate, n_check, rng),
        n_queries=run.counter.n_queries,
        seconds=seconds,
        details={
            "order": tuple(bb.features[j].name for j in order),
            "anchor_precision": float(own),
            "anchor_coverage": float(found["coverage"][-1]) if found["coverage"] else 1.0,
            "beam_size": beam_size,
            "threshold": threshold,
        },
    )
