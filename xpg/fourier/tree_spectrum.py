"""Exact Fourier spectrum of the removal game of a decision tree (or decision graph).

Fix an instance ``v`` and a removal rule.  At a node testing feature ``i``, a mask keeping
``i`` follows the edge that ``v[i]`` satisfies and a mask removing ``i`` follows the edge that
the baseline value satisfies, so the game restricted to a node obeys

``f_u(x) = (1 + x_i)/2 f_kept(x) + (1 - x_i)/2 f_removed(x)
        = (f_kept + f_removed)/2 + x_i (f_kept - f_removed)/2``,

and the spectrum of ``f_u`` follows from those of its children: multiplying by ``x_i`` moves
each coefficient from ``S`` to ``S xor {i}`` (``x_i^2 = 1``, so features tested twice on a path
need no special care).  A terminal's game is the constant "value of its class" (1 for the
target class, 0 otherwise, by default).  The node games do not depend on the path that reached
the node, so one pass over the graph (memoised per node) gives the whole spectrum, for trees
and DAGs alike.  With background rows the game is the average of the baseline games of the
rows; rows routed identically at every node share one pass.

The result is the ground truth against which every sampled estimator can be checked.

Examples
--------
>>> from xpg.examples import and_graph
>>> dg = and_graph()  # a and b
>>> print(tree_game_spectrum(dg, {"a": 1, "b": 1}, baseline={"a": 0, "b": 0}))
0.25 + 0.25 a + 0.25 b + 0.25 a b

References
----------
Zhang, Yuan et al. Trade-off Between Efficiency and Consistency for Removal-based Explanations,
section 3.1 (Fourier spectrum of a removal game); O'Donnell, Analysis of Boolean Functions
(2014), Prop. 3.16 (spectrum of a decision tree); Lundberg et al. From local explanations to
global understanding with explainable AI for trees. Nat. Mach. Intell. 2 (2020) (games of
trees under a baseline or background).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from xpg.core.graph import DecisionGraph, NodeId
from xpg.errors import InvalidGameError, InvalidGraphError, InvalidInstanceError
from xpg.fourier.basis import FourierPolynomial
from xpg.fourier.game import RemovalGame

Instance = Mapping[str, Any] | Sequence[Any]
Spectrum = dict[int, float]


def _class_values(
    dg: DecisionGraph, target: Any, class_values: Mapping[Any, float] | None, instance: list[Any]
) -> dict[Any, float]:
    if class_values is not None:
        missing = [c for c in dg.classes if c not in class_values]
        if missing:
            raise InvalidGameError(
                f"class_values: expected a value for every class {dg.classes!r}, "
                f"missing {missing!r}"
            )
        if target is not None:
            raise InvalidGameError("give target or class_values, not both")
        return {c: float(class_values[c]) for c in dg.classes}
    if target is None:
        target = dg.predict(instance)
    if target not in dg.classes:
        raise InvalidGameError(
            f"target: expected one of the classes {dg.classes!r}, found {target!r}"
        )
    return {c: float(c == target) for c in dg.classes}


def _chosen_child(dg: DecisionGraph, node: NodeId, value: Any, who: str) -> NodeId | None:
    """The child whose literal admits ``value``; ``None`` when no edge does.

    Literals are restricted to the values still possible at the node, so ``value`` may be
    admitted by none: the node is then reached only by masks that give the feature its other
    value (the path into it already tested the feature), and which child is unused.
    """
    taken = [child for child, lit in dg.children(node) if lit.satisfied_by(value)]
    if len(taken) > 1:
        raise InvalidGraphError(
            f"node {node!r}: {len(taken)} outgoing edges admit {dg.feature_of(node)} = "
            f"{value!r} (the {who}), expected at most one (run validate())"
        )
    return taken[0] if taken else None


def _internal_nodes(dg: DecisionGraph) -> list[NodeId]:
    """Nodes reachable from the root that test a feature, in DFS order."""
    seen, order, stack = {dg.root}, [], [dg.root]
    while stack:
        node = stack.pop()
        if dg.is_terminal(node):
            continue
        order.append(node)
        for child, _ in dg.children(node):
            if child not in seen:
                seen.add(child)
                stack.append(child)
    return order


def _spectrum(
    dg: DecisionGraph,
    kept_child: Mapping[NodeId, NodeId | None],
    removed_child: Mapping[NodeId, NodeId | None],
    values: Mapping[Any, float],
) -> Spectrum:
    """Spectrum (subset bit code -> coefficient) of the game at the root, by post-order."""
    index = dg.feature_index
    memo: dict[NodeId, Spectrum] = {}
    stack: list[tuple[NodeId, bool]] = [(dg.root, False)]
    while stack:
        node, expanded = stack.pop()
        if node in memo:
            continue
        if dg.is_terminal(node):
            v = values[dg.class_of(node)]
            memo[node] = {0: v} if v != 0.0 else {}
            continue
        a, b = kept_child[node], removed_child[node]
        if a is None and b is None:  # no mask reaches this node
            memo[node] = {}
            continue
        # an unused side (see _chosen_child) may take the other side's game: exact, because
        # every path into the node already multiplies by the indicator of the used side
        a = b if a is None else a
        b = a if b is None else b
        if not expanded:
            stack.append((node, True))
            stack.extend((c, False) for c in (a, b) if c not in memo)
            continue
        if a == b:
            memo[node] = memo[a]
            continue
        bit = 1 << index[dg.feature_of(node)]  # type: ignore[index]
        fa, fb = memo[a], memo[b]
        out: Spectrum = {}
        for code in fa.keys() | fb.keys():
            ca, cb = fa.get(code, 0.0), fb.get(code, 0.0)
            mean, half_diff = (ca + cb) / 2, (ca - cb) / 2
            if mean != 0.0:
                out[code] = out.get(code, 0.0) + mean
            if half_diff != 0.0:
                out[code ^ bit] = out.get(code ^ bit, 0.0) + half_diff
        memo[node] = {c: v for c, v in out.items() if v != 0.0}
    return memo[dg.root]


def _rows(
    dg: DecisionGraph, baseline: Instance | None, background: Sequence[Instance] | np.ndarray | None
) -> list[list[Any]]:
    if (baseline is None) == (background is None):
        raise InvalidGameError(
            "expected exactly one removal rule: baseline=<instance> or background=<instances>, "
            f"found {'both' if baseline is not None else 'neither'}"
        )
    raw = [baseline] if baseline is not None else list(background)  # type: ignore[arg-type]
    if not raw:
        raise InvalidGameError("background: expected at least one row, found none")
    rows = []
    for k, row in enumerate(raw):
        try:
            rows.append(dg.instance_values(row))  # type: ignore[arg-type]
        except InvalidInstanceError as exc:
            where = "baseline" if baseline is not None else f"background row {k}"
            raise InvalidInstanceError(f"{where}: {exc}") from exc
    return rows


def _game_inputs(
    dg: DecisionGraph,
    instance: Instance,
    baseline: Instance | None,
    background: Sequence[Instance] | np.ndarray | None,
    target: Any,
    class_values: Mapping[Any, float] | None,
) -> tuple[list[Any], dict[Any, float], list[list[Any]]]:
    """The checked instance, the value of each class and the removal rows of a graph's game."""
    values = dg.instance_values(instance)
    return values, _class_values(dg, target, class_values, values), _rows(dg, baseline, background)


