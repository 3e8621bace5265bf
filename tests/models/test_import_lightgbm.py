"""LightGBM models read by xpg.models.import_lightgbm against LightGBM's own predict.

Seeded random classifiers (binary, multiclass, multiclassova, random forests; NaN in training,
zero as missing, categorical features) predict as ``LGBMClassifier.predict`` on every point of their
small domains, on NaN rows, on a representative of every cell, and on every row of pmlb
datasets; hand-written text models pin each missing type, the zero band, categorical bitsets,
the binary cut, multiclassova's flat sigmoids and a nine-class softmax; every AXp and CXp of
the small models equals brute force through LightGBM's predict; the four kinds of source give
one model, a file is read with lightgbm blocked, and bad input is refused in one line.
"""

from __future__ import annotations

import itertools
import json
import math
import subprocess
import sys

import numpy as np
import pytest

from xpg.core.features import Feature
from xpg.errors import InvalidModelError, UnsupportedModelError
from xpg.models.gbdt import GBDT, softmax
from xpg.models.import_lightgbm import (
    K_ZERO,
    binary_cut,
    categorical_goes_left,
    looks_like_lightgbm,
    numerical_goes_left,
    read_lightgbm,
)

lgb = pytest.importorskip("lightgbm")

NAN = math.nan
SIZES = (2, 3, 4)


def _classifier(**params):
    base = dict(
        n_estimators=6,
        num_leaves=5,
        min_child_samples=2,
        min_data_per_group=2,
        cat_smooth=1.0,
        max_cat_to_onehot=2,
        verbose=-1,
        num_threads=1,
    )
    return lgb.LGBMClassifier(**{**base, **params})


def _random_case(seed: int, variant: str, n_classes: int = 2, objective: str | None = None):
    """A small LightGBM classifier on integer columns 0..size-1 (one categorical), the
    features (integer, or categorical codes), and the training matrix."""
    rng = np.random.default_rng(seed)
    m = 3
    sizes = [int(rng.choice(SIZES)) for _ in range(m)]
    X = np.column_stack([rng.integers(0, s, 80) for s in sizes]).astype(float)
    w = rng.normal(size=m)
    score = X @ w + rng.normal(0, 0.8, 80) + 2.0 * (X[:, 2] == 1)
    y = np.digitize(score, np.quantile(score, np.linspace(0, 1, n_classes + 1)[1:-1]))
    y[:n_classes] = np.arange(n_classes)
    params: dict = {"random_state": seed}
    if objective is not None:
        params["objective"] = objective
    if variant in ("nan", "zero"):
        X[rng.random(X.shape) < 0.15] = NAN
    if variant == "zero":
        params["zero_as_missing"] = True
    if variant == "rf":
        params.update(boosting_type="rf", subsample=0.7, subsample_freq=1, colsample_bytree=0.8)
    clf = _classifier(**params).fit(X, y, categorical_feature=[2])
    feats = [Feature.integer(f"f{j}", 0, sizes[j] - 1) for j in range(2)]
    feats.append(Feature.categorical("f2", list(range(sizes[2]))))
    return clf, feats, X


def _points(feats):
    return np.array(
        list(
            itertools.product(
                *[range(int(f.high) + 1) if f.kind == "integer" else f.values for f in feats]
            )
        ),
        dtype=float,
    )


def _with_nan(P: np.ndarray) -> np.ndarray:
    """Every point with every subset of its columns set to NaN."""
    rows = []
    for mask in itertools.product([False, True], repeat=P.shape[1]):
        Q = P.copy()
        Q[:, list(mask)] = NAN
        rows.append(Q)
    return np.unique(np.concatenate(rows), axis=0)


def _same(model: GBDT, clf, X: np.ndarray) -> None:
    ours = np.asarray(model.predict_batch(X))
    theirs = clf.predict(X)
    bad = np.flatnonzero(ours != theirs)
    assert len(bad) == 0, (len(bad), X[bad[:3]].tolist(), ours[bad[:3]], theirs[bad[:3]])


CASES = [("plain", 2), ("nan", 2), ("zero", 2), ("rf", 2), ("plain", 3), ("nan", 4), ("rf", 3)]


