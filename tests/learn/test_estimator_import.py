"""Trained scikit-learn trees imported from skops and pickle files (issue 14, item 1): only the
expected types are trusted, pickles need consent, and the imported model predicts what the
estimator predicts on every row."""

from __future__ import annotations

import fractions
import json
from pathlib import Path
from typing import Any

import joblib
import numpy as np
import pandas as pd
import pytest
import skops.io as sio
from conftest import shared_path
from sklearn.ensemble import (
    ExtraTreesClassifier,
    GradientBoostingClassifier,
    GradientBoostingRegressor,
    RandomForestClassifier,
)
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor, export_text

from xpg.errors import InvalidDataError, InvalidModelError, ParseError
from xpg.io import read_model, save_model
from xpg.learn import import_sklearn_tree, load_estimator
from xpg.learn.estimator_import import read_feature_spec

COMPAS = "interpretable-robust-trees/compasbin_data.csv.gz"
COMPAS_TARGET = "recidivate-within-two-years:1"


def compas() -> pd.DataFrame:
    return pd.read_csv(shared_path("datasets", COMPAS))


def object_rows(frame: pd.DataFrame) -> np.ndarray:
    X = np.empty(frame.shape, dtype=object)
    X[:] = frame.to_numpy().tolist()
    return X


@pytest.fixture(scope="module")
def named_tree() -> tuple[DecisionTreeClassifier, pd.DataFrame]:
    """A tree fitted with COMPAS's column names (':=', '<', '>') and string classes."""
    frame = compas()
    X = frame.drop(columns=COMPAS_TARGET)
    y = np.where(frame[COMPAS_TARGET] == 1, "reoffends", "does not")
    return DecisionTreeClassifier(max_depth=8, random_state=0).fit(X, y), X


@pytest.mark.parametrize("route", ["skops", "pickle", "joblib"])
def test_every_row_predicted_as_sklearn_does(
    route: str, named_tree: tuple[DecisionTreeClassifier, pd.DataFrame], tmp_path: Path
) -> None:
    clf, X = named_tree
    path = tmp_path / {"skops": "t.skops", "pickle": "t.pkl", "joblib": "t.joblib"}[route]
    if route == "skops":
        sio.dump(clf, path)
    else:
        joblib.dump(clf, path)
    tree = import_sklearn_tree(
        path,
        features_from=shared_path("datasets", COMPAS),
        target=COMPAS_TARGET,
        trust_pickle=route != "skops",
    )
    assert [f.name for f in tree.features] == list(X.columns)
    assert {f.kind for f in tree.features} == {"boolean"}
    out = tmp_path / "m.json"
    save_model(tree, out)
    model = read_model(out)
    assert model.predict_batch(object_rows(X)).tolist() == clf.predict(X).tolist()
    for row, expected in list(zip(X.to_dict("records"), clf.predict(X), strict=True))[:200]:
        assert model.predict(row) == expected


def test_default_features_are_real_and_named_after_the_columns(
    named_tree: tuple[DecisionTreeClassifier, pd.DataFrame], tmp_path: Path
) -> None:
    clf, X = named_tree
    tree = import_sklearn_tree(clf)
    assert [(f.name, f.kind) for f in tree.features] == [(c, "real") for c in X.columns]
    rng = np.random.default_rng(0)
    noisy = X.to_numpy(float) + rng.normal(scale=0.6, size=X.shape)  # off the 0/1 grid
    assert (
        tree.predict_batch(noisy).tolist()
        == clf.predict(pd.DataFrame(noisy, columns=X.columns)).tolist()
    )
    unnamed = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X.to_numpy(), clf.predict(X))
    assert [f.name for f in import_sklearn_tree(unnamed).features] == [
        f"x{i}" for i in range(X.shape[1])
    ]


