"""SAT encodings of an explanation graph's function, for membership queries.

The XpG function ``D(s)`` (core paper, Sect. 3) is 1 when, with the variables ``s_v = 1``
fixed and the others free, no terminal labelled 0 is reachable.  It is monotone, so a
feature ``i`` belongs to some AXp iff some weak AXp ``S`` contains ``i`` while ``S - {i}`` is
not a weak AXp (Prop. 8 of the core paper).  :class:`MembershipOracle` encodes that
statement with two copies of the graph over shared selector variables ``s_v``:

* copy A (``D(S) = 1``): a set of nodes ``r_n`` closed under the edges allowed by ``S``
  (1-edges, and 0-edges of free variables) that contains the root and no 0-terminal;
  such a closed set over-approximates what is reachable, so it exists iff no 0-terminal is
  reachable;
* copy B (``D(S - {i}) = 0``): a justified path to a 0-terminal: every node ``q_n`` on it
  other than the root has an incoming edge ``e_k`` on it whose source is on it, and a 0-edge
  on a variable ``v`` may be used only when ``v`` is free or ``v`` is the released feature
  (``x_v``).  The graph is acyclic, so every such justification leads back to the root.

Only the nodes from which a 0-terminal can be reached take part (the others can neither
make copy A fail nor lie on a path of copy B).  Two redundant constraints help the solver:
the path takes a 0-edge of the released feature, and ``S`` is maximal (a variable is fixed
unless the path takes one of its 0-edges).  The released feature is chosen with
assumptions (``x_i`` true, every other ``x_v`` false), so one solver answers any number of
membership queries, one SAT call each.  Variables are numbered in contiguous blocks
(:class:`EncodingVars`), which lets the clauses be built with numpy in one pass over the
edges.

Examples
--------
>>> from xpg.examples import and_xpg
>>> xg = and_xpg()  # a and b, for a = b = 1
>>> with MembershipOracle(xg) as oracle:
...     oracle.query(0), oracle.query(1), oracle.sat_calls
([0, 1], [0, 1], 2)

References
----------
Huang, Izza, Ignatiev, Marques-Silva. On Efficiently Explaining Graph-Based Classifiers.
KR 2021, Sect. 3 (the XpG function, Prop. 4 monotonicity) and Prop. 8 (membership in NP).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from pysat.solvers import Solver

from xpg.core.xpgraph import ExplanationGraph
from xpg.solvers.lifecycle import SolverOwner

Clause = list[int]


@dataclass(frozen=True)
class EncodingVars:
    """SAT variable numbers of the membership encoding, in contiguous blocks.

    Variable ``v`` is fixed: ``s + v``; ``v`` is the released feature: ``x + v``; node ``n`` is
    in copy A's closed set: ``r + n``; node ``n`` is on copy B's path: ``q + n``; edge ``k``
    is on copy B's path: ``e + k``.  ``top`` is the largest number used.
    """

    s: int
    x: int
    r: int
    q: int
    e: int
    top: int

    @classmethod
    def for_graph(cls, xg: ExplanationGraph) -> EncodingVars:
        m, n = xg.n_vars, xg.n_nodes
        return cls(
            1, 1 + m, 1 + 2 * m, 1 + 2 * m + n, 1 + 2 * m + 2 * n, 2 * m + 2 * n + len(xg.edge_src)
        )


def reaches_zero(xg: ExplanationGraph) -> np.ndarray:
    """Per node: can some path (over any edges) lead to a terminal labelled 0?

    One breadth-first search over the reversed edges from a virtual node linked to every
    0-terminal (scipy's compiled graph routines).
    """
    # imported here: scipy.sparse costs more to import than most membership queries take
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import breadth_first_order

    n = xg.n_nodes
    zeros = np.flatnonzero(xg.terminal_value == 0)
    if not len(zeros):
        return np.zeros(n, dtype=bool)
    rows = np.concatenate([xg.edge_dst, np.full(len(zeros), n)])
    cols = np.concatenate([xg.edge_src, zeros])
    reverse = csr_matrix((np.ones(len(rows), dtype=np.int8), (rows, cols)), shape=(n + 1, n + 1))
    mark = np.zeros(n + 1, dtype=bool)
    mark[breadth_first_order(reverse, n, directed=True, return_predecessors=False)] = True
    return mark[:n]


def _rows(*columns: np.ndarray) -> list[Clause]:
    """Clauses from equally long integer columns, one clause per row."""
    return np.column_stack(columns).tolist()


def membership_clauses(xg: ExplanationGraph) -> tuple[EncodingVars, list[Clause]]:
    """Copies A and B, ``x_v -> s_v`` and the redundant constraints, over the nodes that can
    reach a 0-terminal."""
    ev = EncodingVars.for_graph(xg)
    live = reaches_zero(xg)
    k = np.flatnonzero(live[xg.edge_dst])  # edges that matter
    src, dst, lab = xg.edge_src[k], xg.edge_dst[k], xg.edge_label[k]
    var = xg.node_var[src]
    zero_dst = xg.terminal_value[dst] == 0
    clauses: list[Clause] = [[-(ev.x + v), ev.s + v] for v in range(xg.n_vars)]
    # copy A: the root is in the set, the set is closed, no 0-terminal is in it
    if live[xg.root]:
        clauses.append([ev.r + xg.root])
    for one_edge in (True, False):
        for into_zero in (True, False):
            sel = (lab == one_edge) & (zero_dst == into_zero)
            cols: list[np.ndarray] = [-(ev.r + src[sel])]
            if not one_edge:
                cols.append(ev.s + var[sel])
            if not into_zero:
                cols.append(ev.r + dst[sel])
            clauses += _rows(*cols)
    # copy B: a justified path from the root to a 0-terminal
    e = ev.e + k
    clauses += _rows(-e, ev.q + src)
    zero = ~lab
    clauses += _rows(-e[zero], -(ev.s + var[zero]), ev.x + var[zero])
    incoming: list[list[int]] = [[] for _ in range(xg.n_nodes)]
    for edge, d in zip(e.tolist(), dst.tolist(), strict=True):
        incoming[d].append(edge)
    for n in np.flatnonzero(live).tolist():
        if n != xg.root:
            clauses.append([-(ev.q + n), *incoming[n]])
    # some 0-terminal is on the path (an empty clause when there is none: unsatisfiable)
    clauses.append([ev.q + t for t in np.flatnonzero(xg.terminal_value == 0).tolist()])
    # two redundant constraints that keep every answer and prune the search:
    # the path takes a 0-edge of the released feature (else D(S) = 0, contradicting copy A),
    # and a variable is fixed unless the path takes one of its 0-edges (fixing more keeps
    # both copies satisfied, so some model has this maximal S)
    zero_edges: list[list[int]] = [[] for _ in range(xg.n_vars)]
    for edge, v in zip(e[zero].tolist(), var[zero].tolist(), strict=True):
        zero_edges[v].append(edge)
    for v in range(xg.n_vars):
        clauses.append([-(ev.x + v), *zero_edges[v]])
        clauses.append([ev.s + v, *zero_edges[v]])
    return ev, clauses


class MembershipOracle(SolverOwner):
    """An incremental SAT solver answering "is feature ``i`` in some AXp?" (use it as a
    context manager).

    Parameters
    ----------
    xg : ExplanationGraph
    solver : str
        A python-sat solver name.

    Attributes
    ----------
    sat_calls : int
        SAT calls made so far (one per :meth:`query`).
    """

    closed_message = "this MembershipOracle is closed"

    def __init__(self, xg: ExplanationGraph, solver: str = "m22") -> None:
        self.xg = xg
        self.sat_calls = 0
        self._vars, clauses = membership_clauses(xg)
        self._solver = Solver(name=solver, bootstrap_with=clauses)

    def _release(self) -> None:
        self._solver.delete()

    def query(self, i: int) -> list[int] | None:
        """One SAT call: a weak AXp ``S`` (sorted indices) with ``i`` in ``S`` and ``S - {i}``
        not a weak AXp, or ``None`` when feature ``i`` is in no AXp."""
        self._check_open()
        ev, m = self._vars, self.xg.n_vars
        assumptions = [-(ev.x + v) for v in range(m)]
        assumptions[i] = -assumptions[i]
        self.sat_calls += 1
        if not self._solver.solve(assumptions=assumptions):
            return None
        model = self._solver.get_model()
        # the model lists variable j as +j or -j at position j - 1; s(v) = v + 1
        return [v for v in range(m) if model[v] > 0]
