"""Exact robustness: the l-infinity distance from an instance to the nearest input of another class.

The *exact robustness* (ER) of a classifier ``h`` at an instance ``x`` is
``inf { ||x' - x||_inf : h(x') != h(x) }``, ``x'`` ranging over the features' declared domains.
On a decision graph (Def. 2 of the core paper: the literals leaving a node partition the values
still possible there) the inputs that follow one root-to-terminal path are exactly the product,
over features, of the values the path's literals allow (their intersection when a feature is
tested several times).  The infimum of a max over a product set is the max of the per-feature
infima, so

    ER = min over paths P to a terminal of another class of  max over features f of d_f(P),

where ``d_f(P)`` is the distance from ``x_f`` to the values of ``f`` allowed on ``P``:

* real features: the distance to the set's closure (``x > 3`` is at distance 1 from 2, an
  infimum that no input attains);
* integer features move on the integers (from 2 to ``x >= 2.5`` the distance is 1);
* boolean features: 0 or 1 (the values themselves); categorical features: 0 when the value is
  allowed, else 1 (a change of category counts as a step of length 1 in the l-infinity norm).

Two exact routes compute it:

* ``"read-once"`` (trees, OBDDs, OMDDs, every graph whose paths test a feature at most once): a
  bottleneck (min-max) dynamic programme over the DAG, linear in its size;
* ``"best-first"`` (any graph, for those that test a feature again below itself): a best-first
  search over partial paths carrying the intersections of the features still tested below.

The counterexample is an input on an optimal path, checked against the original model.  When
the infimum is not attained (an open bound), the counterexample lies just past the bound, by
``1e-9 * max(1, |bound|)`` (halved until it fits inside the allowed interval): it is within
``distance + MARGIN * max(1, |bound|)`` of the instance.

Examples
--------
>>> from xpg.core.features import Feature, Literal
>>> from xpg.core.graph import DecisionGraph
>>> dg = DecisionGraph([Feature.real("x"), Feature.integer("n", 0, 9)], classes=["lo", "hi"])
>>> dg.add_node(0, "x"); dg.add_node(1, "n"); dg.add_terminal(2, "lo"); dg.add_terminal(3, "hi")
>>> dg.add_edge(0, 2, Literal.le("x", 3.0)); dg.add_edge(0, 1, Literal.gt("x", 3.0))
>>> dg.add_edge(1, 2, Literal.le("n", 4)); dg.add_edge(1, 3, Literal.gt("n", 4))
>>> er = robustness(dg, {"x": 5.0, "n": 8})
>>> er.prediction, er.distance, er.counterexample, er.counterexample_class, er.route
('hi', 2.0, {'x': 3.0, 'n': 8}, 'lo', 'read-once')
>>> robustness(dg, {"x": 5.0, "n": 8}, radius=1.5).robust
True

References
----------
Moshkovitz, Yang, Chaudhuri. Connecting Interpretability and Robustness in Decision Trees
through Separation. ICML 2021, Sec. 3 (robustness at radius r) and Sec. 6.2.1 (ER);
Kantchelian, Tygar, Joseph. Evasion and Hardening of Tree Ensemble Classifiers. ICML 2016.
"""

from __future__ import annotations

import heapq
import itertools
import math
import time
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple
from typing import Literal as TypingLiteral

import numpy as np
import portion as P

from xpg.core.features import Feature, Literal, ValueSet
from xpg.core.graph import DecisionGraph
from xpg.core.valuesets import as_value_set
from xpg.errors import InvalidQueryError, VerificationError

#: The relative step past an open bound where a counterexample is placed (see the module notes).
MARGIN = 1e-9

Route = TypingLiteral["auto", "read-once", "best-first"]
ROUTES: tuple[str, ...] = ("auto", "read-once", "best-first")

#: A distance with its attainment: ``(d, 0)`` when some allowed value is at distance ``d``,
#: ``(d, 1)`` when ``d`` is only an infimum.  Tuples order "attained" first at equal distances.
Cost = tuple[float, int]
_INF: Cost = (math.inf, 0)


