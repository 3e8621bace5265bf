"""Deep graphs: a chain of tests deeper than Python's recursion limit goes through every step."""

from __future__ import annotations

from pathlib import Path

import pytest

from xpg import (
    DecisionGraph,
    ExplanationGraph,
    Feature,
    Literal,
    enumerate_explanations,
    find_axp,
    find_cxp,
    read_xpg,
    write_xpg,
)
from xpg.explain.reach import path_to_zero


@pytest.mark.slow
def test_deep_graphs_need_no_recursion(tmp_path: Path) -> None:
    """A chain of 3,000 tests (deeper than Python's recursion limit) through every step:
    validate, XpG, reachability, AXp, CXp, enumeration, .xpg write and read."""
    n = 3000
    feats = [Feature.boolean(f"b{i}") for i in range(n)]
    dg = DecisionGraph(feats, classes=[0, 1])
    for i in range(n):
        dg.add_node(i, f"b{i}")
    dg.add_terminal("no", 0)
    dg.add_terminal("yes", 1)
    for i in range(n):
        dg.add_edge(i, i + 1 if i + 1 < n else "yes", Literal.eq(f"b{i}", 1))
        dg.add_edge(i, "no", Literal.eq(f"b{i}", 0))
    dg.validate()
    xg = ExplanationGraph.from_decision_graph(dg, [1] * n)
    assert xg.prediction == 1
    assert path_to_zero(xg, [n - 1]) and not path_to_zero(xg, [])
    assert len(find_axp(xg)) == n  # every test is needed
    assert find_cxp(xg) is not None and len(find_cxp(xg) or ()) == 1
    part = enumerate_explanations(xg, limit=5)
    assert not part.complete and all(len(c) == 1 for c in part.cxps)
    write_xpg(xg, tmp_path / "deep.xpg")
    again = read_xpg(tmp_path / "deep.xpg")
    assert again.n_nodes == n + 2 and len(find_axp(again)) == n
