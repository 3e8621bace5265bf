"""Inflated explanations (issue 33, item 2) against brute force, on the seeded models of every
kind of ``test_attribution.py`` (trees, decision lists compiled and over SAT, OBDDs, OMDDs,
decision graphs, risk scores, forests and boosted trees over their oracles and compiled, a
GBDT), and over the exhaustive oracle.

For every AXp found by brute force, the inflated sets are checked on the grid of the model's
own ``predict`` (a value of every cell the model tells apart, the literals' own constants
among them): they hold the instance's value; they are sufficient (every grid input inside
them, the other features free, gets the prediction); and they are maximal (the grid value
just outside an interval on either side, or any value outside a set, lets another class in
with the other sets kept).  The conditions and the JSON fields say the same sets.
"""

from __future__ import annotations

import json
import math
import random
from typing import Any

import numpy as np
import portion as P
import pytest
from test_attribution import KIND_MAKERS, ModelCase, model_cases

from xpg import Explainer, InflatedExplanation, inflate
from xpg.core.features import Feature, Literal
from xpg.core.graph import DecisionGraph
from xpg.errors import InvalidFeatureError, InvalidQueryError, InvalidSeedError
from xpg.explain.decision import Decision, QueryTimeout
from xpg.explain.describe import condition_text
from xpg.explain.exhaustive_oracle import ExhaustiveOracle
from xpg.explain.inflate import inflate_decision
from xpg.testing import ClassTable

#: the most AXps inflated per instance
AXPS_PER_INSTANCE = 3


def _inside(values: Any, v: Any) -> bool:
    return v in values


def _masks(table: ClassTable, sets: dict[str, Any]) -> list[np.ndarray]:
    """Per grid axis, the values inside the feature's set (every value of a free feature)."""
    return [
        np.array([_inside(sets[n], v) if n in sets else True for v in axis], dtype=bool)
        for n, axis in zip(table.names, table.axes, strict=True)
    ]


def _classes_inside(table: ClassTable, masks: list[np.ndarray]) -> set[int]:
    return set(np.unique(table.table[np.ix_(*masks)]).tolist())


def check_inflated(
    case: ModelCase, x: dict[str, Any], axp: list[str], found: InflatedExplanation
) -> None:
    """Instance inside, sufficient, maximal, and stated consistently (see the module)."""
    table = case.table
    own = table.table[table.index(x)]
    assert list(found.axp) == axp and [f.feature for f in found.features] == axp
    sets = {f.feature: f.values for f in found.features}
    for f in found.features:
        assert _inside(f.values, x[f.feature]), (case.name, x, f)
    inside = _classes_inside(table, _masks(table, sets))
    assert inside == {own}, (case.name, x, axp, found.conditions())
    by_name = dict(zip(table.names, table.axes, strict=True))
    features = {ft.name: ft for ft in case.explainer.features}
    for f in found.features:
        feature = features[f.feature]
        assert f.condition == condition_text(feature, f.values)
        doc = json.loads(json.dumps(f.as_dict()))
        assert doc["feature"] == f.feature and doc["condition"] == f.condition
        axis = by_name[f.feature]
        outside = [v for v in axis if not _inside(f.values, v)]
        if f.ordered:
            _check_interval_fields(feature, f.values, doc)
            below = [v for v in outside if v < x[f.feature]]
            above = [v for v in outside if v > x[f.feature]]
            neighbours = ([max(below)] if below else []) + ([min(above)] if above else [])
            assert (doc["low"] is None) == (not below) and (doc["high"] is None) == (not above)
        else:
            assert doc["values"] == [v for v in feature.values if v in f.values]
            neighbours = outside
        for v in neighbours:  # one more value lets another class in
            wider = dict(sets)
            wider[f.feature] = _with(f.values, v)
            assert _classes_inside(table, _masks(table, wider)) - {own}, (
                case.name, x, axp, f.condition, v)  # fmt: skip


def _with(values: Any, v: Any) -> Any:
    """``values`` and ``v``, and for an interval everything between them."""
    if isinstance(values, frozenset):
        return values | {v}
    return values | P.singleton(v) | P.closed(min(values.lower, v), max(values.upper, v))


