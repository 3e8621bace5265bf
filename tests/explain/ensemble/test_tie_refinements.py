"""The solver's refinements on near-ties (``Z3Encoding.block``) against brute force.

Forests whose leaves hold thirds (not dyadic: the vote is relaxed by the rounding, and exact
ties are common) and repeat the same distributions across a tree's leaves: with every
question sent to the solver, each answer equals exhaustive evaluation of the model's own
floats, and the solver's inputs that the floats refused were blocked, each block excluding
every combination of leaves with the same contributions (grouping leaves that differ, as
every leaf of a tree, loses answers here).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from xpg.core.features import Feature
from xpg.explain.ensemble import CellSpace, EnsembleOracle
from xpg.models import BoostedTrees, EnsembleTree, Forest
from xpg.models.ensemble import TreeEnsemble
from xpg.models.gbdt import GBDT

THIRDS = [[1 / 3, 2 / 3], [2 / 3, 1 / 3], [1.0, 0.0], [0.0, 1.0]]


def _tree(rng: np.random.Generator, sizes: list[int]) -> EnsembleTree:
    """A depth-2 tree on random features and cuts, leaves among :data:`THIRDS`."""
    f = rng.choice(len(sizes), 3)
    cut = [rng.integers(0, sizes[j] - 1) + 0.5 for j in f]
    value = np.array([[0.0, 0.0]] * 3 + [THIRDS[k] for k in rng.integers(0, 4, 4)])
    return EnsembleTree(
        np.array([f[0], f[1], f[2], -1, -1, -1, -1]),
        np.array([cut[0], cut[1], cut[2], 0, 0, 0, 0]),
        np.array([1, 3, 5, -1, -1, -1, -1]),
        np.array([2, 4, 6, -1, -1, -1, -1]),
        value,
    )


@pytest.mark.parametrize("backend", ["pb", "lra"])
def test_blocked_ties_keep_every_answer(backend: str) -> None:
    refined = questions = 0
    for seed in range(10):
        rng = np.random.default_rng(seed)
        sizes = [3, 3, 4]
        feats = [Feature.integer(f"f{j}", 0, s - 1) for j, s in enumerate(sizes)]
        trees = [_tree(rng, sizes) for _ in range(8)]
        model = Forest(feats, ["a", "b"], trees, [0.0, 0.0], 1 / 8)
        grid = np.array(list(itertools.product(*[range(s) for s in sizes])))
        labels = model.predict_batch(grid.astype(float))
        x = [int(v) for v in grid[rng.integers(0, len(grid))]]
        pred = model.predict(x)
        space = CellSpace(model, x)
        with EnsembleOracle(space, backend, shortcuts=False) as oracle:
            assert not oracle.exact_vote
            for r in range(len(sizes) + 1):
                for fixed in itertools.combinations(range(len(sizes)), r):
                    keep = np.all(grid[:, list(fixed)] == np.array(x)[list(fixed)], axis=1)
                    other = bool((labels[keep] != pred).any())
                    w = oracle.check(fixed)
                    assert (w is not None) == other, (seed, fixed)
                    if w is not None:
                        row = [space.values(w.tolist())[f.name] for f in feats]
                        assert model.predict(row) != pred
                    questions += 1
            refined += oracle.refinements
    assert questions == 10 * 8
    assert refined > 0  # near-ties were refused by the floats and blocked


THIRDS_3 = [[1 / 3, 1 / 3, 1 / 3], [2 / 3, 1 / 3, 0.0], [0.0, 2 / 3, 1 / 3], [1 / 3, 0.0, 2 / 3]]


def _thirds_ensemble(seed: int, kind: str) -> tuple[TreeEnsemble, list[int]]:
    """A forest (``"forest2"``, ``"forest3"``: classes), a one-score booster (``"boosted"``)
    or a float32 GBDT (``"gbdt"``: a cut, ``>`` or ``>=``, maybe an average; ``"gbdt3"``: a
    tree per class and round, 9 trees) of 8 depth-2 trees whose leaves hold thirds (as float32 for a
    GBDT), and the sizes of its features."""
    rng = np.random.default_rng(seed)
    sizes = [3, 3, 4]
    trees = [_tree(rng, sizes) for _ in range(9 if kind == "gbdt3" else 8)]
    feats = [Feature.integer(f"f{j}", 0, s - 1) for j, s in enumerate(sizes)]
    if kind in ("boosted", "gbdt"):  # the difference of the two thirds: -1/3, 1/3, -1, 1
        trees = [t._replace(value=t.value[:, :1] - t.value[:, 1:]) for t in trees]
    if kind == "boosted":
        return BoostedTrees(feats, ["a", "b"], trees, [0.0], 1.0), sizes
    if kind.startswith("gbdt"):
        trees = [t._replace(value=t.value.astype(np.float32).astype(float)) for t in trees]
        if kind == "gbdt3":  # tree t adds its class-0 third to score t % 3
            trees = [
                t._replace(value=np.eye(3)[t_index % 3] * t.value[:, :1])
                for t_index, t in enumerate(trees)
            ]
            return GBDT(
                feats, ["a", "b", "c"], trees, [0.0] * 3, precision="float32",
                decision="argmax", average=bool(rng.integers(2)),
            ), sizes  # fmt: skip
        return GBDT(
            feats, ["a", "b"], trees, [0.0], precision="float32", cut=float(np.float32(1 / 3)),
            strict=bool(rng.integers(2)), average=bool(rng.integers(2)),
        ), sizes  # fmt: skip
    classes = int(kind[-1])
    if classes == 3:
        trees = [
            t._replace(
                value=np.array([[0.0] * 3] * 3 + [THIRDS_3[k] for k in rng.integers(0, 4, 4)])
            )
            for t in trees
        ]
    return Forest(feats, [str(c) for c in range(classes)], trees, [0.0] * classes, 1 / 8), sizes


def _beats(model: TreeEnsemble, scores: np.ndarray, c: int, p: int) -> np.ndarray:
    """Per row of the model's scores: does class ``c`` beat ``p`` (the first largest wins)?"""
    if model.decision in ("sign", "threshold"):
        return model.classes_of_scores(scores) == c
    return (scores[:, c] > scores[:, p]) | ((scores[:, c] == scores[:, p]) & (c < p))


