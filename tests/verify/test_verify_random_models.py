"""Every model class, dozens of random models and instances: the library's AXps and CXps are
exactly the brute-force ones of the ORIGINAL model, and each is confirmed by the SMT verifier
on the original model (which also refutes perturbed claims with a real counterexample)."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from xpg import (
    OBDD,
    FeatureGroup,
    bdd_manager,
    compile_decision_list,
    compile_tree,
    from_sklearn_tree,
)
from xpg.core.feature_space import FeatureSpace, representative
from xpg.core.features import Feature
from xpg.core.graph import DecisionGraph
from xpg.core.xpgraph import ExplanationGraph
from xpg.explain.marco import enumerate_explanations
from xpg.testing import (
    Oracle,
    float32_representatives,
    grid_from_literals,
    merge_subtrees,
    one_hot_group,
    random_decision_list,
    random_decision_tree,
    random_features,
    random_instance,
    random_omdd,
    random_sklearn_tree,
    sklearn_thresholds,
)
from xpg.verify.verifier import Verifier

pytestmark = pytest.mark.slow


def check_instance(
    model: Any,
    dg: DecisionGraph,
    verifier: Verifier,
    grid: dict[str, list[Any]],
    instance: dict[str, Any],
    rng: random.Random,
    predict_many: Callable[[list[dict[str, Any]]], list[Any]] | None = None,
) -> int:
    """Compare enumeration with brute force, SMT-check every explanation; return #checked."""
    dg.validate()
    features = verifier.features
    predict = verifier.predict
    assert dg.predict(instance) == predict(instance)
    tested = dg.tested_features()
    truth = Oracle.of_model(predict, features, grid, instance, tested, predict_many)
    axps, cxps = truth.axps, truth.cxps
    xg = ExplanationGraph.from_decision_graph(dg, instance)
    result = enumerate_explanations(xg)
    assert result.complete
    assert {frozenset(a) for a in result.axps} == axps
    assert {frozenset(c) for c in result.cxps} == cxps
    assert len(result.axps) == len(axps) and len(result.cxps) == len(cxps)
    for a in result.axps:
        verdict = verifier.verify_axp(instance, a)
        assert verdict.holds, verdict
        assert set(verdict.witnesses) == set(a)
        for w in verdict.witnesses.values():
            assert predict(w) != verdict.prediction
    for c in result.cxps:
        verdict = verifier.verify_cxp(instance, c)
        assert verdict.holds, verdict
        assert predict(verdict.witnesses[""]) != verdict.prediction
    # perturbed claims are refused with evidence the original model confirms
    for a in result.axps:
        if a:
            drop = rng.choice(a)
            verdict = verifier.verify_axp(instance, [n for n in a if n != drop])
            assert not verdict.holds and verdict.failure == "not-sufficient"
            x = verdict.counterexample
            assert x is not None and predict(x) != predict(instance)
            assert all(x[n] == instance[n] for n in a if n != drop)
        extra = [n for n in tested if n not in a]
        if extra:
            verdict = verifier.verify_axp(instance, [*a, rng.choice(extra)])
            assert not verdict.holds and verdict.failure == "not-minimal"
    for c in result.cxps:
        extra = [n for n in tested if n not in c]
        if extra:
            verdict = verifier.verify_cxp(instance, [*c, rng.choice(extra)])
            assert not verdict.holds and verdict.failure == "not-minimal"
            y = verdict.counterexample
            assert y is not None and predict(y) != predict(instance)
        if len(c) > 1:
            verdict = verifier.verify_cxp(instance, c[1:])
            assert not verdict.holds and verdict.failure == "not-contrastive"
    if not result.cxps:  # constant on the instance's neighbourhood: the empty AXp
        assert result.axps == [()]
    return len(result.axps) + len(result.cxps)


