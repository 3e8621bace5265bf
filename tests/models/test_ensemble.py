"""Tree ensembles (forest, boosted-trees): the same function as scikit-learn's ``predict``.

Checked against scikit-learn itself (every test row of real datasets, every point of small
discrete domains of hundreds of seeded random ensembles, designed ties), and the two other
readings of the model against ``predict``: the compiled decision graph (exhaustively) and
the SMT encoding (on random points, evaluated by pysmt's simplifier).
"""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest
from conftest import shared_path
from sklearn.ensemble import (
    ExtraTreesClassifier,
    GradientBoostingClassifier,
    RandomForestClassifier,
)
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeClassifier

from xpg.core.feature_space import FeatureGroup
from xpg.core.features import Feature
from xpg.errors import GraphTooLargeError, InvalidModelError
from xpg.io.model_json import model_to_dict, read_model_dict
from xpg.learn.datasets import load_dataset
from xpg.models.ensemble import BoostedTrees, Forest
from xpg.models.ensemble_compile import compile_ensemble
from xpg.models.ensemble_import import ensemble_from_sklearn
from xpg.models.ensemble_tree import EnsembleTree
from xpg.models.registry import model_kind
from xpg.testing import ENSEMBLE_KINDS, random_sklearn_ensemble

ESTIMATORS = (RandomForestClassifier, ExtraTreesClassifier, GradientBoostingClassifier)
#: binary and multi-class, real and discrete columns
DATASETS = ("pmlb/iris", "pmlb/breast_w", "pmlb/car", "pmlb/diabetes", "pmlb/new_thyroid")


def _sk_scores(est, X):
    if isinstance(est, GradientBoostingClassifier):
        return est._raw_predict(np.asarray(X, dtype=np.float32))
    return est.predict_proba(X)


def _round_trip(model):
    doc = json.loads(json.dumps(model_to_dict(model)))
    return read_model_dict(doc)


@pytest.mark.parametrize("name", DATASETS)
@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_predict_equals_sklearn_on_every_test_row(name, cls) -> None:
    data = load_dataset(name, data_dir=shared_path("datasets"))
    X = np.asarray(data.X, dtype=float)
    X_train, X_test, y_train, _ = train_test_split(X, data.y, test_size=0.3, random_state=0)
    est = cls(n_estimators=25, max_depth=5, random_state=0).fit(X_train, y_train)
    model = ensemble_from_sklearn(est, data.features)
    assert model.json_type == ("boosted-trees" if cls is GradientBoostingClassifier else "forest")
    assert model.predict_batch(X_test).tolist() == est.predict(X_test).tolist()
    assert (model.scores(X_test) == _sk_scores(est, X_test)).all()  # bit for bit
    for row in X_test[:10]:
        assert model.predict(list(row)) == est.predict(row[None, :])[0]
    again = _round_trip(model)
    assert type(again) is type(model) and (again.scores(X_test) == model.scores(X_test)).all()


@pytest.mark.slow
def test_random_small_ensembles_exhaustively() -> None:
    """300 seeded ensembles: every point of the domain, as scikit-learn predicts it; the
    compiled graph and the JSON round trip agree too."""
    compiled = 0
    for seed in range(300):
        kind = ENSEMBLE_KINDS[seed % 3]
        est, feats, points = random_sklearn_ensemble(
            seed,
            kind,  # type: ignore[arg-type]
            n_classes=2 + seed % 2 + (seed % 7 == 0),
            n_trees=1 + seed % 6,
            depth=1 + seed % 4,
        )
        model = ensemble_from_sklearn(est, feats)
        expected = est.predict(points).tolist()
        assert model.predict_batch(points).tolist() == expected, seed
        assert _round_trip(model).predict_batch(points).tolist() == expected, seed
        if seed % 3 == 0:
            rows = points.astype(int).tolist()
            dg = model.to_decision_graph()
            dg.validate()
            assert [dg.predict(r) for r in rows] == expected, seed
            compiled += 1
    assert compiled == 100


