"""One explainer for every model: ``Explainer(model).explain(instance)``.

:class:`Explainer` takes any model of the registry, a compiled
:class:`~xpg.core.graph.DecisionGraph` or a fitted scikit-learn tree or tree ensemble, and
decides once how its decisions are explained (the route policy, :func:`plan_route`): a model
that compiles into a decision graph within its budget is explained over the explanation
graph of each instance (polynomial queries, and the graph-only fast paths); a tree ensemble,
a decision list beyond its compile budget, or a kind that brings its own oracle
(``explanation_oracle``, docs/model-kinds.md) over an :class:`~xpg.explain.oracle_abc.Oracle`.
:meth:`Explainer.explain` returns a :class:`Decision`, whose queries are the same whatever
answers them: ``axp()``, ``cxp()``, ``enumerate()``, ``is_member()``,
``classify_features()``, ``smallest_axp()``, ``smallest_cxp()``, ``robustness()``.

Examples
--------
>>> from xpg.examples import AGE, CREDIT, INCOME, STUDENT, paper_figure1
>>> x = {AGE: "O", INCOME: "L", STUDENT: "Y", CREDIT: "P"}
>>> with Explainer(paper_figure1()).explain(x) as decision:
...     decision.route, decision.prediction, decision.axp(), decision.is_member(INCOME).member
('graph', 'T', ('Age', 'Credit Rating'), False)

References
----------
Huang, Izza, Ignatiev, Marques-Silva. On Efficiently Explaining Graph-Based Classifiers.
KR 2021; Izza, Marques-Silva. On Explaining Random Forests with SAT. IJCAI 2021.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, get_args

from xpg.core.validation import Interval, Options, check_param
from xpg.errors import InvalidQueryError
from xpg.explain.decision import Decision, QueryTimeout
from xpg.explain.oracle_abc import Oracle

if TYPE_CHECKING:
    from xpg.core.graph import DecisionGraph
    from xpg.explain.exact_robustness import Robustness

Route = Literal["auto", "graph", "sat", "smt"]
ROUTES: tuple[str, ...] = get_args(Route)


class Explainer:
    """The explanations of a model's decisions, whatever the model.

    Parameters
    ----------
    model : model, DecisionGraph or trained classifier
        Any kind of :mod:`xpg.models` (``xpg.read_model``), a compiled decision graph, or a
        trained classifier of another library: a scikit-learn decision tree, random forest,
        extra trees or gradient boosting classifier (converted by the importers), or
        anything else :func:`xpg.import_model` reads (XGBoost and LightGBM boosters and
        classifiers, ``HistGradientBoostingClassifier``, a ``Pipeline``).
    features : sequence of Feature, optional
        The features of such a classifier (default: its own names, or ``x0, x1, ...``, as
        reals).
    route : {"auto", "graph", "sat", "smt"}
        ``"auto"``: the route policy of :func:`plan_route`; ``"graph"`` compiles the model;
        ``"sat"`` and ``"smt"`` explain a tree ensemble over its oracle (vote as a
        pseudo-Boolean or a linear real constraint), ``"sat"`` a decision list over its SAT
        oracle.
    budget : int, optional
        The compile budget of a model that may not compile (tree ensembles: diagram edges;
        decision lists: diagram nodes); beyond it its oracle explains it.
    groups : sequence of Feature or FeatureGroup, optional
        For a tree ensemble: explained features over the model's columns (one-hot or binned
        columns as one feature); oracle routes only.
    shortcuts : bool
        A tree ensemble oracle's cheap decisions before its solver.
    many : bool
        Many decisions will be explained (:meth:`explain_many`, ``xpg explain --data``): a
        tree ensemble is compiled when it fits its budget, its cost shared by the rows.

    Examples
    --------
    >>> from xpg.examples import paper_figure2
    >>> explainer = Explainer(paper_figure2())
    >>> decision = explainer.explain([0, 1, 2])
    >>> decision.prediction, decision.axp(), decision.enumerate().cxps
    ('R', ('x1',), [('x1',)])
    """

    def __init__(
        self,
        model: Any,
        features: Sequence[Any] | None = None,
        *,
        route: Route = "auto",
        budget: int | None = None,
        groups: Sequence[Any] | None = None,
        shortcuts: bool = True,
        many: bool = False,
    ) -> None:
        check_param("route", route, Options(ROUTES), error=InvalidQueryError)
        check_param("budget", budget, Interval(int, 1, None), None, error=InvalidQueryError)
        self.model = as_model(model, features)
        self.groups = None if groups is None else list(groups)
        self.shortcuts = shortcuts
        plan = plan_route(self.model, route, budget, self.groups, many)
        self.graph, self._make_oracle = plan.graph, plan.make_oracle
        #: the route of every decision ("graph", or the oracle's route)
        self.route = plan.route

    @property
    def features(self) -> list[Any]:
        """The model's features."""
        return list(self.model.features)

    def explain(self, instance: Any) -> Decision:
        """The explanations of the model's decision on ``instance`` (a mapping from feature
        names to values, the values in feature order, or a one-row table).

        Raises
        ------
        InvalidInstanceError
            For a missing, unknown or out-of-domain value.
        """
        if self.graph is not None:
            from xpg.core.xpgraph import ExplanationGraph
            from xpg.explain.graph_oracle import GraphOracle

            dg = self.graph
            values = dg.instance_values(instance)
            point = {f.name: v for f, v in zip(dg.features, values, strict=True)}
            oracle: Oracle = GraphOracle(ExplanationGraph.from_decision_graph(dg, point))
            return Decision(
                oracle, model=self.model, instance=point, robustness=self._graph_robustness(point)
            )
        assert self._make_oracle is not None
        made = self._make_oracle(self.model, instance, self.groups, self.shortcuts)
        known: dict[str, Any] | None = getattr(made, "instance_values", None)
        if known is None:  # an oracle of the kind's own
            from xpg.core.instances import instance_dict

            known = instance_dict(self.model.features, instance)
        return Decision(
            made,
            model=self.model,
            instance=known,
            robustness=_oracle_robustness(made) if self.supports("robustness") else None,
        )

    def _graph_robustness(self, point: dict[str, Any]) -> Callable[..., Robustness]:
        def answer(*, radius: float | None = None) -> Robustness:
            from xpg.explain.exact_robustness import robustness

            return robustness(self.model, point, radius=radius, graph=self.graph)

        return answer

    def supports(self, query: str) -> bool:
        """True when ``query`` (a method of :class:`Decision`, or ``"compile"``) is answered
        for this model's decisions: ``robustness`` needs a graph or a cell oracle;
        ``compile`` (drawing, exporting a graph), a compiled graph."""
        if query == "compile":
            return self.graph is not None
        if query == "robustness":
            return self.graph is not None or self.route in _CELL_ROUTES
        return True

    def explain_many(self, rows: Any, **options: Any) -> Iterator[dict[str, Any]]:
        """One record per row of a table, lazily (a pandas DataFrame or a numpy array with the
        model's features as columns, a list of dicts):
        :func:`~xpg.explain.batch.explain_many` with this model; ``options`` as there
        (``kinds``, ``limit``, ``timeout``, ``target``).

        Examples
        --------
        >>> from xpg.examples import and_graph
        >>> [r["axps"] for r in Explainer(and_graph()).explain_many([[1, 1], [0, 1]])]
        [[['a', 'b']], [['a']]]
        """
        from xpg.explain.batch import explain_rows

        return explain_rows(self, rows, **options)

    def __repr__(self) -> str:
        return f"Explainer({type(self.model).__name__}, route={self.route!r})"


