"""Exact explanations of one decision of a tree ensemble: :class:`EnsembleExplainer`.

The queries and their answers are those of decision graphs (the same result classes:
:class:`~xpg.explain.marco.EnumerationResult`, :class:`~xpg.explain.membership.Membership`,
:class:`~xpg.explain.relevance.FeatureClassification`,
:class:`~xpg.explain.smallest.SmallestExplanation`); what answers them is the *route*:

* ``"sat"`` (reported ``"sat-pb"``, the default of ``"auto"``): the incremental oracle of
  :mod:`xpg.explain.ensemble.oracle` with the vote as a pseudo-Boolean constraint;
* ``"smt"`` (reported ``"smt-lra"``): the same oracle with the vote in linear real arithmetic
  over exact rationals;
* ``"graph"``: the ensemble compiled into a decision graph
  (:meth:`~xpg.models.ensemble.TreeEnsemble.to_decision_graph`, small ensembles only) and
  the explanation-graph algorithms of :mod:`xpg.explain`.

All routes give the same explanations (the tests check it); they differ in cost.

The queries themselves live in :class:`OracleExplainer`, written over any oracle with the
interface of :class:`~xpg.explain.ensemble.queries.Oracle`;
:class:`~xpg.explain.list_oracle.DecisionListExplainer` is the other one (decision lists too
large to compile).  On the oracle routes, ``timeout`` (seconds) bounds a membership query,
the feature classes and a smallest explanation: past it :class:`QueryTimeout` is raised,
holding what was decided (``partial``).

Examples
--------
>>> from sklearn.datasets import load_iris
>>> from sklearn.ensemble import RandomForestClassifier
>>> from xpg.models.ensemble import ensemble_from_sklearn
>>> X, y = load_iris(return_X_y=True)
>>> rf = RandomForestClassifier(n_estimators=10, max_depth=3, random_state=0).fit(X, y)
>>> model = ensemble_from_sklearn(rf)
>>> with EnsembleExplainer(model, list(X[0])) as ex:
...     ex.route, ex.prediction, ex.find_axp(), ex.find_cxp()
('sat-pb', 0, ('x3',), ('x3',))

References
----------
Izza, Marques-Silva. On Explaining Random Forests with SAT. IJCAI 2021; Huang, Izza,
Ignatiev, Marques-Silva. On Efficiently Explaining Graph-Based Classifiers. KR 2021.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, get_args

from xpg.errors import InvalidQueryError
from xpg.explain.ensemble.oracle import ROUTE_OF, Backend, EnsembleOracle
from xpg.explain.ensemble.queries import (
    EnsembleEnumerator,
    Oracle,
    SmallestProgress,
    as_names,
    axp_from_fixed,
    cxp_containing,
    cxp_from_free,
    first_member_witness,
    index_of,
    members_by_enumeration,
    smallest_explanation,
    tested,
)
from xpg.explain.ensemble.space import CellSpace
from xpg.explain.marco import EnumerationResult, ExplanationKind
from xpg.explain.membership import Membership, check_kind
from xpg.explain.oracle_abc import OracleTimeout
from xpg.explain.relevance import FeatureClassification
from xpg.explain.smallest import SmallestExplanation
from xpg.solvers.lifecycle import SolverOwner

if TYPE_CHECKING:
    from xpg.core.feature_space import FeatureGroup
    from xpg.core.features import Feature
    from xpg.core.xpgraph import ExplanationGraph
    from xpg.models.ensemble import TreeEnsemble

EnsembleRoute = Literal["auto", "sat", "smt", "graph"]
ROUTES: tuple[str, ...] = get_args(EnsembleRoute)
Seed = Sequence[str] | None


class QueryTimeout(TimeoutError):
    """A query of an :class:`OracleExplainer` ran past its ``timeout``.

    Attributes
    ----------
    seconds : float
        The time budget that was reached.
    partial : object
        What was decided before: for the feature classes, a dict of feature lists
        (``"necessary"``, ``"relevant"``, ``"irrelevant"``, ``"undecided"``); for a smallest
        explanation, a :class:`~xpg.explain.smallest.SmallestExplanation` (``optimal``
        False, the best found, or None when none was found); for membership, None.

    Examples
    --------
    >>> from xpg.core.features import Feature, Literal
    >>> from xpg.explain.list_oracle import DecisionListExplainer
    >>> from xpg.models.decision_list import DecisionList, Rule
    >>> dl = DecisionList([Feature.boolean("a"), Feature.boolean("b")], [0, 1],
    ...                   [Rule([Literal.eq("a", 1), Literal.eq("b", 1)], 1)], 0)
    >>> with DecisionListExplainer(dl, {"a": 1, "b": 1}) as ex:
    ...     try:
    ...         ex.classify_features(timeout=0)  # a budget already spent
    ...     except QueryTimeout as err:
    ...         print(err, err.partial["undecided"])
    the features' classes undecided after 0 s (2 of 2 features left) ['a', 'b']
    """

    def __init__(self, message: str, seconds: float, partial: Any = None) -> None:
        super().__init__(message)
        self.seconds = seconds
        self.partial = partial


def _spent(timeout: float | None) -> str:
    """The time budget that ran out, as text."""
    return "the oracle's deadline" if timeout is None else f"{timeout:g} s"


class OracleExplainer(SolverOwner):
    """The queries of one instance, over an oracle ("with these features fixed, can another
    class be predicted?", :class:`~xpg.explain.ensemble.queries.Oracle`) or over an
    explanation graph; a subclass makes one or the other (:class:`EnsembleExplainer`,
    :class:`~xpg.explain.list_oracle.DecisionListExplainer`).  Use it as a context manager:
    it owns its solvers.

    Attributes
    ----------
    route : str
        The route used.
    prediction
        The model's class for the instance.
    features : list of str
        The explained features' names.
    """

    closed_message = "this explainer is closed"
    route: str
    prediction: Any
    features: list[str]
    _xg: ExplanationGraph | None = None
    _oracle: Any = None

    def _release(self) -> None:
        if self._oracle is not None:
            self._oracle.close()

    @property
    def oracle(self) -> Any:
        """The oracle of the sat and smt routes."""
        self._check_open()
        if self._oracle is None:
            raise InvalidQueryError("the graph route has no oracle")
        return self._oracle

    @property
    def explanation_graph(self) -> ExplanationGraph:
        """The explanation graph of the graph route."""
        self._check_open()
        if self._xg is None:
            raise InvalidQueryError(f"the {self.route} route has no explanation graph")
        return self._xg

    def _indices(self, seed: Seed) -> list[int]:
        return sorted({index_of(self.oracle, f) for f in seed or ()})

    @contextlib.contextmanager
    def _deadline(self, timeout: float | None) -> Iterator[None]:
        """The oracle's deadline ``timeout`` seconds from now, inside the block."""
        from xpg.explain.marco import _checked_timeout

        timeout = _checked_timeout(timeout)
        oracle: Oracle = self.oracle
        before = oracle.deadline
        if timeout is not None:
            oracle.deadline = time.perf_counter() + timeout
        try:
            yield
        finally:
            oracle.deadline = before

    @staticmethod
    def _passed(oracle: Oracle) -> None:
        """Raise :class:`OracleTimeout` once the oracle's deadline has passed (between
        questions: a question answered without its solver never looks at the clock)."""
        if oracle.deadline is not None and time.perf_counter() >= oracle.deadline:
            raise OracleTimeout

    # -- one explanation -------------------------------------------------------------------------
    def find_axp(self, seed: Seed = None) -> tuple[str, ...]:
        """One AXp (feature names in feature order), by deletion from ``seed`` (a weak AXp;
        default every feature).

        Raises
        ------
        InvalidSeedError
            When the seed is not a weak AXp.
        InvalidFeatureError
            For an unknown feature name.
        """
        self._check_open()
        if self._xg is not None:
            from xpg.explain.axp_cxp import find_axp

            return find_axp(self._xg, seed=None if seed is None else list(seed))
        oracle = self.oracle
        fixed = tested(oracle) if seed is None else self._indices(seed)
        return as_names(oracle, axp_from_fixed(oracle, fixed))

    def find_cxp(self, seed: Seed = None) -> tuple[str, ...] | None:
        """One CXp (feature order), or None when the prediction cannot change; by deletion
        from ``seed`` (a weak CXp; default every feature).

        Raises
        ------
        InvalidSeedError
            When a seed is given that is not a weak CXp.
        """
        self._check_open()
        if self._xg is not None:
            from xpg.explain.axp_cxp import find_cxp

            return find_cxp(self._xg, seed=None if seed is None else list(seed))
        oracle = self.oracle
        if seed is None:
            if oracle.check([]) is None:
                return None
            free = tested(oracle)
        else:
            free = self._indices(seed)
        return as_names(oracle, cxp_from_free(oracle, free))

    # -- all of them -----------------------------------------------------------------------------
    def enumerate(
        self, limit: int | None = None, timeout: float | None = None
    ) -> EnumerationResult:
        """Every AXp and CXp within the budget (MARCO); ``complete`` says whether the lists
        are whole."""
        self._check_open()
        if self._xg is not None:
            from xpg.explain.marco import enumerate_explanations

            return enumerate_explanations(self._xg, limit=limit, timeout=timeout)
        with EnsembleEnumerator(self.oracle, limit=limit, timeout=timeout) as en:
            for _ in en:
                pass
            return EnumerationResult(en.axps, en.cxps, en.complete, en.seconds, en.sat_calls)

    def iter_explanations(
        self, limit: int | None = None, timeout: float | None = None
    ) -> EnsembleEnumerator:
        """The enumeration as a stream (an :class:`EnsembleEnumerator`, a context manager);
        sat and smt routes only."""
        return EnsembleEnumerator(self.oracle, limit=limit, timeout=timeout)

    # -- membership, classes, smallest -----------------------------------------------------------
    def is_member(
        self, feature: str, kind: ExplanationKind = "axp", *, timeout: float | None = None
    ) -> Membership:
        """Is ``feature`` in some AXp (``kind="axp"``) or some CXp?  With a witness.

        A feature whose freeing alone changes the class is in every AXp (one question);
        otherwise MARCO runs until an explanation holding it appears or the lists are
        complete.  ``route`` is the explainer's; ``reason`` says which of the two decided.

        Raises
        ------
        QueryTimeout
            When ``timeout`` seconds (oracle routes) pass before the answer.
        """
        self._check_open()
        check_kind(kind)
        if self._xg is not None:
            from xpg.explain.membership import is_member

            answer = is_member(self._xg, feature, kind)
            return Membership(
                answer.feature,
                kind,
                answer.member,
                self.route,  # type: ignore[arg-type]
                answer.witness,
                answer.sat_calls,
                f"graph route: {answer.route}: {answer.reason}",
            )
        oracle = self.oracle
        i = index_of(oracle, feature)
        before = oracle.calls
        witness: list[int] | None
        try:
            with self._deadline(timeout):
                if oracle.space.n_cells[i] <= 1:
                    witness, reason = None, "the model does not tell the feature's values apart"
                elif oracle.check([v for v in range(oracle.n_features) if v != i]) is not None:
                    witness = [i] if kind == "cxp" else axp_from_fixed(oracle, tested(oracle))
                    reason = "freeing the feature alone changes the class: it is in every AXp"
                else:
                    with EnsembleEnumerator(oracle) as en:
                        witness, count = first_member_witness(en, i, kind)
                        if witness is None and not en.complete:
                            raise OracleTimeout
                    reason = (
                        f"enumeration (MARCO) until an explanation holding the feature "
                        f"appeared ({count} explanations)"
                        if witness is not None
                        else f"complete enumeration (MARCO, {count} explanations) holds it nowhere"
                    )
        except OracleTimeout:
            raise QueryTimeout(
                f"membership of {oracle.space.names[i]!r} undecided after {_spent(timeout)}",
                float(timeout or 0.0),
            ) from None
        return Membership(
            feature=oracle.space.names[i],
            kind=kind,
            member=witness is not None,
            route=self.route,  # type: ignore[arg-type]
            witness=as_names(oracle, witness) if witness is not None else None,
            sat_calls=oracle.calls - before,
            reason=reason,
        )

    def classify_features(self, *, timeout: float | None = None) -> FeatureClassification:
        """Every feature: necessary (in every AXp), relevant (in some) or irrelevant.

        Raises
        ------
        QueryTimeout
            When ``timeout`` seconds (oracle routes) pass first; its ``partial`` holds the
            features decided and the others (``"undecided"``).
        """
        self._check_open()
        if self._xg is not None:
            from xpg.explain.relevance import classify_features

            result = classify_features(self._xg)
            every: dict[str, Any] = {name: "irrelevant" for name in self.features}
            every.update(result.classes)
            return FeatureClassification(
                every,
                self.route,  # type: ignore[arg-type]
                result.sat_calls,
                result.enumerated,
                f"graph route: {result.route}: {result.reason}",
            )
        oracle = self.oracle
        before = oracle.calls
        everything = set(range(oracle.n_features))
        necessary: set[int] = set()
        members: set[int] = set()
        names = oracle.space.names
        try:
            with self._deadline(timeout):
                for v in tested(oracle):
                    self._passed(oracle)
                    if oracle.check(sorted(everything - {v})) is not None:
                        necessary.add(v)
                undecided = set(tested(oracle)) - necessary
                with EnsembleEnumerator(oracle) as en:
                    members, count = members_by_enumeration(en, undecided, members)
                    if members != undecided and not en.complete:
                        raise OracleTimeout
        except OracleTimeout:
            open_ = set(tested(oracle)) - necessary - members
            partial = {
                "necessary": [names[v] for v in sorted(necessary)],
                "relevant": [names[v] for v in sorted(members - necessary)],
                "irrelevant": [n for v, n in enumerate(names) if v not in set(tested(oracle))],
                "undecided": [names[v] for v in sorted(open_)],
            }
            raise QueryTimeout(
                f"the features' classes undecided after {_spent(timeout)} "
                f"({len(open_)} of {len(names)} features left)",
                float(timeout or 0.0),
                partial,
            ) from None
        classes: dict[str, Any] = {}
        for v, name in enumerate(names):
            if v in necessary:
                classes[name] = "necessary"
            elif v in members:
                classes[name] = "relevant"
            else:
                classes[name] = "irrelevant"
        reason = (
            f"necessary: one question per feature; the others by enumeration (MARCO, {count} "
            "explanations, until every feature was found or the lists were complete)"
        )
        calls = oracle.calls - before
        return FeatureClassification(classes, self.route, calls, count, reason)  # type: ignore[arg-type]

    def _smallest(
        self,
        kind: ExplanationKind,
        max_iterations: int | None,
        solver: str,
        timeout: float | None,
    ) -> SmallestExplanation:
        self._check_open()
        if self._xg is not None:
            from xpg.explain.smallest import smallest_axp, smallest_cxp

            find = smallest_axp if kind == "axp" else smallest_cxp
            return find(self._xg, max_iterations=max_iterations, solver=solver)
        if max_iterations is not None and (isinstance(max_iterations, bool) or max_iterations < 1):
            raise InvalidQueryError(
                f"max_iterations: expected a positive integer or None, found {max_iterations!r}"
            )
        start = time.perf_counter()
        oracle = self.oracle
        progress = SmallestProgress()
        try:
            with self._deadline(timeout):
                found, optimal, iterations, lower = smallest_explanation(
                    oracle, kind, max_iterations, solver, progress
                )
        except OracleTimeout:
            best = progress.best
            partial = None
            if best is not None:
                partial = SmallestExplanation(
                    kind=kind,
                    features=as_names(oracle, best),
                    optimal=len(best) == progress.lower,
                    lower_bound=progress.lower,
                    iterations=progress.iterations,
                    method="implicit-hitting-set",
                    seconds=time.perf_counter() - start,
                )
            raise QueryTimeout(
                f"no smallest {kind.upper()} proved within {_spent(timeout)}",
                float(timeout or 0.0),
                partial,
            ) from None
        return SmallestExplanation(
            kind=kind,
            features=as_names(oracle, found) if found is not None else None,
            optimal=optimal,
            lower_bound=lower,
            iterations=iterations,
            method="implicit-hitting-set",
            seconds=time.perf_counter() - start,
        )

    def smallest_axp(
        self,
        *,
        max_iterations: int | None = None,
        solver: str = "g3",
        timeout: float | None = None,
    ) -> SmallestExplanation:
        """A minimum-cardinality AXp (implicit hitting sets over CXps, RC2); past
        ``timeout`` seconds (oracle routes) :class:`QueryTimeout`, with the best AXp found
        (not proved smallest) as ``partial``."""
        return self._smallest("axp", max_iterations, solver, timeout)

    def smallest_cxp(
        self,
        *,
        max_iterations: int | None = None,
        solver: str = "g3",
        timeout: float | None = None,
    ) -> SmallestExplanation:
        """A minimum-cardinality CXp (``features`` None when the prediction cannot change);
        ``timeout`` as for :meth:`smallest_axp`."""
        return self._smallest("cxp", max_iterations, solver, timeout)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(route={self.route!r}, prediction={self.prediction!r})"


class EnsembleExplainer(OracleExplainer):
    """AXps, CXps, enumeration, membership, feature classes and smallest explanations of one
    instance of a tree ensemble (use it as a context manager: it owns its solvers).

    Parameters
    ----------
    model : TreeEnsemble
        A :class:`~xpg.models.ensemble.Forest` or :class:`~xpg.models.ensemble.BoostedTrees`.
    instance : mapping or sequence
        The values of the explained features (group names when ``groups`` is given).
    route : {"auto", "sat", "smt", "graph"}
        ``"auto"`` takes ``"sat"``.
    groups : sequence of Feature or FeatureGroup, optional
        The explained features over the model's features: a
        :class:`~xpg.core.feature_space.FeatureGroup` makes several columns (one-hot, bins)
        one feature, named in explanations and free over its own values.  Not with
        ``"graph"``.
    shortcuts : bool
        The oracle's cheap decisions before a solver call (exhaustive evaluation of small
        free spaces, the independent-tree bound, a greedy search); False sends every
        question to the solver.

    Attributes
    ----------
    route : str
        The route used: ``"sat-pb"``, ``"smt-lra"`` or ``"graph"``.
    prediction
        The model's class for the instance.
    features : list of str
        The explained features' names.

    Raises
    ------
    InvalidInstanceError
        For a missing, unknown or out-of-domain value, or a wrong number of values.
    InvalidQueryError
        For an unknown route, or groups with the graph route.
    GraphTooLargeError
        For the graph route on an ensemble too large to compile.
    """

    closed_message = "this EnsembleExplainer is closed"

    def __init__(
        self,
        model: TreeEnsemble,
        instance: Mapping[str, Any] | Sequence[Any],
        route: EnsembleRoute = "auto",
        *,
        groups: Sequence[Feature | FeatureGroup] | None = None,
        shortcuts: bool = True,
    ) -> None:
        if route not in ROUTES:
            raise InvalidQueryError(f"route: expected one of {', '.join(ROUTES)}, found {route!r}")
        self.model = model
        if route == "graph":
            if groups is not None:
                raise InvalidQueryError(
                    "the graph route explains the model's own features: feature groups need "
                    "the sat or smt route"
                )
            from xpg.core.instances import instance_dict
            from xpg.core.xpgraph import ExplanationGraph

            values = instance_dict(model.features, instance)
            dg = model.to_decision_graph()
            self._xg = ExplanationGraph.from_decision_graph(dg, values)
            self.route = "graph"
            self.prediction = model.predict(values)
            self.features = [f.name for f in model.features]
        else:
            space = CellSpace(model, instance, groups)
            backend: Backend = "lra" if route == "smt" else "pb"
            self._oracle = EnsembleOracle(space, backend, shortcuts=shortcuts)
            self.route = ROUTE_OF[backend]
            self.prediction = self._oracle.prediction_label
            self.features = list(space.names)

    @property
    def oracle(self) -> EnsembleOracle:
        """The oracle of the sat and smt routes."""
        found: EnsembleOracle = super().oracle
        return found


__all__ = ["ROUTES", "EnsembleExplainer", "OracleExplainer", "QueryTimeout", "cxp_containing"]
