"""XGBoost models read exactly (xpg.models.import_xgboost): margins bit for bit, predict equal
to XGBoost's on every point of small domains, on cell representatives, on NaN rows and on
real data, explanations equal to brute force through XGBoost's own predict."""

from __future__ import annotations

import gzip
import itertools
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from xpg.core.features import Feature
from xpg.errors import InvalidModelError, UnsupportedModelError
from xpg.explain.engine import Explainer
from xpg.io import read_model, save_model
from xpg.models.gbdt import GBDT
from xpg.models.import_xgboost import (
    _sigmoid32,
    logistic_cut,
    looks_like_xgboost,
    read_ubjson,
    read_xgboost,
)
from xpg.testing import domain_values
from xpg.testing.ensembles import ensemble_oracle

xgb = pytest.importorskip("xgboost")
pd = pytest.importorskip("pandas")

SHARED = Path("/work/shared")
OBJECTIVES = [
    "binary:logistic",
    "binary:logitraw",
    "binary:hinge",
    "multi:softprob",
    "multi:softmax",
]


def _random_xgb(
    seed: int, objective: str, base: float | None = None, **params: Any
) -> tuple[Any, list[Feature], np.ndarray]:
    """A fitted XGBClassifier on 3 small integer columns, the features, every domain point."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(2, 5, 3)
    feats = [
        Feature.boolean(f"f{j}") if s == 2 else Feature.integer(f"f{j}", 0, int(s) - 1)
        for j, s in enumerate(sizes)
    ]
    X = np.column_stack([rng.integers(0, s, 120) for s in sizes]).astype(float)
    score = X @ rng.normal(size=3) + rng.normal(0, 0.8, 120)
    k = 3 if objective.startswith("multi") else 2
    y = np.digitize(score, np.quantile(score, np.linspace(0, 1, k + 1)[1:-1]))
    y[:k] = np.arange(k)
    kw: dict[str, Any] = dict(
        n_estimators=int(rng.integers(5, 31)),
        max_depth=int(rng.integers(2, 5)),
        learning_rate=float(rng.uniform(0.1, 0.6)),
        objective=objective,
        random_state=seed,
        n_jobs=1,
    )
    if base is not None:
        kw["base_score"] = base
    kw.update(params)
    clf = xgb.XGBClassifier(**kw).fit(X, y)
    points = np.array(list(itertools.product(*[domain_values(f) for f in feats])), float)
    return clf, feats, points


def _margins(booster: Any, X: np.ndarray) -> np.ndarray:
    m = booster.predict(xgb.DMatrix(X), output_margin=True).astype(np.float64)
    return m.reshape(len(X), -1)


def _cell_points(model: GBDT, limit: int = 6) -> np.ndarray:
    """Per feature: each cut, the float64 just above it and a point between cuts (at most
    ``limit`` cuts per feature), all combinations, with a NaN column in some rows."""
    per: list[list[float]] = [[0.0] for _ in model.features]
    for t in model.trees:
        for j, c in zip(t.feature[t.left >= 0].tolist(), t.threshold[t.left >= 0].tolist()):
            per[j].append(c)
    axes = []
    for vals in per:
        cuts = sorted(set(vals))[:limit]
        pts = set(cuts) | {float(np.nextafter(c, np.inf)) for c in cuts}
        pts |= {(a + b) / 2 for a, b in zip(cuts, cuts[1:])} | {cuts[-1] + 1.0}
        axes.append(sorted(pts))
    P = np.array(list(itertools.product(*axes)), float)
    Q = P.copy()
    Q[:, 0] = np.nan
    R = P.copy()
    R[::2, -1] = np.nan
    return np.vstack([P, Q, R])


def _library_predict(clf: Any, X: np.ndarray) -> np.ndarray:
    return np.asarray(clf.predict(X)).astype(int)


@pytest.mark.parametrize("objective", OBJECTIVES)
def test_margins_and_predict_equal_xgboost_everywhere(objective: str) -> None:
    for seed in range(6):
        base = [None, 0.3, 0.7][seed % 3]
        clf, feats, points = _random_xgb(seed, objective, base)
        model = read_xgboost(clf, feats)
        cells = _cell_points(model)
        for X in (points, cells):
            mine = model.scores(X)
            assert np.array_equal(mine, _margins(clf.get_booster(), X)), (seed, objective)
            assert np.array_equal(model.predict_batch(X), _library_predict(clf, X))
        assert np.isnan(cells).any()


def test_logistic_cut_is_the_least_margin_xgboost_calls_class_1() -> None:
    """Leaf values at the cut and its float32 neighbours, through XGBoost itself."""
    clf, feats, _ = _random_xgb(0, "binary:logistic", 0.5, n_estimators=1, max_depth=1)
    doc = json.loads(clf.get_booster().save_raw("json"))
    tree = doc["learner"]["gradient_booster"]["model"]["trees"][0]
    c = np.float32(logistic_cut())
    below, above = np.nextafter(c, np.float32(-1)), np.nextafter(c, np.float32(1))
    tested = []
    for leaf_value in (below, c, above, np.float32(0.0), np.float32(-1e-30)):
        for k, child in enumerate(tree["left_children"]):
            if child == -1:
                tree["split_conditions"][k] = float(leaf_value)
        booster = xgb.Booster()
        booster.load_model(bytearray(json.dumps(doc).encode()))
        model = read_xgboost(json.dumps(doc).encode(), feats)
        X = np.zeros((1, 3))
        lib = int(booster.predict(xgb.DMatrix(X))[0] > 0.5)
        assert model.predict_batch(X).tolist() == [lib]
        tested.append(lib)
    assert tested == [0, 1, 1, 0, 0]
    assert _sigmoid32(c) > np.float32(0.5) >= _sigmoid32(below)


def test_softprob_ties_of_the_probabilities_as_xgboost() -> None:
    """Margins a few float32 units apart whose float32 probabilities tie: XGBoost's predict
    takes the first class, a plain argmax of the margins would take the second."""
    clf, feats, _ = _random_xgb(1, "multi:softprob", n_estimators=1, max_depth=1)
    doc = json.loads(clf.get_booster().save_raw("json"))
    doc["learner"]["learner_model_param"]["base_score"] = "[0E0,0E0,0E0]"
    trees = doc["learner"]["gradient_booster"]["model"]["trees"]
    low = np.float32(2.0**-10)
    ties = 0
    for k in range(1, 8):
        high = low + np.float32(k * 2.0**-33)
        for tree, v in zip(trees, (low, high, np.float32(-1.0))):
            for n, child in enumerate(tree["left_children"]):
                if child == -1:
                    tree["split_conditions"][n] = float(v)
        raw = json.dumps(doc).encode()
        booster = xgb.Booster()
        booster.load_model(bytearray(raw))
        X = np.zeros((1, 3))
        lib = int(np.argmax(booster.predict(xgb.DMatrix(X)), axis=1)[0])
        model = read_xgboost(raw, feats)
        assert model.scores(X).tolist() == [[float(low), float(high), -1.0]]
        assert model.predict_batch(X).tolist() == [lib]
        ties += lib == 0
    assert ties >= 3


def test_num_parallel_tree_dart_and_best_iteration() -> None:
    clf, feats, points = _random_xgb(3, "multi:softprob", num_parallel_tree=3)
    model = read_xgboost(clf, feats)
    assert len(model.trees) == 3 * 3 * clf.n_estimators
    assert np.array_equal(model.predict_batch(points), _library_predict(clf, points))
    clf, feats, points = _random_xgb(4, "binary:logistic", booster="dart")
    model = read_xgboost(clf, feats)
    assert np.array_equal(model.predict_batch(points), _library_predict(clf, points))
    clf, feats, points = _random_xgb(4, "binary:logistic", booster="dart", rate_drop=0.5)
    with pytest.raises(UnsupportedModelError, match="DART"):
        read_xgboost(clf, feats)
    # early stopping: XGBClassifier.predict uses the trees up to the best iteration
    rng = np.random.default_rng(5)
    X = rng.normal(size=(300, 3))
    y = (X[:, 0] + rng.normal(0, 2, 300) > 0).astype(int)
    clf = xgb.XGBClassifier(n_estimators=200, max_depth=3, early_stopping_rounds=3, n_jobs=1)
    clf.fit(X[:200], y[:200], eval_set=[(X[200:], y[200:])], verbose=False)
    assert clf.best_iteration + 1 < 200
    model = read_xgboost(clf)
    assert len(model.trees) == clf.best_iteration + 1
    assert np.array_equal(model.predict_batch(X), _library_predict(clf, X))


def test_categorical_splits() -> None:
    rng = np.random.default_rng(7)
    n = 400
    df = pd.DataFrame(
        {
            "colour": pd.Categorical(rng.choice(["red", "green", "blue", "grey", "pink"], n)),
            "size": pd.Categorical(rng.choice([3, 7, 11, 13], n)),
            "x": rng.integers(0, 4, n).astype(float),
        }
    )
    codes = df["colour"].cat.codes.to_numpy()
    y = ((codes % 2 == 0) ^ (df["size"].cat.codes.to_numpy() == 2) ^ (df["x"] > 1)).astype(int)
    clf = xgb.XGBClassifier(
        n_estimators=8, max_depth=3, enable_categorical=True, max_cat_to_onehot=1, n_jobs=1
    ).fit(df, y)
    model = read_xgboost(clf)
    colour, size = model.features[0], model.features[1]
    assert colour.kind == size.kind == "categorical"
    assert list(colour.values) == list(df["colour"].cat.categories)
    assert list(size.values) == [3, 7, 11, 13]
    grid = list(itertools.product(colour.values, size.values, [0.0, 1.0, 2.0, 3.0, np.nan]))
    frame = pd.DataFrame(grid, columns=["colour", "size", "x"])
    frame["colour"] = pd.Categorical(frame["colour"], categories=colour.values)
    frame["size"] = pd.Categorical(frame["size"], categories=size.values)
    rows = np.array(grid, dtype=object)
    assert np.array_equal(model.predict_batch(rows), clf.predict(frame))
    # a categorical split on a feature declared real is refused
    with pytest.raises(UnsupportedModelError, match="categorical split"):
        read_xgboost(clf, ["colour", "size", "x"])


def _numeric(name: str) -> tuple[np.ndarray, np.ndarray]:
    df = pd.read_csv(SHARED / "datasets" / "pmlb" / f"{name}.tsv.gz", sep="\t")
    y = pd.factorize(df["target"])[0]
    X = df.drop(columns=["target"]).select_dtypes("number").to_numpy(float)
    return X, y


@pytest.mark.parametrize("name", ["diabetes", "iris", "breast_w", "heart_statlog", "churn"])
def test_every_row_of_real_datasets(name: str) -> None:
    if not (SHARED / "datasets" / "pmlb" / f"{name}.tsv.gz").exists():
        pytest.skip(f"{name} is not in {SHARED}/datasets/pmlb")
    X, y = _numeric(name)
    multi = len(set(y.tolist())) > 2
    for objective in ("multi:softprob", "multi:softmax") if multi else ("binary:logistic",):
        clf = xgb.XGBClassifier(n_estimators=15, max_depth=3, objective=objective, n_jobs=1)
        clf.fit(X, y)
        model = read_xgboost(clf)
        assert np.array_equal(model.scores(X), _margins(clf.get_booster(), X))
        assert np.array_equal(model.predict_batch(X), _library_predict(clf, X))


@pytest.mark.parametrize("objective", OBJECTIVES)
def test_explanations_equal_brute_force_through_xgboost(objective: str) -> None:
    checked = 0
    for seed in range(4):
        clf, feats, points = _random_xgb(100 + seed, objective, n_estimators=8)
        model = read_xgboost(clf, feats)
        rng = np.random.default_rng(seed)
        for row in points[rng.choice(len(points), min(6, len(points)), replace=False)]:
            x = {f.name: (int(v) if f.kind != "real" else float(v)) for f, v in zip(feats, row)}
            oracle = ensemble_oracle(clf, feats, x)
            with Explainer(model).explain(x) as ex:
                assert ex.prediction == int(clf.predict(row[None, :])[0])
                result = ex.enumerate()
                assert result.complete
                assert {frozenset(a) for a in result.axps} == oracle.axps, (seed, x)
                assert {frozenset(c) for c in result.cxps} == oracle.cxps, (seed, x)
                checked += 1
    assert checked >= 20


def test_files_json_ubjson_booster_and_classifier_agree(tmp_path: Path) -> None:
    clf, feats, points = _random_xgb(11, "multi:softprob", 0.4)
    booster = clf.get_booster()
    booster.save_model(tmp_path / "m.json")
    booster.save_model(tmp_path / "m.ubj")
    (tmp_path / "misnamed.json").write_bytes((tmp_path / "m.ubj").read_bytes())
    models = [
        read_xgboost(clf),
        read_xgboost(booster),
        read_xgboost(tmp_path / "m.json"),
        read_xgboost(str(tmp_path / "m.ubj")),
        read_xgboost(tmp_path / "misnamed.json"),
        read_xgboost((tmp_path / "m.json").read_bytes()),
    ]
    bodies = [m.to_json_body() for m in models]
    assert all(b == bodies[0] for b in bodies)
    assert looks_like_xgboost((tmp_path / "m.ubj").read_bytes())
    assert looks_like_xgboost((tmp_path / "m.json").read_bytes())
    assert not looks_like_xgboost(b'{"type": "forest"}')
    ubj = read_ubjson((tmp_path / "m.ubj").read_bytes())
    doc = json.loads((tmp_path / "m.json").read_text())
    assert ubj["learner"]["objective"] == doc["learner"]["objective"]
    assert (
        ubj["learner"]["gradient_booster"]["model"]["tree_info"]
        == (doc["learner"]["gradient_booster"]["model"]["tree_info"])
    )
    # reading a file does not import xgboost
    code = (
        "import sys; sys.modules['xgboost'] = None\n"
        "from xpg.models.import_xgboost import read_xgboost\n"
        f"m = read_xgboost({str(tmp_path / 'm.ubj')!r})\n"
        f"n = read_xgboost({str(tmp_path / 'm.json')!r})\n"
        "assert 'xgboost' in sys.modules and sys.modules['xgboost'] is None\n"
        "print(len(m.trees), m.to_json_body() == n.to_json_body())\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == [str(len(models[0].trees)), "True"]


def test_json_round_trip_and_read_model(tmp_path: Path) -> None:
    for objective in OBJECTIVES:
        clf, feats, points = _random_xgb(21, objective)
        model = read_xgboost(clf, feats)
        again = GBDT.from_json_body(model.to_json_body(), list(feats), list(model.classes))
        assert again.to_json_body() == model.to_json_body()
        save_model(model, tmp_path / "m.json")
        loaded = read_model(tmp_path / "m.json")
        assert isinstance(loaded, GBDT)
        X = np.vstack([points, _cell_points(model)])
        assert np.array_equal(loaded.scores(X), model.scores(X))
        assert np.array_equal(loaded.predict_batch(X), _library_predict(clf, X))


def test_bad_input_is_refused_in_one_line(tmp_path: Path) -> None:
    clf, feats, _ = _random_xgb(0, "binary:logistic")
    raw = bytes(clf.get_booster().save_raw("json"))
    ubj = bytes(clf.get_booster().save_raw("ubj"))
    cases: list[tuple[Any, type[Exception], str]] = [
        (raw[: len(raw) // 2], InvalidModelError, "invalid JSON"),
        (ubj[: len(ubj) // 2], InvalidModelError, "truncated UBJSON"),
        (b'{"type": "forest", "trees": []}', InvalidModelError, "expected an XGBoost model"),
        (b"", InvalidModelError, "empty"),
        (b"tree\nversion=v4\n", InvalidModelError, "expected an XGBoost JSON or UBJSON"),
        (tmp_path / "absent.json", InvalidModelError, "cannot read"),
    ]
    reg = xgb.XGBRegressor(n_estimators=2, max_depth=2).fit(np.eye(3), [0.0, 1.0, 2.0])
    cases.append((bytes(reg.get_booster().save_raw("json")), UnsupportedModelError, "reg:"))
    rank = json.loads(raw)
    rank["learner"]["objective"] = {"name": "rank:pairwise"}
    cases.append((json.dumps(rank).encode(), UnsupportedModelError, "rank:pairwise"))
    linear = xgb.XGBClassifier(booster="gblinear", n_estimators=2).fit(np.eye(3), [0, 1, 1])
    cases.append((bytes(linear.get_booster().save_raw("json")), UnsupportedModelError, "gblin"))
    for source, error, words in cases:
        with pytest.raises(error, match=words) as info:
            read_xgboost(source)
        assert "\n" not in str(info.value)
    odd = xgb.XGBClassifier(n_estimators=2, missing=0.0).fit(np.eye(3), [0, 1, 1])
    with pytest.raises(UnsupportedModelError, match="missing"):
        read_xgboost(odd)
    with pytest.raises(InvalidModelError, match="expected 3 features"):
        read_xgboost(clf, ["a", "b"])
    with pytest.raises(InvalidModelError, match="found list"):
        read_xgboost([1, 2])  # type: ignore[arg-type]


def test_nan_instance_is_predicted_but_not_explained() -> None:
    clf, feats, _ = _random_xgb(2, "binary:logistic")
    model = read_xgboost(clf, feats)
    x = {"f0": float("nan"), "f1": 1, "f2": 1}
    row = np.array([[np.nan, 1.0, 1.0]])
    assert model.predict(x) == int(clf.predict(row)[0])
    with pytest.raises(Exception, match="'f0'.*NaN"):
        Explainer(model).explain(x)


XREASON = SHARED / "benchmarks" / "xreason-aaai22"


@pytest.mark.parametrize(
    "name",
    sorted(p.stem for p in (XREASON / "models").glob("*.json")) or ["missing"],
)
@pytest.mark.slow
def test_xreason_models_predict_as_xgboost_on_every_row(name: str) -> None:
    if name == "missing":
        pytest.skip(f"{XREASON} is absent")
    with gzip.open(XREASON / "data" / f"{name}.csv.gz", "rt") as fh:
        data = pd.read_csv(fh)
    X = data.iloc[:, :-1].to_numpy(float)
    model = read_xgboost(XREASON / "models" / f"{name}.json")
    booster = xgb.Booster()
    booster.load_model(XREASON / "models" / f"{name}.json")
    assert np.array_equal(model.scores(X), _margins(booster, X))
    proba = booster.predict(xgb.DMatrix(X))
    lib = proba.argmax(axis=1) if proba.ndim > 1 else (proba > 0.5).astype(int)
    assert np.array_equal(model.predict_batch(X), lib)
    assert [f.name for f in model.features] == [f"f{j}" for j in range(X.shape[1])]
