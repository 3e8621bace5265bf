"""Models from data tables (issue 14, item 1): typing, encoding, missing values, the split, and
models that predict exactly what scikit-learn's tree predicts on every row."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from conftest import shared_path
from sklearn.tree import DecisionTreeClassifier

from xpg.core.feature_space import FeatureGroup
from xpg.errors import InvalidDataError, InvalidModelError, MissingExtraError
from xpg.io import model_to_dict, read_model, save_model
from xpg.learn import learn_list_from_table, learn_tree_from_table, prepare_table
from xpg.learn.from_table import split_rows

#: (file under ../shared/datasets, target column)
TABLES = [
    ("interpretable-robust-trees/compasbin_data.csv.gz", "recidivate-within-two-years:1"),
    ("xreason/compas.csv.gz", "Two_yr_Recidivism"),
    ("xdl-tool/mouse.csv.gz", " animal"),
    ("pmlb/adult.tsv.gz", "target"),
    ("pmlb/car.tsv.gz", "target"),
]


def object_rows(values: list[list[Any]]) -> np.ndarray:
    X = np.empty((len(values), len(values[0]) if values else 0), dtype=object)
    X[:] = values
    return X


def mixed_frame(seed: int, rows: int = 300) -> pd.DataFrame:
    """Categorical strings, names with '=', ',' and spaces, a target that needs them."""
    rng = np.random.default_rng(seed)
    colour = rng.choice(["red", "green", "blue", "dark grey"], rows)
    return pd.DataFrame(
        {
            "priors:=0": rng.integers(0, 2, rows),
            "colour, main": colour,
            "age in years": rng.integers(18, 90, rows),
            "ratio=a/b": np.round(rng.normal(size=rows), 3),
            "y": np.where(
                (colour == "green") | ((colour == "dark grey") & (rng.random(rows) < 0.7)),
                "yes",
                "no",
            ),
        }
    )


@pytest.mark.parametrize(("name", "target"), TABLES, ids=[t[0] for t in TABLES])
def test_the_tree_predicts_what_sklearn_predicts_on_every_row(
    name: str, target: str, tmp_path: Path
) -> None:
    learned = learn_tree_from_table(shared_path("datasets", name), target, max_depth=6, seed=0)
    data, clf = learned.data, learned.estimator
    out = tmp_path / "model.json"
    save_model(learned.model, out)
    model = read_model(out)
    assert [f.name for f in model.features] == [f.name for f in data.features]
    expected = clf.predict(data.X)
    got = model.predict_batch(object_rows(data.values))
    assert got.tolist() == expected.tolist()
    for i in np.random.default_rng(1).choice(len(data.values), 100):
        assert model.predict(data.values[i]) == expected[i]
    report = learned.report
    assert report.train_accuracy == pytest.approx(
        clf.score(data.X[learned.train], data.y[learned.train])
    )
    assert report.test_accuracy == pytest.approx(
        clf.score(data.X[learned.test], data.y[learned.test])
    )
    assert report.size["depth"] <= 6 and report.size["nodes"] == len(model)


def test_feature_names_and_categories_survive_into_the_file(tmp_path: Path) -> None:
    frame = mixed_frame(0)
    learned = learn_tree_from_table(frame, "y", max_depth=4, seed=0)
    out = tmp_path / "m.json"
    save_model(learned.model, out)
    doc = json.loads(out.read_text())
    assert [(f["name"], f["type"]) for f in doc["features"]] == [
        ("priors:=0", "boolean"),
        ("colour, main", "categorical"),
        ("age in years", "integer"),
        ("ratio=a/b", "real"),
    ]
    assert doc["features"][1]["values"] == ["blue", "dark grey", "green", "red"]
    assert doc["features"][2]["low"] == frame["age in years"].min()
    text = out.read_text()
    assert '"feature": "colour, main"' in text and '"in": [' in text
    assert "colour, main=" not in text  # the encoded columns never reach the model
    assert learned.report.features_used[0] == "colour, main"
    model = read_model(out)
    rows = frame.drop(columns="y").to_dict("records")
    assert [model.predict(r) for r in rows] == learned.estimator.predict(learned.data.X).tolist()


@pytest.mark.parametrize("encoding", ["one-hot", "ordinal"])
def test_the_encoded_matrix_is_the_table_encoded(encoding: str) -> None:
    """Checked against the raw DataFrame, column by column, independently of FeatureGroup."""
    frame = mixed_frame(1)
    data = prepare_table(frame, "y", encoding=encoding)  # type: ignore[arg-type]
    cats = sorted(set(frame["colour, main"]))
    if encoding == "one-hot":
        dummies = [(frame["colour, main"] == c).astype(float).to_numpy() for c in cats]
    else:
        dummies = [frame["colour, main"].map({c: i for i, c in enumerate(cats)}).to_numpy(float)]
    expected = np.column_stack(
        [frame["priors:=0"], *dummies, frame["age in years"], frame["ratio=a/b"]]
    ).astype(float)
    assert np.array_equal(data.X, expected)
    assert isinstance(data.entries[1], FeatureGroup) and len(data.columns) == expected.shape[1]
    learned = learn_tree_from_table(frame, "y", encoding=encoding, seed=3)  # type: ignore[arg-type]
    got = learned.model.predict_batch(object_rows(learned.data.values))
    assert got.tolist() == learned.estimator.predict(expected).tolist()


def test_column_names_that_look_like_encoded_columns() -> None:
    """A column literally named 'c=a' beside a categorical 'c' with the value 'a'."""
    frame = pd.DataFrame({"c": ["a", "b"] * 10, "c=a": [0, 1] * 10, "y": [1, 0, 0, 1] * 5})
    data = prepare_table(frame, "y")
    assert data.columns == ["c=a#2", "c=b", "c=a"]
    learned = learn_tree_from_table(frame, "y", test_size=0)
    assert learned.model.predict_batch(object_rows(data.values)).tolist() == (
        learned.estimator.predict(data.X).tolist()
    )


def test_types_inferred_from_columns() -> None:
    frame = pd.DataFrame(
        {
            "flag": [True, False, True, False],
            "bit": [0.0, 1.0, 1.0, 0.0],
            "count": [3, 7, -2, 5],
            "whole floats": [1.0, 2.0, 3.0, 4.0],
            "real": [0.5, 1.0, 2.25, 3.0],
            "digits as text": ["1", "2", "x", "2"],
            "one value": [5, 5, 5, 5],
            "y": ["a", "b", "a", "b"],
        }
    )
    data = prepare_table(frame, "y")
    kinds = [(f.kind, f.low, f.high) if f.kind == "integer" else f.kind for f in data.features]
    assert kinds == [
        "boolean",
        "boolean",
        ("integer", -2.0, 7.0),
        ("integer", 1.0, 4.0),
        "real",
        "categorical",
        ("integer", 5.0, 5.0),
    ]
    assert data.values[0] == [1, 0, 3, 1, 0.5, "1", 5]
    assert data.features[5].values == ("1", "2", "x")


def test_missing_values_drop_rows_or_columns() -> None:
    rng = np.random.default_rng(2)
    frame = pd.DataFrame(
        {"a": rng.integers(0, 5, 50).astype(float), "b": rng.choice(["u", "v"], 50)}
    )
    frame["y"] = np.where(frame["a"] > 2, "hi", "lo")
    frame.loc[[3, 7, 11], "a"] = np.nan
    frame.loc[[7, 20], "b"] = None
    frame.loc[[30], "y"] = None
    data = prepare_table(frame, "y")
    assert (data.source_rows, data.dropped_rows, len(data.values)) == (50, 5, 45)
    assert data.features[0].kind == "integer"  # NaN made the column float; the rest are whole
    with pytest.raises(InvalidDataError, match="every feature column has a missing value"):
        prepare_table(frame, "y", missing="drop-columns")
    by_columns = prepare_table(frame.assign(c=1), "y", missing="drop-columns")
    assert by_columns.dropped_columns == ["a", "b"]
    assert [f.name for f in by_columns.features] == ["c"] and by_columns.dropped_rows == 1
    learned = learn_tree_from_table(frame, "y")
    assert learned.report.dropped_rows == 5
    assert "5 dropped for a missing value" in "\n".join(learned.report.lines())


def test_no_rows_and_no_target_are_named(tmp_path: Path) -> None:
    empty = pd.DataFrame({"a": pd.Series([], dtype=float), "y": pd.Series([], dtype=int)})
    with pytest.raises(InvalidDataError, match="^the table has no rows") as err:
        prepare_table(empty, "y")
    assert "missing value" not in str(err.value)
    (tmp_path / "t.csv").write_text("a,y\n")
    with pytest.raises(InvalidDataError, match="^the table has no rows"):
        prepare_table(tmp_path / "t.csv", "y")
    unlabelled = pd.DataFrame({"a": [1.0, 2.0, 3.0], "y": [None, None, None]})
    for missing in ("drop-rows", "drop-columns"):
        with pytest.raises(InvalidDataError, match="target column 'y' is missing in every row"):
            prepare_table(unlabelled, "y", missing=missing)


def test_the_same_model_from_csv_tsv_jsonl_and_parquet(tmp_path: Path) -> None:
    frame = mixed_frame(4)
    docs = []
    for name, write in [
        ("t.csv", lambda p: frame.to_csv(p, index=False)),
        ("t.tsv.gz", lambda p: frame.to_csv(p, index=False, sep="\t")),
        ("t.jsonl", lambda p: frame.to_json(p, orient="records", lines=True)),
        ("t.parquet", lambda p: frame.to_parquet(p)),
    ]:
        write(tmp_path / name)
        docs.append(model_to_dict(learn_tree_from_table(tmp_path / name, "y").model))
    assert all(d == docs[0] for d in docs)


def test_split_is_seeded_and_stratified_when_possible() -> None:
    y = np.array([0] * 32 + [1] * 8)
    a = split_rows(y, 0.25, 5)
    b = split_rows(y, 0.25, 5)
    assert a[0].tolist() == b[0].tolist() and a[2] is True
    assert np.bincount(y[a[1]]).tolist() == [8, 2]
    assert sorted([*a[0], *a[1]]) == list(range(40))
    y1 = np.array([0] * 30 + [1])  # a class of one row cannot be stratified
    assert split_rows(y1, 0.2, 0)[2] is False
    train, test, stratified = split_rows(y, 0.0, 0)
    assert len(train) == 40 and len(test) == 0 and not stratified
    with pytest.raises(InvalidDataError, match="in \\[0, 1\\)"):
        split_rows(y, 1.0, 0)


def test_no_test_set_reports_no_test_accuracy() -> None:
    learned = learn_tree_from_table(mixed_frame(5), "y", test_size=0)
    assert learned.report.test_accuracy is None and learned.report.test_rows == 0
    assert "test n/a" in "\n".join(learned.report.lines())


@pytest.mark.parametrize(
    ("frame", "target", "message"),
    [
        (pd.DataFrame({"y": [0, 1]}), "y", "only the target column"),
        (pd.DataFrame({"a": [0, 1], "y": [0, 1]}), "z", "no target column named 'z'"),
        (pd.DataFrame({"a": [0, 1, 2], "y": ["k", "k", "k"]}), "y", "one class"),
        (pd.DataFrame({"a": [None, None], "y": [0, 1]}), "y", "no row left"),
        (pd.DataFrame({"a": [0, np.inf], "y": [0, 1]}), "y", "infinity"),
    ],
    ids=["one-column", "no-target", "one-class", "all-missing", "infinity"],
)
def test_bad_tables(frame: pd.DataFrame, target: str, message: str) -> None:
    with pytest.raises((InvalidDataError, InvalidModelError), match=message):
        learn_tree_from_table(frame, target)


@pytest.mark.slow
def test_decision_list_from_a_table(tmp_path: Path) -> None:
    path = shared_path("datasets", "interpretable-robust-trees/compasbin_data.csv.gz")
    target = "recidivate-within-two-years:1"
    learned = learn_list_from_table(path, target, positive="1", seed=0)
    model = learned.model
    assert model.rules and all(r.label == 1 for r in model.rules) and model.default == 0
    out = tmp_path / "list.json"
    save_model(model, out)
    again = read_model(out)
    rows = object_rows(learned.data.values)
    predicted = again.predict_batch(rows)
    assert predicted.tolist() == model.predict_batch(rows).tolist()
    # the list's meaning, computed from the rules' text in the file
    doc = json.loads(out.read_text())["model"]
    names = [f.name for f in learned.data.features]

    def first_rule(row: list[Any]) -> Any:
        for rule in doc["rules"]:
            if all(row[names.index(c["feature"])] in c["in"] for c in rule["if"]):
                return rule["then"]
        return doc["default"]

    assert predicted.tolist() == [first_rule(row) for row in learned.data.values]
    test = learned.test
    accuracy = float(np.mean(predicted[test] == learned.data.y[test]))
    assert learned.report.test_accuracy == pytest.approx(accuracy)


def test_decision_list_refuses_real_columns_and_unknown_positive() -> None:
    with pytest.raises(InvalidDataError, match="real numbers: 'ratio=a/b'"):
        learn_list_from_table(mixed_frame(0), "y")
    with pytest.raises(InvalidDataError, match="positive class 'maybe'"):
        learn_list_from_table(mixed_frame(0).drop(columns="ratio=a/b"), "y", positive="maybe")


def test_decision_list_without_wittgenstein(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "wittgenstein", None)
    with pytest.raises(MissingExtraError, match=r"'\.\[rules\]' from a clone of xpg"):
        learn_list_from_table(mixed_frame(0), "y")


def test_reading_needs_pandas(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    mixed_frame(0).to_csv(path, index=False)
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(MissingExtraError, match=r"'\.\[scale\]' from a clone of xpg"):
        learn_tree_from_table(path, "y")


def test_same_tree_as_sklearn_on_the_same_encoding() -> None:
    """An independently built estimator on the same rows and matrix gives the same model."""
    learned = learn_tree_from_table(mixed_frame(6), "y", max_depth=3, seed=7)
    data = learned.data
    clf = DecisionTreeClassifier(max_depth=3, random_state=7)
    clf.fit(data.X[learned.train], data.y[learned.train])
    assert (
        clf.predict(data.X).tolist()
        == learned.model.predict_batch(object_rows(data.values)).tolist()
    )


def test_pandas_extension_dtypes() -> None:
    """Nullable integers, the string dtype and categoricals type as their values do."""
    frame = pd.DataFrame(
        {
            "n": pd.array([1, None, 3, 4, 2, 3], dtype="Int64"),
            "s": pd.array(["a", "b", None, "a", "b", "a"], dtype="string"),
            "c": pd.Categorical(["x", "y", "x", "y", "x", "y"]),
            "y": [0, 1, 0, 1, 0, 1],
        }
    )
    data = prepare_table(frame, "y")
    assert [f.kind for f in data.features] == ["integer", "categorical", "categorical"]
    assert data.dropped_rows == 2 and data.values[0] == [1, "a", "x"]
    learned = learn_tree_from_table(frame, "y", test_size=0)
    assert learned.report.train_accuracy == 1.0
    assert learned.model.predict({"n": 2, "s": "b", "c": "y"}) == 1


def test_a_real_valued_target_is_refused_in_one_line() -> None:
    """Issue 28: a target of real numbers (a regression column) is not a class column; was
    scikit-learn's "Unknown label type: continuous", a ValueError, for every learner."""
    frame = mixed_frame(2).drop(columns="y")
    with pytest.raises(InvalidDataError) as err:
        learn_tree_from_table(frame, "ratio=a/b")
    assert str(err.value) == (
        "target 'ratio=a/b': expected a class column (categories or integers), "
        "found real numbers (283 distinct values: -2.606, -2.413, -2.343, ...)"
    )
    with pytest.raises(InvalidDataError, match="expected a class column"):
        learn_list_from_table(frame.drop(columns="colour, main"), "ratio=a/b")


def test_a_split_that_leaves_one_class_for_training_is_refused() -> None:
    """Issue 28: ``test_size=0.99`` on 100 rows trained a one-row, one-class model silently."""
    frame = mixed_frame(3, rows=100)
    with pytest.raises(InvalidDataError) as err:
        learn_tree_from_table(frame, "y", test_size=0.99)
    assert str(err.value) == (
        "test size 0.99 leaves 1 of the 100 rows for training, all of class 'no' (the table "
        "has 2 classes): a model of one class predicts nothing (use a smaller fraction)"
    )
    y = np.array([0] * 30 + [1])  # not stratified (a class of one row): the 1 may be held out
    from sklearn.model_selection import train_test_split

    rows = np.arange(len(y))
    seed = next(
        s for s in range(50) if 30 in train_test_split(rows, test_size=7, random_state=s)[1]
    )
    with pytest.raises(InvalidDataError, match="all of class 0 \\(the table has 2 classes\\)"):
        split_rows(y, 0.2, seed)
    assert len(learn_tree_from_table(frame, "y", test_size=0.9).train) == 10  # two classes
