"""Seeded random models for the probabilistic tests: features, trees, read-once graphs, OBDDs."""

from __future__ import annotations

import random

import numpy as np
from randgraphs import merge_subtrees, random_ordered_dag, random_tree

from xpg.compile.bdd import bdd_manager
from xpg.core.features import Feature
from xpg.core.graph import DecisionGraph
from xpg.models.obdd import from_bdd


def bounded_features(
    rng: random.Random, n: int, kinds: tuple[str, ...] | None = None
) -> list[Feature]:
    """``n`` features of random kinds with bounded domains (reals on [0, 10])."""
    kinds = kinds or ("boolean", "categorical", "integer", "real")
    out: list[Feature] = []
    for i in range(n):
        kind = rng.choice(kinds)
        if kind == "boolean":
            out.append(Feature.boolean(f"f{i}"))
        elif kind == "categorical":
            out.append(Feature.categorical(f"f{i}", [f"v{j}" for j in range(rng.randint(2, 4))]))
        elif kind == "integer":
            out.append(Feature.integer(f"f{i}", 0, rng.randint(2, 4)))
        else:
            out.append(Feature.real(f"f{i}", 0.0, 10.0))
    return out


def random_graph(
    seed: int, kinds: tuple[str, ...] | None = None, max_features: int = 6
) -> DecisionGraph:
    """A tree (seed % 3 == 0), a read-once DAG (1) or a merged tree (2, maybe not read-once)."""
    rng = random.Random(seed)
    features = bounded_features(rng, rng.randint(1, max_features), kinds)
    if seed % 3 == 0:
        return random_tree(rng, features, rng.randint(2, 3), rng.randint(1, 4), rng.random() < 0.5)
    if seed % 3 == 1:
        return random_ordered_dag(rng, features, rng.randint(2, 3))
    return merge_subtrees(random_tree(rng, features, 2, 3))


def random_obdd(seed: int, n_vars: int) -> DecisionGraph:
    """A reduced OBDD (via dd) of a random function: a DNF of random terms, xor a variable."""
    rng = np.random.default_rng(seed)
    names = [f"b{i}" for i in range(n_vars)]
    bdd = bdd_manager(names)
    u = bdd.false
    for _ in range(int(rng.integers(2, 6))):
        term = bdd.true
        size = int(rng.integers(1, min(4, n_vars) + 1))
        for i in rng.choice(n_vars, size=size, replace=False):
            term &= bdd.var(names[i]) if rng.random() < 0.5 else ~bdd.var(names[i])
        u |= term
    if rng.random() < 0.5:
        u = bdd.apply("xor", u, bdd.var(names[int(rng.integers(n_vars))]))
    return from_bdd(u, [Feature.boolean(n) for n in names])


def random_row(dg: DecisionGraph, rng: np.random.Generator) -> list:
    """A random instance of the graph's features (reals on a half-unit grid)."""
    row = []
    for f in dg.features:
        if f.is_discrete:
            row.append(f.values[int(rng.integers(len(f.values)))])
        elif f.kind == "integer":
            row.append(int(rng.integers(int(f.low), int(f.high) + 1)))
        else:
            row.append(float(rng.integers(0, 21)) / 2)
    return row
