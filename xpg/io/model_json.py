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

Reading a file compiles the model into a validated :class:`DecisionGraph`
(:func:`load_model`); :func:`read_model` returns the model object itself (a
:class:`~xpg.models.tree.DecisionTree`, :class:`~xpg.models.decision_list.DecisionList`,
:class:`~xpg.models.omdd.OMDD` or :class:`DecisionGraph`), as the verifier needs.
Nothing is repaired: every problem is an :class:`InvalidModelError` naming its JSON location.

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

import json
import math
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import portion as P

from xpg.compile.decision_list import compile_decision_list
from xpg.compile.sklearn_tree import from_sklearn_tree, tree_from_sklearn
from xpg.core.features import Feature, Literal
from xpg.core.graph import DecisionGraph
from xpg.errors import InvalidFeatureError, InvalidGraphError, InvalidModelError, ParseError
from xpg.io.atomic import write_text_atomic
from xpg.models.decision_list import DecisionList, Rule
from xpg.models.obdd import OBDD
from xpg.models.omdd import OMDD
from xpg.models.tree import DecisionTree, Leaf, Split, compile_tree

FORMAT = "xpg-model"
VERSION = 1
LITERAL_KEYS = ("in", "le", "gt", "interval", "intervals")
CLOSED = ("right", "left", "both", "neither")


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
    _expect(isinstance(d, dict), where, f"expected an object, found {d!r}")
    keys = [k for k in LITERAL_KEYS if k in d]
    _expect(
        len(keys) == 1,
        where,
        f"expected exactly one of {', '.join(map(repr, LITERAL_KEYS))}, found {keys or 'none'}",
    )
    key = keys[0]
    if key == "intervals":
        return _union_from_list(feature, d["intervals"], where)
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
    _expect(
        isinstance(items, list) and bool(items),
        where,
        f"'intervals' must be a non-empty list of [low, high, closed], found {items!r}",
    )
    allowed = P.empty()
    for k, item in enumerate(items):
        _expect(
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


def _node_id(x: Any, where: str) -> Any:
    _expect(
        isinstance(x, (str, int)) and not isinstance(x, bool),
        where,
        f"a node id must be a string or an integer, found {x!r}",
    )
    return x


def _tree_from_dict(m: dict, features: list[Feature], classes: list[Any]) -> DecisionTree:
    by_name = {f.name for f in features}

    def node(d: Any, where: str) -> Leaf | Split:
        _expect(isinstance(d, dict), where, f"expected a node object, found {d!r}")
        _expect(
            ("class" in d) != ("feature" in d),
            where,
            "a node has either a 'class' (leaf) or a 'feature' with 'branches' (split)",
        )
        if "class" in d:
            return Leaf(d["class"])
        feature = d["feature"]
        _expect(
            feature in by_name,
            where,
            f"unknown feature {feature!r} (declared: {', '.join(sorted(by_name))})",
        )
        branches = d.get("branches")
        _expect(
            isinstance(branches, list) and bool(branches),
            where,
            "expected a non-empty 'branches' list",
        )
        out = []
        for i, b in enumerate(branches):
            bw = f"{where}.branches[{i}]"
            _expect(isinstance(b, dict) and "node" in b, bw, "expected an object with a 'node'")
            out.append((literal_from_dict(feature, b, bw), node(b["node"], f"{bw}.node")))
        return Split(feature, out)

    _expect("root" in m, "model", "expected a 'root' node")
    return DecisionTree(features, classes, node(m["root"], "model.root"))


def _tree_to_dict(tree: DecisionTree) -> dict[str, Any]:
    def node(n: Leaf | Split) -> dict[str, Any]:
        if isinstance(n, Leaf):
            return {"class": n.label}
        return {
            "feature": n.feature,
            "branches": [{**literal_to_dict(lit), "node": node(sub)} for lit, sub in n.branches],
        }

    # iterative conversion would need an explicit stack; trees deeper than Python's recursion
    # limit are refused by a clear error rather than a RecursionError
    if tree.depth > 900:
        raise InvalidModelError(f"decision tree of depth {tree.depth}: too deep to write as JSON")
    return {"type": "decision-tree", "root": node(tree.root)}


def _list_from_dict(m: dict, features: list[Feature], classes: list[Any]) -> DecisionList:
    by_name = {f.name for f in features}
    rules_doc: Any = m.get("rules")
    _expect(isinstance(rules_doc, list), "model.rules", "expected a list of rules")
    _expect("default" in m, "model", "expected a 'default' class")
    rules = []
    for i, r in enumerate(rules_doc):
        where = f"model.rules[{i}]"
        _expect(
            isinstance(r, dict) and "if" in r and "then" in r,
            where,
            "expected an object with 'if' (a list of conditions) and 'then' (a class)",
        )
        _expect(isinstance(r["if"], list), f"{where}.if", "expected a list of conditions")
        conds = []
        for k, c in enumerate(r["if"]):
            cw = f"{where}.if[{k}]"
            _expect(isinstance(c, dict) and "feature" in c, cw, "expected a 'feature'")
            _expect(
                c["feature"] in by_name,
                cw,
                f"unknown feature {c['feature']!r} (declared: {', '.join(sorted(by_name))})",
            )
            conds.append(literal_from_dict(c["feature"], c, cw))
        rules.append(Rule(conds, r["then"]))
    return DecisionList(features, classes, rules, m["default"])


def _list_to_dict(dl: DecisionList) -> dict[str, Any]:
    return {
        "type": "decision-list",
        "rules": [
            {
                "if": [{"feature": lit.feature, **literal_to_dict(lit)} for lit in r.conditions],
                "then": r.label,
            }
            for r in dl.rules
        ],
        "default": dl.default,
    }


def _order(m: dict) -> list[str] | None:
    order = m.get("order")
    _expect(
        order is None or (isinstance(order, list) and all(isinstance(o, str) for o in order)),
        "model.order",
        f"expected a list of feature names, found {order!r}",
    )
    return order


def _diagram_from_dict(m: dict, features: list[Feature], classes: list[Any], kind: str) -> OMDD:
    nodes: Any = m.get("nodes")
    _expect(isinstance(nodes, list) and bool(nodes), "model.nodes", "expected a list of nodes")
    if kind == "obdd":
        not_bool = [f.name for f in features if f.kind != "boolean"]
        _expect(not not_bool, "features", f"an OBDD has boolean features only, found {not_bool}")
    omdd = OMDD(features, classes, order=_order(m), root=m.get("root"))
    for i, d in enumerate(nodes):
        where = f"model.nodes[{i}]"
        _expect(isinstance(d, dict) and "id" in d, where, "expected an object with an 'id'")
        nid = _node_id(d["id"], f"{where}.id")
        if "class" in d:
            omdd.add_terminal(nid, d["class"])
            continue
        _expect("feature" in d, where, "expected a 'feature' (or a 'class' for a terminal)")
        if kind == "obdd":
            _expect("low" in d and "high" in d, where, "expected 'low' and 'high' children")
            children: Any = {0: _node_id(d["low"], where), 1: _node_id(d["high"], where)}
        else:
            kids = d.get("children")
            _expect(isinstance(kids, list), where, "expected a 'children' list")
            children = []
            for k, c in enumerate(kids):
                cw = f"{where}.children[{k}]"
                _expect(
                    isinstance(c, dict) and isinstance(c.get("in"), list) and "to" in c,
                    cw,
                    "expected {'in': [values], 'to': id}",
                )
                children.append((c["in"], _node_id(c["to"], cw)))
        try:
            omdd.add_node(nid, d["feature"], children)
        except InvalidModelError as err:
            raise InvalidModelError(f"{where}: {err}") from None
    omdd.check()
    return omdd


def _diagram_to_dict(omdd: OMDD) -> dict[str, Any]:
    boolean = all(f.kind == "boolean" for f in omdd.features)
    nodes: list[dict[str, Any]] = []
    for n in omdd.nodes:
        f = omdd.feature_of(n)
        if f is None:
            nodes.append({"id": n, "class": omdd.class_of(n)})
            continue
        kids = omdd.children(n)
        if boolean:
            nodes.append({"id": n, "feature": f, "low": kids[0], "high": kids[1]})
        else:
            grouped: dict[Any, list[Any]] = {}
            for v, c in kids.items():
                grouped.setdefault(c, []).append(v)
            nodes.append(
                {
                    "id": n,
                    "feature": f,
                    "children": [{"in": vs, "to": c} for c, vs in grouped.items()],
                }
            )
    return {
        "type": "obdd" if boolean else "omdd",
        "order": list(omdd.order),
        "root": omdd.root,
        "nodes": nodes,
    }


def _obdd_to_omdd(obdd: OBDD) -> OMDD:
    dg = obdd.to_decision_graph()
    omdd = OMDD(obdd.features, obdd.classes, order=obdd.order, root=dg.root)
    for n in dg.nodes:
        f = dg.feature_of(n)
        if f is None:
            omdd.add_terminal(n, dg.class_of(n))
        else:
            omdd.add_node(n, f, [(sorted(lit.allowed), c) for c, lit in dg.children(n)])
    return omdd


#: A model object the JSON format describes.
Model = DecisionGraph | DecisionTree | DecisionList | OMDD

#: Model types of the JSON format: type name -> parser of the "model" object into a model.
MODEL_PARSERS: dict[str, Callable[[dict, list[Feature], list[Any]], Model]] = {
    "decision-graph": _graph_from_dict,
    "decision-tree": _tree_from_dict,
    "decision-list": _list_from_dict,
    "obdd": lambda m, f, c: _diagram_from_dict(m, f, c, "obdd"),
    "omdd": lambda m, f, c: _diagram_from_dict(m, f, c, "omdd"),
}


def compile_model(model: Any) -> DecisionGraph:
    """The decision graph of a model object (trees, lists, diagrams, dd OBDDs, sklearn trees)."""
    if isinstance(model, DecisionGraph):
        return model
    if isinstance(model, DecisionTree):
        return compile_tree(model)
    if isinstance(model, DecisionList):
        return compile_decision_list(model)
    if isinstance(model, (OMDD, OBDD)):
        return model.to_decision_graph()
    if hasattr(model, "tree_"):
        return from_sklearn_tree(model)
    raise InvalidModelError(f"cannot compile a {type(model).__name__} (no compiler for it)")


def _reader(kind: str) -> Callable[[dict, list[Feature], list[Any]], DecisionGraph]:
    return lambda m, f, c: compile_model(MODEL_PARSERS[kind](m, f, c))


#: Model types of the JSON format: type name -> reader of the "model" object into a graph.
MODEL_READERS: dict[str, Callable[[dict, list[Feature], list[Any]], DecisionGraph]] = {
    kind: _reader(kind) for kind in MODEL_PARSERS
}


def read_model_dict(doc: Any) -> Model:
    """The model object of a JSON model document (not compiled; see :func:`model_from_dict`)."""
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
        kind in MODEL_PARSERS,
        "model.type",
        f"expected one of {', '.join(MODEL_PARSERS)}, found {kind!r}",
    )
    try:
        return MODEL_PARSERS[kind](model, features, classes)
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
    """The JSON document of a model: a DecisionGraph, DecisionTree, DecisionList, OMDD, an
    :class:`~xpg.models.obdd.OBDD` (written as ``obdd`` nodes, complemented edges expanded)
    or a fitted scikit-learn tree (written as a ``decision-tree``)."""
    if hasattr(model, "tree_"):
        model = tree_from_sklearn(model)
    if isinstance(model, OBDD):
        model = _obdd_to_omdd(model)
    if isinstance(model, DecisionGraph):
        body = _graph_to_dict(model)
    elif isinstance(model, DecisionTree):
        body = _tree_to_dict(model)
    elif isinstance(model, DecisionList):
        body = _list_to_dict(model)
    elif isinstance(model, OMDD):
        body = _diagram_to_dict(model)
    else:
        raise InvalidModelError(f"cannot write a {type(model).__name__} as a JSON model")
    return {
        "format": FORMAT,
        "version": VERSION,
        "features": [f.to_json() for f in model.features],
        "classes": list(model.classes),
        "model": body,
    }


def _read_json(path: str | os.PathLike[str]) -> Any:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as err:
        raise ParseError(f"cannot read the file: {err.strerror}", path=str(path)) from None
    except UnicodeDecodeError:
        raise ParseError("expected UTF-8 JSON text, found binary data", path=str(path)) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise ParseError(f"malformed JSON: {err.msg}", path=str(path), line=err.lineno) from None


def load_model(path: str | os.PathLike[str]) -> DecisionGraph:
    """Read a JSON model file and compile it (errors name the file and the JSON location)."""
    doc = _read_json(path)
    try:
        return model_from_dict(doc)
    except InvalidModelError as err:
        raise InvalidModelError(f"{path}: {err}") from None


def read_model(path: str | os.PathLike[str]) -> Model:
    """Read a JSON model file into its model object (not compiled)."""
    doc = _read_json(path)
    try:
        return read_model_dict(doc)
    except InvalidModelError as err:
        raise InvalidModelError(f"{path}: {err}") from None


def save_model(model: Any, path: str | os.PathLike[str]) -> None:
    """Write a model (see :func:`model_to_dict`) as a JSON model file, whole or not at all."""
    write_text_atomic(path, json.dumps(model_to_dict(model), indent=1) + "\n")
