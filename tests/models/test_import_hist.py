"""HistGradientBoostingClassifier as a GBDT: the same function as scikit-learn's ``predict``.

Checked against scikit-learn itself: every point (NaN included) of the small domains of
seeded random models with missing values and categorical features, a point of every cell
between thresholds, every row of five datasets, unknown categories; every AXp and CXp of the
small models against brute force through the estimator's own ``predict``.
"""

from __future__ import annotations

import functools
import itertools
import json

import numpy as np
import pandas as pd
import pytest
from conftest import shared_path
from sklearn.ensemble import (
    HistGradientBoostingClassifier,
    HistGradientBoostingRegressor,
    RandomForestClassifier,
)

import xpg
from xpg.core.features import Feature
from xpg.errors import InvalidModelError, UnsupportedModelError
from xpg.io.model_json import model_to_dict, read_model_dict
from xpg.learn.datasets import load_dataset
from xpg.models.gbdt import GBDT
from xpg.models.import_hist import read_hist_gradient_boosting
from xpg.testing.ensembles import ensemble_oracle
from xpg.testing.oracle import numeric_representatives

NAN = float("nan")
#: binary and multi-class; car's columns are categorical
DATASETS = ("pmlb/iris", "pmlb/breast_w", "pmlb/car", "pmlb/diabetes", "pmlb/new_thyroid")


@functools.cache
def _random_hgb(seed: int, n_samples: int = 160, nan: bool = True):
    """A categorical column (codes 1, 4, 6, 9), an integer column 0..3 and a real column
    of one decimal, NaN in two of them when ``nan``; 2, 3 or 4 classes."""
    rng = np.random.default_rng(seed)
    k = 2 + seed % 3
    cat = rng.choice([1.0, 4.0, 6.0, 9.0], n_samples)
    a = rng.integers(0, 4, n_samples).astype(float)
    b = rng.normal(size=n_samples).round(1)
    X = np.column_stack([cat, a, b])
    if nan:
        X[rng.random(n_samples) < 0.15, 2] = NAN
        X[rng.random(n_samples) < 0.1, 0] = NAN
    score = (cat == 4) * 1.5 - (cat == 9) + a + np.nan_to_num(b) + rng.normal(size=n_samples)
    y = np.digitize(score, np.quantile(score, np.linspace(0, 1, k + 1)[1:-1]))
    est = HistGradientBoostingClassifier(
        max_iter=2 + seed % 5,
        max_depth=2 + seed % 2,
        categorical_features=[0],
        min_samples_leaf=4,
        learning_rate=0.5,
        random_state=seed,
    ).fit(X, y)
    return est, X


def _round_trip(model):
    return read_model_dict(json.loads(json.dumps(model_to_dict(model))))


def _cuts(model: GBDT, j: int) -> set[float]:
    return {
        float(t.threshold[n])
        for t in model.trees
        for n in np.flatnonzero((t.left >= 0) & (t.feature == j))
    }


