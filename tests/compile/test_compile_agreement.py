"""Every compiler: the decision graph passes validate() and agrees with the original model on
every input of small discrete domains, and on thousands of sampled inputs plus every
threshold boundary point for real features."""

from __future__ import annotations

import itertools
import random
from typing import Any

import numpy as np
import pytest

from xpg import (
    OBDD,
    FeatureGroup,
    bdd_manager,
    compile_decision_list,
    compile_tree,
    decision_list_to_obdd,
    from_bdd,
    from_sklearn_tree,
)
from xpg.compile import float32_cut
from xpg.core.feature_space import FeatureSpace
from xpg.core.features import Feature, Literal
from xpg.core.graph import DecisionGraph
from xpg.models.decision_list import DecisionList, Rule
from xpg.testing import (
    GRID,
    domain_values,
    random_decision_list,
    random_decision_tree,
    random_features,
    random_omdd,
    random_sklearn_tree,
)


def _inputs(features: list[Feature], rng: random.Random, samples: int = 300) -> list[list[Any]]:
    """All inputs of small discrete domains; real features: every grid point, points next to
    it, and random reals."""
    axes = []
    for f in features:
        if f.kind != "real":
            axes.append(domain_values(f))
        else:
            pts = {g + d for g in GRID for d in (0.0, -1e-9, 1e-9)} | {-100.0, 100.0}
            axes.append(sorted(p for p in pts if f.low <= p <= f.high))
    everything = list(itertools.product(*axes))
    if len(everything) > 5000:
        everything = rng.sample(everything, 5000)
    out = [list(x) for x in everything]
    for _ in range(samples):
        out.append(
            [
                rng.choice(ax) if f.kind != "real" else min(max(rng.uniform(-2, 10), f.low), f.high)
                for f, ax in zip(features, axes)
            ]
        )
    return out


def _agree(model: Any, dg: DecisionGraph, inputs: list[list[Any]]) -> None:
    dg.validate()
    for x in inputs:
        assert dg.predict(x) == model.predict(x), x


@pytest.mark.slow
def test_own_trees_agree() -> None:
    rng = random.Random(1)
    for _ in range(60):
        feats = random_features(rng, rng.randint(1, 4))
        tree = random_decision_tree(rng, feats, rng.randint(2, 4), rng.randint(1, 5))
        _agree(tree, compile_tree(tree), _inputs(feats, rng))


@pytest.mark.parametrize("method", ["auto", "mdd"])
def test_decision_lists_agree(method: str) -> None:
    rng = random.Random(2)
    for _ in range(60):
        feats = random_features(rng, rng.randint(1, 4))
        dl = random_decision_list(rng, feats, rng.randint(2, 4), rng.randint(0, 8))
        _agree(dl, compile_decision_list(dl, method=method), _inputs(feats, rng))  # type: ignore[arg-type]


@pytest.mark.parametrize("backend", ["autoref", "cudd"])
def test_boolean_decision_lists_obdd_is_reduced_and_canonical(backend: str) -> None:
    """The dd OBDD and the hand-built ordered MDD of a boolean list are the same reduced
    diagram (equal sizes), for any variable order; every input agrees."""
    rng = random.Random(3)
    for _ in range(60):
        n = rng.randint(1, 6)
        feats = random_features(rng, n, ["boolean"])
        dl = random_decision_list(rng, feats, rng.randint(2, 4), rng.randint(0, 8))
        order = [f.name for f in feats]
        rng.shuffle(order)
        via_bdd = compile_decision_list(dl, order=order, method="bdd", backend=backend)  # type: ignore[arg-type]
        via_mdd = compile_decision_list(dl, order=order, method="mdd")
        assert len(via_bdd) == len(via_mdd)
        assert via_bdd.n_edges == via_mdd.n_edges
        inputs = [list(x) for x in itertools.product((0, 1), repeat=n)]
        _agree(dl, via_bdd, inputs)
        _agree(dl, via_mdd, inputs)
        # every path tests the features in the order
        level = {name: i for i, name in enumerate(order)}
        for p, c, _ in via_bdd.edges:
            fp, fc = via_bdd.feature_of(via_bdd.nodes[p]), via_bdd.feature_of(via_bdd.nodes[c])
            if fc is not None:
                assert level[str(fp)] < level[fc]


def test_decision_list_paper_example_9() -> None:
    """Sec. 7, Example 9: DL = {x1 x2 -> 1, not x1 x2 -> 0, default 0} is x1 AND x2."""
    feats = [Feature.boolean("x1"), Feature.boolean("x2")]
    dl = DecisionList(
        feats,
        [0, 1],
        [
            Rule([Literal.eq("x1", 1), Literal.eq("x2", 1)], 1),
            Rule([Literal.eq("x1", 0), Literal.eq("x2", 1)], 0),
        ],
        0,
    )
    obdd = decision_list_to_obdd(dl)
    bdd = obdd.bdd
    assert obdd.functions[1] == bdd.var("x1") & bdd.var("x2")
    assert obdd.n_nodes == 3  # x1, x2 and the constant node (complemented edges)
    dg = compile_decision_list(dl)
    assert len(dg) == 4  # x1, x2, terminal 0, terminal 1


