"""Pipelines (ColumnTransformer then a tree model) as models over the original columns.

Checked against ``pipeline.predict`` itself on DataFrames of strings and numbers: every row
and every point of the small domains, for every supported final model, with one-hot
``drop``, infrequent categories and unknown-category handling; explanations name the
original columns and equal brute force through ``pipeline.predict``; refusals are one line.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import (
    ExtraTreesClassifier,
    GradientBoostingClassifier,
    GradientBoostingRegressor,
    HistGradientBoostingClassifier,
    RandomForestClassifier,
)
from sklearn.impute import SimpleImputer
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, OrdinalEncoder, StandardScaler
from sklearn.tree import DecisionTreeClassifier

import xpg
from xpg.core.features import Feature
from xpg.errors import InvalidModelError, UnsupportedModelError
from xpg.models.gbdt import GBDT
from xpg.models.import_pipeline import read_pipeline
from xpg.testing.oracle import Oracle


def _xgb(seed: int):
    xgboost = pytest.importorskip("xgboost")
    return xgboost.XGBClassifier(n_estimators=4, max_depth=3, random_state=seed)


def _lgbm(seed: int):
    lightgbm = pytest.importorskip("lightgbm")
    return lightgbm.LGBMClassifier(
        n_estimators=4, num_leaves=6, min_child_samples=3, random_state=seed, verbose=-1
    )


MODELS = {
    "tree": lambda s: DecisionTreeClassifier(max_depth=4, random_state=s),
    "forest": lambda s: RandomForestClassifier(4, max_depth=3, random_state=s),
    "extra-trees": lambda s: ExtraTreesClassifier(4, max_depth=3, random_state=s),
    "boosted": lambda s: GradientBoostingClassifier(n_estimators=4, max_depth=2, random_state=s),
    "hist": lambda s: HistGradientBoostingClassifier(max_iter=4, max_depth=3, random_state=s),
    "xgboost": _xgb,
    "lightgbm": _lgbm,
}
#: the small domain of the passthrough column
X_FEATURE = Feature.integer("x", 0, 3)


def _data(seed: int, n_classes: int, n: int = 120) -> tuple[pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {
            "c": rng.choice(["a", "b", "z", "q"], n, p=[0.4, 0.35, 0.2, 0.05]),
            "o": rng.choice(["lo", "mid", "hi"], n),
            "k": rng.integers(1, 4, n),
            "x": rng.integers(0, 4, n),
            "d": rng.normal(size=n),
        }
    )
    score = (df.c == "b") * 1.0 + (df.o == "hi") + df.x * 0.5 + rng.normal(size=n) * 0.7
    y = np.clip(score.astype(int).to_numpy(), 0, n_classes - 1)
    y[:n_classes] = np.arange(n_classes)
    return df, y


def _pipeline(seed: int, kind: str, n_classes: int):
    df, y = _data(seed, n_classes)
    onehot = OneHotEncoder(
        drop=[None, "first", "if_binary"][seed % 3],
        min_frequency=[None, 8][seed % 2],
        handle_unknown="infrequent_if_exist" if seed % 2 else "ignore",
    )
    ct = ColumnTransformer(
        [("onehot", onehot, ["c", "k"]), ("ordinal", OrdinalEncoder(), ["o"])],
        remainder="passthrough" if seed % 2 else "drop",
    )
    if seed % 2 == 0:  # "x" by name, "d" dropped; else both by the remainder
        ct = ColumnTransformer([*ct.transformers, ("keep", "passthrough", ["x"])], remainder="drop")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pipe = make_pipeline(ct, MODELS[kind](seed)).fit(df, y)
    return pipe, df


def _grid(model, df: pd.DataFrame) -> pd.DataFrame:
    axes = [f.values if f.is_discrete else range(4) for f in model.features]
    names = [f.name for f in model.features]
    grid = pd.DataFrame(list(itertools.product(*axes)), columns=names)
    for c in df.columns:
        if c not in grid:
            grid[c] = df[c].iloc[0]
    return grid[list(df.columns)]


def _predict(pipe, rows):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pipe.predict(rows)


@pytest.mark.slow
@pytest.mark.parametrize("kind", list(MODELS))
def test_predict_equals_pipeline_on_every_row_and_point(kind: str) -> None:
    for seed in range(6):
        n_classes = 2 + seed % 2
        pipe, df = _pipeline(seed, kind, n_classes)
        declared = [X_FEATURE, Feature.real("d")]
        model = read_pipeline(pipe, declared)
        names = [f.name for f in model.features]
        assert names == (["c", "o", "k", "x"] if seed % 2 == 0 else ["c", "o", "k", "x", "d"])
        assert model.features[0] == Feature.categorical("c", ["a", "b", "q", "z"])
        assert model.features[2] == Feature.categorical("k", [1, 2, 3])
        if kind in ("hist", "xgboost", "lightgbm"):
            assert isinstance(model, GBDT)
        rows = df[names].to_numpy(object)
        assert model.predict_batch(rows).tolist() == _predict(pipe, df).tolist(), seed
        grid = _grid(model, df)
        expected = _predict(pipe, grid).tolist()
        assert model.predict_batch(grid[names].to_numpy(object)).tolist() == expected, seed
        assert len(expected) >= 144


def _oracle(pipe, model, df: pd.DataFrame, x: dict) -> Oracle:
    fixed = {c: df[c].iloc[0] for c in df.columns}

    def many(points):
        frame = pd.DataFrame([{**fixed, **p} for p in points])[list(df.columns)]
        return [v.item() if isinstance(v, np.generic) else v for v in _predict(pipe, frame)]

    grid = {f.name: list(f.values) if f.is_discrete else list(range(4)) for f in model.features}
    return Oracle.of_model(lambda p: many([p])[0], model.features, grid, x, predict_many=many)


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["tree", "forest", "hist", "xgboost", "lightgbm"])
def test_explanations_name_original_columns_and_equal_brute_force(kind: str) -> None:
    compared = 0
    for seed in (0, 2, 4):
        pipe, df = _pipeline(seed, kind, 2 + seed % 4 // 2)
        model = read_pipeline(pipe, [X_FEATURE])
        names = {f.name for f in model.features}
        for r in (0, 7, 19):
            x = {f.name: df[f.name].iloc[r] for f in model.features}
            x = {k: v.item() if isinstance(v, np.generic) else v for k, v in x.items()}
            oracle = _oracle(pipe, model, df, x)
            with xpg.Explainer(model).explain(x) as ex:
                result = ex.enumerate()
                assert result.complete
                axps = {frozenset(a) for a in result.axps}
                assert all(a <= names for a in axps)
                assert axps == oracle.axps, (seed, r)
                assert {frozenset(c) for c in result.cxps} == oracle.cxps, (seed, r)
            compared += 1
    assert compared == 9


def test_a_pipeline_of_the_model_alone() -> None:
    df, y = _data(5, 2)
    X = df[["k", "x"]]
    pipe = make_pipeline(RandomForestClassifier(3, max_depth=3, random_state=0)).fit(X, y)
    model = read_pipeline(pipe)
    assert [f.name for f in model.features] == ["k", "x"]
    assert model.predict_batch(X.to_numpy()).tolist() == pipe.predict(X).tolist()


def _one_line(call, error, words) -> None:
    with pytest.raises(error, match=words) as info:
        call()
    assert "\n" not in str(info.value)


def test_refused_with_one_line() -> None:
    df, y = _data(1, 2)
    ct = ColumnTransformer([("onehot", OneHotEncoder(), ["c"]), ("keep", "passthrough", ["x"])])
    scaled = make_pipeline(ct, StandardScaler(with_mean=False), RandomForestClassifier(2))
    _one_line(lambda: read_pipeline(scaled.fit(df, y)), UnsupportedModelError, "'standardscaler'")
    inner = ColumnTransformer(
        [("onehot", OneHotEncoder(), ["c"]), ("num", SimpleImputer(), ["x", "d"])]
    )
    imputed = make_pipeline(inner, RandomForestClassifier(2)).fit(df, y)
    _one_line(lambda: read_pipeline(imputed), UnsupportedModelError, "'num'.*SimpleImputer")
    regressor = make_pipeline(ct, GradientBoostingRegressor(n_estimators=2)).fit(df, y)
    _one_line(lambda: read_pipeline(regressor), UnsupportedModelError, "regressor")
    unfitted = make_pipeline(ct, RandomForestClassifier(2))
    _one_line(lambda: read_pipeline(unfitted), InvalidModelError, "not fitted")
    _one_line(lambda: read_pipeline(RandomForestClassifier()), InvalidModelError, "Pipeline")
    ok = make_pipeline(ct, RandomForestClassifier(2, random_state=0)).fit(df, y)
    _one_line(lambda: read_pipeline(ok, [Feature.real("nope")]), InvalidModelError, "'nope'")
    _one_line(
        lambda: read_pipeline(ok, [Feature.categorical("c", ["a", "new"])]),
        InvalidModelError,
        "refuses a declared value",
    )