@pytest.mark.parametrize(("variant", "k"), CASES)
def test_random_models_predict_as_lightgbm_everywhere(variant: str, k: int) -> None:
    splits = {"cat": 0, "default_left": 0, "zero": 0, "nan": 0}
    for seed in range(12):
        clf, feats, X = _random_case(seed, variant, k)
        model = read_lightgbm(clf, feats)
        assert model.decision == ("threshold" if k == 2 else "softmax-argmax")
        assert model.average == (variant == "rf")
        P = _points(feats)
        _same(model, clf, P)
        _same(model, clf, _with_nan(P))
        # off-domain numbers: the zero band, negatives, fractions, beyond the domain
        probes = np.array([-K_ZERO, K_ZERO, -1e-36, -0.5, 0.5, -1.0, 2.5, 7.0, 1e12, NAN])
        rng = np.random.default_rng(seed)
        Q = P[rng.integers(0, len(P), (300,))].copy()
        Q[:, :2] = np.where(rng.random((300, 2)) < 0.5, rng.choice(probes, (300, 2)), Q[:, :2])
        _same(model, clf, Q)
        text = clf.booster_.model_to_string()
        for line in text.splitlines():
            if line.startswith("decision_type="):
                for d in map(int, line.split("=")[1].split()):
                    splits["cat"] += d & 1
                    splits["default_left"] += bool(d & 2)
                    splits["zero"] += (d >> 2 & 3) == 1
                    splits["nan"] += (d >> 2 & 3) == 2
    # the seeds exercise what the variant is about
    assert splits["cat"] > 0
    if variant == "nan":
        assert splits["nan"] > 0 and splits["default_left"] > 0
    if variant == "zero":
        assert splits["zero"] > 0


def test_real_valued_model_on_a_representative_of_every_cell() -> None:
    rng = np.random.default_rng(7)
    X = rng.normal(size=(300, 3))
    X[rng.random(300) < 0.2, 0] = 0.0
    X[rng.random(300) < 0.1, 1] = NAN
    y = ((X[:, 0] > 0) ^ (X[:, 1] > 0.3) | (X[:, 2] < -1)).astype(int)
    for params in ({}, {"zero_as_missing": True}):
        clf = _classifier(n_estimators=15, num_leaves=8, **params).fit(X, y)
        model = read_lightgbm(clf)
        reps = []
        for j in range(3):
            cuts = sorted(
                {float(c) for t in model.trees for c, f in zip(t.threshold, t.feature) if f == j}
            )
            near = [math.nextafter(c, s) for c in cuts for s in (-math.inf, math.inf)]
            mids = [(a + b) / 2 for a, b in zip(cuts, cuts[1:])]
            band = [0.0, -K_ZERO, K_ZERO, -1e-36, math.nextafter(-K_ZERO, -1), NAN]
            reps.append(
                sorted(
                    set(cuts + near + mids + band + [cuts[0] - 1, cuts[-1] + 1]),
                    key=lambda v: (math.isnan(v), v),
                )
            )
        rows = [
            [r[0][i % len(r[0])], r[1][i % len(r[1])], r[2][i % len(r[2])]]
            for i, r in enumerate(itertools.repeat(reps, 4000))
        ]
        R = np.array(rows)
        R = np.concatenate(
            [R, np.array([[rng.choice(reps[j]) for j in range(3)] for _ in range(2000)])]
        )
        _same(model, clf, R)


# -- hand-written text models: each rule of LightGBM's descent ---------------------------------
def _text(trees: list[str], objective: str = "binary sigmoid:1", k: int = 1) -> str:
    head = (
        f"tree\nversion=v4\nnum_class={k}\nnum_tree_per_iteration={k}\nlabel_index=0\n"
        f"max_feature_idx=1\nobjective={objective}\nfeature_names=a b\n"
        "feature_infos=[-5:5] -1:0:1:2:3:4:5:6:7:8:9:10:11:12:13:14:15:16:17:18:19:20:21:22:23:"
        "24:25:26:27:28:29:30:31:32:33:34\n\n"
    )
    body = "".join(f"Tree={i}\n{t}\nis_linear=0\nshrinkage=1\n\n\n" for i, t in enumerate(trees))
    return head + body + "end of trees\n\npandas_categorical:null\n"


