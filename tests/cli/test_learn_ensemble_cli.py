"""``xpg learn forest|boosted`` and ``xpg import`` of ensembles as a user runs them: the file
written is what the library learns and predicts what scikit-learn predicts; a large ensemble
is valid but not compiled; every bad input is one line with exit status 2."""

from __future__ import annotations

import json
from pathlib import Path

import joblib
import numpy as np
import pandas as pd
import pytest
import skops.io as sio
from conftest import shared_path
from sklearn.ensemble import ExtraTreesClassifier, GradientBoostingClassifier

from xpg.cli.main import main
from xpg.io import model_to_dict, read_model
from xpg.learn import learn_ensemble_from_table
from xpg.models.ensemble import BoostedTrees, Forest

PIMA = "pmlb/pima.tsv.gz"


def test_learn_forest_writes_what_the_library_learns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = shared_path("datasets", PIMA)
    out = tmp_path / "pima.json"
    argv = ["learn", "forest", str(data), "--target", "target", "--trees", "30"]
    assert main([*argv, "--max-depth", "4", "--seed", "2", "-o", str(out)]) == 0
    text = capsys.readouterr().out
    learned = learn_ensemble_from_table(data, "target", "forest", n_trees=30, max_depth=4, seed=2)
    assert json.loads(out.read_text()) == json.loads(json.dumps(model_to_dict(learned.model)))
    assert f"size: 30 trees, {learned.model.n_nodes} nodes, depth 4" in text
    assert text.startswith("forest: target 'target', 2 classes, 8 features")
    model = read_model(out)
    assert isinstance(model, Forest)
    X = pd.read_csv(data, sep="\t").drop(columns="target").to_numpy(float)
    assert model.predict_batch(X).tolist() == learned.estimator.predict(X).tolist()
    # 30 trees on pima's real columns are too large for the graph route: valid, not compiled
    assert main(["validate", str(out)]) == 0
    assert "the SAT/SMT route is used instead" in capsys.readouterr().out
    assert main(["export", str(out), "--instance", "@" + str(_row(tmp_path, model)), "-o",
                 str(tmp_path / "g.xpg")]) == 2  # fmt: skip
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "does not compile within the budget" in err
    assert "use xpg axp, cxp or enum, which explain it without compiling" in err
    assert not (tmp_path / "g.xpg").exists()


def _row(tmp_path: Path, model: Forest) -> Path:
    path = tmp_path / "row.json"
    path.write_text(json.dumps({f.name: 1 for f in model.features}))
    return path


def test_learn_boosted_json_and_extra_trees(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    frame = pd.DataFrame(
        {
            "colour": ["red", "green", "blue", "red"] * 25,
            "n": list(range(100)),
            "y": ["no", "yes", "maybe", "no"] * 25,
        }
    )
    path = tmp_path / "t.csv"
    frame.to_csv(path, index=False)
    out = tmp_path / "m.json"
    argv = ["learn", "boosted", str(path), "--target", "y", "--trees", "5", "--json"]
    assert main([*argv, "--learning-rate", "0.5", "--test-size", "0", "-o", str(out)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["model"] == "boosted-trees" and doc["size"]["trees"] == 15  # 5 stages x 3
    assert doc["train_accuracy"] == 1.0 and doc["features_used"] == ["colour"]
    model = read_model(out)
    assert isinstance(model, BoostedTrees) and model.scale == 0.5
    assert model.predict({"colour": "green", "n": 3}) == "yes"
    # a small model compiles: .xpg export works
    assert (
        main(["export", str(out), "--instance", "colour=green,n=3", "-o", str(tmp_path / "g.xpg")])
        == 0
    )
    capsys.readouterr()
    argv = ["learn", "forest", str(path), "--target", "y", "--extra-trees", "--trees", "4"]
    assert main([*argv, "-o", str(out)]) == 0
    assert capsys.readouterr().out.startswith("forest: target 'y', 3 classes")


@pytest.fixture
def _cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_import_ensembles(_cwd: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.integers(0, 4, size=(200, 3)), columns=["a", "b", "c"])
    y = (X["a"] + X["b"] > 3).astype(int) + (X["c"] == 3)
    for est in (
        ExtraTreesClassifier(n_estimators=6, max_depth=3, random_state=0),
        GradientBoostingClassifier(n_estimators=6, max_depth=2, random_state=0),
    ):
        est.fit(X, y)
        sio.dump(est, "e.skops")
        assert main(["import", "e.skops", "-o", "m.json", "--json"]) == 0
        doc = json.loads(capsys.readouterr().out)
        kind = "forest" if isinstance(est, ExtraTreesClassifier) else "boosted-trees"
        assert doc["model"] == kind and doc["features"] == 3
        model = read_model("m.json")
        assert model.predict_batch(X.to_numpy(float)).tolist() == est.predict(X).tolist()
        joblib.dump(est, "e.pkl")
        assert main(["import", "e.pkl", "-o", "p.json"]) == 2
        assert "refusing to unpickle" in capsys.readouterr().err
        assert main(["import", "e.pkl", "--trust-pickle", "-o", "p.json"]) == 0
        assert "size: " in capsys.readouterr().out


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--trees", "0"], "expected a positive integer"),
        (["--max-depth", "-1"], "expected a positive integer"),
        (["--learning-rate", "0"], "expected a positive number"),
        (["--learning-rate", "nan"], "expected a positive number"),
    ],
)
def test_bad_options_are_one_line(
    extra: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "ok.csv").write_text("a,y\n0,0\n1,1\n0,0\n1,1\n")
    argv = ["learn", "boosted", str(tmp_path / "ok.csv"), "--target", "y"]
    assert main([*argv, *extra, "-o", str(tmp_path / "m.json")]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not (tmp_path / "m.json").exists()
