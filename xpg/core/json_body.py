"""The JSON forms of features and literals, and the checks of the JSON values around them: the
vocabulary every model kind (:class:`~xpg.core.graph.DecisionGraph` included) uses to read and
write its ``model`` object (the document around it is :mod:`xpg.io.model_json`, the format
``docs/model-format.md``).

Every problem is an :class:`~xpg.errors.InvalidModelError` naming its JSON location.

Examples
--------
>>> lit = literal_from_dict("x", {"interval": [1, 3], "closed": "both"}, "model.edges[0]")
>>> str(lit), literal_to_dict(lit)
('1 <= x <= 3', {'interval': [1.0, 3.0], 'closed': 'both'})
>>> expect(False, "model.root", "expected a node id")
Traceback (most recent call last):
...
xpg.errors.InvalidModelError: model.root: expected a node id
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from typing import Any

import portion as P

from xpg.core.features import Feature, Literal
from xpg.errors import InvalidFeatureError, InvalidModelError

LITERAL_KEYS = ("in", "le", "gt", "interval", "intervals")
CLOSED = ("right", "left", "both", "neither")


def expect(cond: bool, where: str, message: str) -> None:
    """Raise :class:`InvalidModelError` ``"where: message"`` unless ``cond``."""
    if not cond:
        raise InvalidModelError(f"{where}: {message}")


def json_objects(
    items: Any, where: str, noun: str, keys: Sequence[str], message: str
) -> Iterator[tuple[str, dict[str, Any]]]:
    """The entries of the JSON list of ``noun`` at ``where``, each with its location
    ``where[i]``.  The list is checked at once (else :class:`InvalidModelError` ``"where:
    expected a list of noun"``), each entry as it comes: an object holding ``keys`` (else
    ``"where[i]: message"``).

    Examples
    --------
    >>> [w for w, _ in json_objects([{"id": 1}], "model.nodes", "nodes", ("id",), "no 'id'")]
    ['model.nodes[0]']
    >>> json_objects({}, "model.nodes", "nodes", ("id",), "no 'id'")
    Traceback (most recent call last):
    ...
    xpg.errors.InvalidModelError: model.nodes: expected a list of nodes
    >>> list(json_objects([{}], "model.nodes", "nodes", ("id",), "expected an 'id'"))
    Traceback (most recent call last):
    ...
    xpg.errors.InvalidModelError: model.nodes[0]: expected an 'id'
    """
    expect(isinstance(items, list), where, f"expected a list of {noun}")

    def entries() -> Iterator[tuple[str, dict[str, Any]]]:
        for i, item in enumerate(items):
            here = f"{where}[{i}]"
            expect(isinstance(item, dict) and all(k in item for k in keys), here, message)
            yield here, item

    return entries()


def _num(x: Any, where: str, default: float) -> float:
    if x is None:
        return default
    expect(
        isinstance(x, (int, float)) and not isinstance(x, bool),
        where,
        f"expected a number or null, found {shown(x)}",
    )
    try:
        value = float(x)
    except OverflowError:
        value = math.inf
    expect(
        math.isfinite(value),
        where,
        f"expected a finite number or null, found {shown(x)}",
    )
    return value


def shown(x: Any) -> str:
    """``repr(x)``, cut short (a found value may be a whole subtree or a huge number)."""
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, int) and abs(x) > 10**30:
        return f"an integer of {len(str(abs(x)))} digits"
    text = (
        repr(x)
        if not isinstance(x, (dict, list))
        else f"a JSON {'object' if isinstance(x, dict) else 'array'}"
    )
    return text if len(text) <= 80 else text[:77] + "..."


def values_list(items: Any, where: str) -> list[Any]:
    """The values of an ``"in"`` or ``"values"`` list: strings and finite numbers, not
    ``true``/``false`` (Python would read them as 1 and 0), nothing nested."""
    expect(isinstance(items, list), where, f"expected a list of values, found {shown(items)}")
    for k, v in enumerate(items):
        ok = isinstance(v, (str, int, float)) and not isinstance(v, bool)
        if ok and isinstance(v, float):
            ok = math.isfinite(v)
        if ok and isinstance(v, int):
            ok = abs(v) <= 2**1023  # a float holds it (numeric literals compare as floats)
        expect(ok, f"{where}[{k}]", f"expected a string or a finite number, found {shown(v)}")
    return items


def feature_from_dict(d: Any, where: str) -> Feature:
    """A :class:`Feature` from its JSON form."""
    expect(isinstance(d, dict), where, f"expected an object, found {d!r}")
    name, kind = d.get("name"), d.get("type")
    expect(
        isinstance(name, str) and bool(name),
        where,
        f"expected a 'name' string, found {shown(name)}",
    )
    try:
        if kind == "boolean":
            return Feature.boolean(name)
        if kind == "categorical":
            values = d.get("values")
            expect(isinstance(values, list), where, "a categorical feature needs a 'values' list")
            return Feature.categorical(name, values_list(values, f"{where}.values"))
        if kind in ("integer", "real"):
            low = _num(d.get("low"), f"{where}.low", -math.inf)
            high = _num(d.get("high"), f"{where}.high", math.inf)
            return (
                Feature.integer(name, low, high)
                if kind == "integer"
                else Feature.real(name, low, high)
            )
    except InvalidFeatureError as err:
        raise InvalidModelError(f"{where}: {err}") from None
    raise InvalidModelError(
        f"{where}: expected 'type' boolean, categorical, integer or real, found {kind!r}"
    )


def literal_from_dict(feature: str, d: Any, where: str) -> Literal:
    """A :class:`Literal` on ``feature`` from the literal keys of an edge object."""
    if not isinstance(d, dict):  # the message only on failure: d may hold a whole subtree
        expect(False, where, f"expected an object, found {d!r}")
    keys = [k for k in LITERAL_KEYS if k in d]
    if len(keys) != 1:
        expect(
            False,
            where,
            f"expected exactly one of {', '.join(map(repr, LITERAL_KEYS))}, found {keys or 'none'}",
        )
    key = keys[0]
    if key == "intervals":
        return _union_from_list(feature, d["intervals"], where)
    if key == "in":
        return Literal.isin(feature, values_list(d["in"], f"{where}.in"))
    if key in ("le", "gt"):
        t = _num(d[key], f"{where}.{key}", math.nan)
        expect(not math.isnan(t), where, f"'{key}' needs a number")
        return Literal.le(feature, t) if key == "le" else Literal.gt(feature, t)
    iv = d["interval"]
    expect(
        isinstance(iv, list) and len(iv) == 2,
        where,
        f"'interval' must be [low, high], found {iv!r}",
    )
    closed = d.get("closed", "right")
    expect(
        closed in CLOSED,
        where,
        f"'closed' must be right, left, both or neither, found {closed!r}",
    )
    return Literal.interval(
        feature,
        _num(iv[0], f"{where}.interval", -math.inf),
        _num(iv[1], f"{where}.interval", math.inf),
        closed=closed,
    )


def _union_from_list(feature: str, items: Any, where: str) -> Literal:
    expect(
        isinstance(items, list) and bool(items),
        where,
        f"'intervals' must be a non-empty list of [low, high, closed], found {items!r}",
    )
    allowed = P.empty()
    for k, item in enumerate(items):
        expect(
            isinstance(item, list) and len(item) == 3 and item[2] in CLOSED,
            f"{where}.intervals[{k}]",
            f"expected [low, high, closed] with closed in {CLOSED}, found {item!r}",
        )
        lit = Literal.interval(
            feature,
            _num(item[0], f"{where}.intervals[{k}]", -math.inf),
            _num(item[1], f"{where}.intervals[{k}]", math.inf),
            closed=item[2],
        )
        allowed = allowed | lit.allowed
    return Literal(feature, allowed)


def _out(x: float) -> float | None:
    return None if math.isinf(x) else x


def _closed_name(lo_closed: bool, hi_closed: bool) -> str:
    return {(False, True): "right", (True, False): "left", (True, True): "both"}.get(
        (lo_closed, hi_closed), "neither"
    )


def literal_to_dict(lit: Literal) -> dict[str, Any]:
    """The JSON keys of a literal (see :func:`literal_from_dict`)."""
    if lit.is_value_set:
        return {"in": sorted(lit.allowed, key=lambda v: (str(type(v)), v))}
    atoms = lit.intervals()
    if len(atoms) != 1:
        return {"intervals": [[_out(lo), _out(hi), _closed_name(a, b)] for lo, hi, a, b in atoms]}
    lo, hi, lo_closed, hi_closed = atoms[0]
    out = _out

    if not lo_closed and hi_closed and math.isinf(lo):
        return {"le": hi}
    if not lo_closed and not hi_closed and math.isinf(hi):
        return {"gt": lo}
    return {"interval": [out(lo), out(hi)], "closed": _closed_name(lo_closed, hi_closed)}


def feature_ref(x: Any, names: Any, where: str) -> str:
    """A feature name used in a model: a string among the declared ``names``."""
    if not isinstance(x, str):
        expect(False, where, f"expected a feature name (a string), found {shown(x)}")
    if x not in names:
        expect(False, where, f"unknown feature {x!r} (declared: {', '.join(sorted(names))})")
    return x


def node_id(x: Any, where: str) -> Any:
    """A node id of a diagram: a string or an integer."""
    expect(
        isinstance(x, (str, int)) and not isinstance(x, bool),
        where,
        f"a node id must be a string or an integer, found {shown(x)}",
    )
    return x
