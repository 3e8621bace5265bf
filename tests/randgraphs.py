"""Seeded random decision graphs satisfying Def. 2, and brute-force explanations.

Used by the tests as the independent reference: explanations are computed by
exhaustive evaluation of the decision graph's own classification function over a
grid of representative inputs (every value of a discrete feature; for numeric
features every interval end and a point inside every cell between them).
"""

from __future__ import annotations

import itertools
import math
import random
from typing import Any

import numpy as np

from xpg.core.features import Feature, Literal
from xpg.core.graph import DecisionGraph


def random_features(rng: random.Random, n: int) -> list[Feature]:
    feats: list[Feature] = []
    for i in range(n):
        kind = rng.choice(["boolean", "categorical", "integer", "real"])
        if kind == "boolean":
            feats.append(Feature.boolean(f"f{i}"))
        elif kind == "categorical":
            feats.append(Feature.categorical(f"f{i}", [f"v{k}" for k in range(rng.randint(2, 4))]))
        elif kind == "integer":
            feats.append(Feature.integer(f"f{i}", 0, rng.randint(2, 4)))
        else:
            feats.append(Feature.real(f"f{i}"))
    return feats


def _split_discrete(rng: random.Random, possible: list[Any], domain: list[Any]) -> list[list[Any]]:
    """Partition the whole domain into parts that each meet ``possible`` (unrestricted literals)."""
    k = rng.randint(2, min(3, len(possible)))
    chosen = rng.sample(possible, len(possible))
    parts = [[v] for v in chosen[:k]]
    for v in chosen[k:] + [v for v in domain if v not in possible]:
        rng.choice(parts).append(v)
    return parts


def _thresholds(lo: float, hi: float) -> list[int]:
    return [t for t in range(1, 10) if lo < t < hi]


def random_tree(
    rng: random.Random, features: list[Feature], n_classes: int, depth: int, restrict: bool = True
) -> DecisionGraph:
    """A random decision tree; literals restricted to the path when ``restrict``."""
    dg = DecisionGraph(features, classes=list(range(n_classes)))
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
            domain = list(f.values) if f.is_discrete else list(range(int(f.low), int(f.high) + 1))
            for part in _split_discrete(rng, possible[i], domain):
                inside = [v for v in part if v in possible[i]]
                lit = Literal.isin(f.name, inside if restrict else part)
                children.append((lit, {**possible, i: inside}))
        for lit, sub in children:
            dg.add_edge(node, grow(sub, d - 1), lit)
        return node

    start: dict[int, Any] = {}
    for i, f in enumerate(features):
        if f.kind == "real":
            start[i] = (-math.inf, math.inf)
        elif f.is_discrete:
            start[i] = list(f.values)
        else:
            start[i] = list(range(int(f.low), int(f.high) + 1))
    grow(start, depth)
    return dg


def merge_subtrees(dg: DecisionGraph) -> DecisionGraph:
    """Hash-cons identical subtrees: a (reduced) DAG with the same classification function."""
    out = DecisionGraph(dg.features, dg.classes)
    key_of: dict[Any, Any] = {}
    canon: dict[Any, Any] = {}

    def visit(node: Any) -> Any:
        if node in canon:
            return canon[node]
        if dg.is_terminal(node):
            key = ("t", repr(dg.class_of(node)))
        else:
            kids = [(visit(c), lit) for c, lit in dg.children(node)]
            key = ("n", dg.feature_of(node), tuple((k, lit) for k, lit in kids))
        if key not in key_of:
            key_of[key] = len(key_of)
            new = key_of[key]
            if key[0] == "t":
                out.add_terminal(new, dg.class_of(node))
            else:
                out.add_node(new, dg.feature_of(node))
                for k, lit in key[2]:
                    out.add_edge(new, k, lit)
        canon[node] = key_of[key]
        return canon[node]

    visit(dg.root)
    return out