def test_own_decision_trees() -> None:
    rng = random.Random(11)
    checked = 0
    for _ in range(30):
        feats = random_features(rng, rng.randint(2, 5))
        tree = random_decision_tree(rng, feats, rng.randint(2, 3), rng.randint(1, 4))
        dg = compile_tree(tree)
        lits = [lit for _, n in tree.walk() if hasattr(n, "branches") for lit, _ in n.branches]
        grid = grid_from_literals(feats, lits)
        with Verifier(tree) as v:
            for _ in range(2):
                checked += check_instance(tree, dg, v, grid, random_instance(rng, feats, grid), rng)
    assert checked > 60


@pytest.mark.parametrize("kinds", [["boolean"], None])
def test_decision_lists(kinds: list[str] | None) -> None:
    """Boolean features (OBDD with dd) and mixed features (ordered MDD)."""
    rng = random.Random(12 if kinds else 13)
    checked = 0
    for i in range(30):
        feats = random_features(rng, rng.randint(2, 5), kinds)
        dl = random_decision_list(rng, feats, rng.randint(2, 3), rng.randint(1, 6))
        order = [f.name for f in feats]
        rng.shuffle(order)
        backend: Any = "cudd" if i % 2 else "autoref"
        dg = compile_decision_list(dl, order=order, backend=backend)
        grid = grid_from_literals(feats, [lit for r in dl.rules for lit in r.conditions])
        with Verifier(dl) as v:
            for _ in range(2):
                checked += check_instance(dl, dg, v, grid, random_instance(rng, feats, grid), rng)
    assert checked > 60


@pytest.mark.parametrize("backend", ["autoref", "cudd"])
def test_obdds_built_with_dd(backend: str) -> None:
    """Random functions built with dd (complemented references included), random orders."""
    rng = random.Random(14)
    checked = 0
    for _ in range(20):
        n = rng.randint(2, 6)
        names = [f"b{i}" for i in range(n)]
        rng.shuffle(names)
        bdd = bdd_manager(names, backend)  # type: ignore[arg-type]
        u = bdd.false
        for _ in range(rng.randint(1, 4)):
            term = bdd.true
            for v in rng.sample(names, rng.randint(1, min(3, n))):
                term &= bdd.var(v) if rng.random() < 0.5 else ~bdd.var(v)
            u = u | term if rng.random() < 0.7 else bdd.apply("xor", u, term)
        if rng.random() < 0.5:
            u = ~u
        feats = [Feature.boolean(f"b{i}") for i in range(n)]
        if rng.random() < 0.5:
            model = OBDD(u, feats, classes=["no", "yes"])
        else:  # three classes, one function each
            w = bdd.var(names[0]) & ~u
            model = OBDD({"a": u, "b": w, "c": ~u & ~w}, feats)
        dg = model.to_decision_graph()
        grid = {f.name: [0, 1] for f in feats}
        with Verifier(model) as ver:
            for _ in range(2):
                inst = random_instance(rng, feats, grid)
                checked += check_instance(model, dg, ver, grid, inst, rng)
    assert checked > 40


def test_omdds_given_node_by_node() -> None:
    rng = random.Random(15)
    checked = 0
    for _ in range(30):
        feats = random_features(rng, rng.randint(2, 4), ["boolean", "categorical", "integer"])
        omdd = random_omdd(rng, feats, rng.randint(2, 3))
        dg = omdd.to_decision_graph()
        grid = grid_from_literals(feats, [])
        with Verifier(omdd) as v:
            for _ in range(2):
                checked += check_instance(omdd, dg, v, grid, random_instance(rng, feats, grid), rng)
    assert checked > 60


def test_general_decision_graphs() -> None:
    """DAGs given node by node (merged random trees); the DG itself is the original model."""
    rng = random.Random(16)
    checked = 0
    for _ in range(25):
        feats = random_features(rng, rng.randint(2, 4))
        tree = random_decision_tree(rng, feats, 2, rng.randint(2, 4))
        dg = merge_subtrees(compile_tree(tree))
        grid = grid_from_literals(feats, [lit for _, _, lit in dg.edges])
        with Verifier(dg) as v:
            for _ in range(2):
                checked += check_instance(dg, dg, v, grid, random_instance(rng, feats, grid), rng)
    assert checked > 50


