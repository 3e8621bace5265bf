"""Trees far deeper than Python's recursion limit: built, checked, written, read, compiled
and explained without recursion (node ids and JSON locations are spelt out only on error)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from xpg.core.features import Feature, Literal
from xpg.core.xpgraph import ExplanationGraph
from xpg.errors import InvalidModelError, ParseError
from xpg.explain.axp_cxp import find_axp, find_cxp
from xpg.io.json_text import dump_json, parse_json
from xpg.io.model_json import load_model, model_from_dict, model_to_dict, read_model, save_model
from xpg.models.tree import DecisionTree, Leaf, Split

pytestmark = pytest.mark.slow


def chain(depth: int) -> DecisionTree:
    """``x <= i`` decides class ``i % 2`` at level ``i``; past every level, class 1."""
    node: Leaf | Split = Leaf(1)
    for i in range(depth - 1, -1, -1):
        node = Split("x", [(Literal.le("x", i), Leaf(i % 2)), (Literal.gt("x", i), node)])
    return DecisionTree([Feature.integer("x", 0, depth + 1), Feature.boolean("b")], [0, 1], node)


def expected(depth: int, x: int) -> int:
    return x % 2 if x < depth else 1


def test_depth_100000_saves_loads_and_predicts(tmp_path: Path) -> None:
    depth = 100_000
    tree = chain(depth)
    assert tree.depth == depth and len(tree) == 2 * depth + 1
    for x in (0, 1, 77_777, depth - 1, depth, depth + 1):
        assert tree.predict({"x": x, "b": 0}) == expected(depth, x)
    path = tmp_path / "deep.json"
    save_model(tree, path)
    again = read_model(path)
    assert isinstance(again, DecisionTree) and again.depth == depth
    for x in (0, 54_321, depth):
        assert again.predict({"x": x, "b": 1}) == expected(depth, x)
    assert len(again) == len(tree)


def test_a_deep_tree_written_again_is_the_same_text(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    save_model(chain(5_000), path)
    # compared as text: == on nested dicts recurses
    assert dump_json(model_to_dict(read_model(path)), indent=1) + "\n" == path.read_text()


@pytest.mark.parametrize("depth", [1_000, 5_000])
def test_deep_trees_compile_validate_and_explain(depth: int) -> None:
    tree = chain(depth)
    dg = model_from_dict(model_to_dict(tree))  # compiled and validated
    assert len(dg) == 2 * depth + 1
    rng = np.random.default_rng(depth)
    xs = rng.integers(0, depth + 2, 50)
    assert [dg.predict({"x": int(x), "b": 0}) for x in xs] == [expected(depth, x) for x in xs]
    assert list(tree.predict_batch(np.column_stack([xs, np.zeros_like(xs)]))) == [
        expected(depth, x) for x in xs
    ]
    xg = ExplanationGraph.from_decision_graph(dg, {"x": depth // 2, "b": 1})
    assert find_axp(xg) == ("x",) and find_cxp(xg) == ("x",)


def test_deep_tree_error_names_the_json_location(tmp_path: Path) -> None:
    depth = 3_000
    doc = model_to_dict(chain(depth))
    node = doc["model"]["root"]
    for _ in range(depth - 1):
        node = node["branches"][1]["node"]
    node["branches"][0]["le"] = "seven"
    path = tmp_path / "bad.json"
    path.write_text(dump_json(doc))
    with pytest.raises(InvalidModelError) as info:
        load_model(path)
    where = "model.root" + ".branches[1].node" * (depth - 1) + ".branches[0]"
    assert f"{where}.le: expected a number or null, found 'seven'" in str(info.value)


def test_json_nesting_is_read_at_any_depth_and_refused_where_it_is_wrong() -> None:
    assert parse_json("[" * 200_000 + "]" * 200_000) is not None
    with pytest.raises(ParseError, match="Expecting"):
        parse_json("[" * 200_000 + "]" * 199_999)
