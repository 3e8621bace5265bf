"""QuickOracle's per-class views of the leaf table (the leaves of the trees that score
unalike for a class), the best leaves' point reconciled when two of them are apart, and a
multi-class GBDT's one-row scores by boosting rounds, against brute force."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest

from xpg.core.features import Feature
from xpg.explain.ensemble.leaf_table import leaf_table
from xpg.explain.ensemble.quick import QuickDeletion, QuickOracle, pair_entries, pair_leaves
from xpg.explain.ensemble.space import CellSpace
from xpg.explain.ensemble.vote import vote_part
from xpg.models.ensemble_import import ensemble_from_sklearn
from xpg.models.gbdt import GBDT
from xpg.testing.ensembles import random_sklearn_ensemble, random_tree


def _tree(rng: np.random.Generator, sizes: list[int], n_scores: int, columns: list[int]) -> Any:
    """A random tree over integer features of ``sizes`` cells, its leaves adding float32
    numbers to ``columns`` (zero elsewhere), now and then all its leaves alike."""
    alike = rng.random() < 0.2
    same = float(np.float32(rng.normal()))

    def leaf(rng: np.random.Generator) -> list[float]:
        row = [0.0] * n_scores
        for c in columns:
            row[c] = same if alike else float(np.float32(rng.normal()))
        return row

    return random_tree(rng, sizes, leaf)


def _gbdt(seed: int, *, rounds: bool = True, decision: str = "softmax-argmax") -> GBDT:
    """A multi-class GBDT: tree ``t`` adds to class ``t % 3`` (``rounds``), or to two classes."""
    rng = np.random.default_rng(seed)
    sizes = [int(s) for s in rng.integers(2, 6, 4)]
    feats = [Feature.integer(f"f{j}", 0, s - 1) for j, s in enumerate(sizes)]
    k = 3
    trees = [
        _tree(rng, sizes, k, [t % k] if rounds else [t % k, (t + 1) % k])
        for t in range(k * int(rng.integers(3, 7)))
    ]
    base = [float(np.float32(b)) for b in rng.normal(0, 0.5, k)]
    return GBDT(feats, [0, 1, 2], trees, base, decision=decision)  # type: ignore[arg-type]


def _points(model: GBDT) -> list[list[int]]:
    sizes = [len(f.values) if f.values else int(f.high) - int(f.low) + 1 for f in model.features]
    return [list(p) for p in itertools.product(*[range(s) for s in sizes])]


def _spaces(seeds: range) -> list[CellSpace]:
    out = []
    for seed in seeds:
        model = _gbdt(seed)
        out += [CellSpace(model, p) for p in _points(model)[:: max(1, len(_points(model)) // 4)]]
        est, features, points = random_sklearn_ensemble(seed, "boosted", n_trees=6)
        sk = ensemble_from_sklearn(est, features)
        out += [CellSpace(sk, list(p)) for p in points[:2]]
    return out


def test_pair_leaves_are_the_leaves_of_the_trees_that_score_unalike() -> None:
    checked = 0
    for space in _spaces(range(6)):
        layout = space.layout
        table = leaf_table(layout)
        for p in range(len(space.model.classes)):
            part = vote_part(layout, p)
            pairs = pair_leaves(layout, p)
            assert len(pairs) == len(part.u)
            for q, (leaves, trees, u) in enumerate(pairs):
                expected = [
                    leaf
                    for t in range(len(table.starts))
                    if len(set(part.u[q, table.start[t] : table.start[t + 1]].tolist())) > 1
                    for leaf in range(table.start[t], table.start[t + 1])
                ]
                assert leaves.tolist() == expected
                assert trees.tolist() == table.tree[leaves].tolist()
                assert u.tolist() == part.u[q, leaves].tolist()
                checked += 1
            leaf, flat, u = pair_entries(layout, p)
            n_trees = len(table.starts)
            got = sorted(zip(leaf.tolist(), flat.tolist(), u.tolist()))
            want = sorted(
                (int(lf), q * n_trees + int(table.tree[lf]), float(part.u[q, lf]))
                for q, (leaves, _, _) in enumerate(pairs)
                for lf in leaves
            )
            assert got == want
    assert checked > 50


def test_a_multi_class_gbdt_has_trees_that_score_alike_for_a_class() -> None:
    model = _gbdt(0)
    space = CellSpace(model, _points(model)[0])
    table = leaf_table(space.layout)
    # trees of the third class score alike for "class 1 beats class 0": left out
    leaves, trees, _ = pair_leaves(space.layout, 0)[0]
    assert set(trees.tolist()) <= {t for t in range(len(model.trees)) if t % 3 in (0, 1)}
    assert len(leaves) < len(table.node)


def test_raised_tops_are_the_best_leaves_of_the_grown_reach() -> None:
    rng = np.random.default_rng(1)
    checked = 0
    for space in _spaces(range(6)):
        with QuickOracle(space) as oracle:
            table, u = oracle._table, oracle._part.u
            n = len(table.node)
            for _ in range(4):
                old = rng.random(n) < 0.3
                new = (rng.random(n) < 0.3) & ~old
                old[oracle._own] = True  # a reach holds the instance's own leaves
                top = oracle.tops(old)
                raised = oracle.raised(top, new)
                grown = old | new
                for q in range(len(u)):
                    for t in range(len(table.starts)):
                        lo, hi = table.start[t], table.start[t + 1]
                        best = max(u[q, lf] for lf in range(lo, hi) if grown[lf])
                        assert raised[q, t] == best
                assert raised is top or not np.shares_memory(raised, top)
                checked += 1
    assert checked > 40


def _allowed(table: Any, leaf: int, cells: np.ndarray) -> bool:
    return bool(((table.lo[leaf] <= cells) & (cells < table.hi[leaf])).all())


def test_the_reconciled_leaves_are_some_of_the_best_and_share_a_box() -> None:
    rng = np.random.default_rng(2)
    reconciled = 0
    for space in _spaces(range(10)):
        with QuickOracle(space) as oracle:
            table = oracle._table
            for q, (leaves, trees, _) in enumerate(oracle._pairs):
                if not len(leaves):
                    continue
                # one random leaf per tree, as the best leaves are
                best = np.array([rng.choice(leaves[trees == t]) for t in np.unique(trees).tolist()])
                kept, low, high = oracle._reconciled(q, best)
                assert set(kept.tolist()) <= set(best.tolist())
                assert (low < high).all()
                assert np.array_equal(low, table.lo[kept].max(axis=0))
                assert np.array_equal(high, table.hi[kept].min(axis=0))
                assert all(_allowed(table, lf, low) for lf in kept.tolist())
                if len(kept) < len(best):
                    reconciled += 1
    assert reconciled > 10


@pytest.mark.parametrize("decision", ["argmax", "softmax-argmax"])
def test_the_point_witness_is_a_point_of_another_class_agreeing_on_the_fixed(
    decision: str,
) -> None:
    found = 0
    for seed in range(12):
        model = _gbdt(seed, decision=decision)
        for point in _points(model)[::7]:
            with QuickOracle(CellSpace(model, point)) as oracle:
                session = oracle.deletion(oracle.tested())
                assert isinstance(session, QuickDeletion)
                for v in list(session.fixed):
                    rest = [u for u in session.fixed if u != v]
                    count = oracle._dis[:, rest].sum(axis=1)
                    reach = count == 0
                    top = oracle.tops(reach)
                    bounds = top.sum(axis=1) + oracle._part.const
                    cells = oracle.point_witness(reach, bounds, top)
                    if cells is None:
                        continue
                    values = oracle.space.values(cells.tolist())
                    assert model.predict(values) != model.predict(oracle.space.instance)
                    for u in rest:
                        assert cells[u] == oracle._inst[u]
                    found += 1
    assert found > 30


@pytest.mark.parametrize("rounds", [True, False])
def test_one_rows_scores_by_rounds_are_the_models_sums(rounds: bool) -> None:
    rng = np.random.default_rng(3)
    for seed in range(8):
        model = _gbdt(seed, rounds=rounds)
        leaf_nodes = [np.flatnonzero(t.left < 0) for t in model.trees]
        rows = np.array([[int(rng.choice(n)) for n in leaf_nodes] for _ in range(30)])
        model.scores_of_leaves(rows)  # the model's own table, as every explainer has it
        assert (model._rounds() is not None) == rounds
        for row in rows:
            one = model.scores_of_leaves(row[None, :])
            assert np.array_equal(one, model._sum_in_order(row[None, :]))
            # the sum as the library adds it, tree after tree in float32
            total = np.asarray(model.base, dtype=np.float32).copy()
            for t, leaf in enumerate(row.tolist()):
                total = (total + model.trees[t].value[leaf].astype(np.float32)).astype(np.float32)
            assert np.array_equal(one[0], total.astype(np.float64))
