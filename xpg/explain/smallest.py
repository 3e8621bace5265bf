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

from xpg.core.xpgraph import ExplanationGraph
from xpg.errors import InvalidQueryError
from xpg.explain.axp_cxp import axp_from_fixed, require_explanation_graph, shrink_weak_cxp
from xpg.explain.marco import ExplanationKind
from xpg.explain.membership import check_kind, membership_route
from xpg.explain.reach import zero_edge_vars, zero_path
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
    if max_iterations is not None and (isinstance(max_iterations, bool) or max_iterations < 1):
        raise InvalidQueryError(
            f"max_iterations: expected a positive integer or None, found {max_iterations!r}"
        )


def _choose_method(xg: ExplanationGraph, method: SmallestMethod | None) -> SmallestMethod:
    if method is None:  # the membership dispatcher decides: tree XpG or not
        tree = membership_route(xg).route == "tree-polynomial"
        return "tree-cxps" if tree else "implicit-hitting-set"
    if method not in METHODS:
        raise InvalidQueryError(f"method: expected one of {', '.join(METHODS)}, found {method!r}")
    if method == "tree-cxps":
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


def _smallest(
    xg: ExplanationGraph,
    kind: ExplanationKind,
    method: SmallestMethod | None,
    max_iterations: int | None,
    solver: str,
) -> SmallestExplanation:
    check_kind(kind)
    _check_budget(max_iterations)
    chosen = _choose_method(xg, method)
    start = time.perf_counter()
    tested = xg.tested_vars()
    first_path = zero_path(xg, tested)
    result: list[int] | None
    if first_path is None:  # the only AXp is empty; there is no CXp
        result, optimal, iterations, lower = ([] if kind == "axp" else None), True, 0, 0
    elif chosen == "tree-cxps":
        cxps = tree_cxp_sets(xg)
        if kind == "cxp":
            result, iterations = cxps[0], 0  # smallest first
        else:
            with Hitman(bootstrap_with=cxps, htype="sorted", solver=solver) as hitman:
                result, iterations = sorted(hitman.get()), 1
        optimal, lower = True, len(result)
    elif kind == "axp":

        def cxp_outside(h: list[int]) -> list[int] | None:
            inside = set(h)
            path = zero_path(xg, [v for v in tested if v not in inside])
            return None if path is None else shrink_weak_cxp(xg, zero_edge_vars(xg, path))

        best = axp_from_fixed(xg, tested)
        result, optimal, iterations, lower = implicit_hitting_set(
            cxp_outside, best, max_iterations, solver
        )
    else:

        def axp_outside(h: list[int]) -> list[int] | None:
            inside = set(h)
            if zero_path(xg, h) is not None:
                return None
            return axp_from_fixed(xg, [v for v in tested if v not in inside])

        best = shrink_weak_cxp(xg, zero_edge_vars(xg, first_path))
        result, optimal, iterations, lower = implicit_hitting_set(
            axp_outside, best, max_iterations, solver
        )
    return SmallestExplanation(
        kind=kind,
        features=xg.names(result) if result is not None else None,
        optimal=optimal,
        lower_bound=lower,
        iterations=iterations,
        method=chosen,
        seconds=time.perf_counter() - start,
    )


def smallest_axp(
    xg: ExplanationGraph,
    *,
    method: SmallestMethod | None = None,
    max_iterations: int | None = None,
    solver: str = "g3",
) -> SmallestExplanation:
    """A minimum-cardinality AXp, by implicit hitting sets over CXps.

    Parameters
    ----------
    xg : ExplanationGraph
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
    require_explanation_graph(xg, "smallest_axp")
    return _smallest(xg, "axp", method, max_iterations, solver)


def smallest_cxp(
    xg: ExplanationGraph,
    *,
    method: SmallestMethod | None = None,
    max_iterations: int | None = None,
    solver: str = "g3",
) -> SmallestExplanation:
    """A minimum-cardinality CXp (``features`` is None when the prediction cannot change).

    On a tree, the smallest of the polynomial CXp list; otherwise implicit hitting sets over
    AXps.  Parameters as in :func:`smallest_axp`.
    """
    require_explanation_graph(xg, "smallest_cxp")
    return _smallest(xg, "cxp", method, max_iterations, solver)
