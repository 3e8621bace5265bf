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

from xpg.xpgraph import ExplanationGraph


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
    one, zero, _ = xg.adjacency()
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
        for c in one[n]:
            if not seen[c]:
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
    one, _, _ = xg.adjacency()
    var = xg.node_var_list
    return {var[p] for p, c in zip(path, path[1:]) if c not in one[p]}


class IncrementalReach:
    """The set of nodes reachable from the root as variables are freed one at a time.

    ``try_free(v)`` frees ``v`` if that keeps every 0-terminal unreachable and says whether it
    did; a refused attempt is undone at the cost of what it explored.  Committed work is
    linear in the edges over all calls, which makes deletion-based AXp extraction fast.
    """

    def __init__(self, xg: ExplanationGraph, free: Iterable[int]) -> None:
        self._xg = xg
        self._one, self._zero, self._by_var = xg.adjacency()
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
            for c in one[n]:
                if not reached[c]:
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
