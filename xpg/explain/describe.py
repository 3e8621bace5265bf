"""Explanations in the terms of the model's features: conditions and counterexamples.

An AXp fixes features to the instance's values; the model cannot tell apart the values of
a feature that satisfy exactly the same tests, so each fixed feature can be stated as the
widest such condition, its *cell*: ``worst radius > 16.795``.  On a decision graph the cell
is cut by the literals of the graph's edges on the feature; on a model explained by an
oracle over cells (a :class:`~xpg.explain.decision.Decision` on another route than the graph:
a tree ensemble's, by the thresholds its trees use,
:meth:`~xpg.explain.ensemble.space.CellLayout.cell_values`; a long decision list's, by its
rules' conditions), by the oracle's cells.
A CXp is shown with a counterexample: new values for its features that the model classifies
differently.

:func:`explanation_conditions` and :func:`explanation_counterexample` take either kind of
target; :func:`axp_conditions` and :func:`counterexample` are their explanation-graph forms.
Conditions are text: names as :func:`xpg.core.names.quote_name` writes them (quoted only when
they could be misread), numbers as :func:`xpg.core.names.short_number` writes them, an
integer feature's cell with its first and last integers (``age >= 30``), a category as its
``repr`` (``colour = 'red'``).

Examples
--------
>>> from xpg.core.features import Feature, Literal
>>> from xpg.core.graph import DecisionGraph
>>> from xpg.core.xpgraph import ExplanationGraph
>>> dg = DecisionGraph([Feature.real("x"), Feature.integer("n")], classes=["lo", "hi"])
>>> dg.add_node(0, "x"); dg.add_node(1, "n"); dg.add_terminal(2, "lo"); dg.add_terminal(3, "hi")
>>> dg.add_edge(0, 2, Literal.le("x", 3.0)); dg.add_edge(0, 1, Literal.gt("x", 3.0))
>>> dg.add_edge(1, 2, Literal.le("n", 4.5)); dg.add_edge(1, 3, Literal.gt("n", 4.5))
>>> xg = ExplanationGraph.from_decision_graph(dg, {"x": 5.0, "n": 7})
>>> explanation_conditions(xg, ["x", "n"])
['x > 3', 'n >= 5']
>>> explanation_counterexample(xg, ["n"])
({'n': 4}, 'lo')
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import portion as P

from xpg.core.features import Feature, ValueSet, describe_values
from xpg.core.graph import DecisionGraph
from xpg.core.names import quote_name, short_number
from xpg.core.xpgraph import ExplanationGraph
from xpg.errors import InvalidFeatureError, InvalidSeedError, XpgError
from xpg.explain.reach import zero_path

if TYPE_CHECKING:
    from xpg.core.features import Literal

#: an explained decision (:class:`xpg.explain.decision.Decision`): anything with an ``oracle``
Decision = Any


def _source(xg: ExplanationGraph) -> tuple[DecisionGraph, list[Any]]:
    if xg.source is None or xg.instance is None:
        raise XpgError(
            "this explanation graph was not built from a decision graph and an instance "
            "(read from a .xpg file?): feature values are unknown"
        )
    return xg.source, xg.instance


def _literals_by_feature(dg: DecisionGraph) -> dict[str, list[Literal]]:
    """The distinct literals of the graph's edges, per feature (built once per graph, kept in
    the graph's cache, which any change to the graph clears)."""
    found: dict[str, list[Literal]] | None = dg._cache.get("describe_literals")
    if found is None:
        seen: set[Literal] = set()
        found = {}
        for _, _, lit in dg.edges:
            if lit not in seen:
                seen.add(lit)
                found.setdefault(lit.feature, []).append(lit)
        dg._cache["describe_literals"] = found
    return found


def feature_cell(dg: DecisionGraph, feature: str, value: Any) -> ValueSet:
    """Values of ``feature`` that satisfy exactly the literals that ``value`` satisfies."""
    f = dg.features[dg.feature_index[feature]]
    cell = f.domain_set()
    for lit in _literals_by_feature(dg).get(feature, ()):
        allowed = lit.allowed
        if not f.is_discrete and isinstance(allowed, frozenset):
            allowed = P.Interval(*[P.singleton(v) for v in allowed])
        cell = cell & allowed if lit.satisfied_by(value) else cell - allowed
    return cell


def value_text(value: Any) -> str:
    """A feature value as conditions write it: a category's ``repr``, a number as it is.

    >>> value_text("red"), value_text(3), value_text(2.0), value_text(0.1)
    ("'red'", '3', '2', '0.1')
    """
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e16:
        return str(int(value))
    return str(value)