@pytest.mark.slow
def test_random_models_on_every_point_nan_included() -> None:
    """24 models: every point of the domains plus NaN in each column, and a point of every
    cell between the real column's cuts, as scikit-learn predicts them (bit-equal scores)."""
    checked = 0
    for seed in range(24):
        est, _ = _random_hgb(seed)
        model = read_hist_gradient_boosting(est)
        assert model.precision == "float64"
        assert model.decision == ("threshold" if seed % 3 == 0 else "argmax")
        assert model.features[0] == Feature.categorical("x0", [1.0, 4.0, 6.0, 9.0])
        reals = numeric_representatives(model.features[2], _cuts(model, 2))
        axes = [[1.0, 4.0, 6.0, 9.0, NAN], [0.0, 1.0, 2.0, 3.0, 1.5, NAN], [*reals, NAN]]
        P = np.array(list(itertools.product(*axes)))
        expected = est.predict(P).tolist()
        assert model.predict_batch(P).tolist() == expected, seed
        assert (model.scores(P) == est._raw_predict(P)).all(), seed
        assert _round_trip(model).predict_batch(P).tolist() == expected, seed
        for row in P[:: max(1, len(P) // 7)]:
            assert model.predict(row.tolist()) == est.predict(row[None, :])[0], seed
        checked += len(P)
    assert checked > 24 * 100


def test_missing_against_all_categories_is_kept() -> None:
    """Some categorical split sends every known category one way and NaN the other (an
    empty bitset): the model keeps a node for it, so NaN still goes as in scikit-learn."""
    found = 0
    for seed in range(24):
        est, _ = _random_hgb(seed)
        for it in est._predictors:
            for p in it:
                cat = p.nodes[(p.nodes["is_categorical"] == 1) & (p.nodes["is_leaf"] == 0)]
                for node in cat:
                    bits = p.raw_left_cat_bitsets[node["bitset_idx"]]
                    found += int(not bits.any() and node["missing_go_to_left"])
    assert found > 0


@pytest.mark.slow
def test_no_missing_at_fit_still_routes_nan() -> None:
    """Trained without NaN: a NaN goes to the child that saw more samples, as scikit-learn."""
    for seed in range(10):
        est, X = _random_hgb(seed, nan=False)
        model = read_hist_gradient_boosting(est)
        P = X[:40].copy()
        P[::2, 1] = NAN
        P[1::3, 0] = NAN
        P[::5, 2] = NAN
        assert model.predict_batch(P).tolist() == est.predict(P).tolist(), seed


@pytest.mark.slow
@pytest.mark.parametrize("name", DATASETS)
def test_every_row_of_datasets(name: str) -> None:
    """Every row, with 5% of the values missing in training and in half the rows predicted;
    the first two columns categorical when they have few values."""
    data = load_dataset(name, data_dir=shared_path("datasets"))
    X = np.asarray(data.X, dtype=float)
    rng = np.random.default_rng(0)
    holes = X.copy()
    holes[rng.random(X.shape) < 0.05] = NAN
    small = [j for j in range(2) if len(np.unique(X[:, j])) <= 12]
    est = HistGradientBoostingClassifier(
        max_iter=8, categorical_features=small or None, random_state=0
    ).fit(holes, data.y)
    model = read_hist_gradient_boosting(est)
    for rows in (X, holes):
        assert model.predict_batch(rows).tolist() == est.predict(rows).tolist()
        assert (model.scores(rows) == est._raw_predict(rows)).all()


def test_string_categories_and_declared_unknowns() -> None:
    """A pandas categorical column of strings: the feature is over the known categories,
    read by code; a declared value unknown at fit goes where a missing value goes."""
    rng = np.random.default_rng(3)
    n = 300
    df = pd.DataFrame(
        {
            "colour": pd.Categorical(rng.choice(["red", "green", "blue"], n)),
            "size": rng.integers(0, 5, n).astype(float),
        }
    )
    y = ((df.colour == "green") ^ (df["size"] > 2)).to_numpy()
    est = HistGradientBoostingClassifier(max_iter=8, random_state=0).fit(df, y)
    model = read_hist_gradient_boosting(est)
    assert model.features[0] == Feature.categorical("colour", ["blue", "green", "red"])
    assert model.features[1] == Feature.real("size")
    grid = pd.DataFrame(
        list(itertools.product(["blue", "green", "red"], range(5))), columns=["colour", "size"]
    )
    grid["size"] = grid["size"].astype(float)
    grid["colour"] = pd.Categorical(grid["colour"])
    rows = grid.to_numpy(object)
    assert model.predict_batch(rows).tolist() == est.predict(grid).tolist()
    declared = [Feature.categorical("colour", ["blue", "green", "red", "pink"]), Feature.real("s")]
    wide = read_hist_gradient_boosting(est, declared)
    pink = pd.DataFrame({"colour": pd.Categorical(["pink"] * 5), "size": np.arange(5.0)})
    assert wide.predict_batch(pink.to_numpy(object)).tolist() == est.predict(pink).tolist()
    known = ["blue", "green", "red"]
    missing = pd.DataFrame(
        {"colour": pd.Categorical([None] * 5, categories=known), "size": np.arange(5.0)}
    )
    assert wide.predict_batch(pink.to_numpy(object)).tolist() == est.predict(missing).tolist()


@pytest.mark.slow
@pytest.mark.parametrize("n_classes", [2, 3])
def test_explanations_equal_brute_force(n_classes: int) -> None:
    """Every AXp and CXp of 12 small models on 3 instances each, against exhaustive
    evaluation of the estimator's own predict over the domains."""
    compared = 0
    for seed in range(12):
        rng = np.random.default_rng(seed)
        n = 120
        X = np.column_stack(
            [rng.choice([1.0, 4.0, 6.0], n), rng.integers(0, 3, n), rng.integers(0, 2, n)]
        ).astype(float)
        X[rng.random(n) < 0.1, 1] = NAN
        score = (X[:, 0] == 4) + np.nan_to_num(X[:, 1]) - X[:, 2] + rng.normal(0, 0.8, n)
        y = np.digitize(score, np.quantile(score, np.linspace(0, 1, n_classes + 1)[1:-1]))
        est = HistGradientBoostingClassifier(
            max_iter=3,
            max_depth=2,
            categorical_features=[0],
            min_samples_leaf=3,
            learning_rate=0.7,
            random_state=seed,
        ).fit(X, y)
        feats = [
            Feature.categorical("c", [1.0, 4.0, 6.0]),
            Feature.integer("i", 0, 2),
            Feature.boolean("b"),
        ]
        model = read_hist_gradient_boosting(est, feats)
        for point in rng.choice(len(X), 3, replace=False):
            x = {"c": X[point, 0], "i": int(rng.integers(0, 3)), "b": int(X[point, 2])}
            oracle = ensemble_oracle(est, feats, x)
            with xpg.Explainer(model).explain(x) as ex:
                row = np.array([[x["c"], x["i"], x["b"]]])
                assert ex.prediction == est.predict(row)[0]
                result = ex.enumerate()
                assert result.complete
                assert {frozenset(a) for a in result.axps} == oracle.axps, seed
                assert {frozenset(c) for c in result.cxps} == oracle.cxps, seed
            compared += 1
    assert compared == 36


def test_refused() -> None:
    X = np.array([[0.0, 1.0], [1.0, 0.0], [1.0, 1.0], [0.0, 0.0]] * 10)
    y = [0, 1, 1, 0] * 10
    cases = [
        (HistGradientBoostingRegressor(max_iter=3).fit(X, y), UnsupportedModelError, "regressor"),
        (HistGradientBoostingClassifier(), InvalidModelError, "not fitted"),
        (RandomForestClassifier(2).fit(X, y), InvalidModelError, "found sklearn"),
    ]
    stopped = HistGradientBoostingClassifier(max_iter=3).fit(X, y)
    stopped._in_fit = True
    cases.append((stopped, UnsupportedModelError, "_in_fit"))
    for est, error, words in cases:
        with pytest.raises(error, match=words) as info:
            read_hist_gradient_boosting(est)
        assert "\n" not in str(info.value)
    cat = HistGradientBoostingClassifier(max_iter=3, categorical_features=[0]).fit(X, y)
    with pytest.raises(InvalidModelError, match="expected 2 features"):
        read_hist_gradient_boosting(cat, [Feature.real("a")])
    with pytest.raises(InvalidModelError, match="expected a categorical feature"):
        read_hist_gradient_boosting(cat, [Feature.real("a"), Feature.real("b")])
