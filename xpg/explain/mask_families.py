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
* :func:`minimal_hitting_masks` dualizes a family: its minimal hitting sets (Berge's
  algorithm), which turns the CXps of a graph into its AXps;
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
Ignatiev, Narodytska, Asher, Marques-Silva. From Contrastive to Abductive Explanations and
Back Again. AI*IA 2020 (AXps are the minimal hitting sets of the CXps, and back).
Berge. Hypergraphs: Combinatorics of Finite Sets. North-Holland 1989 (the transversal
algorithm).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import xpg.core.costs as costs
from xpg.core import lazy
from xpg.core.xpgraph import ExplanationGraph

if TYPE_CHECKING:
    import numpy as np
else:
    np = lazy.module("numpy")


class _KeptIndex:
    """Per variable, the bitset of the ids of the kept masks that do NOT hold it.

    Built lazily (:meth:`sync`) from the list of kept masks, so a family that never needs
    it (an antichain, or few kept masks) never pays for it.
    """

    def __init__(self) -> None:
        self.count = 0  # kept masks indexed so far
        self._bytes: dict[int, bytearray] = {}  # variable -> ids holding it, one bit each
        self._spare: dict[int, int] = {}
        self._all = 0

    def sync(self, kept: list[int]) -> None:
        """Index the masks of ``kept`` added since the last call."""
        if self.count == len(kept):
            return
        size = len(kept) // 8 + 1
        for j in range(self.count, len(kept)):
            m = kept[j]
            while m:
                low = m & -m
                bits = self._bytes.setdefault(low.bit_length() - 1, bytearray())
                if len(bits) < size:
                    bits.extend(bytes(size - len(bits)))
                bits[j >> 3] |= 1 << (j & 7)
                m ^= low
        self.count = len(kept)
        self._all = (1 << self.count) - 1
        for v, bits in self._bytes.items():  # every complement changes when ids are added
            self._spare[v] = self._all ^ int.from_bytes(bits, "little")

    def has_subset(self, m: int, outside: int) -> tuple[bool, int]:
        """Is some kept mask inside ``m``?  ``outside``: the kept variables not in ``m``.
        Also the bitset operations it took."""
        alive = self._all
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


def _scan(kept: list[int], group: list[int], budget: float) -> tuple[list[int], int] | None:
    """The masks of ``group`` containing no kept mask, by testing every kept mask; also
    the work it took (``None`` beyond ``budget``)."""
    survivors = []
    work = 0
    scan_cost = costs.MASK_SCAN_COST
    for m in group:
        tested = len(kept)
        for i, k in enumerate(kept):
            if k & m == k:
                tested = i + 1
                break
        else:
            survivors.append(m)
        work += (tested + 1) * scan_cost
        if work > budget:
            return None
    return survivors, work


def _as_words(masks: list[int], words: int) -> np.ndarray:
    """Masks as an array of ``words`` unsigned 64-bit words each, least significant first."""
    if words == 1:
        return np.array(masks, dtype=np.uint64).reshape(-1, 1)
    out = np.empty((len(masks), words), dtype=np.uint64)
    low = (1 << 64) - 1
    for w in range(words):
        out[:, w] = [(m >> (64 * w)) & low for m in masks]
    return out


