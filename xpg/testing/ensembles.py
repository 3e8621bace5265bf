"""Seeded random scikit-learn tree ensembles over small discrete domains, for exhaustive tests.

Examples
--------
>>> est, feats, points = random_sklearn_ensemble(0, "forest")
>>> type(est).__name__, len(points) == len(set(map(tuple, points.tolist())))
('RandomForestClassifier', True)
"""

from __future__ import annotations

import itertools
from typing import Any, Literal

import numpy as np

from xpg.core.features import Feature
from xpg.testing._seed import Seed, as_generator, as_random

EnsembleKind = Literal["forest", "extra-trees", "boosted"]
ENSEMBLE_KINDS: tuple[str, ...] = ("forest", "extra-trees", "boosted")


def random_sklearn_ensemble(
    seed: Seed,
    kind: EnsembleKind,
    *,
    n_features: int = 3,
    n_classes: int = 2,
    n_trees: int = 4,
    depth: int = 3,
    n_samples: int = 60,
) -> tuple[Any, list[Feature], np.ndarray]:
    """A fitted ``RandomForestClassifier``, ``ExtraTreesClassifier`` or
    ``GradientBoostingClassifier`` on boolean and integer (0..2 or 0..3) columns with a noisy
    class, the features, and every point of their domain (rows of a float matrix).

    Returns
    -------
    (estimator, features, points)
    """
    from sklearn.ensemble import (
        ExtraTreesClassifier,
        GradientBoostingClassifier,
        RandomForestClassifier,
    )

    rng = as_random(seed)
    nrng = as_generator(rng)
    feats: list[Feature] = []
    sizes = []
    for j in range(n_features):
        size = rng.choice([2, 3, 4])
        feats.append(
            Feature.boolean(f"f{j}") if size == 2 else Feature.integer(f"f{j}", 0, size - 1)
        )
        sizes.append(size)
    X = np.column_stack([nrng.integers(0, s, n_samples) for s in sizes]).astype(float)
    w = nrng.normal(size=n_features)
    score = X @ w + nrng.normal(0, 0.7, n_samples)
    cuts = np.quantile(score, np.linspace(0, 1, n_classes + 1)[1:-1])
    y = np.digitize(score, cuts)
    y[:n_classes] = np.arange(n_classes)  # every class present
    state = rng.randrange(10_000)
    params: dict[str, Any] = {"n_estimators": n_trees, "max_depth": depth, "random_state": state}
    if kind == "boosted":
        est = GradientBoostingClassifier(learning_rate=rng.choice([0.1, 0.3, 1.0]), **params)
    elif kind == "extra-trees":
        est = ExtraTreesClassifier(**params)
    else:
        est = RandomForestClassifier(**params)
    est.fit(X, y)
    points = np.array(list(itertools.product(*[range(s) for s in sizes])), dtype=float)
    return est, feats, points


__all__ = ["ENSEMBLE_KINDS", "EnsembleKind", "random_sklearn_ensemble"]
