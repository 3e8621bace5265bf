"""Fitted scikit-learn tree ensembles as :class:`~xpg.models.ensemble.Forest` or
:class:`~xpg.models.ensemble.BoostedTrees` (:func:`ensemble_from_sklearn`), exactly.

Each tree's arrays are read as they are, its thresholds turned into the float64 cuts with the
effect of scikit-learn's float32 comparison (:func:`~xpg.core.float32.float32_cut`):
the model then computes what the estimator's ``predict`` computes, bit for bit.

Examples
--------
>>> from sklearn.datasets import load_iris
>>> from sklearn.ensemble import RandomForestClassifier
>>> X, y = load_iris(return_X_y=True)
>>> rf = RandomForestClassifier(n_estimators=5, max_depth=3, random_state=0).fit(X, y)
>>> forest = ensemble_from_sklearn(rf)
>>> forest.json_type, len(forest.trees), forest.decision, [f.name for f in forest.features][:2]
('forest', 5, 'argmax', ['x0', 'x1'])
>>> bool((forest.predict_batch(X) == rf.predict(X)).all())
True
>>> bool((forest.scores(X) == rf.predict_proba(X)).all())
True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from xpg.compile.sklearn_tree import learned_missing_routing
from xpg.core.features import Feature
from xpg.core.float32 import float32_cut
from xpg.core.library_predict import check_library_predict
from xpg.errors import InvalidModelError
from xpg.models.ensemble import BoostedTrees, Forest, TreeEnsemble
from xpg.models.ensemble_tree import EnsembleTree


def _labels(estimator: Any) -> list[Any]:
    return [c.item() if isinstance(c, np.generic) else c for c in estimator.classes_]


def _ensemble_features(estimator: Any, features: Sequence[Feature] | None) -> list[Feature]:
    n = int(estimator.n_features_in_)
    if features is None:
        names = getattr(estimator, "feature_names_in_", None)
        cols = [str(c) for c in names] if names is not None else [f"x{i}" for i in range(n)]
        return [Feature.real(c) for c in cols]
    feats = list(features)
    if not all(isinstance(f, Feature) for f in feats):
        raise InvalidModelError(
            "an ensemble is over plain features, one per input column (feature groups are "
            "not supported: encode a categorical column as one column of codes)"
        )
    if len(feats) != n:
        raise InvalidModelError(
            f"expected {n} features (the ensemble's inputs), found {len(feats)}"
        )
    return feats


def _check_no_nan_routing(trees: Sequence[Any], what: str) -> None:
    for i, est in enumerate(trees):
        learned = learned_missing_routing(est)
        if learned:
            raise InvalidModelError(
                f"{what}: expected trees trained without missing values, found tree {i} "
                f"routing NaN by what it learned (node {learned[0]}): NaN is in no feature "
                "domain; impute the missing values before training"
            )


def _tree_arrays(est: Any, value: np.ndarray) -> EnsembleTree:
    tree = est.tree_
    left = np.asarray(tree.children_left, dtype=np.int64)
    split = left >= 0
    cuts = np.zeros(len(left), dtype=np.float64)
    cuts[split] = [float32_cut(float(t)) for t in tree.threshold[split]]
    feature = np.where(split, tree.feature, -1).astype(np.int64)
    return EnsembleTree(
        feature,
        cuts,
        left,
        np.asarray(tree.children_right, dtype=np.int64),
        np.where(split[:, None], 0.0, value).astype(np.float64),
    )


def ensemble_from_sklearn(
    estimator: Any, features: Sequence[Feature] | None = None
) -> TreeEnsemble:
    """A fitted scikit-learn ensemble as a :class:`Forest` or :class:`BoostedTrees`.

    Parameters
    ----------
    estimator : RandomForestClassifier, ExtraTreesClassifier or GradientBoostingClassifier
        Fitted, single-output, trained without missing values; boosting with the log-loss and
        the default initial estimate (``init=None`` or ``"zero"``).
    features : sequence of Feature, optional
        One per input column, in column order (default: real features named after
        ``feature_names_in_`` or ``x0, x1, ...``).  A categorical feature whose values are
        not numbers is read by its codes (positions in ``values``).

    Raises
    ------
    InvalidModelError
        Another estimator, an unfitted one, several outputs, NaN routing learned from missing
        values, another loss or initial estimator, features that do not fit the columns; a
        subclass overriding how it predicts
        (:func:`~xpg.core.library_predict.check_library_predict`).

    Examples
    --------
    >>> from sklearn.ensemble import GradientBoostingClassifier
    >>> X = [[0, 0], [0, 1], [1, 0], [1, 1]] * 5; y = ["a", "b", "b", "a"] * 5
    >>> gb = GradientBoostingClassifier(n_estimators=20, max_depth=2, random_state=0).fit(X, y)
    >>> boosted = ensemble_from_sklearn(gb)
    >>> boosted.decision, len(boosted.trees), boosted.predict([1, 0]), str(gb.predict([[1, 0]])[0])
    ('sign', 20, 'b', 'b')
    """
    from sklearn.ensemble import (
        ExtraTreesClassifier,
        GradientBoostingClassifier,
        RandomForestClassifier,
    )

    kind = f"{type(estimator).__module__}.{type(estimator).__qualname__}"
    if not isinstance(
        estimator, (RandomForestClassifier, ExtraTreesClassifier, GradientBoostingClassifier)
    ):
        raise InvalidModelError(
            "expected a RandomForestClassifier, ExtraTreesClassifier or "
            f"GradientBoostingClassifier, found {kind}"
        )
    check_library_predict(estimator)
    name = type(estimator).__name__
    if not hasattr(estimator, "estimators_"):
        raise InvalidModelError(f"the {name} is not fitted")
    if getattr(estimator, "n_outputs_", 1) != 1:
        raise InvalidModelError(
            f"{name}: expected a single-output estimator, found {estimator.n_outputs_} outputs"
        )
    feats = _ensemble_features(estimator, features)
    classes = _labels(estimator)
    if isinstance(estimator, GradientBoostingClassifier):
        return _boosted(estimator, feats, classes)
    trees = list(estimator.estimators_)
    for tree in {type(e): e for e in trees}.values():  # a forest's vote asks each tree
        check_library_predict(tree, where=f"{name}: the tree class {type(tree).__name__}")
    _check_no_nan_routing(trees, name)
    k = len(classes)
    arrays = [_tree_arrays(e, np.asarray(e.tree_.value[:, 0, :k], dtype=np.float64)) for e in trees]
    return Forest(feats, classes, arrays, np.zeros(k), 1.0 / len(arrays))


def _boosted(estimator: Any, feats: list[Feature], classes: list[Any]) -> BoostedTrees:
    from sklearn.dummy import DummyClassifier

    loss = getattr(estimator, "loss", None)
    if loss != "log_loss":
        raise InvalidModelError(
            f"GradientBoostingClassifier: expected loss='log_loss', found {loss!r} "
            "(only the log-loss's link is encoded)"
        )
    init = estimator.init_
    if not (init == "zero" or (isinstance(init, DummyClassifier) and init.strategy == "prior")):
        raise InvalidModelError(
            "GradientBoostingClassifier: expected the default initial estimate (init=None or "
            f"'zero'), found {type(init).__name__}: an input-dependent start is not encoded"
        )
    stages = estimator.estimators_
    flat = [e for row in stages for e in row]
    _check_no_nan_routing(flat, "GradientBoostingClassifier")
    zero = np.zeros((1, len(feats)), dtype=np.float32)
    base = np.asarray(estimator._raw_predict_init(zero)[0], dtype=np.float64)
    n_scores = stages.shape[1]
    arrays = []
    for row in stages:
        for k, e in enumerate(row):
            value = np.zeros((e.tree_.node_count, n_scores), dtype=np.float64)
            value[:, k] = e.tree_.value[:, 0, 0]
            arrays.append(_tree_arrays(e, value))
    return BoostedTrees(feats, classes, arrays, base, float(estimator.learning_rate))


__all__ = ["ensemble_from_sklearn"]
