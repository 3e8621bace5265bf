"""Issue 32's defects, each on the path a user takes: a forest imported over a declared domain
that leaves some of its leaves unreachable (compiled, and every command runs on its file); a
subclass overriding ``predict`` refused by every importer; a string seed is one feature; the
deprecated explainers take a fitted estimator."""

from __future__ import annotations

import itertools
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from sklearn.compose import make_column_transformer
from sklearn.ensemble import (
    GradientBoostingClassifier,
    HistGradientBoostingClassifier,
    RandomForestClassifier,
)
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import OneHotEncoder
from sklearn.tree import DecisionTreeClassifier

import xpg
from xpg.cli.main import main
from xpg.core.features import Feature, Literal
from xpg.errors import InvalidFeatureError, InvalidModelError, InvalidSeedError
from xpg.explain.deprecated import DecisionListExplainer, EnsembleExplainer
from xpg.explain.engine import Explainer
from xpg.io.model_json import save_model
from xpg.learn.estimator_import import import_sklearn_model
from xpg.models import ensemble_from_sklearn, tree_from_sklearn
from xpg.models.decision_list import DecisionList, Rule
from xpg.models.ensemble import TreeEnsemble
from xpg.models.import_hist import read_hist_gradient_boosting
from xpg.models.import_pipeline import read_pipeline
from xpg.testing import domain_values
from xpg.testing.oracle import Oracle

# -- a forest trained on ages 16-89, imported over the declared domain 18..99 ----------------

AGE = Feature.integer("age", 18, 99)
FEATURES = [AGE, Feature.integer("income", 0, 4), Feature.boolean("owner")]


@pytest.fixture(scope="module")
def age_forest() -> tuple[RandomForestClassifier, Any]:
    rng = np.random.default_rng(0)
    n = 600
    age = rng.integers(16, 90, n)
    income = rng.integers(0, 5, n)
    owner = rng.integers(0, 2, n)
    # minors are a class of their own: the trees split at 17.5, below the declared domain
    y = ((age < 18) | ((age > 60) ^ (income > 2)) & (owner == 1)).astype(int)
    rf = RandomForestClassifier(n_estimators=12, max_depth=6, random_state=0)
    rf.fit(np.c_[age, income, owner], y)
    return rf, xpg.import_model(rf, FEATURES)


def _cells() -> list[tuple[Any, ...]]:
    return list(itertools.product(*[domain_values(f) for f in FEATURES]))


def test_the_domain_leaves_leaves_unreachable(age_forest: Any) -> None:
    """The case is the issue's: some tree has a leaf no input of the declared domain reaches
    (scikit-learn's own ``apply`` over every cell of the domain)."""
    rf, _ = age_forest
    cells = np.array(_cells(), dtype=np.float64)
    unreachable = 0
    for est in rf.estimators_:
        leaves = set(np.flatnonzero(est.tree_.children_left < 0).tolist())
        unreachable += len(leaves - set(est.apply(cells).tolist()))
    assert unreachable > 0


def test_the_graph_predicts_as_the_forest_on_every_cell(age_forest: Any) -> None:
    rf, model = age_forest
    dg = model.to_decision_graph()
    dg.validate()
    cells = _cells()
    expected = rf.predict(np.array(cells, dtype=np.float64)).tolist()
    assert [dg.predict(list(c)) for c in cells] == expected
    assert [model.predict(list(c)) for c in cells] == expected
    assert len(set(expected)) == 2


def test_graph_and_oracle_routes_explain_alike(age_forest: Any) -> None:
    """Every AXp and CXp by the graph route, the SAT route and brute force over the domain."""
    rf, model = age_forest
    grid = {f.name: domain_values(f) for f in FEATURES}
    for row in ([17 + 1, 0, 1], [30, 4, 1], [70, 1, 1], [70, 4, 0], [99, 3, 1]):
        x = dict(zip(grid, row))
        oracle = Oracle.of_model(model.predict, FEATURES, grid, x)
        for route in ("graph", "sat"):
            with Explainer(model, route=route).explain(x) as ex:  # type: ignore[arg-type]
                result = ex.enumerate()
            assert result.complete
            assert {frozenset(a) for a in result.axps} == oracle.axps, (route, x)
            assert {frozenset(c) for c in result.cxps} == oracle.cxps, (route, x)


