"""The linear relaxation's bound (:mod:`xpg.explain.ensemble.linear_bound`) against brute
force.

On random forests and boosted ensembles over integer features and over a one-hot group: for
random boxes of cells and every class the prediction must lose to, the bound is never below
the best score difference of any input of the box (every input evaluated), never above the
bound that lets each tree choose alone, and strictly below it on some boxes; its point lies
in the box; and a solve told to stop at a bound that suffices still gives a bound, one
within what it was told.  (The branch and bound that uses it is checked in ``test_box_splits.py``.)
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest

from xpg.core.feature_space import FeatureGroup
from xpg.core.features import Feature
from xpg.explain.ensemble import CellSpace, EnsembleOracle
from xpg.explain.ensemble.linear_bound import Relaxation
from xpg.models.ensemble_import import ensemble_from_sklearn
from xpg.testing.ensembles import random_sklearn_ensemble

sklearn_ensemble = pytest.importorskip("sklearn.ensemble")


def _grouped(seed: int):
    colour = FeatureGroup.one_hot("colour", [f"c{j}" for j in range(5)])
    rng = np.random.default_rng(seed)
    c, a = rng.integers(0, 5, 120), rng.integers(0, 5, 120)
    X = np.column_stack([np.eye(5)[c], a])
    y = (rng.normal(size=5)[c] + 0.4 * a + rng.normal(0, 0.6, 120)) > 0.5
    est = sklearn_ensemble.RandomForestClassifier(8, max_depth=4, random_state=seed)
    est.fit(X, y.astype(int))
    cols = [Feature.boolean(n) for n in colour.columns]
    model = ensemble_from_sklearn(est, [*cols, Feature.integer("a", 0, 4)])
    space = CellSpace(model, {"colour": "c1", "a": int(a[0])}, [colour, Feature.integer("a", 0, 4)])
    return space


def _spaces():
    for seed in range(8):
        kind = ("forest", "boosted")[seed % 2]
        est, feats, points = random_sklearn_ensemble(
            seed, kind, n_features=4, n_classes=2 + seed % 2, n_trees=10, depth=5
        )
        x = {f.name: v for f, v in zip(feats, points[seed].tolist())}
        yield seed, CellSpace(ensemble_from_sklearn(est, feats), x)
    for seed in range(4):
        yield 100 + seed, _grouped(seed)


def test_the_bound_is_never_below_any_input_of_the_box() -> None:
    tighter = boxes = narrower = 0
    for seed, space in _spaces():
        rng = np.random.default_rng(seed)
        with EnsembleOracle(space, exhaustive_limit=0) as oracle:
            search = oracle._search
            table = search.table
            k = np.asarray(space.n_cells)
            ordered = np.asarray(space.ordered, dtype=bool)
            for _ in range(12):
                a = np.array([rng.integers(0, n) for n in k])
                b = np.array([rng.integers(lo + 1, n + 1) for lo, n in zip(a, k)])
                a[~ordered], b[~ordered] = 0, k[~ordered]
                chosen = {i: rng.random(k[i]) < 0.6 for i in table.sets}
                for i, cur in chosen.items():
                    cur[rng.integers(0, k[i])] = True
                grid = np.array(
                    list(
                        itertools.product(
                            *[
                                np.flatnonzero(chosen[i]) if i in chosen else range(a[i], b[i])
                                for i in range(len(k))
                            ]
                        )
                    )
                )
                inside = np.all((table.lo < b) & (table.hi > a), axis=1)
                for i, cur in chosen.items():
                    inside &= (table.sets[i] & cur).any(axis=1)
                leaves = np.flatnonzero(inside)
                # per input, the leaf of each tree holding it
                holds = np.ones((len(grid), len(leaves)), dtype=bool)
                for i in range(len(k)):
                    if i in table.sets:
                        holds &= table.sets[i][leaves][:, grid[:, i]].T
                    else:
                        col = grid[:, i][:, None]
                        holds &= (table.lo[leaves, i] <= col) & (col < table.hi[leaves, i])
                assert (holds.sum(axis=1) == len(table.starts)).all()
                groups = {i: (table.sets[i][leaves], cur) for i, cur in chosen.items()}
                for pair in search.vote.pairs:
                    u = pair.u[leaves]
                    best = float((holds * u).sum(axis=1).max())
                    relax = Relaxation(
                        u, table.tree[leaves], table.lo[leaves], table.hi[leaves],
                        (a, b, ordered), groups,
                    )  # fmt: skip
                    bound, cells = relax.bound()
                    alone = search.bound(pair, inside) - float(pair.const)
                    assert best - 1e-9 <= bound <= alone + 1e-9, (seed, a, b)
                    tighter += bound < alone - 1e-6
                    boxes += 1
                    # the dual solution bounds every box inside without a solver
                    sub = _inside(rng, a, b, chosen, ordered)
                    in_sub = _in_box(grid, *sub)
                    meets = _meets(table, leaves, *sub)
                    assert relax.dual is not None
                    inherited = relax.dual.value_inside(meets, sub)
                    # on the columns it leaves free, the value of the dual over them all
                    reference = relax.dual.value(*relax.column_bounds(meets, sub))
                    assert abs(inherited - reference) <= 1e-9 * (1 + abs(reference))
                    sub_best = float((holds[in_sub] * u).sum(axis=1).max())
                    assert sub_best - 1e-9 <= inherited <= bound + 1e-9, (seed, a, b, sub)
                    narrower += inherited < bound - 1e-6
                    # and the same program solved again with the variables that box fixes
                    again, point = relax.bound(meets, sub)
                    assert sub_best - 1e-9 <= again <= inherited + 1e-6, (seed, a, b, sub)
                    assert in_sub[np.flatnonzero((grid == point).all(axis=1))].all()
                    assert all(
                        chosen[i][c] if i in chosen else a[i] <= c < b[i]
                        for i, c in enumerate(cells.tolist())
                    )
                    # asked to stop once it proves a bound of ``enough``: a bound still, and
                    # one at most enough when the least bound is below it
                    for enough in (again + 0.05, (sub_best + again) / 2, sub_best - 0.05):
                        relax.bound()  # from the root's basis again, not the box's own
                        stopped, _ = relax.bound(meets, sub, enough)
                        assert max(sub_best - 1e-9, again - 1e-6) <= stopped, (seed, a, b, sub)
                        if enough > again + 1e-6:
                            assert stopped <= enough + 1e-6, (seed, a, b, sub, enough)
    assert boxes > 150 and tighter > 20
    assert narrower > 50


def _inside(
    rng: np.random.Generator, a: np.ndarray, b: np.ndarray, chosen: dict, ordered: np.ndarray
):
    """A random box inside ``[a, b)`` and ``chosen``: its lo, hi and group cells."""
    sa = np.array([rng.integers(lo, hi) for lo, hi in zip(a, b)])
    sb = np.array([rng.integers(lo + 1, hi + 1) for lo, hi in zip(sa, b)])
    sa[~ordered], sb[~ordered] = a[~ordered], b[~ordered]
    sets = {}
    for i, cur in chosen.items():
        sets[i] = cur & (rng.random(len(cur)) < 0.6)
        sets[i][rng.choice(np.flatnonzero(cur))] = True
    return sa, sb, sets


def _in_box(grid: np.ndarray, lo: np.ndarray, hi: np.ndarray, sets: dict) -> np.ndarray:
    keep = np.all((grid >= lo) & (grid < hi), axis=1)
    for i, cur in sets.items():
        keep &= cur[grid[:, i]]
    return keep


def _meets(table, leaves: np.ndarray, lo: np.ndarray, hi: np.ndarray, sets: dict) -> np.ndarray:
    """The positions in ``leaves`` (the relaxation's columns) of the leaves meeting the box."""
    meets = np.all((table.lo[leaves] < hi) & (table.hi[leaves] > lo), axis=1)
    for i, cur in sets.items():
        meets &= (table.sets[i][leaves] & cur).any(axis=1)
    return np.flatnonzero(meets)


def test_a_solve_told_what_suffices_stops_there_with_a_bound() -> None:
    """On programs large enough to take HiGHS many iterations (40 trees of depth 6), a
    solve of a box inside, from the whole box's basis, told a bound that suffices: it
    stops early on some (HiGHS's objective bound), and every answer is at least the
    program's least bound (weak duality: any dual solution bounds it) and at most what
    suffices."""
    import highspy

    stopped_early = boxes = 0
    for seed in range(3):
        est, feats, points = random_sklearn_ensemble(
            seed, "forest", n_features=6, n_classes=2, n_trees=40, depth=6
        )
        x = {f.name: v for f, v in zip(feats, points[0].tolist())}
        space = CellSpace(ensemble_from_sklearn(est, feats), x)
        rng = np.random.default_rng(seed)
        with EnsembleOracle(space, exhaustive_limit=0) as oracle:
            table, pair = oracle._search.table, oracle._search.vote.pairs[0]
            k = np.asarray(space.n_cells)
            ordered = np.ones(len(k), dtype=bool)
            whole = (np.zeros(len(k), dtype=np.int64), k)
            leaves = np.arange(len(table.tree))
            relax = Relaxation(pair.u, table.tree, table.lo, table.hi, (*whole, ordered))
            for _ in range(20):
                sub = _inside(rng, *whole, {}, ordered)
                meets = _meets(table, leaves, *sub)
                least, _ = relax.bound(meets, sub)
                for enough in (least + 0.5, least + 0.05, least - 0.05):
                    relax.bound()
                    stopped, _ = relax.bound(meets, sub, enough)
                    assert least - 1e-6 <= stopped, (seed, sub, enough)
                    if enough > least + 1e-6:
                        assert stopped <= enough + 1e-6, (seed, sub, enough)
                    status = relax._highs.getModelStatus()
                    stopped_early += status == highspy.HighsModelStatus.kObjectiveBound
                    boxes += 1
    assert boxes == 180 and stopped_early > 10


def test_a_solver_answer_without_numbers_bounds_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Multipliers that are not numbers (NaN) give no bound (inf), never one that prunes."""
    import highspy

    original = highspy.Highs.getSolution

    def spoiled(self: highspy.Highs) -> Any:
        solution = original(self)
        solution.row_dual = [np.nan] * len(solution.row_dual)
        return solution

    monkeypatch.setattr(highspy.Highs, "getSolution", spoiled)
    lo = np.array([[0], [1], [0], [2]])
    hi = np.array([[1], [3], [2], [3]])
    box = (np.array([0]), np.array([3]), np.array([True]))
    relax = Relaxation(np.array([1.0, 0.0, 0.0, 1.0]), np.array([0, 0, 1, 1]), lo, hi, box)
    bound, _ = relax.bound()
    assert bound == np.inf
    assert relax.dual is None  # nothing for the boxes inside either
