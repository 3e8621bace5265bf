"""Learn decision trees with scikit-learn and compile them at once.

Examples
--------
>>> from sklearn.datasets import load_iris
>>> X, y = load_iris(return_X_y=True)
>>> clf, dg = learn_tree(X, y, ["sl", "sw", "pl", "pw"], max_depth=3)
>>> int(dg.predict(list(X[0]))) == int(clf.predict(X[:1])[0])
True

References
----------
Breiman, Friedman, Olshen, Stone. Classification and Regression Trees. 1984 (CART, as
implemented by scikit-learn); Huang et al. KR 2021, Sec. 7 (depth-6 trees).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from sklearn.tree import DecisionTreeClassifier

from xpg.compile.sklearn_tree import from_sklearn_tree
from xpg.core.feature_space import FeatureGroup
from xpg.core.features import Feature
from xpg.core.graph import DecisionGraph
from xpg.learn.feature_types import infer_features


def learn_tree(
    X: Any,
    y: Any,
    feature_names: Sequence[str] | None = None,
    *,
    features: Sequence[Feature | FeatureGroup] | None = None,
    max_depth: int | None = 6,
    random_state: int | None = 0,
    **params: Any,
) -> tuple[DecisionTreeClassifier, DecisionGraph]:
    """Fit a ``DecisionTreeClassifier`` and compile it exactly.

    Parameters
    ----------
    X, y : array-like
        Numeric data (categorical columns as numeric codes, or one-hot columns declared with
        :class:`~xpg.core.feature_space.FeatureGroup`).
    feature_names : sequence of str, optional
        Used to infer the features when ``features`` is not given.
    features : sequence of Feature or FeatureGroup, optional
        The domains (default: inferred from the data).
    max_depth, random_state, **params
        Passed to ``DecisionTreeClassifier``.

    Returns
    -------
    (estimator, DecisionGraph)
    """
    X = np.asarray(X, dtype=np.float64)
    if features is None:
        names = [f"x{j}" for j in range(X.shape[1])] if feature_names is None else feature_names
        features = infer_features(X, [str(n) for n in names])
    clf = DecisionTreeClassifier(max_depth=max_depth, random_state=random_state, **params)
    clf.fit(X, y)
    return clf, from_sklearn_tree(clf, features)
