"""OBDDs built with dd (pure-Python ``dd.autoref`` or CUDD ``dd.cudd``) as classifiers.

An :class:`OBDD` is one BDD (two classes: false -> ``classes[0]``, true -> ``classes[1]``) or
one BDD per class (the functions must partition the inputs), in one dd manager whose
variable order is the diagram's order.  Both dd back-ends use complemented edges: a
reference may stand for the negation of the node it points to, and dd's ``low``/``high``
are the children of the node, not of the negated function.
:func:`~xpg.compile.bdd.cofactors` restores
the cofactors of the function, and :meth:`OBDD.to_decision_graph` expands complemented
references into a plain reduced OBDD (one DG node per distinct function).

Examples
--------
>>> bdd = bdd_manager(["a", "b", "c"])            # dd.autoref, order a < b < c
>>> u = bdd.apply("or", bdd.apply("and", bdd.var("a"), ~bdd.var("b")), bdd.var("c"))
>>> model = OBDD(~u, classes=["yes", "no"])         # a complemented reference
>>> model.predict({"a": 0, "b": 1, "c": 0})
'no'
>>> dg = model.to_decision_graph()
>>> dg.predict({"a": 0, "b": 1, "c": 0}), len(dg)
('no', 5)

References
----------
Bryant. Graph-based algorithms for Boolean function manipulation. IEEE TC 1986;
Brace, Rudell, Bryant. Efficient implementation of a BDD package. DAC 1990 (complemented
edges); Huang, Izza, Ignatiev, Marques-Silva. On Efficiently Explaining Graph-Based
Classifiers. KR 2021, Sec. 2 and 7.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from xpg.compile.bdd import bdd_manager, cofactors, manager_order
from xpg.core.features import Feature, Literal
from xpg.core.graph import DecisionGraph
from xpg.core.instances import instance_dict
from xpg.errors import InvalidModelError
from xpg.models.omdd import OMDD
from xpg.models.protocol import predict_rows
from xpg.solvers.smt import UNDEFINED, SmtModel, first_match, postorder

if TYPE_CHECKING:
    from pysmt.fnode import FNode


class OBDD:
    """A classifier given by dd BDDs over boolean features (JSON type ``obdd``).

    Parameters
    ----------
    functions : dd Function, or mapping class -> dd Function
        One function (class ``classes[1]`` where it is true, ``classes[0]`` elsewhere), or one
        function per class; those must be pairwise disjoint and cover every input.
    features : sequence of Feature, optional
        Boolean features, one per variable of the manager (default: ``Feature.boolean(var)``
        for every variable, in level order).  Extra boolean features are allowed.
    classes : sequence, optional
        With one function: the (false, true) labels, default ``(0, 1)``.  With a mapping: the
        labels in order (default: the mapping's keys).
    """

    json_type: ClassVar[str] = "obdd"

    def __init__(
        self,
        functions: Any,
        features: Sequence[Feature] | None = None,
        classes: Sequence[Any] | None = None,
    ) -> None:
        if isinstance(functions, Mapping):
            if not functions:
                raise InvalidModelError("expected at least one class function, found none")
            labels = list(functions) if classes is None else list(classes)
            missing = [c for c in labels if c not in functions]
            extra = [c for c in functions if c not in labels]
            if missing or extra:
                raise InvalidModelError(
                    f"expected one function per class {labels!r}; missing {missing!r}, "
                    f"unexpected {extra!r}"
                )
            self.functions = [functions[c] for c in labels]
            self.classes = labels
        else:
            labels = [0, 1] if classes is None else list(classes)
            if len(labels) != 2:
                raise InvalidModelError(
                    f"one BDD gives two classes (false, true), found classes {labels!r}"
                )
            self.functions = [~functions, functions]
            self.classes = labels
        if not all(hasattr(f, "bdd") and hasattr(f, "negated") for f in self.functions):
            raise InvalidModelError(
                "expected dd BDD functions (dd.autoref or dd.cudd), found "
                f"{sorted({type(f).__name__ for f in self.functions})}"
            )
        self.bdd = self.functions[0].bdd
        if any(f.bdd is not self.bdd for f in self.functions):
            raise InvalidModelError("the class functions belong to different dd managers")
        self.order = manager_order(self.bdd)
        if features is None:
            features = [Feature.boolean(v) for v in self.order]
        self.features = list(features)
        names = {f.name: f for f in self.features}
        for v in self.order:
            if v not in names:
                raise InvalidModelError(f"BDD variable {v!r} has no feature of that name")
            if names[v].kind != "boolean":
                raise InvalidModelError(
                    f"BDD variable {v!r}: expected a boolean feature, found {names[v].kind}"
                )
        self._check_partition()

    def _check_partition(self) -> None:
        bdd = self.bdd
        covered = bdd.false
        for i, f in enumerate(self.functions):
            if (covered & f) != bdd.false:
                raise InvalidModelError(
                    f"the function of class {self.classes[i]!r} overlaps an earlier class: "
                    "some input would have two classes"
                )
            covered = covered | f
        if covered != bdd.true:
            raise InvalidModelError("the class functions leave some inputs without a class")

    @property
    def backend(self) -> str:
        """``"autoref"`` or ``"cudd"``."""
        return type(self.bdd).__module__.split(".")[-1]

    @property
    def n_nodes(self) -> int:
        """dd nodes of the class functions, the constant node included (as ``len(u)`` in dd)."""
        return len(_shared_nodes(self.functions)) + 1

    def predict(self, instance: Mapping[str, Any] | Sequence[Any]) -> Any:
        """The class whose function the instance satisfies (evaluated by dd itself)."""
        values = instance_dict(self.features, instance)
        assignment = {v: bool(values[v]) for v in self.order}
        for label, f in zip(self.classes, self.functions, strict=True):
            if self.bdd.let(assignment, f) == self.bdd.true:
                return label
        raise InvalidModelError("no class function holds on this input")  # excluded at init

    def predict_batch(self, X: Any) -> np.ndarray:
        """The classes of the rows of ``X``: a loop over the rows, each evaluated by dd (dd
        evaluates one assignment at a time)."""
        return predict_rows(self, X)

    def validate(self) -> None:
        """Nothing to do: the class functions are checked to partition the inputs when built."""

    def to_omdd(self) -> OMDD:
        """The same diagram as an :class:`~xpg.models.omdd.OMDD` (complemented edges expanded,
        node ids of :meth:`to_decision_graph`)."""
        dg = self.to_decision_graph()
        omdd = OMDD(self.features, self.classes, order=self.order, root=dg.root)
        for n in dg.nodes:
            f = dg.feature_of(n)
            if f is None:
                omdd.add_terminal(n, dg.class_of(n))
            else:
                omdd.add_node(n, f, [(sorted(lit.allowed), c) for c, lit in dg.children(n)])
        return omdd

    def to_json_body(self) -> dict[str, Any]:
        """The ``obdd`` object of :meth:`to_omdd` (``low``/``high`` children)."""
        return self.to_omdd().to_json_body()

    @classmethod
    def from_json_body(
        cls, body: Mapping[str, Any], features: list[Feature], classes: list[Any]
    ) -> OBDD:
        """dd functions (``dd.autoref``, variables in ``order``) of an ``obdd`` object.

        The registry reads ``obdd`` documents as :class:`~xpg.models.omdd.OMDD`; this is for
        callers who want the dd functions back.
        """
        omdd = OMDD.from_json_body({**body, "type": "obdd"}, features, classes)
        bdd = bdd_manager(omdd.order)
        funcs: dict[Any, list[Any]] = {}  # node -> one function per class
        for n in postorder(omdd.root, lambda n: list(omdd.children(n).values())):
            f = omdd.feature_of(n)
            if f is None:
                label = omdd.class_of(n)
                funcs[n] = [
                    bdd.true if c == label and type(c) is type(label) else bdd.false
                    for c in omdd.classes
                ]
            else:
                lo, hi = omdd.children(n)[0], omdd.children(n)[1]
                x = bdd.var(f)
                funcs[n] = [bdd.ite(x, h, low) for low, h in zip(funcs[lo], funcs[hi], strict=True)]
        per_class = funcs[omdd.root]
        if len(omdd.classes) == 2:
            return cls(per_class[1], features, omdd.classes)
        return cls(dict(zip(omdd.classes, per_class, strict=True)), features, omdd.classes)

    def smt_encoding(self) -> SmtModel:
        """The class of an input as an SMT term, read from dd's nodes: ``ITE(var, high, low)``
        per regular node, a complemented reference as the negation of its node."""
        enc = SmtModel(self.features, self.classes, self.predict)
        m = enc.mgr
        bdd = self.bdd
        regular: dict[int, Any] = {}
        for f in self.functions:
            r = ~f if f.negated else f
            regular.setdefault(int(r), r)

        def kids(k: int) -> list[int]:
            r = regular[k]
            if r.var is None:
                return []
            out = []
            for c in (r.low, r.high):
                rc = ~c if c.negated else c
                regular.setdefault(int(rc), rc)
                out.append(int(rc))
            return out

        formula: dict[int, FNode] = {}

        def ref(u: Any) -> FNode:
            r = ~u if u.negated else u
            body = formula[int(r)]
            return m.Not(body) if u.negated else body

        for root in list(regular):
            for k in postorder(root, kids):
                if k in formula:
                    continue
                r = regular[k]
                if r.var is None:
                    formula[k] = m.Bool(r == bdd.true)
                else:
                    formula[k] = m.Ite(enc.is_value(r.var, 1), ref(r.high), ref(r.low))
        enc.class_term = first_match(
            enc, [(ref(f), m.Int(i)) for i, f in enumerate(self.functions)], m.Int(UNDEFINED)
        )
        return enc

    def to_decision_graph(self) -> DecisionGraph:
        """The reduced OBDD as a decision graph (complemented edges expanded).

        One DG node per distinct tuple of class cofactors, so with one function the result
        is the canonical reduced OBDD of that function; node ids are integers, root 0.
        """
        bdd = self.bdd
        dg = DecisionGraph(self.features, self.classes)
        lits = {v: (Literal.eq(v, 0), Literal.eq(v, 1)) for v in self.order}
        true = bdd.true

        def key(fs: Sequence[Any]) -> tuple[int, ...]:
            return tuple(int(f) for f in fs)

        def add(fs: tuple[Any, ...]) -> int:
            k = key(fs)
            if k in ids:
                return ids[k]
            i = ids[k] = len(ids)
            levels = [f.level for f in fs if f.var is not None]
            if not levels:
                dg.add_terminal(i, self.classes[[f == true for f in fs].index(True)])
            else:
                dg.add_node(i, bdd.var_at_level(min(levels)))
                stack.append((i, fs, min(levels)))
            return i

        ids: dict[tuple[int, ...], int] = {}
        stack: list[tuple[int, tuple[Any, ...], int]] = []
        add(tuple(self.functions))
        while stack:
            i, fs, level = stack.pop()
            lows, highs = [], []
            for f in fs:
                if f.var is not None and f.level == level:
                    lo, hi = cofactors(f)
                else:
                    lo = hi = f
                lows.append(lo)
                highs.append(hi)
            var = bdd.var_at_level(level)
            dg.add_edge(i, add(tuple(lows)), lits[var][0])
            dg.add_edge(i, add(tuple(highs)), lits[var][1])
        return dg


def _shared_nodes(functions: Sequence[Any]) -> set[int]:
    """Regular nodes below the functions (a complemented reference and its node count once)."""
    seen: set[int] = set()
    stack = list(functions)
    while stack:
        f = stack.pop()
        if f.var is None:
            continue
        r = ~f if f.negated else f
        k = int(r)
        if k in seen:
            continue
        seen.add(k)
        stack += [r.low, r.high]
    return seen


def from_bdd(
    functions: Any,
    features: Sequence[Feature] | None = None,
    classes: Sequence[Any] | None = None,
) -> DecisionGraph:
    """Compile dd BDD(s) into a decision graph (see :class:`OBDD`).

    Examples
    --------
    >>> import dd.autoref
    >>> bdd = dd.autoref.BDD(); bdd.declare("x", "y")
    >>> dg = from_bdd(bdd.apply("xor", bdd.var("x"), bdd.var("y")))
    >>> [dg.predict({"x": a, "y": b}) for a in (0, 1) for b in (0, 1)]
    [0, 1, 1, 0]
    """
    return OBDD(functions, features, classes).to_decision_graph()


__all__ = ["OBDD", "from_bdd"]
