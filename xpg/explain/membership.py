"""Is a feature in some AXp (or some CXp)?  Membership queries with complexity-aware dispatch.

A feature is in some AXp iff it is in some CXp (Prop. 1 of the core paper), so both kinds
of query have the same answer; they differ by the witness returned.  The route is chosen in
one place, :func:`membership_route`:

* ``"tree-polynomial"`` when the XpG is a tree: all CXps are listed in polynomial time
  (Prop. 6, :mod:`xpg.explain.tree_xpg`) and membership is read off the list (Prop. 9);
* ``"sat"`` otherwise: one SAT call on "some weak AXp ``S`` contains the feature and
  ``S`` minus the feature is not a weak AXp" (Prop. 8, :class:`xpg.solvers.sat.MembershipOracle`).
  By monotonicity of the XpG function every AXp inside such an ``S`` contains the feature,
  so deletion inside ``S`` gives the witness.

Examples
--------
>>> from xpg.examples import and_xpg
>>> xg = and_xpg()  # a and b, for a = b = 1
>>> answer = is_member(xg, "b")
>>> answer.member, answer.route, answer.witness
(True, 'tree-polynomial', ('a', 'b'))
>>> is_member(xg, "b", kind="cxp", route="sat").to_json()
{'feature': 'b', 'kind': 'cxp', 'member': True, 'route': 'sat', 'witness': ['b']}

References
----------
Huang, Izza, Ignatiev, Marques-Silva. On Efficiently Explaining Graph-Based Classifiers.
KR 2021, Def. 1 (membership), Prop. 1 (AXp/CXp membership coincide), Props. 6, 8 and 9.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, get_args

import numpy as np

from xpg.core.xpgraph import ExplanationGraph
from xpg.errors import InvalidQueryError
from xpg.explain.axp_cxp import axp_from_fixed, cxp_from_free
from xpg.explain.marco import ExplanationKind
from xpg.explain.tree_xpg import bits_of, require_tree, tree_cxp_masks
from xpg.solvers.lifecycle import SolverOwner
from xpg.solvers.sat import MembershipOracle

Route = Literal["tree-polynomial", "sat"]
ROUTES: tuple[str, ...] = get_args(Route)
KINDS: tuple[str, ...] = get_args(ExplanationKind)


def check_kind(kind: str) -> None:
    """Raise :class:`InvalidQueryError` unless ``kind`` is ``"axp"`` or ``"cxp"``."""
    if kind not in KINDS:
        raise InvalidQueryError(f"explanation kind: expected 'axp' or 'cxp', found {kind!r}")


@dataclass(frozen=True)
class RouteChoice:
    """The route a query takes and why."""

    route: Route
    reason: str


def membership_route(xg: ExplanationGraph, kind: ExplanationKind = "axp") -> RouteChoice:
    """The dispatcher: which route a membership query on ``xg`` takes, and why.

    ``"tree-polynomial"`` exactly when the XpG is a tree, ``"sat"`` otherwise.  The kind of
    explanation does not change the route (Prop. 1: the answers coincide).
    """
    check_kind(kind)
    indeg = np.bincount(xg.edge_dst, minlength=xg.n_nodes)
    shared = np.flatnonzero(indeg > 1)
    if not len(shared):
        return RouteChoice(
            "tree-polynomial",
            "the explanation graph is a tree: its CXps are listed in polynomial time "
            "(Prop. 6) and membership is read off them (Prop. 9)",
        )
    node = xg.node_ids[int(shared[0])]
    return RouteChoice(
        "sat",
        f"the explanation graph is not a tree (node {node!r} has {int(indeg[shared[0]])} "
        "parents): one SAT call decides membership (Prop. 8)",
    )


def choose_route(
    xg: ExplanationGraph, route: Route | None = None, kind: ExplanationKind = "axp"
) -> RouteChoice:
    """The dispatcher's choice, or the caller's ``route`` checked against the graph.

    Raises
    ------
    InvalidQueryError
        For a route outside ``"tree-polynomial"``, ``"sat"``.
    xpg.explain.tree_xpg.NotATreeError
        When the tree route is asked for on a graph that is not a tree.
    """
    choice = membership_route(xg, kind)
    if route is None or route == choice.route:
        return choice
    if route not in ROUTES:
        raise InvalidQueryError(f"route: expected one of {', '.join(ROUTES)}, found {route!r}")
    if route == "tree-polynomial":
        require_tree(xg, "the tree-polynomial route")
    return RouteChoice(route, "route forced by the caller")


@dataclass(frozen=True)
class Membership:
    """The answer to a membership query.

    Attributes
    ----------
    feature, kind : str
        The query.
    member : bool
        True when the feature is in some explanation of that kind.
    route : {"tree-polynomial", "sat"}
        How the answer was obtained.
    witness : tuple of str or None
        An explanation of that kind containing the feature (feature order), when a member.
    sat_calls : int
        SAT calls made (exactly one on the SAT route, none on the tree route).
    reason : str
        Why that route was taken.
    """

    feature: str
    kind: ExplanationKind
    member: bool
    route: Route
    witness: tuple[str, ...] | None
    sat_calls: int
    reason: str

    def to_json(self) -> dict[str, Any]:
        """The ``xpg member --json`` document (witness names sorted)."""
        return {
            "feature": self.feature,
            "kind": self.kind,
            "member": self.member,
            "route": self.route,
            "witness": sorted(self.witness) if self.witness is not None else None,
        }


def axp_containing(xg: ExplanationGraph, i: int, cxp: list[int]) -> list[int]:
    """An AXp containing ``i``, from a CXp ``Y`` containing ``i``.

    ``Y - {i}`` is not a weak CXp (``Y`` is minimal), so fixing every other variable is a
    weak AXp; every AXp hits ``Y`` (duality), and inside that set it can only hit ``i``.
    """
    released = set(cxp) - {i}
    return axp_from_fixed(xg, [v for v in xg.tested_vars() if v not in released])


def cxp_containing(xg: ExplanationGraph, i: int, axp: list[int]) -> list[int]:
    """A CXp containing ``i``, from an AXp ``X`` containing ``i`` (the dual argument)."""
    kept = set(axp) - {i}
    return cxp_from_free(xg, [v for v in xg.tested_vars() if v not in kept])


class MembershipQueries(SolverOwner):
    """Many membership queries on one XpG (use it as a context manager).

    The route is chosen once; the tree route lists the CXps once, the SAT route keeps one
    incremental solver (:class:`~xpg.solvers.sat.MembershipOracle`), and every query on it
    is exactly one SAT call.

    Parameters
    ----------
    xg : ExplanationGraph
    route : {"tree-polynomial", "sat"}, optional
        Force a route (default: :func:`membership_route` decides).  ``"sat"`` is sound on
        every graph; ``"tree-polynomial"`` needs a tree.
    solver : str
        The python-sat solver of the SAT route.

    Attributes
    ----------
    choice : RouteChoice
        The route taken and why.
    sat_calls : int
        SAT calls made so far.

    Raises
    ------
    InvalidQueryError
        For a route outside the accepted values.
    xpg.explain.tree_xpg.NotATreeError
        When the tree route is forced on a graph that is not a tree.
    """

    closed_message = "these MembershipQueries are closed"

    def __init__(
        self, xg: ExplanationGraph, *, route: Route | None = None, solver: str = "m22"
    ) -> None:
        self.xg = xg
        self.choice = choose_route(xg, route)
        self.solver = solver
        self.sat_calls = 0
        self._cxp_masks: list[int] | None = None
        self._oracle: MembershipOracle | None = None

    def _release(self) -> None:
        if self._oracle is not None:  # a SAT solver was started
            self._oracle.close()
            self._oracle = None

    def _witness(self, i: int, kind: ExplanationKind) -> list[int] | None:
        xg = self.xg
        if self.choice.route == "tree-polynomial":
            if self._cxp_masks is None:
                self._cxp_masks = tree_cxp_masks(xg)
            containing = [m for m in self._cxp_masks if m >> i & 1]  # smallest first
            if not containing:
                return None
            cxp = bits_of(containing[0])
            return cxp if kind == "cxp" else axp_containing(xg, i, cxp)
        if self._oracle is None:
            self._oracle = MembershipOracle(xg, solver=self.solver)
        fixed = self._oracle.query(i)
        self.sat_calls = self._oracle.sat_calls
        if fixed is None:
            return None
        axp = axp_from_fixed(xg, fixed)  # every AXp inside ``fixed`` contains i
        return axp if kind == "axp" else cxp_containing(xg, i, axp)

    def is_member(self, feature: str | int, kind: ExplanationKind = "axp") -> Membership:
        """Is ``feature`` (a name or a variable index) in some AXp (or some CXp)?

        Raises
        ------
        InvalidFeatureError
            When the graph has no such feature.
        InvalidQueryError
            For a kind outside ``"axp"``, ``"cxp"``.
        xpg.errors.SolverClosedError
            After :meth:`close`.
        """
        self._check_open()
        check_kind(kind)
        i = self.xg.index(feature)
        before = self.sat_calls
        witness = self._witness(i, kind)
        return Membership(
            feature=self.xg.var_names[i],
            kind=kind,
            member=witness is not None,
            route=self.choice.route,
            witness=self.xg.names(witness) if witness is not None else None,
            sat_calls=self.sat_calls - before,
            reason=self.choice.reason,
        )


def is_member(
    xg: ExplanationGraph,
    feature: str | int,
    kind: ExplanationKind = "axp",
    *,
    route: Route | None = None,
    solver: str = "m22",
) -> Membership:
    """Is ``feature`` in some AXp (``kind="axp"``) or some CXp (``kind="cxp"``)?

    One query; for many on the same graph, :class:`MembershipQueries` builds the CXp list or
    the SAT solver once.

    Parameters
    ----------
    xg : ExplanationGraph
    feature : str or int
        A feature name (or variable index).
    kind : {"axp", "cxp"}
        The kind of explanation, which decides the kind of witness.
    route, solver
        As for :class:`MembershipQueries` (``route`` forces a route, ``solver`` names the
        python-sat solver of the SAT route).

    Returns
    -------
    Membership
        The answer, the route taken (``tree-polynomial``: no SAT call; ``sat``: exactly
        one), and a witness explanation containing the feature.

    Raises
    ------
    InvalidFeatureError
        When the graph has no such feature.
    InvalidQueryError
        For a kind or route outside the accepted values.
    xpg.explain.tree_xpg.NotATreeError
        When the tree route is forced on a graph that is not a tree.
    """
    check_kind(kind)
    xg.index(feature)
    with MembershipQueries(xg, route=route, solver=solver) as queries:
        return queries.is_member(feature, kind)