def _stump(feature: int, threshold, decision_type: int, values=(1.0, 2.0), cats="") -> str:
    return (
        f"num_leaves=2\nnum_cat={1 if cats else 0}\nsplit_feature={feature}\nsplit_gain=1\n"
        f"threshold={threshold!r}\ndecision_type={decision_type}\nleft_child=-1\n"
        f"right_child=-2\nleaf_value={values[0]!r} {values[1]!r}\nleaf_weight=1 1\n"
        f"leaf_count=1 1\ninternal_value=0\ninternal_weight=1\ninternal_count=2" + cats
    )


THRESHOLDS = [-K_ZERO, -1e-36, 0.0, 1e-36, K_ZERO, -2.0, 2.0, 1.5000000000000002, math.inf]
DECISION_TYPES = [0, 2, 4, 6, 8, 10]
PROBES = [
    NAN,
    -K_ZERO,
    math.nextafter(-K_ZERO, -1),
    K_ZERO,
    math.nextafter(K_ZERO, 1),
    0.0,
    -0.0,
    -1e-36,
    1e-36,
    -5.0,
    5.0,
    -2.0,
    2.0,
    math.nextafter(2.0, 3),
    -1.0,
    1.0,
    1.5,
    1.5000000000000002,
    1e300,
    -1e300,
]


@pytest.mark.parametrize("threshold", THRESHOLDS)
def test_numerical_split_of_every_missing_type_as_lightgbm(threshold: float) -> None:
    for dt in DECISION_TYPES:
        # two trees so that the leaves reached are told apart by the raw score
        text = _text([_stump(0, threshold, dt, (-1.0, 2.0)), _stump(0, threshold, dt, (0.25, 0.5))])
        booster = lgb.Booster(model_str=text)
        model = read_lightgbm(text)
        X = np.array([[p, 0.0] for p in PROBES])
        raw = booster.predict(X, raw_score=True)
        assert model.scores(X)[:, 0].tolist() == raw.tolist(), (threshold, dt)
        lefts = [numerical_goes_left(p, threshold, dt) for p in PROBES]
        assert lefts == (raw < 0).tolist(), (threshold, dt)


def test_categorical_bitsets_as_lightgbm() -> None:
    rng = np.random.default_rng(3)
    domain = list(range(35))
    for trial in range(12):
        words = [int(rng.integers(0, 2**32)), int(rng.integers(0, 8))]
        if trial == 0:
            words = [2**32 - 1, 7]  # every declared code left
        if trial == 1:
            words = [0, 0]
        cats = f"\ncat_boundaries=0 2\ncat_threshold={words[0]} {words[1]}"
        text = _text([_stump(1, 0, 1 | (trial % 4) * 2, (-1.0, 1.0), cats)])
        booster = lgb.Booster(model_str=text)
        model = read_lightgbm(text)
        assert model.features[1] == Feature.categorical("b", domain)
        X = np.array([[0.0, c] for c in [*domain, NAN]])
        raw = booster.predict(X, raw_score=True)
        assert model.scores(X)[:, 0].tolist() == raw.tolist(), trial
        probes = [*domain, -1.0, -0.5, 2.9, 64.0, 1e10, 2.0**31, NAN]
        assert [categorical_goes_left(x, words) for x in probes] == (
            booster.predict(np.array([[0.0, x] for x in probes]), raw_score=True) < 0
        ).tolist()


