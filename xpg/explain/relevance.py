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
* On a tree XpG, the costs of the two routes are weighed before either is paid for in
  full.  Listing the CXps (Prop. 6) costs a known amount, linear in the edges
  (:func:`listing_seconds`; its superset filter bounded by the membership dispatcher's
  :func:`~xpg.explain.membership.filter_budget`); building the SAT encoding for
  membership queries costs about fifty times more per edge, so on a tree queries only
  start beyond the filter's budget; the cost of the methods that stop as soon as every
  feature is decided is unknown in advance, so they race against the listing's estimate.
  First, when the necessary features (the singleton CXps, one depth-first pass near the
  instance's path) are a weak AXp, they are the only AXp (one reachability test).  Then,
  within the listing's estimated time: AXps found by deletion (Alg. 2, no SAT call), the
  undecided features freed last so that each AXp is likely to hold new ones, the clock
  checked after every feature; once they stop bringing new features, on trees of more
  than 20,000 edges, MARCO enumeration while its next explanation is expected to come in
  time (it completes after a few explanations on large trees with few explanations, where
  the listing passes over every node: route ``"sat"``).  If features are still
  undecided, the members are the union of the CXps, listed within the filter budget,
  beyond which the SAT route below decides the rest.  The race costs at most about the
  listing's time, so the whole stays within about twice the faster route.
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
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal, get_args

import xpg.core.costs as costs
import xpg.explain.mask_families as masks
from xpg.core.xpgraph import ExplanationGraph
from xpg.errors import InvalidQueryError
from xpg.explain.axp_cxp import axp_from_fixed
from xpg.explain.graph_oracle import require_explanation_graph
from xpg.explain.marco import Enumerator, Explanation
from xpg.explain.membership import Route, RouteChoice, choose_route, filter_budget
from xpg.explain.oracle_abc import Oracle, OracleTimeout
from xpg.explain.reach import IncrementalReach, path_to_zero
from xpg.explain.tree_xpg import tree_singleton_cxps
from xpg.solvers.sat import MembershipOracle

FeatureClass = Literal["necessary", "relevant", "irrelevant"]
Strategy = Literal["portfolio", "queries", "enumeration"]
STRATEGIES: tuple[str, ...] = get_args(Strategy)


def listing_seconds(xg: ExplanationGraph) -> float:
    """The estimated time of listing a tree XpG's candidate CXps and filtering them (Prop. 6):
    linear in the edges, at the measured cost per edge of the pass
    :func:`~xpg.explain.mask_families.tree_minimal_masks` takes (depth-first in Python on
    small trees, numpy on larger ones).  On a tree, :func:`classify_features` gives the
    finders that may decide every class sooner (deletions, and on large trees enumeration)
    this much time before it lists.

    Examples
    --------
    >>> from xpg.examples import and_xpg
    >>> listing_seconds(and_xpg()) == 4 * costs.DFS_LIST_SECONDS_PER_EDGE  # 4 edges
    True
    """
    on_lists = xg.runs_on_lists(costs.DFS_EDGES)
    per_edge = costs.DFS_LIST_SECONDS_PER_EDGE if on_lists else costs.LIST_SECONDS_PER_EDGE
    return per_edge * xg.n_edges


@dataclass(frozen=True)
class FeatureClassification:
    """Every feature's class, the route taken and its cost.

    Attributes
    ----------
    classes : dict
        Feature name -> ``"necessary"``, ``"relevant"`` or ``"irrelevant"``, in feature order.
    route : {"tree-polynomial", "sat"}
        What decided: the tree's CXps or AXps found by deletion (no SAT call), or SAT
        calls and enumeration (on a tree: an enumeration that completed within the
        listing's estimated time, or a CXp filter beyond its budget).
    sat_calls : int
        Membership SAT calls made (none on the tree route).
    enumerated : int
        Explanations found by enumeration (on the SAT route, or raced on a large tree).
    reason : str
        Why that route was taken, with the counts and the estimate that decided.
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
    spent = {"queries": costs.BUILD_SECONDS_PER_EDGE * len(xg.edge_src), "enumeration": 0.0}
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


def _axp_before(xg: ExplanationGraph, fixed: list[int], deadline: float) -> list[int] | None:
    """Alg. 2 on the weak AXp ``fixed`` (features freed in that order), or ``None`` once the
    clock (:func:`time.perf_counter`) passes ``deadline``: checked after each feature, so an
    AXp whose deletions explore most of a large tree cannot overrun the listing's time."""
    if time.perf_counter() > deadline:
        return None
    kept_fixed = set(fixed)
    reach = IncrementalReach(xg, [v for v in range(xg.n_vars) if v not in kept_fixed])
    assert not reach.hits_zero  # every tested feature fixed: the instance's own path
    kept: list[int] = []
    for v in fixed:
        if time.perf_counter() > deadline:
            return None
        kept += reach.refuse_each((v,))
    return kept


def _deletion_members(
    xg: ExplanationGraph, members: set[int], deadline: float
) -> tuple[int, bool, float]:
    """Add to ``members`` the features of AXps found by deletion (Alg. 2, no SAT call), the
    undecided features freed last so that each AXp is likely to hold new ones, until every
    tested feature is a member, an AXp brings none, or the clock passes ``deadline``.
    Returns (AXps found, every tested feature a member, mean seconds per AXp)."""
    tested = xg.tested_vars()
    found, seconds = 0, 0.0
    while True:
        undecided = [v for v in tested if v not in members]
        if not undecided:
            return found, True, seconds / max(found, 1)
        start = time.perf_counter()
        axp = _axp_before(xg, [v for v in tested if v in members] + undecided, deadline)
        if axp is None:
            return found, False, seconds / max(found, 1)
        found += 1
        seconds += time.perf_counter() - start
        if members.issuperset(axp):
            return found, False, seconds / found
        members.update(axp)


def _enumerated_members(
    xg: ExplanationGraph, members: set[int], deadline: float, step: float
) -> tuple[int, bool]:
    """Add to ``members`` the features of the explanations MARCO enumerates while the next
    one, expected to take as long as the last (``step`` before the first), would be found
    before the clock passes ``deadline``.  Returns (explanations found, complete)."""
    with Enumerator(xg) as enumerator:
        stream = iter(enumerator)
        while time.perf_counter() + step <= deadline:
            start = time.perf_counter()
            found = next(stream, None)
            if found is None:  # complete: every explanation is known
                break
            members |= xg.indices(found.features)
            step = time.perf_counter() - start
        return len(enumerator.axps) + len(enumerator.cxps), enumerator.complete


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


_ONLY_TREE_AXP = (
    "its necessary features (the singleton CXps) are a weak AXp, by one reachability test (no "
    "SAT call), so the AXp inside them holds only necessary features and is the only AXp "
    "(every AXp holds every necessary feature)"
)


def _tree_classes(
    xg: ExplanationGraph, forced: bool, strategy: Strategy, solver: str
) -> tuple[set[int], set[int], RouteChoice, int, int]:
    """Necessary features and members of a tree XpG.  Within the time the CXp list is
    estimated to take (:func:`listing_seconds`), AXps found by deletion, then, unless
    ``forced`` or the tree is small, enumeration: either may decide every class sooner.
    Then the CXp list (within the filter budget unless ``forced``), and beyond the budget
    the SAT route for the rest.
    Returns (necessary, members, route choice, SAT calls, explanations enumerated)."""
    tested = xg.tested_vars()
    edges = xg.n_edges
    necessary: set[int] | None = None  # on small trees, read off the CXps
    members: set[int] = set()
    found = enumerated = 0
    raced = ""
    if edges >= costs.LIST_FIRST_EDGES:
        necessary = set(tree_singleton_cxps(xg))
        members |= necessary
        if not path_to_zero(xg, [v for v in tested if v not in necessary]):
            reason = f"the explanation graph is a tree: {_ONLY_TREE_AXP}"
            return necessary, necessary, RouteChoice("tree-polynomial", reason), 0, 0
        allowance = listing_seconds(xg)
        deadline = time.perf_counter() + allowance
        estimate = (
            f"the {1000 * allowance:.2f} ms that listing its CXps is estimated to take "
            f"({edges} edges, Prop. 6)"
        )
        found, decided, step = _deletion_members(xg, members, deadline)
        if decided:
            reason = (
                f"the explanation graph is a tree: {found} AXps found by deletion (no SAT "
                f"call) hold every tested feature, within {estimate}"
            )
            return necessary, members, RouteChoice("tree-polynomial", reason), 0, 0
        raced = f"{found} AXps found by deletion"
        if not forced and strategy != "queries" and edges > costs.RACE_EDGES and found:
            enumerated, complete = _enumerated_members(xg, members, deadline, step)
            if complete:
                undecided = sum(1 for v in tested if v not in members)
                reason = (
                    f"the explanation graph is a tree, but after {raced} (no SAT call), "
                    f"enumeration (MARCO) found all {enumerated} explanations within "
                    f"{estimate}; {undecided} tested features are in none"
                )
                return necessary, members, RouteChoice("sat", reason), 0, enumerated
            raced += f" and {enumerated} enumerated"
        raced = f"; {raced} left some features undecided within {estimate}"
    budget = None if forced else filter_budget(xg)
    candidates, cxps = masks.tree_minimal_masks(xg, max_work=budget)
    counts = (
        f"{int((xg.terminal_value == 0).sum())} paths to 0-terminals give "
        f"{candidates} distinct candidate CXps"
    )
    if cxps is None:
        if necessary is None:
            necessary = set(tree_singleton_cxps(xg))
        members, sat_calls, more = _sat_route_members(xg, members | necessary, strategy, solver)
        reason = (
            f"the explanation graph is a tree, but its {counts}, and filtering out their "
            f"supersets needs more than the budget of {budget} work units{raced}; SAT calls "
            "and enumeration decide the rest"
        )
        return necessary, members, RouteChoice("sat", reason), sat_calls, enumerated + more
    union = 0
    for m in cxps:
        union |= m
    reason = f"the explanation graph is a tree: its {counts}, filtered to {len(cxps)} CXps"
    if forced:
        reason = f"route forced by the caller; {reason}"
    if necessary is None:
        necessary = {m.bit_length() - 1 for m in cxps if m.bit_count() == 1}
    members = {v for v in range(xg.n_vars) if union >> v & 1}
    choice = RouteChoice("tree-polynomial", f"{reason} (Prop. 6){raced}")
    return necessary, members, choice, 0, enumerated


def classes_of(
    names: Sequence[str], necessary: set[int], members: set[int]
) -> dict[str, FeatureClass]:
    """Each feature's class from the necessary features and the members (in some
    explanation), in feature order."""
    return {
        name: "necessary" if v in necessary else "relevant" if v in members else "irrelevant"
        for v, name in enumerate(names)
    }


def oracle_feature_classes(oracle: Oracle, necessary: set[int], members: set[int]) -> int:
    """The feature classes over any oracle, filled into ``necessary`` (one question per
    feature: is it a CXp alone?) and ``members`` (the other features found in some
    explanation, by MARCO until every feature is found or the lists are complete); the
    features in neither are irrelevant.  Returns the explanations enumerated.

    Raises
    ------
    OracleTimeout
        When the oracle's deadline passes first (the sets hold what was decided).
    """
    tested = oracle.tested()
    for v in tested:
        oracle.check_deadline()
        if oracle.check_free([v]) is not None:
            necessary.add(v)
    undecided = set(tested) - necessary
    if not undecided:
        return 0
    count = 0
    with Enumerator(oracle) as en:
        for found in en:
            count += 1
            members |= set((en.axp_sets if found.kind == "axp" else en.cxp_sets)[-1]) & undecided
            if members == undecided:
                return count
        if not en.complete:
            raise OracleTimeout
    return count


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
        Force a route (default: the dispatcher; on trees the race against the listing's
        estimated time described in :mod:`xpg.explain.relevance`, elsewhere
        :func:`xpg.membership_route`).  The forced tree route never enumerates.
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
    require_explanation_graph(xg, "classify_features")
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
    classes = classes_of(xg.var_names, necessary, members)
    return FeatureClassification(classes, choice.route, sat_calls, enumerated, choice.reason)