def _stump(feature: int, left: list[float], right: list[float]) -> EnsembleTree:
    return EnsembleTree(
        np.array([feature, -1, -1]),
        np.array([0.5, 0.0, 0.0]),
        np.array([1, -1, -1]),
        np.array([2, -1, -1]),
        np.array([[0.0] * len(left), left, right]),
    )


def test_designed_ties_as_sklearn_breaks_them() -> None:
    """Two trees voting opposite pure leaves, a boosted score of exactly 0: scikit-learn's
    own predict, with the leaf values overwritten, and ours agree."""
    X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]] * 5)
    y = np.array([0, 1, 1, 0] * 5)
    rf = RandomForestClassifier(n_estimators=2, max_depth=1, bootstrap=False, random_state=0)
    rf.fit(X, y)
    for k, tree in enumerate(rf.estimators_):
        value = tree.tree_.value
        leaves = tree.tree_.children_left == -1
        value[leaves, 0, :] = [1.0, 0.0] if k == 0 else [0.0, 1.0]
    model = ensemble_from_sklearn(rf)
    assert rf.predict(X).tolist() == [0] * len(X)  # every point ties; the first class wins
    assert model.predict_batch(X).tolist() == [0] * len(X)
    assert model.to_decision_graph().predict([0.0, 1.0]) == 0

    gb = GradientBoostingClassifier(n_estimators=2, max_depth=1, init="zero", random_state=0)
    gb.fit(X, y)
    for k, row in enumerate(gb.estimators_):
        v = row[0].tree_.value
        v[row[0].tree_.children_left == -1, 0, 0] = 0.5 if k == 0 else -0.5
    model = ensemble_from_sklearn(gb)
    assert (gb.decision_function(X) == 0).all() and gb.predict(X).tolist() == [1] * len(X)
    assert model.predict_batch(X).tolist() == [1] * len(X)  # score >= 0 is class 1
    assert model.to_decision_graph().predict([1.0, 1.0]) == 1


def test_designed_ties_of_the_model_itself() -> None:
    a, b = Feature.boolean("a"), Feature.boolean("b")
    votes = [_stump(0, [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]), _stump(1, [0.0, 0.0, 1.0], [0, 1.0, 0])]
    forest = Forest([a, b], ["x", "y", "z"], votes, [0.0, 0.0, 0.0], 0.5)
    got = [forest.predict([i, j]) for i in (0, 1) for j in (0, 1)]
    assert got == ["x", "x", "z", "y"]  # (0, 0): x and z tie, x first; (1, 1): y and z, y first
    dg = compile_ensemble(forest)
    assert [dg.predict([i, j]) for i in (0, 1) for j in (0, 1)] == got
    enc = forest.smt_encoding()
    assert [enc.label(_evaluate(enc, {"a": i, "b": j})) for i in (0, 1) for j in (0, 1)] == got
    three = [_stump(0, [0.5, 0.0, -0.25], [0.0] * 3), _stump(0, [-0.5, 0.25, 0.25], [0, 0, 1.0])]
    boosted = BoostedTrees([a, b], ["x", "y", "z"], three, [0.0, -0.25, 0.0], 1.0)
    scores = boosted.scores([[0, 0], [1, 0]]).tolist()
    assert scores == [[0.0, 0.0, 0.0], [0.0, -0.25, 1.0]]
    assert boosted.predict([0, 0]) == "x" and boosted.predict([1, 0]) == "z"  # 3-way tie: x
    enc = boosted.smt_encoding()
    assert enc.label(_evaluate(enc, {"a": 0, "b": 0})) == "x"


def _evaluate(enc, values: dict) -> int:
    subst = {enc.variables[name]: enc.value_term(name, v) for name, v in values.items()}
    term = enc.env.substituter.substitute(enc.class_term, subst)
    return int(enc.env.simplifier.simplify(term).constant_value())


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
@pytest.mark.slow
def test_smt_encoding_agrees_with_predict(cls) -> None:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 4))
    X[:, 3] = rng.integers(0, 3, 200)
    y = (X[:, 0] + X[:, 1] * X[:, 2] > 0).astype(int) + (X[:, 3] == 2)
    feats = [Feature.real(f"r{j}") for j in range(3)] + [Feature.integer("k", 0, 2)]
    for n_classes in (2, 3):
        labels = y if n_classes == 3 else (y > 0).astype(int)
        est = cls(n_estimators=12, max_depth=4, random_state=1).fit(X, labels)
        model = ensemble_from_sklearn(est, feats)
        enc = model.smt_encoding()
        points = np.column_stack([rng.normal(size=(60, 3)), rng.integers(0, 3, 60)])
        points = np.vstack([points, X[:20]])
        for row in points:
            values = {
                f.name: (int(v) if f.kind == "integer" else float(v)) for f, v in zip(feats, row)
            }
            assert enc.label(_evaluate(enc, values)) == model.predict(values)


