"""Random decision graphs satisfying Def. 2: trees, merged trees (DAGs), read-once DAGs.

Examples
--------
>>> from xpg.testing import random_features
>>> dg = random_decision_graph(5, "ordered")
>>> dg.validate(); dg.is_tree()
False

References
----------
Huang, Izza, Ignatiev, Marques-Silva. On Efficiently Explaining Graph-Based Classifiers.
KR 2021, Def. 2 (decision graphs).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Hashable, Sequence
from typing import Any

from xpg.core.features import Feature, Literal
from xpg.core.graph import DecisionGraph
from xpg.testing._seed import Seed, as_random
from xpg.testing.features import domain_values, random_features

GRAPH_KINDS: tuple[str, ...] = ("tree", "dag", "ordered")


def _split_discrete(rng: Any, possible: list[Any], domain: list[Any]) -> list[list[Any]]:
    """Partition the whole domain into parts that each meet ``possible`` (unrestricted literals)."""
    k = rng.randint(2, min(3, len(possible)))
    chosen = rng.sample(possible, len(possible))
    parts = [[v] for v in chosen[:k]]
    for v in chosen[k:] + [v for v in domain if v not in possible]:
        rng.choice(parts).append(v)
    return parts


def _thresholds(lo: float, hi: float) -> list[int]:
    return [t for t in range(1, 10) if lo < t < hi]


def _start_domain(f: Feature) -> Any:
    return (-math.inf, math.inf) if f.kind == "real" else domain_values(f)


def random_tree(
    seed: Seed, features: Sequence[Feature], n_classes: int, depth: int, restrict: bool = True
) -> DecisionGraph:
    """A random decision tree as a :class:`~xpg.core.graph.DecisionGraph`.

    A node is a leaf at depth ``depth``, when no feature can be split further, or with
    probability 0.15; else it tests a random feature: a real feature at an integer threshold
    in 1..9 still inside the path's interval (two branches), a finite one by 2 or 3 parts of
    its values.  With ``restrict`` every literal admits only values still possible on the
    path; without, literals may admit values excluded above (still a partition).

    Parameters
    ----------
    seed : int, random.Random, numpy.random.Generator or None
    features : sequence of Feature
        Thresholds of real features ignore their bounds.
    n_classes : int
        Classes ``0 .. n_classes - 1``.
    depth : int
        The largest depth.
    restrict : bool
        Literals restricted to the path.

    Returns
    -------
    DecisionGraph

    Examples
    --------
    >>> dg = random_tree(0, [Feature.boolean("a"), Feature.real("r")], 2, 3)
    >>> dg.is_tree(), dg.validate()
    (True, None)
    """
    rng = as_random(seed)
    dg = DecisionGraph(list(features), classes=list(range(n_classes)))
    counter = itertools.count()

    def grow(possible: dict[int, Any], d: int) -> int:
        node = next(counter)
        candidates = [
            i
            for i, f in enumerate(features)
            if (len(possible[i]) >= 2 if f.kind != "real" else _thresholds(*possible[i]))
        ]
        if d == 0 or not candidates or rng.random() < 0.15:
            dg.add_terminal(node, rng.randrange(n_classes))
            return node
        i = rng.choice(candidates)
        f = features[i]
        dg.add_node(node, f.name)
        children = []
        if f.kind == "real":
            lo, hi = possible[i]
            t = float(rng.choice(_thresholds(lo, hi)))
            left = Literal.interval(f.name, lo, t) if restrict else Literal.le(f.name, t)
            right = Literal.interval(f.name, t, hi) if restrict else Literal.gt(f.name, t)
            children = [(left, {**possible, i: (lo, t)}), (right, {**possible, i: (t, hi)})]
        else:
            for part in _split_discrete(rng, possible[i], domain_values(f)):
                inside = [v for v in part if v in possible[i]]
                lit = Literal.isin(f.name, inside if restrict else part)
                children.append((lit, {**possible, i: inside}))
        for lit, sub in children:
            dg.add_edge(node, grow(sub, d - 1), lit)
        return node

    grow({i: _start_domain(f) for i, f in enumerate(features)}, depth)
    return dg


def merge_subtrees(dg: DecisionGraph) -> DecisionGraph:
    """Hash-cons identical subgraphs: a reduced DAG with the same classification function.

    Node ids become ``0, 1, ...`` in post-order.

    Examples
    --------
    >>> tree = random_tree(4, [Feature.boolean(n) for n in "abc"], 2, 3)
    >>> dag = merge_subtrees(tree)
    >>> len(dag) < len(tree), dag.predict([0, 1, 1]) == tree.predict([0, 1, 1])
    (True, True)
    """
    out = DecisionGraph(dg.features, dg.classes)
    ids: dict[Any, int] = {}
    canon: dict[Any, int] = {}
    order: list[Any] = []
    stack: list[tuple[Any, bool]] = [(dg.root, False)]
    while stack:
        n, done = stack.pop()
        if done:
            order.append(n)
        elif n not in canon:
            stack.append((n, True))
            stack += [(c, False) for c, _ in dg.children(n)]
    pending_edges = []
    for n in order:
        if n in canon:
            continue
        if dg.is_terminal(n):
            key: Any = ("t", repr(dg.class_of(n)))
        else:
            key = ("n", dg.feature_of(n), tuple((canon[c], lit) for c, lit in dg.children(n)))
        if key not in ids:
            ids[key] = len(ids)
            if key[0] == "t":
                out.add_terminal(ids[key], dg.class_of(n))
            else:
                out.add_node(ids[key], dg.feature_of(n))
                pending_edges += [(ids[key], c, lit) for c, lit in key[2]]
        canon[n] = ids[key]
    for p, c, lit in pending_edges:
        out.add_edge(p, c, lit)
    return out


def reachable_part(dg: DecisionGraph, root: Hashable | None = None) -> DecisionGraph:
    """The nodes and edges ``root`` (default ``dg.root``) reaches, as a graph rooted there.

    Examples
    --------
    >>> dg = DecisionGraph([Feature.boolean("a")], classes=[0, 1])
    >>> dg.add_node("r", "a"); dg.add_terminal(0, 0); dg.add_terminal(1, 1)
    >>> dg.add_terminal("lost", 1)
    >>> dg.add_edge("r", 0, Literal.eq("a", 0)); dg.add_edge("r", 1, Literal.eq("a", 1))
    >>> sorted(map(str, reachable_part(dg, "r").nodes))
    ['0', '1', 'r']
    """
    start = dg.root if root is None else root
    keep, stack = {start}, [start]
    while stack:
        for c, _ in dg.children(stack.pop()):
            if c not in keep:
                keep.add(c)
                stack.append(c)
    out = DecisionGraph(dg.features, dg.classes, root=start)
    for n in dg.nodes:
        if n in keep:
            if dg.is_terminal(n):
                out.add_terminal(n, dg.class_of(n))
            else:
                out.add_node(n, dg.feature_of(n))
    for n in dg.nodes:
        if n in keep:
            for c, lit in dg.children(n):
                out.add_edge(n, c, lit)
    return out


def random_ordered_dag(
    seed: Seed, features: Sequence[Feature], n_classes: int, width: int = 3
) -> DecisionGraph:
    """A random read-once layered DAG (an OMDD-like graph) over real and finite features.

    Features are tested in a random order, one layer each (1 to ``width`` nodes; one at the
    root); a node's edges go to random nodes of any layer below or to terminals; a real
    feature is cut at 1 or 2 integer thresholds in 1..9, a finite one split into 2 or 3 parts.
    Only what the root reaches is kept.

    Examples
    --------
    >>> dg = random_ordered_dag(1, [Feature.boolean("a"), Feature.real("r")], 2)
    >>> dg.validate(); dg.feature_of(dg.root) in ("a", "r")
    True
    """
    rng = as_random(seed)
    dg = DecisionGraph(list(features), classes=list(range(n_classes)))
    terminals = [("t", c) for c in range(n_classes)]
    for c in range(n_classes):
        dg.add_terminal(("t", c), c)
    below: list[Any] = list(terminals)
    order = rng.sample(range(len(features)), len(features))
    layer_nodes: list[Any] = []
    for depth, i in enumerate(reversed(order)):
        f = features[i]
        layer_nodes = []
        for k in range(rng.randint(1, width) if depth < len(order) - 1 else 1):
            node = ("n", depth, k)
            dg.add_node(node, f.name)
            layer_nodes.append(node)
            if f.kind == "real":
                cuts = sorted(rng.sample(range(1, 10), rng.randint(1, 2)))
                ends = [-math.inf, *map(float, cuts), math.inf]
                for lo, hi in zip(ends, ends[1:]):
                    dg.add_edge(node, rng.choice(below), Literal.interval(f.name, lo, hi))
            else:
                domain = domain_values(f)
                for part in _split_discrete(rng, domain, domain):
                    dg.add_edge(node, rng.choice(below), Literal.isin(f.name, part))
        below = below + layer_nodes
    return reachable_part(dg, layer_nodes[0])


def small_mixed_graph() -> DecisionGraph:
    """A valid four-node graph over a real ``x`` and a categorical ``c`` in {a, b, d}.

    ``r`` tests ``x``: ``x <= 2`` goes to ``t0`` ("no"), ``x > 2`` to ``n``, which tests
    ``c``: ``a`` goes to ``t0``, ``b`` or ``d`` to ``t1`` ("yes").  Tests mutate it into
    every kind of invalid graph.

    Examples
    --------
    >>> dg = small_mixed_graph()
    >>> dg.predict({"x": 3, "c": "b"}), dg.predict({"x": 1, "c": "b"})
    ('yes', 'no')
    """
    dg = DecisionGraph(
        [Feature.real("x"), Feature.categorical("c", ["a", "b", "d"])], classes=["no", "yes"]
    )
    dg.add_node("r", "x")
    dg.add_node("n", "c")
    dg.add_terminal("t0", "no")
    dg.add_terminal("t1", "yes")
    dg.add_edge("r", "t0", Literal.le("x", 2))
    dg.add_edge("r", "n", Literal.gt("x", 2))
    dg.add_edge("n", "t0", Literal.isin("c", ["a"]))
    dg.add_edge("n", "t1", Literal.isin("c", ["b", "d"]))
    return dg


def ladder(n: int, prefix: str = "x") -> DecisionGraph:
    """The parity of ``n`` bits as a chain of ``2n - 1`` tests (plus 2 terminals).

    Node ``(i, p)`` tests ``{prefix}i`` and goes to ``(i + 1, p xor b)``; the number of
    root-to-terminal paths doubles with every feature, so only a traversal with a visited set
    is linear.  One AXp (every bit), one CXp per bit.

    Examples
    --------
    >>> dg = ladder(4)
    >>> len(dg), dg.predict([1, 1, 0, 1])
    (9, 1)
    >>> [f.name for f in ladder(2, "p").features]
    ['p0', 'p1']
    """
    feats = [Feature.boolean(f"{prefix}{i}") for i in range(n)]
    dg = DecisionGraph(feats, classes=[0, 1])
    dg.add_terminal("t0", 0)
    dg.add_terminal("t1", 1)
    dg.add_node((0, 0), feats[0].name)
    for i in range(1, n):
        for p in (0, 1):
            dg.add_node((i, p), feats[i].name)
    for i in range(n):
        for p in (0, 1) if i else (0,):
            for b in (0, 1):
                q = p ^ b
                child = (i + 1, q) if i + 1 < n else ("t1" if q else "t0")
                dg.add_edge((i, p), child, Literal.eq(feats[i].name, b))
    return dg


def random_decision_graph(
    seed: Seed, kind: str, max_features: int = 5, max_classes: int = 4
) -> DecisionGraph:
    """A random graph of one kind over 1 to ``max_features`` features of :func:`random_features`.

    Parameters
    ----------
    seed : int, random.Random, numpy.random.Generator or None
    kind : {"tree", "dag", "ordered"}
        ``"tree"``: :func:`random_tree` of depth 1 to 5 and 2 to ``max_classes`` classes;
        ``"dag"``: :func:`merge_subtrees` of an unrestricted depth-5 tree with 2 or 3 classes
        (seldom read-once); ``"ordered"``: :func:`random_ordered_dag`, 2 to ``max_classes``
        classes.
    max_features, max_classes : int

    Returns
    -------
    DecisionGraph

    Examples
    --------
    >>> random_decision_graph(0, "tree").is_tree()
    True
    """
    rng = as_random(seed)
    feats = random_features(rng, rng.randint(1, max_features))
    if kind == "tree":
        return random_tree(rng, feats, rng.randint(2, max_classes), rng.randint(1, 5))
    if kind == "dag":
        return merge_subtrees(random_tree(rng, feats, rng.randint(2, 3), 5, restrict=False))
    if kind == "ordered":
        return random_ordered_dag(rng, feats, rng.randint(2, max_classes))
    raise ValueError(f"expected a graph kind among {GRAPH_KINDS}, found {kind!r}")


def random_bounded_graph(
    seed: int, kinds: Sequence[str] | None = None, max_features: int = 6
) -> DecisionGraph:
    """A graph over 1 to ``max_features`` bounded features (reals on [0, 10]), by ``seed % 3``.

    0: a tree (:func:`random_tree`, restricted or not, depth 1 to 4); 1: a read-once DAG
    (:func:`random_ordered_dag`); 2: a merged restricted tree (maybe not read-once).

    Examples
    --------
    >>> [random_bounded_graph(s).is_tree() for s in (0, 3, 6)]
    [True, True, True]
    """
    rng = as_random(seed)
    features = random_features(
        rng, rng.randint(1, max_features), kinds, real_range=(0.0, 10.0), bounded=1.0
    )
    if seed % 3 == 0:
        return random_tree(rng, features, rng.randint(2, 3), rng.randint(1, 4), rng.random() < 0.5)
    if seed % 3 == 1:
        return random_ordered_dag(rng, features, rng.randint(2, 3))
    return merge_subtrees(random_tree(rng, features, 2, 3))