def _sklearn_grid(clf: Any, space: FeatureSpace) -> dict[str, list[Any]]:
    thresholds = sklearn_thresholds(clf)
    grid: dict[str, list[Any]] = {}
    for j, (i, _) in enumerate(space.owner):
        entry = space.entries[i]
        f = space.features[i]
        if isinstance(entry, FeatureGroup):  # one value per cell: the tree cannot see more
            grid[f.name] = [representative(f, cell) for cell, _ in entry.cells]
        elif f.kind == "real":
            grid[f.name] = float32_representatives(thresholds.get(j, [])) or [0.0]
        else:
            grid[f.name] = (
                list(f.values) if f.is_discrete else list(range(int(f.low), int(f.high) + 1))
            )
    return grid


def _sklearn_predict_many(clf: Any, space: FeatureSpace) -> Callable[[list[dict]], list[Any]]:
    def run(points: list[dict[str, Any]]) -> list[Any]:
        X = np.asarray([space.encode(p) for p in points], dtype=np.float64)
        return [x.item() for x in clf.predict(X)]

    return run


@pytest.mark.parametrize("n_classes", [2, 3])
def test_sklearn_trees(n_classes: int) -> None:
    """Brute force on estimator.predict itself, over float32 cells of every threshold."""
    rng = random.Random(17 + n_classes)
    checked = 0
    for _ in range(15):
        clf, feats, X = random_sklearn_tree(rng, rng.randint(2, 4), n_classes, rng.randint(2, 4))
        dg = from_sklearn_tree(clf, feats)
        space = FeatureSpace(feats)
        grid = _sklearn_grid(clf, space)
        with Verifier(clf, feats) as v:
            for _ in range(2):
                row = X[rng.randrange(len(X))]
                inst = {
                    f.name: (int(x) if f.kind != "real" else float(x)) for f, x in zip(feats, row)
                }
                checked += check_instance(
                    clf, dg, v, grid, inst, rng, _sklearn_predict_many(clf, space)
                )
    assert checked > 30


def test_sklearn_trees_on_feature_groups() -> None:
    """Categorical attributes as one-hot columns and a real attribute as bins: explanations
    name the attribute, and freeing it ranges over its values only (never two columns hot at
    once, never an empty bin vector)."""
    from sklearn.tree import DecisionTreeClassifier

    rng = random.Random(19)
    checked = 0
    for _ in range(12):
        nrng = np.random.default_rng(rng.randrange(2**32))
        groups = [one_hot_group(f"g{k}", rng.randint(2, 4)) for k in range(rng.randint(1, 3))]
        encoding = rng.choice(["one-hot", "thermometer"])
        bins = FeatureGroup.bins("z", [-1.0, 0.0, 1.5], encoding=encoding)
        entries: list[Any] = [*groups, Feature.real("r"), bins]
        space = FeatureSpace(entries)
        rows = []
        for _ in range(300):
            inst = {g.feature.name: rng.choice(g.feature.values) for g in groups}
            inst["r"] = round(float(nrng.normal(0, 2)), 2)
            inst["z"] = round(float(nrng.normal(0, 2)), 2)
            rows.append(inst)
        X = np.asarray([space.encode(r) for r in rows], dtype=np.float64)
        y = (X @ nrng.normal(size=X.shape[1]) > 0).astype(int)
        clf = DecisionTreeClassifier(max_depth=rng.randint(2, 5), random_state=0).fit(X, y)
        dg = from_sklearn_tree(clf, entries)
        grid = _sklearn_grid(clf, space)
        with Verifier(clf, entries) as v:
            for _ in range(2):
                inst = rows[rng.randrange(len(rows))]
                checked += check_instance(
                    clf, dg, v, grid, inst, rng, _sklearn_predict_many(clf, space)
                )
    assert checked > 20