def _pairwise(
    kept: np.ndarray, group: list[int], words: int, budget: float
) -> tuple[list[int], int] | None:
    """As :func:`_scan`, vectorised: every (candidate, kept mask) pair at once, in chunks
    of about a million pairs."""
    cand = _as_words(group, words)
    inside = np.zeros(len(group), dtype=bool)
    step = max(1, 2**20 // len(kept))
    work = 0
    for start in range(0, len(group), step):
        chunk = cand[start : start + step]
        ok = np.ones((len(chunk), len(kept)), dtype=bool)
        for w in range(words):
            k = kept[:, w]
            ok &= (chunk[:, w, None] & k) == k
        inside[start : start + step] = ok.any(axis=1)
        work += len(chunk) * len(kept) * words * costs.MASK_PAIR_COST + costs.MASK_CALL_COST
        if work > budget:
            return None
    return [m for m, hit in zip(group, inside.tolist(), strict=True) if not hit], work


def _bitsets(
    index: _KeptIndex, universe: int, group: list[int], budget: float
) -> tuple[list[int], int] | None:
    """As :func:`_scan`, with the per-variable bitsets of ``index``."""
    cost = index.count // 64 + 1 + costs.MASK_OP_COST
    survivors = []
    work = 0
    for m in group:
        inside, ops = index.has_subset(m, universe & ~m)
        work += (ops + 1) * cost
        if work > budget:
            return None
        if not inside:
            survivors.append(m)
    return survivors, work


def _method(candidates: int, kept: int, words: int, outside: int) -> str:
    """The cheapest subset test for a group, by the work each would take at most."""
    scan = candidates * (kept + 1) * costs.MASK_SCAN_COST
    if scan <= costs.MASK_CALL_COST:
        return "scan"
    pairwise = candidates * kept * words * costs.MASK_PAIR_COST + costs.MASK_CALL_COST
    bitsets = candidates * outside * (kept // 64 + 1 + costs.MASK_OP_COST)
    return "pairwise" if pairwise <= bitsets else "bitsets"


def minimal_masks(masks: Iterable[int], max_work: int | None = None) -> list[int] | None:
    """The subset-minimal sets among bit masks, fewest bits first (ties by value).

    Masks are taken by size; each size group is tested against the masks kept from the
    smaller groups by the cheapest of: a direct scan (few pairs), every pair at once with
    numpy, or per-variable bitsets of kept-mask ids (the kept masks inside ``m`` are those
    holding no variable outside ``m``; cheaper when pairs are very many).

    Parameters
    ----------
    masks : iterable of int
        Non-negative bit masks (duplicates allowed).
    max_work : int, optional
        Give up (return ``None``) once the subset tests have cost more than this much work,
        in units of about a nanosecond: a scan costs 32 units per kept mask tested, numpy
        3 per pair and 64-bit word plus 20,000 per chunk, a bitset test 128 units plus one
        per machine word of the bitset, per variable outside the candidate (plus one).

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
    masks = set(masks)
    if len(masks) <= costs.SMALL_FAMILY and (
        max_work is None or len(masks) ** 2 * costs.MASK_SCAN_COST <= max_work
    ):  # one sorted scan, within the budget even if every pair is tested
        return _minimal_by_scan(masks)
    left = float("inf") if max_work is None else max_work
    try:
        array = np.fromiter(masks, dtype=np.uint64, count=len(masks)).reshape(-1, 1)
    except OverflowError:  # some mask needs more than one 64-bit word
        family = list(masks)
        widest = max(m.bit_length() for m in family)
        array = _as_words(family, (widest + 63) // 64)
    return _minimal_of_words(array, left)


def _minimal_of_words(masks: np.ndarray, left: float) -> list[int] | None:
    """:func:`minimal_masks` of distinct masks given as rows of unsigned 64-bit words (least
    significant first)."""
    peeled = _peel(masks, left)
    if peeled is None:
        return None
    kept, rest, work = peeled
    if not rest:
        return kept
    return _minimal_by_size(set(kept) | set(rest), left - work)


def _popcount(a: np.ndarray) -> np.ndarray:
    """Bits set per unsigned 64-bit word."""
    if hasattr(np, "bitwise_count"):  # numpy >= 2.0
        return np.bitwise_count(a)
    a = a - ((a >> np.uint64(1)) & np.uint64(0x5555555555555555))
    a = (a & np.uint64(0x3333333333333333)) + ((a >> np.uint64(2)) & np.uint64(0x3333333333333333))
    a = (a + (a >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return (a * np.uint64(0x0101010101010101)) >> np.uint64(56)


def _as_ints(rows: np.ndarray) -> list[int]:
    """Rows of unsigned 64-bit words (least significant first) as Python ints."""
    if rows.shape[1] == 1:
        out: list[int] = rows[:, 0].tolist()
        return out
    data = np.ascontiguousarray(rows).astype("<u8").tobytes()
    size = 8 * rows.shape[1]
    return [int.from_bytes(data[i : i + size], "little") for i in range(0, len(data), size)]


def _peel(masks: np.ndarray, budget: float) -> tuple[list[int], list[int], float] | None:
    """The first minimal masks by peeling: the smallest mask left is minimal; keep it and drop
    every mask containing it, one numpy pass each.  Cheap when few minimal masks cover many
    candidates; it stops once the passes stop paying (an antichain drops one mask per pass)
    and hands the rest back.  Returns (kept, masks left, work), or ``None`` beyond
    ``budget``.  ``masks``: distinct rows of unsigned 64-bit words, least significant first."""
    sizes = _popcount(masks).sum(axis=1)
    # by size, then by value: lexsort's last key decides first, the most significant word next
    arr = masks[np.lexsort((*masks.T, sizes))]
    sizes = np.sort(sizes)
    words = masks.shape[1]
    kept: list[int] = []
    work = 0.0
    passes = 0  # elements visited by the passes
    while len(arr):
        if passes > costs.PEEL_PASSES * len(masks) or (
            len(kept) >= 8 and len(masks) - len(arr) < costs.PEEL_GAIN * len(kept)
        ):
            return kept, _as_ints(arr), work
        if sizes[0] == sizes[-1]:  # one size left: none inside another
            return kept + _as_ints(arr), [], work
        m = arr[0]
        kept += _as_ints(arr[:1])
        passes += len(arr)
        work += len(arr) * words * costs.MASK_PAIR_COST + costs.MASK_CALL_COST // 4
        if work > budget:
            return None
        left = ((arr & m) != m).any(axis=1)
        arr, sizes = arr[left], sizes[left]
    return kept, [], work


def _minimal_by_size(masks: set[int], left: float) -> list[int] | None:
    """:func:`minimal_masks` by size groups (see there), within ``left`` work."""
    groups: dict[int, set[int]] = {}
    everything = 0
    for m in masks:
        groups.setdefault(m.bit_count(), set()).add(m)
        everything |= m
    words = max(1, (everything.bit_length() + 63) // 64)
    kept: list[int] = []
    universe = 0  # union of the kept masks
    index = _KeptIndex()
    as_array = None  # the kept masks as words, for _pairwise (numpy: made when first used)
    for size in sorted(groups):
        group = sorted(groups[size])
        if kept:
            method = _method(len(group), len(kept), words, universe.bit_count() - size + 1)
            if method == "scan":
                tested = _scan(kept, group, left)
            elif method == "pairwise":
                if as_array is None:
                    as_array = np.zeros((0, words), dtype=np.uint64)
                if len(as_array) < len(kept):
                    as_array = np.concatenate([as_array, _as_words(kept[len(as_array) :], words)])
                tested = _pairwise(as_array, group, words, left)
            else:
                index.sync(kept)
                tested = _bitsets(index, universe, group, left)
            if tested is None:
                return None
            group, work = tested
            left -= work
        if size == 0:  # the empty set is inside every other mask
            return group
        kept += group
        for m in group:
            universe |= m
    return kept


def _minimal_by_scan(masks: set[int]) -> list[int]:
    kept: list[int] = []
    for m in sorted(masks, key=lambda m: (m.bit_count(), m)):
        for k in kept:  # a plain loop: any() over a generator costs twice as much here
            if k & m == k:
                break
        else:
            kept.append(m)
    return kept


def minimal_hitting_masks(family: Iterable[int], max_work: int | None = None) -> list[int] | None:
    """The minimal hitting sets (minimal transversals) of a family of bit masks.

    Berge's algorithm: the members are taken smallest first, and the minimal hitting sets
    of those seen so far are updated with each: a set that meets the new member stays, one
    that does not is extended by each of the member's variables, and an extension is kept
    unless it contains a set that stayed.  That one test suffices: an extension ``h | v``
    can only contain a staying set that holds ``v``, and two extensions are never equal nor
    one inside the other (``h`` and ``h'`` miss the member, so ``h | v`` inside ``h' | v'``
    means ``v = v'`` and ``h`` inside ``h'``, two distinct minimal sets).

    Parameters
    ----------
    family : iterable of int
        Non-negative bit masks (duplicates and non-minimal members allowed).
    max_work : int, optional
        Give up (return ``None``) once more than this many extensions and subset tests
        have been made (each costs tens of nanoseconds).

    Returns
    -------
    list of int or None
        Every minimal hitting set once, fewest variables first (ties by value); ``[0]`` (the
        empty set) for an empty family, ``[]`` when the family holds the empty set (nothing
        meets it).

    Examples
    --------
    >>> minimal_hitting_masks([0b011, 0b110])  # {0, 1} and {1, 2}: {1}, or {0, 2}
    [2, 5]
    >>> minimal_hitting_masks([]), minimal_hitting_masks([0, 1])
    ([0], [])

    References
    ----------
    Ignatiev, Narodytska, Asher, Marques-Silva. From Contrastive to Abductive Explanations
    and Back Again. AI*IA 2020 (the AXps of a classifier are the minimal hitting sets of its
    CXps); Berge 1989 (the algorithm).
    """
    members = minimal_masks(family)  # the same hitting sets: a superset is hit with its subset
    assert members is not None  # no budget was given
    if members and members[0] == 0:
        return []
    left = float("inf") if max_work is None else max_work
    hitting = [0]
    for member in members:
        bits = []
        rest = member
        while rest:
            low = rest & -rest
            bits.append(low)
            rest ^= low
        kept = [h for h in hitting if h & member]
        by_bit = {b: [h for h in kept if h & b] for b in bits}
        grown = []
        for h in hitting:
            if h & member:
                continue
            for b in bits:
                m = h | b
                inside = by_bit[b]
                left -= len(inside) + 1
                for k in inside:
                    if k & m == k:
                        break
                else:
                    grown.append(m)
            if left < 0:
                return None
        hitting = kept + grown
    hitting.sort()
    hitting.sort(key=int.bit_count)  # stable: by size, then by value (two sorts in C)
    return hitting


def _dfs_zero_masks(xg: ExplanationGraph, max_masks: int | None) -> set[int] | None:
    # on the traversal views, which the deletions share, rather than per-node adjacency lists
    one, zp, zi, var, value = xg.views()
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
        c = one[n]
        if c >= 0:
            stack.append((c, mask))
        start, end = zp[n], zp[n + 1]
        if start < end:
            with_v = mask | (1 << v)
            for k in range(start, end):
                stack.append((zi[k], with_v))
    return found


def tree_minimal_zero_masks(xg: ExplanationGraph, max_masks: int | None = None) -> list[int] | None:
    """On a tree XpG: the subset-minimal sets of :func:`tree_zero_masks` (the CXps), fewest
    bits first (ties by value); ``None`` when there are more than ``max_masks``.

    The tree is explored by levels: level ``k`` holds the nodes whose path takes 0-edges on
    ``k`` variables, each followed down its 1-edges, so the sets are found smallest first. A
    set found then is minimal unless it holds one found before, and a node whose set already
    holds a found one is not explored: the search visits each node at most once, and usually
    only those near the instance's path (no numpy, so light graphs stay light).

    Examples
    --------
    >>> from xpg.examples import and_xpg
    >>> tree_minimal_zero_masks(and_xpg())  # a and b, for a = b = 1
    [1, 2]
    """
    one, zero, _ = xg.adjacency()
    var, value = xg.node_var_list, xg.terminal_value_list
    found: list[int] = []
    level = [(xg.root, 0)]
    while level:
        start = len(found)
        upper: list[tuple[int, int]] = []
        while level:
            n, mask = level.pop()
            v = var[n]
            if v < 0:
                if value[n] == 0 and mask not in found[start:]:
                    for f in found[:start]:
                        if f & mask == f:
                            break
                    else:
                        found.append(mask)
                        if max_masks is not None and len(found) > max_masks:
                            return None
                continue
            for c in one[n]:
                level.append((c, mask))
            if zero[n]:
                with_v = mask | (1 << v)
                if with_v == mask:  # v is free already: the same level
                    level.extend((c, mask) for c in zero[n])
                    continue
                for f in found:
                    if f & with_v == f:
                        break
                else:
                    upper.extend((c, with_v) for c in zero[n])
        level = upper
    return sorted(found, key=lambda m: (m.bit_count(), m))


def _jump_zero_masks(xg: ExplanationGraph) -> np.ndarray:
    """Pointer jumping on the parent array: after ``k`` rounds each node holds the OR of
    the 0-edge variables on the ``2**k`` edges above it, so ``log2(depth)`` vectorised
    rounds give every path's set.  Variables are split over 64-bit words: the distinct sets
    as rows of words, least significant first."""
    n, root = xg.n_nodes, xg.root
    words = max(1, (xg.n_vars + 63) // 64)
    src, dst = xg.edge_src, xg.edge_dst
    anc = np.arange(n, dtype=np.int64)
    anc[dst] = src
    zero_edge = ~xg.edge_label
    var = xg.node_var[src[zero_edge]]
    acc = np.zeros((n, words), dtype=np.uint64)
    acc[dst[zero_edge], var // 64] = np.left_shift(np.uint64(1), (var % 64).astype(np.uint64))
    flat = acc[:, 0] if words == 1 else acc  # one word: 1-D gathers, several times faster
    while True:
        up = anc[anc]
        if np.array_equal(up, anc):
            break
        flat |= flat[anc]
        anc = up
    zeros = np.flatnonzero((xg.terminal_value == 0) & (anc == root))  # reached from the root
    # sorted, then each row once (np.unique hashes, or sorts rows as records: much slower)
    rows = acc[zeros]
    rows = rows[np.lexsort(rows.T)] if words > 1 else np.sort(rows, axis=0)
    first = np.ones(len(rows), dtype=bool)
    first[1:] = (rows[1:] != rows[:-1]).any(axis=1)
    return rows[first]


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
    if xg.runs_on_lists(costs.DFS_EDGES):
        return _dfs_zero_masks(xg, max_masks)
    found = _jump_zero_masks(xg)
    if max_masks is not None and len(found) > max_masks:
        return None
    return set(_as_ints(found))


def tree_minimal_masks(
    xg: ExplanationGraph, max_work: int | None = None
) -> tuple[int, list[int] | None]:
    """On a tree XpG: the number of distinct candidate CXps (:func:`tree_zero_masks`) and
    the subset-minimal ones, the CXps (:func:`minimal_masks`; ``None`` beyond ``max_work``).
    On larger trees the candidates stay numpy words from their collection to the filter.

    Examples
    --------
    >>> from xpg.examples import and_xpg
    >>> tree_minimal_masks(and_xpg())
    (2, [1, 2])
    """
    if not xg.runs_on_lists(costs.DFS_EDGES):
        rows = _jump_zero_masks(xg)
        left = float("inf") if max_work is None else max_work
        return len(rows), _minimal_of_words(rows, left)
    found = _dfs_zero_masks(xg, None) or set()
    return len(found), minimal_masks(found, max_work=max_work)
