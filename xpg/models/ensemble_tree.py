"""One tree of a tree ensemble in scikit-learn's array layout, and the number it compares.

Every split is ``x[feature] <= threshold``.  ``x[feature]`` is the number of the value
(:func:`feature_number`): the value itself for boolean, integer and real features and for
categorical features whose values are all numbers, the position of the value in
``feature.values`` for other categorical features (:func:`read_by_code`; the ordinal codes of
:func:`xpg.learn.table_data.prepare_table`).

Examples
--------
>>> import numpy as np
>>> t = EnsembleTree(np.array([0, -1, -1]), np.array([0.5, 0, 0]), np.array([1, -1, -1]),
...                  np.array([2, -1, -1]), np.array([[0, 0], [1.0, 0], [0, 1.0]]))
>>> t.leaves.tolist(), t.depth
([1, 2], 1)
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from xpg.core.features import Feature


class EnsembleTree(NamedTuple):
    """One tree of an ensemble, in scikit-learn's array layout (node 0 is the root).

    Attributes
    ----------
    feature : ndarray of int64, shape (n_nodes,)
        Index into the model's features; -1 at a leaf.
    threshold : ndarray of float64
        A split sends ``x`` left when ``x[feature] <= threshold`` (the float64 cut with the
        effect of scikit-learn's float32 comparison); unused (0) at a leaf.
    left, right : ndarray of int64
        Children; -1 at a leaf.
    value : ndarray of float64, shape (n_nodes, n_scores)
        At a leaf, what the tree adds to the score vector (before ``scale``); zero at a split.
    missing_left : ndarray of bool, shape (n_nodes,), or None
        Where a missing value (NaN) goes: left at split ``n`` iff ``missing_left[n]``; None
        when the tree has no missing-value routing (NaN then fails ``<=`` and goes right).
    """

    feature: np.ndarray
    threshold: np.ndarray
    left: np.ndarray
    right: np.ndarray
    value: np.ndarray
    missing_left: np.ndarray | None = None

    @property
    def leaves(self) -> np.ndarray:
        """The leaf nodes, in node order."""
        return np.flatnonzero(self.left < 0)

    @property
    def depth(self) -> int:
        """The number of splits on the longest root-to-leaf path."""
        depth = np.zeros(len(self.left), dtype=np.int64)
        for n in range(len(self.left)):  # children come after their parent
            if self.left[n] >= 0:
                depth[self.left[n]] = depth[self.right[n]] = depth[n] + 1
        return int(depth.max())


def read_by_code(feature: Feature) -> bool:
    """Does a tree compare the position of a value of ``feature`` in ``feature.values``
    rather than the value (a categorical feature whose values are not all numbers)?

    >>> read_by_code(Feature.categorical("c", ["red", "blue"])), read_by_code(Feature.real("x"))
    (True, False)
    """
    return feature.kind == "categorical" and not all(
        isinstance(v, (int, float)) and not isinstance(v, bool) for v in feature.values
    )


def feature_number(feature: Feature, value: Any) -> float:
    """The number a tree compares for ``value`` of ``feature`` (see the module docstring).

    Examples
    --------
    >>> feature_number(Feature.categorical("c", ["red", "blue"]), "blue")
    1.0
    >>> feature_number(Feature.categorical("k", [3, 7]), 7), feature_number(Feature.real("x"), 2)
    (7.0, 2.0)
    """
    if read_by_code(feature):
        return float(feature.code(value))
    return float(value)


__all__ = ["EnsembleTree", "feature_number", "read_by_code"]
