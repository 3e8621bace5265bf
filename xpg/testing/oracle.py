"""The brute-force oracle: explanations by exhaustive evaluation, independent of the algorithms.

Two sources of truth, one :class:`Oracle`:

* a classifier (a decision graph, a model, a scikit-learn estimator) evaluated by its own
  ``predict`` on every point of a grid that holds one value of every cell the classifier can
  tell apart (:class:`ClassTable`; :func:`grid_from_literals` and :func:`representatives`
  build such grids);
* the XpG function of an explanation graph, evaluated for every set of fixed variables by a
  plain breadth-first search written here (:meth:`Oracle.of_xpg`).

An AXp is a subset-minimal set of features that, fixed to the instance, leaves one class;
a CXp is a subset-minimal set whose freeing reaches another class.  Nothing here calls the
library's reachability, AXp/CXp, enumeration or membership code.

Examples
--------
>>> from xpg.examples import paper_figure1, AGE, INCOME, STUDENT, CREDIT
>>> dg = paper_figure1()
>>> x = {AGE: "O", INCOME: "L", STUDENT: "Y", CREDIT: "P"}
>>> truth = ClassTable.of_graph(dg).oracle(x)
>>> sorted(map(sorted, truth.axps)), sorted(map(sorted, truth.cxps))
([['Age', 'Credit Rating']], [['Age'], ['Credit Rating']])
"""

from __future__ import annotations

import itertools
import math
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from xpg.core.features import Feature, Literal
from xpg.core.graph import DecisionGraph
from xpg.core.xpgraph import ExplanationGraph
from xpg.testing.features import domain_values

Family = frozenset[frozenset[str]]
Point = Mapping[str, Any] | Sequence[Any]


def literal_constants(literals: Iterable[Literal]) -> dict[str, set[float]]:
    """Per feature, every finite number the literals compare with (interval ends, numeric
    values of value sets).

    Examples
    --------
    >>> literal_constants([Literal.le("a", 2.0), Literal.interval("a", 1.0, 3.0)])
    {'a': {1.0, 2.0, 3.0}}
    """
    out: dict[str, set[float]] = {}
    for lit in literals:
        s = out.setdefault(lit.feature, set())
        if lit.is_value_set:
            s.update(float(v) for v in lit.allowed if isinstance(v, (int, float)))
        else:
            for lo, hi, _, _ in lit.intervals():
                s.update(x for x in (lo, hi) if math.isfinite(x))
    return out


def numeric_representatives(f: Feature, constants: Iterable[float]) -> list[Any]:
    """Every constant, a point between consecutive ones and one beyond each end, inside the
    domain (every value of an integer feature).

    Examples
    --------
    >>> numeric_representatives(Feature.real("r"), {1.0, 2.0})
    [0.0, 1.0, 1.5, 2.0, 3.0]
    >>> numeric_representatives(Feature.real("r", 0.5, 10.0), {1.0})
    [1.0, 2.0]
    """
    if f.kind == "integer":
        return domain_values(f)
    cs = sorted(constants)
    pts = set(cs)
    pts.update((a + b) / 2 for a, b in zip(cs, cs[1:]))
    if cs:
        pts.update((cs[0] - 1.0, cs[-1] + 1.0))
    else:
        pts.add(0.0)
    inside = sorted(p for p in pts if f.low <= p <= f.high)
    return inside or [f.low if math.isfinite(f.low) else 0.0]


def grid_from_literals(
    features: Sequence[Feature], literals: Iterable[Literal]
) -> dict[str, list[Any]]:
    """Per feature, one value of every cell the literals can tell apart.

    Examples
    --------
    >>> grid_from_literals([Feature.boolean("b"), Feature.real("r")], [Literal.gt("r", 0.5)])
    {'b': [0, 1], 'r': [-0.5, 0.5, 1.5]}
    """
    consts = literal_constants(literals)
    return {
        f.name: list(f.values)
        if f.is_discrete
        else numeric_representatives(f, consts.get(f.name, set()))
        for f in features
    }


def representatives(dg: DecisionGraph) -> list[list[Any]]:
    """Per feature of ``dg``, in order, one value from every class of values it cannot tell
    apart (:func:`grid_from_literals` over its edge literals).

    Examples
    --------
    >>> from xpg.examples import paper_figure1
    >>> [len(r) for r in representatives(paper_figure1())]
    [3, 3, 2, 3]
    """
    grid = grid_from_literals(dg.features, [lit for _, _, lit in dg.edges])
    return [grid[f.name] for f in dg.features]


