"""scikit-learn trees trained with missing values are refused, not compiled without their
NaN routing."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier

from xpg.compile.sklearn_tree import from_sklearn_tree, learned_missing_routing
from xpg.errors import InvalidModelError


def _data(seed: int, missing: float) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(120, 3))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    if missing:
        nan = rng.random(120) < missing
        X[nan, 0] = np.nan
        y = np.where(nan, rng.integers(0, 2, 120), y)
    return X, y


def _root_nan_departs(clf: DecisionTreeClassifier) -> bool:
    """Independently of the arrays' flags: does predict send a NaN at the root's column to
    the child that saw fewer training samples (or left on a tie)?"""
    t = clf.tree_
    probe = np.zeros((1, clf.n_features_in_))
    probe[0, t.feature[0]] = np.nan
    visited = clf.decision_path(probe).indices
    left, right = t.children_left[0], t.children_right[0]
    went_left = left in visited
    return went_left != (t.n_node_samples[left] > t.n_node_samples[right])


@pytest.mark.parametrize("seed", range(8))
def test_trees_trained_without_missing_values_compile(seed: int) -> None:
    X, y = _data(seed, 0.0)
    clf = DecisionTreeClassifier(max_depth=4, random_state=seed).fit(X, y)
    assert learned_missing_routing(clf) == [] and not _root_nan_departs(clf)
    dg = from_sklearn_tree(clf)
    assert [dg.predict(list(r)) for r in X[:20]] == list(clf.predict(X[:20]))


def test_a_tree_trained_with_nan_is_refused_with_a_clear_error() -> None:
    X = np.array([[0.0], [1.0], [2.0], [3.0], [4.0], [np.nan]])
    clf = DecisionTreeClassifier(random_state=0).fit(X, [1, 1, 0, 0, 0, 1])
    # predict sends NaN left (class 1), where no learned threshold would
    assert clf.predict([[np.nan]])[0] == 1 and clf.predict([[4.0]])[0] == 0
    with pytest.raises(InvalidModelError, match="trained without missing values"):
        from_sklearn_tree(clf)


def test_most_trees_trained_with_nan_are_detected() -> None:
    refused = 0
    for seed in range(40):
        X, y = _data(seed, 0.2)
        clf = DecisionTreeClassifier(max_depth=4, random_state=seed).fit(X, y)
        assert (0 in learned_missing_routing(clf)) == _root_nan_departs(clf)
        if learned_missing_routing(clf):
            refused += 1
            with pytest.raises(InvalidModelError):
                from_sklearn_tree(clf)
    assert refused >= 30  # 35 of 40 with these seeds
