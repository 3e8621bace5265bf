"""DecisionGraph bookkeeping: the root is cached until the graph changes; instances in every
form a user has."""

from __future__ import annotations

import numpy as np
import pytest

from xpg.core.features import Feature, Literal
from xpg.core.graph import DecisionGraph
from xpg.core.xpgraph import ExplanationGraph
from xpg.errors import InvalidInstanceError
from xpg.examples import and_graph


def test_root_is_found_once_and_forgotten_on_change() -> None:
    """graph.py: the undeclared root was searched node by node for every new instance's XpG
    (70% of the XpG time of a depth-20 tree); it is now cached until the graph changes."""
    dg = DecisionGraph([Feature.boolean("a"), Feature.boolean("b")], classes=[0, 1])
    dg.add_node("n", "b")
    dg.add_terminal("t0", 0)
    dg.add_terminal("t1", 1)
    dg.add_edge("n", "t0", Literal.eq("b", 0))
    dg.add_edge("n", "t1", Literal.eq("b", 1))
    assert dg.root == "n"
    ExplanationGraph.from_decision_graph(dg, {"a": 0, "b": 1})
    assert dg._cache.get("root") == "n"
    dg.add_node("r", "a")  # a new root above the old one
    dg.add_edge("r", "n", Literal.eq("a", 0))
    dg.add_edge("r", "t1", Literal.eq("a", 1))
    assert dg.root == "r"
    dg.validate()
    xg = ExplanationGraph.from_decision_graph(dg, {"a": 1, "b": 0})
    assert xg.prediction == 1 and xg.node_ids[xg.root] == "r"


def test_a_one_row_table_is_its_row() -> None:
    """A one-row DataFrame once read as its column names ("expected a number, found 'a'")."""
    import pandas as pd

    dg = and_graph()
    names = [f.name for f in dg.features]
    for values in ([1, 1], [1, 0]):
        expected = dg.predict(values)
        frame = pd.DataFrame([values], columns=names)
        assert dg.predict(frame) == dg.predict(frame.iloc[0]) == expected
        assert dg.predict(frame[names[::-1]]) == expected  # by name, not position
        assert dg.predict(np.array([values])) == dg.predict(pd.Series(values)) == expected
    with pytest.raises(InvalidInstanceError, match="found a table of 2 rows"):
        dg.predict(pd.DataFrame([[1, 1], [0, 0]], columns=names))
    with pytest.raises(InvalidInstanceError, match="found an array of 2 rows"):
        dg.predict(np.ones((2, 2), dtype=int))


def test_numpy_values_and_classes_come_back_as_python_values() -> None:
    """Counterexamples once showed ``({'c': np.int64(2)}, np.int64(1))`` (issue 28)."""
    from xpg import counterexample, find_cxp

    c = Feature.categorical("c", np.array([1, 2, 3]))
    assert [type(v) for v in c.values] == [int] * 3
    dg = DecisionGraph([c], classes=np.array([0, 1]))
    dg.add_node("r", "c")
    dg.add_terminal("t0", np.int64(0))
    dg.add_terminal("t1", np.int64(1))
    dg.add_edge("r", "t0", Literal.isin("c", [1]))
    dg.add_edge("r", "t1", Literal.isin("c", [2, 3]))
    dg.validate()
    xg = ExplanationGraph.from_decision_graph(dg, [np.int64(1)])
    changed, cls = counterexample(xg, find_cxp(xg))
    assert repr((changed, cls)) == "({'c': 2}, 1)"
    assert type(dg.predict([np.int64(2)])) is int and dg.classes == [0, 1]
    assert c.check_value(np.int64(3)) == 3 and type(c.check_value(np.int64(3))) is int
