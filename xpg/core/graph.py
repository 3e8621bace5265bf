"""Decision graphs: the model representation every compiler targets.

A :class:`DecisionGraph` is a DAG with one root; each non-terminal node tests one
feature, each edge carries a :class:`~xpg.core.features.Literal` on that feature, and
each terminal holds a class.  :meth:`DecisionGraph.validate` checks the
assumptions of Def. 2 of the core paper, which make explanation-graph reasoning
sound: at every node the outgoing literals partition the values still possible
there, and no root-to-terminal path is inconsistent.

Examples
--------
>>> from xpg.core.features import Feature, Literal
>>> dg = DecisionGraph([Feature.boolean("a"), Feature.boolean("b")], classes=[0, 1])
>>> dg.add_node("r", "a"); dg.add_node("n", "b")
>>> dg.add_terminal("t0", 0); dg.add_terminal("t1", 1)
>>> dg.add_edge("r", "t0", Literal.eq("a", 0)); dg.add_edge("r", "n", Literal.eq("a", 1))
>>> dg.add_edge("n", "t0", Literal.eq("b", 0)); dg.add_edge("n", "t1", Literal.eq("b", 1))
>>> dg.validate()
>>> dg.predict({"a": 1, "b": 1})
1

References
----------
Huang, Izza, Ignatiev, Marques-Silva. On Efficiently Explaining Graph-Based Classifiers.
KR 2021, Def. 2 (decision graphs) and Props. 2-3.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import portion as P

from xpg.core.features import Feature, Literal, ValueSet, describe_values
from xpg.core.json_body import (
    expect,
    json_objects,
    literal_from_dict,
    literal_to_dict,
    node_id,
    shown,
)
from xpg.core.valuesets import as_value_set, values_outside
from xpg.errors import InvalidGraphError, InvalidInstanceError, InvalidModelError, XpgError

if TYPE_CHECKING:
    import networkx as nx
    from pysmt.fnode import FNode

    from xpg.solvers.smt import SmtModel

NodeId = Hashable


def _plain(value: Any) -> Any:
    """A numpy scalar as the Python value it holds; anything else unchanged."""
    return value.item() if type(value).__module__ == "numpy" and value.ndim == 0 else value


def _one_row(instance: Any) -> Any:
    """The row of a one-row table, as a mapping when the table names its columns; a pandas
    Series as a mapping when its labels are names; anything else unchanged (iterating a
    DataFrame would give its column names, and a ``(1, n)`` array one value: its row)."""
    if hasattr(instance, "columns") and hasattr(instance, "iloc"):  # a DataFrame
        if len(instance) != 1:
            raise InvalidInstanceError(
                f"expected one instance, found a table of {len(instance)} rows "
                "(explain a table's rows with xpg.explain_many)"
            )
        return dict(zip(map(str, instance.columns), instance.iloc[0].tolist(), strict=True))
    if hasattr(instance, "index") and hasattr(instance, "iloc"):  # a Series
        if all(isinstance(k, str) for k in instance.index):
            return dict(zip(instance.index, instance.tolist(), strict=True))
        return instance.tolist()
    if getattr(instance, "ndim", 1) == 2:
        if len(instance) != 1:
            raise InvalidInstanceError(
                f"expected one instance, found an array of {len(instance)} rows "
                "(explain a table's rows with xpg.explain_many)"
            )
        return instance[0]
    return instance


class DecisionGraph:
    """A classifier as a DAG of feature tests (Def. 2 of the core paper).

    Parameters
    ----------
    features : sequence of Feature
        The model's features, in instance order.  Features that no node tests are allowed:
        they can never appear in an explanation.
    classes : sequence, optional
        The class labels.  When omitted, labels are collected as terminals are added.
    root : node id, optional
        The root.  When omitted, the root is the unique node without parents.

    A decision graph is a model kind itself (JSON type ``decision-graph``, see
    :mod:`xpg.models.protocol`): it compiles to itself.
    """

    json_type: ClassVar[str] = "decision-graph"

    def __init__(
        self,
        features: Sequence[Feature],
        classes: Sequence[Any] | None = None,
        root: NodeId | None = None,
    ) -> None:
        self.features: list[Feature] = list(features)
        self.feature_index: dict[str, int] = {}
        for i, f in enumerate(self.features):
            if f.name in self.feature_index:
                raise InvalidGraphError(f"feature name {f.name!r} is declared twice")
            self.feature_index[f.name] = i
        # numpy scalars as plain Python values, so answers never show np.int64(1)
        self.classes: list[Any] = [_plain(c) for c in classes] if classes is not None else []
        self._fixed_classes = classes is not None
        if len(set(map(repr, self.classes))) != len(self.classes):
            raise InvalidGraphError(f"repeated class labels in {self.classes!r}")
        self._declared_root = root
        self._ids: list[NodeId] = []
        self._index: dict[NodeId, int] = {}
        self._feature: list[int] = []  # feature index, -1 when none
        self._class: list[int] = []  # class index, -1 when none
        self._out: list[list[int]] = []  # outgoing edge indices per node
        self._in_degree: list[int] = []
        self.edges: list[tuple[int, int, Literal]] = []
        self._cache: dict[str, Any] = {}

    # -- building -----------------------------------------------------------------------------
    def _new_node(self, node_id: NodeId, feature: int, cls: int) -> None:
        if node_id in self._index:
            raise InvalidGraphError(f"node {node_id!r} is declared twice")
        self._index[node_id] = len(self._ids)
        self._ids.append(node_id)
        self._feature.append(feature)
        self._class.append(cls)
        self._out.append([])
        self._in_degree.append(0)
        self._cache.clear()

    def add_node(self, node_id: NodeId, feature: str | None) -> None:
        """Add a non-terminal node testing ``feature`` (``None``: a node left undefined)."""
        if feature is None:
            self._new_node(node_id, -1, -1)
            return
        if feature not in self.feature_index:
            raise InvalidGraphError(
                f"node {node_id!r}: unknown feature {feature!r} "
                f"(declared: {', '.join(self.feature_index)})"
            )
        self._new_node(node_id, self.feature_index[feature], -1)

    def add_terminal(self, node_id: NodeId, label: Any) -> None:
        """Add a terminal node predicting class ``label``."""
        self._new_node(node_id, -1, self._class_index(label, node_id))

    def _class_index(self, label: Any, node_id: NodeId) -> int:
        label = _plain(label)
        for i, c in enumerate(self.classes):
            # True == 1 in Python, but a boolean class is not an integer class
            if c == label and isinstance(c, bool) == isinstance(label, bool):
                return i
        if self._fixed_classes:
            raise InvalidGraphError(
                f"terminal {node_id!r}: unknown class {label!r} (declared: {self.classes!r})"
            )
        self.classes.append(label)
        return len(self.classes) - 1

    def add_edge(self, parent: NodeId, child: NodeId, literal: Literal) -> None:
        """Add an edge ``parent -> child`` taken when the parent's feature satisfies ``literal``."""
        for end in (parent, child):
            if end not in self._index:
                raise InvalidGraphError(f"edge {parent!r} -> {child!r}: unknown node {end!r}")
        if not isinstance(literal, Literal):
            raise InvalidGraphError(
                f"edge {parent!r} -> {child!r}: expected a Literal, found {literal!r}"
            )
        p, c = self._index[parent], self._index[child]
        self._out[p].append(len(self.edges))
        self._in_degree[c] += 1
        self.edges.append((p, c, literal))
        self._cache.clear()

    # -- reading ------------------------------------------------------------------------------
    @property
    def nodes(self) -> list[NodeId]:
        """Node ids in insertion order."""
        return list(self._ids)

    def __len__(self) -> int:
        return len(self._ids)

    @property
    def n_edges(self) -> int:
        """Number of edges."""
        return len(self.edges)

    @property
    def root(self) -> NodeId:
        """The root: the declared one, else the unique node without parents."""
        if self._declared_root is not None:
            if self._declared_root not in self._index:
                raise InvalidGraphError(f"the declared root {self._declared_root!r} is not a node")
            return self._declared_root
        if "root" in self._cache:  # cleared by every change: one scan per graph, not per XpG
            return self._cache["root"]
        sources = [self._ids[i] for i, d in enumerate(self._in_degree) if d == 0]
        if len(sources) != 1:
            raise InvalidGraphError(
                f"expected exactly one node without parents (the root), found {len(sources)}"
                + (f": {sources[:10]!r}" if sources else "")
            )
        self._cache["root"] = sources[0]
        return sources[0]

    def index_of(self, node: NodeId) -> int:
        """Internal index of a node id."""
        try:
            return self._index[node]
        except KeyError:
            raise InvalidGraphError(f"unknown node {node!r}") from None

    def feature_of(self, node: NodeId) -> str | None:
        """Name of the feature a node tests (``None`` for terminals)."""
        f = self._feature[self.index_of(node)]
        return self.features[f].name if f >= 0 else None

    def class_of(self, node: NodeId) -> Any:
        """Class of a terminal (``None`` for non-terminals)."""
        c = self._class[self.index_of(node)]
        return self.classes[c] if c >= 0 else None

    def is_terminal(self, node: NodeId) -> bool:
        """True when the node has no outgoing edge."""
        return not self._out[self.index_of(node)]

    def children(self, node: NodeId) -> list[tuple[NodeId, Literal]]:
        """Outgoing edges of ``node`` as ``(child, literal)`` pairs."""
        return [
            (self._ids[self.edges[e][1]], self.edges[e][2]) for e in self._out[self.index_of(node)]
        ]

    def is_tree(self) -> bool:
        """True when every node has at most one parent (a tree XpG, Prop. 6 of the paper)."""
        return all(d <= 1 for d in self._in_degree)

    def tested_features(self) -> list[str]:
        """Names of the features tested by some node, in feature order."""
        used = set(self._feature)
        return [f.name for i, f in enumerate(self.features) if i in used]

    # -- instances ----------------------------------------------------------------------------
    def instance_values(self, instance: Mapping[str, Any] | Sequence[Any]) -> list[Any]:
        """Check an instance against the features and return its values in feature order.

        Raises :class:`InvalidInstanceError` naming the missing, unknown or out-of-domain feature.
        A one-row table (a pandas DataFrame, a numpy array of shape ``(1, n)``) and a pandas
        Series are read as the one row they hold, by column name where there are names.
        """
        instance = _one_row(instance)
        if isinstance(instance, Mapping):
            unknown = [k for k in instance if k not in self.feature_index]
            if unknown:
                raise InvalidInstanceError(
                    f"unknown feature(s) {', '.join(map(repr, unknown))} in the instance "
                    f"(expected: {', '.join(self.feature_index)})"
                )
            missing = [f.name for f in self.features if f.name not in instance]
            if missing:
                raise InvalidInstanceError(
                    f"the instance has no value for feature(s) {', '.join(map(repr, missing))}"
                )
            raw = [instance[f.name] for f in self.features]
        else:
            raw = list(instance)
            if len(raw) != len(self.features):
                raise InvalidInstanceError(
                    f"expected {len(self.features)} values (one per feature), found {len(raw)}"
                )
        return [f.check_value(v) for f, v in zip(self.features, raw, strict=True)]

    def predict(self, instance: Mapping[str, Any] | Sequence[Any]) -> Any:
        """Class of an instance: follow the unique satisfied edge from the root (Prop. 2)."""
        values = self.instance_values(instance)
        node = self.index_of(self.root)
        for _ in range(len(self._ids) + 1):
            out = self._out[node]
            if not out:
                if self._class[node] < 0:
                    raise InvalidGraphError(f"terminal {self._ids[node]!r} has no class")
                return self.classes[self._class[node]]
            f = self._feature[node]
            taken = [e for e in out if self.edges[e][2].satisfied_by(values[f])]
            if len(taken) != 1:
                raise InvalidGraphError(
                    f"node {self._ids[node]!r}: {len(taken)} outgoing edges admit "
                    f"{self.features[f].name} = {values[f]!r}, expected exactly one "
                    "(run validate())"
                )
            node = self.edges[taken[0]][1]
        raise InvalidGraphError("the graph has a cycle (run validate())")

    def predict_batch(self, X: Any) -> np.ndarray:
        """Classes of the rows of ``X`` (values in feature order), one vectorised pass over the
        nodes in topological order; the values are not checked against the domains.

        Raises :class:`InvalidGraphError` when some row satisfies no outgoing literal or
        several at a node (the graph does not partition the inputs).

        Examples
        --------
        >>> from xpg.examples import paper_figure2
        >>> paper_figure2().predict_batch(np.array([[0, 1, 2], [1, 1, 1]])).tolist()
        ['R', 'G']
        """
        order = self._topological_order()
        if order is None:
            raise InvalidGraphError("the graph has a cycle (run validate())")
        return route_rows(
            batch_matrix(self.features, X),
            self.feature_index,
            self.index_of(self.root),
            order,
            lambda n: [(self.edges[e][1], self.edges[e][2]) for e in self._out[n]],
            lambda n: self.classes[self._class[n]] if self._class[n] >= 0 else None,
            lambda n: self._ids[n],
        )

    # -- the model protocol (xpg.models.protocol) ---------------------------------------------
    def to_decision_graph(self) -> DecisionGraph:
        """The graph itself (not checked again: :meth:`validate` checks Def. 2)."""
        return self

    def to_json_body(self) -> dict[str, Any]:
        """The ``model`` object of the JSON format (``docs/model-format.md``)."""
        nodes = []
        for node in self.nodes:
            f = self.feature_of(node)
            nodes.append(
                {"id": node, "feature": f}
                if f is not None
                else {"id": node, "class": self.class_of(node)}
            )
        ids = self._ids
        edges = [{"from": ids[p], "to": ids[c], **literal_to_dict(lit)} for p, c, lit in self.edges]
        return {"type": self.json_type, "root": self.root, "nodes": nodes, "edges": edges}

    @classmethod
    def from_json_body(
        cls, body: Mapping[str, Any], features: list[Feature], classes: list[Any]
    ) -> DecisionGraph:
        """A graph from the ``model`` object of the JSON format (not yet validated)."""
        nodes, edges = body.get("nodes"), body.get("edges")
        if not isinstance(nodes, list) or not isinstance(edges, list):
            raise InvalidModelError("model: expected 'nodes' and 'edges' lists")
        root = body.get("root")
        dg = cls(features, classes, root=None if root is None else node_id(root, "model.root"))
        feature_of: dict[Any, str | None] = {}
        expected = "expected an object with an 'id'"
        for where, node in json_objects(nodes, "model.nodes", "nodes", ("id",), expected):
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
                    feature = node.get("feature")
                    expect(
                        feature is None or isinstance(feature, str),
                        f"{where}.feature",
                        f"expected a feature name (a string), found {shown(feature)}",
                    )
                    dg.add_node(nid, feature)
            except InvalidGraphError as err:
                raise InvalidModelError(f"{where}: {err}") from None
            feature_of[nid] = node.get("feature")
        expected = "expected an object with 'from' and 'to'"
        for where, edge in json_objects(edges, "model.edges", "edges", ("from", "to"), expected):
            parent = node_id(edge["from"], f"{where}.from")
            expect(parent in feature_of, where, f"'from' names an unknown node {parent!r}")
            feature = feature_of[parent]
            expect(feature is not None, where, f"node {parent!r} tests no feature but has an edge")
            try:
                child = node_id(edge["to"], f"{where}.to")
                dg.add_edge(parent, child, literal_from_dict(str(feature), edge, where))
            except InvalidGraphError as err:
                raise InvalidModelError(f"{where}: {err}") from None
        return dg

    def smt_encoding(self) -> SmtModel:
        """The class of an input as an SMT term: at each node, the child of the unique edge
        whose literal holds (``-1``, no class, where none does)."""
        from xpg.solvers.smt import UNDEFINED, SmtModel, first_match, postorder  # pysmt on use

        enc = SmtModel(self.features, self.classes, self.predict)
        m = enc.mgr
        terms: dict[Any, FNode] = {}
        for n in postorder(self.root, lambda n: [c for c, _ in self.children(n)]):
            if self.is_terminal(n):
                c = self.class_of(n)
                terms[n] = m.Int(enc.class_index(c) if c is not None else UNDEFINED)
            else:
                cases = [(enc.literal(lit), terms[c]) for c, lit in self.children(n)]
                terms[n] = first_match(enc, cases, m.Int(UNDEFINED))
        enc.class_term = terms[self.root]
        return enc

    # -- views --------------------------------------------------------------------------------
    def to_networkx(self) -> nx.MultiDiGraph:
        """A networkx view: node attributes ``feature``/``label``, edge attribute ``literal``."""
        import networkx as nx

        g = nx.MultiDiGraph()
        for i, node in enumerate(self._ids):
            f, c = self._feature[i], self._class[i]
            g.add_node(
                node,
                feature=self.features[f].name if f >= 0 else None,
                label=self.classes[c] if c >= 0 else None,
            )
        for p, c, lit in self.edges:
            g.add_edge(self._ids[p], self._ids[c], literal=lit)
        return g

    # -- validation ---------------------------------------------------------------------------
    def validate(self) -> None:
        """Check Def. 2 of the core paper; raise :class:`InvalidGraphError` listing violations."""
        problems = self.violations()
        if problems:
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            raise InvalidGraphError(f"invalid decision graph: {problems[0]}{more}", problems)

    def violations(self) -> list[str]:
        """Every violation of Def. 2, each naming the node or edge it concerns.

        Checked once per graph (a compiler and then its caller may both ask): the answer is
        kept until the graph changes.
        """
        if "violations" not in self._cache:
            self._cache["violations"] = self._violations()
        return list(self._cache["violations"])

    def _violations(self) -> list[str]:
        if not self._ids:
            return ["the graph has no nodes"]
        problems: list[str] = []
        order = self._topological_order()
        if order is None:
            stuck = self._nodes_on_cycles()
            return [f"the graph has a cycle through node(s) {stuck[:10]!r}"]
        try:
            root = self._index[self.root]
        except InvalidGraphError as err:
            problems.append(str(err))
            sources = [i for i, d in enumerate(self._in_degree) if d == 0]
            if not sources:
                return problems
            root = sources[0]
        reachable = self._reachable_from(root)
        for i, node in enumerate(self._ids):
            if i != root and i not in reachable:
                problems.append(
                    f"node {node!r} cannot be reached from the root {self._ids[root]!r}"
                )
        problems += self._node_violations()
        problems += self._edge_violations()
        if problems:
            return problems
        problems += self._partition_violations(order, root)
        if not problems and not self.is_tree():
            problems += self._inconsistent_path_violations(order, root)
        return problems

    def _topological_order(self) -> list[int] | None:
        indeg = list(self._in_degree)
        stack = [i for i, d in enumerate(indeg) if d == 0]
        order: list[int] = []
        while stack:
            n = stack.pop()
            order.append(n)
            for e in self._out[n]:
                c = self.edges[e][1]
                indeg[c] -= 1
                if indeg[c] == 0:
                    stack.append(c)
        return order if len(order) == len(self._ids) else None

    def _nodes_on_cycles(self) -> list[NodeId]:
        import networkx as nx  # only to report a cycle

        g = nx.DiGraph([(self._ids[p], self._ids[c]) for p, c, _ in self.edges])
        return [n for comp in nx.strongly_connected_components(g) if len(comp) > 1 for n in comp]

    def _reachable_from(self, root: int) -> set[int]:
        seen, stack = {root}, [root]
        while stack:
            for e in self._out[stack.pop()]:
                c = self.edges[e][1]
                if c not in seen:
                    seen.add(c)
                    stack.append(c)
        return seen

    def _node_violations(self) -> list[str]:
        out = []
        for i, node in enumerate(self._ids):
            f, c, has_children = self._feature[i], self._class[i], bool(self._out[i])
            if f < 0 and c < 0:
                what = (
                    "has children but tests no feature"
                    if has_children
                    else "is a terminal without class"
                )
                out.append(f"node {node!r} {what}")
            elif c >= 0 and has_children:
                out.append(f"terminal {node!r} (class {self.classes[c]!r}) has outgoing edges")
            elif f >= 0 and not has_children:
                out.append(
                    f"non-terminal {node!r} (feature {self.features[f].name!r}) has no children"
                )
        return out

    def _edge_violations(self) -> list[str]:
        out = []
        for p, c, lit in self.edges:
            f = self._feature[p]
            if f < 0:
                continue
            feature = self.features[f]
            where = f"edge {self._ids[p]!r} -> {self._ids[c]!r}"
            if lit.feature != feature.name:
                out.append(
                    f"{where}: literal over feature {lit.feature!r}, but node {self._ids[p]!r} "
                    f"tests {feature.name!r}"
                )
            elif feature.is_discrete and not lit.is_value_set:
                out.append(
                    f"{where}: expected a value set for {feature.kind} feature "
                    f"{feature.name!r}, found the interval {lit}"
                )
            elif bad := values_outside(feature, lit):
                out.append(
                    f"{where}: literal {lit} has values outside the domain of "
                    f"{feature.name!r}: {bad!r}"
                )
            elif feature.is_empty(feature.domain_set() & as_value_set(feature, lit)):
                out.append(
                    f"{where}: literal {lit} admits no value of the domain of {feature.name!r}"
                )
        return out

    def _partition_violations(self, order: list[int], root: int) -> list[str]:
        """Def. 2 (i): at each node the outgoing literals partition the values still possible."""
        out: list[str] = []
        incoming: list[list[dict[int, ValueSet]]] = [[] for _ in self._ids]
        incoming[root].append({})
        for n in order:
            if not incoming[n]:
                continue
            possible = _merge(incoming[n])
            f = self._feature[n]
            if f < 0:
                continue
            feature = self.features[f]
            here = possible[f] if f in possible else feature.domain_set()
            restricted = [(e, here & as_value_set(feature, self.edges[e][2])) for e in self._out[n]]
            covered: ValueSet = frozenset() if feature.is_discrete else P.empty()
            for k, (e, vals) in enumerate(restricted):
                edge = f"edge {self._ids[n]!r} -> {self._ids[self.edges[e][1]]!r}"
                if feature.is_empty(vals):
                    out.append(
                        f"{edge}: no input can take it: {self.edges[e][2]} is inconsistent with "
                        f"the values still possible at {self._ids[n]!r} "
                        f"({describe_values(feature.name, here)})"
                    )
                for e2, vals2 in restricted[k + 1 :]:
                    both = vals & vals2
                    if not feature.is_empty(both):
                        out.append(
                            f"node {self._ids[n]!r}: edges to {self._ids[self.edges[e][1]]!r} and "
                            f"{self._ids[self.edges[e2][1]]!r} overlap on "
                            f"{describe_values(feature.name, both)}"
                        )
                covered = covered | vals
            gap = here - covered
            if not feature.is_empty(gap):
                out.append(
                    f"node {self._ids[n]!r}: the outgoing literals leave "
                    f"{describe_values(feature.name, gap)} uncovered"
                )
            for e, vals in restricted:
                incoming[self.edges[e][1]].append({**possible, f: vals})
        return out

    def _inconsistent_path_violations(self, order: list[int], root: int) -> list[str]:
        """Def. 2 (ii) for DAGs: no root-to-terminal path restricts a feature to nothing.

        Only features tested twice on some path can make a path inconsistent once the
        partition check passed, so only those are tracked, one feature at a time.
        """
        out: list[str] = []
        below = [0] * len(self._ids)  # bitmask of features tested strictly below each node
        for n in reversed(order):
            mask = 0
            for e in self._out[n]:
                c = self.edges[e][1]
                mask |= below[c] | (1 << self._feature[c] if self._feature[c] >= 0 else 0)
            below[n] = mask
        repeated = sorted(
            {
                self._feature[n]
                for n in order
                if self._feature[n] >= 0 and below[n] >> self._feature[n] & 1
            }
        )
        for f in repeated:
            feature = self.features[f]
            states: list[set] = [set() for _ in self._ids]
            states[root].add(feature.domain_set())
            found = False
            for n in order:
                if found:
                    break
                for e in self._out[n]:
                    p, c, lit = self.edges[e]
                    for s in states[n]:
                        if self._feature[n] == f:
                            s = s & as_value_set(feature, lit)
                            if feature.is_empty(s):
                                out.append(
                                    f"edge {self._ids[p]!r} -> {self._ids[c]!r}: some path through "
                                    f"it is inconsistent (it requires {lit} after earlier tests "
                                    f"on {feature.name!r} excluded it)"
                                )
                                found = True
                                break
                        states[c].add(s)
                    if found:
                        break
        return out

    def __repr__(self) -> str:
        return (
            f"DecisionGraph({len(self.features)} features, {len(self.classes)} classes, "
            f"{len(self._ids)} nodes, {len(self.edges)} edges)"
        )

    def __iter__(self) -> Iterator[NodeId]:
        return iter(self._ids)


