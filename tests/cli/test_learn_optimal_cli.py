"""``xpg learn tree --learner optimal`` as a user runs it: the file is pystreed's tree over the
original features, the report says whether the search finished, bad options are one line."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import shared_path

from xpg.cli.main import main
from xpg.io import read_model
from xpg.learn import learn_tree_from_table

pytest.importorskip("pystreed")

MONK1 = ("pmlb/monk1.tsv.gz", "target")


def test_learn_optimal_tree_writes_pystreeds_tree(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = shared_path("datasets", MONK1[0])
    out = tmp_path / "monk1.json"
    args = ["learn", "tree", str(data), "--target", MONK1[1], "--learner", "optimal"]
    assert main([*args, "-o", str(out)]) == 0
    text = capsys.readouterr().out
    assert "learner: optimal tree (STreeD, pystreed) over 11 binary features" in text
    assert text.rstrip().endswith(f"wrote {out}") and ": optimal\n" in text
    learned = learn_tree_from_table(data, MONK1[1], learner="optimal")
    model = read_model(out)
    values = np.empty((len(learned.data.values), 6), dtype=object)
    values[:] = learned.data.values
    assert model.predict_batch(values).tolist() == (
        learned.estimator.streed_predict(learned.data.X).tolist()
    )
    # the CART default is unchanged and does worse on monk1
    assert main(["learn", "tree", str(data), "--target", MONK1[1], "-o", str(out), "--json"]) == 0
    cart = json.loads(capsys.readouterr().out)
    assert "learner" not in cart and cart["test_accuracy"] < learned.report.test_accuracy == 1.0


def test_time_limit_reported_in_json_and_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = shared_path("datasets", "pmlb/collins.tsv.gz")
    out = tmp_path / "c.json"
    base = ["learn", "tree", str(data), "--target", "target", "--learner", "optimal"]
    assert main([*base, "--time-limit", "1", "-o", str(out), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["learner"] == "optimal" and doc["optimal"] is False and doc["time_limit"] == 1.0
    assert main([*base, "--time-limit", "1", "-o", str(out)]) == 0
    assert "time limit of 1 s reached: the best tree found so far, not proved optimal" in (
        capsys.readouterr().out
    )


def test_bad_options_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = shared_path("datasets", MONK1[0])
    out = tmp_path / "m.json"
    base = ["learn", "tree", str(data), "--target", MONK1[1], "-o", str(out)]
    assert main([*base, "--time-limit", "5"]) == 2
    err = capsys.readouterr().err
    assert err.strip().count("\n") == 0 and "--learner optimal only" in err
    assert main([*base, "--complexity", "0.01"]) == 2
    assert "--complexity applies to --learner optimal only" in capsys.readouterr().err
    assert main([*base, "--learner", "c45"]) == 2
    assert "invalid choice: 'c45'" in capsys.readouterr().err
    assert main([*base, "--learner", "optimal", "--time-limit", "-1"]) == 2
    assert "--time-limit" in capsys.readouterr().err
    assert not out.exists()


def test_missing_extra_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "pystreed", None)
    data = shared_path("datasets", MONK1[0])
    args = ["learn", "tree", str(data), "--target", MONK1[1], "--learner", "optimal"]
    assert main([*args, "-o", str(tmp_path / "m.json")]) == 2
    err = capsys.readouterr().err
    assert "pip install -e '.[optimal]' from a clone of xpg" in err and err.strip().count("\n") == 0


def test_complexity_prunes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = shared_path("datasets", "pmlb/iris.tsv.gz")
    out = tmp_path / "iris.json"
    base = ["learn", "tree", str(data), "--target", "target", "--learner", "optimal"]
    assert main([*base, "-o", str(out), "--json"]) == 0
    plain = json.loads(capsys.readouterr().out)
    assert main([*base, "--complexity", "0.05", "-o", str(out), "--json"]) == 0
    pruned = json.loads(capsys.readouterr().out)
    assert pruned["complexity"] == 0.05 and pruned["optimal"] is True
    assert pruned["size"]["nodes"] < plain["size"]["nodes"]
    assert pruned["train_accuracy"] <= plain["train_accuracy"]
