"""The command line as a user meets it: the demo, help, and errors as one line with status 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from xpg.cli.demo import run_demo
from xpg.cli.main import main
from xpg.core.xpgraph import ExplanationGraph
from xpg.explain.marco import enumerate_explanations
from xpg.io import model_to_dict, read_xpg, write_xpg
from xpg.testing import ladder, small_mixed_graph


def test_demo_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--instances", "3", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["dataset"] == "breast_cancer" and doc["depth"] <= 6
    assert len(doc["instances"]) == 3
    for inst in doc["instances"]:
        assert inst["complete"] is True
        assert inst["axp"] in inst["axps"]
        assert inst["cxp"] is None or inst["cxp"] in inst["cxps"]
        assert inst["cxp"] is None or inst["cxp_class"] != inst["prediction"]
        assert len(inst["axp_conditions"]) == len(inst["axp"])


def test_demo_text_matches_the_explanations(capsys: pytest.CaptureFixture[str]) -> None:
    report = run_demo(n_instances=2)
    assert main(["demo", "--instances", "2"]) == 0
    out = capsys.readouterr().out
    for inst in report.instances:
        assert f"predicted {inst.prediction!r}" in out
        assert ", ".join(inst.axp_conditions) in out
    assert out.strip().splitlines()[-1].startswith("Summary: 2 decisions explained")


def test_console_script_errors_are_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.xpg"
    bad.write_text("NN: 3\nRoot: 1\n")
    proc = subprocess.run(
        [sys.executable, "-m", "xpg", "enum", str(bad)], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "bad.xpg:2: expected section 'T:'" in proc.stderr
    proc = subprocess.run(
        [sys.executable, "-m", "xpg", "--help"], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0
    commands = ("demo", "axp", "cxp", "enum", "export", "validate", "member", "features")
    for command in (*commands, "smallest", "verify", "bench"):
        assert f"    {command} " in proc.stdout


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str], examples_dir: Path) -> None:
    assert main(["enum", str(examples_dir / "mux6/mux6_0.xpg"), "--limit", "0"]) == 2
    assert "expected a positive integer" in capsys.readouterr().err
    assert main(["frobnicate"]) == 2
    assert main(["axp", str(examples_dir / "mux6/mux6_0.xpg"), "--instance", "a=1"]) == 2
    assert "drop --instance" in capsys.readouterr().err
    assert main(["axp", str(examples_dir / "mux6/mux6_0.xpg"), "--seed", "Bit 0"]) == 2
    assert "not a weak AXp" in capsys.readouterr().err


def test_bench_needs_a_checkout(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["bench", "table2", "--quick"]) == 2
    assert "root of an xpg checkout" in capsys.readouterr().err
    monkeypatch.chdir(Path(__file__).resolve().parents[2])
    assert main(["bench", "tabel2"]) == 2
    assert "unknown benchmark 'tabel2'; expected one of batch, compile, core-speed" in (
        capsys.readouterr().err
    )
    assert main(["bench", "core-speed", "--help"]) == 0
    assert "usage: python -m bench.core_speed" in capsys.readouterr().out


def test_usage_errors_are_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: argparse printed its usage block, and 'invalid _positive_float value'."""
    assert main(["enum", "x.xpg", "--timeout", "abc"]) == 2
    err = capsys.readouterr().err
    assert err == (
        "xpg enum: error: argument --timeout: expected a positive number, found 'abc' "
        "(see 'xpg enum --help')\n"
    )
    assert main(["member"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "required: file, feature" in err


def test_missing_or_unreadable_input_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("missing.xpg", "missing.json"):
        assert main(["validate", str(tmp_path / name)]) == 2
        err = capsys.readouterr().err
        assert "cannot read the file" in err and len(err.strip().splitlines()) == 1
    assert main(["axp", str(tmp_path)]) == 2  # a folder
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_cli_timeout_and_limit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    xg = ExplanationGraph.from_decision_graph(ladder(10, "p"), [0] * 10)
    path = tmp_path / "parity.xpg"
    write_xpg(xg, path)
    assert main(["enum", str(path), "--timeout", "60", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["complete"] is True and len(doc["cxps"]) == 10 and len(doc["axps"]) == 1
    assert main(["enum", str(path), "--timeout", "1e-9", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["complete"] is False and len(doc["axps"]) + len(doc["cxps"]) < 11
    assert main(["enum", str(path), "--limit", "3"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 4 and "INCOMPLETE" in lines[-1]
    for bad in ("0", "-1", "abc"):
        assert main(["enum", str(path), "--timeout", bad]) == 2
        assert "--timeout" in capsys.readouterr().err


def test_export_of_bad_input_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = tmp_path / "m.json"
    model.write_text(json.dumps(model_to_dict(small_mixed_graph())))
    out = tmp_path / "out.xpg"
    assert main(["export", str(model), "--instance", "x=3,c=zz", "-o", str(out)]) == 2
    assert not out.exists()
    assert main(["export", str(model), "--instance", "x=3,c=b", "-o", str(tmp_path)]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 2
    assert main(["export", str(model), "--instance", "x=3,c=b", "-o", str(out), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc == {"output": str(out), "nodes": 4, "edges": 4}
    result = enumerate_explanations(read_xpg(out))
    assert [set(a) for a in result.axps] == [{"x", "c"}]
    assert sorted(result.cxps) == [("c",), ("x",)]


def _awkward_model(tmp_path: Path) -> str:
    """``y = 1`` when ``age, years > 40`` and ``colour`` is red; ``unused`` is never tested."""
    from xpg.core.features import Feature, Literal
    from xpg.core.graph import DecisionGraph

    features = [
        Feature.real("age, years"),
        Feature.categorical("colour", ["red", "blue", "green"]),
        Feature.integer("unused", 0, 5),
    ]
    dg = DecisionGraph(features, classes=["no", "yes"])
    dg.add_node("r", "age, years")
    dg.add_node("c", "colour")
    dg.add_terminal("n", "no")
    dg.add_terminal("y", "yes")
    dg.add_edge("r", "n", Literal.le("age, years", 40.5))
    dg.add_edge("r", "c", Literal.gt("age, years", 40.5))
    dg.add_edge("c", "y", Literal.eq("colour", "red"))
    dg.add_edge("c", "n", Literal.isin("colour", ["blue", "green"]))
    path = tmp_path / "m.json"
    path.write_text(json.dumps(model_to_dict(dg)))
    return str(path)


def test_answers_state_the_prediction_and_what_explanations_mean(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 28: the prediction, each AXp with its conditions and each CXp with a
    counterexample, in text and JSON; a name holding a comma is quoted."""
    model = _awkward_model(tmp_path)
    inst = ["--instance", '{"age, years": 52, "colour": "red", "unused": 3}']
    assert main(["axp", model, *inst]) == 0
    assert capsys.readouterr().out == (
        'prediction: yes\nAXp {"age, years", colour}: "age, years" > 40.5; colour = \'red\'\n'
    )
    assert main(["cxp", model, *inst]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "prediction: yes" and out[1].endswith(" gives prediction no")
    assert out[1] in ('CXp {"age, years"}: "age, years" = 40.5 gives prediction no',
                      "CXp {colour}: colour = 'blue' gives prediction no")  # fmt: skip
    assert main(["enum", model, *inst, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["prediction"] == "yes" and doc["axps"] == [["age, years", "colour"]]
    assert doc["conditions"] == [['"age, years" > 40.5', "colour = 'red'"]]
    assert sorted(doc["cxps"]) == [["age, years"], ["colour"]]
    for cxp, change, label in zip(
        doc["cxps"], doc["counterexamples"], doc["counterexample_classes"], strict=True
    ):
        assert list(change) == cxp and label == "no"
    assert main(["enum", model, *inst]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "prediction: yes" and len(lines) == 5
    assert 'AXP {"age, years", colour}: "age, years" > 40.5; colour = \'red\'' in lines
    no = ["--instance", '{"age, years": 30, "colour": "red", "unused": 3}', "--json"]
    assert main(["cxp", model, *no]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["features"] == ["age, years"] and doc["counterexample_class"] == "yes"
    assert 40.5 < doc["counterexample"]["age, years"]


def test_an_explanation_graph_file_prints_the_sets_alone(
    capsys: pytest.CaptureFixture[str], examples_dir: Path
) -> None:
    """A ``.xpg`` file has no feature values: no prediction line, no conditions."""
    path = str(examples_dir / "mux6" / "mux6_0.xpg")
    assert main(["axp", path]) == 0
    assert capsys.readouterr().out == "AXp {Address bit 1, Bit 0, Bit 1}\n"
    assert main(["cxp", path, "--json"]) == 0
    assert list(json.loads(capsys.readouterr().out)) == ["kind", "features", "seconds"]