def test_categorical_codes_and_json_bits() -> None:
    colour = Feature.categorical("colour", ["red", "green", "blue"])
    t = _stump(0, [1.0, 0.0], [0.0, 1.0])._replace(threshold=np.array([1.5, 0.0, 0.0]))
    forest = Forest([colour], ["no", "yes"], [t], [0.0, 0.0], 1.0)
    assert [forest.predict([c]) for c in colour.values] == ["no", "no", "yes"]  # codes 0, 1, 2
    dg = forest.to_decision_graph()
    assert [dg.predict([c]) for c in colour.values] == ["no", "no", "yes"]
    enc = forest.smt_encoding()
    assert [enc.label(_evaluate(enc, {"colour": c})) for c in colour.values] == ["no", "no", "yes"]
    odd = 0.1 + 0.2  # 0.30000000000000004: must come back bit-identical
    b = BoostedTrees([Feature.real("x")], [0, 1], [_stump(0, [odd], [-odd])], [odd / 3], odd)
    again = _round_trip(b)
    assert again.base.tolist() == b.base.tolist() and again.scale == b.scale
    assert again.trees[0].value.tolist() == b.trees[0].value.tolist()


def test_graph_route_budget() -> None:
    rng = np.random.default_rng(1)
    X = rng.normal(size=(300, 8))
    y = (X.sum(axis=1) > 0).astype(int)
    est = RandomForestClassifier(n_estimators=30, max_depth=6, random_state=0).fit(X, y)
    model = ensemble_from_sklearn(est)
    with pytest.raises(GraphTooLargeError, match="too large for the graph route.*SAT/SMT"):
        model.to_decision_graph(budget=1000)


def _estimator_errors():
    X = np.array([[0.0, 1.0], [1.0, 0.0], [1.0, 1.0], [0.0, 0.0]] * 5)
    y = np.array([0, 1, 1, 0] * 5)
    nan_X = X.copy()
    nan_X[::3, 0] = np.nan
    yield DecisionTreeClassifier().fit(X, y), "expected a RandomForestClassifier"
    yield RandomForestClassifier(n_estimators=2), "not fitted"
    yield (
        RandomForestClassifier(n_estimators=2).fit(X, np.column_stack([y, 1 - y])),
        "single-output",
    )
    yield (
        GradientBoostingClassifier(n_estimators=2, loss="exponential").fit(X, y),
        "loss='log_loss'",
    )
    yield (
        GradientBoostingClassifier(n_estimators=2, init=DecisionTreeClassifier()).fit(X, y),
        "default initial estimate",
    )
    nan_y = (np.isnan(nan_X[:, 0]) | (X[:, 1] > 0)).astype(int)
    yield RandomForestClassifier(n_estimators=5, random_state=0).fit(nan_X, nan_y), "NaN"


@pytest.mark.parametrize("case", list(_estimator_errors()), ids=lambda c: c[1])
def test_refused_estimators(case) -> None:
    est, message = case
    with pytest.raises(InvalidModelError, match=message):
        ensemble_from_sklearn(est)


def test_refused_features() -> None:
    est, feats, _ = random_sklearn_ensemble(0, "forest")
    with pytest.raises(InvalidModelError, match="expected 3 features"):
        ensemble_from_sklearn(est, feats[:2])
    group = FeatureGroup.one_hot("c", ["a", "b"])
    with pytest.raises(InvalidModelError, match="feature groups are not supported"):
        ensemble_from_sklearn(est, [feats[0], group])


def _doc():
    est, feats, _ = random_sklearn_ensemble(3, "forest", n_trees=2, depth=2)
    return model_to_dict(ensemble_from_sklearn(est, feats))


