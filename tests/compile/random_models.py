"""Seeded random models of every class, and explanations by brute force on the ORIGINAL model.

The brute force evaluates the model's own ``predict`` (never a compiled graph) over a grid
that holds, for every feature, a value of every cell the model can tell apart (every value
of a small discrete domain; for numeric features every constant the model compares with,
points between them and beyond them) plus the instance's value.  An AXp is a minimal set
of features that, fixed to the instance, leave one class over the grid; a CXp is a minimal
set whose freeing reaches another class.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import portion as P

from xpg.core.features import Feature, Literal
from xpg.core.graph import DecisionGraph
from xpg.models.decision_list import DecisionList, Rule
from xpg.models.feature_space import FeatureGroup
from xpg.models.omdd import OMDD
from xpg.models.tree import DecisionTree, Leaf, Split

GRID = [1.0, 2.5, 4.0, 5.5, 7.0]  # thresholds of random numeric literals


# -- features --------------------------------------------------------------------------------------
def random_features(
    rng: random.Random, n: int, kinds: Sequence[str] | None = None
) -> list[Feature]:
    kinds = kinds or ["boolean", "categorical", "integer", "real"]
    out: list[Feature] = []
    for i in range(n):
        kind = rng.choice(list(kinds))
        if kind == "boolean":
            out.append(Feature.boolean(f"f{i}"))
        elif kind == "categorical":
            out.append(Feature.categorical(f"f{i}", [f"v{k}" for k in range(rng.randint(2, 4))]))
        elif kind == "integer":
            out.append(Feature.integer(f"f{i}", 0, rng.randint(2, 4)))
        else:
            bounded = rng.random() < 0.3
            out.append(Feature.real(f"f{i}", 0.0, 8.0) if bounded else Feature.real(f"f{i}"))
    return out


def _domain_values(f: Feature) -> list[Any]:
    if f.is_discrete:
        return list(f.values)
    return list(range(int(f.low), int(f.high) + 1))


def random_condition(rng: random.Random, f: Feature) -> Literal:
    """A literal on ``f`` that admits some but (usually) not all values of its domain."""
    if f.kind == "real":
        t = rng.choice(GRID)
        choice = rng.random()
        if choice < 0.4:
            return Literal.le(f.name, t)
        if choice < 0.8:
            return Literal.gt(f.name, t)
        lo, hi = sorted(rng.sample(GRID, 2))
        return Literal.interval(f.name, lo, hi, closed=rng.choice(["right", "left", "both"]))
    values = _domain_values(f)
    subset = rng.sample(values, rng.randint(1, len(values) - 1))
    if f.kind == "integer" and rng.random() < 0.5:
        t = rng.choice(values[:-1])
        return Literal.le(f.name, t) if rng.random() < 0.5 else Literal.gt(f.name, t)
    return Literal.isin(f.name, subset)


# -- decision trees (the project's format) ---------------------------------------------------------
def _partition_numeric(
    rng: random.Random, f: Feature, possible: Any
) -> list[tuple[Literal, Any]] | None:
    """Two or three branches partitioning ``possible`` (a portion interval) of a numeric feature."""
    inside = [
        t
        for t in GRID
        if not f.is_empty(possible & P.openclosed(-P.inf, t))
        and not f.is_empty(possible & P.open(t, P.inf))
    ]
    if f.kind == "integer":
        inside = [
            t
            for t in range(int(f.low), int(f.high))
            if not f.is_empty(possible & P.openclosed(-P.inf, t))
            and not f.is_empty(possible & P.open(t, P.inf))
        ]
    if not inside:
        return None
    cuts = sorted(rng.sample(inside, min(len(inside), rng.randint(1, 2))))
    bounds = [-math.inf, *cuts, math.inf]
    out = []
    for lo, hi in zip(bounds, bounds[1:]):
        lit = Literal.interval(f.name, lo, hi)
        out.append((lit, possible & lit.allowed))
    return out


def random_decision_tree(
    rng: random.Random, features: list[Feature], n_classes: int, depth: int
) -> DecisionTree:
    classes = list(range(n_classes))

    def grow(possible: dict[str, Any], d: int) -> Leaf | Split:
        if d == 0 or rng.random() < 0.2:
            return Leaf(rng.randrange(n_classes))
        for _ in range(5):
            f = rng.choice(features)
            here = possible[f.name]
            if f.is_discrete:
                vals = sorted(here, key=list(f.values).index)
                if len(vals) < 2:
                    continue
                rng.shuffle(vals)
                k = rng.randint(2, min(3, len(vals)))
                parts = [[v] for v in vals[:k]]
                for v in vals[k:]:
                    rng.choice(parts).append(v)
                # sometimes add values already excluded on the path (unrestricted literals)
                extra = [v for v in f.values if v not in here]
                if extra and rng.random() < 0.5:
                    parts[0] += extra
                branches = [(Literal.isin(f.name, p), frozenset(p) & here) for p in parts]
            else:
                parts_num = _partition_numeric(rng, f, here)
                if parts_num is None:
                    continue
                branches = parts_num
            return Split(
                f.name,
                [(lit, grow({**possible, f.name: sub}, d - 1)) for lit, sub in branches],
            )
        return Leaf(rng.randrange(n_classes))

    start = {f.name: f.domain_set() for f in features}
    return DecisionTree(features, classes, grow(start, depth))


# -- decision lists --------------------------------------------------------------------------------
def random_decision_list(
    rng: random.Random, features: list[Feature], n_classes: int, n_rules: int
) -> DecisionList:
    classes = list(range(n_classes))
    rules: list[Rule] = []
    while len(rules) < n_rules:
        chosen = rng.sample(features, rng.randint(1, min(3, len(features))))
        conds = [random_condition(rng, f) for f in chosen]
        if rng.random() < 0.15:  # a second condition on one feature
            conds.append(random_condition(rng, chosen[0]))
        try:
            DecisionList(features, classes, [Rule(conds, 0)], 0)
        except Exception:
            continue
        rules.append(Rule(conds, rng.randrange(n_classes)))
    return DecisionList(features, classes, rules, rng.randrange(n_classes))


# -- OMDDs
def random_omdd(
    rng: random.Random, features: list[Feature], n_classes: int, width: int = 3
) -> OMDD:
    """A random (not necessarily reduced) OMDD over finite discrete features, random order."""
    order = [f.name for f in features]
    rng.shuffle(order)
    by_name = {f.name: f for f in features}
    terminals = [("t", c) for c in range(n_classes)]
    below: list[Any] = list(terminals)
    spec: dict[Any, tuple[str, dict[Any, Any]]] = {}
    for level in range(len(order) - 1, -1, -1):
        name = order[level]
        made = []
        for k in range(rng.randint(1, width) if level else 1):
            nid = f"n{level}_{k}"
            spec[nid] = (name, {v: rng.choice(below) for v in _domain_values(by_name[name])})
            made.append(nid)
        below = below + made
    root = "n0_0"
    reach, stack = {root}, [root]
    while stack:
        n = stack.pop()
        if n in spec:
            for c in spec[n][1].values():
                if c not in reach:
                    reach.add(c)
                    stack.append(c)
    omdd = OMDD(features, list(range(n_classes)), order=order)
    for t in terminals:
        if t in reach:
            omdd.add_terminal(f"t{t[1]}", t[1])
    for n, (name, kids) in spec.items():
        if n in reach:
            omdd.add_node(
                n, name, {v: (f"t{c[1]}" if isinstance(c, tuple) else c) for v, c in kids.items()}
            )
    return omdd


# -- general decision graphs
def merge_subtrees(dg: DecisionGraph) -> DecisionGraph:
    """Hash-cons identical subgraphs: a DAG with the same classification function."""
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


# -- sklearn trees
def random_sklearn_tree(
    rng: random.Random, n_features: int, n_classes: int, depth: int, n_samples: int = 200
) -> tuple[Any, list[Feature], np.ndarray]:
    """A tree fitted on random data with boolean, small-integer and real columns."""
    from sklearn.tree import DecisionTreeClassifier

    nrng = np.random.default_rng(rng.randrange(2**32))
    feats: list[Feature] = []
    cols = []
    for j in range(n_features):
        kind = rng.choice(["boolean", "integer", "real"])
        if kind == "boolean":
            feats.append(Feature.boolean(f"f{j}"))
            cols.append(nrng.integers(0, 2, n_samples).astype(float))
        elif kind == "integer":
            feats.append(Feature.integer(f"f{j}", 0, 4))
            cols.append(nrng.integers(0, 5, n_samples).astype(float))
        else:
            feats.append(Feature.real(f"f{j}"))
            cols.append(np.round(nrng.normal(0, 3, n_samples), rng.choice([1, 3, 7])))
    X = np.column_stack(cols)
    w = nrng.normal(size=n_features)
    score = X @ w + nrng.normal(0, 0.5, n_samples)
    y = np.digitize(score, np.quantile(score, np.linspace(0, 1, n_classes + 1)[1:-1]))
    clf = DecisionTreeClassifier(max_depth=depth, random_state=rng.randrange(1000)).fit(X, y)
    return clf, feats, X


def sklearn_thresholds(estimator: Any) -> dict[int, list[float]]:
    t = estimator.tree_
    out: dict[int, list[float]] = {}
    for f, thr in zip(t.feature, t.threshold):
        if f >= 0:
            out.setdefault(int(f), []).append(float(thr))
    return out


def float32_representatives(thresholds: Sequence[float]) -> list[float]:
    """float32 values, one in every cell that ``float32(x) <= t`` for the thresholds separates:
    the largest float32 <= the smallest threshold, and the smallest float32 > each threshold."""
    out = []
    for t in sorted(thresholds):
        f = np.float32(t)
        if float(f) > t:
            f = np.nextafter(f, np.float32(-np.inf))
        out.append(float(f))
        out.append(float(np.nextafter(f, np.float32(np.inf))))
    return sorted(set(out))


# -- representative values and brute force
def literal_constants(literals: Sequence[Literal]) -> dict[str, set[float]]:
    out: dict[str, set[float]] = {}
    for lit in literals:
        s = out.setdefault(lit.feature, set())
        if lit.is_value_set:
            s.update(float(v) for v in lit.allowed if isinstance(v, (int, float)))
        else:
            for lo, hi, _, _ in lit.intervals():
                s.update(x for x in (lo, hi) if math.isfinite(x))
    return out


def numeric_representatives(f: Feature, constants: set[float]) -> list[Any]:
    """Every constant, a point between consecutive ones, and points beyond, inside the domain."""
    if f.kind == "integer":
        return _domain_values(f)
    cs = sorted(constants)
    pts = set(cs)
    pts.update((a + b) / 2 for a, b in zip(cs, cs[1:]))
    if cs:
        pts.update((cs[0] - 1.0, cs[-1] + 1.0))
    else:
        pts.add(0.0)
    inside = sorted(p for p in pts if f.low <= p <= f.high)
    return inside or [f.low if math.isfinite(f.low) else 0.0]


def brute_force(
    predict: Callable[[dict[str, Any]], Any],
    features: Sequence[Feature],
    grid: dict[str, list[Any]],
    instance: dict[str, Any],
    tested: Sequence[str],
    predict_many: Callable[[list[dict[str, Any]]], list[Any]] | None = None,
) -> tuple[set[frozenset[str]], set[frozenset[str]]]:
    """(AXps, CXps) over the grid, with the untested features held at the instance's values."""
    names = [f.name for f in features]
    axes = [
        sorted(set(grid[n]) | {instance[n]}, key=repr) if n in tested else [instance[n]]
        for n in names
    ]
    points = [dict(zip(names, p)) for p in itertools.product(*axes)]
    preds = predict_many(points) if predict_many else [predict(p) for p in points]
    c = predict(instance)
    other = np.array([p != c for p in preds])
    equal = {n: np.array([pt[n] == instance[n] for pt in points]) for n in tested}
    ones = np.ones(len(points), dtype=bool)
    weak_axp, weak_cxp = [], []
    for r in range(len(tested) + 1):
        for s in itertools.combinations(tested, r):
            fixed = ones.copy()
            for n in s:
                fixed &= equal[n]
            if not other[fixed].any():
                weak_axp.append(frozenset(s))
            freed = ones.copy()
            for n in tested:
                if n not in s:
                    freed &= equal[n]
            if other[freed].any():
                weak_cxp.append(frozenset(s))
    axps = {s for s in weak_axp if not any(t < s for t in weak_axp)}
    cxps = {s for s in weak_cxp if not any(t < s for t in weak_cxp)}
    return axps, cxps


def random_instance(
    rng: random.Random, features: Sequence[Feature], grid: dict[str, list[Any]]
) -> dict[str, Any]:
    out = {}
    for f in features:
        if f.is_discrete or f.kind == "integer":
            out[f.name] = rng.choice(_domain_values(f))
        else:
            pts = grid.get(f.name) or [0.0]
            v = rng.choice(pts) + rng.choice([0.0, 0.0, 0.25, -0.25])
            out[f.name] = min(max(v, f.low), f.high)
    return out


def one_hot_group(name: str, n: int) -> FeatureGroup:
    return FeatureGroup.one_hot(name, [f"{name}{k}" for k in range(n)])
