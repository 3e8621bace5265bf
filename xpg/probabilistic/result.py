"""One result type for every probabilistic explainer (certificate, Cop, Sat, Anchors, PAXp).

Examples
--------
>>> from xpg.probabilistic.precision import PrecisionEstimate
>>> est = PrecisionEstimate(0.25, "exact-propagation", 0.25, 0.25, None, 0, 0)
>>> r = ProbabilisticExplanation("cop", ("a", "b"), 1, est, 1000, 0.01, optimal=True)
>>> r.size, r.error, r.to_json()["precision"]["method"]
(2, 0.25, 'exact-propagation')

References
----------
Blanc, Lange, Tan. Provably efficient, succinct, and precise explanations. NeurIPS 2021
(certificates: a feature set, its precision error, the number of queries).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

import numpy as np

from xpg.core.graph import DecisionGraph
from xpg.core.validation import Interval, check_param
from xpg.probabilistic.blackbox import BlackBox, QueryCounter
from xpg.probabilistic.distributions import SamplingDistribution, Seed, default_distribution
from xpg.probabilistic.precision import PrecisionEstimate, PrecisionMethod, precision_error

ExplainerName = Literal["certificate", "cop", "sat", "anchors", "probabilistic-axp"]
EXPLAINER_NAMES: tuple[str, ...] = get_args(ExplainerName)


@dataclass(frozen=True)
class ProbabilisticExplanation:
    """A feature set explaining one prediction, with its precision and its cost.

    Attributes
    ----------
    method : {"certificate", "cop", "sat", "anchors", "probabilistic-axp"}
        The explainer that produced it.
    features : tuple of str
        The explanation, in feature order.
    prediction : object
        The model's class for the instance.
    precision : PrecisionEstimate or None
        Precision error of ``features`` for the instance (exact or sampled: see its
        ``method``); None when the caller asked for no evaluation.
    n_queries : int
        Model queries the explainer made to find the set (evaluation excluded).
    seconds : float
        Time to find the set (evaluation excluded).
    optimal : bool or None
        Cop/Sat: the solver proved the rule optimal for its samples; probabilistic AXp: the
        set is subset-minimal (not only locally minimal); None for heuristics.
    details : mapping
        Explainer-specific facts (objective, solver status, order of selection, ...).
    """

    method: str
    features: tuple[str, ...]
    prediction: Any
    precision: PrecisionEstimate | None
    n_queries: int
    seconds: float
    optimal: bool | None = None
    details: Mapping[str, Any] = field(default_factory=dict)

    @property
    def size(self) -> int:
        """Number of features."""
        return len(self.features)

    @property
    def error(self) -> float | None:
        """The precision error (None when not evaluated)."""
        return None if self.precision is None else self.precision.error

    def to_json(self) -> dict[str, Any]:
        """The explanation as a JSON-ready dict (features sorted by name)."""
        return {
            "method": self.method,
            "features": sorted(self.features),
            "prediction": _plain(self.prediction),
            "precision": None if self.precision is None else self.precision.to_json(),
            "n_queries": self.n_queries,
            "seconds": self.seconds,
            "optimal": self.optimal,
            "details": {k: _plain(v) for k, v in self.details.items()},
        }


def _plain(value: Any) -> Any:
    """numpy scalars and tuples as plain JSON values."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    return value


def evaluate_set(
    model: BlackBox,
    instance: Any,
    mask: np.ndarray,
    distribution: SamplingDistribution,
    evaluate: PrecisionMethod | None,
    n_check: int,
    seed: Seed,
) -> PrecisionEstimate | None:
    """The precision an explainer reports for its set (None when ``evaluate`` is None)."""
    if evaluate is None:
        return None
    check_param("n_check", n_check, Interval(int, 1, None))
    return precision_error(
        model, instance, mask, distribution, method=evaluate, n_samples=n_check, seed=seed
    )


def as_black_box(model: BlackBox | DecisionGraph) -> BlackBox:
    """The model as a :class:`~xpg.probabilistic.blackbox.BlackBox` (a graph is wrapped)."""
    return model if isinstance(model, BlackBox) else BlackBox(model)


@dataclass(frozen=True)
class ExplainerRun:
    """What a sampling explainer starts from and reports with: the model, the distribution,
    the instance's row, the counter of model queries and the model's prediction.

    Examples
    --------
    >>> from xpg.examples import and_graph
    >>> run = ExplainerRun.begin(as_black_box(and_graph()), {"a": 1, "b": 1}, None)
    >>> int(run.prediction), run.counter.n_queries
    (1, 1)
    >>> found = run.explanation("cop", np.array([True, False]), None, n_queries=1, seconds=0.0)
    >>> found.features, found.prediction
    (('a',), 1)
    """

    model: BlackBox
    distribution: SamplingDistribution
    row: np.ndarray
    counter: QueryCounter
    prediction: Any

    @classmethod
    def begin(
        cls, model: BlackBox, instance: Any, distribution: SamplingDistribution | None
    ) -> ExplainerRun:
        """Check the distribution (default: uniform) and the instance, and query the model's
        prediction for it (the first counted query)."""
        dist = default_distribution(model.features, distribution)
        row = model.row(instance)
        counter = QueryCounter(model)
        return cls(model, dist, row, counter, counter(row[None, :])[0])

    def evaluate(
        self, mask: np.ndarray, evaluate: PrecisionMethod | None, n_check: int, seed: Seed
    ) -> PrecisionEstimate | None:
        """:func:`evaluate_set` of a feature set of this instance."""
        return evaluate_set(self.model, self.row, mask, self.distribution, evaluate, n_check, seed)

    def explanation(
        self,
        method: str,
        mask: np.ndarray,
        precision: PrecisionEstimate | None,
        *,
        n_queries: int,
        seconds: float,
        optimal: bool | None = None,
        details: Mapping[str, Any] | None = None,
    ) -> ProbabilisticExplanation:
        """The :class:`ProbabilisticExplanation` of the features selected by ``mask``."""
        features = self.model.features
        prediction = self.prediction
        return ProbabilisticExplanation(
            method=method,
            features=tuple(f.name for f, on in zip(features, mask, strict=True) if on),
            prediction=prediction.item() if isinstance(prediction, np.generic) else prediction,
            precision=precision,
            n_queries=n_queries,
            seconds=seconds,
            optimal=optimal,
            details={} if details is None else details,
        )
