"""The core paper's running examples, built with the library's own classes."""

from __future__ import annotations

import itertools

from xpg import ExplanationGraph, enumerate_explanations, find_axp
from xpg.examples import AGE, CREDIT, INCOME, STUDENT, paper_figure1, paper_figure2
from xpg.explain.axp_cxp import is_weak_axp


def _xpg_function(xg: ExplanationGraph, s: tuple[int, ...]) -> int:
    """kappa_D(s): 1 when no 0-terminal is reachable with variables s_i = 0 free."""
    return int(is_weak_axp(xg, {i for i, bit in enumerate(s) if bit}))


def test_figure1_instance_and_axp() -> None:
    dg = paper_figure1()
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
        paper_figure1(), {AGE: "O", INCOME: "L", STUDENT: "Y", CREDIT: "P"}
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
    dg = paper_figure2()
    dg.validate()
    xg = ExplanationGraph.from_decision_graph(dg, [0, 1, 2])
    assert xg.prediction == "R"
    assert find_axp(xg) == ("x1",)  # Example 8: the AXp {1}
    result = enumerate_explanations(xg)
    assert result.axps == [("x1",)] and result.cxps == [("x1",)] and result.complete
    # Example 6: kappa_D(s) = not ((s,7) or (s,8)) = s1
    for s in itertools.product([0, 1], repeat=3):
        assert _xpg_function(xg, s) == s[0]