def _minimal(family: list[frozenset[int]], names: Sequence[str]) -> Family:
    return frozenset(
        frozenset(names[i] for i in s) for s in family if not any(t < s for t in family)
    )


def brute_minimal_hitting_sets(
    family: Iterable[frozenset[int]], n: int
) -> frozenset[frozenset[int]]:
    """The subset-minimal sets over ``range(n)`` that meet every set of ``family``, found by
    trying all ``2**n`` subsets (the duality of AXps and CXps, checked the slow way).

    Examples
    --------
    >>> sorted(sorted(h) for h in brute_minimal_hitting_sets([{0, 1}, {1, 2}], 3))
    [[0, 2], [1]]
    """
    sets = [frozenset(s) for s in family]
    universe = (frozenset(c) for r in range(n + 1) for c in itertools.combinations(range(n), r))
    hitting = [h for h in universe if all(h & s for s in sets)]
    return frozenset(h for h in hitting if not any(g < h for g in hitting))


class Oracle:
    """Every AXp and CXp of one prediction, from a sufficiency test run on every subset.

    Parameters
    ----------
    names : sequence of str
        The features (or XpG variables), in order.
    sufficient : callable
        ``sufficient(fixed)`` for a frozenset of indices: fixing these features to the
        instance keeps the prediction whatever the others take.
    varying : iterable of int, optional
        The indices that can matter (default all); the others are never in an explanation,
        and subsets are enumerated over these only.

    Attributes
    ----------
    axps, cxps : frozenset of frozenset of str
        Every AXp and every CXp.

    Examples
    --------
    >>> o = Oracle(["a", "b"], lambda fixed: 0 in fixed or 1 in fixed)  # a or b decides
    >>> sorted(map(sorted, o.axps)), sorted(map(sorted, o.cxps))
    ([['a'], ['b']], [['a', 'b']])
    >>> sorted(o.members()), o.necessary(), o.smallest("cxp")
    (['a', 'b'], set(), 2)
    """

    def __init__(
        self,
        names: Sequence[str],
        sufficient: Callable[[frozenset[int]], bool],
        varying: Iterable[int] | None = None,
    ) -> None:
        self.names = list(names)
        free = sorted(range(len(self.names)) if varying is None else set(varying))
        subsets = [
            frozenset(c) for r in range(len(free) + 1) for c in itertools.combinations(free, r)
        ]
        everything = frozenset(range(len(self.names)))
        kept = {s: sufficient(s) for s in subsets}
        weak_axps = [s for s in subsets if kept[s]]
        weak_cxps = [s for s in subsets if not sufficient(everything - s)]
        self.axps: Family = _minimal(weak_axps, self.names)
        self.cxps: Family = _minimal(weak_cxps, self.names)

    @classmethod
    def of_xpg(cls, xg: ExplanationGraph) -> Oracle:
        """The oracle of an explanation graph: a set is a weak AXp when no 0-terminal is
        reachable with its variables held to their 1-edges (a breadth-first search).

        Examples
        --------
        >>> from xpg.examples import paper_figure1, AGE, INCOME, STUDENT, CREDIT
        >>> x = {AGE: "O", INCOME: "L", STUDENT: "Y", CREDIT: "P"}
        >>> xg = ExplanationGraph.from_decision_graph(paper_figure1(), x)
        >>> Oracle.of_xpg(xg).axps == ClassTable.of_graph(paper_figure1()).oracle(x).axps
        True
        """
        out: list[list[tuple[int, bool]]] = [[] for _ in range(xg.n_nodes)]
        for s, d, lab in zip(xg.edge_src.tolist(), xg.edge_dst.tolist(), xg.edge_label.tolist()):
            out[s].append((d, lab))
        node_var = xg.node_var.tolist()
        value = xg.terminal_value.tolist()

        def kept(fixed: frozenset[int]) -> bool:
            seen = {xg.root}
            todo = deque([xg.root])
            while todo:
                n = todo.popleft()
                if value[n] == 0:
                    return False
                for c, lab in out[n]:
                    if (lab or node_var[n] not in fixed) and c not in seen:
                        seen.add(c)
                        todo.append(c)
            return True

        return cls(xg.var_names, kept)

    @classmethod
    def of_model(
        cls,
        predict: Callable[[dict[str, Any]], Any],
        features: Sequence[Feature],
        grid: Mapping[str, Sequence[Any]],
        instance: Mapping[str, Any],
        tested: Iterable[str] | None = None,
        predict_many: Callable[[list[dict[str, Any]]], Sequence[Any]] | None = None,
    ) -> Oracle:
        """The oracle of a model's prediction on ``instance``, from ``predict`` (or the batch
        ``predict_many``) on the grid plus the instance's values; features not ``tested``
        (default all) are held at the instance's values.

        Examples
        --------
        >>> feats = [Feature.real("r"), Feature.boolean("b")]
        >>> o = Oracle.of_model(lambda p: int(p["r"] > 1), feats, {"r": [0.0, 2.0]},
        ...                     {"r": 3.0, "b": 0}, tested=["r"])
        >>> o.axps, o.cxps
        (frozenset({frozenset({'r'})}), frozenset({frozenset({'r'})}))
        """
        names = [f.name for f in features]
        chosen = set(names if tested is None else tested)
        axes = [
            sorted(set(grid[n]) | {instance[n]}, key=repr) if n in chosen else [instance[n]]
            for n in names
        ]
        return ClassTable(names, axes, predict, predict_many).oracle(instance)

    def members(self) -> set[str]:
        """The features in some AXp (equivalently, in some CXp)."""
        return set().union(*self.axps)

    def necessary(self) -> set[str]:
        """The features in every AXp."""
        return set(frozenset.intersection(*self.axps))

    def of_kind(self, kind: str) -> Family:
        """:attr:`axps` for ``"axp"``, :attr:`cxps` for ``"cxp"``."""
        return self.axps if kind == "axp" else self.cxps

    def smallest(self, kind: str) -> int | None:
        """The size of a smallest AXp or CXp (``None`` when there is no CXp)."""
        family = self.of_kind(kind)
        return min(map(len, family)) if family else None


