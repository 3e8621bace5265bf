"""The checks a model kind makes of what it is given: a literal over its features, and a
variable order over the features it tests.

Every problem is an :class:`~xpg.errors.InvalidModelError` saying where it is.

Examples
--------
>>> from xpg.core.features import Feature, Literal
>>> feats = [Feature.boolean("a"), Feature.integer("n", 0, 3)]
>>> checked_literal(Literal.le("n", 2), feats, {"a": 0, "n": 1}, "rule 0").name
'n'
>>> variable_order(["a", "n"], {"a": 0, "n": 1}, ["n", "a"])
['n', 'a']
"""

from __future__ import annotations

from collections.abc import Container, Mapping, Sequence
from typing import Any

from xpg.core.features import Feature, Literal
from xpg.core.valuesets import literal_mismatch
from xpg.errors import InvalidModelError


def checked_literal(
    lit: Any,
    features: Sequence[Feature],
    feature_index: Mapping[str, int],
    where: str,
    label: str = "",
) -> Feature:
    """The feature ``lit`` tests, once ``lit`` is checked: a :class:`Literal` over a declared
    feature that fits its domain (:func:`~xpg.core.valuesets.literal_mismatch`).

    Raises :class:`InvalidModelError` ``"where: ..."`` naming the literal as ``label`` then the
    literal (``label="condition "``: ``"rule 0: condition x <= 1 ..."``).

    Examples
    --------
    >>> checked_literal(Literal.le("z", 1), [Feature.real("x")], {"x": 0}, "rule 0", "if ")
    Traceback (most recent call last):
    ...
    xpg.errors.InvalidModelError: rule 0: if z <= 1 is over an unknown feature 'z' (declared: x)
    """
    if not isinstance(lit, Literal):
        raise InvalidModelError(f"{where}: expected a Literal, found {lit!r}")
    if lit.feature not in feature_index:
        raise InvalidModelError(
            f"{where}: {label}{lit} is over an unknown feature {lit.feature!r} "
            f"(declared: {', '.join(feature_index)})"
        )
    feature = features[feature_index[lit.feature]]
    problem = literal_mismatch(feature, lit)
    if problem:
        raise InvalidModelError(f"{where}: {label}{lit}: {problem}")
    return feature


def variable_order(
    tested: Sequence[str], declared: Container[str], order: Sequence[str] | None
) -> list[str]:
    """The ``tested`` features in the variable ``order`` (default: as ``tested`` lists them),
    the order checked: distinct ``declared`` names, every tested feature among them.

    Examples
    --------
    >>> variable_order(["a", "n"], {"a", "n", "u"}, ["u", "n", "a"])  # untested names drop out
    ['n', 'a']
    >>> variable_order(["a", "n"], {"a", "n"}, ["n"])
    Traceback (most recent call last):
    ...
    xpg.errors.InvalidModelError: order: the tested feature(s) ['a'] are missing
    """
    if order is None:
        return list(tested)
    names = list(order)
    unknown = [n for n in names if n not in declared]
    if unknown or len(set(names)) != len(names):
        raise InvalidModelError(f"order: expected distinct declared feature names, found {names!r}")
    missing = [n for n in tested if n not in names]
    if missing:
        raise InvalidModelError(f"order: the tested feature(s) {missing!r} are missing")
    return [n for n in names if n in set(tested)]


__all__ = ["checked_literal", "variable_order"]
