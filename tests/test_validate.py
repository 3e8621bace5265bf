"""Every kind of invalid decision graph and model file gets its specific error."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from xpg import (
    DecisionGraph,
    Feature,
    InvalidGraphError,
    InvalidInstanceError,
    Literal,
    ParseError,
)
from xpg.cli.main import main
from xpg.io import model_to_dict, save_model


def base() -> DecisionGraph:
    """x real, c categorical: r tests x; x <= 2 -> t0, x > 2 -> n tests c."""
    dg = DecisionGraph(
        [Feature.real("x"), Feature.categorical("c", ["a", "b", "d"])], classes=["no", "yes"]
    )
    dg.add_node("r", "x")
    dg.add_node("n", "c")
    dg.add_terminal("t0", "no")
    dg.add_terminal("t1", "yes")
    dg.add_edge("r", "t0", Literal.le("x", 2))
    dg.add_edge("r", "n", Literal.gt("x", 2))
    dg.add_edge("n", "t0", Literal.isin("c", ["a"]))
    dg.add_edge("n", "t1", Literal.isin("c", ["b", "d"]))
    return dg


def test_base_is_valid() -> None:
    base().validate()


def _cycle(dg: DecisionGraph) -> None:
    dg.add_node("m", "x")
    dg.add_edge("t1", "m", Literal.le("x", 1))  # also: terminal with children
    dg.add_edge("m", "n", Literal.le("x", 9))


def _several_roots(dg: DecisionGraph) -> None:
    dg.add_node("other", "c")
    dg.add_edge("other", "t0", Literal.isin("c", ["a", "b", "d"]))


def _unreachable_with_declared_root(dg: DecisionGraph) -> None:
    dg._declared_root = "r"
    dg.add_terminal("lost", "no")


def _no_children(dg: DecisionGraph) -> None:
    dg.add_node("lonely", "x")
    dg.add_edge("n", "lonely", Literal.isin("c", []))


def _wrong_feature(dg: DecisionGraph) -> None:
    dg.edges[2] = (dg.edges[2][0], dg.edges[2][1], Literal.isin("x", ["a"]))


def _outside_domain(dg: DecisionGraph) -> None:
    dg.edges[3] = (dg.edges[3][0], dg.edges[3][1], Literal.isin("c", ["b", "d", "zzz"]))


def _overlap(dg: DecisionGraph) -> None:
    dg.edges[3] = (dg.edges[3][0], dg.edges[3][1], Literal.isin("c", ["a", "b", "d"]))


def _gap(dg: DecisionGraph) -> None:
    dg.edges[3] = (dg.edges[3][0], dg.edges[3][1], Literal.isin("c", ["b"]))


def _real_gap(dg: DecisionGraph) -> None:
    dg.edges[1] = (dg.edges[1][0], dg.edges[1][1], Literal.gt("x", 3))


def _inconsistent_edge(dg: DecisionGraph) -> None:
    # below x > 2, a node testing x <= 1 / x > 1: the first edge can never be taken
    dg.add_node("m", "x")
    dg.edges[1] = (dg.edges[1][0], dg._index["m"], dg.edges[1][2])
    dg._in_degree[dg._index["n"]] -= 1
    dg._in_degree[dg._index["m"]] += 1
    dg.add_edge("m", "t0", Literal.le("x", 1))
    dg.add_edge("m", "n", Literal.gt("x", 1))


def _interval_on_categorical(dg: DecisionGraph) -> None:
    dg.edges[2] = (dg.edges[2][0], dg.edges[2][1], Literal.le("c", 1))


def _terminal_without_class(dg: DecisionGraph) -> None:
    dg.add_node("blank", None)
    dg.add_edge("n", "blank", Literal.isin("c", []))


def _inconsistent_dag_path(dg: DecisionGraph) -> None:
    """A DAG whose merge hides an inconsistent path: x <= 2 -> m -> (x > 5) is impossible."""
    dg2 = DecisionGraph([Feature.real("x"), Feature.boolean("b")], classes=["no", "yes"])
    dg2.add_node("r", "b")
    dg2.add_node("p", "x")
    dg2.add_node("m", "x")
    dg2.add_terminal("t0", "no")
    dg2.add_terminal("t1", "yes")
    dg2.add_edge("r", "p", Literal.eq("b", 0))
    dg2.add_edge("r", "m", Literal.eq("b", 1))
    dg2.add_edge("p", "m", Literal.le("x", 2))
    dg2.add_edge("p", "t0", Literal.gt("x", 2))
    dg2.add_edge("m", "t0", Literal.le("x", 5))
    dg2.add_edge("m", "t1", Literal.gt("x", 5))
    dg.__dict__.update(dg2.__dict__)


CASES: list[tuple[Callable[[DecisionGraph], None], str]] = [
    (_cycle, "cycle"),
    (_several_roots, "expected exactly one node without parents"),
    (_unreachable_with_declared_root, "node 'lost' cannot be reached from the root 'r'"),
    (_no_children, "non-terminal 'lonely' (feature 'x') has no children"),
    (_wrong_feature, "literal over feature 'x', but node 'n' tests 'c'"),
    (_outside_domain, "values outside the domain of 'c': ['zzz']"),
    (_overlap, "node 'n': edges to 't0' and 't1' overlap on c = 'a'"),
    (_gap, "node 'n': the outgoing literals leave c = 'd' uncovered"),
    (_real_gap, "node 'r': the outgoing literals leave 2 < x <= 3 uncovered"),
    (_inconsistent_edge, "edge 'm' -> 't0': no input can take it"),
    (_interval_on_categorical, "expected a value set for categorical feature 'c'"),
    (_terminal_without_class, "node 'blank' is a terminal without class"),
    (_inconsistent_dag_path, "edge 'm' -> 't1': some path through it is inconsistent"),
]


@pytest.mark.parametrize(("mutate", "message"), CASES, ids=[c[0].__name__ for c in CASES])
def test_violation_is_reported(mutate: Callable[[DecisionGraph], None], message: str) -> None:
    dg = base()
    mutate(dg)
    dg._cache.clear()
    with pytest.raises(InvalidGraphError) as err:
        dg.validate()
    assert any(message in v for v in err.value.violations), err.value.violations
    assert isinstance(err.value, ValueError)


def test_building_errors() -> None:
    dg = base()
    with pytest.raises(InvalidGraphError, match="node 'r' is declared twice"):
        dg.add_node("r", "x")
    with pytest.raises(InvalidGraphError, match="unknown feature 'zz'"):
        dg.add_node("q", "zz")
    with pytest.raises(InvalidGraphError, match="unknown class 'maybe'"):
        dg.add_terminal("q", "maybe")
    with pytest.raises(InvalidGraphError, match="unknown node 'nope'"):
        dg.add_edge("r", "nope", Literal.le("x", 1))


def test_numpy_class_labels_match_declared_classes() -> None:
    import numpy as np

    dg = DecisionGraph([Feature.boolean("a")], classes=[0, 1])
    dg.add_terminal("t", np.int64(1))  # used to be refused as an unknown class
    assert dg.class_of("t") == 1
    loose = DecisionGraph([Feature.boolean("a")])
    loose.add_terminal("u", True)
    loose.add_terminal("v", 1)
    assert loose.classes == [True, 1]


def test_instance_errors() -> None:
    dg = base()
    with pytest.raises(InvalidInstanceError, match="no value for feature\\(s\\) 'c'"):
        dg.predict({"x": 1.0})
    with pytest.raises(InvalidInstanceError, match="unknown feature\\(s\\) 'y'"):
        dg.predict({"x": 1.0, "c": "a", "y": 2})
    with pytest.raises(
        InvalidInstanceError, match="expected one of \\['a', 'b', 'd'\\], found 'q'"
    ):
        dg.predict({"x": 1.0, "c": "q"})
    with pytest.raises(InvalidInstanceError, match="expected a number, found 'abc'"):
        dg.predict({"x": "abc", "c": "a"})
    with pytest.raises(InvalidInstanceError, match="expected 2 values"):
        dg.predict([1.0])


# -- JSON model files ---------------------------------------------------------------------------
def _doc() -> dict:
    return model_to_dict(base())


def _set(path: list, value) -> dict:
    doc = _doc()
    target = doc
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return doc


MODEL_ERRORS = [
    (_set(["format"], "other"), "format: expected 'xpg-model'"),
    (_set(["version"], 7), "version: expected 1, found 7"),
    (_set(["features", 0, "type"], "complex"), "features[0]: expected 'type' boolean"),
    (_set(["features", 1, "values"], "abc"), "features[1]: a categorical feature needs"),
    (_set(["model", "nodes", 0, "feature"], "nope"), "model.nodes[0]: node 'r': unknown feature"),
    (_set(["model", "edges", 0, "le"], "two"), "model.edges[0].le: expected a number"),
    (_set(["model", "edges", 0, "from"], "ghost"), "model.edges[0]: 'from' names an unknown node"),
    (_set(["model", "edges", 3, "in"], ["b"]), "leave c = 'd' uncovered"),
    (_set(["model", "edges", 3, "in"], ["b", "d", "e"]), "values outside the domain of 'c'"),
    (_set(["model", "type"], "neural-net"), "model.type: expected one of"),
    (_set(["model", "edges", 1], {"from": "r", "to": "n", "gt": 5}), "leave 2 < x <= 5 uncovered"),
]


@pytest.mark.parametrize(("doc", "message"), MODEL_ERRORS)
def test_model_file_errors(
    tmp_path: Path, doc: dict, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "model.json"
    path.write_text(json.dumps(doc))
    assert main(["axp", str(path), "--instance", "x=3,c=b"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and message in err, err


def test_malformed_json_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "model.json"
    path.write_text('{\n  "format": "xpg-model",\n  "version": 1,,\n}')
    from xpg.io import load_model

    with pytest.raises(ParseError) as err:
        load_model(path)
    assert err.value.line == 3 and "malformed JSON" in str(err.value)


def test_model_file_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "model.json"
    save_model(base(), path)
    assert main(["enum", str(path), "--instance", "x=3,c=b", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["axps"] == [["c", "x"]] and sorted(doc["cxps"]) == [["c"], ["x"]]
    assert main(["axp", str(path), "--instance", '{"x": 1, "c": "d"}', "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["features"] == ["x"]
    for bad, message in [
        ("x=3", "no value for feature(s) 'c'"),
        ("x=3,c=zz", "expected one of"),
        ("x=3,c=b,q=1", "unknown feature 'q'"),
        ("x3,c=b", "expected name=value"),
    ]:
        assert main(["axp", str(path), "--instance", bad]) == 2
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1
    assert main(["axp", str(path)]) == 2
    assert "give the instance with --instance" in capsys.readouterr().err
    out = tmp_path / "inst.xpg"
    assert main(["export", str(path), "--instance", "x=3,c=b", "-o", str(out)]) == 0
    capsys.readouterr()
    assert main(["enum", str(out), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["axps"] == [["c", "x"]]