#: the oracle routes whose oracle asks about cells of values (exact robustness over them)
_CELL_ROUTES = ("sat-pb", "smt-lra", "list-sat")

OracleFactory = Callable[[Any, Any, "list[Any] | None", bool], Oracle]


class Plan(NamedTuple):
    """How a model's decisions are explained: its compiled ``graph``, or ``make_oracle(model,
    instance, groups, shortcuts)`` (a module-level function, so that an explainer pickles);
    and the ``route`` its decisions report."""

    graph: DecisionGraph | None
    make_oracle: OracleFactory | None
    route: str


def as_model(model: Any, features: Sequence[Any] | None = None) -> Any:
    """``model`` as an xpg model: itself for a model or a decision graph; a scikit-learn
    decision tree through its compiler; any other trained classifier that
    :func:`xpg.import_model` reads (XGBoost or LightGBM boosters and classifiers,
    scikit-learn forests, boosting and pipelines) through it.

    Raises
    ------
    InvalidModelError
        For anything else, saying what is accepted.
    """
    from xpg.core.library_predict import library_class
    from xpg.errors import InvalidModelError

    # a subclass is read as its library's class (and refused there if it predicts otherwise)
    known = library_class(model) or type(model)
    library, name = (known.__module__ or "").split(".")[0], known.__name__
    if library == "sklearn" and name in ("DecisionTreeClassifier", "ExtraTreeClassifier"):
        from xpg.compile.sklearn_tree import from_sklearn_tree

        return from_sklearn_tree(model, features)
    if library in ("xgboost", "lightgbm") or name in _IMPORTED_SKLEARN and library == "sklearn":
        from xpg.learn.importing import import_model

        return import_model(model, features)
    if library == "sklearn":
        from xpg.models.ensemble_import import ensemble_from_sklearn

        return ensemble_from_sklearn(model, features)
    if features is not None:
        raise InvalidModelError(
            "features: only a scikit-learn estimator or another library's classifier takes "
            "them (an xpg model declares its own)"
        )
    if callable(getattr(model, "predict", None)) and hasattr(model, "features"):
        return model
    raise InvalidModelError(
        f"expected an xpg model (xpg.read_model), a DecisionGraph, or a trained classifier "
        f"xpg.import_model reads (XGBoost, LightGBM, scikit-learn trees, forests, boosting, "
        f"pipelines), found {type(model).__name__}"
    )


