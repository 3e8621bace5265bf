"""Membership, classification and smallest explanations on the reference graphs and the
paper's examples; degenerate graphs; errors for bad queries."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from xpg import (
    DecisionGraph,
    ExplanationGraph,
    Feature,
    InvalidFeatureError,
    Literal,
    SolverClosedError,
    XpgError,
    read_xpg,
    read_xpg_text,
)
from xpg.errors import InvalidQueryError, NotATreeError
from xpg.examples import AGE, CREDIT, INCOME, STUDENT, paper_figure1, paper_figure2
from xpg.explain.membership import MembershipQueries, is_member, membership_route
from xpg.explain.relevance import classify_features
from xpg.explain.smallest import smallest_axp, smallest_cxp
from xpg.solvers.sat import MembershipOracle

A = [f"Attribute {i}" for i in range(10)]
# AXps of the reference graphs (listed beside them in ../shared/xpg-examples; checked exhaustively)
REFERENCE_AXPS = {
    "corral/corral_0.xpg": [{"A0", "B0"}, {"A0", "B1"}, {"A1", "B0"}],
    "mux6/mux6_0.xpg": [
        {"Address bit 1", "Address bit 2", "Bit 1"},
        {"Address bit 1", "Bit 0", "Bit 1"},
    ],
    "mux6/mux6_1.xpg": [
        {"Address bit 1", "Address bit 2", "Bit 0"},
        {"Address bit 1", "Bit 0", "Bit 1"},
        {"Address bit 2", "Bit 0", "Bit 3"},
        {"Bit 0", "Bit 1", "Bit 3"},
    ],
    "xd6/xd6_0.xpg": [set(t) for t in itertools.product(A[1:3], A[4:7], A[8:10])],
    "xd6/xd6_1.xpg": [{A[3], A[4], A[9]}, {A[3], A[5], A[9]}, {A[3], A[6], A[9]}],
}
REFERENCE_CXPS = {
    "corral/corral_0.xpg": [{"A0", "A1"}, {"A0", "B0"}, {"B0", "B1"}],
    "mux6/mux6_0.xpg": [{"Address bit 1"}, {"Address bit 2", "Bit 0"}, {"Bit 1"}],
    "mux6/mux6_1.xpg": [{"Address bit 1", "Bit 3"}, {"Address bit 2", "Bit 1"}, {"Bit 0"}],
    "xd6/xd6_0.xpg": [set(A[1:3]), set(A[4:7]), set(A[8:10])],
    "xd6/xd6_1.xpg": [{A[3]}, set(A[4:7]), {A[9]}],
}


@pytest.mark.parametrize("name", sorted(REFERENCE_AXPS))
def test_reference_graphs(examples_dir: Path, name: str) -> None:
    xg = read_xpg(examples_dir / name)
    axps = REFERENCE_AXPS[name]
    cxps = REFERENCE_CXPS[name]
    members = set().union(*axps)
    assert members == set().union(*cxps)  # Prop. 1
    assert membership_route(xg).route == "sat"  # none of them is a tree
    for feature in xg.var_names:
        for kind, family in (("axp", axps), ("cxp", cxps)):
            answer = is_member(xg, feature, kind)
            assert answer.member == (feature in members)
            assert answer.sat_calls == 1
            if answer.member:
                assert answer.witness is not None and set(answer.witness) in family
                assert feature in answer.witness
    necessary = set.intersection(*axps)
    for strategy in ("portfolio", "queries", "enumeration"):
        result = classify_features(xg, strategy=strategy)  # type: ignore[arg-type]
        assert set(result.necessary) == necessary
        assert set(result.relevant) == members - necessary
        assert set(result.irrelevant) == set(xg.var_names) - members
    ax, cx = smallest_axp(xg), smallest_cxp(xg)
    assert ax.optimal and set(ax.features or ()) in axps
    assert len(ax.features or ()) == min(map(len, axps))
    assert cx.optimal and set(cx.features or ()) in cxps
    assert len(cx.features or ()) == min(map(len, cxps))


def test_paper_figure1_tree_route() -> None:
    xg = ExplanationGraph.from_decision_graph(
        paper_figure1(), {AGE: "O", INCOME: "L", STUDENT: "Y", CREDIT: "P"}
    )
    choice = membership_route(xg)
    assert choice.route == "tree-polynomial" and "tree" in choice.reason
    for feature in (AGE, CREDIT):
        answer = is_member(xg, feature)
        assert answer.member and set(answer.witness or ()) == {AGE, CREDIT}
        assert is_member(xg, feature, "cxp").witness == (feature,)
    for feature in (INCOME, STUDENT):
        assert not is_member(xg, feature).member
    result = classify_features(xg)
    assert set(result.necessary) == {AGE, CREDIT} and result.relevant == ()
    assert smallest_axp(xg).features == tuple(n for n in xg.var_names if n in {AGE, CREDIT})


def test_paper_figure2_omdd() -> None:
    xg = ExplanationGraph.from_decision_graph(paper_figure2(), [0, 1, 2])
    result = classify_features(xg)
    assert result.necessary == ("x1",) and set(result.irrelevant) == {"x2", "x3"}
    assert smallest_axp(xg).features == ("x1",) and smallest_cxp(xg).features == ("x1",)


def _constant_dag() -> ExplanationGraph:
    # a DAG whose terminals all predict the instance's class
    return read_xpg_text(
        "NN: 4\nRoot: 1\nT: 3 4\nTDef:\n3 1\n4 1\nNT: 1 2\nNTDef:\n1 2 1\n1 4 0\n"
        "2 3 1\n2 4 0\nNV: 2\nVarDef:\n1 a\n2 b\n"
    )


def test_constant_prediction() -> None:
    xg = _constant_dag()
    assert membership_route(xg).route == "sat"
    for feature in ("a", "b"):
        answer = is_member(xg, feature, "cxp")
        assert not answer.member and answer.witness is None and answer.sat_calls == 1
    assert classify_features(xg).irrelevant == ("a", "b")
    ax, cx = smallest_axp(xg), smallest_cxp(xg)
    assert ax.features == () and ax.optimal
    assert cx.features is None and cx.optimal
    assert cx.to_json()["features"] is None


def test_feature_the_graph_does_not_test() -> None:
    dg = DecisionGraph([Feature.boolean("used"), Feature.real("unused")], ["no", "yes"])
    dg.add_node("r", "used")
    dg.add_terminal("n", "no")
    dg.add_terminal("y", "yes")
    dg.add_edge("r", "n", Literal.eq("used", 0))
    dg.add_edge("r", "y", Literal.eq("used", 1))
    xg = ExplanationGraph.from_decision_graph(dg, {"used": 1, "unused": 3.5})
    for route in ("tree-polynomial", "sat"):
        assert is_member(xg, "used", route=route).member  # type: ignore[arg-type]
        assert not is_member(xg, "unused", route=route).member  # type: ignore[arg-type]
        assert classify_features(xg, route=route).classes == {  # type: ignore[arg-type]
            "used": "necessary",
            "unused": "irrelevant",
        }
    assert is_member(xg, 1).feature == "unused"  # by index


def test_bad_queries_raise_named_errors() -> None:
    xg = _constant_dag()
    with pytest.raises(InvalidFeatureError, match=r"unknown feature 'zz': expected one of"):
        is_member(xg, "zz")
    with pytest.raises(InvalidFeatureError, match=r"expected 0 to 1, found 7"):
        is_member(xg, 7)
    with pytest.raises(InvalidQueryError, match=r"expected 'axp' or 'cxp', found 'bxp'"):
        is_member(xg, "a", "bxp")  # type: ignore[arg-type]
    with pytest.raises(InvalidQueryError, match=r"route: expected one of"):
        is_member(xg, "a", route="fast")  # type: ignore[arg-type]
    with pytest.raises(NotATreeError, match=r"node 4 with 2 parents"):
        is_member(xg, "a", route="tree-polynomial")
    with pytest.raises(NotATreeError):
        classify_features(xg, route="tree-polynomial")
    with pytest.raises(NotATreeError):
        smallest_axp(xg, method="tree-cxps")
    with pytest.raises(InvalidQueryError, match=r"strategy: expected one of"):
        classify_features(xg, strategy="guess")  # type: ignore[arg-type]
    with pytest.raises(InvalidQueryError, match=r"method: expected one of"):
        smallest_axp(xg, method="greedy")  # type: ignore[arg-type]
    message = r"max_iterations: expected an integer >= 1 or None, found 0"
    with pytest.raises(InvalidQueryError, match=message):
        smallest_cxp(xg, max_iterations=0)
    wide = ExplanationGraph(
        [f"f{i}" for i in range(12)],
        [0, 1, 2],
        0,
        [0, -1, -1],
        [-1, 1, 0],
        [0, 0],
        [1, 2],
        [True, False],
    )
    with pytest.raises(InvalidFeatureError, match=r"f9, \.\.\. \(12 in all\)\)$"):
        is_member(wide, "g")
    for err in (InvalidFeatureError, InvalidQueryError, NotATreeError):
        assert issubclass(err, XpgError) and issubclass(err, ValueError)


def test_closed_solvers_raise() -> None:
    xg = _constant_dag()
    with MembershipOracle(xg) as oracle:
        assert oracle.query(0) is None
    with pytest.raises(SolverClosedError, match="closed"):
        oracle.query(0)
    with MembershipQueries(xg) as queries:
        assert not queries.is_member("a").member
    with pytest.raises(SolverClosedError, match="closed"):
        queries.is_member("a")
