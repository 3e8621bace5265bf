"""All CXps of a tree XpG in polynomial time (Prop. 6), and all AXps by hitting-set duality.

On a tree every terminal is reached by exactly one path.  Freeing a set ``F`` of variables
lets the prediction change iff some path to a terminal labelled 0 takes 0-edges on
variables of ``F`` only, so the weak CXps are the supersets of the sets "variables of the
0-edges of one path to a 0-terminal": one candidate per 0-terminal, and the CXps are the
subset-minimal candidates.  The AXps are the minimal hitting sets of the CXps (Ignatiev et
al. 2020), enumerated with a hitting-set solver from python-sat.

Examples
--------
>>> from xpg.examples import and_xpg
>>> xg = and_xpg()  # a and b, for a = b = 1
>>> list(tree_cxps(xg)), list(tree_axps(xg))
([('a',), ('b',)], [('a', 'b')])

References
----------
Huang, Izza, Ignatiev, Marques-Silva. On Efficiently Explaining Graph-Based Classifiers.
KR 2021, Prop. 6 (polynomial CXp enumeration for tree XpGs).
Ignatiev, Narodytska, Asher, Marques-Silva. From Contrastive to Abductive Explanations and
Back Again. AI*IA 2020 (minimal hitting-set duality of AXps and CXps).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Literal

from xpg.core import lazy
from xpg.core.xpgraph import ExplanationGraph
from xpg.errors import NotATreeError
from xpg.explain.graph_oracle import require_explanation_graph
from xpg.explain.reach import tree_zero_path_masks

if TYPE_CHECKING:
    import numpy as np
else:
    np = lazy.module("numpy")

HittingSetMethod = Literal["lbx", "sorted"]


def require_tree(xg: ExplanationGraph, algorithm: str) -> None:
    """Raise :class:`NotATreeError` naming a node with several parents, if there is one."""
    if xg.is_tree():
        return
    indeg = np.bincount(xg.edge_dst, minlength=xg.n_nodes)
    shared = np.flatnonzero(indeg > 1)
    if len(shared):
        node = xg.node_ids[int(shared[0])]
        more = f" (and {len(shared) - 1} more such nodes)" if len(shared) > 1 else ""
        raise NotATreeError(
            f"{algorithm} needs a tree explanation graph (every node with at most one parent); "
            f"found node {node!r} with {int(indeg[shared[0]])} parents{more}"
        )


def bits_of(mask: int) -> list[int]:
    """The variable indices of a bit mask, ascending."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def tree_cxp_masks(xg: ExplanationGraph) -> list[int]:
    """Every CXp of a tree XpG as a bit mask over variable indices (bit ``v`` = variable
    ``v``), smallest first.  Linear-time candidate collection, then superset filtering.

    Raises
    ------
    NotATreeError
        When a node has several parents.
    """
    require_tree(xg, "tree CXp enumeration")
    masks = tree_zero_path_masks(xg)
    assert masks is not None  # no limit was given
    return masks


def tree_singleton_cxps(xg: ExplanationGraph) -> list[int]:
    """The variables ``v`` of a tree XpG such that ``{v}`` is a CXp (the features in every
    AXp), ascending: one depth-first pass that frees at most one variable per path.

    A path may take 0-edges of one variable only; on a tree each node is reached by one
    path, so each is visited at most once, and only near the instance's path.  It runs on
    the traversal views (:meth:`~xpg.core.xpgraph.ExplanationGraph.views`, which the
    deletions use too), not on per-node adjacency lists: on a cold 100,000-node tree those
    lists alone cost several times the whole SAT route (issue 27).

    Examples
    --------
    >>> from xpg.examples import and_xpg
    >>> tree_singleton_cxps(and_xpg())  # a and b: freeing either changes the prediction
    [0, 1]
    """
    one, zp, zi, var, value = xg.views()
    found: set[int] = set()
    stack = [(xg.root, -1)]  # node, the one variable freed on its path (-1: none yet)
    while stack:
        n, freed = stack.pop()
        v = var[n]
        if v < 0:
            if value[n] == 0 and freed >= 0:
                found.add(freed)
            continue
        c = one[n]
        if c >= 0:
            stack.append((c, freed))
        if freed < 0 or freed == v:
            for k in range(zp[n], zp[n + 1]):
                stack.append((zi[k], v))
    return sorted(found)


def tree_cxp_sets(xg: ExplanationGraph) -> list[list[int]]:
    """Every CXp of a tree XpG as a sorted list of variable indices, smallest first."""
    return [bits_of(m) for m in tree_cxp_masks(xg)]


def tree_cxps(xg: ExplanationGraph) -> Iterator[tuple[str, ...]]:
    """Every CXp of a tree XpG (feature names in feature order), smallest first.

    Polynomial: one candidate per terminal labelled 0 (the variables of the 0-edges on its
    path), supersets filtered out.  No CXp exists when no terminal is labelled 0.

    Raises
    ------
    NotATreeError
        When a node has several parents.
    """
    require_explanation_graph(xg, "tree_cxps")
    for cxp in tree_cxp_sets(xg):
        yield xg.names(cxp)


def minimal_hitting_sets(
    sets: Iterable[Iterable[int]], method: HittingSetMethod = "lbx"
) -> Iterator[list[int]]:
    """Every subset-minimal hitting set of a family of sets of integers, each once.

    ``method="lbx"`` enumerates minimal correction subsets (any order), ``"sorted"``
    minimum-cardinality sets first (MaxSAT, RC2).  The empty family has one minimal hitting
    set, the empty set.
    """
    from pysat.examples.hitman import Hitman

    family = [sorted(set(s)) for s in sets]
    if not family:
        yield []
        return
    with Hitman(bootstrap_with=family, htype=method) as hitman:
        for hs in hitman.enumerate():
            yield sorted(hs)


def tree_axps(xg: ExplanationGraph, method: HittingSetMethod = "lbx") -> Iterator[tuple[str, ...]]:
    """Every AXp of a tree XpG (feature names in feature order), as the minimal hitting sets
    of its CXps (a generator: AXps stream out as the hitting-set solver finds them).

    Parameters
    ----------
    xg : ExplanationGraph
        A tree XpG.
    method : {"lbx", "sorted"}
        Hitting-set enumeration of python-sat's ``Hitman``: minimal correction subsets
        (``"lbx"``) or smallest first (``"sorted"``, RC2).

    Raises
    ------
    NotATreeError
        When a node has several parents.
    """
    require_explanation_graph(xg, "tree_axps")
    for axp in minimal_hitting_sets(tree_cxp_sets(xg), method):
        yield xg.names(axp)
