"""Families of sets as bit masks: the subset-minimal members, at a cost that scales with them.

A set of variables is a Python ``int`` (bit ``v``: variable ``v``).  Two building blocks of
the tree route of membership (Prop. 6 of the core paper):

* :func:`minimal_masks` keeps the subset-minimal masks.  Masks are grouped by size; a mask
  can only contain a *smaller* kept mask, so each group is checked against the kept masks of
  the groups before it, with one bitset of kept-mask ids per variable (Python ``int``\\ s, so
  the bit operations run in C): the kept masks inside ``m`` are those holding no variable
  outside ``m``.  An antichain (one group) costs one sort; in general the work is at most
  (candidates) x (variables) x (kept masks / 64) machine words, and an optional budget on
  that work gives up early;
* :func:`tree_zero_masks` collects, on a tree XpG, the variables of the 0-edges of every
  path to a 0-terminal: a depth-first pass on small trees, vectorised pointer jumping
  (numpy) on larger ones.

Examples
--------
>>> minimal_masks([0b111, 0b011, 0b110, 0b011, 0b100])
[4, 3]
>>> minimal_masks([0b01, 0b10, 0b11], max_work=0) is None
True

References
----------
Huang, Izza, Ignatiev, Marques-Silva. On Efficiently Explaining Graph-Based Classifiers.
KR 2021, Prop. 6 (the CXps of a tree XpG).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from xpg.core.xpgraph import ExplanationGraph

_DFS_EDGES = 4096  # below this, a Python depth-first pass beats numpy's fixed costs
_OP_COST = 128  # the interpreter's cost of one bitset operation, in machine words


class _KeptIndex:
    """The kept masks, with per variable the bitset of the ids of kept masks holding it."""

    def __init__(self) -> None:
        self.masks: list[int] = []
        self.universe = 0  # union of the kept masks
        self._bytes: dict[int, bytearray] = {}  # variable -> ids, one bit each (little end)
        self._spare: dict[int, int] = {}  # variable -> ids of kept masks WITHOUT it
        self._all = 0

    def add(self, group: list[int]) -> None:
        """Keep every mask of ``group`` (none contains another)."""
        if not group:
            return
        size = (len(self.masks) + len(group)) // 8 + 1
        touched: set[int] = set()
        for j, m in enumerate(group, start=len(self.masks)):
            self.universe |= m
            while m:
                low = m & -m
                v = low.bit_length() - 1
                bits = self._bytes.get(v)
                if bits is None:
                    bits = self._bytes[v] = bytearray()
                if len(bits) < size:
                    bits.extend(bytes(size - len(bits)))
                bits[j >> 3] |= 1 << (j & 7)
                touched.add(v)
                m ^= low
        self.masks += group
        self._all = (1 << len(self.masks)) - 1
        for v in self._bytes:  # every complement changes when ids are added
            self._spare[v] = self._all ^ int.from_bytes(self._bytes[v], "little")

    def words(self) -> int:
        """Machine words of one bitset over the kept ids (the unit of work)."""
        return len(self.masks) // 64 + 1

    def has_subset(self, m: int) -> tuple[bool, int]:
        """Is some kept mask a subset of ``m``?  Also the bitset operations it took."""
        alive = self._all
        outside = self.universe & ~m
        ops = 0
        spare = self._spare
        while outside:
            low = outside & -outside
            alive &= spare[low.bit_length() - 1]
            ops += 1
            if not alive:
                return False, ops
            outside ^= low
        return alive != 0, ops


def minimal_masks(masks: Iterable[int], max_work: int | None = None) -> list[int] | None:
    """The subset-minimal sets among bit masks, fewest bits first (ties by value).

    Parameters
    ----------
    masks : iterable of int
        Non-negative bit masks (duplicates allowed).
    max_work : int, optional
        Give up (return ``None``) once the subset tests have cost more than this much work:
        each test of a candidate costs, per bitset operation (one per variable outside the
        candidate, plus one), 128 units plus one per machine word of the bitset; a unit is
        about a nanosecond.

    Returns
    -------
    list of int or None
        The minimal masks, or ``None`` beyond ``max_work``.

    Examples
    --------
    >>> minimal_masks([0b110, 0b011, 0b101])  # an antichain: all kept, by value
    [3, 5, 6]
    >>> minimal_masks([0, 5])
    [0]
    """
    groups: dict[int, set[int]] = {}
    for m in masks:
        groups.setdefault(m.bit_count(), set()).add(m)
    index = _KeptIndex()
    pending: list[int] = []  # the last group kept, indexed only if a larger group follows
    work = 0
    for size in sorted(groups):
        group = sorted(groups[size])
        index.add(pending)
        if index.masks:
            cost = index.words() + _OP_COST
            survivors = []
            for m in group:
                inside, ops = index.has_subset(m)
                work += (ops + 1) * cost
                if max_work is not None and work > max_work:
                    return None
                if not inside:
                    survivors.append(m)
            group = survivors
        if size == 0:  # the empty set is inside every other mask
            return group
        pending = group
    return index.masks + pending


def _dfs_zero_masks(xg: ExplanationGraph, max_masks: int | None) -> set[int] | None:
    one, zero, _ = xg.adjacency()
    var, value = xg.node_var_list, xg.terminal_value_list
    found: set[int] = set()
    stack = [(xg.root, 0)]
    while stack:
        n, mask = stack.pop()
        v = var[n]
        if v < 0:
            if value[n] == 0:
                found.add(mask)
                if max_masks is not None and len(found) > max_masks:
                    return None
            continue
        for c in one[n]:
            stack.append((c, mask))
        if zero[n]:
            with_v = mask | (1 << v)
            for c in zero[n]:
                stack.append((c, with_v))
    return found


def _jump_zero_masks(xg: ExplanationGraph) -> list[int]:
    """Pointer jumping on the parent array: after ``k`` rounds each node holds the OR of
    the 0-edge variables on the ``2**k`` edges above it, so ``log2(depth)`` vectorised
    rounds give every path's set.  Variables are split over 64-bit words."""
    n, root = xg.n_nodes, xg.root
    words = max(1, (xg.n_vars + 63) // 64)
    src, dst = xg.edge_src, xg.edge_dst
    anc = np.arange(n, dtype=np.int64)
    anc[dst] = src
    zero_edge = ~xg.edge_label
    var = xg.node_var[src[zero_edge]]
    acc = np.zeros((n, words), dtype=np.uint64)
    acc[dst[zero_edge], var // 64] = np.left_shift(np.uint64(1), (var % 64).astype(np.uint64))
    while True:
        up = anc[anc]
        if np.array_equal(up, anc):
            break
        acc |= acc[anc]
        anc = up
    zeros = np.flatnonzero((xg.terminal_value == 0) & (anc == root))  # reached from the root
    rows = np.unique(acc[zeros], axis=0)
    if words == 1:
        out: list[int] = rows[:, 0].tolist()
        return out
    return [int.from_bytes(r.astype("<u8").tobytes(), "little") for r in rows]


def tree_zero_masks(xg: ExplanationGraph, max_masks: int | None = None) -> set[int] | None:
    """On a tree XpG: the distinct sets "variables of the 0-edges of a path from the root to
    a 0-terminal", as bit masks (``None`` when there are more than ``max_masks``).

    Freeing ``F`` reaches a 0-terminal iff one of these sets is inside ``F``, so the CXps
    are the minimal ones (:func:`minimal_masks`).  The graph must be a tree.

    Examples
    --------
    >>> from xpg.examples import and_xpg
    >>> sorted(tree_zero_masks(and_xpg()))  # a and b, for a = b = 1
    [1, 2]
    """
    if len(xg.edge_src) < _DFS_EDGES:
        return _dfs_zero_masks(xg, max_masks)
    found = _jump_zero_masks(xg)
    if max_masks is not None and len(found) > max_masks:
        return None
    return set(found)