def test_every_command_runs_on_the_model_file(
    age_forest: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``validate``, ``export``, ``robustness`` and ``draw`` ended in an IndexError."""
    _, model = age_forest
    path = tmp_path / "ages.json"
    save_model(model, path)
    at = ["--instance", "age=20,income=3,owner=1"]
    assert main(["validate", str(path)]) == 0
    assert main(["export", str(path), *at, "-o", str(tmp_path / "x.xpg")]) == 0
    assert main(["validate", str(tmp_path / "x.xpg")]) == 0
    assert main(["robustness", str(path), *at]) == 0
    assert main(["draw", str(path), *at, "--explain", "-o", str(tmp_path / "g.dot")]) == 0
    assert main(["axp", str(path), *at]) == 0
    capsys.readouterr()
    assert (tmp_path / "g.dot").read_text().startswith("digraph")


# -- a subclass that overrides how it predicts ------------------------------------------------


def _cautious(base: type) -> type:
    """``base`` predicting its second class only at a probability of 0.9 or more."""

    def predict(self: Any, X: Any) -> Any:
        return self.classes_[(self.predict_proba(X)[:, 1] >= 0.9).astype(int)]

    return type(f"Cautious{base.__name__}", (base,), {"predict": predict})


def _data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(1)
    X = rng.normal(size=(200, 3))
    return X, (X[:, 0] + rng.normal(size=200) > 0).astype(int)


def _fitted(base: type, **params: Any) -> Any:
    X, y = _data()
    est = _cautious(base)(**params).fit(X, y)
    # the case matters: the subclass predicts otherwise on some rows
    assert (est.predict(X) != base.predict(est, X)).any()
    return est


def _sklearn_cases() -> list[tuple[Any, list[Any]]]:
    forest = _fitted(RandomForestClassifier, n_estimators=5, random_state=0)
    boosted = _fitted(GradientBoostingClassifier, n_estimators=5, random_state=0)
    tree = _fitted(DecisionTreeClassifier, max_depth=3, random_state=0)
    hist = _fitted(HistGradientBoostingClassifier, max_iter=5)
    return [
        (forest, [ensemble_from_sklearn, import_sklearn_model]),
        (boosted, [ensemble_from_sklearn, import_sklearn_model]),
        (tree, [tree_from_sklearn, import_sklearn_model, xpg.from_sklearn_tree]),
        (hist, [read_hist_gradient_boosting]),
    ]


def _refused(read: Any, est: Any, method: str = "predict") -> None:
    name = type(est).__name__
    with pytest.raises(InvalidModelError) as err:
        read(est)
    text = str(err.value)
    assert "\n" not in text
    assert text.startswith(f"{name}: expected the {method} of ")
    assert f"found it overridden in {name}" in text


def test_a_subclass_overriding_predict_is_refused_by_every_importer() -> None:
    for est, readers in _sklearn_cases():
        pipeline = lambda e: read_pipeline(make_pipeline(e))  # noqa: E731
        for read in [*readers, xpg.import_model, Explainer, pipeline]:
            _refused(read, est)


@pytest.mark.parametrize("library", ["xgboost", "lightgbm"])
def test_a_boosting_library_subclass_overriding_predict_is_refused(library: str) -> None:
    module = pytest.importorskip(library)
    if library == "xgboost":
        from xpg.models.import_xgboost import read_xgboost as read

        est = _fitted(module.XGBClassifier, n_estimators=5, n_jobs=1)
    else:
        from xpg.models.import_lightgbm import read_lightgbm as read

        est = _fitted(module.LGBMClassifier, n_estimators=5, verbose=-1, n_jobs=1)
    for reader in (read, xpg.import_model, lambda e: read_pipeline(make_pipeline(e))):
        _refused(reader, est)


def test_overriding_any_method_of_the_prediction_is_refused() -> None:
    X, y = _data()
    for method in ("predict_proba", "predict_log_proba", "decision_function"):
        cls = type("Tweaked", (GradientBoostingClassifier,), {method: lambda self, X: X})
        est = cls(n_estimators=3).fit(X, y)
        _refused(ensemble_from_sklearn, est, method)
    est = RandomForestClassifier(n_estimators=3, random_state=0).fit(X, y)
    est.predict = lambda X: np.zeros(len(X), dtype=int)  # type: ignore[method-assign]
    with pytest.raises(InvalidModelError, match="found one set on the instance"):
        ensemble_from_sklearn(est)


def test_a_forest_of_trees_that_vote_otherwise_is_refused() -> None:
    """A forest's ``predict_proba`` asks each of its trees."""
    X, y = _data()

    def predict_proba(self: Any, X: Any, check_input: bool = True) -> Any:
        return 1 - DecisionTreeClassifier.predict_proba(self, X, check_input)

    tree = type("Contrary", (DecisionTreeClassifier,), {"predict_proba": predict_proba})
    rf = RandomForestClassifier(n_estimators=3, random_state=0).fit(X, y)
    rf.estimators_ = [tree(**e.get_params()).fit(X, y) for e in rf.estimators_]
    with pytest.raises(InvalidModelError, match="the tree class Contrary: expected the"):
        ensemble_from_sklearn(rf)


def test_a_pipeline_whose_steps_compute_otherwise_is_refused() -> None:
    rng = np.random.default_rng(2)
    X = np.c_[rng.integers(0, 3, 100), rng.normal(size=100)]
    y = (X[:, 0] == 1).astype(int)
    enc = type("Shifted", (OneHotEncoder,), {"transform": lambda self, X: X})
    ct = make_column_transformer((enc(), [0]), remainder="passthrough")
    pipe = make_pipeline(ct, DecisionTreeClassifier(max_depth=2)).fit(X, y)
    with pytest.raises(InvalidModelError, match="step 'shifted': expected the transform of"):
        read_pipeline(pipe)
    mine = type("MyPipeline", (Pipeline,), {"predict": lambda self, X: X[:, 0]})
    steps = [("tree", DecisionTreeClassifier(max_depth=2))]
    with pytest.raises(InvalidModelError, match="found it overridden in MyPipeline"):
        read_pipeline(mine(steps).fit(X, y))


def test_a_subclass_keeping_the_library_predict_is_read_exactly() -> None:
    """Not every subclass is refused: one adding a convenience predicts as its base does."""
    X, y = _data()
    kind = type("Named", (RandomForestClassifier,), {"describe": lambda self: "a forest"})
    est = kind(n_estimators=5, random_state=0).fit(X, y)
    for read in (ensemble_from_sklearn, xpg.import_model, import_sklearn_model):
        model = read(est)
        assert model.predict_batch(X).tolist() == est.predict(X).tolist()
    decision = Explainer(est).explain(X[0].tolist())  # read as the library's class
    assert str(decision.prediction) == str(est.predict(X[:1])[0])


# -- a string seed is one feature's name -----------------------------------------------------


def test_a_string_seed_is_one_feature() -> None:
    """Features a, b and "ab": read letter by letter, "ab" would be the seed {a, b}."""
    feats = [Feature.boolean("a"), Feature.boolean("b"), Feature.boolean("ab")]
    rules = [Rule([Literal.eq("a", 1), Literal.eq("b", 1)], 1), Rule([Literal.eq("ab", 1)], 1)]
    dl = DecisionList(feats, [0, 1], rules, 0)
    x = {"a": 1, "b": 1, "ab": 1}
    with Explainer(dl).explain(x) as d:
        assert d.axp("ab") == d.axp(["ab"]) == ("ab",)
        assert d.axp(["a", "b"]) == ("a", "b")  # what the letters would have given
        with pytest.raises(InvalidSeedError, match=r"the seed \['ab'\] is not a weak CXp"):
            d.cxp("ab")  # freeing ab alone leaves a and b: the seed is the one feature
        assert d.cxp(["ab", "a"]) == ("a", "ab")
        with pytest.raises(InvalidFeatureError, match="unknown feature 'abc'"):
            d.axp("abc")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with EnsembleExplainer(dl, x) as old:
            assert old.axp("ab") == ("ab",)
        with DecisionListExplainer(dl, x) as old:
            assert old.axp("ab") == ("ab",)


# -- the deprecated explainers take a fitted estimator ---------------------------------------


def _estimators() -> list[Any]:
    X, y = _data()
    return [
        RandomForestClassifier(n_estimators=4, max_depth=3, random_state=0).fit(X, y),
        GradientBoostingClassifier(n_estimators=4, max_depth=2, random_state=0).fit(X, y),
        HistGradientBoostingClassifier(max_iter=4, max_depth=2).fit(X, y),
        DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y),
    ]


@pytest.mark.parametrize("old", [EnsembleExplainer, DecisionListExplainer])
def test_deprecated_explainers_take_a_fitted_estimator(old: type) -> None:
    X, _ = _data()
    for est in _estimators():
        x = X[3].tolist()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            decision = old(est, x)
        model = xpg.import_model(est)
        route = "sat" if isinstance(model, TreeEnsemble) else "auto"  # the old default
        with decision, Explainer(model, route=route).explain(x) as new:  # type: ignore[arg-type]
            assert decision.route == new.route
            assert decision.prediction == new.prediction == est.predict(X[3:4])[0]
            assert decision.axp() == new.axp() and decision.cxp() == new.cxp()


@pytest.mark.parametrize("old", [EnsembleExplainer, DecisionListExplainer])
def test_deprecated_explainers_refuse_what_xpg_does_not_read(old: type) -> None:
    from sklearn.linear_model import LogisticRegression

    X, y = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with pytest.raises(InvalidModelError, match="found .*LogisticRegression"):
            old(LogisticRegression().fit(X, y), X[0].tolist())
        with pytest.raises(InvalidModelError, match="not fitted"):
            old(RandomForestClassifier(), X[0].tolist())