def test_features_from_a_table_without_column_names(tmp_path: Path) -> None:
    """Matched by column order, less the target; integers keep their observed range."""
    frame = pd.read_csv(shared_path("datasets", "xdl-tool/mouse.csv.gz"))
    X, y = frame.drop(columns=" animal").to_numpy(), frame[" animal"].to_numpy()
    clf = DecisionTreeClassifier(random_state=0).fit(X, y)
    path = tmp_path / "mouse.skops"
    sio.dump(clf, path)
    data = shared_path("datasets", "xdl-tool/mouse.csv.gz")
    tree = import_sklearn_tree(path, features_from=data, target=" animal")
    assert [(f.name, f.kind, f.low) for f in tree.features][0] == ("f1", "integer", X[:, 0].min())
    assert tree.predict_batch(X).tolist() == clf.predict(X).tolist()
    with pytest.raises(InvalidModelError, match="expected 5 feature columns .* found 6 .*target"):
        import_sklearn_tree(path, features_from=data)


def test_feature_spec_file(
    named_tree: tuple[DecisionTreeClassifier, pd.DataFrame], tmp_path: Path
) -> None:
    clf, X = named_tree
    spec = [{"name": c, "type": "boolean"} for c in reversed(X.columns)]  # order by name
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(spec))
    tree = import_sklearn_tree(clf, features=read_feature_spec(path))
    assert [f.name for f in tree.features] == list(X.columns)
    assert tree.predict_batch(object_rows(X)).tolist() == clf.predict(X).tolist()
    path.write_text(json.dumps({"features": spec[:-1]}))
    with pytest.raises(InvalidModelError, match="expected 12 features .* found 11"):
        import_sklearn_tree(clf, features=read_feature_spec(path))
    path.write_text(json.dumps([*spec[:-1], {"name": "other", "type": "boolean"}]))
    with pytest.raises(InvalidModelError, match="named as the estimator's columns"):
        import_sklearn_tree(clf, features=read_feature_spec(path))
    path.write_text("[{")
    with pytest.raises(ParseError, match="spec.json:1: malformed JSON"):
        read_feature_spec(path)
    path.write_text('[{"name": "a", "type": "colour"}]')
    with pytest.raises(InvalidModelError, match="features\\[0\\]: expected 'type'"):
        read_feature_spec(path)


def test_untrusted_types_are_refused(tmp_path: Path) -> None:
    clf = DecisionTreeClassifier(max_depth=2).fit([[0], [1]], [0, 1])
    clf.note = fractions.Fraction(1, 3)  # type: ignore[attr-defined]
    path = tmp_path / "t.skops"
    sio.dump(clf, path)
    with pytest.raises(InvalidModelError, match="refusing to load: .*: fractions.Fraction$"):
        load_estimator(path)


def test_functions_are_not_types(tmp_path: Path) -> None:
    """Functions of numpy or of scikit-learn's tree package are not trusted, classes are."""
    clf = DecisionTreeClassifier(max_depth=2).fit([[0], [1]], [0, 1])
    clf.loader = np.load  # type: ignore[attr-defined]
    clf.export = export_text  # type: ignore[attr-defined]
    path = tmp_path / "t.skops"
    sio.dump(clf, path)
    with pytest.raises(
        InvalidModelError, match="need: numpy.load, sklearn.tree._export.export_text$"
    ):
        load_estimator(path)
    del clf.loader, clf.export  # type: ignore[attr-defined]
    clf.scale = np.float32(1.5)  # type: ignore[attr-defined]
    sio.dump(clf, path)
    assert load_estimator(path).scale == np.float32(1.5)