def tree_game_spectrum(
    dg: DecisionGraph,
    instance: Instance,
    baseline: Instance | None = None,
    background: Sequence[Instance] | np.ndarray | None = None,
    target: Any = None,
    class_values: Mapping[Any, float] | None = None,
) -> FourierPolynomial:
    """Exact Fourier spectrum of the removal game of a decision graph at ``instance``.

    Parameters
    ----------
    dg : DecisionGraph
        A compiled tree or graph (e.g. :func:`xpg.compile.from_sklearn_tree`); its features,
        in order, are the players.
    instance : mapping or sequence
        The explained instance.
    baseline : mapping or sequence, optional
        Values taken by removed features.
    background : sequence of instances, optional
        Rows over which removed features are averaged (give ``baseline`` or ``background``).
    target : class label, optional
        The game is 1 where the graph predicts ``target`` and 0 elsewhere (default: the class
        predicted for ``instance``).
    class_values : mapping class -> float, optional
        Instead of ``target``: the game's value at each terminal class.

    Returns
    -------
    FourierPolynomial
        Every non-zero coefficient, players named after the graph's features.
    """
    values, scores, rows = _game_inputs(dg, instance, baseline, background, target, class_values)
    internal = _internal_nodes(dg)
    index = dg.feature_index
    kept = {
        u: _chosen_child(dg, u, values[index[dg.feature_of(u)]], "instance")  # type: ignore[index]
        for u in internal
    }
    routes: dict[tuple[Any, ...], int] = {}
    removed_by_route: dict[tuple[Any, ...], dict[NodeId, NodeId | None]] = {}
    for row in rows:
        removed = {
            u: _chosen_child(dg, u, row[index[dg.feature_of(u)]], "baseline")  # type: ignore[index]
            for u in internal
        }
        key = tuple(removed[u] for u in internal)
        routes[key] = routes.get(key, 0) + 1
        removed_by_route.setdefault(key, removed)
    total: Spectrum = {}
    for key, count in routes.items():
        weight = count / len(rows)
        for code, c in _spectrum(dg, kept, removed_by_route[key], scores).items():
            total[code] = total.get(code, 0.0) + weight * c
    n = len(dg.features)
    return FourierPolynomial(
        n,
        {tuple(i for i in range(n) if code >> i & 1): c for code, c in total.items() if c != 0.0},
        [f.name for f in dg.features],
    )


class DecisionGraphGame(RemovalGame):
    """The removal game of a decision graph, evaluated mask by mask with ``dg.predict``.

    Slow (one graph walk per mask and background row) but independent of
    :func:`tree_game_spectrum`, which it serves to check; it also lets any sampled explainer
    run on exactly the game whose spectrum is known.  Parameters as for
    :func:`tree_game_spectrum`.
    """

    def __init__(
        self,
        dg: DecisionGraph,
        instance: Instance,
        baseline: Instance | None = None,
        background: Sequence[Instance] | np.ndarray | None = None,
        target: Any = None,
        class_values: Mapping[Any, float] | None = None,
    ) -> None:
        self.dg = dg
        self.instance, self.scores, self.rows = _game_inputs(
            dg, instance, baseline, background, target, class_values
        )
        super().__init__(self._values, len(dg.features), [f.name for f in dg.features])

    def _values(self, masks: np.ndarray) -> np.ndarray:
        out = np.empty(masks.shape[0])
        for r, mask in enumerate(masks):
            total = 0.0
            for row in self.rows:
                point = [
                    v if keep > 0 else b
                    for v, b, keep in zip(self.instance, row, mask, strict=True)
                ]
                total += self.scores[self.dg.predict(point)]
            out[r] = total / len(self.rows)
        return out