@pytest.mark.parametrize("sigmoid", [1.0, 0.5, 2.7, 1e-3])
def test_binary_cut_is_lightgbm_boundary(sigmoid: float) -> None:
    c = binary_cut(sigmoid)
    values = [c]
    for _ in range(40):
        values.insert(0, math.nextafter(values[0], -1))
        values.append(math.nextafter(values[-1], 1))
    values += [0.0, -0.0, 1e-300, -1e-300, 2 * c, c / 2, 1.0, -1.0]
    # a chain of splits on feature a, one leaf per value
    n = len(values)
    text_tree = (
        f"num_leaves={n}\nnum_cat=0\nsplit_feature={' '.join(['0'] * (n - 1))}\n"
        f"split_gain={' '.join(['1'] * (n - 1))}\n"
        f"threshold={' '.join(repr(i + 0.5) for i in range(n - 1))}\n"
        f"decision_type={' '.join(['0'] * (n - 1))}\n"
        f"left_child={' '.join(str(~i) for i in range(n - 1))}\n"
        f"right_child={' '.join(str(i + 1) for i in range(n - 2))} {~(n - 1)}\n"
        f"leaf_value={' '.join(repr(v) for v in values)}"
    )
    text = _text([text_tree], objective=f"binary sigmoid:{sigmoid!r}")
    booster = lgb.Booster(model_str=text)
    model = read_lightgbm(text)
    assert model.cut == c and not model.strict
    X = np.column_stack([np.arange(n, dtype=float), np.zeros(n)])
    p = booster.predict(X)
    assert booster.predict(X, raw_score=True).tolist() == values
    theirs = np.argmax(np.vstack((1.0 - p, p)).T, axis=1)
    assert np.asarray(model.predict_batch(X)).tolist() == theirs.tolist()
    assert theirs.sum() not in (0, n)  # both classes around the cut


# -- datasets --------------------------------------------------------------------------------
def _pmlb(name: str):
    from xpg.learn.datasets import default_data_dir

    pd = pytest.importorskip("pandas")
    path = default_data_dir() / "pmlb" / f"{name}.tsv.gz"
    if not path.exists():
        pytest.skip(f"{path} is missing")
    df = pd.read_csv(path, sep="\t")
    y = df.pop("target").to_numpy()
    return df.to_numpy(dtype=float), y


@pytest.mark.parametrize(
    ("name", "params"),
    [
        ("australian", {}),
        ("iris", {}),
        ("dermatology", {}),
        ("car", {"boosting_type": "rf", "subsample": 0.6, "subsample_freq": 1}),
        ("churn", {"zero_as_missing": True}),
        ("spambase", {}),
        ("pima", {"boosting_type": "rf", "subsample": 0.6, "subsample_freq": 1}),
    ],
)
def test_every_row_of_datasets(name: str, params: dict) -> None:
    X, y = _pmlb(name)
    clf = lgb.LGBMClassifier(
        n_estimators=25, num_leaves=15, verbose=-1, num_threads=1, random_state=0, **params
    ).fit(X, y)
    model = read_lightgbm(clf)
    _same(model, clf, X)
    rng = np.random.default_rng(0)
    holes = X.copy()
    holes[rng.random(X.shape) < 0.2] = NAN
    _same(model, clf, holes)


def test_categorical_dataset_rows_and_pandas_categories() -> None:
    pd = pytest.importorskip("pandas")
    X, y = _pmlb("car")  # six ordinal codes: read as categorical
    clf = lgb.LGBMClassifier(
        n_estimators=10, verbose=-1, num_threads=1, min_data_per_group=5, max_cat_to_onehot=2
    ).fit(X, y, categorical_feature=[0, 1, 4, 5])
    model = read_lightgbm(clf)
    assert [f.kind for f in model.features] == [
        "categorical",
        "categorical",
        "real",
        "real",
        "categorical",
        "categorical",
    ]
    assert any(
        line.startswith("cat_threshold=") for line in clf.booster_.model_to_string().splitlines()
    )
    _same(model, clf, X)
    # pandas categories: string values, read by their position as LightGBM reads the codes
    rng = np.random.default_rng(1)
    df = pd.DataFrame(
        {
            "color": pd.Categorical(rng.choice(["red", "green", "blue", "grey"], 300)),
            "size": rng.normal(size=300),
        }
    )
    target = ((df["color"] == "red") | (df["color"] == "blue")) ^ (df["size"] > 1)
    clf = _classifier(n_estimators=8).fit(df, target.astype(int))
    model = read_lightgbm(clf)
    assert model.features[0] == Feature.categorical("color", ["blue", "green", "grey", "red"])
    rows = [
        {"color": c, "size": s}
        for c in ["red", "green", "blue", "grey"]
        for s in (-2.0, 0.0, 0.5, 1.0, 1.5, 3.0)
    ]
    expected = clf.predict(
        pd.DataFrame(
            {
                "color": pd.Categorical(
                    [r["color"] for r in rows], categories=df["color"].cat.categories
                ),
                "size": [r["size"] for r in rows],
            }
        )
    )
    assert [model.predict(r) for r in rows] == expected.tolist()