def test_pickle_needs_consent(tmp_path: Path) -> None:
    clf = DecisionTreeClassifier(max_depth=2).fit([[0], [1]], [0, 1])
    path = tmp_path / "t.pkl"
    joblib.dump(clf, path)
    with pytest.raises(InvalidModelError, match="refusing to unpickle: .* --trust-pickle"):
        load_estimator(path)
    assert load_estimator(path, trust_pickle=True).predict([[1]]).tolist() == [1]


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: DecisionTreeRegressor().fit([[0], [1]], [0.0, 1.0]), "found sklearn.tree"),
        (
            lambda: GradientBoostingRegressor(n_estimators=2).fit([[0], [1]], [0.0, 1.0]),
            "expected one of DecisionTreeClassifier, .*found sklearn.ensemble",
        ),
        (lambda: DecisionTreeClassifier(), "not fitted"),
        (
            lambda: DecisionTreeClassifier().fit([[0], [1]], [[0, 1], [1, 0]]),
            "single-output",
        ),
    ],
    ids=["regressor", "boosted-regressor", "unfitted", "multi-output"],
)
def test_not_a_fitted_classifier_tree(make: Any, message: str, tmp_path: Path) -> None:
    path = tmp_path / "e.skops"
    sio.dump(make(), path)
    with pytest.raises(InvalidModelError, match=message):
        load_estimator(path)


def test_bad_files(tmp_path: Path) -> None:
    with pytest.raises(InvalidModelError, match="no such estimator file"):
        load_estimator(tmp_path / "none.skops")
    (tmp_path / "t.onnx").write_text("x")
    with pytest.raises(InvalidModelError, match="unknown estimator file"):
        load_estimator(tmp_path / "t.onnx")
    (tmp_path / "t.skops").write_text("not a zip")  # recognised by content, not by name
    with pytest.raises(InvalidModelError, match="unknown estimator file"):
        load_estimator(tmp_path / "t.skops")
    (tmp_path / "cut.skops").write_bytes(b"PK\x03\x04truncated")
    with pytest.raises(InvalidModelError, match="not a skops file"):
        load_estimator(tmp_path / "cut.skops")
    (tmp_path / "t.pkl").write_bytes(b"\x80\x04garbage")
    with pytest.raises(InvalidModelError, match="cannot unpickle"):
        load_estimator(tmp_path / "t.pkl", trust_pickle=True)


def test_text_columns_and_absent_columns_are_refused(
    named_tree: tuple[DecisionTreeClassifier, pd.DataFrame],
) -> None:
    clf, X = named_tree
    with pytest.raises(InvalidModelError, match="lacks: \\['priors:>3'\\]"):
        import_sklearn_tree(clf, features_from=X.drop(columns="priors:>3"))
    texty = X.assign(**{"priors:=0": np.where(X["priors:=0"] == 1, "yes", "no")})
    with pytest.raises(InvalidModelError, match="'priors:=0'.* hold text"):
        import_sklearn_tree(clf, features_from=texty)
    with pytest.raises(InvalidDataError, match="no target column named 'nope'"):
        import_sklearn_tree(clf, features_from=X, target="nope")


@pytest.mark.parametrize(
    "cls",
    [RandomForestClassifier, ExtraTreesClassifier, GradientBoostingClassifier],
    ids=lambda c: c.__name__,
)
def test_ensembles_import_from_skops_and_pickle(cls: Any, tmp_path: Path) -> None:
    from xpg.learn.estimator_import import import_sklearn_model

    frame = compas()
    X, y = frame.drop(columns=[COMPAS_TARGET]), frame[COMPAS_TARGET]
    est = cls(n_estimators=8, max_depth=3, random_state=0).fit(X, y)
    path = tmp_path / "e.skops"
    sio.dump(est, path)
    model = import_sklearn_model(path, features_from=frame, target=COMPAS_TARGET)
    assert [f.name for f in model.features] == list(X.columns)
    assert model.predict_batch(X.to_numpy()).tolist() == est.predict(X).tolist()
    pickled = tmp_path / "e.joblib"
    joblib.dump(est, pickled)
    with pytest.raises(InvalidModelError, match="refusing to unpickle"):
        import_sklearn_model(pickled)
    again = import_sklearn_model(pickled, trust_pickle=True)
    assert again.predict_batch(X.to_numpy()[:50]).tolist() == est.predict(X[:50]).tolist()
    with pytest.raises(InvalidModelError, match="expected a fitted DecisionTreeClassifier"):
        import_sklearn_tree(path)
