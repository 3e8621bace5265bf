"""The branch and bound goes on where it stopped (``LeafSearch.pair_branch_and_bound``).

A search left undecided within its budget and asked again about the same fixed features and
class continues with the new budget: one node at a time, it decides after exactly as many
calls as a fresh search needs nodes, with the same answer and witness, and every answer
agrees with scikit-learn over every input.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from xpg.core.features import Feature
from xpg.explain.ensemble import CellSpace, EnsembleOracle
from xpg.explain.ensemble.leaf_search import PAUSED, LeafSearch
from xpg.models.ensemble_import import ensemble_from_sklearn

sklearn_ensemble = pytest.importorskip("sklearn.ensemble")


def _forest(seed: int):
    rng = np.random.default_rng(seed)
    sizes = [int(s) for s in rng.integers(4, 9, 5)]
    X = np.column_stack([rng.integers(0, s, 200) for s in sizes]).astype(float)
    y = (X @ rng.normal(size=5) + rng.normal(0, 1.5, 200) > 0).astype(int)
    est = sklearn_ensemble.RandomForestClassifier(15, max_depth=5, random_state=seed).fit(X, y)
    feats = [Feature.integer(f"f{j}", 0, s - 1) for j, s in enumerate(sizes)]
    return est, feats, sizes, X


def test_resumed_searches_match_fresh_ones_and_brute_force() -> None:
    resumed = 0
    for seed in range(4):
        est, feats, sizes, X = _forest(seed)
        grid = np.array(list(itertools.product(*[range(s) for s in sizes])), dtype=float)
        labels = est.predict(grid)
        model = ensemble_from_sklearn(est, feats)
        x = [int(v) for v in X[seed]]
        pred = est.predict(np.array([x], dtype=float))[0]
        space = CellSpace(model, x)
        with EnsembleOracle(space, exhaustive_limit=0) as oracle:
            for r in range(3):
                for fixed in itertools.combinations(range(5), r):
                    mask = np.isin(np.arange(5), fixed)
                    keep = np.all(grid[:, list(fixed)] == np.array(x)[list(fixed)], axis=1)
                    possible = bool((labels[keep] != pred).any())
                    calls, (decided, w) = 1, oracle._search.pair_branch_and_bound(mask, 0, 1)
                    while not decided and calls < 10**5:  # a restart would never decide
                        calls += 1
                        decided, w = oracle._search.pair_branch_and_bound(mask, 0, 1)
                    assert (w is not None) == possible, (seed, fixed)
                    if w is not None:
                        row = np.array([space.values(w.tolist())[f.name] for f in feats])
                        assert est.predict(row[None, :].astype(float))[0] != pred
                    fresh = _fresh(oracle)
                    d, w2 = fresh.pair_branch_and_bound(mask, 0, calls)
                    assert d and np.array_equal(np.asarray(w), np.asarray(w2)), (seed, fixed)
                    if calls > 1:
                        resumed += 1
                        fresh = _fresh(oracle)
                        assert not fresh.pair_branch_and_bound(mask, 0, calls - 1)[0]
    assert resumed > 20


def _fresh(oracle: EnsembleOracle) -> LeafSearch:
    """A search of the same vote with nothing paused."""
    return LeafSearch(oracle._search.vote)


def test_only_the_same_question_resumes_and_few_are_kept() -> None:
    est, feats, sizes, X = _forest(7)
    model = ensemble_from_sklearn(est, feats)
    space = CellSpace(model, [int(v) for v in X[7]])
    with EnsembleOracle(space, exhaustive_limit=0) as oracle:
        search = oracle._search
        masks = [
            np.isin(np.arange(5), f) for r in range(3) for f in itertools.combinations(range(5), r)
        ]
        undecided = [m for m in masks if not search.pair_branch_and_bound(m, 0, 1)[0]]
        assert len(undecided) > PAUSED
        assert len(search._paused) == PAUSED
        kept = {key[0] for key in search._paused}
        assert kept == {m.tobytes() for m in undecided[-PAUSED:]}
        # the oldest, dropped, starts again: one node decides nothing
        assert not search.pair_branch_and_bound(undecided[0], 0, 1)[0]