# -- explanations ----------------------------------------------------------------------------
def _family(items):
    return {frozenset(x) for x in items}


@pytest.mark.parametrize(("variant", "k"), [("plain", 2), ("nan", 2), ("rf", 2), ("plain", 3)])
def test_explanations_equal_brute_force_through_lightgbm(variant: str, k: int) -> None:
    from xpg.explain.engine import Explainer
    from xpg.testing.ensembles import ensemble_oracle

    checked = 0
    for seed in range(8):
        clf, feats, _ = _random_case(seed, variant, k)
        model = read_lightgbm(clf, feats)
        P = _points(feats)
        rng = np.random.default_rng(seed)
        for row in P[rng.choice(len(P), size=min(4, len(P)), replace=False)]:
            x = {f.name: int(v) for f, v in zip(feats, row)}
            oracle = ensemble_oracle(clf, feats, x)
            with Explainer(model).explain(x) as ex:
                assert ex.prediction == clf.predict(row[None, :])[0]
                result = ex.enumerate()
                assert result.complete
                assert _family(result.axps) == oracle.axps, (seed, x)
                assert _family(result.cxps) == oracle.cxps, (seed, x)
            checked += 1
    assert checked == 32


# -- sources ---------------------------------------------------------------------------------
def test_file_string_bytes_booster_and_classifier_give_one_model(tmp_path) -> None:
    clf, feats, _ = _random_case(5, "nan", 3)
    path = tmp_path / "model.txt"
    clf.booster_.save_model(str(path))
    text = clf.booster_.model_to_string()
    bodies = [
        read_lightgbm(s).to_json_body()
        for s in (path, str(path), text, text.encode(), clf.booster_, clf)
    ]
    assert all(b == bodies[0] for b in bodies[1:])
    assert looks_like_lightgbm(path.read_bytes())
    assert not looks_like_lightgbm(b'{"learner": {}}')
    again = GBDT.from_json_body(bodies[0], read_lightgbm(path).features, [0, 1, 2])
    P = _with_nan(_points(feats))
    assert np.asarray(again.predict_batch(P)).tolist() == clf.predict(P).tolist()


