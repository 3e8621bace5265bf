"""The branch and bound's box splits (``LeafSearch.pair_branch_and_bound``) against brute force.

Random forests and boosted ensembles over several integer features of many cells, and forests
over one-hot groups: for every set of fixed features and every class, the branch and bound
decides as exhaustive evaluation through scikit-learn's ``predict`` does, every witness is
classified otherwise by scikit-learn, and the searches did cut boxes (ordered features and
groups) and fell back to one tree's leaves on near-ties.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest

import xpg.core.costs as costs
from xpg.core.feature_space import FeatureGroup
from xpg.core.features import Feature
from xpg.explain.ensemble import CellSpace, EnsembleOracle
from xpg.explain.ensemble.leaf_search import LeafSearch
from xpg.explain.ensemble.linear_bound import Relaxation
from xpg.models.ensemble_import import ensemble_from_sklearn

sklearn_ensemble = pytest.importorskip("sklearn.ensemble")


def _spy(monkeypatch: pytest.MonkeyPatch, name: str) -> list[Any]:
    calls: list[Any] = []
    original = getattr(LeafSearch, name)

    def spied(self: LeafSearch, *args: object, **kwargs: object) -> object:
        out = original(self, *args, **kwargs)
        calls.append(out)
        return out

    monkeypatch.setattr(LeafSearch, name, spied)
    return calls


def _fit(seed: int, kind: str, n_classes: int):
    rng = np.random.default_rng(seed)
    sizes = [int(s) for s in rng.integers(3, 8, 5)]
    X = np.column_stack([rng.integers(0, s, 150) for s in sizes]).astype(float)
    score = X @ rng.normal(size=5) + rng.normal(0, 1.5, 150)
    y = np.digitize(score, np.quantile(score, np.linspace(0, 1, n_classes + 1)[1:-1]))
    if kind == "forest":
        est = sklearn_ensemble.RandomForestClassifier(12, max_depth=5, random_state=seed)
    else:
        est = sklearn_ensemble.GradientBoostingClassifier(
            n_estimators=8, max_depth=3, random_state=seed
        )
    est.fit(X, y)
    feats = [Feature.integer(f"f{j}", 0, s - 1) for j, s in enumerate(sizes)]
    return est, feats, sizes, X


@pytest.mark.parametrize("relaxed", [False, True, "nan duals", "climb", "no answer"])
@pytest.mark.parametrize("kind", ["forest", "boosted"])
def test_every_question_agrees_with_brute_force(
    kind: str, relaxed: bool | str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``relaxed``: the linear relaxation from the first node (its bounds and points), as
    a slow question gets it; ``"nan duals"``: and HiGHS's multipliers not numbers (was:
    kept, and a node below pruned by their NaN bound); ``"climb"``: and the climb from the
    root's point to a witness; ``"no answer"``: HiGHS never solves a program (no bound
    from them, and the climb starts at the box's corner)."""
    splits = _spy(monkeypatch, "_split")
    searches = _spy(monkeypatch, "_box_search")
    climbs = _spy(monkeypatch, "greedy")
    bounds: list[Any] = []
    if relaxed:
        monkeypatch.setattr(costs, "LP_AFTER_NODES", 0)
    if relaxed in (True, "nan duals", "climb"):
        # the relaxation's points at a corner of the box: with no climb from them, the
        # questions of another class go on past the root, with the nodes' own bounds
        monkeypatch.setattr(
            Relaxation,
            "cells",
            lambda self, x, box=None: np.array(self.box_lo if box is None else box[0]),
        )
    if relaxed in (True, "nan duals"):
        greedy = LeafSearch.greedy
        monkeypatch.setattr(
            LeafSearch,
            "greedy",
            lambda self, free, passes=2, start=None: (
                None if start is not None else greedy(self, free, passes)
            ),
        )
    if relaxed:
        original = Relaxation.bound

        def spied(self: Relaxation, *args: Any) -> Any:
            bounds.append(original(self, *args))
            return bounds[-1]

        monkeypatch.setattr(Relaxation, "bound", spied)
    if relaxed == "no answer":
        import highspy

        monkeypatch.setattr(
            highspy.Highs, "getModelStatus", lambda self: highspy.HighsModelStatus.kSolveError
        )
    if relaxed == "nan duals":
        import highspy

        solved = highspy.Highs.getSolution

        def spoiled(self: Any) -> Any:
            solution = solved(self)
            solution.row_dual = [np.nan] * len(solution.row_dual)
            return solution

        monkeypatch.setattr(highspy.Highs, "getSolution", spoiled)
    asked = other = 0
    for seed in range(6):
        est, feats, sizes, X = _fit(seed, kind, 2 + seed % 2)
        grid = np.array(list(itertools.product(*[range(s) for s in sizes])), dtype=float)
        labels = est.predict(grid)
        model = ensemble_from_sklearn(est, feats)
        x = [int(v) for v in X[seed]]
        pred = est.predict(np.array([x], dtype=float))[0]
        space = CellSpace(model, x)
        with EnsembleOracle(space, exhaustive_limit=0) as oracle:
            search = oracle._search
            for r in range(len(sizes)):
                for fixed in itertools.combinations(range(len(sizes)), r):
                    keep = np.all(grid[:, list(fixed)] == np.array(x)[list(fixed)], axis=1)
                    possible = set(labels[keep].tolist()) - {pred}
                    mask = np.isin(np.arange(len(sizes)), fixed)
                    for q, pair in enumerate(search.vote.pairs):
                        decided, w = search.pair_branch_and_bound(mask, q, 10**6)
                        cls = model.classes[pair.cls]
                        assert decided, (seed, fixed, q)
                        if w is None:  # a class predicted somewhere beats the prediction there
                            assert cls not in possible, (seed, fixed, q)
                        else:
                            row = np.array([space.values(w.tolist())[f.name] for f in feats])
                            assert est.predict(row[None, :].astype(float))[0] != pred
                            assert all(w[i] == space.instance_cell[i] for i in fixed)
                            other += 1
                        asked += 1
                    found = search.branch_and_bound(mask, 10**6)
                    assert found[0] and (found[1] is not None) == bool(possible), (seed, fixed)
    assert asked > 250 and other > 50
    if relaxed == "climb":  # witnesses found by climbing from the root's point
        assert sum(c is not None for c in climbs) > 20, sum(c is not None for c in climbs)
    elif relaxed == "no answer":  # every program asked, none answered: no bound from them
        assert bounds and all(b[0] == np.inf for b in bounds)
    elif relaxed:  # the root's bound, and then the nodes' own
        assert len(bounds) > len(searches) + 100 > 350, (len(bounds), len(searches))
    else:
        assert not bounds and sum(s is not None for s in splits) > 100  # boxes were cut