@pytest.mark.parametrize("kind", ["forest2", "forest3", "boosted", "gbdt", "gbdt3"])
def test_the_floats_monotone_bound_holds_for_every_choice_of_leaves(kind: str) -> None:
    """``Vote.floats_keep`` on random sets of leaves per tree: when it says the prediction
    stays, every choice of one leaf per tree, evaluated by the model's own floats, keeps it;
    and it says so on sets whose bound on exact sums is within ``2 eps`` of a tie (where that
    bound decides nothing)."""
    from xpg.explain.ensemble.vote import Vote

    kept = near = 0
    for seed in range(40):
        model, sizes = _thirds_ensemble(seed, kind)
        rng = np.random.default_rng(100 + seed)
        x = [int(rng.integers(0, s)) for s in sizes]
        vote = Vote(CellSpace(model, x), int(model.classes.index(model.predict(x))))
        table = vote.table
        for _ in range(20):
            chosen = [
                rng.choice(np.arange(lo, hi), int(rng.integers(1, hi - lo + 1)), replace=False)
                for lo, hi in zip(table.start[:-1], table.start[1:])
            ]
            leaves = np.concatenate([np.sort(c) for c in chosen])
            starts = np.cumsum([0] + [len(c) for c in chosen[:-1]])
            combos = np.array(list(itertools.product(*[table.node[c] for c in chosen])))
            scores = model.scores_of_leaves(combos)
            # a GBDT adds one row's scores by another path (the oracle's): the same floats
            alone = np.vstack([model.scores_of_leaves(row[None, :]) for row in combos[:20]])
            assert np.array_equal(alone, scores[:20])
            for pair in vote.pairs:
                if vote.floats_keep(pair, leaves, starts):
                    kept += 1
                    assert not _beats(model, scores, pair.cls, vote.prediction).any(), seed
                    best = sum(float(pair.u[c].max()) for c in chosen)
                    near += vote.may_beat(best, pair)
    assert kept > 30
    assert near > 5  # decided where the bound on exact sums could not


@pytest.mark.parametrize("kind", ["forest2", "forest3", "boosted"])
def test_the_branch_and_bound_alone_decides_near_ties_as_brute_force(kind: str) -> None:
    """Every question of forests of thirds asked of the branch and bound alone (no solver):
    its answer is exhaustive evaluation's, and near-ties were pruned by the floats' bound."""
    from xpg.explain.ensemble.leaf_search import LeafSearch
    from xpg.explain.ensemble.vote import Vote

    pruned = 0
    original = Vote.floats_keep

    def counted(self: Vote, *args: object) -> bool:
        nonlocal pruned
        out = original(self, *args)  # type: ignore[arg-type]
        pruned += out
        return out

    Vote.floats_keep = counted  # type: ignore[method-assign]
    try:
        for seed in range(30):
            model, sizes = _thirds_ensemble(seed, kind)
            grid = np.array(list(itertools.product(*[range(s) for s in sizes])))
            labels = model.predict_batch(grid.astype(float))
            rng = np.random.default_rng(seed)
            x = [int(v) for v in grid[rng.integers(0, len(grid))]]
            pred = model.predict(x)
            space = CellSpace(model, x)
            search = LeafSearch(Vote(space, model.classes.index(pred)))
            for r in range(len(sizes) + 1):
                for fixed in itertools.combinations(range(len(sizes)), r):
                    keep = np.all(grid[:, list(fixed)] == np.array(x)[list(fixed)], axis=1)
                    mask = np.zeros(len(sizes), dtype=bool)
                    mask[list(fixed)] = True
                    decided, w = search.branch_and_bound(mask, 10**6)
                    assert decided
                    assert (w is not None) == bool((labels[keep] != pred).any()), (seed, fixed)
                    if w is not None:
                        row = [space.values(w.tolist())[f.name] for f in model.features]
                        assert model.predict(row) != pred
    finally:
        Vote.floats_keep = original  # type: ignore[method-assign]
    assert pruned > 0
