"""The project's own decision trees: splits on one feature with one literal per branch.

A :class:`Split` tests one feature and has branches ``(literal, subtree)``; a :class:`Leaf`
holds a class.  Features may be boolean, categorical, integer or real, a feature may be
tested again below itself, and a split may have any number of branches.  The tree is
checked when it is compiled (:func:`compile_tree`): at every split the branch literals
must partition the values still possible there (no overlap, no gap) and no branch may be
impossible on its path.  Nothing is repaired: such a tree is refused with the violations
listed, each naming the split by its path from the root (``root/1/0``: the first branch of
the second branch of the root).

Examples
--------
>>> from xpg.core.features import Feature, Literal
>>> feats = [Feature.real("income"), Feature.categorical("job", ["a", "b", "c"])]
>>> tree = DecisionTree(feats, ["no", "yes"], Split("income", [
...     (Literal.le("income", 30.0), Leaf("no")),
...     (Literal.gt("income", 30.0), Split("job", [
...         (Literal.isin("job", ["a"]), Leaf("no")),
...         (Literal.isin("job", ["b", "c"]), Leaf("yes"))]))]))
>>> tree.predict({"income": 45.0, "job": "c"})
'yes'
>>> dg = tree.to_decision_graph()
>>> dg.predict({"income": 45.0, "job": "c"}), dg.nodes[:3]
('yes', ['root', 'root/0', 'root/1'])
>>> tree.to_json_body()["root"]["branches"][0]
{'le': 30.0, 'node': {'class': 'no'}}

References
----------
Huang, Izza, Ignatiev, Marques-Silva. On Efficiently Explaining Graph-Based Classifiers.
KR 2021, Sec. 2 (decision trees) and Def. 2.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from xpg.compile.sklearn_tree import from_sklearn_tree
from xpg.core.features import Feature, Literal
from xpg.core.graph import DecisionGraph, batch_matrix, route_rows
from xpg.core.instances import instance_dict
from xpg.core.json_body import expect, feature_ref, literal_from_dict, literal_to_dict
from xpg.core.valuesets import literal_mismatch
from xpg.errors import InvalidGraphError, InvalidModelError
from xpg.models.protocol import check_label, checked_signature
from xpg.solvers.smt import UNDEFINED, SmtModel, first_match, postorder

if TYPE_CHECKING:
    from pysmt.fnode import FNode


class Leaf:
    """A leaf predicting ``label``."""

    __slots__ = ("label",)

    def __init__(self, label: Any) -> None:
        self.label = label

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Leaf) and self.label == other.label

    def __hash__(self) -> int:
        return hash(repr(self.label))

    def __repr__(self) -> str:
        return f"Leaf({self.label!r})"


class Split:
    """A split on ``feature``: branches ``(literal, subtree)``, literals over that feature."""

    __slots__ = ("branches", "feature")

    def __init__(self, feature: str, branches: Iterable[tuple[Literal, Leaf | Split]]) -> None:
        self.feature = feature
        self.branches: tuple[tuple[Literal, Leaf | Split], ...] = tuple(
            (lit, sub) for lit, sub in branches
        )

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Split)
            and self.feature == other.feature
            and self.branches == other.branches
        )

    def __hash__(self) -> int:
        return hash((self.feature, self.branches))

    def __repr__(self) -> str:
        return f"Split({self.feature!r}, {list(self.branches)!r})"


Node = Leaf | Split


class DecisionTree:
    """A decision tree over declared features (JSON type ``decision-tree``).

    Parameters
    ----------
    features : sequence of Feature
    classes : sequence
    root : Leaf or Split

    Raises
    ------
    InvalidModelError
        A split on an unknown feature, a branch literal over another feature or of the wrong
        kind, a value outside the declared domain, an undeclared class, a split without branches.
    """

    json_type: ClassVar[str] = "decision-tree"

    def __init__(self, features: Sequence[Feature], classes: Sequence[Any], root: Node) -> None:
        self.features, self.classes, self.feature_index = checked_signature(
            "decision tree", features, classes
        )
        self.root = root
        for path, node in self.walk():
            self._check(path, node)

    def walk(self) -> Iterable[tuple[str, Node]]:
        """Every node with its path (``root``, ``root/0``, ...), depth first, preorder."""
        stack: list[tuple[str, Node]] = [("root", self.root)]
        while stack:
            path, node = stack.pop()
            yield path, node
            if isinstance(node, Split):
                stack += [(f"{path}/{i}", sub) for i, (_, sub) in enumerate(node.branches)][::-1]

    def _check(self, path: str, node: Any) -> None:
        if isinstance(node, Leaf):
            check_label(node.label, self.classes, f"leaf {path}")
            return
        if not isinstance(node, Split):
            raise InvalidModelError(f"node {path}: expected a Leaf or a Split, found {node!r}")
        if node.feature not in self.feature_index:
            raise InvalidModelError(
                f"split {path}: unknown feature {node.feature!r} "
                f"(declared: {', '.join(self.feature_index)})"
            )
        if not node.branches:
            raise InvalidModelError(f"split {path}: no branches")
        f = self.features[self.feature_index[node.feature]]
        for i, (lit, _) in enumerate(node.branches):
            where = f"split {path}, branch {i}"
            if not isinstance(lit, Literal) or lit.feature != f.name:
                raise InvalidModelError(f"{where}: expected a literal over {f.name!r}, found {lit}")
            problem = literal_mismatch(f, lit)
            if problem:
                raise InvalidModelError(f"{where}: {problem}")

    def predict(self, instance: Mapping[str, Any] | Sequence[Any]) -> Any:
        """The class of an instance: follow the branch whose literal holds at each split."""
        values = instance_dict(self.features, instance)
        node, path = self.root, "root"
        while isinstance(node, Split):
            v = values[node.feature]
            taken = [i for i, (lit, _) in enumerate(node.branches) if lit.satisfied_by(v)]
            if len(taken) != 1:
                raise InvalidModelError(
                    f"split {path}: {len(taken)} branches admit {node.feature} = {v!r}, "
                    "expected exactly one"
                )
            node, path = node.branches[taken[0]][1], f"{path}/{taken[0]}"
        return node.label

    def predict_batch(self, X: Any) -> np.ndarray:
        """The classes of the rows of ``X`` (values in feature order, unchecked), vectorised:
        the rows at each split are divided by its branch literals, all at once."""
        nodes = dict(self.walk())
        return route_rows(
            batch_matrix(self.features, X),
            self.feature_index,
            "root",
            list(nodes),
            lambda p: _branches(p, nodes[p]),
            lambda p: nodes[p].label,  # type: ignore[union-attr]
            error=InvalidModelError,
        )

    def validate(self) -> None:
        """Refuse overlapping or missing branches and impossible ones (see :func:`compile_tree`)."""
        compile_tree(self)

    def to_decision_graph(self) -> DecisionGraph:
        """The decision graph of the tree (see :func:`compile_tree`)."""
        return compile_tree(self)

    def to_json_body(self) -> dict[str, Any]:
        """``{"type": "decision-tree", "root": NODE}`` (see ``docs/model-format.md``)."""

        def node(n: Node) -> dict[str, Any]:
            if isinstance(n, Leaf):
                return {"class": n.label}
            return {
                "feature": n.feature,
                "branches": [{**literal_to_dict(lit), "node": node(s)} for lit, s in n.branches],
            }

        # an iterative writer would need an explicit stack; trees deeper than Python's
        # recursion limit are refused by a clear error rather than a RecursionError
        if self.depth > 900:
            raise InvalidModelError(
                f"decision tree of depth {self.depth}: too deep to write as JSON"
            )
        return {"type": self.json_type, "root": node(self.root)}

    @classmethod
    def from_json_body(
        cls, body: Mapping[str, Any], features: list[Feature], classes: list[Any]
    ) -> DecisionTree:
        """The tree of a ``decision-tree`` object."""
        by_name = {f.name for f in features}

        def node(d: Any, where: str) -> Node:
            if not isinstance(d, dict):  # the message only on failure: d may be a whole subtree
                expect(False, where, f"expected a node object, found {d!r}")
            expect(
                ("class" in d) != ("feature" in d),
                where,
                "a node has either a 'class' (leaf) or a 'feature' with 'branches' (split)",
            )
            if "class" in d:
                return Leaf(d["class"])
            feature = feature_ref(d["feature"], by_name, where)
            branches = d.get("branches")
            expect(
                isinstance(branches, list) and bool(branches),
                where,
                "expected a non-empty 'branches' list",
            )
            out = []
            for i, b in enumerate(branches):
                bw = f"{where}.branches[{i}]"
                expect(isinstance(b, dict) and "node" in b, bw, "expected an object with a 'node'")
                out.append((literal_from_dict(feature, b, bw), node(b["node"], f"{bw}.node")))
            return Split(feature, out)

        expect("root" in body, "model", "expected a 'root' node")
        return cls(features, classes, node(body["root"], "model.root"))

    def smt_encoding(self) -> SmtModel:
        """The class of an input as an SMT term: the subtree of the branch whose literal holds
        (``-1`` where no branch does)."""
        enc = SmtModel(self.features, self.classes, self.predict)
        m = enc.mgr
        nodes = dict(self.walk())
        terms: dict[str, FNode] = {}
        for path in postorder("root", lambda p: [c for c, _ in _branches(p, nodes[p])]):
            node = nodes[path]
            if isinstance(node, Leaf):
                terms[path] = m.Int(enc.class_index(node.label))
            else:
                terms[path] = first_match(
                    enc,
                    [(enc.literal(lit), terms[c]) for c, lit in _branches(path, node)],
                    m.Int(UNDEFINED),
                )
        enc.class_term = terms["root"]
        return enc

    @property
    def depth(self) -> int:
        """The number of splits on the longest path."""
        return max(path.count("/") for path, _ in self.walk())

    def __len__(self) -> int:
        return sum(1 for _ in self.walk())

    def __repr__(self) -> str:
        return (
            f"DecisionTree({len(self.features)} features, {len(self.classes)} classes, "
            f"{len(self)} nodes, depth {self.depth})"
        )

    @classmethod
    def from_decision_graph(cls, dg: DecisionGraph) -> DecisionTree:
        """The tree of a decision graph in which every node has at most one parent."""
        if not dg.is_tree():
            raise InvalidModelError(
                "expected a decision graph that is a tree (a node has two parents)"
            )
        built: dict[Any, Node] = {}
        for n in postorder(dg.root, lambda n: [c for c, _ in dg.children(n)]):
            if dg.is_terminal(n):
                built[n] = Leaf(dg.class_of(n))
            else:
                built[n] = Split(
                    str(dg.feature_of(n)), [(lit, built[c]) for c, lit in dg.children(n)]
                )
        return cls(dg.features, dg.classes, built[dg.root])


def _branches(path: str, node: Node) -> list[tuple[str, Literal]]:
    """The ``(child path, literal)`` pairs of a node (none for a leaf)."""
    if isinstance(node, Leaf):
        return []
    return [(f"{path}/{i}", lit) for i, (lit, _) in enumerate(node.branches)]


def compile_tree(tree: DecisionTree) -> DecisionGraph:
    """The decision graph of a tree (node ids are the tree paths), checked against Def. 2.

    Raises
    ------
    InvalidModelError
        When branch literals overlap, leave a gap, or a branch is impossible on its path;
        the message lists every violation.
    """
    dg = DecisionGraph(tree.features, tree.classes, root="root")
    for path, node in tree.walk():
        if isinstance(node, Leaf):
            dg.add_terminal(path, node.label)
        else:
            dg.add_node(path, node.feature)
    for path, node in tree.walk():
        if isinstance(node, Split):
            for i, (lit, _) in enumerate(node.branches):
                dg.add_edge(path, f"{path}/{i}", lit)
    try:
        dg.validate()
    except InvalidGraphError as err:
        raise InvalidModelError(
            "invalid decision tree: "
            + "; ".join(err.violations[:5])
            + (f" (and {len(err.violations) - 5} more)" if len(err.violations) > 5 else "")
        ) from None
    return dg


def tree_from_sklearn(
    estimator: Any, features: Sequence[Any] | None = None, classes: Sequence[Any] | None = None
) -> DecisionTree:
    """A scikit-learn tree as a :class:`DecisionTree` over the features (exact, see
    :func:`~xpg.compile.sklearn_tree.from_sklearn_tree`), e.g. to save it as JSON."""
    return DecisionTree.from_decision_graph(from_sklearn_tree(estimator, features, classes))
