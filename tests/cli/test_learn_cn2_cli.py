"""``xpg learn list --learner cn2``: options that do not fit CN2 and an environment that cannot
be created are one line and exit status 2, nothing written; with Orange3's environment
(``pytest -m peers``) the written model predicts Orange's class on every row."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import shared_path

import xpg.learn.external_env
from xpg.cli.main import main
from xpg.errors import ExternalEnvError
from xpg.io import load_model
from xpg.learn.cn2 import ORANGE_ENV, learn_cn2
from xpg.learn.external_env import ensure
from xpg.learn.from_table import split_rows
from xpg.learn.table_data import prepare_table


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_ripper_options_are_refused_with_cn2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = str(shared_path("datasets", "pmlb", "corral.tsv.gz"))
    out = tmp_path / "m.json"
    for extra in (["--positive", "1"], ["--max-rules", "3"]):
        args = ["learn", "list", data, "--target", "target", "--learner", "cn2", *extra]
        status, _, err = run([*args, "-o", str(out)], capsys)
        assert status == 2
        assert err.strip() == (
            "xpg learn: error: --positive and --max-rules apply to --learner ripper only"
        )
    assert not out.exists()


def test_an_environment_that_cannot_be_created_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The default run has no package index: creating Orange3's environment fails.  The
    failing pip step is replaced by its error (``tests/learn/test_cn2.py`` runs the real one,
    a virtual environment made and pip refused, which takes seconds)."""
    monkeypatch.setenv("XPG_ENVS_DIR", str(tmp_path / "envs"))

    def pip_refused(env: Any, folder: Path) -> None:
        (folder / "bin").mkdir()  # half made, as the real failure leaves it
        raise ExternalEnvError(f"could not create the {env.name} environment at {env.venv}")

    monkeypatch.setattr(xpg.learn.external_env, "_build", pip_refused)
    data = str(shared_path("datasets", "pmlb", "corral.tsv.gz"))
    out = tmp_path / "m.json"
    args = ["learn", "list", data, "--target", "target", "--learner", "cn2", "-o", str(out)]
    status, stdout, err = run(args, capsys)
    assert status == 2 and stdout == "" and not out.exists()
    lines = err.strip().splitlines()
    assert lines[0].startswith(
        f"[xpg] creating the orange3 environment at {tmp_path / 'envs' / 'orange3'} (once"
    )
    assert len(lines) == 2 and lines[1].startswith(
        "xpg learn: error: could not create the orange3 environment at "
    )
    assert not (tmp_path / "envs" / "orange3").exists()


@pytest.mark.peers
def test_the_written_list_predicts_what_orange_predicts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    try:
        ensure(ORANGE_ENV)
    except ExternalEnvError as err:
        pytest.skip(f"Orange3's environment is not available: {err}")
    path = shared_path("datasets", "pmlb", "iris.tsv.gz")
    out = tmp_path / "iris.json"
    args = ["learn", "list", str(path), "--target", "target", "--learner", "cn2", "--json"]
    status, stdout, _ = run([*args, "-o", str(out)], capsys)
    assert status == 0
    report = json.loads(stdout)
    assert report["learner"] == "cn2" and report["orange_version"] == "3.40.0"
    assert report["agrees_with_orange"] == 150 and report["model"] == "decision-list"
    # independently: Orange on the same training rows, every row compared with the file
    data = prepare_table(path, "target")
    rows = np.empty((len(data.values), len(data.features)), dtype=object)
    rows[:] = data.values
    train, _, _ = split_rows(data.y, 0.2, 0)
    result = learn_cn2(rows[train], data.y[train].tolist(), data.features, predict=rows)
    assert load_model(out).predict_batch(rows).tolist() == result.orange_predictions
