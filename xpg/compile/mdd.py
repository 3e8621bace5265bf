"""Reduced ordered multi-valued decision diagrams, hash-consed (:class:`MDDBuilder`).

One operation is what the compilers need, ``IF conjunction THEN a ELSE b`` (the apply step of
Bryant's algorithm specialised to a conjunction of literals).  A builder may be given a
``budget``, the most nodes it makes: the next one raises
:class:`~xpg.errors.GraphTooLargeError` (checked as each node is made, so memory stays within
the budget however the diagram would grow).  Each level's domain is a list
of *cells*: the classes of values that every literal of the model treats alike
(:func:`~xpg.core.valuesets.feature_cells`), so real and unbounded integer features get an
ordered MDD too.

References
----------
Srinivasan, Kam, Malik, Brayton. Algorithms for discrete function manipulation. ICCAD 1990
(reduced ordered MDDs); Bryant. Graph-based algorithms for Boolean function manipulation.
IEEE TC 1986 (apply).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

from xpg.core.features import Feature, Literal, ValueSet
from xpg.core.graph import DecisionGraph
from xpg.core.valuesets import union
from xpg.errors import GraphTooLargeError

NodeId = Hashable


# -- reduced ordered MDDs, hash-consed
class MDDBuilder:
    """Reduced ordered MDD nodes over levels with finite domains (cell indices).

    Node ``i`` is a terminal when ``level[i] == n_levels`` (its ``label`` is a class index);
    otherwise it tests level ``level[i]`` and ``children[i][j]`` is its child for cell ``j``.
    Nodes are unique (no two with the same level and children) and no node has all its
    children equal, so the diagram is reduced by construction.

    Parameters
    ----------
    sizes : sequence of int
        The number of cells of each level, level 0 first.
    budget : int, optional
        The most nodes (terminals included) the builder makes; the next raises
        :class:`~xpg.errors.GraphTooLargeError` with ``what`` in its message.  None: no limit.
    what : str
        What is being compiled, for that message.

    Examples
    --------
    >>> mdd = MDDBuilder([2, 2], budget=3)
    >>> a = mdd.node(0, [mdd.terminal(0), mdd.terminal(1)])
    >>> mdd.node(1, [a, mdd.terminal(0)])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    xpg.errors.GraphTooLargeError: the diagram is too large to compile: it needs more than ...
    """

    def __init__(
        self, sizes: Sequence[int], budget: int | None = None, what: str = "the diagram"
    ) -> None:
        self.sizes = [int(s) for s in sizes]
        self.budget = budget
        self.what = what
        self.n_levels = len(self.sizes)
        self.level: list[int] = []
        self.children: list[tuple[int, ...]] = []
        self.label: list[int] = []
        self._unique: dict[tuple[int, tuple[int, ...]], int] = {}
        self._terminals: dict[int, int] = {}

    def terminal(self, label: int) -> int:
        """The terminal of class index ``label``."""
        if label not in self._terminals:
            self._spend()
            self._terminals[label] = len(self.level)
            self.level.append(self.n_levels)
            self.children.append(())
            self.label.append(label)
        return self._terminals[label]

    def node(self, level: int, children: Sequence[int]) -> int:
        """The node testing ``level`` with these children (or the child, when all are equal)."""
        kids = tuple(children)
        if len(kids) != self.sizes[level]:
            raise ValueError(f"level {level} has {self.sizes[level]} cells, got {len(kids)}")
        if all(k == kids[0] for k in kids):
            return kids[0]
        key = (level, kids)
        found = self._unique.get(key)
        if found is None:
            self._spend()
            found = self._unique[key] = len(self.level)
            self.level.append(level)
            self.children.append(kids)
            self.label.append(-1)
        return found

    def _spend(self) -> None:
        """Refuse a node beyond the budget."""
        if self.budget is not None and len(self.level) >= self.budget:
            raise GraphTooLargeError(
                f"{self.what} is too large to compile: it needs more than the budget of "
                f"{self.budget} diagram nodes"
            )

    def ite_conjunction(
        self, term: Sequence[tuple[int, frozenset[int]]], then: int, otherwise: int
    ) -> int:
        """The node for ``IF term THEN then ELSE otherwise``.

        ``term`` is a conjunction of ``(level, admitted cells)`` with strictly increasing
        levels; ``then`` is typically a terminal.  Cost: one visit per (literal, node of
        ``otherwise``) pair, iteratively (no recursion limit).
        """
        levels = [lv for lv, _ in term]
        if any(a >= b for a, b in zip(levels, levels[1:])):
            raise ValueError("the literals of a term must have strictly increasing levels")
        memo: dict[tuple[int, int], int] = {}
        # explicit stack of (k, node, expanded?) frames, results in memo
        stack: list[tuple[int, int, bool]] = [(0, otherwise, False)]
        while stack:
            k, f, expanded = stack.pop()
            if (k, f) in memo:
                continue
            if k == len(term):
                memo[(k, f)] = then
                continue
            lv, admitted = term[k]
            lf = self.level[f]
            subs = self._sub_calls(k, f, lv, lf, admitted)
            if not expanded:
                pending = [s for s in subs if s is not None and s not in memo]
                if pending:
                    stack.append((k, f, True))
                    stack.extend((kk, ff, False) for kk, ff in pending)
                    continue
            if lf < lv:
                memo[(k, f)] = self.node(lf, [memo[(k, c)] for c in self.children[f]])
            else:
                kids = []
                for j in range(self.sizes[lv]):
                    fj = self.children[f][j] if lf == lv else f
                    kids.append(memo[(k + 1, fj)] if j in admitted else fj)
                memo[(k, f)] = self.node(lv, kids)
        return memo[(0, otherwise)]

    def _sub_calls(
        self, k: int, f: int, lv: int, lf: int, admitted: frozenset[int]
    ) -> list[tuple[int, int] | None]:
        if lf < lv:
            return [(k, c) for c in self.children[f]]
        return [
            (k + 1, self.children[f][j] if lf == lv else f) if j in admitted else None
            for j in range(self.sizes[lv])
        ]

    def reachable(self, root: int) -> list[int]:
        """Nodes reachable from ``root``, root first (depth-first preorder)."""
        seen, order, stack = {root}, [], [root]
        while stack:
            n = stack.pop()
            order.append(n)
            for c in reversed(self.children[n]):
                if c not in seen:
                    seen.add(c)
                    stack.append(c)
        return order

    def to_decision_graph(
        self,
        root: int,
        features: Sequence[Feature],
        classes: Sequence[Any],
        level_features: Sequence[str],
        cells: Sequence[Sequence[ValueSet]],
    ) -> DecisionGraph:
        """The decision graph of the diagram under ``root``; edges to one child are merged.

        ``level_features[l]`` names the feature of level ``l`` and ``cells[l][j]`` is the value
        set of its cell ``j``.  Node ids are integers, the root is 0.
        """
        dg = DecisionGraph(features, classes)
        by_name = {f.name: f for f in features}
        order = self.reachable(root)
        ids = {n: i for i, n in enumerate(order)}
        for n in order:
            if self.level[n] == self.n_levels:
                dg.add_terminal(ids[n], classes[self.label[n]])
            else:
                dg.add_node(ids[n], level_features[self.level[n]])
        for n in order:
            lv = self.level[n]
            if lv == self.n_levels:
                continue
            feature = by_name[level_features[lv]]
            grouped: dict[int, list[ValueSet]] = {}
            for j, c in enumerate(self.children[n]):
                grouped.setdefault(c, []).append(cells[lv][j])
            for c, parts in grouped.items():
                dg.add_edge(ids[n], ids[c], Literal(feature.name, union(feature, parts)))
        return dg


__all__ = ["MDDBuilder"]
