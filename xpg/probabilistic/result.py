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

from xpg.errors import InvalidParameterError
from xpg.probabilistic.blackbox import BlackBox
from xpg.probabilistic.distributions import SamplingDistribution, Seed
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
    if n_check < 1:
        raise InvalidParameterError(f"n_check: expected at least 1, found {n_check}")
    return precision_error(
        model, instance, mask, distribution, method=evaluate, n_samples=n_check, seed=seed
    )