def test_a_class_beaten_alone_is_found_when_it_can_win() -> None:
    """On three classes, each class the branch and bound finds possible beats the prediction
    at its witness: a witness is an input where that pair's class wins over the prediction."""
    est, feats, sizes, X = _fit(11, "forest", 3)
    model = ensemble_from_sklearn(est, feats)
    x = [int(v) for v in X[3]]
    space = CellSpace(model, x)
    found = 0
    with EnsembleOracle(space, exhaustive_limit=0) as oracle:
        search = oracle._search
        for q, pair in enumerate(search.vote.pairs):
            decided, w = search.pair_branch_and_bound(np.zeros(len(sizes), bool), q, 10**6)
            assert decided
            if w is not None:
                scores = search.vote.scores(w[None, :])[0]
                p = oracle.prediction
                assert (
                    scores[pair.cls] >= scores[p] if pair.cls < p else scores[pair.cls] > scores[p]
                )
                found += 1
    assert found >= 1


def test_groups_are_cut_and_agree_with_brute_force(monkeypatch: pytest.MonkeyPatch) -> None:
    splits = _spy(monkeypatch, "_split")
    colour = FeatureGroup.one_hot("colour", [f"c{j}" for j in range(6)])
    checked = 0
    for seed in range(8):
        rng = np.random.default_rng(seed)
        c, a, b = rng.integers(0, 6, 120), rng.integers(0, 5, 120), rng.integers(0, 5, 120)
        X = np.column_stack([np.eye(6)[c], a, b])
        y = (rng.normal(size=6)[c] + 0.4 * a - 0.3 * b + rng.normal(0, 0.6, 120)) > 0.5
        est = sklearn_ensemble.RandomForestClassifier(10, max_depth=5, random_state=seed)
        est.fit(X, y.astype(int))
        cols = [Feature.boolean(n) for n in colour.columns]
        model = ensemble_from_sklearn(
            est, [*cols, Feature.integer("a", 0, 4), Feature.integer("b", 0, 4)]
        )
        x = {"colour": "c2", "a": int(a[0]), "b": int(b[0])}
        space = CellSpace(
            model, x, [colour, Feature.integer("a", 0, 4), Feature.integer("b", 0, 4)]
        )
        grid = list(itertools.product(colour.feature.values, range(5), range(5)))
        rows = np.array([[*colour.encode(v[0]), v[1], v[2]] for v in grid], dtype=float)
        labels = est.predict(rows)
        inst = ("c2", x["a"], x["b"])
        pred = est.predict(np.array([[*colour.encode("c2"), x["a"], x["b"]]], dtype=float))[0]
        with EnsembleOracle(space, exhaustive_limit=0) as oracle:
            for r in range(3):
                for fixed in itertools.combinations(range(3), r):
                    keep = [all(v[i] == inst[i] for i in fixed) for v in grid]
                    possible = bool((labels[keep] != pred).any())
                    mask = np.isin(np.arange(3), fixed)
                    decided, w = oracle._search.branch_and_bound(mask, 10**6)
                    assert decided and (w is not None) == possible, (seed, fixed)
                    if w is not None:
                        v = space.values(w.tolist())
                        row = [*colour.encode(v["colour"]), v["a"], v["b"]]
                        assert est.predict(np.array([row], dtype=float))[0] != pred
                    checked += 1
    assert checked == 8 * 7
    group_cuts = [s for s in splits if s is not None and s[0] == 0]
    assert group_cuts  # the group's cells were cut
    for _, (part, rest) in group_cuts:
        assert part.any() and rest.any() and not (part & rest).any()
