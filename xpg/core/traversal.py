"""The traversal structures of an explanation graph: its edges grouped by source and label.

Node-by-node traversals (reachability, the AXp and CXp searches) read, per node, its child
through the edge labelled 1 and its children through the edges labelled 0.
:func:`traversal_arrays` groups them as numpy CSR arrays (:class:`TraversalArrays`);
:func:`array_views` and :func:`list_views` hand them out as sequences of Python ints
(:class:`TraversalViews`); :func:`follow_ones` and :func:`ends_at_zero` follow the 1-edges.
:class:`~xpg.core.xpgraph.ExplanationGraph` builds each once and keeps it (its ``csr``,
``views`` and ``ends_at_zero``), choosing lists or numpy by its size.

Examples
--------
>>> import numpy as np
>>> t = traversal_arrays(np.array([0, 0]), np.array([1, 2]), np.array([True, False]),
...                      np.array([-1, 1, 0]), ["r", "yes", "no"])
>>> t.one.tolist(), t.zero_idx.tolist(), ends_at_zero(t.one, t.zero_terminal).tolist()
([1, -1, -1], [2], [False, False, True])
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence
from itertools import compress
from typing import TYPE_CHECKING, NamedTuple

import xpg.core.lazy as lazy
from xpg.errors import InvalidGraphError

if TYPE_CHECKING:
    import numpy as np
else:
    np = lazy.module("numpy")


class TraversalArrays(NamedTuple):
    """An XpG's edges grouped for traversals (numpy, built once by
    :meth:`~xpg.core.xpgraph.ExplanationGraph.csr`): ``one[n]`` is ``n``'s child through its
    1-edge (-1: none); ``zero_idx[zero_ptr[n]:zero_ptr[n + 1]]`` are its children through
    0-edges, in edge order; ``zero_terminal[n]``: ``n`` is a terminal labelled 0.
    """

    one: np.ndarray
    zero_ptr: np.ndarray
    zero_idx: np.ndarray
    zero_terminal: np.ndarray  # bool per node: a terminal labelled 0


class TraversalViews(NamedTuple):
    """:class:`TraversalArrays` plus ``node_var`` and ``terminal_value`` as sequences of
    Python ints (lists or memoryviews), for node-by-node traversals."""

    one: Sequence[int]
    zero_ptr: Sequence[int]
    zero_idx: Sequence[int]
    var: Sequence[int]
    value: Sequence[int]


class Groups(Sequence[list[int]]):
    """``groups[k]``: the values whose key is ``k``, in their original order, sliced on access
    out of one flat list (``0 <= k < n``), from CSR arrays ``(ptr, idx)`` (see :func:`group`).

    Examples
    --------
    >>> g = Groups(*group(np.array([2, 0, 2]), np.array([7, 8, 9]), 3))
    >>> g[2], g.lists()
    ([7, 9], [[8], [], [7, 9]])
    """

    __slots__ = ("_flat", "_starts")

    def __init__(self, ptr: np.ndarray, idx: np.ndarray) -> None:
        self._flat: list[int] = idx.tolist()
        self._starts: list[int] = ptr.tolist()

    def __len__(self) -> int:
        return len(self._starts) - 1

    def __getitem__(self, k: int) -> list[int]:  # type: ignore[override]
        return self._flat[self._starts[k] : self._starts[k + 1]]

    def lists(self) -> list[list[int]]:
        """Every group as a list, at once."""
        flat, starts = self._flat, self._starts
        return [flat[a:b] for a, b in zip(starts, starts[1:])]


def group(keys: np.ndarray, values: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """CSR arrays ``(ptr, idx)`` of ``values`` grouped by ``keys`` (``0 <= key < n``), each
    group in its original order.  Linear when the keys are sorted or never repeat (trees,
    binary diagrams); a stable sort otherwise.

    >>> [a.tolist() for a in group(np.array([2, 0, 2]), np.array([7, 8, 9]), 3)]
    [[0, 1, 1, 3], [8, 7, 9]]
    """
    keys = np.asarray(keys, dtype=np.int64)
    values = np.asarray(values, dtype=np.int64)
    counts = np.bincount(keys, minlength=n)
    ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(counts, out=ptr[1:])
    if len(keys) < 2 or bool((keys[1:] >= keys[:-1]).all()):
        return ptr, values
    if int(counts.max()) <= 1:
        idx = np.empty(len(keys), dtype=np.int64)
        idx[ptr[keys]] = values
        return ptr, idx
    return ptr, values[np.argsort(keys, kind="stable")]


def _several_ones(node: Hashable, count: int) -> InvalidGraphError:
    return InvalidGraphError(
        f"node {node!r} has {count} outgoing edges labelled 1 (at most 1; run validate())"
    )


def traversal_arrays(
    src: np.ndarray,
    dst: np.ndarray,
    label: np.ndarray,
    terminal_value: np.ndarray,
    node_ids: Sequence[Hashable],
) -> TraversalArrays:
    """The :class:`TraversalArrays` of the edges ``src -> dst`` labelled ``label`` over the
    nodes of ``terminal_value``.

    Raises
    ------
    InvalidGraphError
        When a node has several outgoing edges labelled 1, naming it by ``node_ids``.
    """
    n = len(terminal_value)
    # one scatter files every edge under (label, source): slots n + s hold the 1-children,
    # slots s the 0-children; when no slot is written twice, the graph is binary
    key = label * n
    key += src
    child = np.full(2 * n, -1, dtype=np.int64)
    child[key] = dst
    one, first = child[n:], child[:n]
    if int(np.count_nonzero(child >= 0)) == len(src):  # at most one edge per (node, label)
        has = first >= 0
        count = int(np.count_nonzero(has))
        start = int(has.argmax())
        if has[start : start + count].all():  # nodes with a 0-child form one run (terminals
            # first or last): the run itself, no gathering
            ptr = np.arange(-start, n + 1 - start, dtype=np.int64)
            np.clip(ptr, 0, count, out=ptr)
            return TraversalArrays(one, ptr, first[start : start + count], terminal_value == 0)
        ptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(has, out=ptr[1:])
        return TraversalArrays(one, ptr, first[has], terminal_value == 0)
    counts = np.bincount(src[label], minlength=n)
    if counts.size and int(counts.max()) > 1:
        raise _several_ones(node_ids[int(counts.argmax())], int(counts.max()))
    zero = ~label
    return TraversalArrays(one, *group(src[zero], dst[zero], n), terminal_value == 0)


def array_views(
    t: TraversalArrays, node_var: np.ndarray, terminal_value: np.ndarray, as_lists: bool
) -> TraversalViews:
    """The views of traversal arrays: lists (the fastest to index) when ``as_lists``, else
    zero-copy memoryviews (no Python object per node)."""
    arrays = (t.one, t.zero_ptr, t.zero_idx, node_var, terminal_value)
    if as_lists:
        return TraversalViews(*(a.tolist() for a in arrays))
    return TraversalViews(*(np.ascontiguousarray(a, dtype=np.int64).data for a in arrays))


def list_views(
    src: list[int],
    dst: list[int],
    label: list[bool],
    node_var: list[int],
    terminal_value: list[int],
    node_ids: Sequence[Hashable],
) -> TraversalViews:
    """The views of a small graph given as lists, by a plain loop (with the checks of
    :func:`traversal_arrays`, and its error).

    Examples
    --------
    >>> v = list_views([0, 0], [1, 2], [True, False], [0, -1, -1], [-1, 1, 0], ["r", "y", "n"])
    >>> v.one, v.zero_ptr, v.zero_idx
    ([1, -1, -1], [0, 1, 1, 1], [2])
    """
    n = len(terminal_value)
    one = [-1] * n
    zero: list[list[int]] = [[] for _ in range(n)]
    for s, d, lab in zip(src, dst, label, strict=True):
        if not lab:
            zero[s].append(d)
        elif one[s] < 0:
            one[s] = d
        else:  # the node with the most 1-edges, the first of them, as traversal_arrays says
            counts = Counter(compress(src, label))
            most = max(counts.values())
            raise _several_ones(node_ids[min(i for i, k in counts.items() if k == most)], most)
    ptr = [0] * (n + 1)
    for i, kids in enumerate(zero):
        ptr[i + 1] = ptr[i] + len(kids)
    flat = [c for kids in zero for c in kids]
    return TraversalViews(one, ptr, flat, node_var, terminal_value)


def follow_ones(root: int, src: np.ndarray, dst: np.ndarray, label: np.ndarray, n: int) -> int:
    """Last node of the path of 1-edges from the root (the instance's path)."""
    nxt = np.full(n, -1, dtype=np.int64)
    nxt[src[label]] = dst[label]
    node = root
    for _ in range(n):
        if nxt[node] < 0:
            return node
        node = int(nxt[node])
    raise InvalidGraphError("the path of edges labelled 1 has a cycle")


def ends_at_zero(one: np.ndarray, zero_terminal: np.ndarray) -> np.ndarray:
    """Per node, True when its path of 1-edges (``one``, as in :class:`TraversalArrays`) ends
    at a terminal labelled 0 (``zero_terminal``).

    Pointer doubling on the 1-edges: ``ceil(log2(L + 1))`` gathers over the nodes for a
    longest 1-path of ``L`` edges.  The ends of the 1-paths point to one of two sentinels
    (negative indices: the last two slots), each its own successor, so that the pointers need
    no other fixed point and the answer is read off the sentinels.  The gathers alternate
    between two buffers (``np.take`` with ``out``; ``mode="wrap"`` reads the negative
    sentinels as the last slots without a bounds check), a third cheaper than allocating a new
    array each round.
    """
    n = len(one)
    nxt = np.empty(n + 2, dtype=np.int64)
    nxt[:n] = one  # -1 (no 1-child): the last slot, the sentinel "not 0"
    nxt[:n][zero_terminal] = -2  # the sentinel "ends at a 0-terminal"
    nxt[n:] = (-2, -1)
    spare = np.empty_like(nxt)
    for _ in range(64):  # 2**64 exceeds any path
        # done when every pointer is a sentinel (a strided sample says when to look at all)
        if nxt[:n:61].max() < 0 and nxt.max() < 0:
            return nxt[:n] == -2
        np.take(nxt, nxt, out=spare, mode="wrap")
        nxt, spare = spare, nxt
    raise InvalidGraphError("the edges labelled 1 form a cycle")


__all__ = [
    "Groups",
    "TraversalArrays",
    "TraversalViews",
    "array_views",
    "ends_at_zero",
    "follow_ones",
    "group",
    "list_views",
    "traversal_arrays",
]
