"""Feature domains and the literals that label decision-graph edges.

A :class:`Feature` is boolean, categorical (a declared value set), integer
(ordinal, inclusive bounds) or real (bounds, default the whole line).  A
:class:`Literal` says which values of one feature an edge admits: a value set
for discrete features, a union of intervals for numeric ones (``low < x <= high``
by default, the form threshold trees produce).

Freeing a feature in an explanation means it may take any value of its declared
domain, so the domain is part of the model.

Examples
--------
>>> age = Feature.integer("age", 0, 120)
>>> lit = Literal.le("age", 40)
>>> lit.satisfied_by(40), lit.satisfied_by(41)
(True, False)
>>> str(lit)
'age <= 40'
>>> colour = Feature.categorical("colour", ["red", "green", "blue"])
>>> str(Literal.isin("colour", ["red", "blue"]))
"colour in {'blue', 'red'}"
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field
from typing import Any, TypeAlias
from typing import Literal as TypingLiteral

import portion as P

from xpg.errors import InvalidFeatureError, InvalidInstanceError

FeatureKind = TypingLiteral["boolean", "categorical", "integer", "real"]
FEATURE_KINDS: tuple[str, ...] = ("boolean", "categorical", "integer", "real")

#: The values a literal admits: a frozenset (discrete features) or a ``portion`` interval union
#: (portion ships no type information, hence ``Any`` for the type checker).
ValueSet: TypeAlias = Any


def _bound(x: float) -> Any:
    """Map Python infinities to portion's, which compare correctly with every number; refuse
    what is no interval end (NaN, a bool, a non-number, an integer beyond the float range)."""
    if x is P.inf or x is -P.inf or isinstance(x, type(P.inf)) or isinstance(x, type(-P.inf)):
        return x
    ok = isinstance(x, numbers.Real) and not isinstance(x, bool)
    try:
        ok = ok and not math.isnan(float(x))
    except OverflowError:
        ok = False
    if not ok:
        raise InvalidFeatureError(f"expected a number as an interval end, found {x!r}"[:200])
    if isinstance(x, float) and math.isinf(x):
        return P.inf if x > 0 else -P.inf
    return x


def _number(x: Any) -> float:
    """Turn a portion bound back into a float (portion's infinities included)."""
    if x == P.inf:
        return math.inf
    if x == -P.inf:
        return -math.inf
    return float(x)


@dataclass(frozen=True)
class Feature:
    """One input of a model, with its domain.

    Use the constructors :meth:`boolean`, :meth:`categorical`, :meth:`integer`
    and :meth:`real` rather than the fields.

    Examples
    --------
    >>> Feature.boolean("smoker").values
    (0, 1)
    >>> Feature.real("income", low=0.0).contains(-1.0)
    False
    """

    name: str
    kind: FeatureKind
    values: tuple = ()
    low: float = -math.inf
    high: float = math.inf
    _codes: dict = field(default_factory=dict, compare=False, hash=False, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise InvalidFeatureError(
                f"a feature name must be a non-empty string, found {self.name!r}"
            )
        if self.kind not in FEATURE_KINDS:
            raise InvalidFeatureError(
                f"feature {self.name!r}: kind must be one of {', '.join(FEATURE_KINDS)}, "
                f"found {self.kind!r}"
            )
        if self.is_discrete:
            unhashable = [v for v in self.values if not isinstance(v, Hashable)]
            if unhashable:
                raise InvalidFeatureError(
                    f"feature {self.name!r}: expected strings or numbers as values, "
                    f"found {unhashable[0]!r}"
                )
            if len(self.values) == 0:
                raise InvalidFeatureError(f"feature {self.name!r}: the domain has no values")
            # numpy scalars as plain Python values, so answers never show np.int64(1)
            plain = tuple(v.item() if type(v).__module__ == "numpy" else v for v in self.values)
            object.__setattr__(self, "values", plain)
            if len(set(self.values)) != len(self.values):
                raise InvalidFeatureError(
                    f"feature {self.name!r}: repeated values in {self.values!r}"
                )
            self._codes.update({v: i for i, v in enumerate(self.values)})
        else:
            if not self.low <= self.high:
                raise InvalidFeatureError(
                    f"feature {self.name!r}: empty domain, low={self.low!r} > high={self.high!r}"
                )
            if self.kind == "integer" and (
                (math.isfinite(self.low) and self.low != int(self.low))
                or (math.isfinite(self.high) and self.high != int(self.high))
            ):
                raise InvalidFeatureError(
                    f"integer feature {self.name!r}: bounds must be integers, "
                    f"found low={self.low!r}, high={self.high!r}"
                )

    # -- constructors -------------------------------------------------------------------------
    # (see _bound_value for the bounds an integer or real feature accepts)
    @classmethod
    def boolean(cls, name: str) -> Feature:
        """A feature with values 0 and 1."""
        return cls(name, "boolean", (0, 1))

    @classmethod
    def categorical(cls, name: str, values: Iterable[Any]) -> Feature:
        """A feature with a declared, finite set of values (strings or numbers)."""
        return cls(name, "categorical", tuple(values))

    @classmethod
    def integer(cls, name: str, low: float = -math.inf, high: float = math.inf) -> Feature:
        """An integer (ordinal) feature with inclusive bounds."""
        return cls(name, "integer", (), _bound_value(name, low), _bound_value(name, high))

    @classmethod
    def real(cls, name: str, low: float = -math.inf, high: float = math.inf) -> Feature:
        """A real feature on the closed interval ``[low, high]`` (default: all reals)."""
        return cls(name, "real", (), _bound_value(name, low), _bound_value(name, high))

    # -- domain ------------------------------------------------------------------------------
    @property
    def is_discrete(self) -> bool:
        """True for boolean and categorical features (value-set literals)."""
        return self.kind in ("boolean", "categorical")

    def domain_set(self) -> ValueSet:
        """The whole domain as a value set."""
        if self.is_discrete:
            return frozenset(self.values)
        return P.closed(_bound(self.low), _bound(self.high))

    def is_empty(self, values: ValueSet) -> bool:
        """True when ``values`` holds no value of this feature (integers: no integer)."""
        if isinstance(values, frozenset):
            return not values
        if values.empty:
            return True
        if self.kind != "integer":
            return False
        for atom in values:
            lo, hi = _number(atom.lower), _number(atom.upper)
            if math.isinf(lo) or math.isinf(hi):
                return False
            first = math.floor(lo) + 1 if atom.left == P.OPEN else math.ceil(lo)
            last = math.ceil(hi) - 1 if atom.right == P.OPEN else math.floor(hi)
            if first <= last:
                return False
        return True

    def code(self, value: Any) -> int:
        """Index of a discrete value in ``values`` (used for vectorised edge labelling)."""
        return int(self._codes[value])

    def contains(self, value: Any) -> bool:
        """True when ``value`` belongs to the domain."""
        try:
            self.check_value(value)
        except InvalidInstanceError:
            return False
        return True

    def check_value(self, value: Any) -> Any:
        """Return ``value`` in canonical form, or raise :class:`InvalidInstanceError`."""
        if self.is_discrete:
            if self.kind == "boolean" and isinstance(value, bool):
                value = int(value)
            try:
                if value in self._codes:
                    return self.values[self._codes[value]]  # the declared value, plain
            except TypeError:
                pass
            raise InvalidInstanceError(
                f"feature {self.name!r}: expected one of {list(self.values)!r}, found {value!r}"
            )
        try:
            number = float(value)
        except (TypeError, ValueError, OverflowError):
            raise InvalidInstanceError(
                f"feature {self.name!r}: expected a number, found {value!r}"
            ) from None
        if math.isnan(number):
            raise InvalidInstanceError(f"feature {self.name!r}: expected a number, found NaN")
        if math.isinf(number):  # no domain holds an infinity (int() of it would overflow)
            raise InvalidInstanceError(
                f"feature {self.name!r}: expected a finite number, found {value!r}"
            )
        if self.kind == "integer" and number != int(number):
            raise InvalidInstanceError(
                f"integer feature {self.name!r}: expected an integer, found {value!r}"
            )
        if not self.low <= number <= self.high:
            raise InvalidInstanceError(
                f"feature {self.name!r}: expected a value in [{self.low}, {self.high}], "
                f"found {value!r}"
            )
        return int(number) if self.kind == "integer" else number

    def parse_value(self, text: str) -> Any:
        """Parse a value written as text (command line, CSV), then check it."""
        text = text.strip()
        if self.is_discrete:
            for v in self.values:
                if str(v) == text:
                    return v
            if self.kind == "boolean" and text.lower() in ("true", "false"):
                return int(text.lower() == "true")
            raise InvalidInstanceError(
                f"feature {self.name!r}: expected one of {[str(v) for v in self.values]}, "
                f"found {text!r}"
            )
        return self.check_value(text)

    def to_json(self) -> dict[str, Any]:
        """The feature as a JSON-ready dict (see :func:`xpg.io.model_json`)."""
        out: dict[str, Any] = {"name": self.name, "type": self.kind}
        if self.kind == "categorical":
            out["values"] = list(self.values)
        elif not self.is_discrete:
            out["low"] = None if math.isinf(self.low) else self.low
            out["high"] = None if math.isinf(self.high) else self.high
        return out


@dataclass(frozen=True)
class Literal:
    """The values of one feature that an edge admits (``x in E``).

    Examples
    --------
    >>> Literal.gt("x", 2.5).satisfied_by(3.0)
    True
    >>> str(Literal.interval("x", 1, 4))
    '1 < x <= 4'
    """

    feature: str
    allowed: ValueSet

    @classmethod
    def isin(cls, feature: str, values: Iterable[Any]) -> Literal:
        """``feature in values`` (discrete features; also integers)."""
        try:
            return cls(feature, frozenset(values))
        except TypeError:
            raise InvalidFeatureError(
                f"literal on {feature!r}: expected strings or numbers as values, found {values!r}"
            ) from None

    @classmethod
    def eq(cls, feature: str, value: Any) -> Literal:
        """``feature == value``."""
        return cls(feature, frozenset([value]))

    @classmethod
    def interval(
        cls,
        feature: str,
        low: float,
        high: float,
        closed: TypingLiteral["right", "left", "both", "neither"] = "right",
    ) -> Literal:
        """``low < feature <= high`` (by default; ``closed`` says which ends are included)."""
        left = P.CLOSED if closed in ("left", "both") else P.OPEN
        right = P.CLOSED if closed in ("right", "both") else P.OPEN
        try:
            lo, hi = _bound(low), _bound(high)
        except InvalidFeatureError as err:
            raise InvalidFeatureError(f"literal on {feature!r}: {err}") from None
        return cls(feature, P.Interval.from_atomic(left, lo, hi, right))

    @classmethod
    def le(cls, feature: str, threshold: float) -> Literal:
        """``feature <= threshold``."""
        return cls.interval(feature, -math.inf, threshold)

    @classmethod
    def gt(cls, feature: str, threshold: float) -> Literal:
        """``feature > threshold``."""
        return cls.interval(feature, threshold, math.inf)

    @property
    def is_value_set(self) -> bool:
        """True for a value-set literal, False for an interval literal."""
        return isinstance(self.allowed, frozenset)

    def satisfied_by(self, value: Any) -> bool:
        """True when ``value`` is one of the admitted values."""
        if isinstance(self.allowed, frozenset):
            return value in self.allowed
        return bool(value in self.allowed)

    def intervals(self) -> list[tuple[float, float, bool, bool]]:
        """The atomic intervals as ``(low, high, low_included, high_included)``."""
        if isinstance(self.allowed, frozenset):
            raise TypeError("a value-set literal has no intervals")
        return _atoms(self.allowed)

    def __str__(self) -> str:
        return describe_values(self.feature, self.allowed)


def _atoms(allowed: ValueSet) -> list[tuple[float, float, bool, bool]]:
    """The atomic intervals of a portion interval set, as :meth:`Literal.intervals` gives them."""
    return [
        (_number(a.lower), _number(a.upper), a.left == P.CLOSED, a.right == P.CLOSED)
        for a in allowed
        if not a.empty
    ]


def as_comparison(
    lo: float, hi: float, lo_closed: bool, hi_closed: bool
) -> tuple[str, float] | None:
    """An interval ``lo .. hi`` read as one comparison of a value, ``(operator, bound)``:
    ``("any", inf)`` for the whole line, ``("<=", hi)`` or ``("<", hi)`` without a lower end,
    ``(">=", lo)`` or ``(">", lo)`` without an upper end, ``("=", lo)`` for one point;
    ``None`` when it takes two bounds.

    Examples
    --------
    >>> as_comparison(-math.inf, 2.5, False, True), as_comparison(1.0, 4.0, False, True)
    (('<=', 2.5), None)
    """
    if math.isinf(lo) and math.isinf(hi):
        return "any", math.inf
    if math.isinf(lo):
        return ("<=" if hi_closed else "<"), hi
    if math.isinf(hi):
        return (">=" if lo_closed else ">"), lo
    if lo == hi:
        return "=", lo
    return None


def _fmt(x: float) -> str:
    return f"{x:g}" if isinstance(x, float) else str(x)


def describe_values(name: str, allowed: ValueSet) -> str:
    """Human-readable condition ``name in allowed`` (``x <= 3``, ``x in {a, b}``, ``x = a``).

    Examples
    --------
    >>> import portion as P
    >>> describe_values("x", P.openclosed(-P.inf, 3.5) | P.open(7, P.inf))
    'x <= 3.5 or x > 7'
    """
    if isinstance(allowed, frozenset):
        vals = sorted(allowed, key=lambda v: (str(type(v)), v))
        if len(vals) == 1:
            return f"{name} = {vals[0]!r}" if isinstance(vals[0], str) else f"{name} = {vals[0]}"
        return f"{name} in {{{', '.join(repr(v) for v in vals)}}}"
    parts = []
    for lo, hi, lo_closed, hi_closed in _atoms(allowed):
        one = as_comparison(lo, hi, lo_closed, hi_closed)
        if one is None:
            lo_op, hi_op = ("<=" if lo_closed else "<"), ("<=" if hi_closed else "<")
            parts.append(f"{_fmt(lo)} {lo_op} {name} {hi_op} {_fmt(hi)}")
        else:
            op, bound = one
            parts.append(f"{name} is any value" if op == "any" else f"{name} {op} {_fmt(bound)}")
    return " or ".join(parts) if parts else f"{name} in {{}}"


def real_features(names: Iterable[str]) -> list[Feature]:
    """Real features with the given names (a convenience for numeric data sets).

    Examples
    --------
    >>> [f.kind for f in real_features(["a", "b"])]
    ['real', 'real']
    """
    return [Feature.real(str(n)) for n in names]


def _bound_value(name: Any, x: Any) -> float:
    """A domain bound as a float: a number (an infinity for no bound), not NaN, not a bool."""
    ok = isinstance(x, numbers.Real) and not isinstance(x, bool)
    try:
        value = float(x) if ok else math.nan
    except OverflowError:  # an integer beyond the float range
        value = math.nan
    if math.isnan(value):
        raise InvalidFeatureError(
            f"feature {name!r}: expected a number (or an infinity) as a bound, found {x!r}"[:200]
        )
    return value
