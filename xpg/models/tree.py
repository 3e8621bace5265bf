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
from xpg.core.json_body import expect, feature_ref, literal_from_dict, literal_to_dict, shown
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
        self._shape = _Shape(root)
        for k, node in enumerate(self._shape.nodes):
            fine = self._fine(node) if isinstance(node, Split) else self._fine_leaf(node)
            if not fine:
                self._check(self._shape.path(k), node)

    def walk(self) -> Iterable[tuple[str, Node]]:
        """Every node with its path (``root``, ``root/0``, ...), depth first, preorder.

        A path is as long as the node is deep: on a very deep tree, iterate over
        :meth:`node_ids` instead (linear in the size of the tree)."""
        shape = self._shape
        for k, node in enumerate(shape.nodes):
            yield shape.path(k), node

    def node_ids(self) -> list[tuple[Any, Node]]:
        """Every node, preorder, with its id in :meth:`to_decision_graph`: its path when the
        tree is at most :data:`PATH_ID_DEPTH` deep, else its preorder number (paths of deeper
        trees would take space quadratic in the depth)."""
        shape = self._shape
        if shape.depth <= PATH_ID_DEPTH:
            return list(self.walk())
        return list(enumerate(shape.nodes))

    def _fine_leaf(self, node: Any) -> bool:
        if not isinstance(node, Leaf):
            return False
        label = node.label
        return any(label == c and type(label) is type(c) for c in self.classes)

    def _fine(self, node: Split) -> bool:
        """The common case of :meth:`_check` without building a path: a known feature,
        branches, each a literal over it that fits its domain."""
        i = self.feature_index.get(node.feature) if isinstance(node.feature, str) else None
        if i is None or not node.branches:
            return False
        f = self.features[i]
        return all(
            isinstance(lit, Literal) and lit.feature == f.name and not literal_mismatch(f, lit)
            for lit, _ in node.branches
        )

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
        node: Node = self.root
        steps: list[int] = []
        while isinstance(node, Split):
            v = values[node.feature]
            taken = [i for i, (lit, _) in enumerate(node.branches) if lit.satisfied_by(v)]
            if len(taken) != 1:
                path = "/".join(["root", *map(str, steps)])
                raise InvalidModelError(
                    f"split {path}: {len(taken)} branches admit {node.feature} = {v!r}, "
                    "expected exactly one"
                )
            steps.append(taken[0])
            node = node.branches[taken[0]][1]
        return node.label

    def predict_batch(self, X: Any) -> np.ndarray:
        """The classes of the rows of ``X`` (values in feature order, unchecked), vectorised:
        the rows at each split are divided by its branch literals, all at once."""
        nodes = dict(self._numbered())
        return route_rows(
            batch_matrix(self.features, X),
            self.feature_index,
            0,
            list(nodes),
            lambda p: self._shape.branches(p),
            lambda p: nodes[p].label,  # type: ignore[union-attr]
            error=InvalidModelError,
        )

    def _numbered(self) -> list[tuple[int, Node]]:
        return list(enumerate(self._shape.nodes))

    def validate(self) -> None:
        """Refuse overlapping or missing branches and impossible ones (see :func:`compile_tree`)."""
        compile_tree(self)

    def to_decision_graph(self) -> DecisionGraph:
        """The decision graph of the tree (see :func:`compile_tree`)."""
        return compile_tree(self)

    def to_json_body(self) -> dict[str, Any]:
        """``{"type": "decision-tree", "root": NODE}`` (see ``docs/model-format.md``)."""

        shape = self._shape
        out: list[dict[str, Any]] = []
        for n in shape.nodes:  # preorder: every parent is written before its children
            if isinstance(n, Leaf):
                out.append({"class": n.label})
            else:
                out.append({"feature": n.feature, "branches": []})
        for k, n in enumerate(shape.nodes):
            if isinstance(n, Split):
                out[k]["branches"] = [
                    {**literal_to_dict(lit), "node": out[c]}
                    for (lit, _), c in zip(n.branches, shape.children[k])
                ]
        return {"type": self.json_type, "root": out[0]}

    @classmethod
    def from_json_body(
        cls, body: Mapping[str, Any], features: list[Feature], classes: list[Any]
    ) -> DecisionTree:
        """The tree of a ``decision-tree`` object."""
        by_name = {f.name for f in features}
        expect("root" in body, "model", "expected a 'root' node")
        # Iterative, so that any depth reads; a JSON location is spelt out only on error
        # (on a deep tree, writing each one would take time quadratic in the depth).
        docs: list[Any] = [body["root"]]
        parent: list[tuple[int, int]] = [(-1, -1)]  # (parent, branch) of each node doc

        def where(k: int) -> str:
            parts = []
            while k > 0:
                k, b = parent[k]
                parts.append(f".branches[{b}].node")
            return "model.root" + "".join(reversed(parts))

        def located(k: int, err: InvalidModelError) -> InvalidModelError:
            return InvalidModelError(str(err).replace(_HERE, where(k)))

        k = 0
        while k < len(docs):  # breadth first: every node doc gets a number
            d = docs[k]
            try:
                if not isinstance(d, dict):  # the message only on failure: a whole subtree
                    expect(False, _HERE, f"expected a node object, found {shown(d)}")
                expect(
                    ("class" in d) != ("feature" in d),
                    _HERE,
                    "a node has either a 'class' (leaf) or a 'feature' with 'branches' (split)",
                )
                if "feature" in d:
                    feature_ref(d["feature"], by_name, _HERE)
                    branches = d.get("branches")
                    expect(
                        isinstance(branches, list) and bool(branches),
                        _HERE,
                        "expected a non-empty 'branches' list",
                    )
                    for i, b in enumerate(branches):
                        expect(
                            isinstance(b, dict) and "node" in b,
                            f"{_HERE}.branches[{i}]",
                            "expected an object with a 'node'",
                        )
                        docs.append(b["node"])
                        parent.append((k, i))
            except InvalidModelError as err:
                raise located(k, err) from None
            k += 1
        built: list[Node | None] = [None] * len(docs)
        first_child = [0] * len(docs)
        for k in range(len(docs) - 1, 0, -1):
            first_child[parent[k][0]] = k  # children are numbered consecutively
        for k in range(len(docs) - 1, -1, -1):  # children before parents
            d = docs[k]
            if "class" in d:
                built[k] = Leaf(d["class"])
                continue
            out = []
            for i, b in enumerate(d["branches"]):
                try:
                    lit = literal_from_dict(d["feature"], b, f"{_HERE}.branches[{i}]")
                except InvalidModelError as err:
                    raise located(k, err) from None
                out.append((lit, built[first_child[k] + i]))
            built[k] = Split(d["feature"], out)  # type: ignore[arg-type]
        return cls(features, classes, built[0])  # type: ignore[arg-type]

    def smt_encoding(self) -> SmtModel:
        """The class of an input as an SMT term: the subtree of the branch whose literal holds
        (``-1`` where no branch does)."""
        enc = SmtModel(self.features, self.classes, self.predict)
        m = enc.mgr
        shape = self._shape
        terms: dict[int, FNode] = {}
        for k in postorder(0, lambda k: shape.children[k]):
            node = shape.nodes[k]
            if isinstance(node, Leaf):
                terms[k] = m.Int(enc.class_index(node.label))
            else:
                terms[k] = first_match(
                    enc,
                    [(enc.literal(lit), terms[c]) for c, lit in shape.branches(k)],
                    m.Int(UNDEFINED),
                )
        enc.class_term = terms[0]
        return enc

    @property
    def depth(self) -> int:
        """The number of splits on the longest path."""
        return self._shape.depth

    def __len__(self) -> int:
        return len(self._shape.nodes)

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