#: scikit-learn classes :func:`as_model` reads through :func:`xpg.import_model`
_IMPORTED_SKLEARN = ("HistGradientBoostingClassifier", "Pipeline")


def plan_route(
    model: Any,
    route: Route,
    budget: int | None = None,
    groups: Sequence[Any] | None = None,
    many: bool = False,
) -> Plan:
    """The route policy, in one place: the compiled graph of ``model``, or the factory of the
    oracle of each of its decisions.

    * a kind with ``explanation_oracle(instance)`` (an oracle-only kind) is never compiled;
    * a tree ensemble: its oracle (``"sat"``, or ``"smt"``), or with ``"graph"`` its
      compiled graph (small ensembles; ``budget`` in diagram edges); ``"auto"`` takes the
      oracle, but for ``many`` decisions (the compilation's cost shared) the graph when it
      fits the budget (trying costs up to seconds);
    * a decision list: its graph within the compile budget, else (or with ``"sat"``) its
      SAT oracle;
    * any other model: its decision graph (``to_decision_graph()``).
    """
    from xpg.models.decision_list import DecisionList
    from xpg.models.ensemble import TreeEnsemble

    own = getattr(model, "explanation_oracle", None)
    if callable(own):
        if route == "graph":
            raise InvalidQueryError(
                f"route 'graph': a {type(model).__name__} is explained by its own oracle, "
                "never compiled"
            )
        return Plan(None, _own_oracle, "oracle")
    if isinstance(model, TreeEnsemble):
        if route == "auto" and many and groups is None:
            from xpg.errors import GraphTooLargeError

            try:
                return _graph_plan(model, budget)
            except GraphTooLargeError:
                _prepare_ensemble(model, groups)
                return Plan(None, _ensemble_oracle, "sat-pb")
        if route == "graph":
            if groups is not None:
                raise InvalidQueryError(
                    "the graph route explains the model's own features: feature groups need "
                    "the sat or smt route"
                )
            return _graph_plan(model, budget)
        _prepare_ensemble(model, groups)
        if route == "smt":
            return Plan(None, _ensemble_smt_oracle, "smt-lra")
        return Plan(None, _ensemble_oracle, "sat-pb")
    if groups is not None:
        raise InvalidQueryError("groups: only a tree ensemble's oracle routes take them")
    if route == "smt" or (route == "sat" and not isinstance(model, DecisionList)):
        raise InvalidQueryError(
            f"route {route!r}: a {type(model).__name__} has no such oracle (tree ensembles; "
            "'sat' also decision lists); its route is 'graph'"
        )
    if isinstance(model, DecisionList) and route == "sat":
        return Plan(None, _list_oracle, "list-sat")
    if isinstance(model, DecisionList) and route == "auto":
        from xpg.errors import GraphTooLargeError

        try:
            return _graph_plan(model, budget)
        except GraphTooLargeError:
            return Plan(None, _list_oracle, "list-sat")
    return _graph_plan(model, budget)