@pytest.mark.parametrize("backend", ["autoref", "cudd"])
def test_obdds_with_complemented_edges_agree(backend: str) -> None:
    rng = random.Random(4)
    for _ in range(60):
        n = rng.randint(1, 6)
        names = [f"v{i}" for i in range(n)]
        rng.shuffle(names)
        bdd = bdd_manager(names, backend)  # type: ignore[arg-type]
        u = bdd.true if rng.random() < 0.5 else bdd.false
        for _ in range(rng.randint(1, 5)):
            lit = bdd.var(rng.choice(names))
            lit = ~lit if rng.random() < 0.5 else lit
            u = bdd.apply(rng.choice(["and", "or", "xor"]), u, lit)
            if rng.random() < 0.3:
                u = ~u
        for f in (u, ~u):
            dg = from_bdd(f)
            dg.validate()
            for x in itertools.product((0, 1), repeat=n):
                assignment = {v: bool(x[int(v[1:])]) for v in names}
                expected = int(bdd.let(assignment, f) == bdd.true)
                inst = {f"v{i}": x[i] for i in range(n)}
                assert dg.predict(inst) == expected
        # a function and its negation have diagrams of the same shape
        assert len(from_bdd(u)) == len(from_bdd(~u))


def test_omdds_agree() -> None:
    rng = random.Random(5)
    for _ in range(60):
        feats = random_features(rng, rng.randint(1, 4), ["boolean", "categorical", "integer"])
        omdd = random_omdd(rng, feats, rng.randint(2, 4))
        _agree(omdd, omdd.to_decision_graph(), _inputs(feats, rng, samples=0))


def _boundary_probes(clf: Any, X: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Rows at, and next to, every threshold (the float64 cut and the float32 value)."""
    t = clf.tree_
    probes = []
    for f, thr in zip(t.feature, t.threshold):
        if f < 0:
            continue
        base = X[rng.integers(len(X), size=3)].copy()
        cut = float32_cut(float(thr))
        for v in (thr, cut, np.nextafter(cut, np.inf), np.nextafter(cut, -np.inf), np.float32(thr)):
            b = base.copy()
            b[:, f] = v
            probes.append(b)
    return np.vstack(probes) if probes else X[:0]


@pytest.mark.parametrize("depth", [6, 12, 20])
@pytest.mark.slow
def test_sklearn_trees_any_depth_multiclass(depth: int) -> None:
    rng = random.Random(depth)
    nrng = np.random.default_rng(depth)
    for n_classes in (2, 3, 5):
        clf, feats, X = random_sklearn_tree(rng, 6, n_classes, depth, n_samples=1500)
        dg = from_sklearn_tree(clf, [Feature.real(f.name) for f in feats])
        dg.validate()
        sampled = nrng.normal(X.mean(0), X.std(0) * 2 + 0.1, size=(2000, X.shape[1]))
        P = np.vstack([X, sampled, _boundary_probes(clf, X, nrng)])
        expected = clf.predict(P).tolist()
        assert [dg.predict(list(row)) for row in P] == expected
        # with the declared boolean / integer domains: every value of the discrete features
        dg2 = from_sklearn_tree(clf, feats)
        dg2.validate()
        for row, e in zip(P[: len(X)], expected[: len(X)]):
            assert dg2.predict([int(v) if f.kind != "real" else v for f, v in zip(feats, row)]) == e


def test_sklearn_tree_with_feature_groups_agrees() -> None:
    """One-hot columns (in a shuffled column order, matched by name), thermometer-encoded
    bins of an integer attribute and a plain real column."""
    import pandas as pd
    from sklearn.tree import DecisionTreeClassifier

    rng = np.random.default_rng(6)
    colour = FeatureGroup.one_hot("colour", ["red", "green", "blue", "grey"])
    age = FeatureGroup.bins(
        "age", [20, 40, 60], encoding="thermometer", kind="integer", low=0, high=99
    )
    space = FeatureSpace([colour, age, Feature.real("income")])
    rows = [
        {"colour": c, "age": int(a), "income": float(i)}
        for c, a, i in zip(
            rng.choice(colour.feature.values, 800),
            rng.integers(0, 100, 800),
            np.round(rng.normal(50, 20, 800), 1),
        )
    ]
    columns = list(space.columns)
    rng.shuffle(columns)
    frame = pd.DataFrame([space.encode(r) for r in rows], columns=space.columns)[columns]
    y = [(r["colour"] in ("red", "blue")) ^ (r["age"] > 40) ^ (r["income"] > 55) for r in rows]
    clf = DecisionTreeClassifier(max_depth=8, random_state=0).fit(frame, y)
    dg = from_sklearn_tree(clf, [colour, age, Feature.real("income")])
    dg.validate()
    assert set(dg.tested_features()) <= {"colour", "age", "income"}
    # every feature-level input: all colours x every age x incomes at and around thresholds
    incomes = sorted(
        {
            float(v)
            for f, t in zip(clf.tree_.feature, clf.tree_.threshold)
            if f >= 0 and frame.columns[f] == "income"
            for v in (t, float32_cut(t), np.nextafter(float32_cut(t), np.inf))
        }
        | {0.0, 100.0}
    )
    inputs = [
        {"colour": c, "age": a, "income": i}
        for c in colour.feature.values
        for a in range(0, 100, 3)
        for i in incomes
    ]
    cols = pd.DataFrame([space.encode(r) for r in inputs], columns=space.columns)[columns]
    expected = clf.predict(cols).tolist()
    assert [dg.predict(r) for r in inputs] == expected


def test_obdd_class_functions_must_partition() -> None:
    from xpg.errors import InvalidModelError

    bdd = bdd_manager(["a", "b"])
    a, b = bdd.var("a"), bdd.var("b")
    with pytest.raises(InvalidModelError, match="overlaps"):
        OBDD({"x": a, "y": b, "z": ~a & ~b})
    with pytest.raises(InvalidModelError, match="without a class"):
        OBDD({"x": a & b, "y": ~a})
    model = OBDD({"x": a & b, "y": ~a, "z": a & ~b})
    assert [model.predict([i, j]) for i in (0, 1) for j in (0, 1)] == ["y", "y", "z", "x"]
