"""Feature domains inferred from data columns.

Examples
--------
>>> import numpy as np
>>> [f.kind for f in infer_features(np.array([[0, 3, 1.5], [1, 5, 2.0]]), ["a", "b", "c"])]
['boolean', 'integer', 'real']

References
----------
Huang et al. KR 2021, Sec. 2 (feature domains: boolean, categorical, integer, real).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from xpg.core.features import Feature
from xpg.errors import InvalidModelError


def infer_feature(name: str, column: np.ndarray) -> Feature:
    """A feature for one column: {0, 1} -> boolean, integers -> integer on the observed
    range, other numbers -> real (unbounded), anything else -> categorical (sorted values)."""
    values = column[~_missing(column)]
    if values.size == 0:
        raise InvalidModelError(f"column {name!r}: no value (every entry is missing)")
    try:
        numbers = values.astype(np.float64)
    except (TypeError, ValueError):
        return Feature.categorical(name, sorted({str(v) for v in values}))
    if np.isin(numbers, (0.0, 1.0)).all():
        return Feature.boolean(name)
    if (numbers == np.round(numbers)).all():
        return Feature.integer(name, float(numbers.min()), float(numbers.max()))
    return Feature.real(name)


def infer_features(X: Any, names: Sequence[str]) -> list[Feature]:
    """One inferred feature per column of ``X`` (see :func:`infer_feature`)."""
    X = np.asarray(X)
    if X.ndim != 2 or X.shape[1] != len(names):
        raise InvalidModelError(
            f"expected a 2-D array with {len(names)} columns (one per name), found shape {X.shape}"
        )
    return [infer_feature(str(n), X[:, j]) for j, n in enumerate(names)]


def _missing(column: np.ndarray) -> np.ndarray:
    if column.dtype.kind == "f":
        return np.isnan(column)
    if column.dtype.kind == "O":
        return np.array([v is None or (isinstance(v, float) and np.isnan(v)) for v in column])
    return np.zeros(len(column), dtype=bool)