def random_ordered_dag(
    rng: random.Random, features: list[Feature], n_classes: int, width: int = 3
) -> DecisionGraph:
    """A random read-once layered DAG (an OMDD-like graph) over real/discrete features."""
    dg = DecisionGraph(features, classes=list(range(n_classes)))
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
                domain = (
                    list(f.values) if f.is_discrete else list(range(int(f.low), int(f.high) + 1))
                )
                for part in _split_discrete(rng, domain, domain):
                    dg.add_edge(node, rng.choice(below), Literal.isin(f.name, part))
        below = below + layer_nodes
    # keep only what the root reaches
    root = layer_nodes[0]
    keep = DecisionGraph(features, classes=list(range(n_classes)))
    seen: set[Any] = set()
    stack = [root]
    while stack:
        n = stack.pop()
        if n in seen:
            continue
        seen.add(n)
        stack += [c for c, _ in dg.children(n)]
    for n in dg.nodes:
        if n in seen:
            if dg.is_terminal(n):
                keep.add_terminal(n, dg.class_of(n))
            else:
                keep.add_node(n, dg.feature_of(n))
    for n in dg.nodes:
        if n in seen:
            for c, lit in dg.children(n):
                keep.add_edge(n, c, lit)
    return keep


def representatives(dg: DecisionGraph) -> list[list[Any]]:
    """Per feature, one value from every class of values the graph cannot tell apart."""
    reps: list[list[Any]] = []
    for f in dg.features:
        if f.is_discrete:
            reps.append(list(f.values))
        elif f.kind == "integer" and math.isfinite(f.low) and math.isfinite(f.high):
            reps.append(list(range(int(f.low), int(f.high) + 1)))
        else:
            cuts = sorted(
                {
                    x
                    for _, _, lit in dg.edges
                    if lit.feature == f.name and not lit.is_value_set
                    for lo, hi, _, _ in lit.intervals()
                    for x in (lo, hi)
                    if math.isfinite(x)
                }
            )
            if not cuts:
                reps.append([0.0])
                continue
            pts = [cuts[0] - 1.0, cuts[-1] + 1.0, *cuts]
            pts += [(a + b) / 2 for a, b in zip(cuts, cuts[1:])]
            reps.append(sorted(set(pts)))
    return reps


class BruteForce:
    """Every AXp and CXp of an instance by exhaustive evaluation of ``dg.predict``."""

    def __init__(self, dg: DecisionGraph) -> None:
        self.dg = dg
        self.reps = representatives(dg)
        shape = tuple(len(r) for r in self.reps)
        classes = list(dg.classes)
        self.pred = np.empty(shape, dtype=np.int64)
        for idx in itertools.product(*[range(s) for s in shape]):
            x = [self.reps[i][k] for i, k in enumerate(idx)]
            self.pred[idx] = classes.index(dg.predict(x))

    def points(self) -> list[list[Any]]:
        return [list(p) for p in itertools.product(*self.reps)]

    def _index(self, x: list[Any]) -> list[int]:
        return [self.reps[i].index(v) for i, v in enumerate(x)]

    def sufficient(self, x: list[Any], fixed: set[int]) -> bool:
        idx = self._index(x)
        c = self.pred[tuple(idx)]
        sl = tuple(idx[i] if i in fixed else slice(None) for i in range(len(idx)))
        return bool((self.pred[sl] == c).all())

    def explanations(self, x: list[Any]) -> tuple[set[frozenset[str]], set[frozenset[str]]]:
        n = len(self.reps)
        names = [f.name for f in self.dg.features]
        weak_axp = [s for s in _subsets(n) if self.sufficient(x, s)]
        weak_cxp = [s for s in _subsets(n) if not self.sufficient(x, set(range(n)) - s)]
        axps = {
            frozenset(names[i] for i in s) for s in weak_axp if not any(t < s for t in weak_axp)
        }
        cxps = {
            frozenset(names[i] for i in s) for s in weak_cxp if not any(t < s for t in weak_cxp)
        }
        return axps, cxps


def _subsets(n: int) -> list[set[int]]:
    return [set(c) for r in range(n + 1) for c in itertools.combinations(range(n), r)]
