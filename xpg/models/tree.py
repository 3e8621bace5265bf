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
>>> dg = compile_tree(tree)
>>> dg.predict({"income": 45.0, "job": "c"}), dg.nodes[:3]
('yes', ['root', 'root/0', 'root/1'])

References
----------
Huang, Izza, Ignatiev, Marques-Silva. On Efficiently Explaining Graph-Based Classifiers.
KR 2021, Sec. 2 (decision trees) and Def. 2.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from xpg.core.features import Feature, Literal
from xpg.core.graph import DecisionGraph
from xpg.core.instances import instance_dict
from xpg.errors import InvalidGraphError, InvalidModelError


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
    """A decision tree over declared features.

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

    def __init__(self, features: Sequence[Feature], classes: Sequence[Any], root: Node) -> None:
        self.features = list(features)
        self.classes = list(classes)
        self.root = root
        self.feature_index = {f.name: i for i, f in enumerate(self.features)}
        if len(self.feature_index) != len(self.features):
            raise InvalidModelError("decision tree: a feature name is declared twice")
        if not self.classes or len(set(map(repr, self.classes))) != len(self.classes):
            raise InvalidModelError(
                f"decision tree: expected distinct class labels, found {self.classes!r}"
            )
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
            if not any(node.label == c and type(node.label) is type(c) for c in self.classes):
                raise InvalidModelError(
                    f"leaf {path}: class {node.label!r} is not declared (classes: {self.classes!r})"
                )
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
            if f.is_discrete and not lit.is_value_set:
                raise InvalidModelError(
                    f"{where}: expected a value set for the {f.kind} feature {f.name!r}, "
                    f"found the interval {lit}"
                )
            if lit.is_value_set:
                bad = [v for v in lit.allowed if not f.contains(v)]
                if bad:
                    raise InvalidModelError(
                        f"{where}: value(s) {bad!r} outside the domain of {f.name!r}"
                    )

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
        order = [n for n in _postorder(dg)]
        for n in order:
            if dg.is_terminal(n):
                built[n] = Leaf(dg.class_of(n))
            else:
                built[n] = Split(
                    str(dg.feature_of(n)), [(lit, built[c]) for c, lit in dg.children(n)]
                )
        return cls(dg.features, dg.classes, built[dg.root])


def _postorder(dg: DecisionGraph) -> list[Any]:
    out, stack = [], [(dg.root, False)]
    while stack:
        n, done = stack.pop()
        if done:
            out.append(n)
            continue
        stack.append((n, True))
        stack += [(c, False) for c, _ in dg.children(n)]
    return out


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
