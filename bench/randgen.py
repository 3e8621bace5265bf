"""Seeded random decision graphs for the speed benchmarks: large trees and OBDDs.

The parity ladder (:func:`xpg.testing.ladder`) and reduced OBDDs of random DNFs
(:func:`xpg.testing.random_reduced_obdd`) live in :mod:`xpg.testing`, which the tests share.

* :func:`random_tree` -- a binary decision tree over boolean features grown by splitting
  random leaves (a feature never repeats on a path), leaves labelled at random.
* :func:`random_layered_obdd` -- an ordered BDD-shaped DAG: one layer per feature (in
  feature order), every node's two children in lower layers; read-once on every path, so
  Def. 2 holds.  Not reduced; sizes up to millions of nodes.
* :func:`random_tree_xpg`, :func:`random_layered_xpg` -- their explanation graphs for a random
  instance, built directly as arrays (millions of nodes).

The decision graphs satisfy Def. 2 of the core paper; every feature is boolean, ``x0, x1, ...``.

Examples
--------
>>> t = random_tree(101, 10, seed=0)
>>> len(t), t.is_tree()
(101, True)

References
----------
Huang, Izza, Ignatiev, Marques-Silva. On Efficiently Explaining Graph-Based Classifiers.
KR 2021, Def. 2 (decision graphs), OBDDs and DTs as DGs.
"""

from __future__ import annotations

import random

import numpy as np

from xpg.core.features import Feature, Literal
from xpg.core.graph import DecisionGraph
from xpg.core.xpgraph import ExplanationGraph


def _booleans(n: int) -> tuple[list[Feature], list[tuple[Literal, Literal]]]:
    feats = [Feature.boolean(f"x{i}") for i in range(n)]
    return feats, [(Literal.eq(f.name, 0), Literal.eq(f.name, 1)) for f in feats]


def random_tree(
    n_nodes: int, n_features: int, seed: int = 0, relevant: int | None = None
) -> DecisionGraph:
    """A random binary tree of about ``n_nodes`` nodes (odd: every split adds two).

    Leaves are split at random (a feature not yet tested on the leaf's path).  Labels: with
    ``relevant=None`` each leaf is 0 or 1 at random (explanations can then be very many);
    with ``relevant=k`` paths test ``x0 .. x(k-1)`` first and a leaf is labelled by the
    majority of their values on its path (1 when tied, a random bit for one its path does
    not test), which keeps the number of explanations moderate.
    """
    rng = random.Random(seed)
    feats, lits = _booleans(n_features)
    parent, branch, test = _tree_arrays(n_nodes, n_features, rng, relevant)
    dg = DecisionGraph(feats, classes=[0, 1])
    for node, f in enumerate(test):
        if f >= 0:
            dg.add_node(node, feats[f].name)
        elif relevant is None:
            dg.add_terminal(node, rng.randrange(2))
        else:
            dg.add_terminal(node, _majority(node, parent, branch, test, relevant, rng))
    for node in range(1, len(parent)):
        dg.add_edge(parent[node], node, lits[test[parent[node]]][branch[node]])
    return dg


def _majority(
    node: int, parent: list[int], branch: list[int], test: list[int], k: int, rng: random.Random
) -> int:
    values = {}
    while parent[node] >= 0:
        values[test[parent[node]]] = branch[node]
        node = parent[node]
    ones = sum(values[f] if f in values else rng.randrange(2) for f in range(k))
    return int(2 * ones >= k)


def _layer_widths(n_nodes: int, n_features: int) -> list[int]:
    """Widths ``min(w, 2**i)`` per layer, with the smallest ``w`` reaching ``n_nodes - 2``."""
    lo, hi = 1, max(1, n_nodes)
    while lo < hi:
        w = (lo + hi) // 2
        if sum(min(w, 2**i) for i in range(n_features)) >= n_nodes - 2:
            hi = w
        else:
            lo = w + 1
    return [min(lo, 2**i) for i in range(n_features)]


def random_layered_obdd(
    n_nodes: int, n_features: int, seed: int = 0, reach: int = 3
) -> DecisionGraph:
    """An ordered decision diagram with about ``n_nodes`` nodes, all reachable from the root.

    Layer ``i`` tests ``x_i`` and holds at most twice as many nodes as layer ``i - 1``; a
    node's two (different) children are nodes of the next ``reach`` layers, first those of
    the next layer that have no parent yet; the last layer points to the terminals.
    """
    rng = random.Random(seed)
    feats, lits = _booleans(n_features)
    layers, start = [], 0
    for w in _layer_widths(n_nodes, n_features):
        layers.append(list(range(start, start + w)))
        start += w
    t0, t1 = start, start + 1
    dg = DecisionGraph(feats, classes=[0, 1])
    for i, layer in enumerate(layers):
        for node in layer:
            dg.add_node(node, feats[i].name)
    dg.add_terminal(t0, 0)
    dg.add_terminal(t1, 1)
    for i, layer in enumerate(layers):
        pool = [n for j in range(i + 1, min(i + 1 + reach, n_features)) for n in layers[j]]
        if not pool:
            pool = [t0, t1]
        orphans = list(layers[i + 1]) if i + 1 < n_features else []
        rng.shuffle(orphans)
        for node in layer:
            kids = [orphans.pop() if orphans else rng.choice(pool) for _ in range(2)]
            while kids[1] == kids[0]:
                kids[1] = rng.choice(pool) if len(pool) > 1 else (t1 if kids[0] == t0 else t0)
            dg.add_edge(node, kids[0], lits[i][0])
            dg.add_edge(node, kids[1], lits[i][1])
    return dg


