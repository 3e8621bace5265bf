"""The oracle of an explanation graph: reachability of a 0-terminal (Alg. 1 of the core paper).

With the features of ``S`` fixed, another class is possible exactly when a 0-terminal is
reachable from the root through the 1-edges and the edges of free features.  A witness is
such a path; the features of its 0-edges are a weak CXp (:meth:`GraphOracle.changed`).  An
AXp by deletion keeps one reachable set that grows as features are freed
(:class:`~xpg.explain.reach.IncrementalReach`), and on graphs of at most
:data:`xpg.core.costs.MASK_EDGES` edges every CXp is read off the graph in one pass
(:meth:`GraphOracle.cxp_masks`).

Examples
--------
>>> from xpg.examples import and_xpg
>>> oracle = GraphOracle(and_xpg())  # a and b, for a = b = 1
>>> oracle.tested(), oracle.check([0, 1]) is None
([0, 1], True)
>>> sorted(oracle.changed(oracle.check_free([0, 1])))
[0]
>>> oracle.deletion([0, 1]).fixed
[0, 1]

>>> from xpg.core.xpgraph import ExplanationGraph
>>> from xpg.examples import and_graph
>>> oracle = GraphOracle(ExplanationGraph.from_decision_graph(and_graph(), {"a": 1, "b": 1}))
>>> oracle.space.n_cells, oracle.check_cells([[1], None])
([2, 2], [1, 0])

References
----------
Huang, Izza, Ignatiev, Marques-Silva. On Efficiently Explaining Graph-Based Classifiers.
KR 2021, Alg. 1 and Props. 2-3.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, cast

import xpg.core.costs as costs
from xpg.core.xpgraph import ExplanationGraph
from xpg.errors import InvalidQueryError, NotAnExplanationGraphError, VerificationError
from xpg.explain.oracle_abc import Deletion, Oracle, refuse_seed
from xpg.explain.reach import IncrementalReach, zero_edge_vars, zero_path, zero_path_masks

if TYPE_CHECKING:
    from xpg.explain.graph_cells import GraphSpace


class GraphOracle(Oracle):
    """The oracle of one explanation graph (polynomial: one reachability pass a question).

    Parameters
    ----------
    xg : ExplanationGraph
    """

    route = "graph"
    axps_first = False

    def __init__(self, xg: ExplanationGraph) -> None:
        self.xg = xg
        self.names = xg.var_names
        self.n_features = xg.n_vars
        self.prediction_label = xg.prediction

    @property
    def explanation_graph(self) -> ExplanationGraph:
        """The graph itself (the graph-only fast paths use it)."""
        return self.xg

    def tested(self) -> list[int]:
        return self.xg.tested_vars()

    def index(self, feature: Any) -> int:
        return self.xg.index(feature)

    def check(self, fixed: Iterable[int], *, solver: bool = True) -> list[int] | None:
        fixed_set = set(fixed)
        return self.check_free([v for v in range(self.n_features) if v not in fixed_set])

    def check_free(self, free: Iterable[int]) -> list[int] | None:
        """A path to a 0-terminal with ``free`` free (edge indices), or None."""
        self.calls += 1
        if self.deadline is not None:
            self.check_deadline()
        return zero_path(self.xg, free)

    def changed(self, witness: Any) -> set[int]:
        return zero_edge_vars(self.xg, witness)

    def deletion(self, fixed: Sequence[int], *, proven: bool = False) -> Deletion:
        return GraphDeletion(self, fixed)

    def cxp_masks(self) -> list[int] | None:
        if self.xg.n_edges > costs.MASK_EDGES:
            return None
        return zero_path_masks(self.xg)

    @property
    def space(self) -> GraphSpace:
        """The cells of every feature and the instance's (built on first use).

        Raises
        ------
        InvalidQueryError
            For a graph read from a ``.xpg`` file (no decision graph, no feature values).
        """
        found: GraphSpace | None = self.__dict__.get("_space")
        if found is None:
            xg = self.xg
            if xg.source is None or xg.instance is None:
                raise InvalidQueryError(
                    "this explanation graph was not built from a decision graph and an "
                    "instance (read from a .xpg file?): its features' values are unknown"
                )
            from xpg.explain.graph_cells import GraphSpace  # value sets: loaded on use

            found = self.__dict__["_space"] = GraphSpace(xg.source, xg.instance)
        return found

    def check_cells(self, allowed: Sequence[Iterable[int] | None]) -> list[int] | None:
        """A choice of cells (one per feature, :attr:`space`) that the graph classifies
        otherwise, the cell of each feature ``i`` among ``allowed[i]`` (None: any), or None
        when there is none.  The cells of a feature need not be consecutive.

        Raises
        ------
        InvalidQueryError
            For a cell that is no cell of its feature, or a graph without feature values.
        OracleTimeout
            Once :attr:`deadline` has passed.
        """
        space = self.space
        self.calls += 1
        if self.deadline is not None:
            self.check_deadline()
        masks = space.masks(allowed)
        check = None if self.deadline is None else self.check_deadline
        path = space.table.other_class_path(masks, self.xg.terminal_value_list, check)
        if path is None:
            return None
        cells = space.witness(masks, path)
        got = space.dg.predict(list(space.values(cells).values()))
        if got == self.prediction_label:
            raise VerificationError(
                f"the graph search proposed {space.values(cells)} as an input of another "
                f"class, but the graph predicts {got!r} for it"
            )
        return cells


class GraphDeletion(Deletion):
    """Deletion over one growing reachable set: freeing a feature explores only what it
    opens, and a refused attempt is undone (Alg. 2 of the core paper, made incremental)."""

    def __init__(self, oracle: GraphOracle, fixed: Sequence[int]) -> None:
        self.oracle = oracle
        xg = oracle.xg
        fixed_set = set(fixed)
        self.reach = IncrementalReach(xg, [v for v in range(xg.n_vars) if v not in fixed_set])
        if self.reach.hits_zero:
            refuse_seed(oracle, fixed_set)
        self._given = list(fixed)

    @property
    def fixed(self) -> list[int]:  # type: ignore[override]
        """The features still fixed, in the order given."""
        free = self.reach.free
        return [v for v in self._given if not free[v]]

    def free_each(self, order: Iterable[int], *, solver: bool = True) -> list[int]:
        self.reach.refuse_each(order)
        return []

    def free_one(self, v: int, *, solver: bool = True) -> list[int] | None:
        if self.reach.free[v]:
            return []
        return [v] if self.reach.try_free(v) else []


def as_oracle(target: object, query: str) -> Oracle:
    """``target`` as an oracle: an :class:`Oracle` itself, or the :class:`GraphOracle` of an
    :class:`ExplanationGraph`.

    Raises
    ------
    NotAnExplanationGraphError
        For anything else, saying what to call instead (:func:`not_a_graph_message`).
    """
    kind = type(target)  # exact types first: an ABC's isinstance costs a microsecond
    if kind is ExplanationGraph:
        return GraphOracle(cast(ExplanationGraph, target))
    if kind is GraphOracle or isinstance(target, Oracle):
        return cast(Oracle, target)
    require_explanation_graph(target, query)
    assert isinstance(target, ExplanationGraph)
    return GraphOracle(target)


def require_explanation_graph(xg: object, query: str) -> None:
    """Refuse anything but an :class:`ExplanationGraph` as the graph of ``query``.

    Raises
    ------
    NotAnExplanationGraphError
        Saying what was found and what to do instead (:func:`not_a_graph_message`).

    Examples
    --------
    >>> require_explanation_graph([0, 1], "find_axp")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    xpg.errors.NotAnExplanationGraphError: find_axp takes an ExplanationGraph (...), found a list...
    """
    if not isinstance(xg, ExplanationGraph):
        raise NotAnExplanationGraphError(not_a_graph_message(xg, query))


#: the method of an explained decision (:class:`~xpg.explain.decision.Decision`) answering each
#: graph query
DECISION_METHODS = {
    "find_axp": "axp()",
    "find_cxp": "cxp()",
    "enumerate_explanations": "enumerate()",
    "Enumerator": "iter_explanations()",
    "tree_axps": "enumerate()",
    "tree_cxps": "enumerate()",
    "is_member": "is_member(feature)",
    "membership_route": "is_member(feature)",
    "classify_features": "classify_features()",
    "smallest_axp": "smallest_axp()",
    "smallest_cxp": "smallest_cxp()",
    "is_weak_axp": "oracle.check(fixed) is None",
    "is_weak_cxp": "oracle.check_free(free) is not None",
    "path_to_zero": "oracle.check_free(free) is not None",
}


def not_a_graph_message(found: object, query: str) -> str:
    """What ``query`` takes, what it was given (``found``), and what to do instead: for a
    model, an estimator, a ``DecisionGraph`` or an explained decision, the one explainer."""
    kind = type(found)
    name, module = kind.__name__, kind.__module__ or ""
    lead = f"{query} takes an ExplanationGraph (the graph of one instance)"
    method = DECISION_METHODS.get(query, "axp()")
    explainer = f"xpg.Explainer(model).explain(instance).{method}"
    if module.startswith("xpg.") and hasattr(found, "is_member") and hasattr(found, "route"):
        return f"{lead}, found {_article(name)} {name}: call its own method, .{method}"
    if module.startswith("sklearn"):
        return (
            f"{lead}, found a scikit-learn {name}: explain it with {explainer} (decision "
            "trees and tree ensembles; for another model, see xpg.probabilistic), or "
            "xpg.explain_many(model, rows) for many rows"
        )
    if module.startswith("xpg.models") or (name == "DecisionGraph" and module.startswith("xpg.")):
        return f"{lead}, found {_article(name)} {name}: use {explainer}"
    return (
        f"{lead}, found {_article(name)} {name}: build it with "
        "xpg.ExplanationGraph.from_decision_graph(dg, instance), read a .xpg file with "
        f"xpg.read_xpg(path), or explain a model with {explainer}"
    )


def _article(name: str) -> str:
    return "an" if name[:1].lower() in "aeiou" else "a"


__all__ = [
    "GraphDeletion",
    "GraphOracle",
    "as_oracle",
    "not_a_graph_message",
    "require_explanation_graph",
]
