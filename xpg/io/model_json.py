"""The project's own JSON model format (documented in ``docs/model-format.md``).

A model file holds the features (names, types, domains), the classes and the model
itself::

    {"format": "xpg-model", "version": 1,
     "features": [{"name": "age", "type": "integer", "low": 0, "high": 120},
                  {"name": "colour", "type": "categorical", "values": ["red", "blue"]},
                  {"name": "income", "type": "real"},            # low/high: null = unbounded
                  {"name": "student", "type": "boolean"}],
     "classes": ["no", "yes"],
     "model": {"type": ..., ...}}

Model types (``model.type``):

``decision-graph``
    ``{"root": id, "nodes": [{"id": id, "feature": f} | {"id": id, "class": c}],
    "edges": [{"from": id, "to": id, LITERAL}]}``: any DAG satisfying Def. 2.
``decision-tree``
    ``{"root": NODE}`` with ``NODE = {"class": c}`` or
    ``{"feature": f, "branches": [{LITERAL, "node": NODE}, ...]}``.
``decision-list``
    ``{"rules": [{"if": [{"feature": f, LITERAL}, ...], "then": c}, ...], "default": c}``:
    the first rule whose conditions all hold decides (``"if": []`` always holds).
``obdd``
    ``{"order": [f, ...], "root": id, "nodes": [{"id": id, "feature": f, "low": id,
    "high": id} | {"id": id, "class": c}]}``: boolean features, tested in ``order``.
``omdd``
    ``{"order": [f, ...], "root": id, "nodes": [{"id": id, "feature": f, "children":
    [{"in": [values], "to": id}, ...]} | {"id": id, "class": c}]}``: finite discrete
    features, one child per value, tested in ``order``.

A LITERAL is one of ``"in": [values]``, ``"le": t``, ``"gt": t``,
``"interval": [low, high]`` with ``"closed": "right"|"left"|"both"|"neither"`` (default
``"right"``: ``low < x <= high``; ``null`` is an infinite end), or
``"intervals": [[low, high, closed], ...]`` (a union).

Each model kind reads and writes its own ``model`` object (``to_json_body`` and
``from_json_body`` of :class:`xpg.models.protocol.Model`); this module reads and writes the
document around it, finds the class of a ``model.type`` in :mod:`xpg.models.registry`, and
holds the vocabulary the kinds share (features, literals, node ids, located errors).
Reading a file compiles the model into a validated :class:`DecisionGraph`
(:func:`load_model`); :func:`read_model` returns the model object itself (a
:class:`~xpg.models.tree.DecisionTree`, :class:`~xpg.models.decision_list.DecisionList`,
:class:`~xpg.models.omdd.OMDD`, :class:`DecisionGraph` or any registered kind), as the
verifier needs.  Nothing is repaired: every problem is an :class:`InvalidModelError` naming
its JSON location.

Examples
--------
>>> from xpg.core.features import Feature, Literal
>>> from xpg.core.graph import DecisionGraph
>>> dg = DecisionGraph([Feature.real("x")], classes=["a", "b"])
>>> dg.add_node(0, "x"); dg.add_terminal(1, "a"); dg.add_terminal(2, "b")
>>> dg.add_edge(0, 1, Literal.le("x", 2.5)); dg.add_edge(0, 2, Literal.gt("x", 2.5))
>>> again = model_from_dict(model_to_dict(dg))
>>> again.predict({"x": 3.0})
'b'
>>> doc = {"format": "xpg-model", "version": 1,
...        "features": [{"name": "a", "type": "boolean"}, {"name": "b", "type": "boolean"}],
...        "classes": [0, 1],
...        "model": {"type": "decision-list", "default": 0,
...                  "rules": [{"if": [{"feature": "a", "in": [1]}, {"feature": "b", "in": [1]}],
...                             "then": 1}]}}
>>> read_model_dict(doc).predict({"a": 1, "b": 1}), model_from_dict(doc).predict({"a": 1, "b": 0})
(1, 0)
"""

from __future__ import annotations

import gc
import json
import math
import os
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar

import portion as P