def condition_text(feature: Feature, values: ValueSet) -> str:
    """``feature in values`` as text (see the module docstring).

    >>> condition_text(Feature.integer("age"), P.open(29.5, P.inf))
    'age >= 30'
    >>> condition_text(Feature.integer("score", 1, 10), P.openclosed(2.5, 10))  # 10: its end
    'score >= 3'
    >>> condition_text(Feature.real("cost in eur", 0, 9), P.openclosed(1, 2.5))
    '1 < "cost in eur" <= 2.5'
    >>> condition_text(Feature.categorical("c", ["r", "g", "b"]), frozenset(["b", "r"]))
    "c in {'r', 'b'}"
    """
    name = quote_name(feature.name)
    if values == feature.domain_set():
        return f"{name} is any value"
    if isinstance(values, frozenset):
        shown = [value_text(v) for v in feature.values if v in values]
        if len(shown) == 1:
            return f"{name} = {shown[0]}"
        return f"{name} in {{{', '.join(shown)}}}"
    parts = [_atom_text(feature, name, atom) for atom in values & feature.domain_set()]
    return " or ".join(p for p in parts if p) or f"{name} in {{}}"


def _atom_text(feature: Feature, name: str, atom: Any) -> str:
    """One interval of a condition (empty text for an interval holding no value)."""
    if atom.empty:
        return ""
    lo = -math.inf if atom.lower == -P.inf else float(atom.lower)
    hi = math.inf if atom.upper == P.inf else float(atom.upper)
    lo_in, hi_in = atom.left == P.CLOSED, atom.right == P.CLOSED
    if feature.kind == "integer":  # as the first and last integers inside
        if math.isfinite(lo):
            lo, lo_in = float(math.floor(lo) + 1 if not lo_in else math.ceil(lo)), True
        if math.isfinite(hi):
            hi, hi_in = float(math.ceil(hi) - 1 if not hi_in else math.floor(hi)), True
        if lo > hi:
            return ""
    if lo == hi:
        return f"{name} = {short_number(lo)}"
    if lo == feature.low and lo_in:  # the domain's own ends go without saying
        lo = -math.inf
    if hi == feature.high and hi_in:
        hi = math.inf
    if math.isinf(lo) and math.isinf(hi):
        return f"{name} is any value"
    if math.isinf(lo):
        return f"{name} {'<=' if hi_in else '<'} {short_number(hi)}"
    if math.isinf(hi):
        return f"{name} {'>=' if lo_in else '>'} {short_number(lo)}"
    return (
        f"{short_number(lo)} {'<=' if lo_in else '<'} {name} "
        f"{'<=' if hi_in else '<'} {short_number(hi)}"
    )


def changes_text(changes: dict[str, Any]) -> str:
    """New values of features as text, ``name = value`` joined by ``; ``.

    >>> print(changes_text({"age": 30, "colour, main": "red"}))
    age = 30; "colour, main" = 'red'
    """
    return "; ".join(f"{quote_name(n)} = {value_text(v)}" for n, v in changes.items())


def _graph_of(target: ExplanationGraph | Decision) -> ExplanationGraph | None:
    """The explanation graph behind ``target`` (None for a decision explained by a cell
    oracle)."""
    if isinstance(target, ExplanationGraph):
        return target
    oracle = getattr(target, "oracle", None)
    if oracle is not None:
        found: ExplanationGraph | None = getattr(oracle, "explanation_graph", None)
        return found
    raise XpgError(
        "expected an ExplanationGraph or an explained decision (xpg.Explainer(model)"
        f".explain(instance)), found {type(target).__name__}"
    )


def explanation_conditions(
    target: ExplanationGraph | Decision, features: Sequence[str]
) -> list[str]:
    """The condition each feature of ``features`` satisfies at the instance, in that order:
    the feature's cell, the values the model cannot tell apart from the instance's (the
    conditions an AXp's features satisfy, so that any input meeting them gets the same
    prediction).

    Parameters
    ----------
    target : ExplanationGraph or Decision
        An explanation graph built from a decision graph and an instance (any model kind
        compiled to a graph), or an explainer of a model explained by an oracle (a tree
        ensemble's :class:`~xpg.explain.decision.Decision`, any route; a decision
        list over its SAT oracle).
    features : sequence of str
        Feature names (an explanation, in the order its conditions are wanted).

    Raises
    ------
    InvalidFeatureError
        For a name that is not a feature of the target.
    XpgError
        For an explanation graph read from a ``.xpg`` file (no feature values).

    Examples
    --------
    >>> from xpg.examples import and_graph
    >>> xg = ExplanationGraph.from_decision_graph(and_graph(), {"a": 1, "b": 0})
    >>> explanation_conditions(xg, ["b"])
    ['b = 0']
    """
    xg = _graph_of(target)
    if xg is not None:
        dg, values = _source(xg)
        known: dict[str, str] = xg._cache.setdefault("describe_conditions", {})
        out = []
        for name in features:
            if name not in known:
                i = _index(dg.feature_index, name)
                known[name] = condition_text(dg.features[i], feature_cell(dg, name, values[i]))
            out.append(known[name])
        return out
    space = getattr(target.oracle, "space", None)  # type: ignore[union-attr]
    if space is None:  # an oracle of the model's own, without cells: the instance's values
        instance: dict[str, Any] = target.instance  # type: ignore[union-attr,assignment]
        index = {n: i for i, n in enumerate(instance)}
        return [
            f"{quote_name(n)} = {value_text(instance[n])}"
            for n in features
            if _index(index, n) >= 0
        ]
    index = {n: i for i, n in enumerate(space.names)}
    known = _SPACE_CONDITIONS.setdefault(space, {})
    out = []
    for name in features:
        if name not in known:
            i = _index(index, name)
            cell = space.layout.cell_values(i, space.instance_cell[i])
            known[name] = condition_text(space.features[i], cell)
        out.append(known[name])
    return out


