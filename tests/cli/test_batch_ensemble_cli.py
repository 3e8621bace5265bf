"""``xpg explain --data`` on tree ensembles, end to end: a breast-cancer forest too large to
compile on two worker processes (AXps verified), a small ensemble on the explainer route
against brute force with a bad row, and ``--kinds robustness`` on the oracle route equal to
the graph route's."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from xpg.cli.main import main
from xpg.errors import GraphTooLargeError
from xpg.io.model_json import save_model
from xpg.models.ensemble_import import ensemble_from_sklearn
from xpg.testing.ensembles import ensemble_oracle, random_small_ensemble


@pytest.fixture(scope="module")
def big_forest(tmp_path_factory: pytest.TempPathFactory):
    from sklearn.datasets import load_breast_cancer
    from sklearn.ensemble import RandomForestClassifier

    tmp = tmp_path_factory.mktemp("big")
    X, y = load_breast_cancer(return_X_y=True)
    rf = RandomForestClassifier(n_estimators=30, max_depth=4, random_state=0).fit(X, y)
    model = ensemble_from_sklearn(rf)
    path = tmp / "forest.json"
    save_model(model, path)
    rows = X[:6]
    data = tmp / "rows.csv"
    frame = pd.DataFrame(rows, columns=[f.name for f in model.features])
    frame["y"] = y[:6]
    frame.to_csv(data, index=False)
    return model, rf, str(path), str(data), rows, y[:6]


def _records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.mark.slow
def test_a_large_forest_on_two_workers(big_forest, tmp_path: Path, capsys) -> None:
    from xpg.verify.verifier import Verifier

    model, rf, path, data, rows, y = big_forest
    out = tmp_path / "out.jsonl"
    argv = ["explain", path, "--data", data, "--kinds", "axp", "--limit", "1"]
    argv += ["--target", "y", "--workers", "2", "--chunk-rows", "2", "-o", str(out)]
    assert main(argv) == 0
    assert "6 rows, 0 errors" in capsys.readouterr().err
    records = _records(out)
    assert [r["row"] for r in records] == list(range(6))
    with Verifier(model) as v:
        for x, label, r in zip(rows, y, records, strict=True):
            assert r["prediction"] == str(rf.predict([x])[0])
            assert r["label"] == str(label)
            assert len(r["axps"]) == 1 and r["complete"] is False
            assert v.verify_axp(x.tolist(), r["axps"][0]).holds


def _nothing_compiles(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every tree ensemble is beyond its compile budget: its rows go to its oracle."""
    from xpg.models.ensemble import TreeEnsemble

    def too_large(self: object, budget: object = None) -> None:
        raise GraphTooLargeError("the ensemble is too large for the graph route (test)")

    monkeypatch.setattr(TreeEnsemble, "to_decision_graph", too_large)


def test_robustness_on_the_oracle_route_equals_the_graph_route(
    tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Was: refused with exit status 2 for an ensemble too large to compile; its oracle now
    searches the distance (issue 29), the same as the compiled graph's."""
    from sklearn.datasets import load_iris
    from sklearn.ensemble import RandomForestClassifier

    X, y = load_iris(return_X_y=True)
    rf = RandomForestClassifier(n_estimators=3, max_depth=2, random_state=1).fit(X, y)
    model = ensemble_from_sklearn(rf)
    path = tmp_path / "forest.json"
    save_model(model, path)
    data = tmp_path / "rows.csv"
    pd.DataFrame(X[::30], columns=[f.name for f in model.features]).to_csv(data, index=False)
    found = {}
    for route in ("graph", "oracle"):
        if route == "oracle":
            _nothing_compiles(monkeypatch)
        out = tmp_path / f"{route}.jsonl"
        argv = ["explain", str(path), "--data", str(data), "--kinds", "robustness"]
        assert main([*argv, "-o", str(out)]) == 0
        assert "5 rows, 0 errors" in capsys.readouterr().err
        found[route] = [r["robustness"] for r in _records(out)]
    for x, graph, oracle in zip(X[::30], found["graph"], found["oracle"], strict=True):
        assert oracle["distance"] == graph["distance"] > 0
        cex = oracle["counterexample"]
        assert model.predict(cex) == int(oracle["counterexample_class"]) != model.predict(x)
        moved = max(abs(cex[f.name] - v) for f, v in zip(model.features, x, strict=True))
        assert moved <= oracle["distance"] + 1e-6


@pytest.mark.parametrize("workers", ["1", "2"])
@pytest.mark.slow
def test_small_ensemble_on_the_explainer_route_equals_brute_force(
    workers: str, tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    _nothing_compiles(monkeypatch)
    est, feats, X = random_small_ensemble(11, "boosted")
    model = ensemble_from_sklearn(est, feats)
    path = tmp_path / "m.json"
    save_model(model, path)
    names = [f.name for f in feats]
    frame = pd.DataFrame(X[:8], columns=names)
    frame.loc[3, names[0]] = 99  # outside the domain
    data = tmp_path / "rows.csv"
    frame.to_csv(data, index=False)
    out = tmp_path / "out.jsonl"
    argv = ["explain", str(path), "--data", str(data), "--workers", workers, "-o", str(out)]
    assert main(argv) == 1  # one error record
    records = _records(out)
    assert len(records) == 8
    assert set(records[3]) == {"row", "error", "model"} and "99" in records[3]["error"]
    for i, r in enumerate(records):
        if i == 3:
            continue
        x = dict(zip(names, X[i].tolist()))
        oracle = ensemble_oracle(est, feats, x)
        assert r["prediction"] == str(est.predict(np.array([X[i]]))[0])
        assert {frozenset(a) for a in r["axps"]} == oracle.axps
        assert {frozenset(c) for c in r["cxps"]} == oracle.cxps
        assert r["complete"] is True