from xpg.core.features import Feature, Literal
from xpg.core.graph import DecisionGraph
from xpg.errors import InvalidFeatureError, InvalidGraphError, InvalidModelError, ParseError
from xpg.io.atomic import write_text_atomic
from xpg.io.xpg_format import read_text

if TYPE_CHECKING:
    from xpg.models.protocol import Model

# The model kinds import this module's vocabulary, so the registry and the scikit-learn
# adapter are imported where they are used, not here.

T = TypeVar("T")

FORMAT = "xpg-model"
VERSION = 1
LITERAL_KEYS = ("in", "le", "gt", "interval", "intervals")
CLOSED = ("right", "left", "both", "neither")


def expect(cond: bool, where: str, message: str) -> None:
    """Raise :class:`InvalidModelError` ``"where: message"`` unless ``cond``."""
    if not cond:
        raise InvalidModelError(f"{where}: {message}")


def _num(x: Any, where: str, default: float) -> float:
    if x is None:
        return default
    expect(
        isinstance(x, (int, float)) and not isinstance(x, bool),
        where,
        f"expected a number or null, found {x!r}",
    )
    return float(x)


def feature_from_dict(d: Any, where: str) -> Feature:
    """A :class:`Feature` from its JSON form."""
    expect(isinstance(d, dict), where, f"expected an object, found {d!r}")
    name, kind = d.get("name"), d.get("type")
    expect(isinstance(name, str) and bool(name), where, f"expected a 'name' string, found {name!r}")
    try:
        if kind == "boolean":
            return Feature.boolean(name)
        if kind == "categorical":
            values = d.get("values")
            expect(isinstance(values, list), where, "a categorical feature needs a 'values' list")
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
        if not isinstance(d["in"], list):
            expect(False, where, f"'in' must be a list, found {d['in']!r}")
        return Literal.isin(feature, d["in"])
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


