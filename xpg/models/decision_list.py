"""Decision lists: ordered rules ``IF conjunction THEN class``, then a default, and their compiler.

The first rule whose conditions all hold decides; the default decides when none does
(JSON type ``decision-list``).  :func:`compile_decision_list` (and
:meth:`DecisionList.to_decision_graph`) turns a list into a decision graph with the same
classification function:

* every tested feature boolean: a reduced OBDD built with dd (``dd.autoref`` or
  ``dd.cudd``), as in Sec. 7 of the core paper: with the rules taken from last to first,
  ``f := ITE(term_i, [label_i = c], f)`` gives the function of each class ``c``; with two
  classes the DG is the OBDD of the second class, with more it is the product of the class
  BDDs (a reduced multi-terminal OBDD);
* otherwise: a reduced ordered MDD (:class:`~xpg.compile.mdd.MDDBuilder`) over the cells of
  each feature, the classes of values no rule condition tells apart, built with the same
  fold.

The diagram of a long list can be exponentially larger than the list, so compilation has a
``budget`` (:data:`GRAPH_BUDGET` diagram nodes by default), checked while the diagram is
built: beyond it :class:`~xpg.errors.GraphTooLargeError` is raised, with memory still within
the budget.  Such a list is explained without compiling it, by SAT
(``xpg.Explainer(model)`` over :class:`~xpg.explain.list_oracle.DecisionListOracle`).

Examples
--------
>>> from xpg.core.features import Feature, Literal
>>> feats = [Feature.boolean("x1"), Feature.boolean("x2")]
>>> dl = DecisionList(feats, [0, 1], [
...     Rule([Literal.eq("x1", 1), Literal.eq("x2", 1)], 1),
...     Rule([Literal.eq("x1", 0), Literal.eq("x2", 1)], 0)], default=0)
>>> print(dl)
IF x1 = 1 AND x2 = 1 THEN 1
ELSE IF x1 = 0 AND x2 = 1 THEN 0
ELSE 0
>>> dl.predict({"x1": 1, "x2": 1})
1
>>> dg = compile_decision_list(dl)                          # all boolean: a reduced OBDD
>>> [dg.predict([a, b]) for a in (0, 1) for b in (0, 1)], len(dg)
([0, 0, 0, 1], 4)
>>> mdd = compile_decision_list(dl, method="mdd")           # the same function as an MDD
>>> [mdd.predict([a, b]) for a in (0, 1) for b in (0, 1)]
[0, 0, 0, 1]
>>> compile_decision_list(dl, method="mdd", budget=2)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
xpg.errors.GraphTooLargeError: the decision list (2 rules) is too large to compile: ...

References
----------
Rivest. Learning decision lists. Machine Learning 1987; Huang, Izza, Ignatiev, Marques-Silva.
On Efficiently Explaining Graph-Based Classifiers. KR 2021, Sec. 7 (DLs compiled to OBDDs,
following Narodytska et al. 2019).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar
from typing import Literal as TypingLiteral

import numpy as np

from xpg.compile.bdd import Backend, bdd_manager, check_size, diagram_size
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
from xpg.errors import GraphTooLargeError, InvalidModelError
from xpg.models.obdd import OBDD
from xpg.models.protocol import check_label, checked_signature
from xpg.solvers.smt import SmtModel, first_match

#: the most diagram nodes :func:`compile_decision_list` makes by default: a few seconds of
#: compiling and validating a diagram over features of 17 values, a fraction of that over
#: booleans (beyond it, the list is explained by SAT without compiling)
GRAPH_BUDGET = 10_000


class Rule:
    """``IF conditions THEN label``: a conjunction of literals (empty: always true).

    Examples
    --------
    >>> from xpg.core.features import Literal
    >>> str(Rule([Literal.le("age", 30), Literal.eq("student", 1)], "yes"))
    'IF age <= 30 AND student = 1 THEN yes'
    """

    __slots__ = ("conditions", "label")

    def __init__(self, conditions: Iterable[Literal], label: Any) -> None:
        self.conditions: tuple[Literal, ...] = tuple(conditions)
        self.label = label

    def fires(self, values: Mapping[str, Any]) -> bool:
        """True when every condition holds for ``values`` (feature name -> value)."""
        return all(lit.satisfied_by(values[lit.feature]) for lit in self.conditions)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Rule)
            and self.conditions == other.conditions
            and self.label == other.label
        )

    def __hash__(self) -> int:
        return hash((self.conditions, repr(self.label)))

    def __repr__(self) -> str:
        return f"Rule({list(self.conditions)!r}, {self.label!r})"

    def __str__(self) -> str:
        body = " AND ".join(str(c) for c in self.conditions) or "TRUE"
        return f"IF {body} THEN {self.label}"


class DecisionList:
    """An ordered list of rules ending with a default class.

    Parameters
    ----------
    features : sequence of Feature
    classes : sequence
    rules : sequence of Rule
        In order; the first rule that fires decides.
    default : class label
        The class of the default rule (when no rule fires).

    Raises
    ------
    InvalidModelError
        A rule over an unknown feature, a value outside the declared domain, a literal of the
        wrong kind, a rule whose conditions no input satisfies, an undeclared class.
    """

    json_type: ClassVar[str] = "decision-list"
    #: what a compile budget counts (:meth:`to_decision_graph`; messages name it)
    budget_unit: ClassVar[str] = "diagram nodes"

    def size_text(self) -> str:
        """The model in a few words, for messages: ``"12-rule decision list"``."""
        return f"{len(self.rules)}-rule decision list"

    def __init__(
        self,
        features: Sequence[Feature],
        classes: Sequence[Any],
        rules: Sequence[Rule],
        default: Any,
    ) -> None:
        self.features, self.classes, self.feature_index = checked_signature(
            "decision list", features, classes
        )
        self.rules = list(rules)
        self.default = default
        for i, rule in enumerate(self.rules):
            if not isinstance(rule, Rule):
                raise InvalidModelError(f"rule {i}: expected a Rule, found {rule!r}")
            check_label(rule.label, self.classes, f"rule {i}")
            self._check_conditions(rule.conditions, f"rule {i}")
        check_label(default, self.classes, "default rule")

    def _check_conditions(self, conditions: Sequence[Literal], where: str) -> None:
        possible: dict[str, ValueSet] = {}
        for lit in conditions:
            f = checked_literal(lit, self.features, self.feature_index, where, "condition ")
            here = possible.get(f.name, f.domain_set()) & as_value_set(f, lit)
            if f.is_empty(here):
                raise InvalidModelError(
                    f"{where}: no input satisfies its conditions on {f.name!r} "
                    f"(the rule can never fire)"
                )
            possible[f.name] = here

    def tested_features(self) -> list[str]:
        """Names of the features some rule tests, in feature order."""
        used = {lit.feature for r in self.rules for lit in r.conditions}
        return [f.name for f in self.features if f.name in used]

    def predict(self, instance: Mapping[str, Any] | Sequence[Any]) -> Any:
        """The label of the first rule that fires, else the default."""
        values = instance_dict(self.features, instance)
        for rule in self.rules:
            if rule.fires(values):
                return rule.label
        return self.default

    def predict_batch(self, X: Any) -> np.ndarray:
        """The classes of the rows of ``X`` (values in feature order, unchecked), vectorised:
        each rule takes, all at once, the rows no earlier rule took and it fires on."""
        M = batch_matrix(self.features, X)
        labels = np.empty(len(M), dtype=object)
        open_rows = np.ones(len(M), dtype=bool)
        for rule in self.rules:
            fires = open_rows.copy()
            for lit in rule.conditions:
                fires &= literal_mask(M[:, self.feature_index[lit.feature]], lit)
            labels[fires] = rule.label
            open_rows &= ~fires
        labels[open_rows] = self.default
        return label_array(labels)

    def validate(self) -> None:
        """Nothing to do: a list is checked when built and always has a first rule that fires
        (or the default)."""

    def to_decision_graph(self, budget: int | None = GRAPH_BUDGET) -> DecisionGraph:
        """The decision graph of the list, by :func:`compile_decision_list` (its default
        method), within ``budget`` diagram nodes (None: no limit).

        Raises
        ------
        GraphTooLargeError
            When the diagram needs more than ``budget`` nodes.
        """
        return compile_decision_list(self, budget=budget)

    def to_json_body(self) -> dict[str, Any]:
        """``{"type": "decision-list", "rules": [...], "default": c}``."""
        return {
            "type": self.json_type,
            "rules": [
                {
                    "if": [{"feature": c.feature, **literal_to_dict(c)} for c in r.conditions],
                    "then": r.label,
                }
                for r in self.rules
            ],
            "default": self.default,
        }

    @classmethod
    def from_json_body(
        cls, body: Mapping[str, Any], features: list[Feature], classes: list[Any]
    ) -> DecisionList:
        """The list of a ``decision-list`` object."""
        by_name = {f.name for f in features}
        expected = "expected an object with 'if' (a list of conditions) and 'then' (a class)"
        entries = json_objects(body.get("rules"), "model.rules", "rules", ("if", "then"), expected)
        expect("default" in body, "model", "expected a 'default' class")
        rules = []
        for where, r in entries:
            conds = []
            for cw, c in json_objects(
                r["if"], f"{where}.if", "conditions", ("feature",), "expected a 'feature'"
            ):
                feature_ref(c["feature"], by_name, cw)
                conds.append(literal_from_dict(c["feature"], c, cw))
            rules.append(Rule(conds, r["then"]))
        return cls(features, classes, rules, body["default"])

    def smt_encoding(self) -> SmtModel:
        """The class of an input as an SMT term: the first rule whose conditions hold, else
        the default."""
        enc = SmtModel(self.features, self.classes, self.predict)
        m = enc.mgr
        cases = [
            (m.And([enc.literal(lit) for lit in r.conditions]), m.Int(enc.class_index(r.label)))
            for r in self.rules
        ]
        enc.class_term = first_match(enc, cases, m.Int(enc.class_index(self.default)))
        return enc

    def __len__(self) -> int:
        return len(self.rules) + 1

    def __repr__(self) -> str:
        return (
            f"DecisionList({len(self.features)} features, {len(self.classes)} classes, "
            f"{len(self.rules)} rules + default)"
        )

    def __str__(self) -> str:
        lines = [("IF " if i == 0 else "ELSE IF ") + str(r)[3:] for i, r in enumerate(self.rules)]
        return "\n".join(lines + [f"ELSE {self.default}"])


# -- compilation: reduced OBDDs with dd, reduced ordered MDDs --------------------------------------
Method = TypingLiteral["auto", "bdd", "mdd"]


def _what(dl: DecisionList) -> str:
    return f"the decision list ({len(dl.rules)} rules)"


def _class_index(classes: Sequence[Any], label: Any) -> int:
    return next(i for i, c in enumerate(classes) if c == label and type(c) is type(label))


def decision_list_to_obdd(
    dl: DecisionList,
    order: Sequence[str] | None = None,
    backend: Backend = "autoref",
    budget: int | None = None,
) -> OBDD:
    """The OBDD(s) of a decision list over boolean features, built in a new dd manager.

    Parameters
    ----------
    dl : DecisionList
        Every tested feature must be boolean.
    order : sequence of str, optional
        Variable order (feature names, top first; default: feature order).
    backend : {"autoref", "cudd"}
        dd's pure-Python or CUDD back-end.
    budget : int, optional
        The most live nodes of the manager, checked after each rule is folded in, and of the
        diagram of the class functions taken together (None: no limit).

    Raises
    ------
    GraphTooLargeError
        Beyond the budget.
    """

    names = variable_order(dl.tested_features(), dl.feature_index, order)
    by_name = {f.name: f for f in dl.features}
    not_bool = [n for n in names if by_name[n].kind != "boolean"]
    if not_bool:
        raise InvalidModelError(
            f"an OBDD needs boolean features; {not_bool!r} are not (use method='mdd')"
        )
    bdd = bdd_manager(names, backend)
    try:
        funcs = _class_functions(dl, bdd, budget)
    except GraphTooLargeError as err:
        message = str(err)
    else:
        if len(dl.classes) == 2:
            return OBDD(funcs[0], dl.features, dl.classes)
        return OBDD(dict(zip(dl.classes, funcs, strict=True)), dl.features, dl.classes)
    # raised here, once no function of the manager is referenced any more: dd refuses to
    # delete a manager whose nodes are still referenced (an exception's frames would be)
    raise GraphTooLargeError(message)


def _class_functions(dl: DecisionList, bdd: Any, budget: int | None) -> list[Any]:
    """The BDD of each class of ``dl`` (of class 1 only with two classes), the manager's
    size checked after each rule is folded in."""
    terms = []
    for rule in dl.rules:
        term = bdd.true
        for lit in rule.conditions:
            allowed = set(lit.allowed)
            if allowed == {0, 1}:
                continue
            term = term & (bdd.var(lit.feature) if allowed == {1} else ~bdd.var(lit.feature))
        terms.append(term)
    k = len(dl.classes)
    labels = [_class_index(dl.classes, r.label) for r in dl.rules]
    default = _class_index(dl.classes, dl.default)
    targets = [1] if k == 2 else list(range(k))
    funcs = []
    what = _what(dl)
    for c in targets:
        f = bdd.true if default == c else bdd.false
        for term, lab in zip(reversed(terms), reversed(labels), strict=True):
            f = bdd.ite(term, bdd.true if lab == c else bdd.false, f)
            check_size(bdd, budget, what)  # one step grows it at most (|term| + 1) times
        funcs.append(f)
    if budget is not None and diagram_size(funcs, budget) > budget:
        raise GraphTooLargeError(
            f"{what} is too large to compile: the diagram of its {k} classes needs more than "
            f"the budget of {budget} diagram nodes"
        )
    return funcs


def decision_list_to_mdd(
    dl: DecisionList, order: Sequence[str] | None = None, budget: int | None = None
) -> tuple[MDDBuilder, int, list[str], list[list[ValueSet]]]:
    """The reduced ordered MDD of a decision list: ``(builder, root, level features, cells)``,
    with at most ``budget`` nodes made (None: no limit; beyond it
    :class:`~xpg.errors.GraphTooLargeError`)."""
    names = variable_order(dl.tested_features(), dl.feature_index, order)
    by_name = {f.name: f for f in dl.features}
    level = {n: i for i, n in enumerate(names)}
    cells = [
        feature_cells(
            by_name[n],
            {
                as_value_set(by_name[n], lit)
                for r in dl.rules
                for lit in r.conditions
                if lit.feature == n
            },
        )
        for n in names
    ]
    mdd = MDDBuilder([len(c) for c in cells], budget, _what(dl))
    f = mdd.terminal(_class_index(dl.classes, dl.default))
    for rule in reversed(dl.rules):
        allowed: dict[int, set[int]] = {}
        for lit in rule.conditions:
            lv = level[lit.feature]
            feature = by_name[lit.feature]
            s = as_value_set(feature, lit)
            inside = {j for j, cell in enumerate(cells[lv]) if feature.is_empty(cell - s)}
            allowed[lv] = allowed[lv] & inside if lv in allowed else inside
        term = [(lv, frozenset(allowed[lv])) for lv in sorted(allowed)]
        f = mdd.ite_conjunction(term, mdd.terminal(_class_index(dl.classes, rule.label)), f)
    return mdd, f, names, cells


def compile_decision_list(
    dl: DecisionList,
    order: Sequence[str] | None = None,
    method: Method = "auto",
    backend: Backend = "autoref",
    budget: int | None = GRAPH_BUDGET,
) -> DecisionGraph:
    """A decision graph with the classification function of ``dl``.

    Parameters
    ----------
    dl : DecisionList
    order : sequence of str, optional
        Variable order, top first (default: feature order).
    method : {"auto", "bdd", "mdd"}
        ``"bdd"``: reduced OBDD with dd (boolean features only); ``"mdd"``: reduced ordered MDD
        (any features); ``"auto"``: ``"bdd"`` when every tested feature is boolean.
    backend : {"autoref", "cudd"}
        The dd back-end of the ``"bdd"`` method.
    budget : int, optional
        The most diagram nodes, checked while the diagram is built (default
        :data:`GRAPH_BUDGET`; None: no limit).

    Returns
    -------
    DecisionGraph
        Satisfies Def. 2 by construction (read-once, edges partition each domain).

    Raises
    ------
    GraphTooLargeError
        When the diagram needs more than ``budget`` nodes: the list is then explained without
        compiling it (``xpg.Explainer(model)`` over its SAT oracle).
    """
    if method not in ("auto", "bdd", "mdd"):
        raise InvalidModelError(f"method: expected auto, bdd or mdd, found {method!r}")
    if method == "auto":
        by_name = {f.name: f for f in dl.features}
        boolean = all(by_name[n].kind == "boolean" for n in dl.tested_features())
        method = "bdd" if boolean else "mdd"
    try:
        if method == "bdd":
            return decision_list_to_obdd(dl, order, backend, budget).to_decision_graph()
        mdd, root, names, cells = decision_list_to_mdd(dl, order, budget)
    except GraphTooLargeError as err:
        raise GraphTooLargeError(
            f"{err}; explain it without compiling (xpg.Explainer(model) does, as xpg axp, "
            "cxp, enum, member, features and smallest do by themselves) or raise the budget"
        ) from None
    return mdd.to_decision_graph(root, dl.features, dl.classes, names, cells)


__all__ = [
    "GRAPH_BUDGET",
    "DecisionList",
    "Rule",
    "compile_decision_list",
    "decision_list_to_mdd",
    "decision_list_to_obdd",
]
