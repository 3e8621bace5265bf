"""Value sets: the values of one feature that a literal allows, and the cells that literals
cannot tell apart.

A value set is a ``frozenset`` for boolean and categorical features and a ``portion``
interval set for integer and real ones (see :meth:`~xpg.core.features.Feature.domain_set`).

Examples
--------
>>> from xpg.core.features import Feature, Literal, describe_values
>>> x = Feature.integer("x", 0, 9)
>>> describe_values("x", as_value_set(x, Literal.isin("x", [1, 2])))
'x = 1 or x = 2'
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import portion as P

from xpg.core.features import Feature, Literal, ValueSet


def as_value_set(feature: Feature, lit: Literal) -> ValueSet:
    """The values of ``lit`` in the form of ``feature.domain_set()`` (numbers: a portion set)."""
    if feature.is_discrete or not lit.is_value_set:
        return lit.allowed
    out = P.empty()
    for v in lit.allowed:
        out |= P.singleton(v)
    return out


def literal_mismatch(feature: Feature, lit: Literal) -> str | None:
    """What makes ``lit`` unfit to test ``feature`` (``None``: nothing): an interval on a
    discrete feature, or listed values outside the domain.

    Examples
    --------
    >>> from xpg.core.features import Feature, Literal, describe_values
    >>> literal_mismatch(Feature.integer("n", 0, 3), Literal.isin("n", [2, 7]))
    "value(s) [7] outside the domain of 'n'"
    >>> literal_mismatch(Feature.boolean("b"), Literal.le("b", 0)) is not None
    True
    """
    if feature.is_discrete and not lit.is_value_set:
        return (
            f"expected a value set for the {feature.kind} feature {feature.name!r}, "
            f"found the interval {lit}"
        )
    bad = values_outside(feature, lit)
    return f"value(s) {bad!r} outside the domain of {feature.name!r}" if bad else None


def values_outside(feature: Feature, lit: Literal) -> list[Any]:
    """The values a value-set literal lists that the feature's domain does not hold.

    Examples
    --------
    >>> from xpg.core.features import Feature, Literal
    >>> values_outside(Feature.integer("n", 0, 3), Literal.isin("n", [2, 7]))
    [7]
    """
    return [v for v in lit.allowed if not feature.contains(v)] if lit.is_value_set else []


def feature_cells(feature: Feature, sets: Iterable[ValueSet]) -> list[ValueSet]:
    """Partition the domain of ``feature`` into the cells that ``sets`` cannot split.

    Two values are in one cell exactly when every set holds both or neither.  Empty
    cells (no value of the domain, integers counted as integers) are dropped.

    Examples
    --------
    >>> from xpg.core.features import Feature, Literal, describe_values
    >>> cells = feature_cells(Feature.real("x"), [P.openclosed(-P.inf, 1), P.open(3, P.inf)])
    >>> [describe_values("x", c) for c in cells]
    ['x <= 1', '1 < x <= 3', 'x > 3']
    """
    cells: list[ValueSet] = [feature.domain_set()]
    for s in sets:
        refined: list[ValueSet] = []
        for cell in cells:
            for part in (cell & s, cell - s):
                if not feature.is_empty(part):
                    refined.append(part)
        cells = refined
    if not feature.is_discrete:
        cells.sort(key=lambda c: (c.lower, c.left == P.OPEN))
    else:
        order = {v: i for i, v in enumerate(feature.values)}
        cells.sort(key=lambda c: min(order[v] for v in c))
    return cells


def union(feature: Feature, parts: Iterable[ValueSet]) -> ValueSet:
    """The union of value sets of one feature."""
    acc: ValueSet = frozenset() if feature.is_discrete else P.empty()
    for p in parts:
        acc = acc | p
    return acc


__all__ = ["as_value_set", "feature_cells", "literal_mismatch", "union", "values_outside"]