@dataclass(frozen=True)
class Robustness:
    """The answer of :func:`robustness`.

    Attributes
    ----------
    distance : float
        The exact robustness: the infimum l-infinity distance to an input of another class
        (``inf`` when no input is classified differently: a constant model).
    attained : bool
        True when some input at exactly ``distance`` is classified differently (closed bounds,
        integer and discrete features); False when ``distance`` is only an infimum.
    prediction
        The model's class at the instance.
    counterexample : dict or None
        An input of another class, within ``distance + MARGIN * max(1, |bound|)``.
    counterexample_class
        The original model's class at ``counterexample``.
    counterexample_distance : float or None
        ``||counterexample - instance||_inf``.
    route : str
        ``"read-once"`` (min-max dynamic programme) or ``"best-first"``.
    seconds : float
    radius : float or None
        The radius asked for, if any.
    robust : bool or None
        With ``radius``: True when every input of the closed ball of that radius has the
        instance's class.
    """

    distance: float
    attained: bool
    prediction: Any
    counterexample: dict[str, Any] | None
    counterexample_class: Any
    counterexample_distance: float | None
    route: str
    seconds: float
    radius: float | None = None
    robust: bool | None = None

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (an infinite distance is written ``null``, the class as text).

        Examples
        --------
        >>> from xpg.examples import paper_figure2
        >>> doc = robustness(paper_figure2(), [0, 1, 2]).to_json()
        >>> sorted(doc)
        ['counterexample', 'counterexample_class', 'distance', 'route', 'seconds']
        """
        cex = self.counterexample
        doc: dict[str, Any] = {
            "distance": self.distance if math.isfinite(self.distance) else None,
            "counterexample": None if cex is None else {k: _plain(v) for k, v in cex.items()},
            # text, as the JSON shows it and as batch records write the prediction
            "counterexample_class": (
                None if self.counterexample_class is None else str(self.counterexample_class)
            ),
            "seconds": self.seconds,
            "route": self.route,
        }
        if self.radius is not None:
            doc["radius"] = self.radius
            doc["robust"] = self.robust
        return doc


def _plain(value: Any) -> Any:
    """A numpy scalar as the Python number it holds (JSON-ready); anything else unchanged."""
    return value.item() if isinstance(value, np.generic) else value


# -- one feature: the distance to a value set ------------------------------------------------------
def _step_past(bound: float, other: float) -> float:
    """A number strictly between ``bound`` and ``other`` (towards ``other``), near ``bound``."""
    delta = MARGIN * max(1.0, abs(bound))
    point = bound + delta if other > bound else bound - delta
    while (point >= other) if other > bound else (point <= other):
        delta /= 2
        point = bound + delta if other > bound else bound - delta
        if point == bound:
            return math.nextafter(bound, other)
    return point


def nearest_value(feature: Feature, value: Any, allowed: ValueSet) -> tuple[Cost, Any] | None:
    """The distance from ``value`` to the values ``allowed`` (already within the domain).

    Returns ``((distance, open), point)`` with ``open`` 1 when the distance is an infimum
    that no allowed value attains (``point`` then lies just past the bound), or ``None``
    when ``allowed`` holds no value of the feature.

    Examples
    --------
    >>> import portion as P
    >>> nearest_value(Feature.real("x"), 2.0, P.closed(3, 5))
    ((1.0, 0), 3)
    >>> (d, op), p = nearest_value(Feature.real("x"), 2.0, P.open(3, 5)); (d, op), 3 < p < 3.001
    ((1.0, 1), True)
    >>> nearest_value(Feature.integer("n", 0, 9), 2, P.closed(2.5, P.inf))
    ((1, 0), 3)
    >>> nearest_value(Feature.categorical("c", "ab"), "a", frozenset("b"))
    ((1.0, 0), 'b')
    """
    if feature.is_discrete:
        if value in allowed:
            return (0.0, 0), value
        inside = [v for v in feature.values if v in allowed]
        return ((1.0, 0), inside[0]) if inside else None
    best: tuple[Cost, Any] | None = None
    for atom in allowed:
        if atom.empty:
            continue
        found = _nearest_in_atom(feature, value, atom)
        if found is not None and (best is None or found[0] < best[0]):
            best = found
    return best


def _nearest_in_atom(feature: Feature, value: float, atom: Any) -> tuple[Cost, Any] | None:
    lo = -math.inf if atom.lower == -P.inf else atom.lower
    hi = math.inf if atom.upper == P.inf else atom.upper
    lo_in, hi_in = atom.left == P.CLOSED, atom.right == P.CLOSED
    if feature.kind == "integer":
        first = lo if math.isinf(lo) else (math.floor(lo) + 1 if not lo_in else math.ceil(lo))
        last = hi if math.isinf(hi) else (math.ceil(hi) - 1 if not hi_in else math.floor(hi))
        if first > last:
            return None
        point = int(min(max(value, first), last))
        return (abs(point - value), 0), point
    if (lo < value or (lo_in and lo == value)) and (value < hi or (hi_in and hi == value)):
        return (0.0, 0), value
    if value <= lo:
        return (lo - value, 0 if lo_in else 1), lo if lo_in else _step_past(lo, hi)
    return (value - hi, 0 if hi_in else 1), hi if hi_in else _step_past(hi, lo)


# -- the graph ------------------------------------------------------------------------------------
class _Graph:
    """The reachable part of a decision graph as index arrays, in topological order."""

    def __init__(self, dg: DecisionGraph) -> None:
        self.dg = dg
        root = dg.root
        ids: dict[Hashable, int] = {}
        order: list[Hashable] = []  # post-order: children before parents
        stack: list[tuple[Hashable, bool]] = [(root, False)]
        while stack:
            n, done = stack.pop()
            if done:
                if n not in ids:
                    ids[n] = len(order)
                    order.append(n)
                continue
            if n in ids:
                continue
            stack.append((n, True))
            stack.extend((c, False) for c, _ in dg.children(n) if c not in ids)
        self.ids = order
        self.index = ids
        self.root = ids[root]
        self.feature = [
            dg.feature_index[f] if (f := dg.feature_of(n)) is not None else -1 for n in order
        ]
        self.label = [dg.class_of(n) for n in order]
        self.out: list[list[tuple[int, Literal]]] = [
            [(ids[c], lit) for c, lit in dg.children(n)] for n in order
        ]
        self._read_once: bool | None = None

    def features_below(self) -> list[int]:
        """Per node, the bitmask of the features tested strictly below it."""
        below = [0] * len(self.ids)
        for n in range(len(self.ids)):  # post-order: children first
            mask = 0
            for c, _ in self.out[n]:
                mask |= below[c] | (1 << self.feature[c] if self.feature[c] >= 0 else 0)
            below[n] = mask
        return below

    def is_read_once(self) -> bool:
        """True when no path tests a feature twice (computed once per graph)."""
        if self._read_once is None:
            below = self.features_below()
            self._read_once = not any(
                f >= 0 and below[n] >> f & 1 for n, f in enumerate(self.feature)
            )
        return self._read_once

    @classmethod
    def of(cls, dg: DecisionGraph) -> _Graph:
        """The arrays of ``dg``, built once per graph (kept in its cache, which every change
        to the graph clears): a batch asks for the robustness of many rows of one model."""
        graph = dg._cache.get("robustness_graph")
        if graph is None:
            graph = dg._cache["robustness_graph"] = cls(dg)
        return graph


def is_read_once(dg: DecisionGraph) -> bool:
    """True when no root-to-terminal path of ``dg`` tests a feature twice (trees, OBDDs, OMDDs).

    One pass over the edges, children first, with a bitmask of the features tested below each
    node: ``O(E * F / 64)`` word operations for ``E`` edges and ``F`` features.

    Examples
    --------
    >>> from xpg.examples import paper_figure1, paper_figure2
    >>> is_read_once(paper_figure2()), is_read_once(paper_figure1())
    (True, False)
    """
    return _Graph.of(dg).is_read_once()


def _literal_set(feature: Feature, lit: Literal) -> ValueSet:
    return feature.domain_set() & as_value_set(feature, lit)


def _read_once(g: _Graph, values: Sequence[Any], predicted: Any) -> tuple[Cost, list[Literal]]:
    """Min-max dynamic programme; the cost and the literals of an optimal path.

    On a read-once graph the features of different edges of one path are different, so the
    path's distance ``max_f d_f(P)`` is the max over its edges of the distance of the edge's
    own literal, and ``min over paths of max over edges`` is a bottleneck shortest path:
    ``cost(t) = 0`` at a terminal of another class (``inf`` at one of the predicted class),
    ``cost(n) = min over edges (n, c, l) of max(d(l), cost(c))``, children first.  Each edge is
    looked at once: time linear in the graph's size (times the atoms of a literal).
    """
    dg = g.dg
    cost: list[Cost] = [_INF] * len(g.ids)
    choice: list[int] = [-1] * len(g.ids)
    for n in range(len(g.ids)):
        if not g.out[n]:
            cost[n] = (0.0, 0) if g.label[n] != predicted else _INF
            continue
        feature = dg.features[g.feature[n]]
        best: Cost = _INF
        for k, (c, lit) in enumerate(g.out[n]):
            if cost[c] >= best:
                continue
            found = nearest_value(feature, values[g.feature[n]], _literal_set(feature, lit))
            if found is None:
                continue
            here = max(found[0], cost[c])
            if here < best:
                best, choice[n] = here, k
        cost[n] = best
    path: list[Literal] = []
    n = g.root
    if cost[n] != _INF:
        while g.out[n]:
            c, lit = g.out[n][choice[n]]
            path.append(lit)
            n = c
    return cost[g.root], path


def _best_first(g: _Graph, values: Sequence[Any], predicted: Any) -> tuple[Cost, list[Literal]]:
    """Best-first search over partial paths; the cost and the literals of an optimal path.

    A state is a node with, for each feature tested again at or below it, the intersection of
    the literals on that feature so far; its cost is the max over the features tested so far
    of the distance to their sets.  Intersections only shrink along a path, so costs never
    decrease, and the first state popped at a terminal of another class is optimal (the
    bottleneck version of Dijkstra's argument).  States with the same node and sets are
    expanded once, at their lowest cost.  Time O(S log S) set operations for S distinct
    states: at most the number of nodes times the combinations of intersections of the
    features tested repeatedly, exponential in the worst case (deciding ER <= 1 on boolean
    features with repeated tests is as hard as satisfiability: a CNF is such a graph).
    """
    dg = g.dg
    below = g.features_below()
    ticket = itertools.count()
    parents: list[tuple[int, Literal | None]] = []  # state -> (parent state, edge literal)
    seen: dict[tuple[int, tuple], Cost] = {}
    heap: list[tuple[Cost, int, int, int, tuple]] = []

    def push(cost: Cost, node: int, sets: tuple, parent: int, lit: Literal | None) -> None:
        key = (node, sets)
        if key in seen and seen[key] <= cost:
            return
        seen[key] = cost
        parents.append((parent, lit))
        heapq.heappush(heap, (cost, next(ticket), node, len(parents) - 1, sets))

    push((0.0, 0), g.root, (), -1, None)
    while heap:
        cost, _, n, state, sets = heapq.heappop(heap)
        if seen.get((n, sets), _INF) < cost:
            continue
        if not g.out[n]:
            if g.label[n] != predicted:
                path: list[Literal] = []
                while state >= 0:
                    state, lit = parents[state]
                    if lit is not None:
                        path.append(lit)
                return cost, path[::-1]
            continue
        f = g.feature[n]
        feature = dg.features[f]
        current = dict(sets)
        for c, lit in g.out[n]:
            allowed = current.get(f, feature.domain_set()) & as_value_set(feature, lit)
            found = nearest_value(feature, values[f], allowed)
            if found is None:
                continue
            keep = below[c] | (1 << g.feature[c] if g.feature[c] >= 0 else 0)
            nxt = {**current, f: allowed}
            child_sets = tuple(sorted((k, v) for k, v in nxt.items() if keep >> k & 1))
            push(max(cost, found[0]), c, child_sets, state, lit)
    return _INF, []


def _counterexample(
    dg: DecisionGraph, values: Sequence[Any], path: Sequence[Literal]
) -> dict[str, Any]:
    """The instance moved, on each feature the path tests, to the nearest allowed value."""
    out = {f.name: _plain(v) for f, v in zip(dg.features, values, strict=True)}
    sets: dict[str, ValueSet] = {}
    for lit in path:
        feature = dg.features[dg.feature_index[lit.feature]]
        sets[lit.feature] = sets.get(lit.feature, feature.domain_set()) & as_value_set(feature, lit)
    for name, allowed in sets.items():
        i = dg.feature_index[name]
        found = nearest_value(dg.features[i], values[i], allowed)
        if found is None:  # pragma: no cover - the search never returns an empty path
            raise VerificationError(f"the optimal path leaves no value of {name!r}")
        out[name] = float(found[1]) if dg.features[i].kind == "real" else _plain(found[1])
    return out


def linf_distance(dg: DecisionGraph, a: Sequence[Any], b: Sequence[Any]) -> float:
    """The l-infinity distance between two inputs, a category change counting 1.

    Examples
    --------
    >>> dg = DecisionGraph([Feature.real("x"), Feature.categorical("c", "ab")], ["n", "y"])
    >>> linf_distance(dg, [1.0, "a"], [1.5, "b"])
    1.0
    """
    d = 0.0
    for f, u, v in zip(dg.features, a, b, strict=True):
        step = (0.0 if u == v else 1.0) if f.kind == "categorical" else abs(float(u) - float(v))
        d = max(d, step)
    return d


class Counterexample(NamedTuple):
    """An input of another class, its class and its distance (all None when there is none)."""

    values: dict[str, Any] | None
    label: Any
    distance: float | None


def robustness_answer(
    distance: float,
    is_open: bool,
    prediction: Any,
    found: Counterexample,
    route: str,
    start: float,
    radius: float | None,
) -> Robustness:
    """The :class:`Robustness` of a search that found ``distance`` (``is_open``: not attained,
    the infimum of the distances of other classes), started at ``time.perf_counter()``
    ``start``, with the answer at ``radius`` when one was asked."""
    robust = None
    if radius is not None:
        robust = distance > radius or (distance == radius and is_open)
    return Robustness(
        distance=float(distance),
        attained=math.isfinite(distance) and not is_open,
        prediction=prediction,
        counterexample=found.values,
        counterexample_class=found.label,
        counterexample_distance=found.distance,
        route=route,
        seconds=time.perf_counter() - start,
        radius=radius,
        robust=robust,
    )


def checked_radius(radius: Any) -> float | None:
    """``radius`` as a float, when it is None or a finite non-negative number.

    >>> checked_radius(2), checked_radius(None)
    (2.0, None)
    """
    if radius is None:
        return None
    try:
        r = float(radius)
    except (TypeError, ValueError):
        r = math.nan
    if not (0.0 <= r < math.inf):
        raise InvalidQueryError(
            f"the radius must be a finite non-negative number, found {radius!r}"
        )
    return r


def robustness(
    model: Any,
    instance: Mapping[str, Any] | Sequence[Any],
    *,
    radius: float | None = None,
    route: Route = "auto",
    graph: DecisionGraph | None = None,
) -> Robustness:
    """Exact l-infinity robustness of a model at an instance, with a counterexample.

    Parameters
    ----------
    model : DecisionGraph or model
        Any model of :mod:`xpg.models` (compiled with ``to_decision_graph()``), or a graph.
    instance : mapping or sequence
        The instance, checked against the features' domains.
    radius : float, optional
        Also answer "is the decision robust at this radius?" (closed ball).
    route : {"auto", "read-once", "best-first"}
        ``"auto"`` takes the min-max programme when no path tests a feature twice, else
        best-first search; ``"read-once"`` on another graph is refused.
    graph : DecisionGraph, optional
        The model's decision graph, when already compiled (default: compiled here).

    Returns
    -------
    Robustness

    Raises
    ------
    InvalidInstanceError
        A missing, unknown or out-of-domain feature value.
    InvalidQueryError
        An unknown route, a negative or non-finite radius, or ``"read-once"`` on a graph
        that tests a feature twice on a path.
    VerificationError
        The original model does not change its class at the counterexample (a bug).

    Examples
    --------
    >>> from xpg.examples import paper_figure2
    >>> dg = paper_figure2()
    >>> er = robustness(dg, [0, 1, 2])
    >>> er.distance, er.prediction, er.counterexample_class
    (1.0, 'R', 'G')

    References
    ----------
    Moshkovitz, Yang, Chaudhuri. ICML 2021, Sec. 6.2.1 (ER of a classifier at an input).
    """
    start = time.perf_counter()
    if route not in ROUTES:
        raise InvalidQueryError(f"route must be one of {', '.join(ROUTES)}, found {route!r}")
    radius = checked_radius(radius)
    dg: DecisionGraph = model.to_decision_graph() if graph is None else graph
    values = dg.instance_values(instance)
    point = {f.name: v for f, v in zip(dg.features, values, strict=True)}
    predicted = model.predict(point)
    g = _Graph.of(dg)
    read_once = g.is_read_once()
    if route == "read-once" and not read_once:
        raise InvalidQueryError(
            "route 'read-once' needs a graph whose paths test each feature at most once; "
            "this one tests a feature twice on some path (use 'best-first' or 'auto')"
        )
    chosen = (
        "read-once" if route == "read-once" or (route == "auto" and read_once) else "best-first"
    )
    search = _read_once if chosen == "read-once" else _best_first
    (distance, is_open), path = search(g, values, predicted)
    cex: dict[str, Any] | None = None
    cex_class: Any = None
    cex_distance: float | None = None
    if math.isfinite(distance):
        cex = _counterexample(dg, values, path)
        cex_class = model.predict(cex)
        if cex_class == predicted:
            raise VerificationError(
                f"the counterexample {cex!r} found at distance {distance} is classified "
                f"{cex_class!r} like the instance: the model and its decision graph disagree"
            )
        cex_distance = linf_distance(dg, values, [cex[f.name] for f in dg.features])
    found = Counterexample(cex, cex_class, cex_distance)
    return robustness_answer(distance, bool(is_open), predicted, found, chosen, start, radius)


__all__ = ["MARGIN", "ROUTES", "Robustness", "is_read_once", "linf_distance", "robustness"]
