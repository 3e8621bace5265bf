"""``xpg robustness``: the documented example, JSON and text output, bad input as one line."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
from conftest import REPO_ROOT

import xpg
from xpg.cli.main import main
from xpg.io import model_to_dict
from xpg.testing import small_mixed_graph

DOC = (REPO_ROOT / "docs" / "robustness.md").read_text(encoding="utf-8")
MODEL = re.search(r"## Example\n.*?```json\n(.*?)```", DOC, re.S)
SESSIONS = re.findall(r"```console\n\$ (.*?)\n(.*?)```", DOC, re.S)


@pytest.fixture
def income(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    assert MODEL is not None, "docs/robustness.md: no ```json model under '## Example'"
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "income.json"
    path.write_text(MODEL.group(1), encoding="utf-8")
    return path


def test_the_documented_sessions_are_what_the_command_prints(
    income: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert len(SESSIONS) == 2
    for command, expected in SESSIONS:
        argv = shlex.split(command)
        assert argv[:2] == ["xpg", "robustness"]
        assert main(argv[1:]) == 0
        out = capsys.readouterr().out
        if "--json" in argv:
            got, want = json.loads(out), json.loads(expected)
            assert got.pop("seconds") >= 0 and want.pop("seconds") >= 0
            assert got == want
        else:  # the last line holds the time
            assert out.splitlines()[:-1] == expected.splitlines()[:-1]
            assert out.splitlines()[-1].startswith("(route read-once, ")


def test_the_documented_python_example(income: Path) -> None:
    er = xpg.robustness(xpg.read_model("income.json"), {"income": 42, "job": "b"})
    assert (er.distance, er.counterexample, er.counterexample_class) == (
        1.0,
        {"income": 42.0, "job": "a"},
        "no",
    )


def test_json_without_radius_and_constant_answer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = tmp_path / "m.json"
    model.write_text(json.dumps(model_to_dict(small_mixed_graph())))
    assert main(["robustness", str(model), "--instance", "x=2.5,c=b", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert set(doc) == {"distance", "counterexample", "counterexample_class", "seconds", "route"}
    assert (doc["distance"], doc["counterexample"], doc["counterexample_class"]) == (
        0.5,
        {"x": 2.0, "c": "b"},
        "no",
    )
    args = ["robustness", str(model), "--instance", "x=2.5,c=b", "--route", "best-first"]
    assert main([*args, "--radius", "0.5"]) == 0
    out = capsys.readouterr().out
    assert "NOT robust at radius 0.5" in out and "route best-first" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--instance", "x=1"], "no value for feature(s) 'c'"),
        (["--instance", "x=1,c=z"], "feature 'c': expected one of"),
        (["--instance", "x=1,c=a", "--radius", "-1"], "--radius: expected a non-negative"),
        (["--instance", "x=1,c=a", "--radius", "inf"], "--radius: expected a non-negative"),
        (["--instance", "x=1,c=a", "--route", "fast"], "invalid choice"),
        ([], "give the instance with --instance"),
    ],
)
def test_bad_input_is_one_line_with_status_2(
    args: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = tmp_path / "m.json"
    model.write_text(json.dumps(model_to_dict(small_mixed_graph())))
    assert main(["robustness", str(model), *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err


def test_bad_files_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "g.xpg").write_text("NN: 1\n")
    (tmp_path / "bad.json").write_text("{not json")
    for name in ("g.xpg", "bad.json", "missing.json"):
        assert main(["robustness", str(tmp_path / name), "--instance", "x=1"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("xpg robustness: error:")
