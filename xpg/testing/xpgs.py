"""Random explanation graphs: built directly (Def. 3), or from random decision graphs.

Examples
--------
>>> xg = random_xpg(0, tree=True)
>>> xg.is_tree()
True

References
----------
Huang, Izza, Ignatiev, Marques-Silva. On Efficiently Explaining Graph-Based Classifiers.
KR 2021, Def. 3 (explanation graphs).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from xpg.core.xpgraph import ExplanationGraph
from xpg.testing._seed import Seed, as_random
from xpg.testing.graphs import random_decision_graph
from xpg.testing.oracle import Oracle, representatives


def _random_tree_shape(
    rng: Any, n_vars: int, n_internal: int
) -> tuple[list[int], list[tuple[int, int]]]:
    """Grow a tree: each internal node gets 2-3 fresh children."""
    frontier = [0]
    node_var = [-1]
    edges: list[tuple[int, int]] = []
    internal = 0
    while frontier:
        n = frontier.pop(rng.randrange(len(frontier)))
        if internal >= n_internal or (n != 0 and rng.random() < 0.3):
            continue
        internal += 1
        node_var[n] = rng.randrange(n_vars)
        for _ in range(rng.randint(2, 3)):
            c = len(node_var)
            node_var.append(-1)
            edges.append((n, c))
            frontier.append(c)
    return node_var, edges


def _random_dag_shape(
    rng: Any, n_vars: int, n_internal: int
) -> tuple[list[int], list[tuple[int, int]]]:
    """A DAG in topological order: 2-3 children per internal node, every node a parent."""
    n_terminals = rng.randint(3, 6)
    n = n_internal + n_terminals
    node_var = [rng.randrange(n_vars) for _ in range(n_internal)] + [-1] * n_terminals
    edges: list[tuple[int, int]] = []
    for p in range(n_internal):
        k = min(rng.randint(2, 3), n - p - 1)
        for c in rng.sample(range(p + 1, n), k):
            edges.append((p, c))
    has_parent = {c for _, c in edges}
    for c in range(1, n):
        if c not in has_parent:
            ps = [p for p in range(min(c, n_internal)) if (p, c) not in edges]
            edges.append((rng.choice(ps), c))
    return node_var, edges


def random_xpg(
    seed: Seed, tree: bool, max_vars: int = 6, max_internal: int = 14
) -> ExplanationGraph:
    """A random XpG satisfying Def. 3: a tree, or a DAG with shared nodes.

    Variables may repeat along a path; some non-terminals have no edge labelled 1; the path
    of 1-edges from the root ends in a 1-terminal, and some terminal is a 0-terminal.

    Parameters
    ----------
    seed : int, random.Random, numpy.random.Generator or None
    tree : bool
        A tree, or a DAG.
    max_vars, max_internal : int
        Upper bounds of the number of variables (``v0, v1, ...``) and of non-terminals.

    Returns
    -------
    ExplanationGraph

    Examples
    --------
    >>> xg = random_xpg(1, tree=False, max_vars=3)
    >>> xg.n_vars <= 3, xg.is_tree()
    (True, False)
    """
    rng = as_random(seed)
    n_vars = rng.randint(1, max_vars)
    n_internal = rng.randint(1, max_internal)
    shape = _random_tree_shape if tree else _random_dag_shape
    node_var, edges = shape(rng, n_vars, n_internal)
    n = len(node_var)
    children: list[list[int]] = [[] for _ in range(n)]
    for k, (p, _c) in enumerate(edges):
        children[p].append(k)
    label = [False] * len(edges)
    p_one = rng.uniform(0.3, 0.9)
    for p in range(n):
        if children[p] and rng.random() < p_one:
            label[rng.choice(children[p])] = True
    # the path of 1-edges must reach a terminal: give a 1-edge to nodes on it that lack one
    node = 0
    while children[node]:
        ones = [k for k in children[node] if label[k]]
        if not ones:
            k = rng.choice(children[node])
            label[k] = True
            ones = [k]
        node = edges[ones[0]][1]
    p_zero = rng.uniform(0.15, 0.6)
    value = [-1 if children[t] else int(rng.random() >= p_zero) for t in range(n)]
    value[node] = 1
    others = [t for t in range(n) if value[t] >= 0 and t != node]
    if others and not any(value[t] == 0 for t in others):
        value[rng.choice(others)] = 0
    return ExplanationGraph(
        [f"v{i}" for i in range(n_vars)],
        list(range(n)),
        0,
        np.asarray(node_var, dtype=np.int64),
        np.asarray(value, dtype=np.int64),
        np.asarray([p for p, _ in edges], dtype=np.int64),
        np.asarray([c for _, c in edges], dtype=np.int64),
        np.asarray(label, dtype=bool),
    )


def random_dg_xpgs(seed: Seed, kind: str, count: int) -> list[ExplanationGraph]:
    """The XpGs of ``count`` random decision graphs of one kind (``"tree"``, ``"dag"``,
    ``"ordered"``; :func:`~xpg.testing.graphs.random_decision_graph` with 2 or 3 classes),
    each for a random representative instance.

    Examples
    --------
    >>> [xg.is_tree() for xg in random_dg_xpgs(0, "tree", 3)]
    [True, True, True]
    """
    rng = as_random(seed)
    out: list[ExplanationGraph] = []
    while len(out) < count:
        dg = random_decision_graph(rng, kind, max_classes=3)
        x = [rng.choice(r) for r in representatives(dg)]
        out.append(ExplanationGraph.from_decision_graph(dg, x))
    return out


def random_cases(
    seed: Seed, tree: bool, count: int, max_vars: int = 7, max_internal: int = 14
) -> list[tuple[ExplanationGraph, Oracle]]:
    """``count`` random XpGs (:func:`random_xpg`) with their oracles; every other one is drawn
    again until it has several AXps (so that relevant, non-necessary features occur).

    Examples
    --------
    >>> cases = random_cases(0, True, 4)
    >>> [len(truth.axps) > 1 for _, truth in cases][1::2]
    [True, True]
    """
    rng = as_random(seed)
    out: list[tuple[ExplanationGraph, Oracle]] = []
    while len(out) < count:
        xg = random_xpg(rng, tree, max_vars, max_internal)
        truth = Oracle.of_xpg(xg)
        if len(out) % 2 == 0 or len(truth.axps) > 1:
            out.append((xg, truth))
    return out


def antichain_xpg(depth: int, distance: int | None = None) -> ExplanationGraph:
    """The membership worst case of the tree route: a complete tree XpG of ``depth`` levels.

    Every node of level ``l`` tests variable ``x<l>``; the instance sets every variable to
    1 (1-edges follow it).  A leaf is a 0-terminal iff its path takes exactly ``distance``
    0-edges (default ``depth // 2``, at least 1): the leaves at that Hamming distance from
    the instance.  The CXps are then the ``C(depth, distance)`` sets of ``distance``
    variables, an antichain with one member per 0-terminal, and every variable is in some
    CXp.  Nodes are numbered in heap order (children of ``k``: ``2k + 1`` by the 0-edge,
    ``2k + 2`` by the 1-edge), built with numpy.

    Raises
    ------
    ValueError
        Unless ``0 < distance <= depth`` (the instance's own leaf must predict 1).

    Examples
    --------
    >>> xg = antichain_xpg(4)
    >>> xg.n_nodes, int((xg.terminal_value == 0).sum()), xg.is_tree()
    (31, 6, True)
    """
    distance = max(1, depth // 2) if distance is None else distance
    if not 0 < distance <= depth:
        raise ValueError(
            f"antichain_xpg: expected 0 < distance <= depth, found {distance} and {depth}"
        )
    n_inner = 2**depth - 1
    n = 2 * n_inner + 1
    level = np.zeros(n, dtype=np.int64)
    zeros = np.zeros(n, dtype=np.int64)
    for lev in range(depth):  # one vectorised step per level: parents before children
        at = np.arange(2**lev - 1, 2 ** (lev + 1) - 1)
        level[2 * at + 1] = level[2 * at + 2] = lev + 1
        zeros[2 * at + 1] = zeros[at] + 1
        zeros[2 * at + 2] = zeros[at]
    parents = np.arange(n_inner)
    node_var = np.where(np.arange(n) < n_inner, level, -1)
    terminal_value = np.where(node_var < 0, (zeros != distance).astype(np.int64), -1)
    src = np.repeat(parents, 2)
    dst = np.stack([2 * parents + 1, 2 * parents + 2], axis=1).ravel()
    label = np.tile(np.array([False, True]), n_inner)
    return ExplanationGraph(
        [f"x{i}" for i in range(depth)],
        list(range(n)),
        0,
        node_var,
        terminal_value,
        src,
        dst,
        label,
        check=False,
    )


def fresh_copy(xg: ExplanationGraph) -> ExplanationGraph:
    """The same explanation graph as a new object, with no traversal structure built yet
    (to time or test the construction of those structures).

    Examples
    --------
    >>> from xpg.examples import and_xpg
    >>> xg = and_xpg()
    >>> copy = fresh_copy(xg)
    >>> copy is not xg and copy.edge_label.tolist() == xg.edge_label.tolist()
    True
    """
    return ExplanationGraph(
        xg.var_names,
        xg.node_ids,
        xg.root,
        xg.node_var,
        xg.terminal_value,
        xg.edge_src,
        xg.edge_dst,
        xg.edge_label,
        check=False,
    )


def described(xg: ExplanationGraph) -> tuple[Any, ...]:
    """A graph in terms of node ids and variable names, independent of the order in which
    nodes and variables are stored (the ``.xpg`` reader lists terminals first).

    Examples
    --------
    >>> from xpg.examples import and_xpg
    >>> described(and_xpg()) == described(fresh_copy(and_xpg()))
    True
    """
    ids = xg.node_ids
    nodes = {
        ids[i]: (xg.var_names[v] if v >= 0 else None, t)
        for i, (v, t) in enumerate(zip(xg.node_var_list, xg.terminal_value_list, strict=True))
    }
    edges = [
        (ids[s], ids[d], b)
        for s, d, b in zip(
            xg.edge_src.tolist(), xg.edge_dst.tolist(), xg.edge_label.tolist(), strict=True
        )
    ]
    return nodes, edges, ids[xg.root]


def irrelevant_subtree_xpg(depth: int) -> ExplanationGraph:
    """``x0 or x1`` at ``x0 = x1 = 1``, with a complete tree over ``y0 .. y<depth-1>`` below
    ``x1 = 0`` whose leaves are all 0-terminals: two AXps (``{x0}``, ``{x1}``), one CXp,
    ``2**depth`` paths to 0-terminals, and the ``y`` tested but irrelevant (listing the
    CXps passes over every node; enumeration ends after three explanations).

    Examples
    --------
    >>> xg = irrelevant_subtree_xpg(3)
    >>> xg.var_names, int((xg.terminal_value == 0).sum()), xg.is_tree()
    (['x0', 'x1', 'y0', 'y1', 'y2'], 8, True)
    """
    inner = 2**depth - 1
    size = 2 * inner + 1  # the subtree, in heap order, after the 4 nodes above it
    level = np.zeros(size, dtype=np.int64)
    for lev in range(depth):
        at = np.arange(2**lev - 1, 2 ** (lev + 1) - 1)
        level[2 * at + 1] = level[2 * at + 2] = lev + 1
    sub_var = np.where(np.arange(size) < inner, level + 2, -1)
    parents = np.arange(inner)
    return ExplanationGraph(
        ["x0", "x1"] + [f"y{i}" for i in range(depth)],
        list(range(4 + size)),
        0,
        np.concatenate([[0, -1, 1, -1], sub_var]),
        np.concatenate([[-1, 1, -1, 1], np.where(sub_var < 0, 0, -1)]),
        np.concatenate([[0, 0, 2, 2], np.repeat(parents, 2) + 4]),
        np.concatenate([[1, 2, 3, 4], np.stack([2 * parents + 5, 2 * parents + 6], 1).ravel()]),
        np.concatenate([[True, False, True, False], np.tile([False, True], inner)]),
        check=False,
    )