def _check_interval_fields(feature: Feature, values: Any, doc: dict[str, Any]) -> None:
    """``low``/``high`` and their inclusion say the interval (integers: first and last)."""
    for side, bound, closed in (
        ("low", values.lower, values.left == P.CLOSED),
        ("high", values.upper, values.right == P.CLOSED),
    ):
        if doc[side] is None:
            continue
        if feature.kind == "integer":
            assert doc[f"{side}_inclusive"] is True and doc[side] in values
            step = -1 if side == "low" else 1
            assert doc[side] + step not in values
        else:
            assert doc[side] == float(bound) and doc[f"{side}_inclusive"] == closed


def _inflate_all(case: ModelCase, decide: Any = None) -> int:
    """Inflate up to :data:`AXPS_PER_INSTANCE` AXps of every instance; the number checked."""
    checked = 0
    for x in case.instances:
        axps = sorted(sorted(a) for a in case.table.oracle(x).axps)
        for axp in axps[:AXPS_PER_INSTANCE]:
            if decide is None:
                found = inflate(case.explainer, x, axp)
            else:
                with decide(x) as decision:
                    found = inflate_decision(decision, axp)
            check_inflated(case, x, axp, found)
            checked += 1
    return checked


@pytest.mark.parametrize("kind", list(KIND_MAKERS))
def test_inflated_sets_are_sufficient_and_maximal(kind: str) -> None:
    checked = sum(_inflate_all(case) for case in model_cases(kind, seed=2))
    assert checked >= 20


@pytest.mark.parametrize("kind", ["finite-tree", "finite-list", "obdd", "omdd", "forest", "gbdt"])
def test_the_exhaustive_oracle_inflates_the_same_sets(kind: str) -> None:
    """Over the exhaustive oracle (every value its own cell) the sets are the same: the
    greedy inflation's result depends on the values only, not on how they are grouped."""
    compared = 0
    for case in model_cases(kind, seed=3):
        if case.finite is None:
            continue
        for x in case.instances:
            axps = sorted(sorted(a) for a in case.table.oracle(x).axps)
            for axp in axps[:AXPS_PER_INSTANCE]:
                with Decision(ExhaustiveOracle(case.finite, x)) as decision:
                    exhaustive = inflate_decision(decision, axp)
                check_inflated(case, x, axp, exhaustive)
                routed = inflate(case.explainer, x, axp)
                assert routed.conditions() == exhaustive.conditions(), (case.name, x, axp)
                compared += 1
    assert compared >= 10


def test_lists_inflate_alike_compiled_and_over_sat() -> None:
    compared = 0
    for case in model_cases("list", seed=4):
        sat = Explainer(case.explainer.model, route="sat")
        for x in case.instances:
            for axp in sorted(sorted(a) for a in case.table.oracle(x).axps)[:2]:
                assert (
                    inflate(sat, x, axp).as_dict()["inflated"]
                    == (inflate(case.explainer, x, axp).as_dict()["inflated"])
                )
                compared += 1
    assert compared >= 20


def _twice_tested() -> DecisionGraph:
    """``c`` tested at the root (``{a, b}`` or ``d``) and again below ``z`` (``{b, d}`` or
    ``a``): with ``c`` in ``{a, d}`` the second test's ``{b, d}`` edge is open to the set but
    not to a path that took ``{a, b}`` at the root."""
    c = Feature.categorical("c", ["a", "b", "d"])
    dg = DecisionGraph([c, Feature.boolean("z")], classes=[0, 1])
    for n, f in ((0, "c"), (1, "z"), (2, "c")):
        dg.add_node(n, f)
    dg.add_terminal(3, 0)
    dg.add_terminal(4, 1)
    dg.add_edge(0, 1, Literal.isin("c", ["a", "b"]))
    dg.add_edge(0, 4, Literal.eq("c", "d"))
    dg.add_edge(1, 2, Literal.eq("z", 0))
    dg.add_edge(1, 4, Literal.eq("z", 1))
    dg.add_edge(2, 3, Literal.isin("c", ["b", "d"]))
    dg.add_edge(2, 4, Literal.eq("c", "a"))
    dg.validate()
    return dg


def test_a_feature_tested_twice_on_a_path_keeps_one_value_for_both() -> None:
    dg = _twice_tested()
    found = inflate(Explainer(dg), {"c": "a", "z": 0}, ["c"])
    assert found.conditions() == ["c in {'a', 'd'}"]
    with Decision(ExhaustiveOracle(dg, {"c": "a", "z": 0})) as decision:
        assert inflate_decision(decision, ["c"]).conditions() == ["c in {'a', 'd'}"]


