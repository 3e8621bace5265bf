"""Does a graph given by its edges have a cycle?  On numpy arrays or on Python lists.

:func:`has_cycle` peels the nodes without parents a whole frontier per numpy pass, and leaves
very deep graphs to scipy's strongly connected components; :func:`has_cycle_lists` answers
for small graphs kept as lists (the light explanation graphs) without numpy.  Both check
Def. 3 of the core paper (an explanation graph is acyclic) for
:class:`~xpg.core.xpgraph.ExplanationGraph`.

Examples
--------
>>> import numpy as np
>>> has_cycle(np.array([0, 1]), np.array([1, 0]), 2), has_cycle_lists([0], [1], 2, Counter([0]))
(True, False)
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

import xpg.core.lazy as lazy

if TYPE_CHECKING:
    import numpy as np
else:
    np = lazy.module("numpy")


def has_cycle_lists(src: list[int], dst: list[int], n: int, out_deg: Counter[int]) -> bool:
    """Does the graph on nodes ``0 .. n - 1`` have a cycle?  ``out_deg``: edges per source.

    Nodes without children are on no cycle, and a cycle has an edge to a lower index: when
    every edge into a node with children goes up in index (the usual numbering, parents
    first), there is none.  Otherwise Kahn's algorithm on lists decides.

    >>> has_cycle_lists([0, 1], [1, 2], 3, Counter([0, 1]))
    False
    >>> has_cycle_lists([1, 0], [0, 1], 2, Counter([1, 0]))
    True
    """
    if all(s < d or d not in out_deg for s, d in zip(src, dst)):
        return False
    children: list[list[int]] = [[] for _ in range(n)]
    indeg = [0] * n
    for s, d in zip(src, dst, strict=True):
        children[s].append(d)
        indeg[d] += 1
    todo = [i for i, k in enumerate(indeg) if not k]
    seen = 0
    while todo:
        node = todo.pop()
        seen += 1
        for c in children[node]:
            indeg[c] -= 1
            if not indeg[c]:
                todo.append(c)
    return seen != n


def has_cycle(src: np.ndarray, dst: np.ndarray, n: int, max_rounds: int = 2000) -> bool:
    """Does the graph on nodes ``0 .. n - 1`` have a cycle?

    Nodes without parents are peeled off, a whole frontier per numpy pass (Kahn's algorithm by
    levels), until none is left (no cycle) or none can be (a cycle).  Graphs deeper than
    ``max_rounds`` levels are left to scipy's strongly connected components instead.

    Examples
    --------
    >>> has_cycle(np.array([0, 1]), np.array([1, 2]), 3), has_cycle(np.array([0, 1]),
    ...     np.array([1, 0]), 2), has_cycle(np.array([0, 1]), np.array([1, 2]), 3, max_rounds=1)
    (False, True, False)
    """
    order = np.argsort(src, kind="stable")
    children = dst[order]
    starts = np.searchsorted(src[order], np.arange(n + 1))
    indeg = np.bincount(dst, minlength=n)
    frontier = np.flatnonzero(indeg == 0)
    seen = 0
    for _ in range(max_rounds):
        if not len(frontier):
            return seen != n
        seen += len(frontier)
        counts = starts[frontier + 1] - starts[frontier]
        # the out-edges of the frontier: one run of positions per node, concatenated
        runs = np.repeat(starts[frontier] - np.cumsum(counts) + counts, counts)
        reached, drops = np.unique(children[runs + np.arange(len(runs))], return_counts=True)
        indeg[reached] -= drops
        frontier = reached[indeg[reached] == 0]
    return _has_cycle_scc(src, dst, n)


def _has_cycle_scc(src: np.ndarray, dst: np.ndarray, n: int) -> bool:
    """A cycle is a strongly connected component of several nodes, or a loop."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    if (src == dst).any():
        return True
    graph = coo_matrix((np.ones(len(src), dtype=np.int8), (src, dst)), shape=(n, n)).tocsr()
    count, _ = connected_components(graph, directed=True, connection="strong")
    return bool(count != n)


__all__ = ["has_cycle", "has_cycle_lists"]