def _broken(edit):
    doc = copy.deepcopy(_doc())
    edit(doc["model"])
    return doc


BAD_BODIES = [
    (lambda m: m.pop("trees"), r"model\.trees: expected a non-empty list"),
    (lambda m: m.update(scale="big"), r"model\.scale: expected a number"),
    (lambda m: m.update(scale=-1.0), r"scale: expected a positive number"),
    (lambda m: m.update(scale=0.3), r"forest: scale: expected 1 / 2 trees = 0\.5, found 0\.3"),
    (lambda m: m.update(base=[0.0, 1.0]), r"forest: base: expected zeros"),
    (lambda m: m.update(base=[0.0]), r"base: expected shape \(2,\)"),
    (
        lambda m: m["trees"][1]["threshold"].__setitem__(0, "x"),
        r"model\.trees\[1\]\.threshold\[0\]",
    ),
    (
        lambda m: m["trees"][0]["feature"].__setitem__(0, "nope"),
        r"model\.trees\[0\]\.feature\[0\]: unknown",
    ),
    (lambda m: m["trees"][0]["threshold"].pop(), r"trees\[0\]\.threshold: expected \d+ entries"),
    (
        lambda m: m["trees"][0]["left"].__setitem__(0, 0),
        r"tree 0, node 0: expected a left child after",
    ),
    (
        lambda m: m["trees"][0].__setitem__("value", [None] * len(m["trees"][0]["left"])),
        r"value\[\d+\]",
    ),
    (
        lambda m: m["trees"][0]["left"].__setitem__(0, True),
        r"model\.trees\[0\]\.left\[0\]: expected an integer",
    ),
]


@pytest.mark.parametrize("edit, message", BAD_BODIES)
def test_bad_json_names_the_location(edit, message) -> None:
    with pytest.raises(InvalidModelError, match=message):
        read_model_dict(_broken(edit))


def test_registered_kinds() -> None:
    assert model_kind("forest") is Forest and model_kind("boosted-trees") is BoostedTrees


def test_graph_route_on_the_whole_car_domain() -> None:
    """pmlb/car holds every point of its domain (1,728 = 4 x 4 x 4 x 3 x 3 x 3): a 100-tree
    depth-6 forest and a boosted ensemble compile, and the graph agrees with scikit-learn
    everywhere."""
    data = load_dataset("pmlb/car", data_dir=shared_path("datasets"))
    X = np.asarray(data.X, dtype=float)
    assert len({tuple(r) for r in X.tolist()}) == len(X) == 1728
    for est in (
        RandomForestClassifier(n_estimators=100, max_depth=6, random_state=0),
        GradientBoostingClassifier(n_estimators=20, max_depth=3, random_state=0),
    ):
        est.fit(X[::3], data.y[::3])
        dg = ensemble_from_sklearn(est, data.features).to_decision_graph()
        dg.validate()
        assert [dg.predict(r) for r in data.X.tolist()] == est.predict(X).tolist()


@pytest.mark.slow
def test_rounding_bound_bounds_the_float_error() -> None:
    """The exact sums (Fractions of the same contributions) are within rounding_bound of the
    float scores, on every point of 60 random ensembles."""
    from fractions import Fraction

    for seed in range(60):
        est, feats, points = random_sklearn_ensemble(
            seed,
            ENSEMBLE_KINDS[seed % 3],  # type: ignore[arg-type]
            n_classes=2 + seed % 2,
            n_trees=5 + seed % 20,
        )
        model = ensemble_from_sklearn(est, feats)
        leaves = model.leaf_indices(points)
        floats = model.scores(points)
        unit = Fraction(1, len(model.trees)) if isinstance(model, Forest) else Fraction(1)
        bound = model.rounding_bound()
        for r in range(len(points)):
            for k in range(model.n_scores):
                parts = model._contributions()
                exact = Fraction(float(model.base[k])) + unit * sum(
                    Fraction(float(parts[t][leaves[r, t], k])) for t in range(len(model.trees))
                )
                assert abs(Fraction(float(floats[r, k])) - exact) <= Fraction(bound), seed