def _graph_plan(model: Any, budget: int | None) -> Plan:
    return Plan(_compiled(model, budget), None, "graph")


def _compiled(model: Any, budget: int | None) -> DecisionGraph:
    """The model's decision graph (within ``budget``, for a kind whose compiler takes one;
    the others compile whole); a compiler's output is validated (Def. 2), a graph given as
    the model is taken as it is."""
    from xpg.core.graph import DecisionGraph

    if isinstance(model, DecisionGraph):
        return model
    if budget is None or budget_parameter(model) is None:
        dg: DecisionGraph = model.to_decision_graph()
    else:
        dg = model.to_decision_graph(budget)
    dg.validate()
    return dg


def budget_parameter(model: Any) -> Any:
    """The ``budget`` parameter of ``model.to_decision_graph`` (an ``inspect.Parameter``,
    whose ``default`` is the kind's default budget), or None when its compiler takes none
    or the kind is never compiled.

    Examples
    --------
    >>> from xpg.examples import paper_figure2
    >>> budget_parameter(paper_figure2()) is None
    True
    """
    import inspect

    try:
        return inspect.signature(model.to_decision_graph).parameters.get("budget")
    except (AttributeError, TypeError, ValueError):
        return None


def _own_oracle(model: Any, instance: Any, groups: Any, shortcuts: bool) -> Oracle:
    found: Oracle = model.explanation_oracle(instance)
    return found


def _ensemble_oracle(model: Any, instance: Any, groups: Any, shortcuts: bool) -> Oracle:
    return _cell_oracle(model, instance, groups, shortcuts, "pb")


def _ensemble_smt_oracle(model: Any, instance: Any, groups: Any, shortcuts: bool) -> Oracle:
    return _cell_oracle(model, instance, groups, shortcuts, "lra")


def _cell_oracle(model: Any, instance: Any, groups: Any, shortcuts: bool, backend: str) -> Oracle:
    """A tree ensemble's decision: with ``shortcuts`` and a kind that asks for it
    (``quick_deletion``), its AXp's questions first over the leaf table
    (:class:`~xpg.explain.ensemble.quick.QuickOracle`), else every question to the full
    oracle (with its own shortcuts when ``shortcuts``)."""
    from xpg.explain.ensemble.oracle import EnsembleOracle
    from xpg.explain.ensemble.quick import QuickOracle
    from xpg.explain.ensemble.space import CellSpace

    space = CellSpace(model, instance, groups)
    if shortcuts and model.quick_deletion:
        return QuickOracle(space, backend)
    return EnsembleOracle(space, backend, shortcuts=shortcuts)  # type: ignore[arg-type]


def _prepare_ensemble(model: Any, groups: Sequence[Any] | None) -> None:
    """What every decision of a tree ensemble reads, made with the explainer (as a model is
    loaded): the cells, the leaf table, each class's vote, the model's arrays that classify
    cells, and the oracle's modules."""
    import importlib

    import numpy as np

    from xpg.errors import XpgError
    from xpg.explain.ensemble.quick import cell_allowed, padded
    from xpg.explain.ensemble.space import cell_layout

    for name in ("leaf_search", "oracle", "z3_encoding"):
        importlib.import_module(f"xpg.explain.ensemble.{name}")
    try:
        layout = cell_layout(model, groups)
    except XpgError:
        return  # bad groups: each decision says so
    if model.quick_deletion:  # the tables of QuickOracle
        for p in range(len(model.classes)):
            padded(layout, p)
        cell_allowed(layout)
    # the model's own arrays for classifying cells (one choice of cells: each feature's first)
    cells = np.zeros((1, len(layout.n_cells)), dtype=np.int64)
    model.classes_of_scores(model.scores_of_leaves(layout.leaf_indices(cells)))


