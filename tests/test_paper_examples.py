"""The core paper's running examples, built with the library's own classes."""

from __future__ import annotations

import itertools

from xpg import DecisionGraph, ExplanationGraph, Feature, Literal, enumerate_explanations, find_axp
from xpg.explain import is_weak_axp

AGE, INCOME, STUDENT, CREDIT = "Age", "Income", "Student", "Credit Rating"


def figure1_tree() -> DecisionGraph:
    """Fig. 1: the hardware-purchase decision tree (classes N, T, L)."""
    features = [
        Feature.categorical(AGE, ["W", "T", "O"]),
        Feature.categorical(INCOME, ["L", "M", "H"]),
        Feature.categorical(STUDENT, ["N", "Y"]),
        Feature.categorical(CREDIT, ["P", "F", "E"]),
    ]
    dg = DecisionGraph(features, classes=["N", "T", "L"])
    for node, feature in [
        (1, STUDENT),
        (2, AGE),
        (3, CREDIT),
        (5, INCOME),
        (7, AGE),
        (8, AGE),
        (11, INCOME),
    ]:
        dg.add_node(node, feature)
    for node, cls in [
        (4, "T"),
        (6, "L"),
        (9, "N"),
        (10, "T"),
        (12, "L"),
        (13, "N"),
        (14, "T"),
        (15, "L"),
    ]:
        dg.add_terminal(node, cls)
    edges = [
        (1, 2, STUDENT, ["N"]), (1, 3, STUDENT, ["Y"]),
        (2, 4, AGE, ["O"]), (2, 5, AGE, ["W", "T"]),
        (3, 6, CREDIT, ["E"]), (3, 7, CREDIT, ["P", "F"]),
        (5, 8, INCOME, ["H"]), (5, 9, INCOME, ["L", "M"]),
        (7, 10, AGE, ["W", "O"]), (7, 11, AGE, ["T"]),
        (8, 12, AGE, ["W"]), (8, 13, AGE, ["T"]),
        (11, 14, INCOME, ["H"]), (11, 15, INCOME, ["L", "M"]),
    ]  # fmt: skip
    for p, c, f, values in edges:
        dg.add_edge(p, c, Literal.isin(f, values))
    return dg


def figure2_omdd() -> DecisionGraph:
    """Fig. 2: the OMDD over x1, x2 in {0, 1} and x3 in {0, 1, 2} (classes R, G, B)."""
    features = [
        Feature.integer("x1", 0, 1),
        Feature.integer("x2", 0, 1),
        Feature.integer("x3", 0, 2),
    ]
    dg = DecisionGraph(features, classes=["R", "G", "B"])
    for node, feature in [(1, "x3"), (2, "x2"), (3, "x2"), (4, "x1"), (5, "x1")]:
        dg.add_node(node, feature)
    for node, cls in [(6, "R"), (7, "G"), (8, "B")]:
        dg.add_terminal(node, cls)
    dg.add_edge(1, 2, Literal.isin("x3", [0, 1]))
    dg.add_edge(1, 3, Literal.eq("x3", 2))
    for parent, child in [(2, 4), (3, 5)]:  # parallel edges: x2 does not matter
        dg.add_edge(parent, child, Literal.eq("x2", 0))
        dg.add_edge(parent, child, Literal.eq("x2", 1))
    dg.add_edge(4, 6, Literal.eq("x1", 0))
    dg.add_edge(4, 7, Literal.eq("x1", 1))
    dg.add_edge(5, 6, Literal.eq("x1", 0))
    dg.add_edge(5, 8, Literal.eq("x1", 1))
    return dg


def _xpg_function(xg: ExplanationGraph, s: tuple[int, ...]) -> int:
    """kappa_D(s): 1 when no 0-terminal is reachable with variables s_i = 0 free."""
    return int(is_weak_axp(xg, {i for i, bit in enumerate(s) if bit}))


def test_figure1_instance_and_axp() -> None:
    dg = figure1_tree()
    dg.validate()
    instance = {AGE: "O", INCOME: "L", STUDENT: "Y", CREDIT: "P"}
    xg = ExplanationGraph.from_decision_graph(dg, instance)
    assert xg.prediction == "T"
    assert set(find_axp(xg)) == {AGE, CREDIT}  # Example 7: the AXp {1, 4}
    result = enumerate_explanations(xg)
    assert [set(a) for a in result.axps] == [{AGE, CREDIT}]


def test_figure1_xpg_function_is_example5() -> None:
    """The XpG function equals the activation equations of Example 5 on all 16 points."""
    xg = ExplanationGraph.from_decision_graph(
        figure1_tree(), {AGE: "O", INCOME: "L", STUDENT: "Y", CREDIT: "P"}
    )
    for s1, s2, s3, s4 in itertools.product([0, 1], repeat=4):
        a1 = 1
        a2 = a1 and not s3
        a3 = a1
        a5 = a2 and not s1
        a6 = a3 and not s4
        a7 = a3
        a8 = a5 and not s2
        a9 = a5
        a11 = a7 and not s1
        a12 = a8 and not s1
        a13 = a8 and not s1
        a15 = a11
        expected = int(not any([a6, a9, a12, a13, a15]))
        assert _xpg_function(xg, (s1, s2, s3, s4)) == expected, (s1, s2, s3, s4)
    assert _xpg_function(xg, (1, 1, 1, 1)) == 1 and _xpg_function(xg, (0, 0, 0, 0)) == 0


def test_figure2_omdd_axp() -> None:
    dg = figure2_omdd()
    dg.validate()
    xg = ExplanationGraph.from_decision_graph(dg, [0, 1, 2])
    assert xg.prediction == "R"
    assert find_axp(xg) == ("x1",)  # Example 8: the AXp {1}
    result = enumerate_explanations(xg)
    assert result.axps == [("x1",)] and result.cxps == [("x1",)] and result.complete
    # Example 6: kappa_D(s) = not ((s,7) or (s,8)) = s1
    for s in itertools.product([0, 1], repeat=3):
        assert _xpg_function(xg, s) == s[0]
