"""Degenerate classifiers: constant, one feature, features the graph never tests."""

from __future__ import annotations

import pytest

from xpg import (
    DecisionGraph,
    Enumerator,
    ExplanationGraph,
    Feature,
    InvalidSeedError,
    Literal,
    SolverClosedError,
    enumerate_explanations,
    find_axp,
    find_cxp,
)


def test_constant_classifier() -> None:
    dg = DecisionGraph([Feature.boolean("a"), Feature.real("x")], classes=["only"])
    dg.add_terminal(0, "only")
    dg.validate()
    xg = ExplanationGraph.from_decision_graph(dg, {"a": 1, "x": 0.5})
    assert find_axp(xg) == () and find_cxp(xg) is None
    result = enumerate_explanations(xg)
    assert result.axps == [()] and result.cxps == [] and result.complete


def test_constant_classifier_with_tests() -> None:
    dg = DecisionGraph([Feature.boolean("a")], classes=["no", "yes"])
    dg.add_node(0, "a")
    dg.add_terminal(1, "yes")
    dg.add_terminal(2, "yes")
    dg.add_edge(0, 1, Literal.eq("a", 0))
    dg.add_edge(0, 2, Literal.eq("a", 1))
    xg = ExplanationGraph.from_decision_graph(dg, [1])
    result = enumerate_explanations(xg)
    assert result.axps == [()] and result.cxps == [] and result.complete


def test_single_feature_and_untested_features() -> None:
    feats = [Feature.real("unused1"), Feature.integer("k", 0, 9), Feature.boolean("unused2")]
    dg = DecisionGraph(feats, classes=[False, True])
    dg.add_node("r", "k")
    dg.add_terminal("lo", False)
    dg.add_terminal("hi", True)
    dg.add_edge("r", "lo", Literal.le("k", 4))
    dg.add_edge("r", "hi", Literal.gt("k", 4))
    dg.validate()
    xg = ExplanationGraph.from_decision_graph(dg, {"unused1": -3.0, "k": 7, "unused2": 0})
    assert xg.prediction is True
    assert find_axp(xg) == ("k",) and find_cxp(xg) == ("k",)
    result = enumerate_explanations(xg)
    assert result.axps == [("k",)] and result.cxps == [("k",)]
    assert find_axp(xg, seed=["unused1", "k", "unused2"]) == ("k",)
    with pytest.raises(InvalidSeedError, match="not a weak AXp"):
        find_axp(xg, seed=["unused1"])
    with pytest.raises(InvalidSeedError, match="not a weak CXp"):
        find_cxp(xg, seed=["unused2"])


def test_enumerator_budgets_and_lifecycle() -> None:
    feats = [Feature.boolean(f"b{i}") for i in range(8)]
    dg = DecisionGraph(feats, classes=[0, 1])
    # a parity chain: node (i, p) tests b_i with parity p so far; the one AXp needs all 8
    dg.add_node("start", "b0")
    nodes = {(0, 0): "start"}
    for i in range(1, 8):
        for p in (0, 1):
            dg.add_node((i, p), f"b{i}")
            nodes[(i, p)] = (i, p)
    dg.add_terminal("t0", 0)
    dg.add_terminal("t1", 1)
    for i in range(8):
        for p in (0, 1):
            if (i, p) not in nodes:
                continue
            for bit in (0, 1):
                q = p ^ bit
                target = nodes[(i + 1, q)] if i < 7 else ("t1" if q else "t0")
                dg.add_edge(nodes[(i, p)], target, Literal.eq(f"b{i}", bit))
    dg.validate()
    xg = ExplanationGraph.from_decision_graph(dg, [1, 0, 0, 0, 0, 0, 0, 0])
    full = enumerate_explanations(xg)
    assert full.complete and len(full.axps) == 1 and len(full.cxps) == 8
    part = enumerate_explanations(xg, limit=3)
    assert not part.complete and len(part.axps) + len(part.cxps) == 3
    quick = enumerate_explanations(xg, timeout=1e-9)
    assert not quick.complete
    en = Enumerator(xg)
    en.close()
    with pytest.raises(SolverClosedError):
        list(en)
