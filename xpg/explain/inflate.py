"""Inflated explanations: for each feature of an AXp, the widest set of values that keeps it
an explanation.

An AXp fixes its features to the instance's values; its conditions (:mod:`xpg.explain.describe`)
already widen each to its cell, the values the model cannot tell apart.  Inflating goes
further: feature by feature, in the AXp's order, the set of values of the feature grows while
every input inside the sets (the other features free) keeps the prediction.  For an ordered
feature (integer, real) the set is an interval around the instance's value, grown to the
left then to the right over the cells, by galloping then bisection; for a categorical or
boolean feature, any set of values holding the instance's, each other cell tried in turn.
Each set is maximal given the others (a wider one, by any value, lets another class in),
which is the greedy algorithm of the paper; another order of the features can give others.
Where an ordered feature's cell is not one interval (a graph or a list testing ``x != 3``),
its interval is reported and the features after it are grown against its whole cells: the
result is still sufficient, but those later sets may not be maximal.

Every question is one :meth:`~xpg.explain.oracle_abc.Oracle.check_cells`: "with the cell of
each feature among these, can another class be predicted?".  A decision's graph answers it
by reachability restricted to the allowed edges (exact, polynomial on read-once graphs), a
tree ensemble's oracle by its solver over the cells (exact), a decision list's by its SAT
encoding (exact); a route whose oracle cannot ask about sets of values is refused
(:class:`~xpg.errors.InvalidQueryError`).

Examples
--------
>>> from xpg.core.features import Feature, Literal
>>> from xpg.models.decision_list import DecisionList, Rule
>>> from xpg.explain.engine import Explainer
>>> dl = DecisionList([Feature.real("x"), Feature.categorical("c", ["r", "g", "b"])],
...                   ["no", "yes"], [Rule([Literal.gt("x", 5)], "no"),
...                                   Rule([Literal.gt("x", 2), Literal.eq("c", "b")], "no"),
...                                   Rule([Literal.gt("x", 1)], "yes")], "no")
>>> inflated = inflate(Explainer(dl), {"x": 3.0, "c": "r"}, ["x", "c"])
>>> inflated.conditions()
['1 < x <= 5', "c in {'r', 'g'}"]
>>> doc = inflated.features[0].as_dict()
>>> doc["low"], doc["high"], doc["low_inclusive"], doc["high_inclusive"]
(1.0, 5.0, False, True)

References
----------
Izza, Ignatiev, Stuckey, Marques-Silva. Delivering Inflated Explanations. AAAI 2024 (Alg. 1,
the greedy inflation of an AXp; ordinal features as intervals, categorical ones as sets).
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import portion as P

from xpg.core.features import Feature, ValueSet
from xpg.errors import InvalidQueryError, InvalidSeedError
from xpg.explain.decision import Decision, QueryTimeout
from xpg.explain.describe import condition_text
from xpg.explain.oracle_abc import Oracle, OracleTimeout


@dataclass(frozen=True)
class InflatedFeature:
    """One feature of an inflated explanation: the values it may take.

    Attributes
    ----------
    feature : str
    values : frozenset or portion interval
        The values (a frozenset for a boolean or categorical feature, an interval of
        numbers for an integer or real one), the instance's among them.
    condition : str
        ``values`` as a condition (:func:`~xpg.explain.describe.condition_text`):
        ``16.1 < worst radius <= 17.9``, ``colour in {'red', 'blue'}``.
    ordered : bool
        True for an interval (integer and real features).
    """

    feature: str
    values: ValueSet
    condition: str
    ordered: bool
    low: float | None = None
    high: float | None = None
    low_inclusive: bool = False
    high_inclusive: bool = False
    members: tuple[Any, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        """The JSON form: ``feature``, ``condition``, then ``low``, ``high``,
        ``low_inclusive``, ``high_inclusive`` for an interval (``low``/``high`` null on a
        side the interval leaves unbounded, up to the end of the domain) or ``values`` (in
        the domain's order) for a set."""
        doc: dict[str, Any] = {"feature": self.feature, "condition": self.condition}
        if self.ordered:
            doc.update(
                low=self.low,
                high=self.high,
                low_inclusive=self.low_inclusive,
                high_inclusive=self.high_inclusive,
            )
        else:
            doc["values"] = list(self.members)
        return doc


@dataclass(frozen=True)
class InflatedExplanation:
    """An AXp inflated (:func:`inflate`).

    Attributes
    ----------
    axp : tuple of str
        The explanation, in the order its features were inflated.
    features : list of InflatedFeature
        One per feature of ``axp``, in that order.
    prediction
        The model's class, which every input inside the sets gets.
    route : str
        What answered the questions (``"graph"``, ``"sat-pb"``, ``"list-sat"``...).
    questions : int
        The questions asked.
    seconds : float
    """

    axp: tuple[str, ...]
    features: list[InflatedFeature]
    prediction: Any
    route: str
    questions: int
    seconds: float

    def conditions(self) -> list[str]:
        """Each feature's condition, in order."""
        return [f.condition for f in self.features]

    def as_dict(self) -> dict[str, Any]:
        """The JSON form: ``axp``, ``prediction`` (as text), ``inflated`` (each feature's
        :meth:`InflatedFeature.as_dict`), ``route``, ``questions``, ``seconds``."""
        return {
            "axp": list(self.axp),
            "prediction": str(self.prediction),
            "inflated": [f.as_dict() for f in self.features],
            "route": self.route,
            "questions": self.questions,
            "seconds": self.seconds,
        }


def inflate(
    explainer: Any, instance: Any, axp: Sequence[str], *, timeout: float | None = None
) -> InflatedExplanation:
    """The AXp ``axp`` of ``explainer``'s decision on ``instance``, inflated: for each of its
    features, in its order, the widest interval (integer, real) or set of values (boolean,
    categorical) around the instance's value such that every input inside the sets, the
    other features free, gets the prediction, each maximal given the others.

    Parameters
    ----------
    explainer : Explainer
    instance : mapping, sequence or one-row table
        As :meth:`~xpg.explain.engine.Explainer.explain` takes it.
    axp : sequence of str
        An AXp of the decision (a weak AXp is accepted: a feature it does not need gets its
        whole domain).
    timeout : float, optional
        The most seconds.

    Raises
    ------
    InvalidSeedError
        When ``axp`` is not a (weak) AXp: freeing the other features changes the prediction.
    InvalidFeatureError
        For an unknown feature name.
    InvalidQueryError
        On a route whose oracle cannot ask about sets of values, or a ``.xpg`` file's graph.
    QueryTimeout
        When ``timeout`` seconds pass first.
    """
    with explainer.explain(instance) as decision:
        return inflate_decision(decision, axp, timeout=timeout)


def inflate_decision(
    decision: Decision, axp: Sequence[str], *, timeout: float | None = None
) -> InflatedExplanation:
    """:func:`inflate` for a decision already explained (a batch's row, ``xpg axp``)."""
    oracle = decision.oracle
    before = oracle.deadline
    start = time.perf_counter()
    if timeout is not None and (before is None or start + timeout < before):
        oracle.deadline = start + timeout  # the earlier of the two holds
    try:
        return _inflate(oracle, axp, start)
    except OracleTimeout:
        raise QueryTimeout(
            f"the AXp was not inflated within {timeout if timeout is not None else 0:g} s",
            float(timeout or 0.0),
        ) from None
    finally:
        oracle.deadline = before


class _Questions:
    """The questions of one inflation: ``check_cells`` over the allowed cells, each feature's
    set split into runs of consecutive cells where the oracle's space wants them so (a tree
    ensemble's categorical feature: its cells ordered by code)."""

    def __init__(self, oracle: Oracle) -> None:
        self.oracle = oracle
        self.ordered: Sequence[bool] | None = getattr(oracle.space, "ordered", None)  # type: ignore[attr-defined]
        self.asked = 0

    def other_class(self, allowed: list[list[int] | None]) -> bool:
        """Can another class be predicted with each feature's cell among ``allowed``?"""
        runs: list[list[list[int] | None]] = []
        for i, cells in enumerate(allowed):
            if cells is None or self.ordered is None or not self.ordered[i]:
                runs.append([cells])
            else:
                runs.append(_runs(sorted(cells)))
        for choice in itertools.product(*runs):
            # between questions: an oracle answering a small one outright looks at no clock
            self.oracle.check_deadline()
            self.asked += 1
            if self.oracle.check_cells(list(choice)) is not None:
                return True
        return False


def _runs(cells: list[int]) -> list[list[int] | None]:
    """Sorted cells as runs of consecutive ones.

    >>> _runs([0, 1, 3, 5, 6])
    [[0, 1], [3], [5, 6]]
    """
    out: list[list[int] | None] = []
    run: list[int] = []
    for c in cells:
        if run and c != run[-1] + 1:
            out.append(run)
            run = []
        run.append(c)
    if run:
        out.append(run)
    return out


def _inflate(oracle: Oracle, axp: Sequence[str], start: float) -> InflatedExplanation:
    space: Any = getattr(oracle, "space", None)
    if space is None:
        raise InvalidQueryError(
            f"the {oracle.route} route cannot inflate explanations (it needs an oracle over "
            "the cells of the features: a decision graph, a tree ensemble or a decision list)"
        )
    if isinstance(axp, str):
        axp = [axp]
    order: list[int] = []
    for name in axp:
        i = oracle.index(name)
        if i not in order:
            order.append(i)
    # the AXp's own question first: a seed that is no weak AXp is refused before any work
    oracle.check_deadline()
    if oracle.check(order) is not None:
        names = [oracle.names[i] for i in order]
        raise InvalidSeedError(
            f"{names} is not an AXp: freeing the other features already allows another prediction"
        )
    questions = _Questions(oracle)
    allowed: list[list[int] | None] = [None] * oracle.n_features
    for i in order:
        allowed[i] = [space.instance_cell[i]]
    instance = space.values(space.instance_cell)
    found = []
    for i in order:
        feature: Feature = space.features[i]
        if feature.is_discrete:
            found.append(_grow_set(questions, space, allowed, i, feature))
        else:
            found.append(_grow_interval(questions, space, allowed, i, feature, instance))
    return InflatedExplanation(
        axp=tuple(oracle.names[i] for i in order),
        features=found,
        prediction=oracle.prediction_label,
        route=oracle.route,
        questions=questions.asked,
        seconds=time.perf_counter() - start,
    )


def _grow_set(
    questions: _Questions, space: Any, allowed: list[list[int] | None], i: int, feature: Feature
) -> InflatedFeature:
    """Every cell of feature ``i`` that lets no other class in, given the others' sets (one
    question each: a union of sufficient sets is sufficient)."""
    kept = list(allowed[i] or [])
    for c in range(space.n_cells[i]):
        if c in kept:
            continue
        trial = list(allowed)
        trial[i] = [c]
        if not questions.other_class(trial):
            kept.append(c)
    allowed[i] = sorted(kept)
    values: frozenset[Any] = frozenset()
    for c in kept:
        values |= frozenset(space.layout.cell_values(i, c))
    return InflatedFeature(
        feature=feature.name,
        values=values,
        condition=condition_text(feature, values),
        ordered=False,
        members=tuple(v for v in feature.values if v in values),
    )


def _atoms(space: Any, i: int, feature: Feature) -> list[tuple[Any, int]]:
    """The intervals of feature ``i``'s cells, in order, each with its cell (a cell of a
    decision list or graph can be several intervals: ``x = 1 or x > 3``)."""
    out = []
    for c in range(space.n_cells[i]):
        for atom in space.layout.cell_values(i, c) & feature.domain_set():
            if not atom.empty and not feature.is_empty(P.Interval(atom)):
                out.append((atom, c))
    out.sort(key=lambda a: (a[0].lower, a[0].left == P.OPEN))
    return out


def _grow_interval(
    questions: _Questions,
    space: Any,
    allowed: list[list[int] | None],
    i: int,
    feature: Feature,
    instance: dict[str, Any],
) -> InflatedFeature:
    """The widest run of intervals of feature ``i``'s cells around the instance's value that
    lets no other class in, given the others' sets: to the left, then to the right, each
    side by galloping (1, 2, 4... intervals) then bisection, every question about the new
    cells only (the run so far is known to be sufficient)."""
    atoms = _atoms(space, i, feature)
    value = instance[feature.name]
    here = next(k for k, (atom, _) in enumerate(atoms) if value in atom)
    base = set(allowed[i] or [])

    def sufficient(first: int, last: int, kept: set[int]) -> bool:
        new = {c for _, c in atoms[first : last + 1]} - kept
        if not new:
            return True
        trial = list(allowed)
        trial[i] = sorted(new)
        return not questions.other_class(trial)

    lo = _extend(here, 0, lambda k, lo_: sufficient(k, lo_ - 1, base))
    base |= {c for _, c in atoms[lo : here + 1]}
    allowed[i] = sorted(base)
    hi = _extend(here, len(atoms) - 1, lambda k, hi_: sufficient(hi_ + 1, k, base))
    base |= {c for _, c in atoms[here : hi + 1]}
    allowed[i] = sorted(base)
    # the hull of the run (the same numbers: the run's intervals tile the domain between its
    # ends, but an integer feature's cells may be points, 0 | 1 | 2, that portion keeps apart)
    first, last = atoms[lo][0], atoms[hi][0]
    values = P.Interval.from_atomic(first.left, first.lower, last.upper, last.right)
    values &= feature.domain_set()
    low, low_in = _end(feature, values, "low") if lo > 0 else (None, False)
    high, high_in = _end(feature, values, "high") if hi < len(atoms) - 1 else (None, False)
    return InflatedFeature(
        feature=feature.name,
        values=values,
        condition=condition_text(feature, values),
        ordered=True,
        low=low,
        high=high,
        low_inclusive=low_in,
        high_inclusive=high_in,
    )


def _extend(start: int, limit: int, ok: Any) -> int:
    """The farthest ``k`` from ``start`` towards ``limit`` (either side) such that
    ``ok(k, current)`` holds for the run grown from ``current`` to ``k``: galloping steps of
    1, 2, 4... then bisection between the last success and the first failure (``ok`` is
    monotone: a wider run is sufficient only if a narrower one is).

    >>> _extend(5, 0, lambda k, cur: k >= 2), _extend(5, 9, lambda k, cur: k <= 5)
    (2, 5)
    """
    step = -1 if limit < start else 1
    good, bad = start, None
    width = 1
    while bad is None and good != limit:
        k = good + step * width
        k = max(k, limit) if step < 0 else min(k, limit)
        if ok(k, good):
            good, width = k, width * 2
        else:
            bad = k
    while bad is not None and abs(bad - good) > 1:
        mid = (good + bad) // 2 if step > 0 else -((-good - bad) // 2)
        if ok(mid, good):
            good = mid
        else:
            bad = mid
    return good


def _end(feature: Feature, values: Any, side: str) -> tuple[float | int, bool]:
    """One end of an interval as the records write it: a real feature's bound and whether
    it is included; an integer feature's first or last integer (included)."""
    if side == "low":
        bound, inside = values.lower, values.left == P.CLOSED
    else:
        bound, inside = values.upper, values.right == P.CLOSED
    x = float(bound)
    if feature.kind == "integer":
        if side == "low":
            return int(math.ceil(x) if inside else math.floor(x) + 1), True
        return int(math.floor(x) if inside else math.ceil(x) - 1), True
    return x, inside


__all__ = [
    "InflatedExplanation",
    "InflatedFeature",
    "inflate",
    "inflate_decision",
]
