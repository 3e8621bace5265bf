"""Reachability of a 0-terminal (Alg. 1 of the core paper), plain and incremental.

A variable is *free* when its feature may take any value: at a node testing a free
variable every outgoing edge may be taken; at any other node only the edge
labelled 1.  The prediction can change iff a terminal labelled 0 is reachable.

All traversals are iterative with a visited array, so a DAG with exponentially
many paths costs no more than its edges.

Examples
--------
>>> from xpg.io import read_xpg_text
>>> xg = read_xpg_text('''NN: 3
... Root: 1
... T: 2 3
... TDef:
... 2 1
... 3 0
... NT: 1
... NTDef:
... 1 2 1
... 1 3 0
... NV: 1
... VarDef:
... 1 x
... ''')
>>> path_to_zero(xg, set()), path_to_zero(xg, {0})
(False, True)

References
----------
Huang, Izza, Ignatiev, Marques-Silva. On Efficiently Explaining Graph-Based Classifiers.
KR 2021, Alg. 1 (pathToZero).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from xpg.core.xpgraph import ExplanationGraph
from xpg.explain import masks as _masks


def _free_flags(xg: ExplanationGraph, free: Iterable[int]) -> bytearray:
    flags = bytearray(xg.n_vars)
    for v in free:
        flags[v] = 1
    return flags


def path_to_zero(xg: ExplanationGraph, free: Iterable[int]) -> bool:
    """Alg. 1: can a terminal labelled 0 be reached when the variables in ``free`` are free?"""
    return zero_path(xg, free) is not None


def zero_path(xg: ExplanationGraph, free: Iterable[int]) -> list[int] | None:
    """A path (list of nodes, root first) to a terminal labelled 0, or ``None``.

    Depth-first, iterative, each node visited at most once.
    """
    _, zero, _ = xg.adjacency()
    one = xg.one_child()
    flags = _free_flags(xg, free)
    var = xg.node_var_list
    value = xg.terminal_value_list
    parent = [-1] * xg.n_nodes
    seen = bytearray(xg.n_nodes)
    root = xg.root
    seen[root] = 1
    stack = [root]
    while stack:
        n = stack.pop()
        if value[n] == 0:
            path = [n]
            while parent[path[-1]] >= 0:
                path.append(parent[path[-1]])
            return path[::-1]
        v = var[n]
        if v < 0:
            continue
        c = one[n]
        if c >= 0 and not seen[c]:
            seen[c] = 1
            parent[c] = n
            stack.append(c)
        if flags[v]:
            for c in zero[n]:
                if not seen[c]:
                    seen[c] = 1
                    parent[c] = n
                    stack.append(c)
    return None


def zero_edge_vars(xg: ExplanationGraph, path: list[int]) -> set[int]:
    """Variables whose 0-edges a path takes: freeing exactly these makes the path reachable."""
    one = xg.one_child()
    var = xg.node_var_list
    return {var[p] for p, c in zip(path, path[1:]) if c != one[p]}


def minimal_masks(masks: Iterable[int]) -> list[int]:
    """The subset-minimal sets among bit masks, fewest bits first (ties by value); see
    :func:`xpg.explain.masks.minimal_masks` (size groups, per-variable bitsets)."""
    kept = _masks.minimal_masks(masks)
    assert kept is not None  # no budget was given
    return kept


def tree_zero_path_masks(xg: ExplanationGraph, max_masks: int | None = None) -> list[int] | None:
    """On a tree XpG: the CXps as bit masks, from the 0-edge variables of every path to a
    0-terminal (``None`` beyond ``max_masks`` distinct sets); see
    :func:`xpg.explain.masks.tree_zero_masks`."""
    found = _masks.tree_zero_masks(xg, max_masks)
    return None if found is None else minimal_masks(found)


def zero_path_masks(xg: ExplanationGraph, max_masks: int = 1024) -> list[int] | None:
    """Every CXp as a bit mask (bit ``v``: variable ``v``), or ``None`` beyond ``max_masks``.

    Freeing ``F`` reaches a 0-terminal iff some root-to-0-terminal path takes 0-edges on
    variables of ``F`` only, so the CXps are the subset-minimal "0-edge variable sets" of
    those paths.  Trees: one depth-first pass carrying the set; DAGs: bottom-up, each node
    keeping the minimal sets of the paths below it.  Gives up (``None``) as soon as there
    are more than ``max_masks`` paths to 0-terminals (trees) or a node keeps more than
    ``max_masks`` minimal sets (DAGs), or the sets kept over all nodes exceed 8 per edge,
    which keeps the work proportional to the graph.
    """
    if xg.is_tree():
        return tree_zero_path_masks(xg, max_masks)
    one, zero, _ = xg.adjacency()
    var, value = xg.node_var_list, xg.terminal_value_list
    work, budget = 0, 8 * len(xg.edge_src) + 2048
    below: list[Any] = [None] * xg.n_nodes
    expanded = bytearray(xg.n_nodes)
    todo = [xg.root]
    while todo:
        n = todo[-1]
        if below[n] is not None:
            todo.pop()
            continue
        v = var[n]
        if v < 0:
            below[n] = (0,) if value[n] == 0 else ()
            todo.pop()
            continue
        if not expanded[n]:  # children first, then come back to n
            expanded[n] = 1
            for c in one[n]:
                if below[c] is None:
                    todo.append(c)
            for c in zero[n]:
                if below[c] is None:
                    todo.append(c)
            continue
        todo.pop()
        here: Any = set()
        for c in one[n]:
            here.update(below[c])
        bit = 1 << v
        for c in zero[n]:
            for m in below[c]:
                here.add(m | bit)
        if len(here) > min(8, max_masks):  # minimise early: cheaper than carrying supersets
            here = minimal_masks(here)
            if len(here) > max_masks:
                return None
        work += len(here)
        if work > budget:
            return None
        below[n] = here
    return minimal_masks(below[xg.root])


class IncrementalReach:
    """The set of nodes reachable from the root as variables are freed one at a time.

    ``try_free(v)`` frees ``v`` if that keeps every 0-terminal unreachable and says whether it
    did; a refused attempt is undone at the cost of what it explored.  Committed work is
    linear in the edges over all calls, which makes deletion-based AXp extraction fast.
    """

    def __init__(self, xg: ExplanationGraph, free: Iterable[int]) -> None:
        self._xg = xg
        _, self._zero, self._by_var = xg.adjacency()
        self._one = xg.one_child()
        self._var = xg.node_var_list
        self._value = xg.terminal_value_list
        self.free = _free_flags(xg, free)
        self.reached = bytearray(xg.n_nodes)
        self.hits_zero = not self._explore([xg.root], initial=True)

    def _explore(self, starts: list[int], initial: bool = False) -> bool:
        """Mark what ``starts`` reach; on reaching a 0-terminal undo this call and return False."""
        reached, one, zero, var, value, free = (
            self.reached,
            self._one,
            self._zero,
            self._var,
            self._value,
            self.free,
        )
        added: list[int] = []
        stack: list[int] = []
        for s in starts:
            if not reached[s]:
                reached[s] = 1
                added.append(s)
                stack.append(s)
        while stack:
            n = stack.pop()
            if value[n] == 0:
                if not initial:
                    for a in added:
                        reached[a] = 0
                return False
            v = var[n]
            if v < 0:
                continue
            c = one[n]
            if c >= 0 and not reached[c]:
                reached[c] = 1
                added.append(c)
                stack.append(c)
            if free[v]:
                for c in zero[n]:
                    if not reached[c]:
                        reached[c] = 1
                        added.append(c)
                        stack.append(c)
        return True

    def try_free(self, v: int) -> bool:
        """Free ``v`` unless that makes a 0-terminal reachable; True when ``v`` is now free."""
        if self.free[v]:
            return True
        starts = [c for n in self._by_var[v] if self.reached[n] for c in self._zero[n]]
        self.free[v] = 1
        if self._explore(starts):
            return True
        self.free[v] = 0
        return False
