"""One explained decision: :class:`Decision`, every query over one oracle.

Made by :meth:`xpg.explain.engine.Explainer.explain`, or directly over an oracle,
``Decision(oracle)``; it offers ``axp()``, ``cxp()``, ``enumerate()``, ``is_member()``,
``classify_features()``, ``smallest_axp()``, ``smallest_cxp()`` and ``robustness()``, each
with a time budget, and says which ``route`` answered.

Examples
--------
>>> from xpg.examples import and_xpg
>>> from xpg.explain.graph_oracle import GraphOracle
>>> with Decision(GraphOracle(and_xpg())) as decision:  # a and b, for a = b = 1
...     decision.route, decision.axp(), decision.enumerate().cxps
('graph', ('a', 'b'), [('a',), ('b',)])

References
----------
Huang, Izza, Ignatiev, Marques-Silva. On Efficiently Explaining Graph-Based Classifiers.
KR 2021.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from xpg.errors import InvalidQueryError
from xpg.explain.axp_cxp import find_axp, find_cxp, names_of
from xpg.explain.marco import EnumerationResult, Enumerator, ExplanationKind, _checked_timeout
from xpg.explain.oracle_abc import Oracle, OracleTimeout
from xpg.explain.seeds import Seed
from xpg.solvers.lifecycle import SolverOwner

# membership, feature classes and smallest explanations load numpy and python-sat: they are
# imported by the methods that use them, so that a small graph's enumeration loads neither
if TYPE_CHECKING:
    from xpg.core.xpgraph import ExplanationGraph
    from xpg.explain.exact_robustness import Robustness
    from xpg.explain.membership import Membership
    from xpg.explain.relevance import FeatureClassification
    from xpg.explain.smallest import SmallestExplanation


class QueryTimeout(TimeoutError):
    """A query of a :class:`Decision` ran past its ``timeout``.

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
    >>> from xpg.models.decision_list import DecisionList, Rule
    >>> dl = DecisionList([Feature.boolean("a"), Feature.boolean("b")], [0, 1],
    ...                   [Rule([Literal.eq("a", 1), Literal.eq("b", 1)], 1)], 0)
    >>> from xpg.explain.engine import Explainer
    >>> with Explainer(dl, route="sat").explain({"a": 1, "b": 1}) as decision:
    ...     try:
    ...         decision.classify_features(timeout=0)  # a budget already spent
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