def graph_from_body(
    m: Mapping[str, Any], features: list[Feature], classes: list[Any]
) -> DecisionGraph:
    """A :class:`DecisionGraph` from its ``decision-graph`` object (not yet validated)."""
    nodes, edges = m.get("nodes"), m.get("edges")
    if not isinstance(nodes, list) or not isinstance(edges, list):
        raise InvalidModelError("model: expected 'nodes' and 'edges' lists")
    dg = DecisionGraph(features, classes, root=m.get("root"))
    feature_of: dict[Any, str | None] = {}
    for i, node in enumerate(nodes):
        where = f"model.nodes[{i}]"
        expect(isinstance(node, dict) and "id" in node, where, "expected an object with an 'id'")
        nid = node_id(node["id"], where)
        expect(
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
        expect(
            isinstance(edge, dict) and "from" in edge and "to" in edge,
            where,
            "expected an object with 'from' and 'to'",
        )
        parent = edge["from"]
        expect(parent in feature_of, where, f"'from' names an unknown node {parent!r}")
        feature = feature_of[parent]
        expect(feature is not None, where, f"node {parent!r} tests no feature but has an edge")
        try:
            dg.add_edge(parent, edge["to"], literal_from_dict(str(feature), edge, where))
        except InvalidGraphError as err:
            raise InvalidModelError(f"{where}: {err}") from None
    return dg


def graph_to_body(dg: DecisionGraph) -> dict[str, Any]:
    """The ``decision-graph`` object of a graph."""
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


def node_id(x: Any, where: str) -> Any:
    """A node id of a diagram: a string or an integer."""
    expect(
        isinstance(x, (str, int)) and not isinstance(x, bool),
        where,
        f"a node id must be a string or an integer, found {x!r}",
    )
    return x


def compile_model(model: Any) -> DecisionGraph:
    """The decision graph of a model (any kind of :class:`xpg.models.protocol.Model`) or of a
    fitted scikit-learn tree."""
    if hasattr(model, "tree_"):
        from xpg.compile.sklearn_tree import from_sklearn_tree

        return from_sklearn_tree(model)
    return _as_model(model, "compile").to_decision_graph()


def _as_model(obj: Any, verb: str) -> Model:
    from xpg.models.protocol import Model

    if not isinstance(obj, Model):
        raise InvalidModelError(
            f"cannot {verb} a {type(obj).__name__}: expected a model kind "
            "(xpg.models.protocol.Model) or a fitted scikit-learn tree"
        )
    return obj


def read_model_dict(doc: Any) -> Model:
    """The model object of a JSON model document (not compiled; see :func:`model_from_dict`)."""
    from xpg.models.registry import model_kind

    expect(isinstance(doc, dict), "document", f"expected a JSON object, found {type(doc).__name__}")
    expect(
        doc.get("format") == FORMAT, "format", f"expected {FORMAT!r}, found {doc.get('format')!r}"
    )
    expect(
        doc.get("version") == VERSION,
        "version",
        f"expected {VERSION}, found {doc.get('version')!r}",
    )
    feats = doc.get("features")
    expect(isinstance(feats, list) and bool(feats), "features", "expected a non-empty list")
    features = [feature_from_dict(f, f"features[{i}]") for i, f in enumerate(feats)]
    names = [f.name for f in features]
    dup = sorted({n for n in names if names.count(n) > 1})
    expect(not dup, "features", f"feature name(s) {dup} declared more than once")
    classes = doc.get("classes")
    expect(isinstance(classes, list) and bool(classes), "classes", "expected a non-empty list")
    model = doc.get("model")
    expect(isinstance(model, dict), "model", "expected an object")
    kind = model_kind(model.get("type"))
    try:
        return kind.from_json_body(model, features, classes)
    except InvalidGraphError as err:
        raise InvalidModelError(f"model: {err}") from None


def model_from_dict(doc: Any) -> DecisionGraph:
    """Compile a JSON model document into a validated :class:`DecisionGraph`."""
    model = read_model_dict(doc)
    try:
        dg = compile_model(model)
        dg.validate()
    except InvalidGraphError as err:
        raise InvalidModelError(f"model: {err}") from None
    return dg


def model_to_dict(model: Any) -> dict[str, Any]:
    """The JSON document of a model: any model kind (a dd :class:`~xpg.models.obdd.OBDD` is
    written as ``obdd`` nodes, complemented edges expanded) or a fitted scikit-learn tree
    (written as a ``decision-tree``)."""
    if hasattr(model, "tree_"):
        from xpg.compile.sklearn_tree import tree_from_sklearn

        model = tree_from_sklearn(model)
    m = _as_model(model, "write")
    return {
        "format": FORMAT,
        "version": VERSION,
        "features": [f.to_json() for f in m.features],
        "classes": list(m.classes),
        "model": m.to_json_body(),
    }


def _from_file(path: str | os.PathLike[str], convert: Callable[[Any], T]) -> T:
    """``convert`` of the JSON document in a file; every error names the file."""
    text = read_text(path, "JSON text")
    with paused_gc():
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as err:
            raise ParseError(
                f"malformed JSON: {err.msg}", path=str(path), line=err.lineno
            ) from None
        try:
            return convert(doc)
        except InvalidModelError as err:
            raise InvalidModelError(f"{path}: {err}") from None


@contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector while a large file becomes objects.

    A JSON document and the model built from it are millions of objects without cycles; the
    collector would scan them again and again as they are made (two thirds of the time to
    load a 100,000-node tree).

    Examples
    --------
    >>> with paused_gc():
    ...     gc.isenabled()
    False
    >>> gc.isenabled()
    True
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def load_model(path: str | os.PathLike[str]) -> DecisionGraph:
    """Read a JSON model file and compile it (errors name the file and the JSON location)."""
    return _from_file(path, model_from_dict)


def read_model(path: str | os.PathLike[str]) -> Model:
    """Read a JSON model file into its model object (not compiled)."""
    return _from_file(path, read_model_dict)


def save_model(model: Any, path: str | os.PathLike[str]) -> None:
    """Write a model (see :func:`model_to_dict`) as a JSON model file, whole or not at all."""
    write_text_atomic(path, json.dumps(model_to_dict(model), indent=1) + "\n")
