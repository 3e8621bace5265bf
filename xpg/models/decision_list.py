"""Decision lists: ordered rules ``IF conjunction THEN class``, then a default.

The first rule whose conditions all hold decides; the default decides when none does.
:meth:`DecisionList.to_decision_graph` compiles a list with
:func:`~xpg.compile.decision_list.compile_decision_list`.

Examples
--------
>>> from xpg.core.features import Feature, Literal, ValueSet
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

References
----------
Rivest. Learning decision lists. Machine Learning 1987.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from xpg.core.features import Feature, Literal, ValueSet
from xpg.core.instances import instance_dict
from xpg.core.valuesets import as_value_set
from xpg.errors import InvalidModelError


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

    def __init__(
        self,
        features: Sequence[Feature],
        classes: Sequence[Any],
        rules: Sequence[Rule],
        default: Any,
    ) -> None:
        self.features = list(features)
        self.classes = list(classes)
        self.rules = list(rules)
        self.default = default
        self.feature_index = {f.name: i for i, f in enumerate(self.features)}
        if len(self.feature_index) != len(self.features):
            raise InvalidModelError("decision list: a feature name is declared twice")
        if not self.classes or len(set(map(repr, self.classes))) != len(self.classes):
            raise InvalidModelError(
                f"decision list: expected distinct class labels, found {self.classes!r}"
            )
        for i, rule in enumerate(self.rules):
            if not isinstance(rule, Rule):
                raise InvalidModelError(f"rule {i}: expected a Rule, found {rule!r}")
            self._check_label(rule.label, f"rule {i}")
            self._check_conditions(rule.conditions, f"rule {i}")
        self._check_label(default, "default rule")

    def _check_label(self, label: Any, where: str) -> None:
        if not any(label == c and type(label) is type(c) for c in self.classes):
            raise InvalidModelError(
                f"{where}: class {label!r} is not declared (classes: {self.classes!r})"
            )

    def _check_conditions(self, conditions: Sequence[Literal], where: str) -> None:
        possible: dict[str, ValueSet] = {}
        for lit in conditions:
            if not isinstance(lit, Literal):
                raise InvalidModelError(f"{where}: expected a Literal, found {lit!r}")
            if lit.feature not in self.feature_index:
                raise InvalidModelError(
                    f"{where}: condition {lit} is over an unknown feature {lit.feature!r} "
                    f"(declared: {', '.join(self.feature_index)})"
                )
            f = self.features[self.feature_index[lit.feature]]
            if f.is_discrete and not lit.is_value_set:
                raise InvalidModelError(
                    f"{where}: condition {lit} is an interval on the {f.kind} feature "
                    f"{f.name!r}; expected a value set"
                )
            if lit.is_value_set:
                bad = [v for v in lit.allowed if not f.contains(v)]
                if bad:
                    raise InvalidModelError(
                        f"{where}: condition {lit} has value(s) {bad!r} outside the domain of "
                        f"{f.name!r}"
                    )
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


__all__ = ["DecisionList", "Rule"]
