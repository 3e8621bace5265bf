"""The compilation of a tree ensemble into an exact decision graph (:func:`compile_ensemble`).

A reduced ordered MDD over the cells between the thresholds: each tree's own diagram first,
then their product level by level, the class computed at the terminals from the leaves
reached exactly as the model's ``predict`` computes it (floating point, in scikit-learn's
order), within a budget of work (:data:`GRAPH_BUDGET`) past which
:class:`~xpg.errors.GraphTooLargeError` is raised.

References
----------
Izza, Marques-Silva. On Explaining Random Forests with SAT. IJCAI 2021 (the intervals
between thresholds).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np
import portion as P

import xpg.core.costs as costs
from xpg.compile.mdd import MDDBuilder
from xpg.core.features import Feature, ValueSet
from xpg.core.graph import DecisionGraph
from xpg.errors import GraphTooLargeError
from xpg.models.ensemble_tree import EnsembleTree, feature_number

#: the work :func:`compile_ensemble` may do by default, in edges made (an edge of the product
#: diagram counts :data:`xpg.core.costs.PRODUCT_EDGE_COST`, one of a single tree's diagram 1):
#: about a second or two of compilation
GRAPH_BUDGET = 1_000_000


class _Ensemble(Protocol):
    """What the compilation reads of a :class:`~xpg.models.ensemble.TreeEnsemble` (a
    protocol: the model's module imports this one)."""

    @property
    def features(self) -> Sequence[Feature]: ...
    @property
    def classes(self) -> Sequence[Any]: ...
    @property
    def trees(self) -> Sequence[EnsembleTree]: ...
    @property
    def base(self) -> np.ndarray: ...
    @property
    def scale(self) -> float: ...
    @property
    def decision(self) -> str: ...
    @property
    def n_scores(self) -> int: ...
    @property
    def n_nodes(self) -> int: ...
    def scores_of_leaves(self, leaves: np.ndarray) -> np.ndarray: ...
    def classes_of_scores(self, scores: np.ndarray) -> np.ndarray: ...
    def rounding_bound(self) -> float: ...


class _Levels:
    """The features some split tests, each cut into the cells between its thresholds."""

    def __init__(self, model: _Ensemble) -> None:
        cuts: dict[int, set[float]] = {}
        for t in model.trees:
            for j, c in zip(t.feature[t.left >= 0].tolist(), t.threshold[t.left >= 0].tolist()):
                cuts.setdefault(j, set()).add(c)
        self.features: list[int] = sorted(cuts)
        self.level = {j: lv for lv, j in enumerate(self.features)}
        self.cuts: list[np.ndarray] = [np.array(sorted(cuts[j])) for j in self.features]
        #: per level: the cells (value sets) and, per cell, the interval index of its values
        self.cells: list[list[ValueSet]] = []
        self.slots: list[list[int]] = []
        for lv, j in enumerate(self.features):
            f = model.features[j]
            cells, slots = _cells(f, self.cuts[lv])
            self.cells.append(cells)
            self.slots.append(slots)

    def admitted(self, lv: int, cut: float, left: bool) -> frozenset[int]:
        """The cells of level ``lv`` on the ``left`` (``<= cut``) or right side."""
        p = int(np.searchsorted(self.cuts[lv], cut))  # the position of the cut itself
        return frozenset(c for c, s in enumerate(self.slots[lv]) if (s <= p) == left)


def _cells(f: Feature, cuts: np.ndarray) -> tuple[list[ValueSet], list[int]]:
    """The non-empty cells of ``f`` between ``cuts`` and their interval indices (the number
    of cuts strictly below their values)."""
    if f.is_discrete:
        groups: dict[int, list[Any]] = {}
        for v in f.values:
            groups.setdefault(int(np.searchsorted(cuts, feature_number(f, v))), []).append(v)
        slots = sorted(groups)
        return [frozenset(groups[s]) for s in slots], slots
    bounds = [-P.inf, *cuts.tolist(), P.inf]
    cells, slots = [], []
    domain = f.domain_set()
    for s in range(len(bounds) - 1):
        cell = domain & P.openclosed(bounds[s], bounds[s + 1])
        if s == len(bounds) - 2:
            cell = domain & P.open(bounds[s], P.inf)
        if not f.is_empty(cell):
            cells.append(cell)
            slots.append(s)
    return cells, slots


def compile_ensemble(model: _Ensemble, budget: int = GRAPH_BUDGET) -> DecisionGraph:
    """The decision graph of a tree ensemble: a reduced ordered MDD over the cells between
    its thresholds, features in feature order.

    Each tree is first made an ordered MDD whose terminals are its leaves (a node is the set
    of leaves still consistent with the cells chosen above it).  The product of these, level
    by level, carries one state per tree, and at the last level the class is computed from
    the leaves reached exactly as :meth:`~xpg.models.ensemble.TreeEnsemble.predict` computes
    it (floating point, in scikit-learn's order).  A state whose class the remaining features
    can no longer change (the bounds of the scores, widened by the rounding error, do not
    overlap) goes straight to a terminal.

    Parameters
    ----------
    model : TreeEnsemble
    budget : int
        The most work done before giving up, in edges made (:data:`GRAPH_BUDGET`).

    Raises
    ------
    GraphTooLargeError
        The ensemble is too large for the graph route: the explainers then use SAT/SMT.

    Examples
    --------
    >>> from xpg.models.ensemble import Forest
    >>> t = EnsembleTree(np.array([0, -1, -1]), np.array([0.5, 0, 0]), np.array([1, -1, -1]),
    ...                  np.array([2, -1, -1]), np.array([[0, 0], [1.0, 0], [0, 1.0]]))
    >>> f = Forest([Feature.boolean("a"), Feature.boolean("b")], ["no", "yes"],
    ...            [t, t._replace(feature=np.array([1, -1, -1]))], [0.0, 0.0], 0.5)
    >>> dg = compile_ensemble(f)
    >>> [dg.predict([a, b]) == f.predict([a, b]) for a in (0, 1) for b in (0, 1)]
    [True, True, True, True]
    """
    levels = _Levels(model)
    n_levels = len(levels.features)
    sizes = [len(c) for c in levels.cells]
    cost = [0]

    def spend(units: int) -> None:
        cost[0] += units
        if cost[0] > budget:
            raise GraphTooLargeError(
                f"the ensemble is too large for the graph route: compiling its "
                f"{len(model.trees)} trees ({model.n_nodes} nodes) takes more than the "
                f"budget of {budget} diagram edges; the SAT/SMT route is used instead"
            )

    single = MDDBuilder(sizes)
    roots = []
    leaf_of: list[tuple[int, int]] = []  # single-terminal label -> (tree, leaf)
    for t, tree in enumerate(model.trees):
        roots.append(_tree_mdd(single, levels, tree, t, leaf_of, spend))
    # the single-tree diagrams as arrays, per level, for one vectorised step per product cell
    n_single = len(single.level)
    level = np.asarray(single.level, dtype=np.int64)
    position = np.zeros(n_single, dtype=np.int64)
    by_level: list[list[tuple[int, ...]]] = [[] for _ in range(n_levels)]
    leaf = np.full(n_single, -1, dtype=np.int64)
    for n in range(n_single):
        if level[n] == n_levels:
            leaf[n] = leaf_of[single.label[n]][1]
        else:
            position[n] = len(by_level[level[n]])
            by_level[level[n]].append(single.children[n])
    child = [
        np.asarray(rows, dtype=np.int64).reshape(len(rows), sizes[lv])
        for lv, rows in enumerate(by_level)
    ]
    lo, hi = _score_bounds(model, single, leaf_of)
    unit = model.scale
    slack = model.rounding_bound()
    sign = model.decision == "sign"
    product = MDDBuilder(sizes)
    memo: dict[bytes, int] = {}

    def decided(states: np.ndarray) -> int | None:
        low = model.base + lo[states].sum(axis=0) * unit
        high = model.base + hi[states].sum(axis=0) * unit
        if sign:
            if low[0] > slack:
                return 1
            if high[0] < -slack:
                return 0
            return None
        a = int(np.argmax(low))
        if (low[a] - slack > np.delete(high, a)).all():
            return a
        return None

    def build(states: np.ndarray) -> int:
        key = states.tobytes()
        found_node = memo.get(key)
        if found_node is not None:
            return found_node
        lv = int(level[states].min())
        spend(costs.PRODUCT_EDGE_COST * (sizes[lv] if lv < n_levels else 1))
        found = decided(states)
        if found is not None:
            node = product.terminal(found)
        elif lv == n_levels:
            scores = model.scores_of_leaves(leaf[states][None, :])
            node = product.terminal(int(model.classes_of_scores(scores)[0]))
        else:
            here = np.flatnonzero(level[states] == lv)
            moves = child[lv][position[states[here]]]  # (trees here, cells)
            kids = []
            for cell in range(sizes[lv]):
                nxt = states.copy()
                nxt[here] = moves[:, cell]
                kids.append(build(nxt))
            node = product.node(lv, kids)
        memo[key] = node
        return node

    root = build(np.asarray(roots, dtype=np.int64))
    names = [model.features[j].name for j in levels.features]
    return product.to_decision_graph(root, model.features, model.classes, names, levels.cells)


def _tree_mdd(
    single: MDDBuilder,
    levels: _Levels,
    tree: EnsembleTree,
    t: int,
    leaf_of: list[tuple[int, int]],
    spend: Any,
) -> int:
    """The ordered MDD of one tree, its terminals the tree's leaves (labels into ``leaf_of``).

    A node is the set of leaves consistent with the cells chosen at the levels above (what
    the tree still computes depends on nothing else), a bit mask over the leaves.  A leaf no
    cell reaches (a split whose side holds no value of the domain on its path, e.g. two cuts
    between the same two integers) is left out."""
    leaves = tree.leaves.tolist()
    labels = []
    for leaf in leaves:
        labels.append(len(leaf_of))
        leaf_of.append((t, leaf))
    # per level, per cell: the mask of the leaves whose path admits the cell
    admits = [[0] * len(c) for c in levels.cells]
    tested: list[set[int]] = [set() for _ in leaves]
    reached = 0  # the mask of the leaves some cell reaches
    stack: list[tuple[int, dict[int, frozenset[int]]]] = [(0, {})]
    k_of = {leaf: k for k, leaf in enumerate(leaves)}
    while stack:
        node, term = stack.pop()
        if tree.left[node] < 0:
            k = k_of[node]
            reached |= 1 << k
            for lv, cells in term.items():
                for cell in cells:
                    admits[lv][cell] |= 1 << k
            tested[k] = set(term)
            continue
        lv = levels.level[int(tree.feature[node])]
        cut = float(tree.threshold[node])
        everything = frozenset(range(len(levels.cells[lv])))
        for kid, side in ((int(tree.right[node]), False), (int(tree.left[node]), True)):
            cells = term.get(lv, everything) & levels.admitted(lv, cut, side)
            if cells:
                stack.append((kid, {**term, lv: cells}))
    used = sorted({lv for s in tested for lv in s})
    testing = {lv: sum(1 << k for k, s in enumerate(tested) if lv in s) for lv in used}
    for lv in used:  # a reached leaf that does not test a level admits all its cells
        free = reached & ~testing[lv]
        admits[lv] = [m | free for m in admits[lv]]
    memo: dict[tuple[int, int], int] = {}

    def build(i: int, mask: int) -> int:
        if mask & (mask - 1) == 0:  # one leaf left
            return single.terminal(labels[mask.bit_length() - 1])
        while not mask & testing[used[i]]:  # no leaf left tests this level
            i += 1
        found = memo.get((i, mask))
        if found is not None:
            return found
        lv = used[i]
        spend(len(admits[lv]))
        kids = [build(i + 1, mask & m) for m in admits[lv]]
        memo[(i, mask)] = node = single.node(lv, kids)
        return node

    return build(0, reached)


def _score_bounds(
    model: _Ensemble, single: MDDBuilder, leaf_of: list[tuple[int, int]]
) -> tuple[np.ndarray, np.ndarray]:
    """Per node of the single-tree diagrams, the least and greatest leaf value reachable."""
    n = len(single.level)
    lo = np.zeros((n, model.n_scores))
    hi = np.zeros((n, model.n_scores))
    for k in range(n):  # children are made before their parents
        if single.level[k] == single.n_levels:
            t, leaf = leaf_of[single.label[k]]
            lo[k] = hi[k] = model.trees[t].value[leaf]
        else:
            kids = list(single.children[k])
            lo[k] = lo[kids].min(axis=0)
            hi[k] = hi[kids].max(axis=0)
    return lo, hi


__all__ = ["GRAPH_BUDGET", "compile_ensemble"]
