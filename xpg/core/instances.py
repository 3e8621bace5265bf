"""Checking an instance against a model's features (shared by the model classes).

Examples
--------
>>> from xpg.core.features import Feature
>>> instance_dict([Feature.boolean("a"), Feature.integer("n", 0, 3)], [1, 2])
{'a': 1, 'n': 2}

References
----------
Huang, Izza, Ignatiev, Marques-Silva. On Efficiently Explaining Graph-Based Classifiers.
KR 2021, Sec. 2 (instances as points of the feature space).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from xpg.core.features import Feature
from xpg.core.graph import DecisionGraph
from xpg.errors import InvalidGraphError, InvalidModelError


def instance_dict(
    features: Sequence[Feature], instance: Mapping[str, Any] | Sequence[Any]
) -> dict[str, Any]:
    """``instance`` (a mapping, or values in feature order) checked and in canonical form.

    Raises :class:`~xpg.errors.InvalidInstanceError` naming the missing, unknown or
    out-of-domain feature (the same rules as :meth:`DecisionGraph.instance_values`).
    """
    try:
        values = DecisionGraph(features).instance_values(instance)
    except InvalidGraphError as err:  # a feature name declared twice
        raise InvalidModelError(str(err)) from None
    return {f.name: v for f, v in zip(features, values, strict=True)}
