"""Command-line files: an output never replaces an input; input size is capped."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from xpg.cli.main import main
from xpg.examples import paper_figure1
from xpg.io.model_json import save_model

ROOT = Path(__file__).resolve().parents[2]
INSTANCE = "Age=O,Income=L,Student=Y,Credit Rating=P"


@pytest.fixture
def model(tmp_path: Path) -> Path:
    path = tmp_path / "model.json"
    save_model(paper_figure1(), path)
    return path


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    status = main(list(argv))
    return status, capsys.readouterr().err


def test_export_onto_its_model_is_refused_and_the_model_kept(
    model: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = model.read_bytes()
    for output in (str(model), str(model.parent / "." / model.name)):
        status, err = _cli(capsys, "export", str(model), "--instance", INSTANCE, "-o", output)
        assert status == 2 and "expected a new output file" in err and len(err.splitlines()) == 1
    assert model.read_bytes() == before


def test_an_output_that_is_the_input_under_another_name_is_refused(
    model: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    link = tmp_path / "link.json"
    link.symlink_to(model)
    hard = tmp_path / "hard.json"
    os.link(model, hard)
    before = model.read_bytes()
    for output in (link, hard):
        status, err = _cli(capsys, "export", str(model), "--instance", INSTANCE, "-o", str(output))
        assert status == 2 and "expected a new output file" in err
    assert model.read_bytes() == before


def test_an_instance_file_is_an_input_too(
    model: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    inst = tmp_path / "x.json"
    inst.write_text(json.dumps({"Age": "O", "Income": "L", "Student": "Y", "Credit Rating": "P"}))
    before = inst.read_bytes()
    status, err = _cli(capsys, "export", str(model), "--instance", f"@{inst}", "-o", str(inst))
    assert status == 2 and "(--instance)" in err and inst.read_bytes() == before


def test_a_new_output_is_written(
    model: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "g.xpg"
    status, _ = _cli(capsys, "export", str(model), "--instance", INSTANCE, "-o", str(out))
    assert status == 0 and out.read_text().startswith(("NN:", "#"))
    # overwriting an earlier output (not an input) stays allowed
    status, _ = _cli(capsys, "export", str(model), "--instance", INSTANCE, "-o", str(out))
    assert status == 0


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_validate_dev_zero_stops_at_the_limit() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "XPG_MAX_INPUT_BYTES": str(1 << 20)}
    proc = subprocess.run(
        [sys.executable, "-m", "xpg", "validate", "/dev/zero"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.strip() == (
        "xpg validate: error: /dev/zero: expected at most 1048576 bytes of input, found more "
        "(set XPG_MAX_INPUT_BYTES to read larger files)"
    )


def test_a_regular_file_over_the_limit_is_refused_unread(
    model: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    size = model.stat().st_size
    monkeypatch.setenv("XPG_MAX_INPUT_BYTES", str(size - 1))
    for argv in (["validate", str(model)], ["axp", str(model), "--instance", INSTANCE]):
        status, err = _cli(capsys, *argv)
        assert status == 2 and f"found {size} bytes" in err
    monkeypatch.setenv("XPG_MAX_INPUT_BYTES", str(size))
    assert _cli(capsys, "validate", str(model))[0] == 0


def test_a_bad_limit_is_a_clear_error(
    model: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XPG_MAX_INPUT_BYTES", "lots")
    status, err = _cli(capsys, "validate", str(model))
    assert status == 2 and "XPG_MAX_INPUT_BYTES: expected a number of bytes" in err