def _tree_arrays(
    n_nodes: int, n_features: int, rng: random.Random, relevant: int | None = None
) -> tuple[list[int], list[int], list[int]]:
    """Parent, branch (0/1) and tested feature (-1: leaf) of a random binary tree grown by
    splitting random leaves; features ``0 .. relevant - 1`` first on every path."""
    parent, branch, test = [-1], [-1], [-1]
    used: list[frozenset[int]] = [frozenset()]
    leaves = [0]
    while len(parent) + 2 <= n_nodes and leaves:
        k = rng.randrange(len(leaves))
        leaf = leaves[k]
        leaves[k] = leaves[-1]
        leaves.pop()
        if len(used[leaf]) == n_features:
            continue
        untested = [f for f in range(relevant or 0) if f not in used[leaf]]
        if untested:  # the relevant features first, so that deep leaves are labelled exactly
            f = rng.choice(untested)
        else:
            f = rng.randrange(n_features)
            while f in used[leaf]:
                f = rng.randrange(n_features)
        test[leaf] = f
        for b in (0, 1):
            parent.append(leaf)
            branch.append(b)
            test.append(-1)
            used.append(used[leaf] | {f})
            leaves.append(len(parent) - 1)
    return parent, branch, test


def _xpg_from_arrays(
    src: np.ndarray,
    dst: np.ndarray,
    branch: np.ndarray,
    node_var: np.ndarray,
    leaf_class: np.ndarray,
    x: np.ndarray,
    n_features: int,
) -> ExplanationGraph:
    """The XpG of boolean-feature graph arrays for instance ``x`` (root: node 0)."""
    label = x[node_var[src]] == branch
    nxt = np.full(len(node_var), -1, dtype=np.int64)
    nxt[src[label]] = dst[label]
    node = 0
    while nxt[node] >= 0:
        node = int(nxt[node])
    prediction = leaf_class[node]
    terminal_value = np.where(node_var < 0, (leaf_class == prediction).astype(np.int64), -1)
    return ExplanationGraph(
        [f"x{i}" for i in range(n_features)],
        list(range(len(node_var))),
        0,
        node_var,
        terminal_value,
        src,
        dst,
        label,
        check=False,
    )


def random_tree_xpg(n_nodes: int, n_features: int, seed: int = 0) -> ExplanationGraph:
    """The explanation graph of a random tree (as :func:`random_tree` with random labels) for
    a random instance, built directly as arrays: fast enough for millions of nodes."""
    rng = random.Random(seed)
    parent, branch, test = _tree_arrays(n_nodes, n_features, rng)
    node_var = np.asarray(test, dtype=np.int64)
    leaf_class = np.asarray([rng.randrange(2) for _ in test], dtype=np.int64)
    src = np.asarray(parent[1:], dtype=np.int64)
    dst = np.arange(1, len(parent), dtype=np.int64)
    x = np.asarray([rng.randrange(2) for _ in range(n_features)], dtype=np.int64)
    return _xpg_from_arrays(src, dst, np.asarray(branch[1:]), node_var, leaf_class, x, n_features)


def random_layered_xpg(
    n_nodes: int, n_features: int, seed: int = 0, reach: int = 3
) -> ExplanationGraph:
    """The explanation graph of :func:`random_layered_obdd` for a random instance, built
    directly as arrays."""
    rng = random.Random(seed)
    widths = _layer_widths(n_nodes, n_features)
    starts = np.concatenate([[0], np.cumsum(widths)]).astype(np.int64)
    t0, t1 = int(starts[-1]), int(starts[-1]) + 1
    node_var = np.concatenate(
        [np.full(w, i, dtype=np.int64) for i, w in enumerate(widths)] + [np.full(2, -1)]
    )
    leaf_class = np.full(len(node_var), -1, dtype=np.int64)
    leaf_class[t0], leaf_class[t1] = 0, 1
    src, dst, branch = [], [], []
    for i, w in enumerate(widths):
        lo = int(starts[i + 1]) if i + 1 < n_features else t0
        hi = int(starts[min(i + 1 + reach, n_features)]) if i + 1 < n_features else t1 + 1
        orphans = list(range(lo, int(starts[i + 2]))) if i + 1 < n_features else []
        rng.shuffle(orphans)
        for node in range(int(starts[i]), int(starts[i]) + w):
            kids = [orphans.pop() if orphans else rng.randrange(lo, hi) for _ in range(2)]
            while kids[1] == kids[0]:
                kids[1] = rng.randrange(lo, hi) if hi - lo > 1 else (t1 if kids[0] == t0 else t0)
            for b in (0, 1):
                src.append(node)
                dst.append(kids[b])
                branch.append(b)
    x = np.asarray([rng.randrange(2) for _ in range(n_features)], dtype=np.int64)
    return _xpg_from_arrays(
        np.asarray(src, dtype=np.int64),
        np.asarray(dst, dtype=np.int64),
        np.asarray(branch),
        node_var,
        leaf_class,
        x,
        n_features,
    )
