"""Random features, literals and instances.

Names are ``f0, f1, ...``; categorical values ``v0, v1, ...``; integers on ``[0, 2..4]``.

Examples
--------
>>> [f.kind for f in random_features(1, 4, kinds=("boolean", "integer"))]
['boolean', 'boolean', 'integer', 'integer']
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from xpg.core.feature_space import FeatureGroup
from xpg.core.features import Feature, Literal
from xpg.models.omdd import finite_values
from xpg.testing._seed import Seed, as_generator, as_random

KINDS: tuple[str, ...] = ("boolean", "categorical", "integer", "real")

#: Thresholds of random numeric literals (:func:`random_condition`).
GRID: tuple[float, ...] = (1.0, 2.5, 4.0, 5.5, 7.0)


def random_features(
    seed: Seed,
    n: int,
    kinds: Sequence[str] | None = None,
    real_range: tuple[float, float] = (0.0, 8.0),
    bounded: float = 0.0,
) -> list[Feature]:
    """``n`` features of kinds drawn uniformly from ``kinds``.

    Parameters
    ----------
    seed : int, random.Random, numpy.random.Generator or None
        The random stream.
    n : int
        How many features.
    kinds : sequence of str, optional
        Among ``"boolean"``, ``"categorical"`` (2 to 4 values), ``"integer"`` (``[0, 2..4]``)
        and ``"real"``; default all four.
    real_range : (float, float)
        The domain of a bounded real feature.
    bounded : float
        The probability that a real feature is bounded to ``real_range`` (else it ranges over
        all reals).  At 0 and 1 no number is drawn for it.

    Returns
    -------
    list of Feature

    Examples
    --------
    >>> fs = random_features(0, 3, kinds=["real"], real_range=(0.0, 10.0), bounded=1.0)
    >>> [(f.name, f.low, f.high) for f in fs]
    [('f0', 0.0, 10.0), ('f1', 0.0, 10.0), ('f2', 0.0, 10.0)]
    """
    rng = as_random(seed)
    choices = list(kinds or KINDS)
    out: list[Feature] = []
    for i in range(n):
        kind = rng.choice(choices)
        name = f"f{i}"
        if kind == "boolean":
            out.append(Feature.boolean(name))
        elif kind == "categorical":
            out.append(Feature.categorical(name, [f"v{k}" for k in range(rng.randint(2, 4))]))
        elif kind == "integer":
            out.append(Feature.integer(name, 0, rng.randint(2, 4)))
        elif bounded >= 1.0 or (bounded > 0.0 and rng.random() < bounded):
            out.append(Feature.real(name, *real_range))
        else:
            out.append(Feature.real(name))
    return out


def domain_values(feature: Feature) -> list[Any]:
    """Every value of a finite domain (boolean, categorical, bounded integer), in order.

    Examples
    --------
    >>> domain_values(Feature.integer("a", 1, 3))
    [1, 2, 3]
    """
    return list(finite_values(feature))


def random_condition(seed: Seed, feature: Feature) -> Literal:
    """A literal on ``feature`` that admits some but (usually) not all values of its domain.

    Numeric literals use the thresholds of :data:`GRID`; integer features get a value set or
    a threshold at a value of the domain.

    Examples
    --------
    >>> str(random_condition(2, Feature.boolean("b")))
    'b = 0'
    """
    rng = as_random(seed)
    if feature.kind == "real":
        t = rng.choice(GRID)
        choice = rng.random()
        if choice < 0.4:
            return Literal.le(feature.name, t)
        if choice < 0.8:
            return Literal.gt(feature.name, t)
        lo, hi = sorted(rng.sample(GRID, 2))
        closed = rng.choice(["right", "left", "both"])
        return Literal.interval(feature.name, lo, hi, closed=closed)  # type: ignore[arg-type]
    values = domain_values(feature)
    subset = rng.sample(values, rng.randint(1, len(values) - 1))
    if feature.kind == "integer" and rng.random() < 0.5:
        t = rng.choice(values[:-1])
        return Literal.le(feature.name, t) if rng.random() < 0.5 else Literal.gt(feature.name, t)
    return Literal.isin(feature.name, subset)


def random_instance(
    seed: Seed, features: Sequence[Feature], grid: Mapping[str, Sequence[Any]]
) -> dict[str, Any]:
    """An instance as a mapping: a random value of each finite domain; for a real feature a
    point of ``grid[name]`` (default 0.0), moved by 0 or +-0.25 and clipped to the domain.

    Examples
    --------
    >>> random_instance(0, [Feature.boolean("b"), Feature.real("r", 0.0, 1.0)], {"r": [1.0]})
    {'b': 1, 'r': 1.0}
    """
    rng = as_random(seed)
    out = {}
    for f in features:
        if f.is_discrete or f.kind == "integer":
            out[f.name] = rng.choice(domain_values(f))
        else:
            pts = grid.get(f.name) or [0.0]
            v = rng.choice(pts) + rng.choice([0.0, 0.0, 0.25, -0.25])
            out[f.name] = min(max(v, f.low), f.high)
    return out


def random_row(seed: Seed, features: Sequence[Feature]) -> list[Any]:
    """An instance as a list: a random value of each finite domain, reals on the half-unit
    grid ``0, 0.5, ..., 10``.

    Examples
    --------
    >>> random_row(0, [Feature.categorical("c", ["a", "b"]), Feature.real("r", 0.0, 10.0)])
    ['b', 6.5]
    """
    rng = as_generator(seed)
    row: list[Any] = []
    for f in features:
        if f.is_discrete:
            row.append(f.values[int(rng.integers(len(f.values)))])
        elif f.kind == "integer":
            row.append(int(rng.integers(int(f.low), int(f.high) + 1)))
        else:
            row.append(float(rng.integers(0, 21)) / 2)
    return row


def one_hot_group(name: str, n: int) -> FeatureGroup:
    """A categorical attribute ``name`` one-hot encoded in columns ``name0 .. name{n-1}``.

    Examples
    --------
    >>> one_hot_group("g", 3).feature.values
    ('g0', 'g1', 'g2')
    """
    return FeatureGroup.one_hot(name, [f"{name}{k}" for k in range(n)])
