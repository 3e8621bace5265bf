"""One vocabulary for checking parameters, before any work starts.

A parameter is checked against a list of constraints, any one of which may accept it (as
scikit-learn's ``_parameter_constraints``): an :class:`Interval` of integers or reals, a set
of :class:`Options`, ``None`` (the parameter may be None), or a type.  The message of a
refusal names the parameter, every accepted form and the value found; the exception is
:class:`~xpg.errors.InvalidParameterError` unless the caller names a subclass.

Examples
--------
>>> check_param("limit", 3, Interval(int, 1, None), None)
3
>>> check_param("limit", 0, Interval(int, 1, None), None)
Traceback (most recent call last):
...
xpg.errors.InvalidParameterError: limit: expected an integer >= 1 or None, found 0
>>> check_param("error", 0.05, Interval(float, 0, 1, closed="neither"))
0.05
>>> check_param("kind", "axp", Options({"axp", "cxp"}))
'axp'

References
----------
scikit-learn, ``sklearn.utils._param_validation`` (``Interval``, ``StrOptions``,
``validate_params``) and ``sklearn.utils.check_scalar``.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Mapping
from typing import Any, Literal

from xpg.errors import InvalidParameterError

Closed = Literal["both", "left", "right", "neither"]


class Interval:
    """Integers (``kind=int``) or finite real numbers (``kind=float``, integers accepted)
    between ``low`` and ``high`` (None: unbounded on that side), bounds included as
    ``closed`` says.  Booleans and NaN are never accepted.

    Examples
    --------
    >>> Interval(int, 1, None).description
    'an integer >= 1'
    >>> Interval(float, 0, 1, closed="right").description
    'a number in (0, 1]'
    """

    def __init__(
        self,
        kind: type,
        low: float | None,
        high: float | None,
        *,
        closed: Closed = "both",
    ) -> None:
        if kind not in (int, float):
            raise TypeError(f"Interval: kind is int or float, found {kind!r}")
        self.kind, self.low, self.high, self.closed = kind, low, high, closed

    def accepts(self, value: Any) -> bool:
        """True when ``value`` is of the kind and inside the bounds."""
        if isinstance(value, bool) or type(value).__name__ == "bool_":
            return False
        wanted = numbers.Integral if self.kind is int else numbers.Real
        if not isinstance(value, wanted):
            return False
        x = float(value)
        if math.isnan(x) or (self.kind is float and math.isinf(x)):
            return False
        if self.low is not None:
            if x < self.low or (x == self.low and self.closed in ("right", "neither")):
                return False
        if self.high is not None:
            if x > self.high or (x == self.high and self.closed in ("left", "neither")):
                return False
        return True

    def convert(self, value: Any) -> Any:
        """``value`` as a plain ``int`` or ``float``."""
        return int(value) if self.kind is int else float(value)

    @property
    def description(self) -> str:
        """The accepted values, in words."""
        noun = "an integer" if self.kind is int else "a number"
        low, high = _shown(self.low), _shown(self.high)
        if self.low is not None and self.high is not None:
            left = "[" if self.closed in ("both", "left") else "("
            right = "]" if self.closed in ("both", "right") else ")"
            return f"{noun} in {left}{low}, {high}{right}"
        if self.low is not None:
            return f"{noun} {'>=' if self.closed in ('both', 'left') else '>'} {low}"
        if self.high is not None:
            return f"{noun} {'<=' if self.closed in ('both', 'right') else '<'} {high}"
        return "a finite number" if self.kind is float else noun


class Options:
    """One of a set of values (compared with ``==``).

    Examples
    --------
    >>> Options({"sat", "smt"}).description
    "one of 'sat', 'smt'"
    """

    def __init__(self, values: Iterable[Any]) -> None:
        self.values = list(dict.fromkeys(values))

    def accepts(self, value: Any) -> bool:
        """True when ``value`` is one of the options."""
        try:
            return value in self.values
        except TypeError:  # an unhashable or incomparable value
            return False

    def convert(self, value: Any) -> Any:
        """``value`` itself."""
        return value

    @property
    def description(self) -> str:
        """The accepted values, in words."""
        shown = sorted(repr(v) for v in self.values)
        return f"one of {', '.join(shown)}"


def _shown(bound: float | None) -> str:
    if bound is None:
        return ""
    return str(int(bound)) if float(bound).is_integer() else f"{bound:g}"


def _describe(constraint: Any) -> str:
    if constraint is None:
        return "None"
    if isinstance(constraint, type):
        return f"a {constraint.__name__}"
    return str(constraint.description)


def check_param(
    name: str,
    value: Any,
    *constraints: Any,
    error: type[InvalidParameterError] = InvalidParameterError,
    where: str = "",
) -> Any:
    """``value`` (converted: plain ``int``/``float`` for an interval) when one constraint
    accepts it, else ``error`` naming ``where`` (a prefix such as ``"Harmonica: "``), the
    parameter, every accepted form and the value found.

    Examples
    --------
    >>> check_param("timeout", None, Interval(float, 0, None), None) is None
    True
    >>> check_param("depth", 2.0, Interval(int, 1, None), where="Tree: ")
    Traceback (most recent call last):
    ...
    xpg.errors.InvalidParameterError: Tree: depth: expected an integer >= 1, found 2.0
    """
    for constraint in constraints:
        if constraint is None:
            if value is None:
                return None
        elif isinstance(constraint, type):
            if isinstance(value, constraint):
                return value
        elif constraint.accepts(value):
            return constraint.convert(value)
    expected = " or ".join(_describe(c) for c in constraints)
    raise error(f"{where}{name}: expected {expected}, found {value!r}")


def validate_params(
    values: Mapping[str, Any],
    constraints: Mapping[str, list[Any]],
    *,
    error: type[InvalidParameterError] = InvalidParameterError,
    where: str = "",
) -> dict[str, Any]:
    """Every parameter of ``values`` checked with its constraints (:func:`check_param`), as a
    new dict of converted values; a parameter without constraints passes as it is.

    Examples
    --------
    >>> rules = {"limit": [Interval(int, 1, None), None],
    ...          "timeout": [Interval(float, 0, None), None]}
    >>> validate_params({"limit": 2, "timeout": 1}, rules)
    {'limit': 2, 'timeout': 1.0}
    """
    return {
        key: check_param(key, value, *constraints[key], error=error, where=where)
        if key in constraints
        else value
        for key, value in values.items()
    }


def random_generator(seed: Any, name: str = "seed") -> Any:
    """The one seed normaliser: a :class:`numpy.random.Generator` from an ``int`` (from 0 up;
    ``numpy.random.default_rng``), a ``Generator`` (returned as it is: its state advances), a
    :class:`random.Random` (one draw of its own seeds a new generator) or None (fresh entropy).

    Raises
    ------
    InvalidParameterError
        For anything else (a negative int, a float, a string), naming ``name``.

    Examples
    --------
    >>> g = random_generator(0)
    >>> random_generator(g) is g, int(random_generator(0).integers(100)) == int(g.integers(100))
    (True, True)
    >>> random_generator(-1)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    xpg.errors.InvalidParameterError: seed: expected an integer >= 0 or a Generator or ..., found -1
    """
    import random

    import numpy as np

    checked = check_param(
        name, seed, Interval(int, 0, None), np.random.Generator, random.Random, None
    )
    if isinstance(checked, np.random.Generator):
        return checked
    if isinstance(checked, random.Random):
        return np.random.default_rng(checked.randrange(2**32))
    return np.random.default_rng(checked)


__all__ = ["Interval", "Options", "check_param", "random_generator", "validate_params"]
