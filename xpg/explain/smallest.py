"""A smallest AXp and a smallest CXp (minimum cardinality), exactly.

Every AXp hits every CXp and the AXps are the minimal hitting sets of the CXps (and vice
versa).  The implicit hitting-set loop therefore finds a smallest AXp without listing every
CXp: take a minimum-cardinality hitting set ``h`` of the CXps found so far (MaxSAT, RC2
through python-sat's ``Hitman``); if fixing ``h`` keeps the prediction, ``h`` is a smallest
AXp (no AXp can be smaller than a minimum hitting set of some of the CXps); otherwise the
features outside ``h`` are a weak CXp, and a CXp inside them, disjoint from ``h``, joins the
sets to hit.  Each iteration adds a new CXp, so the loop ends.  A smallest CXp is found the
same way with the roles swapped.

On a tree XpG every CXp is known in polynomial time (Prop. 6): a smallest CXp is the
smallest of them, and a smallest AXp is one minimum hitting set of all of them (one MaxSAT
call).

Examples
--------
>>> from xpg.examples import and_xpg
>>> xg = and_xpg()  # a and b, for a = b = 1
>>> result = smallest_axp(xg, method="implicit-hitting-set")
>>> result.features, result.optimal, result.iterations
(('a', 'b'), True, 3)
>>> smallest_cxp(xg).features
('a',)

References
----------
Ignatiev, Narodytska, Asher, Marques-Silva. From Contrastive to Abductive Explanations and
Back Again. AI*IA 2020 (duality); Davies and Bacchus. Solving MAXSAT by Solving a Sequence
of Simpler SAT Instances. CP 2011 (implicit hitting sets); Huang, Izza, Ignatiev,
Marques-Silva. On Efficiently Explaining Graph-Based Classifiers. KR 2021, Prop. 6.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, get_args

from pysat.examples.hitman import Hitman

from xpg.core.validation import Interval, Options, check_param
from xpg.core.xpgraph import ExplanationGraph
from xpg.errors import InvalidQueryError
from xpg.explain.axp_cxp import delete_to_axp, names_of, shrink_weak_cxp
from xpg.explain.graph_oracle import as_oracle
from xpg.explain.marco import ExplanationKind
from xpg.explain.membership import check_kind, membership_route
from xpg.explain.oracle_abc import Oracle
from xpg.explain.tree_xpg import require_tree, tree_cxp_sets

SmallestMethod = Literal["tree-cxps", "implicit-hitting-set"]
METHODS: tuple[str, ...] = get_args(SmallestMethod)


@dataclass(frozen=True)
class SmallestExplanation:
    """A minimum-cardinality explanation and how it was obtained.

    Attributes
    ----------
    kind : {"axp", "cxp"}
    features : tuple of str or None
        The explanation (feature order); ``None`` for a CXp when the prediction cannot change.
    optimal : bool
        True when no explanation of that kind is smaller (False only when an iteration
        budget stopped the search; ``features`` is then the best one found).
    lower_bound : int
        No explanation of that kind has fewer features.
    iterations : int
        Minimum hitting sets computed.
    method : {"tree-cxps", "implicit-hitting-set"}
    seconds : float
    """

    kind: ExplanationKind
    features: tuple[str, ...] | None
    optimal: bool
    lower_bound: int
    iterations: int
    method: SmallestMethod
    seconds: float

    def to_json(self) -> dict[str, Any]:
        """The ``xpg smallest --json`` document (names sorted)."""
        return {
            "kind": self.kind,
            "features": sorted(self.features) if self.features is not None else None,
            "optimal": self.optimal,
            "lower_bound": self.lower_bound,
            "iterations": self.iterations,
            "method": self.method,
            "seconds": self.seconds,
        }


def _check_budget(max_iterations: int | None) -> None:
    check_param(
        "max_iterations", max_iterations, Interval(int, 1, None), None, error=InvalidQueryError
    )


def _choose_method(oracle: Oracle, method: SmallestMethod | None) -> SmallestMethod:
    """The route policy of smallest explanations: the polynomial CXp list of a tree XpG,
    else implicit hitting sets over the oracle."""
    xg: ExplanationGraph | None = getattr(oracle, "explanation_graph", None)
    if method is None:  # the membership dispatcher decides: tree XpG or not
        tree = xg is not None and membership_route(xg).route == "tree-polynomial"
        return "tree-cxps" if tree else "implicit-hitting-set"
    check_param("method", method, Options(METHODS), error=InvalidQueryError)
    if method == "tree-cxps":
        if xg is None:
            raise InvalidQueryError(
                f"method: tree-cxps needs an explanation graph, found the {oracle.route} route"
            )
        require_tree(xg, "the tree-cxps method")
    return method


def implicit_hitting_set(
    dual_of: Callable[[list[int]], list[int] | None],
    best: list[int],
    max_iterations: int | None,
    solver: str,
) -> tuple[list[int], bool, int, int]:
    """Minimum hitting sets of the dual explanations found so far, until one is primal.

    ``dual_of(h)`` returns None when ``h`` is a weak explanation of the primal kind, else a
    dual explanation disjoint from ``h``.  Returns (explanation, optimal, iterations, bound).
    """
    iterations = lower = 0
    with Hitman(htype="sorted", solver=solver) as hitman:
        while max_iterations is None or iterations < max_iterations:
            hs = hitman.get()
            h = sorted(hs) if hs else []
            iterations += 1
            lower = len(h)
            dual = dual_of(h)
            if dual is None:
                return h, True, iterations, lower
            hitman.hit(dual)
    return best, len(best) == lower, iterations, lower


@dataclass
class SmallestProgress:
    """What :func:`smallest_by_hitting_sets` has found so far (to report when a deadline
    stops it): the smallest explanation known, the hitting sets tried and the size of the
    last one (a lower bound on the smallest)."""

    best: list[int] | None = None
    iterations: int = 0
    lower: int = 0


def smallest_by_hitting_sets(
    oracle: Oracle,
    kind: ExplanationKind,
    max_iterations: int | None,
    solver: str,
    progress: SmallestProgress | None = None,
) -> tuple[list[int] | None, bool, int, int]:
    """A minimum-cardinality AXp or CXp over any oracle, by implicit hitting sets: (the
    explanation or None, optimal, iterations, lower bound); ``progress``, when given, is
    kept up to date."""
    state = SmallestProgress() if progress is None else progress
    tested = oracle.tested()
    first = oracle.check_free(tested)
    if first is None:  # the prediction cannot change: the only AXp is empty, no CXp
        return ([] if kind == "axp" else None), True, 0, 0
    if kind == "axp":

        def dual_of(h: list[int]) -> list[int] | None:
            inside = set(h)
            witness = oracle.check_free([v for v in tested if v not in inside])
            return None if witness is None else shrink_weak_cxp(oracle, oracle.changed(witness))

        best = delete_to_axp(oracle, tested)
    else:

        def dual_of(h: list[int]) -> list[int] | None:
            if oracle.check_free(h) is not None:
                return None
            inside = set(h)
            return delete_to_axp(oracle, [v for v in tested if v not in inside])

        best = shrink_weak_cxp(oracle, oracle.changed(first))
    state.best = best

    def counted(h: list[int]) -> list[int] | None:
        state.iterations, state.lower = state.iterations + 1, len(h)
        return dual_of(h)

    return implicit_hitting_set(counted, best, max_iterations, solver)


def _smallest(
    target: ExplanationGraph | Oracle,
    kind: ExplanationKind,
    method: SmallestMethod | None,
    max_iterations: int | None,
    solver: str,
    progress: SmallestProgress | None = None,
) -> SmallestExplanation:
    oracle = as_oracle(target, f"smallest_{kind}")
    check_kind(kind)
    _check_budget(max_iterations)
    chosen = _choose_method(oracle, method)
    start = time.perf_counter()
    result: list[int] | None
    if chosen == "tree-cxps" and oracle.check_free(oracle.tested()) is not None:
        cxps = tree_cxp_sets(oracle.explanation_graph)  # type: ignore[attr-defined]
        if kind == "cxp":
            result, iterations = cxps[0], 0  # smallest first
        else:
            with Hitman(bootstrap_with=cxps, htype="sorted", solver=solver) as hitman:
                result, iterations = sorted(hitman.get()), 1
        optimal, lower = True, len(result)
    else:
        result, optimal, iterations, lower = smallest_by_hitting_sets(
            oracle, kind, max_iterations, solver, progress
        )
    return SmallestExplanation(
        kind=kind,
        features=names_of(oracle, result) if result is not None else None,
        optimal=optimal,
        lower_bound=lower,
        iterations=iterations,
        method=chosen,
        seconds=time.perf_counter() - start,
    )


def smallest_axp(
    target: ExplanationGraph | Oracle,
    *,
    method: SmallestMethod | None = None,
    max_iterations: int | None = None,
    solver: str = "g3",
) -> SmallestExplanation:
    """A minimum-cardinality AXp, by implicit hitting sets over CXps.

    Parameters
    ----------
    target : ExplanationGraph or Oracle
    method : {"tree-cxps", "implicit-hitting-set"}, optional
        Default: ``"tree-cxps"`` on a tree (one minimum hitting set of the polynomial CXp
        list), ``"implicit-hitting-set"`` otherwise.
    max_iterations : int, optional
        Stop after this many minimum hitting sets; the result then says whether it is
        optimal, and gives the best AXp known with a lower bound.
    solver : str
        The SAT solver inside RC2.

    Raises
    ------
    InvalidQueryError
        For an unknown method or a bad budget.
    xpg.errors.NotATreeError
        When ``"tree-cxps"`` is asked for on a graph that is not a tree.
    """
    return _smallest(target, "axp", method, max_iterations, solver)


def smallest_cxp(
    target: ExplanationGraph | Oracle,
    *,
    method: SmallestMethod | None = None,
    max_iterations: int | None = None,
    solver: str = "g3",
) -> SmallestExplanation:
    """A minimum-cardinality CXp (``features`` is None when the prediction cannot change).

    On a tree, the smallest of the polynomial CXp list; otherwise implicit hitting sets over
    AXps.  Parameters as in :func:`smallest_axp`.
    """
    return _smallest(target, "cxp", method, max_iterations, solver)
