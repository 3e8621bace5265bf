"""``xpg member``, ``xpg features`` and ``xpg smallest``: the handlers registered by
:func:`xpg.cli.membership.register`, run through a parser built the way ``xpg.cli.main`` does."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from xpg import DecisionGraph, Feature, Literal, XpgError, save_model
from xpg.cli.membership import register


def run(argv: list[str]) -> int:
    """Like ``xpg.cli.main.main``: XpgError -> one line on stderr and status 2."""
    parser = argparse.ArgumentParser(prog="xpg")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except XpgError as err:
        print(f"xpg {args.command}: error: {err}", file=__import__("sys").stderr)
        return 2


def _json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict:
    assert run(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_member_json_document(examples_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = str(examples_dir / "mux6" / "mux6_0.xpg")
    doc = _json(capsys, ["member", path, "Bit 0", "--json"])
    assert list(doc) == ["feature", "kind", "member", "route", "witness"]
    assert doc["feature"] == "Bit 0" and doc["kind"] == "axp" and doc["member"] is True
    assert doc["route"] == "sat"
    assert doc["witness"] == ["Address bit 1", "Bit 0", "Bit 1"]  # the only AXp with Bit 0
    doc = _json(capsys, ["member", path, "Bit 0", "--kind", "cxp", "--json"])
    assert doc["witness"] == ["Address bit 2", "Bit 0"]
    doc = _json(capsys, ["member", path, "Bit 2", "--json"])
    assert doc == {
        "feature": "Bit 2",
        "kind": "axp",
        "member": False,
        "route": "sat",
        "witness": None,
    }


def test_member_text(examples_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = str(examples_dir / "xd6" / "xd6_1.xpg")
    assert run(["member", path, "Attribute 3"]) == 0
    out = capsys.readouterr().out.strip()
    assert out.startswith("Attribute 3: in some AXp, e.g. {") and out.endswith("(route: sat)")
    assert run(["member", path, "Attribute 1", "--kind", "cxp"]) == 0
    assert capsys.readouterr().out.strip() == "Attribute 1: in no CXp (route: sat)"


def test_features_and_smallest(examples_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = str(examples_dir / "xd6" / "xd6_1.xpg")
    doc = _json(capsys, ["features", path, "--json"])
    assert doc["necessary"] == ["Attribute 3", "Attribute 9"]
    assert doc["relevant"] == ["Attribute 4", "Attribute 5", "Attribute 6"]
    assert doc["irrelevant"] == ["Attribute 1", "Attribute 2", "Attribute 7", "Attribute 8"]
    assert doc["route"] == "sat"
    assert run(["features", path]) == 0
    assert "necessary:  Attribute 3, Attribute 9" in capsys.readouterr().out
    doc = _json(capsys, ["smallest", str(examples_dir / "xd6" / "xd6_0.xpg"), "--json"])
    assert len(doc["features"]) == 3 and doc["optimal"] is True and doc["iterations"] >= 1
    doc = _json(capsys, ["smallest", path, "--kind", "cxp", "--json"])
    assert doc["features"] in (["Attribute 3"], ["Attribute 9"]) and doc["optimal"] is True
    assert run(["smallest", path, "--max-iterations", "1"]) == 0
    assert capsys.readouterr().out.startswith("smallest AXp {")


def test_model_file_with_instance(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dg = DecisionGraph([Feature.real("x"), Feature.boolean("b")], ["no", "yes"])
    dg.add_node(0, "x")
    dg.add_node(1, "b")
    dg.add_terminal(2, "no")
    dg.add_terminal(3, "yes")
    dg.add_terminal(4, "no")  # a tree: no shared terminal
    dg.add_edge(0, 2, Literal.le("x", 1.5))
    dg.add_edge(0, 1, Literal.gt("x", 1.5))
    dg.add_edge(1, 4, Literal.eq("b", 0))
    dg.add_edge(1, 3, Literal.eq("b", 1))
    model = tmp_path / "model.json"
    save_model(dg, model)
    doc = _json(capsys, ["member", str(model), "b", "--instance", "x=2.0,b=1", "--json"])
    assert doc == {
        "feature": "b",
        "kind": "axp",
        "member": True,
        "route": "tree-polynomial",
        "witness": ["b", "x"],
    }
    doc = _json(capsys, ["features", str(model), "--instance", "x=2.0,b=1", "--json"])
    assert doc["necessary"] == ["b", "x"] and doc["route"] == "tree-polynomial"


def test_bad_input_is_an_xpg_error(
    examples_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = str(examples_dir / "mux6" / "mux6_0.xpg")
    assert run(["member", path, "Bit 9"]) == 2
    err = capsys.readouterr().err
    assert "unknown feature 'Bit 9'" in err and len(err.strip().splitlines()) == 1
    assert run(["features", str(tmp_path / "missing.xpg")]) == 2
    assert run(["member", path, "Bit 0", "--instance", "a=1"]) == 2
    with pytest.raises(SystemExit):
        run(["member", path, "Bit 0", "--kind", "both"])
    with pytest.raises(SystemExit):
        run(["smallest", path, "--max-iterations", "0"])
