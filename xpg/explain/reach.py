"""Reachability of a 0-terminal (Alg. 1 of the core paper), plain and incremental.

A variable is *free* when its feature may take any value: at a node testing a free
variable every outgoing edge may be taken; at any other node only the edge
labelled 1.  The prediction can change iff a terminal labelled 0 is reachable.

All traversals are iterative with a visited array, so a DAG with exponentially
many paths costs no more than its edges.  They run node by node in Python over the
graph's traversal views (:meth:`ExplanationGraph.views`: lists on small graphs,
memoryviews of numpy CSR arrays on large ones), which costs only what they visit;
one that has visited ``costs.PYTHON_BUDGET`` nodes goes on with vectorised frontier passes
(one numpy step per breadth-first level over :meth:`ExplanationGraph.csr`), which
cost a few passes over the arrays whatever the graph's size.  Both give the same
answers.

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

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import xpg.core.costs as costs
import xpg.explain.mask_families as _masks
from xpg.core import lazy
from xpg.core.xpgraph import ExplanationGraph

if TYPE_CHECKING:
    import numpy as np
else:
    np = lazy.module("numpy")


def _free_flags(xg: ExplanationGraph, free: Iterable[int]) -> bytearray:
    """One byte per variable (1: free), plus a last 0 that terminals (variable -1) index."""
    flags = bytearray(xg.n_vars + 1)
    for v in free:
        flags[v] = 1
    return flags


def _children(xg: ExplanationGraph, free: np.ndarray, nodes: np.ndarray) -> np.ndarray:
    """Children of ``nodes`` through the edges a traversal may take (with repeats)."""
    t = xg.csr()
    one = t.one[nodes]
    one = one[one >= 0]
    opened = nodes[free[xg.node_var[nodes]] != 0]
    if not len(opened):
        return one
    lo = t.zero_ptr[opened]
    count = t.zero_ptr[opened + 1] - lo
    total = int(count.sum())
    if not total:
        return one
    pos = np.repeat(lo - np.cumsum(count) + count, count) + np.arange(total)
    return np.concatenate([one, t.zero_idx[pos]])


def frontier_reach(
    xg: ExplanationGraph,
    free: np.ndarray,
    reached: np.ndarray,
    frontier: np.ndarray,
    stop: np.ndarray,
) -> tuple[bool, list[np.ndarray]]:
    """Mark in ``reached`` what ``frontier`` (already marked) reaches, one numpy step per level.

    Parameters
    ----------
    xg : ExplanationGraph
    free : array of uint8, one per variable plus a last 0
    reached : array of uint8 per node, updated in place
    frontier : array of node indices
    stop : array of bool per node; reaching one of them ends the search

    Returns
    -------
    ok, added : bool, list of arrays
        ``ok`` is False when a ``stop`` node was reached; ``added`` lists the nodes marked.

    Examples
    --------
    >>> from xpg.examples import and_xpg
    >>> xg = and_xpg()
    >>> reached = np.zeros(xg.n_nodes, dtype=np.uint8); reached[xg.root] = 1
    >>> ok, added = frontier_reach(xg, np.array([1, 0, 0], dtype=np.uint8), reached,
    ...                            np.array([xg.root]), xg.csr().zero_terminal)
    >>> ok, [a.tolist() for a in added]
    (False, [[4, 0]])
    """
    added: list[np.ndarray] = []
    stamp = np.empty(xg.n_nodes, dtype=np.int64)
    while len(frontier):
        kids = _children(xg, free, frontier)
        kids = kids[reached[kids] == 0]
        if not len(kids):
            break
        order = np.arange(len(kids))
        stamp[kids] = order
        kids = kids[stamp[kids] == order]  # each node once
        reached[kids] = 1
        added.append(kids)
        if stop[kids].any():
            return False, added
        frontier = kids
    return True, added


def _reaches_zero(xg: ExplanationGraph, flags: bytearray) -> bool:
    """Vectorised Alg. 1."""
    reached = np.zeros(xg.n_nodes, dtype=np.uint8)
    reached[xg.root] = 1
    stop = xg.csr().zero_terminal
    if stop[xg.root]:
        return True
    free = np.frombuffer(flags, dtype=np.uint8)
    return not frontier_reach(xg, free, reached, np.array([xg.root]), stop)[0]


def path_to_zero(xg: ExplanationGraph, free: Iterable[int]) -> bool:
    """Alg. 1: can a terminal labelled 0 be reached when the variables in ``free`` are free?"""
    return _zero_path(xg, _free_flags(xg, free), costs.PYTHON_BUDGET, want_path=False) is not None


def zero_path(xg: ExplanationGraph, free: Iterable[int]) -> list[int] | None:
    """A path (list of nodes, root first) to a terminal labelled 0, or ``None``.

    Depth-first, iterative, each node visited at most once.  Past ``costs.PYTHON_BUDGET`` visited
    nodes, one vectorised pass decides whether there is a path at all (``None`` at once if
    not), and the depth-first search goes on otherwise, so the path is always the one the
    depth-first order finds.
    """
    return _zero_path(xg, _free_flags(xg, free), costs.PYTHON_BUDGET, want_path=True)


def _zero_path(
    xg: ExplanationGraph, flags: bytearray, budget: int | None, want_path: bool
) -> list[int] | None:
    one, zp, zi, var, value = xg.views()
    root = xg.root
    parent = {root: -1}  # also the visited set
    stack = [root]
    left = -1 if budget is None else budget
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
        if c >= 0 and c not in parent:
            parent[c] = n
            stack.append(c)
        if flags[v]:
            for k in range(zp[n], zp[n + 1]):
                c = zi[k]
                if c not in parent:
                    parent[c] = n
                    stack.append(c)
        left -= 1
        if left == 0:  # a large search: let numpy say whether it can succeed
            if not _reaches_zero(xg, flags):
                return None
            if not want_path:
                return [root]
    return None


def zero_edge_vars(xg: ExplanationGraph, path: list[int]) -> set[int]:
    """Variables whose 0-edges a path takes: freeing exactly these makes the path reachable."""
    views = xg.views()
    one, var = views.one, views.var
    return {var[p] for p, c in zip(path, path[1:]) if c != one[p]}


def minimal_masks(masks: Iterable[int]) -> list[int]:
    """The subset-minimal sets among bit masks, fewest bits first (ties by value); see
    :func:`xpg.explain.mask_families.minimal_masks` (size groups, per-variable bitsets)."""
    kept = _masks.minimal_masks(masks)
    assert kept is not None  # no budget was given
    return kept


def tree_zero_path_masks(xg: ExplanationGraph, max_masks: int | None = None) -> list[int] | None:
    """On a tree XpG: the CXps as bit masks, from the 0-edge variables of every path to a
    0-terminal (``None`` beyond ``max_masks`` sets: minimal ones up to ``costs.LEVEL_EDGES`` edges
    and on light trees, :func:`xpg.explain.mask_families.tree_minimal_zero_masks`; distinct ones on
    larger trees, :func:`xpg.explain.mask_families.tree_zero_masks`)."""
    if xg.n_edges <= costs.LEVEL_EDGES or xg.runs_on_lists():
        return _masks.tree_minimal_zero_masks(xg, max_masks)
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
    work, budget = 0, 8 * xg.n_edges + 2048
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

    The reached nodes testing each fixed variable are kept per variable, so an attempt costs
    what it explores, not the size of the graph.  An attempt stops at the first node whose
    path of 1-edges ends at a 0-terminal (:meth:`ExplanationGraph.ends_at_zero`), built as
    soon as the refused attempts are expected to explore more nodes than building it costs:
    what they have explored, plus their average times the fixed variables with reached nodes
    still to try, beyond ``n_nodes / costs.SHORTCUT_FRACTION``.  An attempt whose first nodes are
    such nodes is refused without exploring; one that explores more than ``budget`` nodes
    goes on with vectorised frontier passes (:func:`frontier_reach`).

    Examples
    --------
    >>> from xpg.examples import and_xpg
    >>> reach = IncrementalReach(and_xpg(), [])
    >>> reach.hits_zero, reach.try_free(0), reach.try_free(1)
    (False, False, False)
    """

    def __init__(
        self, xg: ExplanationGraph, free: Iterable[int], budget: int | None = None
    ) -> None:
        self._xg = xg
        self._views = xg.views()
        self._budget = costs.PYTHON_BUDGET if budget is None else budget
        self.free = _free_flags(xg, free)
        self.reached = bytearray(xg.n_nodes)
        self._waiting: dict[int, list[int]] = {}  # fixed variable -> reached nodes testing it
        self._stop = _zero_flags(xg)
        self._stop_array: np.ndarray | None = None  # the same flags as numpy, when needed
        self._explored = 0  # nodes explored by refused attempts
        self._refused: set[int] = set()
        self._shortcut_after = max(costs.SHORTCUT_MIN, xg.n_nodes // costs.SHORTCUT_FRACTION)
        if xg.has_ends_at_zero():
            self._use_shortcut()
        self.hits_zero = not self._explore([xg.root])

    def _use_shortcut(self) -> None:
        """From now on stop at nodes whose 1-path ends at a 0-terminal (also exact)."""
        ends = self._xg.ends_at_zero()
        self._stop_array = ends
        self._stop = ends.view(np.uint8).data
        self._shortcut_after = -1

    def _explore(self, starts: list[int]) -> bool:
        """Mark what ``starts`` reach; on reaching a 0-terminal undo this call and return False."""
        reached, stop, free = self.reached, self._stop, self.free
        one, zp, zi, var, _ = self._views
        added: list[int] = []
        stack: list[int] = []
        waiting: list[int] = []
        for s in starts:
            if not reached[s]:
                if stop[s]:
                    return self._undo(added)
                reached[s] = 1
                added.append(s)
                stack.append(s)
        budget = self._budget
        while stack:
            if len(added) > budget:
                return self._explore_arrays(stack, added, waiting)
            n = stack.pop()
            v = var[n]
            if v < 0:
                continue
            c = one[n]
            if c >= 0 and not reached[c]:
                if stop[c]:
                    return self._undo(added)
                reached[c] = 1
                added.append(c)
                stack.append(c)
            if free[v]:
                for k in range(zp[n], zp[n + 1]):
                    c = zi[k]
                    if not reached[c]:
                        if stop[c]:
                            return self._undo(added)
                        reached[c] = 1
                        added.append(c)
                        stack.append(c)
            else:
                waiting.append(n)
        self._commit(waiting)
        return True

    def _undo(self, added: Sequence[int]) -> bool:
        reached = self.reached
        for a in added:
            reached[a] = 0
        self._explored += len(added)
        if self._shortcut_after >= 0:
            # the attempts to come (fixed variables with reached nodes, not yet refused), at
            # the average cost of the refused ones so far: worth the shortcut's one-off cost?
            pending = max(len(self._waiting) - len(self._refused), 0)
            expected = self._explored * pending // (len(self._refused) + 1)
            if self._explored + expected > self._shortcut_after:
                self._use_shortcut()
        return False

    def _commit(self, waiting: Iterable[int]) -> None:
        var = self._views.var
        for n in waiting:
            self._waiting.setdefault(var[n], []).append(n)

    def _explore_arrays(self, stack: list[int], added: list[int], waiting: list[int]) -> bool:
        """Go on from ``stack`` (marked, not yet expanded) with vectorised frontier passes."""
        xg = self._xg
        reached = np.frombuffer(self.reached, dtype=np.uint8)
        free = np.frombuffer(self.free, dtype=np.uint8)
        frontier = np.asarray(stack, dtype=np.int64)
        if self._stop_array is None:
            self._stop_array = np.frombuffer(self._stop, dtype=bool)
        ok, more = frontier_reach(xg, free, reached, frontier, self._stop_array)
        new = np.concatenate([frontier, *more])
        if not ok:
            reached[new] = 0
            return self._undo(added)
        var = xg.node_var[new]
        fixed = new[(var >= 0) & (free[var] == 0)]
        self._commit([*waiting, *fixed.tolist()])
        return True

    def try_free(self, v: int) -> bool:
        """Free ``v`` unless that makes a 0-terminal reachable; True when ``v`` is now free."""
        if self.free[v]:
            return True
        zp, zi = self._views.zero_ptr, self._views.zero_idx
        reached, stop = self.reached, self._stop
        starts = []
        for n in self._waiting.get(v, ()):
            for k in range(zp[n], zp[n + 1]):
                c = zi[k]
                if not reached[c]:
                    if stop[c]:  # reachable once v is free, and known to lead to a 0-terminal
                        self._refused.add(v)
                        return False
                    starts.append(c)
        self.free[v] = 1
        if self._explore(starts):
            self._waiting.pop(v, None)
            return True
        self.free[v] = 0
        self._refused.add(v)
        return False

    def refuse_each(self, order: Iterable[int]) -> list[int]:
        """Try to free each variable of ``order`` in turn; the ones refused, in order
        (``[v for v in order if not self.try_free(v)]``, with the attempts refused at their
        first nodes, most of them in a deletion-based AXp, answered in the loop)."""
        out: list[int] = []
        free, reached, waiting, refused = self.free, self.reached, self._waiting, self._refused
        zp, zi = self._views.zero_ptr, self._views.zero_idx
        for v in order:
            if free[v]:
                continue
            nodes = waiting.get(v)
            if nodes is None:  # no reached node tests v: freeing it opens nothing
                free[v] = 1
                continue
            stop = self._stop  # replaced when the shortcut is built
            hit = False
            for n in nodes:
                for k in range(zp[n], zp[n + 1]):
                    c = zi[k]
                    if not reached[c] and stop[c]:
                        hit = True
                        break
                if hit:
                    break
            if hit or not self.try_free(v):
                refused.add(v)
                out.append(v)
        return out


def _zero_flags(xg: ExplanationGraph) -> bytearray | memoryview:
    """Per node, 1 for a terminal labelled 0: a bytearray where queries run on lists, else a
    memoryview of :attr:`TraversalArrays.zero_terminal`."""
    if xg.runs_on_lists(costs.SMALL_EDGES):
        return bytearray(v == 0 for v in xg.terminal_value_list)
    return xg.csr().zero_terminal.view(np.uint8).data