# -- value-set algebra shared by the validation passes ---------------------------------------------
def _merge(parents: list[dict[int, ValueSet]]) -> dict[int, ValueSet]:
    """Values possible at a node: the union over its incoming paths, per feature."""
    if len(parents) == 1:
        return parents[0]
    common = set(parents[0]).intersection(*parents[1:])
    merged: dict[int, ValueSet] = {}
    for f in common:
        acc = parents[0][f]
        for d in parents[1:]:
            acc = acc | d[f]
        merged[f] = acc
    return merged


# -- batch prediction shared by the model kinds ----------------------------------------------
def batch_matrix(features: Sequence[Feature], X: Any) -> np.ndarray:
    """``X`` as a 2-D array with one column per feature (the values themselves unchecked).

    Raises :class:`InvalidInstanceError` when the shape is wrong.
    """
    M = np.asarray(X)
    if M.ndim != 2 or M.shape[1] != len(features):
        raise InvalidInstanceError(
            f"expected a 2-D array with {len(features)} columns (one per feature), "
            f"found shape {M.shape}"
        )
    return M


def literal_mask(column: np.ndarray, literal: Literal) -> np.ndarray:
    """Which entries of ``column`` satisfy ``literal`` (vectorised).

    Examples
    --------
    >>> literal_mask(np.array([1.0, 2.5, 4.0]), Literal.le("x", 2.5)).tolist()
    [True, True, False]
    """
    if literal.is_value_set:
        if column.dtype == object:
            return np.fromiter((v in literal.allowed for v in column), bool, len(column))
        return np.isin(column, np.asarray(list(literal.allowed), dtype=float))
    col = column.astype(float)
    out = np.zeros(len(col), dtype=bool)
    for lo, hi, lo_in, hi_in in literal.intervals():
        above = (col > lo) | (lo_in & (col == lo))
        below = (col < hi) | (hi_in & (col == hi))
        out |= above & below
    return out


