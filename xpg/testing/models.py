"""Random models of every kind: decision trees and lists, OMDDs, OBDDs (dd), risk scores,
scikit-learn trees.

Examples
--------
>>> from xpg.testing import random_features, random_instance
>>> feats = random_features(0, 3)
>>> tree = random_decision_tree(0, feats, 2, 3)
>>> tree.predict(random_instance(0, feats, {})) in (0, 1)
True
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import portion as P

from xpg.compile.bdd import bdd_manager
from xpg.core.features import Feature, Literal
from xpg.core.float32 import FLOAT32_MAX, FLOAT32_OVERFLOW, float32_cut
from xpg.core.graph import DecisionGraph
from xpg.errors import XpgError
from xpg.models.decision_list import DecisionList, Rule
from xpg.models.obdd import from_bdd
from xpg.models.omdd import OMDD
from xpg.models.risk_score import RiskScore, at_least
from xpg.models.tree import DecisionTree, Leaf, Split
from xpg.testing._seed import Seed, as_generator, as_random
from xpg.testing.features import GRID, domain_values, random_condition


def _partition_numeric(rng: Any, f: Feature, possible: Any) -> list[tuple[Literal, Any]] | None:
    """Two or three branches partitioning ``possible`` (a portion interval) of a numeric feature."""
    if f.kind == "integer":
        candidates: Sequence[float] = range(int(f.low), int(f.high))
    else:
        candidates = GRID
    inside = [
        t
        for t in candidates
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


def _partition_discrete(rng: Any, f: Feature, here: Any) -> list[tuple[Literal, Any]] | None:
    """Two or three parts of the values still possible; sometimes the first part also admits
    values excluded on the path (an unrestricted literal)."""
    vals = sorted(here, key=list(f.values).index)
    if len(vals) < 2:
        return None
    rng.shuffle(vals)
    k = rng.randint(2, min(3, len(vals)))
    parts = [[v] for v in vals[:k]]
    for v in vals[k:]:
        rng.choice(parts).append(v)
    extra = [v for v in f.values if v not in here]
    if extra and rng.random() < 0.5:
        parts[0] += extra
    return [(Literal.isin(f.name, p), frozenset(p) & here) for p in parts]


def random_decision_tree(
    seed: Seed, features: Sequence[Feature], n_classes: int, depth: int
) -> DecisionTree:
    """A random :class:`~xpg.models.tree.DecisionTree` (the project's own tree model).

    A node is a leaf at depth ``depth`` or with probability 0.2; else up to five random
    features are tried for a split: a finite feature by 2 or 3 parts of its possible values
    (see :func:`_partition_discrete`), an integer one at 1 or 2 values of its domain, a real
    one at 1 or 2 thresholds of :data:`~xpg.testing.features.GRID` inside its possible values.

    Examples
    --------
    >>> tree = random_decision_tree(1, [Feature.boolean("a"), Feature.real("r")], 3, 2)
    >>> tree.depth <= 2, tree.classes
    (True, [0, 1, 2])
    """
    rng = as_random(seed)
    classes = list(range(n_classes))

    def grow(possible: dict[str, Any], d: int) -> Leaf | Split:
        if d == 0 or rng.random() < 0.2:
            return Leaf(rng.randrange(n_classes))
        for _ in range(5):
            f = rng.choice(features)
            split = _partition_discrete if f.is_discrete else _partition_numeric
            branches = split(rng, f, possible[f.name])
            if branches is None:
                continue
            return Split(
                f.name,
                [(lit, grow({**possible, f.name: sub}, d - 1)) for lit, sub in branches],
            )
        return Leaf(rng.randrange(n_classes))

    start = {f.name: f.domain_set() for f in features}
    return DecisionTree(list(features), classes, grow(start, depth))


def long_decision_list(n_rules: int = 60, seed: Seed = 0) -> DecisionList:
    """Rules over features drawn from the whole range (24 booleans and an integer ``n`` in
    0..16, three classes): a diagram exponential in the rules, far beyond the compile budget
    at 60 rules, while the list and its SAT encoding stay a few hundred lines.

    >>> dl = long_decision_list(5)
    >>> len(dl.rules), len(dl.features), dl.classes
    (5, 25, [0, 1, 2])
    """
    rng = as_random(seed)
    feats = [Feature.boolean(f"b{i}") for i in range(24)] + [Feature.integer("n", 0, 16)]
    rules = []
    for _ in range(n_rules):
        chosen = rng.sample(range(24), 3)
        conds = [Literal.eq(f"b{j}", rng.randint(0, 1)) for j in chosen]
        if rng.random() < 0.5:
            conds.append(Literal.gt("n", rng.randint(0, 15)))
        rules.append(Rule(conds, rng.randint(0, 2)))
    return DecisionList(feats, [0, 1, 2], rules, 0)


def random_decision_list(
    seed: Seed, features: Sequence[Feature], n_classes: int, n_rules: int
) -> DecisionList:
    """A random :class:`~xpg.models.decision_list.DecisionList` of ``n_rules`` rules.

    A rule has :func:`~xpg.testing.features.random_condition` literals on 1 to 3 features,
    with probability 0.15 a second literal on its first feature; rules the list refuses
    (an empty conjunction) are drawn again.

    Examples
    --------
    >>> len(random_decision_list(0, [Feature.boolean("a"), Feature.real("r")], 2, 4).rules)
    4
    """
    rng = as_random(seed)
    classes = list(range(n_classes))
    rules: list[Rule] = []
    while len(rules) < n_rules:
        chosen = rng.sample(list(features), rng.randint(1, min(3, len(features))))
        conds = [random_condition(rng, f) for f in chosen]
        if rng.random() < 0.15:  # a second condition on one feature
            conds.append(random_condition(rng, chosen[0]))
        try:
            DecisionList(list(features), classes, [Rule(conds, 0)], 0)
        except XpgError:
            continue
        rules.append(Rule(conds, rng.randrange(n_classes)))
    return DecisionList(list(features), classes, rules, rng.randrange(n_classes))


def random_omdd(seed: Seed, features: Sequence[Feature], n_classes: int, width: int = 3) -> OMDD:
    """A random (not necessarily reduced) OMDD over finite features, in a random order.

    Layer ``level`` holds 1 to ``width`` nodes (one at the root); every value of a node goes
    to a random node of a lower layer or a terminal; only what the root reaches is kept.

    Examples
    --------
    >>> omdd = random_omdd(0, [Feature.boolean("a"), Feature.integer("i", 0, 2)], 2)
    >>> omdd.check(); omdd.predict({"a": 1, "i": 2}) in (0, 1)
    True
    """
    rng = as_random(seed)
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
            spec[nid] = (name, {v: rng.choice(below) for v in domain_values(by_name[name])})
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
    omdd = OMDD(list(features), list(range(n_classes)), order=order)
    for t in terminals:
        if t in reach:
            omdd.add_terminal(f"t{t[1]}", t[1])
    for n, (name, kids) in spec.items():
        if n in reach:
            omdd.add_node(
                n, name, {v: (f"t{c[1]}" if isinstance(c, tuple) else c) for v, c in kids.items()}
            )
    return omdd


def random_risk_score(
    seed: Seed,
    features: Sequence[Feature],
    n_conditions: int,
    max_points: int = 3,
    classes: Sequence[Any] = (0, 1),
) -> RiskScore:
    """A random :class:`~xpg.models.risk_score.RiskScore` of ``n_conditions`` conditions.

    A condition is, on a numeric feature, with probability 3/4 ``x >= t`` (``t`` from
    :data:`~xpg.testing.features.GRID`, or a value of an integer domain above its least),
    else any :func:`~xpg.testing.features.random_condition` literal, as on the other
    features; features repeat.  Points are non-zero integers in ``[-max_points,
    max_points]``, positive with probability 3/4; the bias is drawn from ``-most .. -least - 1``
    (``least``, ``most``: the least and greatest sums of points an input can get,
    :meth:`~xpg.models.risk_score.RiskScore.score_range`), so that both classes occur
    unless every condition is constant.

    Examples
    --------
    >>> from xpg.core.features import Feature
    >>> rs = random_risk_score(0, [Feature.real("r"), Feature.integer("i", 0, 3)], 4)
    >>> len(rs.conditions), rs.classes
    (4, [0, 1])
    """
    rng = as_random(seed)
    conditions = []
    for _ in range(n_conditions):
        f = rng.choice(list(features))
        lit = random_condition(rng, f)
        if not f.is_discrete and rng.random() < 0.75:
            above = [t for t in GRID if t > f.low] if f.kind == "real" else domain_values(f)[1:]
            if above:
                lit = at_least(f.name, rng.choice(above))
        points = rng.randint(1, max_points) * (1 if rng.random() < 0.75 else -1)
        conditions.append((lit, points))
    least, most = RiskScore(list(features), list(classes), conditions).score_range()
    bias = -rng.randint(least + 1, most) if most > least else 0
    return RiskScore(list(features), list(classes), conditions, bias=bias)


def dnf_obdd(terms: Sequence[Sequence[tuple[str, bool]]], names: Sequence[str]) -> Any:
    """The dd function (reduced OBDD, order ``names``) of a DNF; a term is a list of
    ``(name, positive)`` literals.  Returns ``(manager, function)``.

    Examples
    --------
    >>> bdd, u = dnf_obdd([[("a", True), ("b", False)]], ["a", "b"])
    >>> u == bdd.add_expr(r"a /\\ ~ b")
    True
    """
    bdd = bdd_manager(list(names))
    u = bdd.false
    for term in terms:
        u |= _term(bdd, term)
    return bdd, u


def _term(bdd: Any, literals: Sequence[tuple[str, bool]]) -> Any:
    t = bdd.true
    for name, positive in literals:
        t &= bdd.var(name) if positive else ~bdd.var(name)
    return t


def random_obdd(seed: Seed, n_vars: int) -> DecisionGraph:
    """A reduced OBDD (built with dd) of a random function over booleans ``b0 .. b{n-1}``:
    a DNF of 2 to 5 terms of 1 to 4 literals, with probability 1/2 xor a variable.

    Examples
    --------
    >>> dg = random_obdd(0, 4)
    >>> [f.name for f in dg.features], dg.is_tree()
    (['b0', 'b1', 'b2', 'b3'], False)
    """
    rng = as_generator(seed)
    names = [f"b{i}" for i in range(n_vars)]
    terms = []
    for _ in range(int(rng.integers(2, 6))):
        size = int(rng.integers(1, min(4, n_vars) + 1))
        terms.append(
            [(names[i], rng.random() < 0.5) for i in rng.choice(n_vars, size=size, replace=False)]
        )
    bdd, u = dnf_obdd(terms, names)
    if rng.random() < 0.5:
        u = bdd.apply("xor", u, bdd.var(names[int(rng.integers(n_vars))]))
    return from_bdd(u, [Feature.boolean(n) for n in names])


def random_reduced_obdd(
    n_features: int, target_nodes: int, seed: Seed = 0, term_size: int = 4
) -> DecisionGraph:
    """A reduced OBDD over booleans ``x0 ..`` of a random DNF: terms of ``term_size`` random
    literals are added until it has at least ``target_nodes`` nodes.

    Examples
    --------
    >>> len(random_reduced_obdd(12, 40, seed=1)) >= 40
    True
    """
    rng = as_random(seed)
    names = [f"x{i}" for i in range(n_features)]
    bdd, f = dnf_obdd([], names)
    while len(f) + 2 < target_nodes:
        chosen = rng.sample(names, min(term_size, n_features))
        f |= _term(bdd, [(v, rng.random() < 0.5) for v in chosen])
    return from_bdd(f, [Feature.boolean(n) for n in names])


def random_sklearn_tree(
    seed: Seed, n_features: int, n_classes: int, depth: int, n_samples: int = 200
) -> tuple[Any, list[Feature], np.ndarray]:
    """A ``DecisionTreeClassifier`` fitted on random boolean, integer (0..4) and real columns
    (normal, rounded to 1, 3 or 7 decimals), the class a binned noisy linear score.

    Returns
    -------
    (classifier, features, X)

    Examples
    --------
    >>> clf, feats, X = random_sklearn_tree(0, 3, 2, 3)
    >>> X.shape, len(feats), clf.get_depth() <= 3
    ((200, 3), 3, True)
    """
    from sklearn.tree import DecisionTreeClassifier

    rng = as_random(seed)
    nrng = as_generator(rng)
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


def random_real_sklearn_tree(
    seed: Seed, *, three_classes: bool = False, random_state: int = 0
) -> tuple[Any, np.ndarray]:
    """A ``DecisionTreeClassifier`` of depth 2 to 6 on 200 rows of 2 to 7 standard normal
    columns; class ``x0 + x1 * x_last + noise > 0`` (plus ``x0 > 1`` for ``three_classes``).

    Returns
    -------
    (classifier, X)

    Examples
    --------
    >>> clf, X = random_real_sklearn_tree(0, three_classes=True)
    >>> X.shape[0], clf.classes_.tolist()
    (200, [0, 1, 2])
    """
    from sklearn.tree import DecisionTreeClassifier

    rng = as_generator(seed)
    n = int(rng.integers(2, 8))
    X = rng.normal(size=(200, n))
    y = (X[:, 0] + X[:, 1 % n] * X[:, -1] + 0.3 * rng.normal(size=200) > 0).astype(int)
    if three_classes:
        y = y + (X[:, 0] > 1)
    depth = int(rng.integers(2, 7))
    clf = DecisionTreeClassifier(max_depth=depth, random_state=random_state).fit(X, y)
    return clf, X


def sklearn_thresholds(estimator: Any) -> dict[int, list[float]]:
    """The thresholds of a fitted scikit-learn tree, by column.

    Examples
    --------
    >>> clf, _, _ = random_sklearn_tree(0, 2, 2, 1)
    >>> sum(len(t) for t in sklearn_thresholds(clf).values())
    1
    """
    t = estimator.tree_
    out: dict[int, list[float]] = {}
    for f, thr in zip(t.feature, t.threshold):
        if f >= 0:
            out.setdefault(int(f), []).append(float(thr))
    return out


def float32_representatives(thresholds: Sequence[float]) -> list[float]:
    """Finite float32 values, one in every cell that ``float32(x) <= t`` for the thresholds
    separates: the largest finite float32 that passes each threshold and the smallest that
    does not, where there is one (beyond the float32 range, on one side there is none; see
    :mod:`xpg.core.float32`).

    Examples
    --------
    >>> float32_representatives([0.5])
    [0.5, 0.5000000596046448]
    >>> float32_representatives([3.5e38, -float("inf")]) == [-FLOAT32_MAX, FLOAT32_MAX]
    True
    """
    out = set()
    for t in thresholds:
        cut = float32_cut(t)  # x passes when x <= cut, cut a float64
        if cut >= -FLOAT32_MAX:
            out.add(float(np.float32(min(cut, FLOAT32_MAX))))
        above = float(np.nextafter(cut, np.inf))
        if above < FLOAT32_OVERFLOW:
            out.add(float(np.float32(above)))
    return sorted(out)
