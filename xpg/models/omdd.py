"""Ordered multi-valued decision diagrams (OMDDs) given node by node.

Each node tests one discrete feature (boolean, categorical, or integer with finite bounds)
and has one child per value of its domain; the features are tested in one fixed order along
every path.  An :class:`OMDD` is checked when it is built (a value without a child, a child
for a value outside the domain, a path that breaks the order are refused) and compiles to a
:class:`~xpg.core.graph.DecisionGraph` whose edges to the same child are merged into one
value-set literal.

Examples
--------
>>> from xpg.core.features import Feature
>>> m = OMDD([Feature.boolean("x1"), Feature.boolean("x2"), Feature.integer("x3", 0, 2)],
...          classes=["R", "G", "B"])
>>> m.add_terminal("R", "R"); m.add_terminal("G", "G"); m.add_terminal("B", "B")
>>> m.add_node("n3", "x3", {0: "G", 1: "B", 2: "R"})
>>> m.add_node("n2", "x2", {0: "G", 1: "n3"})
>>> m.add_node("n1", "x1", {0: "n2", 1: "B"})
>>> m.predict({"x1": 0, "x2": 1, "x3": 2})
'R'
>>> dg = m.to_decision_graph()
>>> dg.predict({"x1": 0, "x2": 1, "x3": 2}), dg.n_edges
('R', 7)

References
----------
Huang, Izza, Ignatiev, Marques-Silva. On Efficiently Explaining Graph-Based Classifiers.
KR 2021, Sec. 2 (OMDDs, Fig. 2); Srinivasan, Kam, Malik, Brayton. Algorithms for discrete
function manipulation. ICCAD 1990.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import portion as P

from xpg.core.features import Feature, Literal
from xpg.core.graph import DecisionGraph, batch_matrix, route_rows
from xpg.core.instances import instance_dict
from xpg.core.json_body import expect, feature_ref, node_id, values_list
from xpg.core.valuesets import union
from xpg.errors import InvalidModelError
from xpg.models.protocol import check_label
from xpg.solvers.smt import UNDEFINED, SmtModel, first_match, postorder

if TYPE_CHECKING:
    from pysmt.fnode import FNode

NodeId = Hashable


def finite_values(feature: Feature, needed_by: str = "an OMDD") -> tuple[Any, ...]:
    """Every value of a finite discrete domain (boolean, categorical, bounded integer); for
    another feature :class:`~xpg.errors.InvalidModelError`, saying what ``needed_by`` it."""
    if feature.is_discrete:
        return tuple(feature.values)
    if feature.kind == "integer" and math.isfinite(feature.low) and math.isfinite(feature.high):
        return tuple(range(int(feature.low), int(feature.high) + 1))
    raise InvalidModelError(
        f"feature {feature.name!r}: {needed_by} needs a finite domain (boolean, categorical or "
        f"integer with bounds), found {feature.kind} on [{feature.low}, {feature.high}]"
    )


class OMDD:
    """An ordered multi-valued decision diagram given node by node (JSON type ``omdd``; an
    ``obdd`` document is read into an OMDD over boolean features, and an OMDD over boolean
    features is written as one).

    Parameters
    ----------
    features : sequence of Feature
        Boolean, categorical, or integer features with finite bounds.
    classes : sequence
        The class labels.
    order : sequence of str, optional
        The variable order (feature names, first tested first; default: ``features`` order).
        Every path must test features in this order, each at most once.
    root : node id, optional
        Default: the unique node without parents.
    """

    json_type: ClassVar[str] = "omdd"

    def __init__(
        self,
        features: Sequence[Feature],
        classes: Sequence[Any],
        order: Sequence[str] | None = None,
        root: NodeId | None = None,
    ) -> None:
        self.features = list(features)
        self.classes = list(classes)
        self.feature_index = {f.name: i for i, f in enumerate(self.features)}
        if len(self.feature_index) != len(self.features):
            raise InvalidModelError("a feature name is declared twice")
        if not self.classes:
            raise InvalidModelError("expected at least one class")
        self.domains = {f.name: finite_values(f) for f in self.features}
        self.order = list(order) if order is not None else [f.name for f in self.features]
        unknown = [n for n in self.order if n not in self.feature_index]
        if unknown or len(set(self.order)) != len(self.order):
            raise InvalidModelError(
                f"order: expected distinct declared feature names, found {self.order!r}"
            )
        self.level = {name: i for i, name in enumerate(self.order)}
        self._root = root
        self._feature: dict[NodeId, str] = {}
        self._children: dict[NodeId, dict[Any, NodeId]] = {}
        self._label: dict[NodeId, Any] = {}

    def add_terminal(self, node_id: NodeId, label: Any) -> None:
        """A terminal predicting ``label``."""
        self._check_new(node_id)
        check_label(label, self.classes, f"terminal {node_id!r}")
        self._label[node_id] = label

    def add_node(
        self,
        node_id: NodeId,
        feature: str,
        children: Mapping[Any, NodeId] | Iterable[tuple[Iterable[Any], NodeId]],
    ) -> None:
        """A node testing ``feature``: ``children`` maps each domain value to a child id.

        ``children`` may also be a list of ``(values, child)`` pairs.  Every value of the
        domain needs exactly one child; children may be added before or after this node.
        """
        self._check_new(node_id)
        if feature not in self.feature_index:
            raise InvalidModelError(
                f"node {node_id!r}: unknown feature {feature!r} "
                f"(declared: {', '.join(self.feature_index)})"
            )
        if feature not in self.level:
            raise InvalidModelError(f"node {node_id!r}: feature {feature!r} is not in the order")
        f = self.features[self.feature_index[feature]]
        domain = self.domains[feature]
        pairs = (
            [([v], c) for v, c in children.items()]
            if isinstance(children, Mapping)
            else [(list(vs), c) for vs, c in children]
        )
        table: dict[Any, NodeId] = {}
        for values, child in pairs:
            for v in values:
                if not f.contains(v) or v not in domain:
                    raise InvalidModelError(
                        f"node {node_id!r}: value {v!r} is outside the domain of {feature!r} "
                        f"({list(domain)!r})"
                    )
                v = f.check_value(v)
                if v in table:
                    raise InvalidModelError(
                        f"node {node_id!r}: value {v!r} of {feature!r} has two children"
                    )
                table[v] = child
        missing = [v for v in domain if v not in table]
        if missing:
            raise InvalidModelError(
                f"node {node_id!r}: no child for value(s) {missing!r} of {feature!r}"
            )
        self._feature[node_id] = feature
        self._children[node_id] = {v: table[v] for v in domain}

    def _check_new(self, node_id: NodeId) -> None:
        if node_id in self._feature or node_id in self._label:
            raise InvalidModelError(f"node {node_id!r} is declared twice")

    # -- reading -------------------------------------------------------------------------------
    @property
    def nodes(self) -> list[NodeId]:
        """Every node id (non-terminals first, in insertion order)."""
        return list(self._feature) + list(self._label)

    def feature_of(self, node: NodeId) -> str | None:
        """The feature a node tests (``None`` for a terminal)."""
        return self._feature.get(node)

    def class_of(self, node: NodeId) -> Any:
        """The class of a terminal (``None`` otherwise)."""
        return self._label.get(node)

    def children(self, node: NodeId) -> dict[Any, NodeId]:
        """Value -> child of a non-terminal (empty for a terminal)."""
        return dict(self._children.get(node, {}))

    @property
    def root(self) -> NodeId:
        """The declared root, else the unique node without parents."""
        if self._root is not None:
            if self._root not in self._feature and self._root not in self._label:
                raise InvalidModelError(f"the declared root {self._root!r} is not a node")
            return self._root
        has_parent = {c for kids in self._children.values() for c in kids.values()}
        sources = [n for n in self.nodes if n not in has_parent]
        if len(sources) != 1:
            raise InvalidModelError(
                f"expected exactly one node without parents (the root), found {sources[:10]!r}"
            )
        return sources[0]

    def check(self) -> None:
        """Refuse unknown children, unreachable nodes and edges that break the order."""
        known = set(self._feature) | set(self._label)
        root = self.root
        for n, kids in self._children.items():
            for v, c in kids.items():
                if c not in known:
                    raise InvalidModelError(
                        f"node {n!r}: the child for {self._feature[n]} = {v!r} is an unknown "
                        f"node {c!r}"
                    )
                if (
                    c in self._feature
                    and self.level[self._feature[c]] <= self.level[self._feature[n]]
                ):
                    raise InvalidModelError(
                        f"edge {n!r} -> {c!r}: {self._feature[c]!r} is tested after "
                        f"{self._feature[n]!r}, against the order {self.order!r}"
                    )
        seen, stack = {root}, [root]
        while stack:
            for c in self._children.get(stack.pop(), {}).values():
                if c not in seen:
                    seen.add(c)
                    stack.append(c)
        unreachable = [n for n in self.nodes if n not in seen]
        if unreachable:
            raise InvalidModelError(
                f"node(s) {unreachable[:10]!r} cannot be reached from the root {root!r}"
            )

    def predict(self, instance: Mapping[str, Any] | Sequence[Any]) -> Any:
        """The class of an instance: follow the child of each tested value."""
        values = instance_dict(self.features, instance)
        node = self.root
        for _ in range(len(self.order) + 1):
            if node in self._label:
                return self._label[node]
            node = self._children[node][values[self._feature[node]]]
        raise InvalidModelError("a path is longer than the order (run check())")

    def predict_batch(self, X: Any) -> np.ndarray:
        """The classes of the rows of ``X`` (values in feature order, unchecked), vectorised:
        the rows at each node are divided by the value of its feature, all at once."""
        self.check()
        inner = sorted(self._feature, key=lambda n: self.level[self._feature[n]])
        return route_rows(
            batch_matrix(self.features, X),
            self.feature_index,
            self.root,
            inner + list(self._label),
            lambda n: [
                (c, Literal.eq(self._feature[n], v)) for v, c in self._children.get(n, {}).items()
            ],
            self._label.__getitem__,
            error=InvalidModelError,
        )

    def validate(self) -> None:
        """Refuse unknown children, unreachable nodes and edges against the order."""
        self.check()

    def to_json_body(self) -> dict[str, Any]:
        """The ``omdd`` object, or the ``obdd`` one (``low``/``high``) when every feature is
        boolean."""
        boolean = all(f.kind == "boolean" for f in self.features)
        nodes: list[dict[str, Any]] = []
        for n in self.nodes:
            f = self.feature_of(n)
            if f is None:
                nodes.append({"id": n, "class": self.class_of(n)})
                continue
            kids = self.children(n)
            if boolean:
                nodes.append({"id": n, "feature": f, "low": kids[0], "high": kids[1]})
            else:
                grouped: dict[Any, list[Any]] = {}
                for v, c in kids.items():
                    grouped.setdefault(c, []).append(v)
                children = [{"in": vs, "to": c} for c, vs in grouped.items()]
                nodes.append({"id": n, "feature": f, "children": children})
        return {
            "type": "obdd" if boolean else "omdd",
            "order": list(self.order),
            "root": self.root,
            "nodes": nodes,
        }

    @classmethod
    def from_json_body(
        cls, body: Mapping[str, Any], features: list[Feature], classes: list[Any]
    ) -> OMDD:
        """The diagram of an ``omdd`` object, or of an ``obdd`` one (``body["type"]``)."""
        obdd = body.get("type") == "obdd"
        nodes: Any = body.get("nodes")
        expect(isinstance(nodes, list) and bool(nodes), "model.nodes", "expected a list of nodes")
        if obdd:
            not_bool = [f.name for f in features if f.kind != "boolean"]
            expect(not not_bool, "features", f"an OBDD has boolean features only, found {not_bool}")
        order = body.get("order")
        expect(
            order is None or (isinstance(order, list) and all(isinstance(o, str) for o in order)),
            "model.order",
            f"expected a list of feature names, found {order!r}",
        )
        root = body.get("root")
        root = None if root is None else node_id(root, "model.root")
        names = {f.name for f in features}
        omdd = cls(features, classes, order=order, root=root)
        for i, d in enumerate(nodes):
            where = f"model.nodes[{i}]"
            expect(isinstance(d, dict) and "id" in d, where, "expected an object with an 'id'")
            nid = node_id(d["id"], f"{where}.id")
            if "class" in d:
                omdd.add_terminal(nid, d["class"])
                continue
            expect("feature" in d, where, "expected a 'feature' (or a 'class' for a terminal)")
            try:
                feature = feature_ref(d["feature"], names, f"{where}.feature")
                omdd.add_node(nid, feature, _children_from_dict(d, where, obdd))
            except InvalidModelError as err:
                raise InvalidModelError(f"{where}: {err}") from None
        omdd.check()
        return omdd

    def smt_encoding(self) -> SmtModel:
        """The class of an input as an SMT term: the child of the tested value."""
        enc = SmtModel(self.features, self.classes, self.predict)
        m = enc.mgr
        terms: dict[Any, FNode] = {}
        for n in postorder(self.root, lambda n: list(self.children(n).values())):
            f = self.feature_of(n)
            if f is None:
                terms[n] = m.Int(enc.class_index(self.class_of(n)))
            else:
                terms[n] = first_match(
                    enc,
                    [(enc.is_value(f, v), terms[c]) for v, c in self.children(n).items()],
                    m.Int(UNDEFINED),
                )
        enc.class_term = terms[self.root]
        return enc

    def to_decision_graph(self) -> DecisionGraph:
        """The decision graph: one node per node, edges to one child merged into a value set."""
        self.check()
        dg = DecisionGraph(self.features, self.classes, root=self.root)
        for n in self.nodes:
            if n in self._label:
                dg.add_terminal(n, self._label[n])
            else:
                dg.add_node(n, self._feature[n])
        for n, kids in self._children.items():
            grouped: dict[NodeId, list[Any]] = {}
            for v, c in kids.items():
                grouped.setdefault(c, []).append(v)
            f = self.features[self.feature_index[self._feature[n]]]
            for c, vs in grouped.items():
                lit = (
                    Literal.isin(f.name, vs)
                    if f.is_discrete
                    else Literal(f.name, union(f, [P.singleton(v) for v in vs]))
                )
                dg.add_edge(n, c, lit)
        return dg


def _children_from_dict(d: Mapping[str, Any], where: str, obdd: bool) -> Any:
    """The children of a node object: ``low``/``high`` (obdd) or ``children`` (omdd)."""
    if obdd:
        expect("low" in d and "high" in d, where, "expected 'low' and 'high' children")
        return {0: node_id(d["low"], where), 1: node_id(d["high"], where)}
    kids: Any = d.get("children")
    expect(isinstance(kids, list), where, "expected a 'children' list")
    children = []
    for k, c in enumerate(kids):
        cw = f"{where}.children[{k}]"
        expect(
            isinstance(c, dict) and isinstance(c.get("in"), list) and "to" in c,
            cw,
            "expected {'in': [values], 'to': id}",
        )
        children.append((values_list(c["in"], f"{cw}.in"), node_id(c["to"], cw)))
    return children


__all__ = ["OMDD", "finite_values"]
