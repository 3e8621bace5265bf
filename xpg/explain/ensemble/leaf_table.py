"""The leaves of a tree ensemble over the cells of its input space (:class:`LeafTable`).

Per tree, the nodes some choice of cells reaches (a node whose path no value can follow is
left out, and a split with one possible side passes its parent on); per leaf, trees in order,
its *box*: the cells of each feature its path allows (a range of an ordered feature, a set of
a group's cells).  Built once per :class:`~xpg.explain.ensemble.space.CellLayout`
(:func:`leaf_table`), it is what the ensemble oracle's bounds, searches and encoding read.

Examples
--------
>>> from xpg import Feature
>>> from xpg.models import EnsembleTree, Forest
>>> from xpg.explain.ensemble.space import cell_layout
>>> t = EnsembleTree(np.array([0, 0, -1, -1, -1]), np.array([6.5, 2.5, 0, 0, 0]),
...                  np.array([1, 2, -1, -1, -1]), np.array([4, 3, -1, -1, -1]),
...                  np.array([[0, 0], [0, 0], [1.0, 0], [0, 1.0], [1.0, 0]]))
>>> table = leaf_table(cell_layout(Forest([Feature.integer("n", 0, 9)], [0, 1], [t],
...                                       [0.0, 0.0], 1.0)))
>>> table.node.tolist(), table.lo[:, 0].tolist(), table.hi[:, 0].tolist()
([2, 3, 4], [0, 1, 2], [1, 2, 3])
>>> table.excludes(0, 1).tolist()
[True, False, True]
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

import numpy as np

from xpg.explain.ensemble.space import CellLayout


class LeafTable:
    """The leaves of every tree that some choice of cells reaches, and their boxes.

    Attributes
    ----------
    reach : list of dict
        Per tree, the nodes reached: ``reach[t][n]`` is ``(src, parent, side)``, ``src`` the
        node ``n``'s parent is reached with, ``side`` True on the left (None at the root).
    alias : list of dict
        Per tree, the ancestor a node is reached with when its parent's split has one
        possible side.
    start : list of int
        ``start[t]``: the first leaf of tree ``t`` (``start[-1]``, the number of leaves).
    starts : ndarray of int64
        ``start`` but its last entry (for ``np.maximum.reduceat`` over the trees).
    tree, node : ndarray of int64
        Per leaf, its tree and node.
    lo, hi : ndarray of int64, shape (n_leaves, n_features)
        Per leaf, the cell range ``[lo, hi)`` its path allows of each ordered feature (the
        whole range for a group).
    sets : dict of int to ndarray of bool
        Per group ``i``, per leaf, the cells its path allows.
    """

    def __init__(self, layout: CellLayout) -> None:
        full = [(1 << k) - 1 for k in layout.n_cells]
        leaf_tree: list[int] = []
        leaf_node: list[int] = []
        leaf_allowed: list[dict[int, int]] = []
        reaches: list[dict[int, tuple[int, int, bool] | None]] = []
        aliases: list[dict[int, int]] = []
        tree_start = [0]
        for t, tree in enumerate(layout.model.trees):
            feat, left = layout.splits[t]
            reach: dict[int, tuple[int, int, bool] | None] = {0: None}
            alias: dict[int, int] = {}
            stack: list[tuple[int, dict[int, int]]] = [(0, {})]
            while stack:
                n, allowed = stack.pop()
                a, b = int(tree.left[n]), int(tree.right[n])
                if a < 0:
                    leaf_tree.append(t)
                    leaf_node.append(n)
                    leaf_allowed.append(allowed)
                    continue
                i = int(feat[n])
                lc = left[n]
                assert lc is not None
                lmask = (1 << lc) - 1 if isinstance(lc, int) else sum(1 << c for c in lc)
                here = allowed.get(i, full[i])
                go_l, go_r = here & lmask, here & ~lmask & full[i]
                src = alias.get(n, n)
                for child, mask, side in ((b, go_r, False), (a, go_l, True)):
                    if not mask:
                        continue
                    if mask == here:  # one possible side: the child is reached with its parent
                        alias[child] = src
                    else:
                        reach[child] = (src, n, side)
                    stack.append((child, {**allowed, i: mask}))
            reaches.append(reach)
            aliases.append(alias)
            tree_start.append(len(leaf_tree))
        n_leaves, n_features = len(leaf_node), len(layout.n_cells)
        lo = np.zeros((n_leaves, n_features), dtype=np.int64)
        hi = np.tile(np.asarray(layout.n_cells, dtype=np.int64), (n_leaves, 1))
        sets = {
            i: np.ones((n_leaves, k), dtype=bool)
            for i, k in enumerate(layout.n_cells)
            if not layout.ordered[i]
        }
        for row, allowed in enumerate(leaf_allowed):
            for i, m in allowed.items():
                if layout.ordered[i]:
                    lo[row, i] = (m & -m).bit_length() - 1
                    hi[row, i] = m.bit_length()
                else:
                    sets[i][row] = [bool(m >> c & 1) for c in range(layout.n_cells[i])]
        self.reach, self.alias, self.start = reaches, aliases, tree_start
        self.starts = np.asarray(tree_start[:-1])
        self.tree = np.asarray(leaf_tree, dtype=np.int64)
        self.node = np.asarray(leaf_node, dtype=np.int64)
        self.lo, self.hi, self.sets = lo, hi, sets
        self._meets: dict[int, np.ndarray] = {}

    def leaves(self) -> Iterable[tuple[int, int]]:
        """``(tree, node)`` of every leaf, in table order."""
        return zip(self.tree.tolist(), self.node.tolist())

    def excludes(self, i: int, cell: int) -> np.ndarray:
        """Per leaf: does its box exclude ``cell`` of feature ``i``?"""
        if i in self.sets:
            return ~self.sets[i][:, cell]
        return (self.lo_t[i] > cell) | (self.hi_t[i] <= cell)

    @functools.cached_property
    def compact(self) -> tuple[np.ndarray, np.ndarray]:
        """:attr:`lo` and :attr:`hi` in the smallest integer type that holds the cells (a
        search that reorders the leaves copies a quarter of the bytes)."""
        kind = np.int16 if self.hi.max(initial=0) < 2**15 else np.int64
        return self.lo.astype(kind), self.hi.astype(kind)

    @functools.cached_property
    def lo_t(self) -> np.ndarray:
        """:attr:`compact` lo per feature (rows are features), to read one feature's ranges."""
        return np.ascontiguousarray(self.compact[0].T)

    @functools.cached_property
    def hi_t(self) -> np.ndarray:
        """:attr:`compact` hi per feature."""
        return np.ascontiguousarray(self.compact[1].T)

    def meets(self, leaf: int) -> np.ndarray:
        """Per leaf: does its box meet ``leaf``'s on every ordered feature?  (Rows kept while
        they fit in about 256 MB.)"""
        row = self._meets.get(leaf)
        if row is None:
            row = ((self.lo < self.hi[leaf]) & (self.hi > self.lo[leaf])).all(axis=1)
            if (len(self._meets) + 1) * len(row) <= 2**28:
                self._meets[leaf] = row
        return row


def leaf_table(layout: CellLayout) -> LeafTable:
    """The :class:`LeafTable` of ``layout``, built on first use and kept in its cache."""
    table = layout.cache.get("leaves")
    if table is None:
        table = layout.cache["leaves"] = LeafTable(layout)
    return table


__all__ = ["LeafTable", "leaf_table"]