class ClassTable:
    """A classifier evaluated on every point of a product of per-feature value lists.

    Parameters
    ----------
    names : sequence of str
        The features, in order.
    axes : sequence of sequences
        The values of each feature.
    predict : callable, optional
        The class of one point given as a mapping from names to values.
    predict_many : callable, optional
        The classes of a list of such points (used instead of ``predict`` when given).

    Examples
    --------
    >>> t = ClassTable(["a", "b"], [[0, 1], [0, 1]], lambda p: p["a"] & p["b"])
    >>> t.points()
    [[0, 0], [0, 1], [1, 0], [1, 1]]
    >>> t.sufficient([0, 1], {0}), t.sufficient([1, 1], {0})
    (True, False)
    """

    def __init__(
        self,
        names: Sequence[str],
        axes: Sequence[Sequence[Any]],
        predict: Callable[[dict[str, Any]], Any] | None = None,
        predict_many: Callable[[list[dict[str, Any]]], Sequence[Any]] | None = None,
    ) -> None:
        if predict is None and predict_many is None:
            raise TypeError("ClassTable needs predict or predict_many")
        self.names = list(names)
        self.axes = [list(a) for a in axes]
        dicts = [dict(zip(self.names, p)) for p in itertools.product(*self.axes)]
        labels = predict_many(dicts) if predict_many else [predict(d) for d in dicts]  # type: ignore[misc]
        self.classes: list[Any] = []
        codes = [self._code(c) for c in labels]
        self.table = np.asarray(codes, dtype=np.int64).reshape([len(a) for a in self.axes])

    def _code(self, label: Any) -> int:
        if label not in self.classes:
            self.classes.append(label)
        return self.classes.index(label)

    @classmethod
    def of_graph(cls, dg: DecisionGraph) -> ClassTable:
        """``dg.predict`` on the :func:`representatives` of its features."""
        return cls([f.name for f in dg.features], representatives(dg), dg.predict)

    def points(self) -> list[list[Any]]:
        """Every point of the grid, as lists in feature order."""
        return [list(p) for p in itertools.product(*self.axes)]

    def index(self, x: Point) -> tuple[int, ...]:
        """The grid index of a point (its values must be on the grid)."""
        values = [x[n] for n in self.names] if isinstance(x, Mapping) else list(x)
        return tuple(axis.index(v) for axis, v in zip(self.axes, values))

    def sufficient(self, x: Point, fixed: Iterable[int]) -> bool:
        """Whether fixing the features ``fixed`` (indices) to ``x`` keeps its class."""
        idx = self.index(x)
        keep = set(fixed)
        sl = tuple(k if i in keep else slice(None) for i, k in enumerate(idx))
        return bool((self.table[sl] == self.table[idx]).all())

    def oracle(self, x: Point) -> Oracle:
        """The :class:`Oracle` of the prediction on ``x`` (a grid point)."""
        varying = [i for i, a in enumerate(self.axes) if len(a) > 1]
        return Oracle(self.names, lambda fixed: self.sufficient(x, fixed), varying)