#: per oracle space (one instance), the condition of each feature already stated
_SPACE_CONDITIONS: weakref.WeakKeyDictionary[Any, dict[str, str]] = weakref.WeakKeyDictionary()


def _witness_value(witness: Any, oracle: Any, i: int) -> Any:
    """Feature ``i``'s value in a witness of an oracle without cells: the oracle's
    ``witness_values`` when it has one, else the witness itself (a mapping by name)."""
    values = getattr(oracle, "witness_values", None)
    found = values(witness) if callable(values) else witness
    return found[oracle.names[i]]


def _index(index: dict[str, int], name: str) -> int:
    if name not in index:
        raise InvalidFeatureError(f"unknown feature {name!r} (expected: {', '.join(index)})")
    return index[name]


def axp_conditions(xg: ExplanationGraph, features: Sequence[str]) -> list[str]:
    """One readable condition per feature of an AXp (:func:`explanation_conditions`)."""
    return explanation_conditions(xg, features)


def explanation_counterexample(
    target: ExplanationGraph | Decision, features: Sequence[str]
) -> tuple[dict[str, Any], Any]:
    """New values for the features of a (weak) CXp, and the class the model then predicts.

    On a graph, the values follow one path to a terminal of another class, each as close to
    the instance's as a short number allows (:func:`counterexample`); on an explainer's
    oracle, they are the oracle's witness (one value per cell); the class is the model's own
    for the changed instance.  Only features whose value changes are given.

    Raises
    ------
    InvalidSeedError
        When freeing ``features`` cannot change the prediction.

    Examples
    --------
    >>> from xpg.examples import and_graph
    >>> xg = ExplanationGraph.from_decision_graph(and_graph(), {"a": 1, "b": 1})
    >>> explanation_counterexample(xg, ["b"])
    ({'b': 0}, 0)
    """
    xg = _graph_of(target)
    if xg is not None:
        return counterexample(xg, features)
    oracle: Any = target.oracle  # type: ignore[union-attr]
    index = {n: i for i, n in enumerate(oracle.names)}
    free = {_index(index, n) for n in features}
    deadline, oracle.deadline = oracle.deadline, None  # a witness is wanted whatever the budget
    try:
        witness = oracle.check_free(free)
    finally:
        oracle.deadline = deadline
    if witness is None:
        raise InvalidSeedError(
            f"{sorted(features)} is not a weak CXp: freeing it cannot change the prediction"
        )
    space = getattr(oracle, "space", None)
    if space is None:  # an oracle of the model's own: its witness, classified by the model
        moved = oracle.changed(witness)
        instance: dict[str, Any] = dict(target.instance)  # type: ignore[union-attr,arg-type]
        point = {**instance, **{oracle.names[i]: _witness_value(witness, oracle, i) for i in moved}}
        changes = {oracle.names[i]: point[oracle.names[i]] for i in sorted(moved)}
        return changes, target.model.predict(point)  # type: ignore[union-attr]
    values = oracle.witness_values(witness)
    label = oracle.model.predict_batch(space.rows(witness))[0]
    changed = {
        space.names[i]: values[space.names[i]]
        for i in sorted(free)
        if int(witness[i]) != space.instance_cell[i]
    }
    return changed, label.item() if hasattr(label, "item") else label


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


def _edge_literals(dg: DecisionGraph) -> dict[tuple[int, int], list[Literal]]:
    """The literals of the graph's edges by (source, target) node index (built once per
    graph, kept in its cache)."""
    found: dict[tuple[int, int], list[Literal]] | None = dg._cache.get("describe_edges")
    if found is None:
        found = {}
        for s, d, lit in dg.edges:
            found.setdefault((s, d), []).append(lit)
        dg._cache["describe_edges"] = found
    return found


def counterexample(xg: ExplanationGraph, features: Sequence[str]) -> tuple[dict[str, Any], Any]:
    """New values for the features of a (weak) CXp, and the class the model then predicts.

    The values follow one path to a terminal of another class (only the features whose value
    changes are given); the class is re-checked by evaluating the decision graph on the changed
    instance.
    """
    dg, values = _source(xg)
    free = xg.indices(list(features))
    path = zero_path(xg, free)
    if path is None:
        raise InvalidSeedError(
            f"{sorted(features)} is not a weak CXp: freeing it cannot change the prediction"
        )
    lits_of = _edge_literals(dg)
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
    changed = {}
    for f, s in sorted(allowed.items()):  # in feature order
        v = _pick(dg.features[f], s, values[f])
        if v != values[f]:  # a free feature the path crosses on its instance's edge stays
            changed[dg.features[f].name] = v
    new_instance = list(values)
    for name, v in changed.items():
        new_instance[dg.feature_index[name]] = v
    return changed, dg.predict(new_instance)
