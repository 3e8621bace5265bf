"""Is a feature in some AXp (or some CXp)?  Membership queries with complexity-aware dispatch.

A feature is in some AXp iff it is in some CXp (Prop. 1 of the core paper), so both kinds
of query have the same answer; they differ by the witness returned.  The route is chosen in
one place, :func:`membership_route`:

* ``"tree-polynomial"`` when the XpG is a tree and its CXps are cheap to list: one
  candidate per path to a 0-terminal (Prop. 6, :mod:`xpg.explain.tree_xpg`), supersets
  filtered out (:func:`xpg.explain.mask_families.minimal_masks`), and membership is read off the
  list (Prop. 9).  Collecting the candidates is one linear pass; the filter's work is
  counted and bounded by a budget proportional to the edges (a fraction of what building
  the SAT encoding costs), so the tree route never costs much more than the SAT route;
* ``"sat"`` otherwise (a DAG, or a tree whose filter exceeds the budget): one SAT call on
  "some weak AXp ``S`` contains the feature and ``S`` minus the feature is not a weak AXp"
  (Prop. 8, :class:`xpg.solvers.sat.MembershipOracle`).  By monotonicity of the XpG
  function every AXp inside such an ``S`` contains the feature, so deletion inside ``S``
  gives the witness.

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

from dataclasses import dataclass, field
from typing import Any, Literal, get_args

import numpy as np

import xpg.core.costs as costs
from xpg.core.xpgraph import ExplanationGraph
from xpg.errors import InvalidQueryError
from xpg.explain.axp_cxp import axp_containing, axp_from_fixed, cxp_containing, delete_to_axp
from xpg.explain.graph_oracle import GraphOracle, require_explanation_graph
from xpg.explain.marco import Enumerator, ExplanationKind
from xpg.explain.mask_families import tree_minimal_masks
from xpg.explain.oracle_abc import Oracle, OracleTimeout
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
    """The route a query takes and why.

    Attributes
    ----------
    route : {"tree-polynomial", "sat"}
    reason : str
        Which property or count decided.
    cxp_masks : tuple of int or None
        The CXps as bit masks (smallest first) when the dispatcher already listed them.
    """

    route: Route
    reason: str
    cxp_masks: tuple[int, ...] | None = field(default=None, repr=False, compare=False)


def filter_budget(xg: ExplanationGraph) -> int:
    """The work the tree route's superset filter may spend on ``xg`` before the dispatcher
    prefers the SAT route: :data:`xpg.core.costs.FILTER_WORK_PER_EDGE` per edge plus
    :data:`xpg.core.costs.FILTER_WORK_BASE`, in units of
    :func:`xpg.explain.mask_families.minimal_masks`'s ``max_work`` (about a nanosecond each).

    Examples
    --------
    >>> from xpg.examples import and_xpg
    >>> filter_budget(and_xpg()) == costs.FILTER_WORK_BASE + 4 * costs.FILTER_WORK_PER_EDGE
    True
    """
    return costs.FILTER_WORK_PER_EDGE * len(xg.edge_src) + costs.FILTER_WORK_BASE


def _not_a_tree(xg: ExplanationGraph) -> RouteChoice | None:
    indeg = np.bincount(xg.edge_dst, minlength=xg.n_nodes)
    shared = np.flatnonzero(indeg > 1)
    if not len(shared):
        return None
    node = xg.node_ids[int(shared[0])]
    return RouteChoice(
        "sat",
        f"the explanation graph is not a tree (node {node!r} has {int(indeg[shared[0]])} "
        "parents): one SAT call decides membership (Prop. 8)",
    )


def tree_choice(xg: ExplanationGraph) -> RouteChoice:
    """The dispatcher on a tree XpG: list the CXps within :func:`filter_budget`, or take
    the SAT route, saying which count decided."""
    paths = int(np.count_nonzero(xg.terminal_value == 0))
    budget = filter_budget(xg)
    found, masks = tree_minimal_masks(xg, max_work=budget)
    counts = f"{paths} paths to 0-terminals give {found} distinct candidate CXps"
    if masks is None:
        return RouteChoice(
            "sat",
            f"the explanation graph is a tree, but its {counts}, and filtering out their "
            f"supersets needs more than the budget of {budget} work units (about as many "
            "nanoseconds); one SAT call decides membership (Prop. 8)",
        )
    return RouteChoice(
        "tree-polynomial",
        f"the explanation graph is a tree: its {counts}, filtered to {len(masks)} CXps within "
        f"the budget of {budget} work units (Prop. 6); membership is read off them (Prop. 9)",
        tuple(masks),
    )


def membership_route(xg: ExplanationGraph, kind: ExplanationKind = "axp") -> RouteChoice:
    """The dispatcher: which route a membership query on ``xg`` takes, and why.

    ``"sat"`` when the XpG is not a tree.  On a tree the candidate CXps are collected in one
    linear pass and filtered within :func:`filter_budget`: ``"tree-polynomial"`` (the listed
    CXps travel in :attr:`RouteChoice.cxp_masks`) when the filter finishes within it,
    ``"sat"`` beyond it.  The reason names the counts that decided.  The kind of explanation
    does not change the route (Prop. 1: the answers coincide).

    Examples
    --------
    >>> from xpg.examples import and_xpg
    >>> choice = membership_route(and_xpg())
    >>> choice.route, choice.cxp_masks
    ('tree-polynomial', (1, 2))
    >>> print(choice.reason)  # doctest: +NORMALIZE_WHITESPACE
    the explanation graph is a tree: its 2 paths to 0-terminals give 2 distinct candidate
    CXps, filtered to 2 CXps within the budget of 2004000 work units (Prop. 6); membership
    is read off them (Prop. 9)
    """
    require_explanation_graph(xg, "membership_route")
    check_kind(kind)
    return _not_a_tree(xg) or tree_choice(xg)


def choose_route(
    xg: ExplanationGraph, route: Route | None = None, kind: ExplanationKind = "axp"
) -> RouteChoice:
    """The dispatcher's choice, or the caller's ``route`` checked against the graph.

    Raises
    ------
    InvalidQueryError
        For a route outside ``"tree-polynomial"``, ``"sat"``.
    xpg.errors.NotATreeError
        When the tree route is asked for on a graph that is not a tree.
    """
    if route is None:
        return membership_route(xg, kind)
    check_kind(kind)
    if route not in ROUTES:
        raise InvalidQueryError(f"route: expected one of {', '.join(ROUTES)}, found {route!r}")
    if route == "sat":  # sound on every graph: no need to look at the tree's paths
        return _not_a_tree(xg) or RouteChoice("sat", "route forced by the caller")
    require_tree(xg, "the tree-polynomial route")
    return RouteChoice("tree-polynomial", "route forced by the caller (the graph is a tree)")


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


def first_containing(masks: tuple[int, ...]) -> dict[int, int]:
    """Per variable, the first mask of ``masks`` that holds it (one pass).

    Examples
    --------
    >>> first_containing((0b001, 0b110, 0b011))
    {0: 1, 1: 6, 2: 6}
    """
    first: dict[int, int] = {}
    seen = 0
    for m in masks:
        new = m & ~seen
        if new:
            seen |= new
            for v in bits_of(new):
                first[v] = m
    return first


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
    xpg.errors.NotATreeError
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
        self._cxp_masks = self.choice.cxp_masks
        self._first_cxp: dict[int, int] | None = None  # variable -> smallest CXp holding it
        self._oracle: MembershipOracle | None = None

    def _release(self) -> None:
        if self._oracle is not None:  # a SAT solver was started
            self._oracle.close()
            self._oracle = None

    def _witness(self, i: int, kind: ExplanationKind) -> list[int] | None:
        xg = self.xg
        if self.choice.route == "tree-polynomial":
            if self._first_cxp is None:
                if self._cxp_masks is None:
                    self._cxp_masks = tuple(tree_cxp_masks(xg))
                self._first_cxp = first_containing(self._cxp_masks)
            if i not in self._first_cxp:
                return None
            cxp = bits_of(self._first_cxp[i])
            return cxp if kind == "cxp" else axp_containing(GraphOracle(xg), i, cxp)
        if self._oracle is None:
            self._oracle = MembershipOracle(xg, solver=self.solver)
        fixed = self._oracle.query(i)
        self.sat_calls = self._oracle.sat_calls
        if fixed is None:
            return None
        axp = axp_from_fixed(xg, fixed)  # every AXp inside ``fixed`` contains i
        return axp if kind == "axp" else cxp_containing(GraphOracle(xg), i, axp)

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


def oracle_membership(
    oracle: Oracle, i: int, kind: ExplanationKind
) -> tuple[list[int] | None, str]:
    """Membership over any oracle: a witness of ``kind`` holding feature ``i`` (None when
    there is none) and how it was decided.  A feature whose freeing alone changes the class
    is in every AXp (one question); otherwise MARCO runs until an explanation holding it
    appears or the lists are complete.

    Raises
    ------
    OracleTimeout
        When the oracle's deadline passes first.
    """
    if i not in set(oracle.tested()):
        return None, "the model does not tell the feature's values apart"
    if oracle.check_free([i]) is not None:
        every = [i] if kind == "cxp" else delete_to_axp(oracle, oracle.tested())
        return every, "freeing the feature alone changes the class: it is in every AXp"
    with Enumerator(oracle) as en:
        witness, count = first_member_witness(en, i, kind)
        if witness is None and not en.complete:
            raise OracleTimeout
    if witness is not None:
        return witness, (
            f"enumeration (MARCO) until an explanation holding the feature appeared "
            f"({count} explanations)"
        )
    return None, f"complete enumeration (MARCO, {count} explanations) holds it nowhere"


def first_member_witness(
    en: Enumerator, i: int, kind: ExplanationKind
) -> tuple[list[int] | None, int]:
    """Run MARCO until an explanation holding ``i`` appears: a witness of ``kind`` holding
    ``i`` (None when the lists hold none), and the explanations enumerated."""
    oracle = en.oracle
    count = 0
    for found in en:
        count += 1
        chosen = (en.axp_sets if found.kind == "axp" else en.cxp_sets)[-1]
        if i in chosen:
            if found.kind == kind:
                return chosen, count
            if kind == "axp":
                return axp_containing(oracle, i, chosen), count
            return cxp_containing(oracle, i, chosen), count
    return None, count


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
    xpg.errors.NotATreeError
        When the tree route is forced on a graph that is not a tree.
    """
    require_explanation_graph(xg, "is_member")
    check_kind(kind)
    xg.index(feature)
    with MembershipQueries(xg, route=route, solver=solver) as queries:
        return queries.is_member(feature, kind)
