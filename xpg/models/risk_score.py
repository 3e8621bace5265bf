"""Risk scores: a few conditions with small integer points, a bias, the sign of the total.

A :class:`RiskScore` (JSON type ``risk-score``) adds the points of every condition an input
satisfies to a bias; the total decides between two classes, ``classes = (negative,
positive)``: the positive class when ``total >= 0`` (the tie rule of BBM-RS, Algorithm 1 of
Moshkovitz, Yang and Chaudhuri: at least half of the conditions satisfied predicts +1).
A condition is any literal on one feature, usually ``x >= theta``; a feature may appear in
several conditions.  :meth:`RiskScore.describe` prints the score card (the paper's Table 1).

:func:`compile_risk_score` (and :meth:`RiskScore.to_decision_graph`) builds the exact decision
graph: a reduced ordered MDD whose nodes are (feature level, partial score).  Each level is
one feature; its edges are the cells of the feature's domain that its conditions cannot tell
apart (the intervals between its thresholds), each adding the points of the conditions it
satisfies.  A partial score whose outcome the remaining features can no longer change (the
least and the greatest sum still to come cannot cross 0) goes straight to a terminal.  The
nodes are made by :class:`~xpg.compile.mdd.MDDBuilder`, level by level from the last one:
its unique table merges equal nodes (the same partial score, and also different partial
scores that no remaining input separates) and skips a node whose children are all the same,
so the result is the canonical reduced MDD of that variable order.  Level ``l`` has at most
one node per reachable partial score, hence ``O(conditions x score range)`` nodes.

Examples
--------
>>> from xpg.core.features import Feature, Literal
>>> feats = [Feature.real("age"), Feature.boolean("smoker"), Feature.integer("visits", 0, 9)]
>>> rs = RiskScore(feats, ["low", "high"], [
...     (at_least("age", 60), 2), (Literal.eq("smoker", 1), 1),
...     (at_least("visits", 3), 1), (at_least("visits", 6), 1)], bias=-3)
>>> print(rs.describe())
condition    points
bias term        -3
age >= 60         2
smoker = 1        1
visits >= 3       1
visits >= 6       1
predict 'high' (positive) if the total score >= 0, else 'low'
>>> rs.score({"age": 65.0, "smoker": 0, "visits": 4}), rs.predict([65.0, 0, 4])
(0, 'high')
>>> dg = rs.to_decision_graph()
>>> [dg.predict([a, s, v]) == rs.predict([a, s, v])
...  for a in (50.0, 70.0) for s in (0, 1) for v in (0, 3, 6)] == [True] * 12
True
>>> len(dg)  # age; smoker at partial scores -3 and -1; visits at -2 and -1; 2 terminals
7

References
----------
Moshkovitz, Yang, Chaudhuri. Connecting Interpretability and Robustness in Decision Trees
through Separation. ICML 2021, Sec. 3 and 5.3 (risk scores, Algorithm 1, Table 1);
Ustun, Rudin. Learning Optimized Risk Scores. JMLR 2019; Srinivasan, Kam, Malik, Brayton.
Algorithms for discrete function manipulation. ICCAD 1990 (reduced ordered MDDs).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar, NamedTuple

import numpy as np

from xpg.compile.mdd import MDDBuilder
from xpg.core.features import Feature, Literal, ValueSet
from xpg.core.graph import DecisionGraph, batch_matrix, label_array, literal_mask
from xpg.core.instances import instance_dict
from xpg.core.json_body import (
    expect,
    feature_ref,
    json_objects,
    literal_from_dict,
    literal_to_dict,
)
from xpg.core.model_checks import checked_literal, variable_order
from xpg.core.valuesets import as_value_set, feature_cells
from xpg.errors import InvalidModelError
from xpg.models.protocol import checked_signature
from xpg.solvers.smt import SmtModel

NEGATIVE, POSITIVE = 0, 1


class Condition(NamedTuple):
    """One line of a score card: ``points`` are added when ``literal`` holds.

    Examples
    --------
    >>> str(Condition(Literal.gt("x", 2.0), 3))
    'x > 2: 3 points'
    """

    literal: Literal
    points: int

    def __str__(self) -> str:
        return f"{self.literal}: {self.points} point{'s' if abs(self.points) != 1 else ''}"


def at_least(feature: str, threshold: float) -> Literal:
    """The usual condition of a risk score, ``feature >= threshold``.

    Examples
    --------
    >>> str(at_least("age", 75)), at_least("age", 75).satisfied_by(75)
    ('age >= 75', True)
    """
    return Literal.interval(feature, threshold, math.inf, closed="left")


def condition_text(lit: Literal) -> str:
    """A condition as the score card prints it: ``x >= t`` with ``t`` written exactly (the
    shortest text that reads back as the same float), other literals as usual.

    Examples
    --------
    >>> condition_text(at_least("x", 1234.5678)), condition_text(at_least("x", 60.0))
    ('x >= 1234.5678', 'x >= 60')
    >>> condition_text(Literal.le("x", 2.0))
    'x <= 2'
    """
    if not lit.is_value_set:
        atoms = lit.intervals()
        if len(atoms) == 1:
            lo, hi, lo_in, _ = atoms[0]
            if lo_in and math.isfinite(lo) and math.isinf(hi):
                text = repr(float(lo))
                return f"{lit.feature} >= {text.removesuffix('.0')}"
    return str(lit)


def _integer(x: Any, where: str) -> int:
    if isinstance(x, bool) or not isinstance(x, (int, np.integer)):
        raise InvalidModelError(f"{where}: expected an integer, found {x!r}")
    return int(x)


class RiskScore:
    """A risk score over declared features (JSON type ``risk-score``).

    Parameters
    ----------
    features : sequence of Feature
        The model's inputs, in instance order (features no condition tests are allowed).
    classes : (negative, positive)
        The two class labels; the positive one is predicted when the total score is >= 0.
    conditions : sequence of Condition or (Literal, int) pairs
        The score card's lines, in the order it prints them.
    bias : int
        Added to every total (the paper's "bias term", always satisfied).

    Raises
    ------
    InvalidModelError
        Not two distinct classes, a condition on an unknown feature or no input satisfies,
        a literal of the wrong kind (an interval on a discrete feature), points or bias that
        are not integers.
    """

    json_type: ClassVar[str] = "risk-score"

    def __init__(
        self,
        features: Sequence[Feature],
        classes: Sequence[Any],
        conditions: Iterable[Condition | tuple[Literal, int]],
        bias: int = 0,
    ) -> None:
        self.features, self.classes, self.feature_index = checked_signature(
            "risk score", features, classes
        )
        if len(self.classes) != 2:
            raise InvalidModelError(
                f"risk score: expected two classes (negative, positive), found {self.classes!r}"
            )
        self.bias = _integer(bias, "bias")
        self.conditions: list[Condition] = []
        for i, cond in enumerate(conditions):
            if not (isinstance(cond, tuple) and len(cond) == 2):
                raise InvalidModelError(
                    f"condition {i}: expected a (literal, points) pair, found {cond!r}"
                )
            lit, points = cond
            self._check_literal(lit, f"condition {i}")
            self.conditions.append(Condition(lit, _integer(points, f"condition {i}: points")))

    def _check_literal(self, lit: Any, where: str) -> None:
        f = checked_literal(lit, self.features, self.feature_index, where)
        if f.is_empty(f.domain_set() & as_value_set(f, lit)):
            raise InvalidModelError(f"{where}: no value of {f.name!r} satisfies {lit}")

    # -- the classification function ---------------------------------------------------------
    @property
    def negative(self) -> Any:
        """The class predicted when the total score is < 0."""
        return self.classes[NEGATIVE]

    @property
    def positive(self) -> Any:
        """The class predicted when the total score is >= 0."""
        return self.classes[POSITIVE]

    @property
    def complexity(self) -> int:
        """The number of conditions with non-zero points (the paper's interpretation
        complexity, IC, of a risk score)."""
        return sum(1 for c in self.conditions if c.points != 0)

    def tested_features(self) -> list[str]:
        """Names of the features some condition tests, in feature order."""
        used = {c.literal.feature for c in self.conditions}
        return [f.name for f in self.features if f.name in used]

    def score_range(self) -> tuple[int, int]:
        """The least and the greatest sum of points an input of the domain can get (bias
        left out): per feature, the least and greatest points of the cells its conditions
        make, added up.

        Examples
        --------
        >>> from xpg.core.features import Feature, Literal
        >>> rs = RiskScore([Feature.real("x")], [0, 1],
        ...                [(Literal.le("x", 1.0), 2), (at_least("x", 5.0), 3)])
        >>> rs.score_range()                     # x <= 1 and x >= 5 never hold together
        (0, 3)
        """
        _, _, gains = _levels(self, None)
        return sum(min(g) for g in gains), sum(max(g) for g in gains)

    def score(self, instance: Mapping[str, Any] | Sequence[Any]) -> int:
        """The total score of one instance: the bias plus the points of the conditions it
        satisfies."""
        values = instance_dict(self.features, instance)
        return self.bias + sum(
            c.points for c in self.conditions if c.literal.satisfied_by(values[c.literal.feature])
        )

    def predict(self, instance: Mapping[str, Any] | Sequence[Any]) -> Any:
        """The positive class when the total score is >= 0, else the negative one."""
        return self.classes[POSITIVE if self.score(instance) >= 0 else NEGATIVE]

    def scores(self, X: Any) -> np.ndarray:
        """The total scores of the rows of ``X`` (values in feature order, unchecked), as an
        integer array, one vectorised mask per condition."""
        M = batch_matrix(self.features, X)
        total = np.full(len(M), self.bias, dtype=np.int64)
        for c in self.conditions:
            total += c.points * literal_mask(M[:, self.feature_index[c.literal.feature]], c.literal)
        return total

    def predict_batch(self, X: Any) -> np.ndarray:
        """The classes of the rows of ``X`` (see :meth:`scores`)."""
        positive = self.scores(X) >= 0
        labels = np.empty(len(positive), dtype=object)
        labels[positive] = self.positive
        labels[~positive] = self.negative
        return label_array(labels)

    def validate(self) -> None:
        """Nothing to do: a risk score is checked when built and classifies every input."""

    # -- compilation ---------------------------------------------------------------------------
    def to_decision_graph(self) -> DecisionGraph:
        """The exact decision graph of the score, by :func:`compile_risk_score`."""
        return compile_risk_score(self)

    # -- JSON and SMT --------------------------------------------------------------------------
    def to_json_body(self) -> dict[str, Any]:
        """``{"type": "risk-score", "bias": b, "conditions": [{"feature", literal keys,
        "points"}, ...]}``."""
        return {
            "type": self.json_type,
            "bias": self.bias,
            "conditions": [
                {"feature": c.literal.feature, **literal_to_dict(c.literal), "points": c.points}
                for c in self.conditions
            ],
        }

    @classmethod
    def from_json_body(
        cls, body: Mapping[str, Any], features: list[Feature], classes: list[Any]
    ) -> RiskScore:
        """The risk score of a ``risk-score`` object."""
        names = {f.name for f in features}
        expected = "expected an object with 'feature', a literal and 'points'"
        entries = json_objects(
            body.get("conditions"),
            "model.conditions",
            "conditions",
            ("feature", "points"),
            expected,
        )
        bias: Any = body.get("bias", 0)
        expect(
            isinstance(bias, int) and not isinstance(bias, bool),
            "model.bias",
            f"expected an integer, found {bias!r}",
        )
        conditions = []
        for where, c in entries:
            feature_ref(c["feature"], names, where)
            points = c["points"]
            expect(
                isinstance(points, int) and not isinstance(points, bool),
                f"{where}.points",
                f"expected an integer, found {points!r}",
            )
            literal_keys = {k: v for k, v in c.items() if k not in ("feature", "points")}
            conditions.append((literal_from_dict(c["feature"], literal_keys, where), points))
        try:
            return cls(features, classes, conditions, bias)
        except InvalidModelError as err:
            raise InvalidModelError(f"model: {err}") from None

    def smt_encoding(self) -> SmtModel:
        """The class as an SMT term: ``total = bias + sum(ITE(condition, points, 0))`` in
        linear integer arithmetic, the positive class when ``total >= 0``."""
        enc = SmtModel(self.features, self.classes, self.predict)
        m = enc.mgr
        total = m.Plus(
            [m.Int(self.bias)]
            + [m.Ite(enc.literal(c.literal), m.Int(c.points), m.Int(0)) for c in self.conditions]
        )
        enc.class_term = m.Ite(m.GE(total, m.Int(0)), m.Int(POSITIVE), m.Int(NEGATIVE))
        return enc

    # -- reading -------------------------------------------------------------------------------
    def describe(self) -> str:
        """The score card, like Table 1 of the paper: the bias, one line per condition with
        its points, and the rule (positive class when the total score is >= 0)."""
        rows = [("bias term", str(self.bias))]
        rows += [(condition_text(c.literal), str(c.points)) for c in self.conditions]
        left = max(len("condition"), *(len(r[0]) for r in rows))
        right = max(len("points"), *(len(r[1]) for r in rows))
        lines = [f"{'condition'.ljust(left)}  {'points'.rjust(right)}"]
        lines += [f"{a.ljust(left)}  {b.rjust(right)}" for a, b in rows]
        lines.append(
            f"predict {self.positive!r} (positive) if the total score >= 0, else {self.negative!r}"
        )
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.describe()

    def __len__(self) -> int:
        return len(self.conditions)

    def __repr__(self) -> str:
        return (
            f"RiskScore({len(self.features)} features, classes {self.classes!r}, "
            f"{len(self.conditions)} conditions, bias {self.bias})"
        )


# -- compilation: the layered (feature, partial score) MDD ---------------------------------------
def _levels(
    rs: RiskScore, order: Sequence[str] | None
) -> tuple[list[str], list[list[ValueSet]], list[list[int]]]:
    """The level features, each level's cells, and the points each cell adds."""
    names = variable_order(rs.tested_features(), rs.feature_index, order)
    cells, gains = [], []
    for name in names:
        f = rs.features[rs.feature_index[name]]
        mine = [
            (as_value_set(f, c.literal), c.points)
            for c in rs.conditions
            if c.literal.feature == name
        ]
        level_cells = feature_cells(f, {s for s, _ in mine})
        cells.append(level_cells)
        # every cell lies inside or outside each condition's set (the cells refine them all)
        gains.append([sum(p for s, p in mine if f.is_empty(cell - s)) for cell in level_cells])
    return names, cells, gains


def risk_score_to_mdd(
    rs: RiskScore, order: Sequence[str] | None = None
) -> tuple[MDDBuilder, int, list[str], list[list[ValueSet]]]:
    """The reduced ordered MDD of a risk score: ``(builder, root, level features, cells)``.

    A forward pass collects the partial scores each level can see (those whose outcome is
    still open); a backward pass makes their nodes with the builder, so equal nodes are
    shared and redundant tests skipped.  Terminal labels are class indices (0 negative,
    1 positive).
    """
    names, cells, gains = _levels(rs, order)
    n = len(names)
    low, high = [0] * (n + 1), [0] * (n + 1)  # least and greatest sum still to come
    for lv in range(n - 1, -1, -1):
        low[lv] = low[lv + 1] + min(gains[lv])
        high[lv] = high[lv + 1] + max(gains[lv])
    mdd = MDDBuilder([len(c) for c in cells])
    neg, pos = mdd.terminal(NEGATIVE), mdd.terminal(POSITIVE)

    def decided(lv: int, s: int) -> int | None:
        if s + low[lv] >= 0:
            return pos
        if s + high[lv] < 0:
            return neg
        return None

    open_scores: list[set[int]] = [set() for _ in range(n + 1)]
    if decided(0, rs.bias) is None:
        open_scores[0].add(rs.bias)
    for lv in range(n):
        steps = set(gains[lv])
        open_scores[lv + 1] = {
            s + g for s in open_scores[lv] for g in steps if decided(lv + 1, s + g) is None
        }
    made: list[dict[int, int]] = [{} for _ in range(n + 1)]

    def node_of(lv: int, s: int) -> int:
        found = decided(lv, s)
        return made[lv][s] if found is None else found

    for lv in range(n - 1, -1, -1):
        for s in sorted(open_scores[lv]):
            made[lv][s] = mdd.node(lv, [node_of(lv + 1, s + g) for g in gains[lv]])
    return mdd, node_of(0, rs.bias), names, cells


def compile_risk_score(rs: RiskScore, order: Sequence[str] | None = None) -> DecisionGraph:
    """The decision graph of a risk score: its reduced ordered MDD over the tested features.

    Parameters
    ----------
    rs : RiskScore
    order : sequence of str, optional
        The variable order (feature names, first tested first; default: feature order).

    Returns
    -------
    DecisionGraph
        Satisfies Def. 2 by construction (read-once, the edges of a node partition its
        feature's domain); integer node ids, root 0.

    Examples
    --------
    >>> from xpg.core.features import Feature, Literal
    >>> feats = [Feature.boolean(n) for n in "abc"]
    >>> vote = RiskScore(feats, [0, 1], [(Literal.eq(n, 1), 1) for n in "abc"], bias=-2)
    >>> dg = compile_risk_score(vote)            # majority of three: 4 tests and 2 terminals
    >>> len(dg), dg.n_edges
    (6, 8)
    """
    mdd, root, names, cells = risk_score_to_mdd(rs, order)
    return mdd.to_decision_graph(root, rs.features, rs.classes, names, cells)


__all__ = [
    "Condition",
    "RiskScore",
    "at_least",
    "condition_text",
    "compile_risk_score",
    "risk_score_to_mdd",
]
