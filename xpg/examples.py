"""The core paper's two running examples, as decision graphs.

Examples
--------
>>> from xpg.core.xpgraph import ExplanationGraph
>>> from xpg.explain.axp_cxp import find_axp
>>> xg = ExplanationGraph.from_decision_graph(paper_figure1(), ["O", "L", "Y", "P"])
>>> xg.prediction, find_axp(xg)
('T', ('Age', 'Credit Rating'))

References
----------
Huang, Izza, Ignatiev, Marques-Silva. On Efficiently Explaining Graph-Based Classifiers.
KR 2021, Fig. 1 (decision tree, Example 1) and Fig. 2 (OMDD, Example 2).
"""

from __future__ import annotations

from xpg.core.features import Feature, Literal
from xpg.core.graph import DecisionGraph
from xpg.core.xpgraph import ExplanationGraph
from xpg.io.xpg_format import read_xpg_text

AGE, INCOME, STUDENT, CREDIT = "Age", "Income", "Student", "Credit Rating"


def paper_figure1() -> DecisionGraph:
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


def paper_figure2() -> DecisionGraph:
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


#: The explanation graph of "a and b" for the instance a = b = 1, in the reference format.
AND_XPG = """NN: 5
Root: 1
T: 3 4 5
TDef:
3 0
4 1
5 0
NT: 1 2
NTDef:
1 3 0
1 2 1
2 4 1
2 5 0
NV: 2
VarDef:
1 a
2 b
"""


def and_xpg() -> ExplanationGraph:
    """The explanation graph of ``a and b`` for a = b = 1 (:data:`AND_XPG`): the smallest
    example with two features that both matter."""
    return read_xpg_text(AND_XPG)


def and_graph() -> DecisionGraph:
    """``a and b`` as a decision graph over two Boolean features (classes 0 and 1, one
    terminal per class): the smallest model for docstring examples."""
    dg = DecisionGraph([Feature.boolean("a"), Feature.boolean("b")], classes=[0, 1])
    dg.add_node("r", "a")
    dg.add_node("n", "b")
    dg.add_terminal("t0", 0)
    dg.add_terminal("t1", 1)
    dg.add_edge("r", "t0", Literal.eq("a", 0))
    dg.add_edge("r", "n", Literal.eq("a", 1))
    dg.add_edge("n", "t0", Literal.eq("b", 0))
    dg.add_edge("n", "t1", Literal.eq("b", 1))
    return dg