def label_array(labels: Sequence[Any] | np.ndarray) -> np.ndarray:
    """Labels as a numpy array: numeric when they are all numbers, else of dtype object.

    Examples
    --------
    >>> label_array([1, 0]).dtype.kind, label_array(["a", 1]).dtype.kind
    ('i', 'O')
    """
    out = np.empty(len(labels), dtype=object)
    out[:] = list(labels)
    if all(isinstance(v, (int, float, np.integer, np.floating)) for v in out):
        return np.asarray(out.tolist())
    return out


def route_rows(
    X: np.ndarray,
    feature_index: Mapping[str, int],
    root: Hashable,
    order: Sequence[Hashable],
    branches: Callable[[Any], Sequence[tuple[Any, Literal]]],
    label: Callable[[Any], Any],
    name: Callable[[Any], Any] = lambda n: n,
    error: type[XpgError] = InvalidGraphError,
) -> np.ndarray:
    """The labels of the rows of ``X`` under a diagram, each node visited once.

    ``order`` lists the nodes parents first; ``branches(n)`` gives the ``(child, literal)``
    pairs of a node (none for a terminal, whose class is ``label(n)``); ``name(n)`` is how an
    error names a node.  The rows at a node are split by the literals of its branches, all
    rows at once; a row satisfying no literal or several is refused with ``error``.
    """
    rows_at: dict[Any, list[np.ndarray]] = {root: [np.arange(len(X))]}
    labels = np.empty(len(X), dtype=object)
    for n in order:
        parts = rows_at.pop(n, None)
        if not parts:
            continue
        rows = np.concatenate(parts) if len(parts) > 1 else parts[0]
        out = branches(n)
        if not out:
            labels[rows] = label(n)
            continue
        taken = np.zeros(len(rows), dtype=int)
        for child, lit in out:
            sat = literal_mask(X[rows, feature_index[lit.feature]], lit)
            if sat.any():  # a node no row reaches is not visited
                rows_at.setdefault(child, []).append(rows[sat])
            taken += sat
        if (taken != 1).any():
            bad = int(np.flatnonzero(taken != 1)[0])
            raise error(
                f"node {name(n)!r}: row {int(rows[bad])} satisfies {taken[bad]} outgoing "
                "literals, expected exactly one"
            )
    return label_array(labels)
