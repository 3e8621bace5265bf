"""``xpg axp|cxp|enum|member|features|smallest|verify`` on tree-ensemble model files: the same
documents as for other models, plus the route, and the answers of brute force."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from xpg.cli.main import main
from xpg.io.model_json import save_model
from xpg.models.ensemble_import import ensemble_from_sklearn
from xpg.testing.ensembles import ensemble_oracle, random_small_ensemble


@pytest.fixture(params=["forest", "boosted"])
def case(request: pytest.FixtureRequest, tmp_path: Path):
    est, feats, X = random_small_ensemble(11, request.param, n_classes=2)
    path = tmp_path / "model.json"
    save_model(ensemble_from_sklearn(est, feats), path)
    x = {f.name: int(v) for f, v in zip(feats, X[3].tolist())}
    return str(path), x, ensemble_oracle(est, feats, x)


def _instance(x: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in x.items())


def _json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict:
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_documents_and_answers(case, capsys: pytest.CaptureFixture[str]) -> None:
    path, x, oracle = case
    inst = ["--instance", _instance(x), "--json"]
    doc = _json(capsys, ["axp", path, *inst])
    assert list(doc) == ["kind", "features", "seconds", "route", "prediction", "conditions"]
    assert doc["route"] == "sat-pb" and frozenset(doc["features"]) in oracle.axps
    assert len(doc["conditions"]) == len(doc["features"])
    prediction = doc["prediction"]
    doc = _json(capsys, ["cxp", path, *inst])
    assert list(doc) == [
        "kind", "features", "seconds", "route", "prediction", "counterexample",
        "counterexample_class",
    ]  # fmt: skip
    assert (doc["features"] is None) == (not oracle.cxps)
    if doc["features"] is not None:
        assert set(doc["counterexample"]) <= set(doc["features"])
        assert doc["counterexample_class"] != prediction
    doc = _json(capsys, ["enum", path, *inst])
    assert list(doc) == [
        "axps", "cxps", "complete", "seconds", "prediction", "conditions", "counterexamples",
        "counterexample_classes", "route",
    ]  # fmt: skip
    assert doc["complete"] and {frozenset(a) for a in doc["axps"]} == oracle.axps
    assert {frozenset(c) for c in doc["cxps"]} == oracle.cxps
    assert [len(c) for c in doc["conditions"]] == [len(a) for a in doc["axps"]]
    assert len(doc["counterexamples"]) == len(doc["counterexample_classes"]) == len(doc["cxps"])
    assert prediction not in doc["counterexample_classes"] and doc["prediction"] == prediction
    for name in x:
        doc = _json(capsys, ["member", path, name, *inst])
        assert list(doc) == ["feature", "kind", "member", "route", "witness"]
        assert doc["member"] == (name in oracle.members())
    doc = _json(capsys, ["features", path, *inst])
    assert set(doc["necessary"]) == oracle.necessary() and doc["route"] == "sat-pb"
    doc = _json(capsys, ["smallest", path, *inst])
    assert len(doc["features"]) == oracle.smallest("axp") and doc["route"] == "sat-pb"
    for axp in oracle.axps:
        claim = ",".join(sorted(axp))
        assert main(["verify", path, "--instance", _instance(x), "--axp", claim]) == 0
    capsys.readouterr()


def test_text_and_bad_input(case, capsys: pytest.CaptureFixture[str]) -> None:
    path, x, oracle = case
    assert main(["enum", path, "--instance", _instance(x)]) == 0
    out = capsys.readouterr().out
    assert out.rstrip().endswith("(route: sat-pb)") and out.startswith("prediction: ")
    assert out.count("AXP {") == len(oracle.axps)
    assert out.count(" gives prediction ") == out.count("CXP {") == len(oracle.cxps)
    assert main(["axp", path]) == 2  # no instance
    assert "give the instance with --instance" in capsys.readouterr().err
    assert main(["member", path, "nope", "--instance", _instance(x)]) == 2
    assert "unknown feature 'nope'" in capsys.readouterr().err
    first = next(iter(x))
    assert main(["axp", path, "--instance", f"{first}=0"]) == 2  # missing values
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert main(["axp", path, "--instance", _instance({**x, first: 99})]) == 2
    assert main(["axp", path, "--instance", _instance(x), "--seed", "nope"]) == 2
    capsys.readouterr()


def test_limit_and_timeout(case, capsys: pytest.CaptureFixture[str]) -> None:
    path, x, oracle = case
    doc = _json(capsys, ["enum", path, "--instance", _instance(x), "--limit", "1", "--json"])
    assert len(doc["axps"]) + len(doc["cxps"]) == 1
    assert doc["complete"] == (len(oracle.axps) + len(oracle.cxps) == 0)
    assert np.isfinite(doc["seconds"])
