"""The command line as a user meets it: the demo, help, and errors as one line with status 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from xpg.cli.demo import run_demo
from xpg.cli.main import main


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
    monkeypatch.chdir(Path(__file__).resolve().parents[1])
    assert main(["bench", "tabel2"]) == 2
    assert "unknown benchmark 'tabel2'; expected one of compile, core-speed" in (
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