#: Trees at most this deep get their paths (``root/1/0``) as node ids; deeper ones their
#: preorder numbers (a path is as long as its node is deep).
PATH_ID_DEPTH = 200

#: Stands for a JSON location in a message until the location is spelt out.
_HERE = "\x00here\x00"


class _Shape:
    """A tree's nodes in preorder (root 0), each with its parent, branch and children:
    built iteratively, so any depth works."""

    def __init__(self, root: Any) -> None:
        self.nodes: list[Any] = []
        self.parent: list[tuple[int, int]] = []
        self.children: list[list[int]] = []
        self.depth = 0
        level: list[int] = []
        stack: list[tuple[Any, int, int]] = [(root, -1, -1)]
        while stack:
            node, up, branch = stack.pop()
            k = len(self.nodes)
            self.nodes.append(node)
            self.parent.append((up, branch))
            self.children.append([])
            level.append(level[up] + 1 if up >= 0 else 0)
            if up >= 0:
                self.children[up].append(k)
            if isinstance(node, Split):
                self.depth = max(self.depth, level[k] + 1)
                subs = [sub for _, sub in node.branches]
                stack += [(sub, k, i) for i, sub in reversed(list(enumerate(subs)))]

    def path(self, k: int) -> str:
        """``root/1/0``: the branches taken from the root to node ``k``."""
        steps = []
        while k > 0:
            k, branch = self.parent[k]
            steps.append(str(branch))
        return "/".join(["root", *reversed(steps)])

    def branches(self, k: int) -> list[tuple[int, Literal]]:
        """The ``(child, literal)`` pairs of node ``k`` (none for a leaf)."""
        node = self.nodes[k]
        if not isinstance(node, Split):
            return []
        return [(c, lit) for c, (lit, _) in zip(self.children[k], node.branches)]


def compile_tree(tree: DecisionTree) -> DecisionGraph:
    """The decision graph of a tree, checked against Def. 2; node ids are the tree paths
    (``root/1/0``), or preorder numbers for trees deeper than :data:`PATH_ID_DEPTH`.

    Raises
    ------
    InvalidModelError
        When branch literals overlap, leave a gap, or a branch is impossible on its path;
        the message lists every violation.
    """
    named = tree.node_ids()
    ids = [i for i, _ in named]
    dg = DecisionGraph(tree.features, tree.classes, root=ids[0])
    for node_id, node in named:
        if isinstance(node, Leaf):
            dg.add_terminal(node_id, node.label)
        else:
            dg.add_node(node_id, node.feature)
    shape = tree._shape
    for k, (node_id, _) in enumerate(named):
        for c, lit in shape.branches(k):
            dg.add_edge(node_id, ids[c], lit)
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
    :func:`~xpg.compile.sklearn_tree.from_sklearn_tree`), e.g. to save it as JSON; a
    subclass overriding how it predicts is refused
    (:func:`~xpg.core.library_predict.check_library_predict`)."""
    from xpg.core.library_predict import check_library_predict

    check_library_predict(estimator)
    return DecisionTree.from_decision_graph(from_sklearn_tree(estimator, features, classes))
