"""Explainer(model) on every trained classifier xpg.import_model reads (the engine's
as_model routes them through it), the scikit-learn tree and forest paths unchanged."""

from __future__ import annotations

import numpy as np
import pytest

from xpg.errors import InvalidModelError
from xpg.explain.engine import Explainer, as_model
from xpg.learn.importing import import_model


def _data(n_classes: int = 3) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(3)
    X = rng.integers(0, 4, size=(120, 3)).astype(float)
    y = (X[:, 0] + X[:, 1] * (X[:, 2] > 1)).astype(int) % n_classes
    return X, y


def _agrees(estimator: object, X: np.ndarray) -> int:
    explainer = Explainer(estimator)
    assert explainer.model.json_type == import_model(estimator).json_type
    predicted = np.asarray(estimator.predict(X[:12]))  # type: ignore[attr-defined]
    for row, label in zip(X[:12], predicted.tolist(), strict=True):
        with explainer.explain(list(row)) as decision:
            assert decision.prediction == label
            assert decision.axp()  # a non-constant model needs some feature
    return 12


def test_xgboost_classifier_and_booster() -> None:
    xgb = pytest.importorskip("xgboost")
    X, y = _data()
    clf = xgb.XGBClassifier(n_estimators=5, max_depth=2).fit(X, y)
    assert _agrees(clf, X) == 12
    model = as_model(clf.get_booster())
    assert model.json_type == "gbdt" and len(model.features) == 3


def test_lightgbm_classifier() -> None:
    lgb = pytest.importorskip("lightgbm")
    X, y = _data()
    clf = lgb.LGBMClassifier(n_estimators=5, num_leaves=4, min_child_samples=2, verbose=-1)
    assert _agrees(clf.fit(X, y), X) == 12


def test_hist_gradient_boosting_and_pipeline() -> None:
    from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
    from sklearn.pipeline import Pipeline

    X, y = _data(2)
    hgb = HistGradientBoostingClassifier(max_iter=5, random_state=0).fit(X, y)
    assert _agrees(hgb, X) == 12
    pipe = Pipeline([("rf", RandomForestClassifier(n_estimators=3, random_state=0))]).fit(X, y)
    assert _agrees(pipe, X) == 12


def test_scikit_learn_trees_and_forests_keep_their_paths() -> None:
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.tree import DecisionTreeClassifier

    X, y = _data()
    forest = RandomForestClassifier(n_estimators=3, random_state=0).fit(X, y)
    assert as_model(forest).json_type == "forest"
    tree = DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, y)
    assert as_model(tree).predict({"x0": 1.0, "x1": 2.0, "x2": 3.0}) == tree.predict([[1, 2, 3]])[0]


def test_anything_else_is_refused_with_what_is_accepted() -> None:
    with pytest.raises(InvalidModelError, match="import_model reads"):
        as_model(object())
    with pytest.raises(InvalidModelError, match="only a scikit-learn estimator"):
        as_model(as_model(_tree_model()), ["a"])


def _tree_model() -> object:
    from sklearn.tree import DecisionTreeClassifier

    X, y = _data()
    return DecisionTreeClassifier(max_depth=1, random_state=0).fit(X, y)
