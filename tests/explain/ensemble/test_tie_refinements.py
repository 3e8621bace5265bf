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
from xpg.models import EnsembleTree, Forest

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