def _list_oracle(model: Any, instance: Any, groups: Any, shortcuts: bool) -> Oracle:
    from xpg.explain.list_oracle import DecisionListOracle, ListSpace

    return DecisionListOracle(ListSpace(model, instance))


def _oracle_robustness(oracle: Oracle) -> Callable[..., Robustness]:
    def answer(*, radius: float | None = None) -> Robustness:
        from xpg.explain.oracle_robustness import oracle_robustness

        return oracle_robustness(oracle, radius=radius)

    return answer


def explain_many(
    model: Any,
    rows: Any,
    *,
    kinds: str | Iterable[str] = ("axp", "cxp"),
    limit: int | None = 100,
    timeout: float | str | None = "auto",
    target: str | None = None,
    start: int = 0,
) -> Iterator[dict[str, Any]]:
    """One record per row, lazily: ``Explainer(model, many=True).explain_many(rows)`` (the
    model is compiled once when it fits its budget; see
    :class:`~xpg.explain.batch.BatchExplainer`).

    Parameters
    ----------
    model : model, DecisionGraph or fitted scikit-learn estimator
        As for :class:`Explainer`.
    rows : pandas DataFrame, numpy array, or iterable of mappings or of value sequences
        A ``DataFrame`` indexed by unique integers (a ``RangeIndex``, a slice of one) has its
        rows numbered by its index; any other index (text, dates, floats, repeated values)
        numbers them by position, ``start``, ``start + 1``..., each record keeping the row's
        index value as ``"index"`` (after ``"row"``).  Other rows are numbered ``start``,
        ``start + 1``...; a row that is no row (a number, None, text) gets an error record
        and the rows after it are explained.  Values are converted to each feature's domain
        (numpy and pandas scalars, text; ``True`` only for a boolean feature).
    kinds : str or iterable of str
        Some of ``"axp"``, ``"cxp"`` (the explanation lists), ``"conditions"``, ``"features"``
        (necessary, relevant and irrelevant features), ``"robustness"`` (the exact
        l-infinity distance to another class, with a counterexample), ``"attribution"``
        (each feature's share of the AXps) and ``"inflated"`` (each AXp's features widened
        to the largest value sets that keep it sufficient); see :mod:`xpg.explain.batch`.
    limit : int or None
        The most explanations listed per row (AXps and CXps together): default 100; None
        lists every one.
    timeout : float, None or "auto"
        The most seconds per row: ``"auto"`` (the default) is 10 on an oracle route and no
        limit for a compiled graph; None: no limit.  A row that reaches its budget has
        ``"complete": false``.
    target : str, optional
        Column copied as ``"label"`` (as text) when the row has it.

    start : int
        The number of the first row (from 0 up).

    Returns
    -------
    iterator of dict
        ``{"row", "prediction", ["label"], "axps", "cxps", "complete", "seconds"}`` or
        ``{"row", "error"}`` for a row that cannot be explained, made as they are asked for.

    Raises
    ------
    InvalidQueryError, InvalidParameterError
        At the call (not at the first record): unknown kinds, a bad limit, timeout or start,
        ``rows`` that is no table.

    Examples
    --------
    >>> import pandas as pd
    >>> from xpg.examples import and_graph
    >>> frame = pd.DataFrame({"a": [1, 1], "b": [1.0, float("nan")], "y": ["1", "0"]})
    >>> records = list(explain_many(and_graph(), frame, kinds="axp", target="y"))
    >>> records[0]["axps"], records[0]["label"], records[1]["error"]
    ([['a', 'b']], '1', "feature 'b': missing value (NaN or empty)")
    """
    from xpg.explain.batch import parse_kinds

    parse_kinds(kinds)  # before the model is compiled (the other options: once it is)
    explainer = Explainer(model, many=True)
    options = {"kinds": kinds, "limit": limit, "timeout": timeout, "target": target}
    return explainer.explain_many(rows, start=start, **options)


__all__ = [
    "ROUTES",
    "Decision",
    "Explainer",
    "Plan",
    "QueryTimeout",
    "budget_parameter",
    "explain_many",
    "plan_route",
]