def test_intervals_of_a_tree_and_the_json_form() -> None:
    x = Feature.real("x")
    n = Feature.integer("n", 0, 9)
    dg = DecisionGraph([x, n], classes=["lo", "hi"])
    for k, f in ((0, "x"), (1, "n"), (2, "x")):
        dg.add_node(k, f)
    dg.add_terminal(3, "lo")
    dg.add_terminal(4, "hi")
    dg.add_edge(0, 3, Literal.le("x", 1.0))
    dg.add_edge(0, 1, Literal.gt("x", 1.0))
    dg.add_edge(1, 3, Literal.le("n", 2))
    dg.add_edge(1, 2, Literal.gt("n", 2))
    dg.add_edge(2, 4, Literal.le("x", 7.5))
    dg.add_edge(2, 3, Literal.gt("x", 7.5))
    found = inflate(Explainer(dg), {"x": 3.0, "n": 5}, ["x", "n"])
    assert found.conditions() == ["1 < x <= 7.5", "n >= 3"]
    assert found.as_dict()["inflated"] == [
        {"feature": "x", "condition": "1 < x <= 7.5", "low": 1.0, "high": 7.5,
         "low_inclusive": False, "high_inclusive": True},
        {"feature": "n", "condition": "n >= 3", "low": 3, "high": None,
         "low_inclusive": True, "high_inclusive": False},
    ]  # fmt: skip
    assert found.prediction == "hi" and found.route == "graph" and found.questions >= 1


def test_a_set_that_is_not_an_axp_is_refused() -> None:
    for case in model_cases("tree", seed=5):
        for x in case.instances:
            truth = case.table.oracle(x)
            if not truth.cxps:
                continue
            weak = sorted(next(iter(truth.cxps)))  # freeing a CXp changes the prediction
            rest = [n for n in case.table.names if n not in weak]
            with pytest.raises(InvalidSeedError, match="not an AXp"):
                inflate(case.explainer, x, rest)
            return
    pytest.fail("no instance with a CXp")


def test_unknown_features_and_routes_without_cells_are_refused() -> None:
    from xpg.examples import and_graph
    from xpg.explain.oracle_abc import Oracle

    with pytest.raises(InvalidFeatureError):
        inflate(Explainer(and_graph()), {"a": 1, "b": 1}, ["a", "nope"])

    class NoCells(Oracle):  # an oracle of the model's own, without a space of cells
        names, n_features, route = ("a", "b"), 2, "own"

        def tested(self) -> list[int]:
            return [0, 1]

        def check(self, fixed: Any, *, solver: bool = True) -> Any:
            return None if set(fixed) == {0, 1} else [0, 0]

        def changed(self, witness: Any) -> set[int]:
            return {0, 1}

    with pytest.raises(InvalidQueryError, match="cannot inflate") as err:
        inflate_decision(Decision(NoCells()), ["a", "b"])
    assert "\n" not in str(err.value)
    with pytest.raises(InvalidQueryError, match="sets of values"):
        NoCells().check_cells([None, None])


def test_a_spent_budget_raises_query_timeout() -> None:
    (case,) = list(model_cases("forest", seed=6, models=1))
    x = case.instances[0]
    axp = sorted(next(iter(case.table.oracle(x).axps)))
    with case.explainer.explain(x) as decision, pytest.raises(QueryTimeout):
        inflate_decision(decision, axp, timeout=0.0)
    assert math.isfinite(inflate(case.explainer, x, axp).seconds)


def _random_cells(rng: random.Random, k: int, ordered: bool) -> list[int] | None:
    """None (any cell), or a random non-empty set of cells (a run when ``ordered``)."""
    if rng.random() < 0.3:
        return None
    if ordered:
        a, b = sorted(rng.randrange(k) for _ in range(2))
        return list(range(a, b + 1))
    return sorted(rng.sample(range(k), rng.randint(1, k)))