def test_reading_a_file_does_not_need_lightgbm(tmp_path) -> None:
    clf, _, X = _random_case(2, "nan")
    path = tmp_path / "model.txt"
    clf.booster_.save_model(str(path))
    np.save(tmp_path / "rows.npy", X)
    code = (
        "import sys, json; sys.modules['lightgbm'] = None\n"
        "import numpy as np\n"
        "from xpg.models.import_lightgbm import read_lightgbm\n"
        f"m = read_lightgbm({str(path)!r})\n"
        f"X = np.load({str(tmp_path / 'rows.npy')!r})\n"
        "print(json.dumps(np.asarray(m.predict_batch(X)).tolist()))\n"
        "assert not [k for k, v in sys.modules.items() if k.startswith('lightgbm') and v]\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == clf.predict(X).tolist()
    assert np.isnan(X).any()


# -- bad input -------------------------------------------------------------------------------
def _one_line(err: pytest.ExceptionInfo) -> str:
    message = str(err.value)
    assert "\n" not in message and message
    return message


def test_bad_input_is_refused_in_one_line(tmp_path) -> None:
    clf, _, X = _random_case(1, "plain")
    text = clf.booster_.model_to_string()
    cut = text.index("Tree=2")
    truncated = tmp_path / "truncated.txt"
    truncated.write_text(text[: cut + 40])
    with pytest.raises(InvalidModelError) as err:
        read_lightgbm(truncated)
    assert "truncated.txt" in _one_line(err)
    with pytest.raises(InvalidModelError) as err:
        read_lightgbm(text[: text.index("end of trees")])
    assert "end of trees" in _one_line(err)
    foreign = tmp_path / "foreign.json"
    foreign.write_text('{"learner": {"gradient_booster": {}}}')
    with pytest.raises(InvalidModelError) as err:
        read_lightgbm(foreign)
    assert "first line 'tree'" in _one_line(err)
    with pytest.raises(InvalidModelError):
        read_lightgbm(tmp_path / "absent.txt")
    with pytest.raises(InvalidModelError):
        read_lightgbm(text, features=["only-one"])

    y = X[:, 0] + X[:, 1]
    for objective in ("regression", "lambdarank", "cross_entropy"):
        params = dict(objective=objective, n_estimators=2, verbose=-1, num_threads=1)
        train = lgb.Dataset(
            X,
            y if objective != "cross_entropy" else (y > 2).astype(float),
            group=[len(X)] if objective == "lambdarank" else None,
        )
        booster = lgb.train(params, train, num_boost_round=2)
        with pytest.raises(UnsupportedModelError) as err:
            read_lightgbm(booster.model_to_string())
        assert objective in _one_line(err)
    with pytest.raises(UnsupportedModelError):
        read_lightgbm(lgb.LGBMRegressor(n_estimators=2, verbose=-1).fit(X, y))

    linear = lgb.train(
        {"objective": "binary", "linear_tree": True, "verbose": -1, "num_threads": 1},
        lgb.Dataset(X, (y > 2).astype(int)),
        3,
    )
    with pytest.raises(UnsupportedModelError) as err:
        read_lightgbm(linear)
    assert "linear" in _one_line(err)


# -- multiclassova: the first largest sigmoid ---------------------------------------------------
OVA_CASES = [("plain", 3), ("nan", 3), ("rf", 3), ("plain", 4), ("zero", 4)]


@pytest.mark.parametrize(("variant", "k"), OVA_CASES)
def test_multiclassova_predicts_as_lightgbm_everywhere(variant: str, k: int) -> None:
    for seed in range(8):
        clf, feats, X = _random_case(seed, variant, k, objective="multiclassova")
        model = read_lightgbm(clf, feats)
        assert (model.decision, model.sigmoid, model.average) == (
            "sigmoid-argmax",
            1.0,
            variant == "rf",
        )
        P = _points(feats)
        _same(model, clf, P)
        _same(model, clf, _with_nan(P))
        rng = np.random.default_rng(seed)
        Q = P[rng.integers(0, len(P), (200,))].copy()
        Q[:, :2] += rng.choice([-0.5, 0.25, 0.5, 3.0, NAN], (200, 2))
        _same(model, clf, Q)


def _ova_text(leaves: list[list[float]], sigmoid: float) -> str:
    """A multiclassova model of three classes, one chain tree per class over feature a
    (``a <= i + 0.5`` reaches leaf i)."""
    trees = []
    for values in leaves:
        n = len(values)
        trees.append(
            f"num_leaves={n}\nnum_cat=0\nsplit_feature={' '.join(['0'] * (n - 1))}\n"
            f"split_gain={' '.join(['1'] * (n - 1))}\n"
            f"threshold={' '.join(repr(i + 0.5) for i in range(n - 1))}\n"
            f"decision_type={' '.join(['2'] * (n - 1))}\n"
            f"left_child={' '.join(str(~i) for i in range(n - 1))}\n"
            f"right_child={' '.join(str(i + 1) for i in range(n - 2))} {~(n - 1)}\n"
            f"leaf_value={' '.join(repr(v) for v in values)}"
        )
    return _text(trees, objective=f"multiclassova num_class:3 sigmoid:{sigmoid!r}", k=3)


class _Argmax:
    """A booster as an estimator whose ``predict`` is ``LGBMClassifier.predict``'s argmax."""

    def __init__(self, booster) -> None:
        self.booster = booster

    def predict(self, X: np.ndarray) -> np.ndarray:
        return np.argmax(self.booster.predict(X), axis=1)


@pytest.mark.parametrize("sigmoid", [1.0, 0.5])
def test_multiclassova_flat_sigmoids_tie_as_lightgbm(sigmoid: float) -> None:
    """Scores past ~36.7 / sigmoid all have probability 1.0 in double: the first class wins
    however much larger a later score is; predictions and explanations follow LightGBM."""
    from xpg.explain.engine import Explainer
    from xpg.testing.ensembles import ensemble_oracle

    big = 36.0 / sigmoid
    leaves = [
        [big + 4, big + 40, -3.0, big + 1, 0.5],
        [big + 30, big + 2, big + 60, -2.0, 0.75],
        [1.0, big + 50, big + 0.5, big + 70, 0.25],
    ]
    text = _ova_text(leaves, sigmoid)
    # a second tree per class on feature b (its categories 0..34 are read as codes)
    model = read_lightgbm(text, [Feature.integer("a", 0, 4), Feature.integer("b", 0, 2)])
    booster = lgb.Booster(model_str=text)
    X = np.array([[a, b] for a in range(5) for b in range(3)], dtype=float)
    theirs = _Argmax(booster).predict(X)
    assert np.asarray(model.predict_batch(X)).tolist() == theirs.tolist()
    raw = booster.predict(X, raw_score=True)
    assert (theirs != np.argmax(raw, axis=1)).sum() >= 3  # the ties decide
    feats = list(model.features)
    for row in X[::3]:
        x = {f.name: int(v) for f, v in zip(feats, row)}
        oracle = ensemble_oracle(_Argmax(booster), feats, x)
        for route in (None, "sat", "graph"):
            kw = {} if route is None else {"route": route, "shortcuts": False}
            with Explainer(model, **kw).explain(x) as ex:
                result = ex.enumerate()
            assert _family(result.axps) == oracle.axps, (route, x)
            assert _family(result.cxps) == oracle.cxps, (route, x)


@pytest.mark.parametrize("variant", ["plain", "rf"])
def test_multiclassova_explanations_equal_brute_force_through_lightgbm(variant: str) -> None:
    from xpg.explain.engine import Explainer
    from xpg.testing.ensembles import ensemble_oracle

    checked = 0
    for seed in range(6):
        clf, feats, _ = _random_case(seed, variant, 3, objective="multiclassova")
        model = read_lightgbm(clf, feats)
        P = _points(feats)
        rng = np.random.default_rng(seed)
        for row in P[rng.choice(len(P), size=min(3, len(P)), replace=False)]:
            x = {f.name: int(v) for f, v in zip(feats, row)}
            oracle = ensemble_oracle(clf, feats, x)
            with Explainer(model).explain(x) as ex:
                assert ex.prediction == clf.predict(row[None, :])[0]
                result = ex.enumerate()
            assert _family(result.axps) == oracle.axps, (seed, x)
            assert _family(result.cxps) == oracle.cxps, (seed, x)
            checked += 1
    assert checked == 18


def test_nine_class_softmax_is_lightgbm_bit_for_bit() -> None:
    """Nine classes, scores that make near-equal probabilities: LightGBM's probabilities are
    xpg's softmax of the scores exactly, and the classes agree."""
    rng = np.random.default_rng(9)
    n_leaves, k = 40, 9
    trees = []
    for _ in range(k):
        values = (rng.normal(0, 2, n_leaves) + rng.integers(0, 2, n_leaves) * 1e-12).tolist()
        trees.append(
            f"num_leaves={n_leaves}\nnum_cat=0\n"
            f"split_feature={' '.join(['0'] * (n_leaves - 1))}\n"
            f"split_gain={' '.join(['1'] * (n_leaves - 1))}\n"
            f"threshold={' '.join(repr(i + 0.5) for i in range(n_leaves - 1))}\n"
            f"decision_type={' '.join(['2'] * (n_leaves - 1))}\n"
            f"left_child={' '.join(str(~i) for i in range(n_leaves - 1))}\n"
            f"right_child={' '.join(str(i + 1) for i in range(n_leaves - 2))} {~(n_leaves - 1)}\n"
            f"leaf_value={' '.join(repr(v) for v in values)}"
        )
    text = _text(trees, objective=f"multiclass num_class:{k}", k=k)
    booster = lgb.Booster(model_str=text)
    model = read_lightgbm(text)
    X = np.column_stack([np.arange(n_leaves, dtype=float), np.zeros(n_leaves)])
    theirs = booster.predict(X)
    assert softmax(model.scores(X), "float64").tolist() == theirs.tolist()
    assert np.asarray(model.predict_batch(X)).tolist() == np.argmax(theirs, axis=1).tolist()
