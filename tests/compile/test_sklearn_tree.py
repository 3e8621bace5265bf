"""The scikit-learn tree compiler: exact agreement, and feature-level minimal explanations."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_iris, load_wine
from sklearn.tree import DecisionTreeClassifier

from xpg import (
    ExplanationGraph,
    Feature,
    FeatureGroup,
    InvalidModelError,
    enumerate_explanations,
    from_sklearn_tree,
    real_features,
)
from xpg.compile import float32_cut
from xpg.explain.axp_cxp import is_weak_axp
from xpg.explain.describe import axp_conditions, counterexample


def test_float32_cut_is_exact() -> None:
    rng = np.random.default_rng(0)
    for t in np.concatenate([rng.normal(size=200) * 10.0 ** rng.integers(-3, 4, size=200), [0.5]]):
        c = float32_cut(float(t))
        assert np.float32(c) <= t
        assert not np.float32(np.nextafter(c, np.inf)) <= t


@pytest.mark.parametrize("loader", [load_breast_cancer, load_iris, load_wine])
@pytest.mark.parametrize("depth", [2, 6, None])
def test_compiled_tree_agrees_with_predict(loader, depth) -> None:
    data = loader()
    X, y = data.data, data.target
    clf = DecisionTreeClassifier(max_depth=depth, random_state=0).fit(X, y)
    dg = from_sklearn_tree(clf, real_features(data.feature_names))
    dg.validate()
    assert dg.is_tree()
    rng = np.random.default_rng(1)
    # data points, random points, and points at and next to every threshold
    thr = clf.tree_.threshold[clf.tree_.feature >= 0]
    feat = clf.tree_.feature[clf.tree_.feature >= 0]
    probes = [X, rng.normal(X.mean(0), X.std(0) * 2, size=(2000, X.shape[1]))]
    for f, t in zip(feat, thr):
        base = X[rng.integers(len(X), size=4)].copy()
        for v in (t, float32_cut(t), np.nextafter(float32_cut(t), np.inf), np.float32(t)):
            b = base.copy()
            b[:, f] = v
            probes.append(b)
    P = np.vstack(probes)
    expected = clf.predict(P)
    got = [dg.predict(list(row)) for row in P]
    assert list(expected) == got


def test_breast_cancer_explanations_are_feature_level_and_minimal() -> None:
    data = load_breast_cancer()
    clf = DecisionTreeClassifier(max_depth=6, random_state=0).fit(data.data, data.target)
    dg = from_sklearn_tree(clf, real_features(data.feature_names))
    repeated = {f for f in clf.tree_.feature if f >= 0 and (clf.tree_.feature == f).sum() > 1}
    assert repeated, "the test needs features tested at several thresholds"
    names = set(data.feature_names)
    for row in range(0, len(data.data), 23):
        xg = ExplanationGraph.from_decision_graph(dg, list(data.data[row]))
        result = enumerate_explanations(xg)
        assert result.complete
        for kind, lists in (("axp", result.axps), ("cxp", result.cxps)):
            sets = [frozenset(x) for x in lists]
            assert len(sets) == len(set(sets)), f"a repeated {kind}"
            assert all(not a < b for a in sets for b in sets), f"a {kind} inside another"
            assert all(x <= names for x in sets)
        for axp in result.axps:
            idx = xg.indices(axp)
            assert is_weak_axp(xg, idx)
            assert all(not is_weak_axp(xg, idx - {i}) for i in idx)
        # the conditions of an AXp are one per feature, and the counterexamples flip
        for axp in result.axps[:1]:
            assert len(axp_conditions(xg, axp)) == len(axp)
        for cxp in result.cxps:
            change, other = counterexample(xg, cxp)
            assert set(change) <= set(cxp) and other != xg.prediction
            x = dict(zip(data.feature_names, data.data[row]))
            x.update(change)
            assert (
                clf.predict(np.array([[x[n] for n in data.feature_names]]))[0]
                != clf.predict(data.data[row : row + 1])[0]
            )


def test_boolean_and_categorical_columns_get_value_sets() -> None:
    rng = np.random.default_rng(3)
    X = np.column_stack([rng.integers(0, 2, 300), rng.integers(0, 4, 300), rng.normal(size=300)])
    y = (X[:, 0].astype(bool) ^ (X[:, 1] >= 2)) | (X[:, 2] > 1)
    clf = DecisionTreeClassifier(random_state=0).fit(X, y)
    feats = [Feature.boolean("b"), Feature.categorical("k", [0, 1, 2, 3]), Feature.real("r")]
    dg = from_sklearn_tree(clf, feats, ["neg", "pos"])
    dg.validate()
    assert all(lit.is_value_set for _, _, lit in dg.edges if lit.feature in ("b", "k"))
    for row in X[:100]:
        assert dg.predict(list(row)) == ["neg", "pos"][int(clf.predict(row[None])[0])]


def test_bounded_domain_bypasses_empty_branches() -> None:
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    clf = DecisionTreeClassifier(random_state=0).fit(X, [0, 1, 0, 1])
    dg = from_sklearn_tree(clf, [Feature.real("x", 0.0, 1.2)])
    dg.validate()  # the splits beyond 1.2 are removed, not kept as empty edges
    for v in np.linspace(0, 1.2, 50):
        assert dg.predict([v]) == clf.predict([[v]])[0]


def test_compiler_errors() -> None:
    clf = DecisionTreeClassifier().fit([[0.0], [1.0]], [0, 1])
    with pytest.raises(InvalidModelError, match="expected 1 features"):
        from_sklearn_tree(clf, real_features(["a", "b"]))
    with pytest.raises(InvalidModelError, match="expected a fitted DecisionTreeClassifier"):
        from_sklearn_tree(object())
    with pytest.raises(InvalidModelError, match="numeric category codes"):
        from_sklearn_tree(clf, [Feature.categorical("a", ["x", "y"])])
    multi = DecisionTreeClassifier().fit([[0.0], [1.0]], [[0, 1], [1, 0]])
    with pytest.raises(InvalidModelError, match="single-output"):
        from_sklearn_tree(multi)


def test_sklearn_groups_must_cover_the_columns() -> None:
    rng = np.random.default_rng(0)
    X = np.eye(3)[rng.integers(0, 3, 50)]
    clf = DecisionTreeClassifier(random_state=0).fit(X, X[:, 0])
    with pytest.raises(InvalidModelError, match="covering the tree's 3 input columns"):
        from_sklearn_tree(clf, [FeatureGroup.one_hot("c", ["a", "b"])])
    dg = from_sklearn_tree(clf, [FeatureGroup.one_hot("c", ["a", "b", "d"])])
    assert dg.tested_features() == ["c"]
    assert [dg.predict([v]) for v in ("a", "b", "d")] == [1.0, 0.0, 0.0]