def _check_cells_against_the_grid(case: ModelCase, oracle: Any, rng: random.Random) -> None:
    space = oracle.space
    ordered = getattr(space, "ordered", None)
    table = case.table
    own = table.table[table.index(dict(zip(table.names, [space.instance[n] for n in table.names])))]
    for _ in range(12):
        allowed = [
            _random_cells(rng, k, bool(ordered and ordered[i])) for i, k in enumerate(space.n_cells)
        ]
        sets = {
            n: [v for v in axis if any(v in space.layout.cell_values(i, c) for c in cells)]
            for i, (n, axis, cells) in enumerate(zip(table.names, table.axes, allowed, strict=True))
            if cells is not None
        }
        masks = [
            np.array([v in sets[n] if n in sets else True for v in axis], dtype=bool)
            for n, axis in zip(table.names, table.axes, strict=True)
        ]
        expected = bool(_classes_inside(table, masks) - {own})
        witness = oracle.check_cells(allowed)
        assert (witness is not None) == expected, (case.name, allowed)
        if witness is not None:
            for c, cells in zip(list(witness), allowed, strict=True):
                assert cells is None or int(c) in cells, (case.name, allowed, witness)


@pytest.mark.parametrize("kind", ["dag", "ordered", "tree", "list-sat", "forest", "finite-list"])
def test_check_cells_is_the_grid_s_answer(kind: str) -> None:
    """The question over sets of cells, answered by each route's oracle (graphs that test a
    feature again on a path among them) and by the exhaustive oracle, against the grid."""
    rng = random.Random(kind)
    asked = 0
    for case in model_cases(kind, seed=7):
        for x in case.instances:
            with case.explainer.explain(x) as decision:
                _check_cells_against_the_grid(case, decision.oracle, rng)
            if case.finite is not None:
                with ExhaustiveOracle(case.finite, x) as oracle:
                    _check_cells_against_the_grid(case, oracle, rng)
            asked += 1
    assert asked >= 20


def test_the_twice_tested_feature_s_question() -> None:
    dg = _twice_tested()
    from xpg.core.xpgraph import ExplanationGraph
    from xpg.explain.graph_oracle import GraphOracle

    oracle = GraphOracle(ExplanationGraph.from_decision_graph(dg, {"c": "a", "z": 0}))
    cells = {v: j for j in range(3) for v in oracle.space.cell_values(0, j)}
    assert oracle.check_cells([[cells["a"], cells["d"]], None]) is None
    assert list(oracle.check_cells([[cells["a"], cells["b"]], None])) == [cells["b"], 0]


def test_an_earlier_deadline_of_the_oracle_holds() -> None:
    """Was: inflate_decision replaced a deadline the oracle already had (a batch row's, an
    enumeration's) with its own, later one."""
    import time

    from xpg.examples import and_graph

    decision = Explainer(and_graph()).explain({"a": 1, "b": 1})
    assert inflate_decision(decision, ["a", "b"], timeout=100).conditions() == ["a = 1", "b = 1"]
    decision.oracle.deadline = time.perf_counter() - 1.0  # already passed
    with pytest.raises(QueryTimeout):
        inflate_decision(decision, ["a", "b"], timeout=100)
    assert decision.oracle.deadline is not None  # restored as it was


def test_the_graph_search_of_a_set_question_checks_its_deadline() -> None:
    """Was: GraphOracle.check_cells looked at its deadline once, before a search whose states
    can grow exponentially on graphs that test a feature again (every 1,024 states now)."""
    from sklearn.tree import DecisionTreeClassifier

    import xpg
    from xpg.explain.graph_oracle import GraphOracle
    from xpg.explain.oracle_abc import OracleTimeout

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(4000, 5)), rng.integers(0, 2, 4000)
    tree = DecisionTreeClassifier(max_leaf_nodes=1500, random_state=0).fit(X, y)
    xg = xpg.ExplanationGraph.from_decision_graph(xpg.from_sklearn_tree(tree), list(X[0]))
    space = GraphOracle(xg).space
    masks = space.masks([None] * 5)
    nodes = len(xg.terminal_value_list)  # 2,169: no other class, so every node is visited
    calls: list[int] = []
    assert space.table.other_class_path(masks, [1] * nodes, lambda: calls.append(1)) is None
    assert len(calls) == nodes // 1024

    def expired() -> None:
        raise OracleTimeout

    with pytest.raises(OracleTimeout):
        space.table.other_class_path(masks, [1] * nodes, expired)
