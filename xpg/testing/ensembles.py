"""Seeded random scikit-learn tree ensembles over small discrete domains, for exhaustive tests,
and their exact explanations by exhaustive evaluation through scikit-learn's ``predict``
(:func:`ensemble_oracle`).

Examples
--------
>>> est, feats, points = random_sklearn_ensemble(0, "forest")
>>> type(est).__name__, len(points) == len(set(map(tuple, points.tolist())))
('RandomForestClassifier', True)
>>> est, feats, X = random_small_ensemble(0, "tied-forest")
>>> oracle = ensemble_oracle(est, feats, dict(zip([f.name for f in feats], X[0].tolist())))
>>> all(isinstance(a, frozenset) for a in oracle.axps)
True
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any, Literal

import numpy as np

from xpg.core.features import Feature
from xpg.testing._seed import Seed, as_generator, as_random
from xpg.testing.features import domain_values
from xpg.testing.oracle import Oracle

EnsembleKind = Literal["forest", "extra-trees", "boosted"]
ENSEMBLE_KINDS: tuple[str, ...] = ("forest", "extra-trees", "boosted")
#: the kinds of :func:`random_small_ensemble`
SMALL_ENSEMBLE_KINDS: tuple[str, ...] = (*ENSEMBLE_KINDS, "tied-forest")


def _sklearn_ensemble(kind: str, **params: Any) -> Any:
    """An unfitted ``ExtraTreesClassifier`` (``kind="extra-trees"``),
    ``GradientBoostingClassifier`` (``"boosted"``) or else ``RandomForestClassifier`` with
    ``params``."""
    import sklearn.ensemble

    names = {"extra-trees": "ExtraTreesClassifier", "boosted": "GradientBoostingClassifier"}
    return getattr(sklearn.ensemble, names.get(kind, "RandomForestClassifier"))(**params)


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
        params["learning_rate"] = rng.choice([0.1, 0.3, 1.0])
    est = _sklearn_ensemble(kind, **params).fit(X, y)
    points = np.array(list(itertools.product(*[range(s) for s in sizes])), dtype=float)
    return est, feats, points


def random_small_ensemble(
    seed: Seed,
    kind: str = "forest",
    *,
    n_features: int | None = None,
    n_classes: int | None = None,
    n_samples: int = 40,
) -> tuple[Any, list[Feature], np.ndarray]:
    """A small fitted ensemble (2-5 trees of depth 2-3) on random discrete data, for the
    explanation tests.

    Features are boolean, integer (``0..2`` or ``0..3``) or categorical with numeric codes
    (``1, 4, 6``); labels are a noisy function of a few columns, 2 or 3 classes.  Few samples
    and few trees make exact ties between classes common (scikit-learn then takes the first
    class).

    Parameters
    ----------
    seed : int, random.Random or numpy Generator
    kind : {"forest", "extra-trees", "boosted", "tied-forest"}
        ``"tied-forest"``: 2 or 4 unbounded trees without bootstrap, so that most leaves
        are pure and many inputs get exactly tied votes.

    Returns
    -------
    (estimator, features, X)
    """
    rng = as_random(seed)
    nrng = as_generator(rng)
    m = n_features if n_features is not None else rng.randint(2, 4)
    k = n_classes if n_classes is not None else rng.choice([2, 2, 3])
    feats: list[Feature] = []
    cols = []
    for j in range(m):
        choice = rng.choice(["boolean", "integer", "categorical"])
        if choice == "boolean":
            feats.append(Feature.boolean(f"f{j}"))
        elif choice == "integer":
            feats.append(Feature.integer(f"f{j}", 0, rng.choice([2, 3])))
        else:
            feats.append(Feature.categorical(f"f{j}", [1, 4, 6]))
        values = domain_values(feats[-1])
        cols.append(nrng.choice(np.asarray(values, dtype=float), n_samples))
    X = np.column_stack(cols)
    w = nrng.normal(size=m)
    # tied forests: labels a function of the inputs, so that unbounded trees have pure leaves
    noise = 0.0 if kind == "tied-forest" else 1.0
    score = X @ w + nrng.normal(0, noise, n_samples)
    y = np.digitize(score, np.quantile(score, np.linspace(0, 1, k + 1)[1:-1]))
    if len(set(y.tolist())) < 2:
        y[0] = 1 - y[0] if k == 2 else (y[0] + 1) % k
    trees, depth, state = rng.randint(2, 5), rng.choice([2, 3]), rng.randrange(10_000)
    if kind not in SMALL_ENSEMBLE_KINDS:
        raise ValueError(f"kind: expected one of {SMALL_ENSEMBLE_KINDS}, found {kind!r}")
    params: dict[str, Any] = {"n_estimators": trees, "max_depth": depth, "random_state": state}
    if kind == "tied-forest":  # an even number of trees with (nearly) pure leaves: ties
        params = {
            "n_estimators": rng.choice([2, 4]),
            "bootstrap": False,
            "max_features": 1,
            "random_state": state,
        }
    elif kind == "boosted":
        params["learning_rate"] = rng.choice([0.1, 0.5, 1.0])
    return _sklearn_ensemble(kind, **params).fit(X, y), feats, X


def ensemble_oracle(
    estimator: Any,
    features: Sequence[Feature],
    instance: Mapping[str, Any],
    columns: Any = None,
) -> Oracle:
    """Every AXp and CXp of ``estimator``'s prediction on ``instance``, by evaluating
    scikit-learn's ``predict`` on every point of the finite domain (``columns(row)``, when
    given, turns a feature-level row into the estimator's columns: feature groups).
    """
    names = [f.name for f in features]
    grid = {f.name: domain_values(f) for f in features}

    def predict_many(rows: list[dict[str, Any]]) -> Sequence[Any]:
        if columns is None:
            M = np.asarray([[float(r[n]) for n in names] for r in rows], dtype=float)
        else:
            M = np.asarray([columns(r) for r in rows], dtype=float)
        return [x.item() if isinstance(x, np.generic) else x for x in estimator.predict(M)]

    return Oracle.of_model(
        lambda row: predict_many([row])[0],
        list(features),
        grid,
        instance,
        predict_many=predict_many,
    )


def one_hot_forest(seed: int = 0) -> tuple[Any, list[Any], dict[str, Any]]:
    """A small scikit-learn forest over two one-hot groups (``colour``, ``size``) and a
    boolean ``a``, as an xpg model; its groups; and an instance by group.

    >>> model, groups, x = one_hot_forest(0)
    >>> len(model.trees), len(groups), x["colour"]
    (6, 3, 'grey')
    """
    from sklearn.ensemble import RandomForestClassifier

    from xpg.core.feature_space import FeatureGroup
    from xpg.models.ensemble_import import ensemble_from_sklearn

    colour = FeatureGroup.one_hot("colour", ["red", "green", "blue", "grey"])
    size = FeatureGroup.one_hot("size", ["s", "m", "l"])
    rng = np.random.default_rng(seed)
    c, z, a = rng.integers(0, 4, 80), rng.integers(0, 3, 80), rng.integers(0, 2, 80)
    X = np.column_stack([np.eye(4)[c], np.eye(3)[z], a])
    y = (rng.normal(size=4)[c] + rng.normal(size=3)[z] + a + rng.normal(0, 0.5, 80)) > 0.5
    est = RandomForestClassifier(n_estimators=6, max_depth=4, random_state=seed)
    est.fit(X, y.astype(int))
    cols = [Feature.boolean(name) for name in (*colour.columns, *size.columns)]
    model = ensemble_from_sklearn(est, [*cols, Feature.boolean("a")])
    return model, [colour, size, Feature.boolean("a")], {"colour": "grey", "size": "m", "a": 1}


def random_tree(rng: np.random.Generator, sizes: Sequence[int], leaf: Any, depth: int = 3) -> Any:
    """A random :class:`~xpg.models.ensemble_tree.EnsembleTree` over integer features of
    ``sizes`` cells (thresholds between cells, at most ``depth`` splits deep), each leaf's
    value row drawn by ``leaf(rng)``.

    >>> tree = random_tree(np.random.default_rng(0), [3, 2], lambda rng: [1.0, 0.0])
    >>> tree.value.shape[1], bool((tree.left >= 0).any())
    (2, True)
    """
    from xpg.models.ensemble_tree import EnsembleTree

    feature: list[int] = []
    threshold: list[float] = []
    left: list[int] = []
    right: list[int] = []
    value: list[list[float]] = []

    def grow(level: int) -> int:
        k = len(feature)
        feature.append(-1)
        threshold.append(0.0)
        left.append(-1)
        right.append(-1)
        value.append([])
        if level < depth and rng.random() < 0.8:
            j = int(rng.integers(len(sizes)))
            feature[k], threshold[k] = j, float(rng.integers(0, sizes[j] - 1)) + 0.5
            left[k] = grow(level + 1)
            right[k] = grow(level + 1)
        else:
            value[k] = list(leaf(rng))
        return k

    grow(0)
    width = max(len(v) for v in value)
    rows = [v or [0.0] * width for v in value]
    return EnsembleTree(*(np.array(a) for a in (feature, threshold, left, right, rows)))


__all__ = [
    "ENSEMBLE_KINDS",
    "SMALL_ENSEMBLE_KINDS",
    "EnsembleKind",
    "ensemble_oracle",
    "one_hot_forest",
    "random_sklearn_ensemble",
    "random_small_ensemble",
    "random_tree",
]