class Decision(SolverOwner):
    """The explanations of one decision of a model, whatever answers the questions (use it
    as a context manager: it may own solvers).

    Made by :meth:`Explainer.explain`; or directly over an oracle, ``Decision(oracle)``.

    Attributes
    ----------
    route : str
        What answers the questions: ``"graph"`` (the explanation graph), ``"sat-pb"`` or
        ``"smt-lra"`` (a tree ensemble's oracle), ``"list-sat"`` (a decision list's), ...
    prediction
        The model's class for the instance.
    features : list of str
        The explained features' names.
    instance : dict or None
        The instance's values, by feature name.
    """

    closed_message = "this explained decision is closed"

    def __init__(
        self,
        oracle: Oracle,
        *,
        model: Any = None,
        instance: Mapping[str, Any] | None = None,
        robustness: Callable[..., Robustness] | None = None,
    ) -> None:
        self._oracle = oracle
        self.model = model
        self.instance = None if instance is None else dict(instance)
        self._robustness = robustness
        self.route: str = oracle.route
        self.prediction = oracle.prediction_label
        self.features = list(oracle.names)

    def _release(self) -> None:
        self._oracle.close()

    @property
    def oracle(self) -> Oracle:
        """The oracle answering the questions."""
        self._check_open()
        return self._oracle

    @property
    def explanation_graph(self) -> ExplanationGraph:
        """The explanation graph of the graph route."""
        xg = self._graph()
        if xg is None:
            raise InvalidQueryError(f"the {self.route} route has no explanation graph")
        return xg

    def _graph(self) -> ExplanationGraph | None:
        self._check_open()
        found: ExplanationGraph | None = getattr(self._oracle, "explanation_graph", None)
        return found

    def supports(self, query: str) -> bool:
        """True when ``query`` (a method name) is answered for this decision: every query
        is, but ``robustness`` needs a model whose distance the route can search."""
        return query != "robustness" or self._robustness is not None

    @contextlib.contextmanager
    def _deadline(self, timeout: float | None) -> Iterator[None]:
        """The oracle's deadline ``timeout`` seconds from now, inside the block."""
        timeout = _checked_timeout(timeout)
        oracle = self.oracle
        before = oracle.deadline
        if timeout is not None:
            oracle.deadline = time.perf_counter() + timeout
        try:
            oracle.check_deadline()  # a budget already spent answers nothing
            yield
        finally:
            oracle.deadline = before

    # -- one explanation -------------------------------------------------------------------------
    def axp(self, seed: Seed = None, *, timeout: float | None = None) -> tuple[str, ...]:
        """One AXp (feature names in feature order), by deletion from ``seed`` (a weak AXp;
        default every feature).

        Raises
        ------
        InvalidSeedError
            When the seed is not a weak AXp.
        InvalidFeatureError
            For an unknown feature name.
        QueryTimeout
            When ``timeout`` seconds pass first.
        """
        try:
            with self._deadline(timeout):
                return find_axp(self.oracle, seed)
        except OracleTimeout:
            raise QueryTimeout(f"no AXp within {_spent(timeout)}", float(timeout or 0)) from None

    def cxp(self, seed: Seed = None, *, timeout: float | None = None) -> tuple[str, ...] | None:
        """One CXp (feature order), or None when the prediction cannot change; by deletion
        from ``seed`` (a weak CXp; default every feature).

        Raises
        ------
        InvalidSeedError
            When a seed is given that is not a weak CXp.
        QueryTimeout
            When ``timeout`` seconds pass first.
        """
        try:
            with self._deadline(timeout):
                return find_cxp(self.oracle, seed)
        except OracleTimeout:
            raise QueryTimeout(f"no CXp within {_spent(timeout)}", float(timeout or 0)) from None

    find_axp = axp
    find_cxp = cxp

    # -- all of them -----------------------------------------------------------------------------
    def enumerate(
        self,
        limit: int | None = None,
        timeout: float | None = None,
        *,
        first: ExplanationKind | None = None,
    ) -> EnumerationResult:
        """Every AXp and CXp within the budget (MARCO); ``complete`` says whether the lists
        are whole.  ``first``: the kind looked for first (None: the cheaper one for the
        model, CXps on tree ensembles; see :class:`~xpg.explain.marco.Enumerator`)."""
        with self.iter_explanations(limit=limit, timeout=timeout, first=first) as en:
            for _ in en:
                pass
            return en.result()

    def iter_explanations(
        self,
        limit: int | None = None,
        timeout: float | None = None,
        *,
        first: ExplanationKind | None = None,
    ) -> Enumerator:
        """The enumeration as a stream (an :class:`~xpg.explain.marco.Enumerator`, a context
        manager)."""
        return Enumerator(self.oracle, limit=limit, timeout=timeout, first=first)

    # -- membership, classes, smallest -----------------------------------------------------------
    def is_member(
        self, feature: str | int, kind: ExplanationKind = "axp", *, timeout: float | None = None
    ) -> Membership:
        """Is ``feature`` in some AXp (``kind="axp"``) or some CXp?  With a witness.

        On the graph route, the graph's own routes answer
        (:func:`~xpg.explain.membership.is_member`: the tree's CXps, or one SAT call);
        otherwise a feature whose freeing alone changes the class is in every AXp (one
        question), and MARCO runs until an explanation holding it appears or the lists are
        complete.

        Raises
        ------
        QueryTimeout
            When ``timeout`` seconds pass before the answer (oracle routes).
        """
        from xpg.explain.membership import Membership, check_kind, is_member, oracle_membership

        check_kind(kind)
        xg = self._graph()
        if xg is not None:
            return is_member(xg, feature, kind)
        oracle = self.oracle
        i = oracle.index(feature)
        before = oracle.calls
        try:
            with self._deadline(timeout):
                witness, reason = oracle_membership(oracle, i, kind)
        except OracleTimeout:
            raise QueryTimeout(
                f"membership of {oracle.names[i]!r} undecided after {_spent(timeout)}",
                float(timeout or 0.0),
            ) from None
        return Membership(
            feature=oracle.names[i],
            kind=kind,
            member=witness is not None,
            route=self.route,  # type: ignore[arg-type]
            witness=names_of(oracle, witness) if witness is not None else None,
            sat_calls=oracle.calls - before,
            reason=reason,
        )

    def classify_features(self, *, timeout: float | None = None) -> FeatureClassification:
        """Every feature: necessary (in every AXp), relevant (in some) or irrelevant.

        Raises
        ------
        QueryTimeout
            When ``timeout`` seconds pass first (oracle routes); its ``partial`` holds the
            features decided and the others (``"undecided"``).
        """
        from xpg.explain.relevance import (
            FeatureClassification,
            classes_of,
            classify_features,
            oracle_feature_classes,
        )

        xg = self._graph()
        if xg is not None:
            return classify_features(xg)
        oracle = self.oracle
        before = oracle.calls
        necessary: set[int] = set()
        members: set[int] = set()
        names = oracle.names
        tested = set(oracle.tested())
        try:
            with self._deadline(timeout):
                count = oracle_feature_classes(oracle, necessary, members)
        except OracleTimeout:
            open_ = tested - necessary - members
            partial = {
                "necessary": [names[v] for v in sorted(necessary)],
                "relevant": [names[v] for v in sorted(members - necessary)],
                "irrelevant": [n for v, n in enumerate(names) if v not in tested],
                "undecided": [names[v] for v in sorted(open_)],
            }
            raise QueryTimeout(
                f"the features' classes undecided after {_spent(timeout)} "
                f"({len(open_)} of {len(names)} features left)",
                float(timeout or 0.0),
                partial,
            ) from None
        classes = classes_of(names, necessary, members)
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
        from xpg.explain.smallest import SmallestExplanation, SmallestProgress, _smallest

        start = time.perf_counter()
        oracle = self.oracle
        progress = SmallestProgress()
        try:
            with self._deadline(timeout):
                return _smallest(oracle, kind, None, max_iterations, solver, progress)
        except OracleTimeout:
            best = progress.best
            partial = None
            if best is not None:
                partial = SmallestExplanation(
                    kind=kind,
                    features=names_of(oracle, best),
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

    def smallest_axp(
        self,
        *,
        max_iterations: int | None = None,
        solver: str = "g3",
        timeout: float | None = None,
    ) -> SmallestExplanation:
        """A minimum-cardinality AXp (the CXp list of a tree XpG, else implicit hitting sets
        over CXps, RC2); past ``timeout`` seconds :class:`QueryTimeout`, with the best AXp
        found (not proved smallest) as ``partial``."""
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

    def robustness(self, *, radius: float | None = None) -> Robustness:
        """Exact l-infinity robustness at the instance, with a counterexample
        (:func:`~xpg.explain.exact_robustness.robustness` on the graph route,
        :func:`~xpg.explain.oracle_robustness.oracle_robustness` over an oracle).

        Raises
        ------
        InvalidQueryError
            When the route cannot search distances (:meth:`supports` says so).
        """
        self._check_open()
        if self._robustness is None:
            raise InvalidQueryError(
                f"robustness is not defined on the {self.route} route (it needs a decision "
                "graph, or an oracle that asks about cells of values)"
            )
        return self._robustness(radius=radius)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(route={self.route!r}, prediction={self.prediction!r})"


__all__ = ["Decision", "QueryTimeout"]
