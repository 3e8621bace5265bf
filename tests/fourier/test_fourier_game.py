"""Removal games of tabular models and callables, checked against hand-built inputs."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import load_iris
from sklearn.linear_model import LinearRegression, LogisticRegression

from xpg.errors import InvalidGameError
from xpg.fourier.game import RemovalGame, TabularGame
from xpg.fourier.masks import all_masks


@pytest.fixture(scope="module")
def iris_model() -> tuple[LogisticRegression, np.ndarray]:
    X, y = load_iris(return_X_y=True)
    return LogisticRegression(max_iter=1000).fit(X, y), X


def test_baseline_game_equals_model_on_mixed_rows(iris_model) -> None:
    clf, X = iris_model
    instance, baseline = X[120], X.mean(axis=0)
    game = TabularGame(clf, instance, baseline=baseline)
    target = clf.predict(instance[None])[0]
    assert game.target == target
    column = list(clf.classes_).index(target)
    masks = all_masks(4)
    rows = np.array([[instance[j] if m[j] > 0 else baseline[j] for j in range(4)] for m in masks])
    expected = clf.predict_proba(rows)[:, column]
    np.testing.assert_allclose(game(masks), expected, rtol=0, atol=1e-15)
    assert game.n_queries == 16
    assert game(masks[-1:])[0] == pytest.approx(clf.predict_proba(instance[None])[0, column])


def test_background_game_averages_rows(iris_model) -> None:
    clf, X = iris_model
    instance, background = X[10], X[::25]
    game = TabularGame(clf, instance, background=background, target=2)
    masks = all_masks(4)
    expected = []
    for m in masks:
        rows = np.where(m > 0, instance, background)
        expected.append(clf.predict_proba(rows)[:, 2].mean())
    np.testing.assert_allclose(game(masks), expected, atol=1e-15)


def test_groups_and_regressors() -> None:
    X = np.random.default_rng(0).normal(size=(20, 4))
    reg = LinearRegression().fit(X, X @ np.array([1.0, 2.0, 3.0, 4.0]))
    game = TabularGame(reg, np.ones(4), baseline=np.zeros(4), groups=[[0, 3], [1]])
    assert game.n_players == 2
    # column 2 is in no group: always kept (value 1, weight 3)
    values = game(np.array([[1, 1], [1, -1], [-1, 1], [-1, -1]]))
    np.testing.assert_allclose(values, [10.0, 8.0, 5.0, 3.0], atol=1e-9)


def test_callable_game_and_names() -> None:
    game = TabularGame(
        lambda X: X.sum(axis=1), [1.0, 2.0], baseline=[0.0, 0.0], feature_names=["a", "b"]
    )
    assert game.feature_names == ("a", "b")
    assert game(np.array([[1, -1], [-1, 1]])).tolist() == [1.0, 2.0]
    g = RemovalGame(lambda x: x[:, 0], 3)
    assert g.feature_names == ("x0", "x1", "x2")
    assert g.truth_table().tolist() == all_masks(3)[:, 0].astype(float).tolist()


def test_bad_games_are_named(iris_model) -> None:
    clf, X = iris_model
    with pytest.raises(InvalidGameError, match="exactly one removal rule.*found neither"):
        TabularGame(clf, X[0])
    with pytest.raises(InvalidGameError, match="found both"):
        TabularGame(clf, X[0], baseline=X[1], background=X[:3])
    with pytest.raises(InvalidGameError, match=r"baseline: expected one row of shape \(4,\)"):
        TabularGame(clf, X[0], baseline=[0.0, 1.0])
    with pytest.raises(InvalidGameError, match="target: expected one of the classes"):
        TabularGame(clf, X[0], baseline=X[1], target=7)
    with pytest.raises(InvalidGameError, match=r"groups\[1\]"):
        TabularGame(clf, X[0], baseline=X[1], groups=[[0, 1], [1]])
    with pytest.raises(InvalidGameError, match="returned 1 values for 2 masks"):
        RemovalGame(lambda x: [0.0], 2)([[1, 1], [1, -1]])
    with pytest.raises(InvalidGameError, match="returned nan"):
        RemovalGame(lambda x: np.full(len(x), np.nan), 2)([[1, 1]])
    with pytest.raises(ValueError, match="expected entries -1"):
        RemovalGame(lambda x: x[:, 0], 2)([[1, 0]])
