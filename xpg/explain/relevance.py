"""Classify every feature of a decision: necessary, relevant or irrelevant.

* necessary: in every AXp;
* relevant: in some AXp but not in all;
* irrelevant: in no AXp (equivalently in no CXp, Prop. 1 of the core paper).

The routes, cheapest sound one first:

* A feature ``i`` is necessary iff freeing ``i`` alone can change the prediction, i.e.
  ``{i}`` is a CXp.  If freeing ``{i}`` reaches a 0-terminal, an AXp ``X`` without ``i``
  would leave ``i`` free and, by monotonicity, keep the prediction: impossible.  Conversely,
  if every AXp contains ``i``, the features other than ``i`` are not a weak AXp (they would
  contain an AXp without ``i``), so freeing ``i`` alone changes the prediction.  One
  linear reachability test per feature (on trees: the singleton CXps).
* A feature the graph does not test is irrelevant.
* On a tree XpG: first AXps found by deletion (Alg. 2, no SAT call), the undecided
  features freed last so that each AXp is likely to hold new ones, for at most about the
  time listing the candidate CXps would take; then, if features are still undecided, the
  members are the union of the CXps, listed in polynomial time (Prop. 6) within the
  membership dispatcher's filter budget (:func:`xpg.explain.membership.filter_budget`),
  beyond which the SAT route below decides the rest.  Explanations covering every
  feature are often few, so the deletions decide most trees after a small part of the
  tree; the listing bounds the cost when they do not.
* Otherwise two sound methods run side by side, each advancing while it has used less time
  than the other: membership queries (one SAT call per undecided feature on one
  incremental solver, :class:`xpg.solvers.sat.MembershipOracle`; each witness AXp marks
  all its features as members) and MARCO enumeration (each explanation marks its features
  as members; once complete, every feature is decided).  The first to decide every
  feature ends the search, so the cost stays within about twice that of the faster one:
  enumeration wins when explanations are few, queries when they are many.

Examples
--------
>>> from xpg.io import read_xpg_text
>>> xg = read_xpg_text('''NN: 5
... Root: 1
... T: 3 4 5
... TDef:
... 3 0
... 4 1
... 5 1
... NT: 1 2
... NTDef:
... 1 3 0
... 1 2 1
... 2 4 1
... 2 5 0
... NV: 2
... VarDef:
... 1 a
... 2 b
... ''')
>>> result = classify_features(xg)
>>> result.necessary, result.relevant, result.irrelevant
(('a',), (), ('b',))

References
----------
Huang, Izza, Ignatiev, Marques-Silva. On Efficiently Explaining Graph-Based Classifiers.
KR 2021, Prop. 1, Props. 6, 8 and 9, Alg. 4 (MARCO); Ignatiev et al. From Contrastive to
Abductive Explanations and Back Again. AI*IA 2020 (hitting-set duality).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal, get_args

from xpg.core.xpgraph import ExplanationGraph
from xpg.errors import InvalidQueryError
from xpg.explain.axp_cxp import axp_from_fixed
from xpg.explain.marco import Enumerator, Explanation
from xpg.explain.masks import tree_minimal_masks
from xpg.explain.membership import Route, RouteChoice, choose_route, filter_budget
from xpg.explain.reach import path_to_zero
from xpg.explain.tree_xpg import tree_singleton_cxps
from xpg.solvers.sat import MembershipOracle

FeatureClass = Literal["necessary", "relevant", "irrelevant"]
Strategy = Literal["portfolio", "queries", "enumeration"]
_BUILD_SECONDS_PER_EDGE = 5e-6  # measured cost of the membership encoding, for scheduling only
_LIST_SECONDS_PER_EDGE = 1e-7  # measured cost of collecting a tree's candidate CXps, likewise
_LIST_FIRST_EDGES = 64  # on smaller trees listing the CXps at once is cheapest
STRATEGIES: tuple[str, ...] = get_args(Strategy)


@dataclass(frozen=True)
class FeatureClassification:
    """Every feature's class, the route taken and its cost.

    Attributes
    ----------
    classes : dict
        Feature name -> ``"necessary"``, ``"relevant"`` or ``"irrelevant"``, in feature order.
    route : {"tree-polynomial", "sat"}
    sat_calls : int
        Membership SAT calls made (none on the tree route).
    enumerated : int
        Explanations found by the enumeration run alongside on the SAT route.
    reason : str
        Why that route was taken.
    """

    classes: dict[str, FeatureClass]
    route: Route
    sat_calls: int
    enumerated: int
    reason: str

    def _of(self, cls: FeatureClass) -> tuple[str, ...]:
        return tuple(name for name, c in self.classes.items() if c == cls)

    @property
    def necessary(self) -> tuple[str, ...]:
        """Features in every AXp (feature order)."""
        return self._of("necessary")

    @property
    def relevant(self) -> tuple[str, ...]:
        """Features in some AXp but not in every one (feature order)."""
        return self._of("relevant")

    @property
    def irrelevant(self) -> tuple[str, ...]:
        """Features in no AXp (feature order)."""
        return self._of("irrelevant")

    def to_json(self) -> dict[str, Any]:
        """The ``xpg features --json`` document (names sorted in each list)."""
        return {
            "necessary": sorted(self.necessary),
            "relevant": sorted(self.relevant),
            "irrelevant": sorted(self.irrelevant),
            "route": self.route,
        }


def _sat_route_members(
    xg: ExplanationGraph, known: set[int], strategy: Strategy, solver: str
) -> tuple[set[int], int, int]:
    """Members of some AXp among the tested variables by membership queries, enumeration, or
    both side by side ("portfolio": whichever has used less time so far takes the next step,
    until one of them has decided every feature, so the cost stays within about twice that
    of the faster one).  Returns (members, membership SAT calls, explanations enumerated).
    """
    members = set(known)
    undecided = [v for v in xg.tested_vars() if v not in members]
    # the first query builds the SAT encoding in one go: charge its expected cost up front,
    # so that enumeration, which may finish sooner, runs first for about as long
    spent = {"queries": _BUILD_SECONDS_PER_EDGE * len(xg.edge_src), "enumeration": 0.0}
    if strategy == "queries":
        spent["enumeration"] = float("inf")
    elif strategy == "enumeration":
        spent["queries"] = float("inf")
    oracle: MembershipOracle | None = None
    with Enumerator(xg) as enumerator:
        stream: Iterator[Explanation] = iter(enumerator)
        try:
            while undecided:
                start = time.perf_counter()
                if spent["enumeration"] <= spent["queries"]:
                    found = next(stream, None)
                    if found is None:  # complete: every explanation is known
                        break
                    members |= xg.indices(found.features)
                    spent["enumeration"] += time.perf_counter() - start
                else:
                    v = undecided.pop()
                    if oracle is None:
                        oracle = MembershipOracle(xg, solver=solver)
                    fixed = oracle.query(v)
                    if fixed is not None:
                        members |= set(axp_from_fixed(xg, fixed))
                    spent["queries"] += time.perf_counter() - start
                undecided = [v for v in undecided if v not in members]
        finally:
            sat_calls = oracle.sat_calls if oracle is not None else 0
            if oracle is not None:
                oracle.close()
        return members, sat_calls, len(enumerator.axps) + len(enumerator.cxps)


def _deletion_members(xg: ExplanationGraph, members: set[int], seconds: float) -> int:
    """Add to ``members`` the features of AXps found by deletion (Alg. 2, no SAT call),
    the undecided features freed last, until every tested feature is a member, an AXp
    brings none, or ``seconds`` have passed.  Returns the number of AXps found."""
    tested = xg.tested_vars()
    start = time.perf_counter()
    found = 0
    while time.perf_counter() - start <= seconds:
        undecided = [v for v in tested if v not in members]
        if not undecided:
            break
        axp = axp_from_fixed(xg, [v for v in tested if v in members] + undecided)
        found += 1
        if members.issuperset(axp):
            break
        members.update(axp)
    return found


_ONLY_AXP = (
    "an AXp found by deletion (no SAT call) holds only necessary features, so it is the only "
    "AXp (every AXp holds every necessary feature)"
)


def _only_axp(xg: ExplanationGraph, necessary: set[int]) -> tuple[set[int], bool]:
    """The first AXp found by deletion, and whether it is the only one: it is when it holds
    only necessary features (``necessary``: the features in every AXp), since every AXp
    contains it, hence equals it by minimality."""
    axp = set(axp_from_fixed(xg, xg.tested_vars()))
    return axp, axp <= necessary


def _tree_classes(
    xg: ExplanationGraph, forced: bool, strategy: Strategy, solver: str
) -> tuple[set[int], set[int], RouteChoice, int, int]:
    """Necessary features and members of a tree XpG: deletions, then the CXp list (within
    the filter budget unless ``forced``), then, beyond it, the SAT route for the rest.
    Returns (necessary, members, route choice, SAT calls, explanations enumerated)."""
    tested = xg.tested_vars()
    edges = len(xg.edge_src)
    members: set[int] = set()
    found = 0
    if edges >= _LIST_FIRST_EDGES:
        necessary = set(tree_singleton_cxps(xg))
        first, only = _only_axp(xg, necessary)
        if only:
            reason = f"the explanation graph is a tree: {_ONLY_AXP}"
            return necessary, first, RouteChoice("tree-polynomial", reason), 0, 0
        members |= first
        found = 1 + _deletion_members(xg, members, _LIST_SECONDS_PER_EDGE * edges)
        if members.issuperset(tested):
            reason = (
                f"the explanation graph is a tree: {found} AXps found by deletion (no SAT "
                f"call) hold every tested feature, before listing its CXps (Prop. 6)"
            )
            necessary = set(tree_singleton_cxps(xg))
            return necessary, members, RouteChoice("tree-polynomial", reason), 0, 0
    budget = None if forced else filter_budget(xg)
    candidates, masks = tree_minimal_masks(xg, max_work=budget)
    counts = (
        f"{int((xg.terminal_value == 0).sum())} paths to 0-terminals give "
        f"{candidates} distinct candidate CXps"
    )
    if masks is None:
        necessary = set(tree_singleton_cxps(xg))
        members, sat_calls, enumerated = _sat_route_members(
            xg, members | necessary, strategy, solver
        )
        reason = (
            f"the explanation graph is a tree, but its {counts}, and filtering out their "
            f"supersets needs more than the budget of {budget} work units; after {found} "
            "AXps found by deletion, SAT calls and enumeration decide the rest"
        )
        return necessary, members, RouteChoice("sat", reason), sat_calls, enumerated
    union = 0
    for m in masks:
        union |= m
    reason = f"the explanation graph is a tree: its {counts}, filtered to {len(masks)} CXps"
    if forced:
        reason = f"route forced by the caller; {reason}"
    necessary = {m.bit_length() - 1 for m in masks if m.bit_count() == 1}
    members = {v for v in range(xg.n_vars) if union >> v & 1}
    return necessary, members, RouteChoice("tree-polynomial", f"{reason} (Prop. 6)"), 0, 0


def classify_features(
    xg: ExplanationGraph,
    *,
    route: Route | None = None,
    strategy: Strategy = "portfolio",
    solver: str = "m22",
) -> FeatureClassification:
    """Classify every feature as necessary, relevant or irrelevant for the XpG's decision.

    Parameters
    ----------
    xg : ExplanationGraph
    route : {"tree-polynomial", "sat"}, optional
        Force a route (default: the membership dispatcher, :func:`xpg.membership_route`).
    strategy : {"portfolio", "queries", "enumeration"}
        On the SAT route: membership queries and enumeration side by side (default), or
        one of them alone.
    solver : str
        The python-sat solver of the membership queries.

    Raises
    ------
    InvalidQueryError
        For an unknown route or strategy.
    xpg.errors.NotATreeError
        When the tree route is forced on a graph that is not a tree.
    """
    if strategy not in STRATEGIES:
        raise InvalidQueryError(
            f"strategy: expected one of {', '.join(STRATEGIES)}, found {strategy!r}"
        )
    if route is not None:
        choose_route(xg, route)  # checks the forced route against the graph
    if route == "tree-polynomial" or (route is None and xg.is_tree()):
        necessary, members, choice, sat_calls, enumerated = _tree_classes(
            xg, route is not None, strategy, solver
        )
    else:
        choice = choose_route(xg, route)
        tested = xg.tested_vars()
        necessary = {v for v in tested if path_to_zero(xg, [v])}
        first, only = _only_axp(xg, necessary) if route is None else (set(), False)
        if only:
            members, sat_calls, enumerated = first, 0, 0
            choice = RouteChoice(
                choice.route, f"{choice.reason}; but {_ONLY_AXP}, and no SAT call was made"
            )
        else:
            members, sat_calls, enumerated = _sat_route_members(
                xg, necessary | first, strategy, solver
            )
    classes: dict[str, FeatureClass] = {}
    for v, name in enumerate(xg.var_names):
        if v in necessary:
            classes[name] = "necessary"
        elif v in members:
            classes[name] = "relevant"
        else:
            classes[name] = "irrelevant"
    return FeatureClassification(classes, choice.route, sat_calls, enumerated, choice.reason)
