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
