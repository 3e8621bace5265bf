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
from typing import Any

from xpg.compile.bdd import bdd_manager, cofactors, manager_order
from xpg.core.features import Feature, Literal
from xpg.core.graph import DecisionGraph
from xpg.core.instances import instance_dict
from xpg.errors import InvalidModelError


class OBDD:
    """A classifier given by dd BDDs over boolean features.

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


__all__ = ["OBDD", "bdd_manager", "from_bdd"]
