"""The project's own JSON model format.

A model file holds the features (names, types, domains), the classes and the
model itself.  Version 1 knows the model type ``decision-graph``::

    {"format": "xpg-model", "version": 1,
     "features": [{"name": "age", "type": "integer", "low": 0, "high": 120},
                  {"name": "colour", "type": "categorical", "values": ["red", "blue"]},
                  {"name": "income", "type": "real"},            # low/high: null = unbounded
                  {"name": "student", "type": "boolean"}],
     "classes": ["no", "yes"],
     "model": {"type": "decision-graph", "root": "n0",
               "nodes": [{"id": "n0", "feature": "age"}, {"id": "t1", "class": "yes"}, ...],
               "edges": [{"from": "n0", "to": "t1", "le": 30},   # or "gt", "in": [...],
                         ...]}}                                 # or "interval": [lo, hi]

Edge literals: ``{"in": [values]}``, ``{"le": t}``, ``{"gt": t}``, or
``{"interval": [low, high], "closed": "right"|"left"|"both"|"neither"}`` (default
``"right"``: ``low < x <= high``; ``null`` is an infinite end).

Examples
--------
>>> from xpg.features import Feature, Literal
>>> from xpg.graph import DecisionGraph
>>> dg = DecisionGraph([Feature.real("x")], classes=["a", "b"])
>>> dg.add_node(0, "x"); dg.add_terminal(1, "a"); dg.add_terminal(2, "b")
>>> dg.add_edge(0, 1, Literal.le("x", 2.5)); dg.add_edge(0, 2, Literal.gt("x", 2.5))
>>> again = model_from_dict(model_to_dict(dg))
>>> again.predict({"x": 3.0})
'b'
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from xpg.errors import InvalidFeatureError, InvalidGraphError, InvalidModelError, ParseError
from xpg.features import Feature, Literal
from xpg.graph import DecisionGraph
from xpg.io.atomic import write_text_atomic

FORMAT = "xpg-model"
VERSION = 1


def _expect(cond: bool, where: str, message: str) -> None:
    if not cond:
        raise InvalidModelError(f"{where}: {message}")


def _num(x: Any, where: str, default: float) -> float:
    if x is None:
        return default
    _expect(
        isinstance(x, (int, float)) and not isinstance(x, bool),
        where,
        f"expected a number or null, found {x!r}",
    )
    return float(x)


def feature_from_dict(d: Any, where: str) -> Feature:
    """A :class:`Feature` from its JSON form."""
    _expect(isinstance(d, dict), where, f"expected an object, found {d!r}")
    name, kind = d.get("name"), d.get("type")
    _expect(
        isinstance(name, str) and bool(name), where, f"expected a 'name' string, found {name!r}"
    )
    try:
        if kind == "boolean":
            return Feature.boolean(name)
        if kind == "categorical":
            values = d.get("values")
            _expect(isinstance(values, list), where, "a categorical feature needs a 'values' list")
            return Feature.categorical(name, values)
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
    keys = [k for k in ("in", "le", "gt", "interval") if k in d]
    _expect(
        len(keys) == 1,
        where,
        f"expected exactly one of 'in', 'le', 'gt', 'interval', found {keys or 'none'}",
    )
    key = keys[0]
    if key == "in":
        _expect(isinstance(d["in"], list), where, f"'in' must be a list, found {d['in']!r}")
        return Literal.isin(feature, d["in"])
    if key in ("le", "gt"):
        t = _num(d[key], f"{where}.{key}", math.nan)
        _expect(not math.isnan(t), where, f"'{key}' needs a number")
        return Literal.le(feature, t) if key == "le" else Literal.gt(feature, t)
    iv = d["interval"]
    _expect(
        isinstance(iv, list) and len(iv) == 2,
        where,
        f"'interval' must be [low, high], found {iv!r}",
    )
    closed = d.get("closed", "right")
    _expect(
        closed in ("right", "left", "both", "neither"),
        where,
        f"'closed' must be right, left, both or neither, found {closed!r}",
    )
    return Literal.interval(
        feature,
        _num(iv[0], f"{where}.interval", -math.inf),
        _num(iv[1], f"{where}.interval", math.inf),
        closed=closed,
    )


def literal_to_dict(lit: Literal) -> dict[str, Any]:
    """The JSON keys of a literal (see :func:`literal_from_dict`)."""
    if lit.is_value_set:
        return {"in": sorted(lit.allowed, key=lambda v: (str(type(v)), v))}
    atoms = lit.intervals()
    if len(atoms) != 1:
        raise InvalidModelError(f"literal {lit} is a union of intervals; JSON version 1 has none")
    lo, hi, lo_closed, hi_closed = atoms[0]

    def out(x: float) -> float | None:
        return None if math.isinf(x) else x

    if not lo_closed and hi_closed and math.isinf(lo):
        return {"le": hi}
    if not lo_closed and not hi_closed and math.isinf(hi):
        return {"gt": lo}
    closed = {(False, True): "right", (True, False): "left", (True, True): "both"}.get(
        (lo_closed, hi_closed), "neither"
    )
    return {"interval": [out(lo), out(hi)], "closed": closed}


def _graph_from_dict(m: dict, features: list[Feature], classes: list[Any]) -> DecisionGraph:
    nodes, edges = m.get("nodes"), m.get("edges")
    if not isinstance(nodes, list) or not isinstance(edges, list):
        raise InvalidModelError("model: expected 'nodes' and 'edges' lists")
    dg = DecisionGraph(features, classes, root=m.get("root"))
    feature_of: dict[Any, str | None] = {}
    for i, node in enumerate(nodes):
        where = f"model.nodes[{i}]"
        _expect(isinstance(node, dict) and "id" in node, where, "expected an object with an 'id'")
        nid = node["id"]
        _expect(
            isinstance(nid, (str, int)) and not isinstance(nid, bool),
            where,
            f"'id' must be a string or an integer, found {nid!r}",
        )
        _expect(
            not ("feature" in node and "class" in node),
            where,
            "a node has either a 'feature' (non-terminal) or a 'class' (terminal), not both",
        )
        try:
            if "class" in node:
                dg.add_terminal(nid, node["class"])
            else:
                dg.add_node(nid, node.get("feature"))
        except InvalidGraphError as err:
            raise InvalidModelError(f"{where}: {err}") from None
        feature_of[nid] = node.get("feature")
    for i, edge in enumerate(edges):
        where = f"model.edges[{i}]"
        _expect(
            isinstance(edge, dict) and "from" in edge and "to" in edge,
            where,
            "expected an object with 'from' and 'to'",
        )
        parent = edge["from"]
        _expect(parent in feature_of, where, f"'from' names an unknown node {parent!r}")
        feature = feature_of[parent]
        _expect(feature is not None, where, f"node {parent!r} tests no feature but has an edge")
        try:
            dg.add_edge(parent, edge["to"], literal_from_dict(str(feature), edge, where))
        except InvalidGraphError as err:
            raise InvalidModelError(f"{where}: {err}") from None
    return dg


def _graph_to_dict(dg: DecisionGraph) -> dict[str, Any]:
    nodes = []
    for node in dg.nodes:
        f = dg.feature_of(node)
        nodes.append(
            {"id": node, "feature": f}
            if f is not None
            else {"id": node, "class": dg.class_of(node)}
        )
    edges = [
        {"from": dg.nodes[p], "to": dg.nodes[c], **literal_to_dict(lit)} for p, c, lit in dg.edges
    ]
    return {"type": "decision-graph", "root": dg.root, "nodes": nodes, "edges": edges}


#: Model types of the JSON format: type name -> reader of the "model" object.
MODEL_READERS: dict[str, Callable[[dict, list[Feature], list[Any]], DecisionGraph]] = {
    "decision-graph": _graph_from_dict,
}


def model_from_dict(doc: Any) -> DecisionGraph:
    """Compile a JSON model document into a validated :class:`DecisionGraph`."""
    _expect(
        isinstance(doc, dict), "document", f"expected a JSON object, found {type(doc).__name__}"
    )
    _expect(
        doc.get("format") == FORMAT, "format", f"expected {FORMAT!r}, found {doc.get('format')!r}"
    )
    _expect(
        doc.get("version") == VERSION,
        "version",
        f"expected {VERSION}, found {doc.get('version')!r}",
    )
    feats = doc.get("features")
    _expect(isinstance(feats, list) and bool(feats), "features", "expected a non-empty list")
    features = [feature_from_dict(f, f"features[{i}]") for i, f in enumerate(feats)]
    names = [f.name for f in features]
    dup = sorted({n for n in names if names.count(n) > 1})
    _expect(not dup, "features", f"feature name(s) {dup} declared more than once")
    classes = doc.get("classes")
    _expect(isinstance(classes, list) and bool(classes), "classes", "expected a non-empty list")
    model = doc.get("model")
    _expect(isinstance(model, dict), "model", "expected an object")
    kind = model.get("type")
    _expect(
        kind in MODEL_READERS,
        "model.type",
        f"expected one of {', '.join(MODEL_READERS)}, found {kind!r}",
    )
    try:
        dg = MODEL_READERS[kind](model, features, classes)
        dg.validate()
    except InvalidGraphError as err:
        raise InvalidModelError(f"model: {err}") from None
    return dg


def model_to_dict(dg: DecisionGraph) -> dict[str, Any]:
    """The JSON document of a decision graph (model type ``decision-graph``)."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "features": [f.to_json() for f in dg.features],
        "classes": list(dg.classes),
        "model": _graph_to_dict(dg),
    }


def load_model(path: str | os.PathLike[str]) -> DecisionGraph:
    """Read a JSON model file and compile it (errors name the file and the JSON location)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as err:
        raise ParseError(f"cannot read the file: {err.strerror}", path=str(path)) from None
    except UnicodeDecodeError:
        raise ParseError("expected UTF-8 JSON text, found binary data", path=str(path)) from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as err:
        raise ParseError(f"malformed JSON: {err.msg}", path=str(path), line=err.lineno) from None
    try:
        return model_from_dict(doc)
    except InvalidModelError as err:
        raise InvalidModelError(f"{path}: {err}") from None


def save_model(dg: DecisionGraph, path: str | os.PathLike[str]) -> None:
    """Write a decision graph as a JSON model file, whole or not at all."""
    write_text_atomic(path, json.dumps(model_to_dict(dg), indent=1) + "\n")
