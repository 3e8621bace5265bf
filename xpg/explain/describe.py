"""Explanations in the terms of the model's features: conditions and counterexamples.

An AXp fixes features to the instance's values; the graph cannot tell apart the
values of a feature that satisfy exactly the same edge literals, so each fixed
feature can be stated as the widest such condition (its *cell*):
``worst radius > 16.8``.  A CXp is shown with a counterexample: new values for
its features that the decision graph classifies differently, found on a path to
a terminal of another class.

Examples
--------
>>> from xpg.core.features import Feature, Literal
>>> from xpg.core.graph import DecisionGraph
>>> from xpg.core.xpgraph import ExplanationGraph
>>> dg = DecisionGraph([Feature.real("x")], classes=["lo", "hi"])
>>> dg.add_node(0, "x"); dg.add_terminal(1, "lo"); dg.add_terminal(2, "hi")
>>> dg.add_edge(0, 1, Literal.le("x", 3.0)); dg.add_edge(0, 2, Literal.gt("x", 3.0))
>>> xg = ExplanationGraph.from_decision_graph(dg, {"x": 5.0})
>>> axp_conditions(xg, ["x"])
['x > 3']
>>> counterexample(xg, ["x"])
({'x': 3.0}, 'lo')
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import portion as P

from xpg.core.features import Feature, ValueSet, describe_values
from xpg.core.graph import DecisionGraph
from xpg.core.xpgraph import ExplanationGraph
from xpg.errors import InvalidSeedError, XpgError
from xpg.explain.reach import zero_path


def _source(xg: ExplanationGraph) -> tuple[DecisionGraph, list[Any]]:
    if xg.source is None or xg.instance is None:
        raise XpgError(
            "this explanation graph was not built from a decision graph and an instance "
            "(read from a .xpg file?): feature values are unknown"
        )
    return xg.source, xg.instance


def feature_cell(dg: DecisionGraph, feature: str, value: Any) -> ValueSet:
    """Values of ``feature`` that satisfy exactly the literals that ``value`` satisfies."""
    f = dg.features[dg.feature_index[feature]]
    cell = f.domain_set()
    for lit in {lit for _, _, lit in dg.edges if lit.feature == feature}:
        allowed = lit.allowed
        if not f.is_discrete and isinstance(allowed, frozenset):
            allowed = P.Interval(*[P.singleton(v) for v in allowed])
        cell = cell & allowed if lit.satisfied_by(value) else cell - allowed
    return cell


def axp_conditions(xg: ExplanationGraph, features: Sequence[str]) -> list[str]:
    """One readable condition per feature of an AXp (the feature's cell at the instance)."""
    dg, values = _source(xg)
    out = []
    for name in features:
        i = dg.feature_index[name]
        out.append(describe_values(name, feature_cell(dg, name, values[i])))
    return out


def _nearest_inside(atom: Any, current: float, integer: bool) -> float | None:
    """The value of ``atom`` nearest to ``current``, rounded to as few digits as stay inside."""
    if atom.empty:
        return None
    if current in atom:
        return current
    lo = -math.inf if atom.lower == -P.inf else float(atom.lower)
    hi = math.inf if atom.upper == P.inf else float(atom.upper)
    end, inward = (lo, 1.0) if current <= lo else (hi, -1.0)
    if integer:
        value = math.floor(end) if inward < 0 else math.ceil(end)
        for v in (value, value + inward):
            if v in atom:
                return float(v)
        return None
    scale = 10 ** math.floor(math.log10(abs(end))) if end != 0 else 1.0
    for digits in range(1, 17):
        step = scale / 10 ** (digits - 1)
        v = (math.floor(end / step) if inward < 0 else math.ceil(end / step)) * step
        v = float(f"{v:.{digits + 1}g}")
        if v in atom and abs(v - end) <= 0.01 * max(abs(end), 1e-12):
            return v
    mid = (lo + hi) / 2 if math.isfinite(lo) and math.isfinite(hi) else end + inward
    return mid if mid in atom else None


def _pick(feature: Feature, allowed: ValueSet, current: Any) -> Any:
    """A value of ``feature`` in ``allowed``, as close to ``current`` as a short number allows."""
    if isinstance(allowed, frozenset):
        candidates = [v for v in feature.values if v in allowed]
        others = [v for v in candidates if v != current]
        return (others or candidates)[0]
    best = None
    for atom in allowed & feature.domain_set():
        v = _nearest_inside(atom, float(current), feature.kind == "integer")
        if v is not None and (best is None or abs(v - current) < abs(best - current)):
            best = v
    if best is None:
        raise XpgError(
            f"feature {feature.name!r}: no value satisfies {describe_values(feature.name, allowed)}"
        )
    return int(best) if feature.kind == "integer" else best


def counterexample(xg: ExplanationGraph, features: Sequence[str]) -> tuple[dict[str, Any], Any]:
    """New values for the features of a (weak) CXp, and the class the model then predicts.

    The values follow one path to a terminal of another class; the class is re-checked by
    evaluating the decision graph on the changed instance.
    """
    dg, values = _source(xg)
    free = xg.indices(list(features))
    path = zero_path(xg, free)
    if path is None:
        raise InvalidSeedError(
            f"{sorted(features)} is not a weak CXp: freeing it cannot change the prediction"
        )
    on_path = set(zip(path, path[1:]))
    lits_of: dict[tuple[int, int], list] = {}
    for s, d, lit in dg.edges:
        if (s, d) in on_path:
            lits_of.setdefault((s, d), []).append(lit)
    allowed: dict[int, ValueSet] = {}
    for p, c in zip(path, path[1:]):
        f = xg.node_var_list[p]
        if f not in free:
            continue
        lits = lits_of[(p, c)]
        here = allowed.get(f, dg.features[f].domain_set())
        edge_values = lits[0].allowed
        for lit in lits[1:]:
            edge_values = edge_values | lit.allowed
        if not dg.features[f].is_discrete and isinstance(edge_values, frozenset):
            edge_values = P.Interval(*[P.singleton(v) for v in edge_values])
        allowed[f] = here & edge_values
    changed = {dg.features[f].name: _pick(dg.features[f], s, values[f]) for f, s in allowed.items()}
    new_instance = list(values)
    for name, v in changed.items():
        new_instance[dg.feature_index[name]] = v
    return changed, dg.predict(new_instance)
