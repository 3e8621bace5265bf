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
document around it and finds the class of a ``model.type`` in :mod:`xpg.models.registry`;
the vocabulary the kinds share (features, literals, node ids, located errors) is
:mod:`xpg.core.json_body`.
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

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from xpg.core.gc_pause import paused_gc
from xpg.core.graph import DecisionGraph
from xpg.core.json_body import expect, feature_from_dict, values_list
from xpg.errors import InvalidGraphError, InvalidModelError, ParseError
from xpg.io.atomic import write_text_atomic
from xpg.io.json_text import dump_json, parse_json
from xpg.io.xpg_format import read_text, refuse_table

if TYPE_CHECKING:
    from xpg.models.protocol import Model

# The registry imports every model kind, and the kinds import core only: the registry and the
# scikit-learn adapter are imported where they are used.

T = TypeVar("T")

FORMAT = "xpg-model"
VERSION = 1


def compile_model(model: Any) -> DecisionGraph:
    """The decision graph of a model (any kind of :class:`xpg.models.protocol.Model`) or of a
    fitted scikit-learn tree."""
    if hasattr(model, "tree_"):
        from xpg.compile.sklearn_tree import from_sklearn_tree

        return from_sklearn_tree(model)
    from xpg.models.protocol import refuse_uncompiled

    return refuse_uncompiled(_as_model(model, "compile"), "compile").to_decision_graph()


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
        type(doc.get("version")) is int and doc.get("version") == VERSION,
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
    for k, c in enumerate(classes):
        if not isinstance(c, bool):  # boolean classes are kept: check_label tells them from 0/1
            values_list([c], f"classes[{k}]")
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
        from xpg.models.tree import tree_from_sklearn

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
    return _from_text(read_text(path, "JSON text"), str(path), convert)


def _from_text(text: str, path: str, convert: Callable[[Any], T]) -> T:
    with paused_gc():
        try:
            doc = parse_json(text, path=str(path))
        except ParseError:
            refuse_table(text, str(path))  # a data table given as the model: say so
            raise
        try:
            return convert(doc)
        except InvalidModelError as err:
            raise InvalidModelError(f"{path}: {err}") from None


def load_model(path: str | os.PathLike[str]) -> DecisionGraph:
    """Read a JSON model file and compile it (errors name the file and the JSON location)."""
    return _from_file(path, model_from_dict)


def load_model_text(text: str, path: str) -> DecisionGraph:
    """:func:`load_model` of a file's text already read (``path`` names it in errors)."""
    return _from_text(text, path, model_from_dict)


def read_model(path: str | os.PathLike[str]) -> Model:
    """Read a JSON model file into its model object (not compiled)."""
    return _from_file(path, read_model_dict)


def save_model(model: Any, path: str | os.PathLike[str]) -> None:
    """Write a model (see :func:`model_to_dict`) as a JSON model file, whole or not at all."""
    write_text_atomic(path, dump_json(model_to_dict(model), indent=1) + "\n")
