"""The risk-score user story of issue 15, from the shell: learn a BBM-RS risk score from a CSV
(``xpg learn risk-score``), print its score card, explain a decision (``xpg axp|cxp|enum``), ask
its robustness (``xpg robustness``), verify an explanation (``xpg verify``).  Each output is
checked against the library, and the robustness against brute force on the score card's finite
grid of candidate values; ``xpg learn risk-score``'s bad inputs exit 2 with one line."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from conftest import shared_path

from xpg.cli.main import main
from xpg.core.xpgraph import ExplanationGraph
from xpg.explain.marco import enumerate_explanations
from xpg.io import model_to_dict, read_model
from xpg.learn import bbm_rs, learn_risk_score_from_table
from xpg.learn.feature_types import declare_domains
from xpg.models.risk_score import RiskScore

BREAST = ("riskslim/breastcancer_data.csv.gz", "Benign")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def instance_text(row: dict[str, Any]) -> str:
    return ",".join(f"{k}={v}" for k, v in row.items())


def candidates(rs: RiskScore, name: str, value: Any) -> list[Any]:
    """The values of feature ``name`` worth trying: its own, and on each side of every
    threshold of the card the nearest value of its (integer) domain."""
    f = next(f for f in rs.features if f.name == name)
    out = {value}
    for cond in rs.conditions:
        if cond.literal.feature != name:
            continue
        ((lo, _hi, _lo_in, _hi_in),) = cond.literal.intervals()  # x >= lo
        for v in (math.ceil(lo), math.ceil(lo) - 1):
            if f.low <= v <= f.high:
                out.add(int(v))
    return sorted(out)


def named_sets(names: list[str]) -> Any:
    def as_names(sets: Any) -> set[frozenset[str]]:
        return {frozenset(names[i] if isinstance(i, int) else i for i in s) for s in sets}

    return as_names


def brute_force_robustness(rs: RiskScore, row: dict[str, Any]) -> float:
    """The least l-infinity move of the tested features that changes the class."""
    names = rs.tested_features()
    start = rs.predict(row)
    best = math.inf
    for values in itertools.product(*(candidates(rs, n, row[n]) for n in names)):
        moved = {**row, **dict(zip(names, values))}
        if rs.predict(moved) != start:
            best = min(best, max(abs(v - row[n]) for n, v in zip(names, values)))
    return best


def test_learn_risk_score_predicts_as_bbm_rs_on_every_row(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = shared_path("datasets", BREAST[0])
    out = tmp_path / "bc.json"
    status, text, _ = run(
        capsys,
        *("learn", "risk-score", str(data), "--target", BREAST[1], "--conditions", "9"),
        *("--seed", "4", "-o", str(out)),
    )
    assert status == 0
    learned = learn_risk_score_from_table(data, BREAST[1], conditions=9, seed=4)
    declared = model_to_dict(declare_domains(learned.model))  # untested features widened
    assert json.loads(out.read_text()) == json.loads(json.dumps(declared))
    assert learned.model.describe() in text and text.endswith(f"wrote {out}\n")
    report = learned.report
    assert f"accuracy: train {report.train_accuracy:.4f}, test {report.test_accuracy:.4f}" in text
    # an independent call of bbm_rs on the same training rows: the same predictions everywhere
    frame = pd.read_csv(data)
    X = frame.drop(columns=BREAST[1]).to_numpy(float)
    y = frame[BREAST[1]].to_numpy()
    direct = bbm_rs(X[learned.train], y[learned.train], T=9, tau=0.05)
    model = read_model(out)
    assert isinstance(model, RiskScore)
    assert model.predict_batch(X).tolist() == direct.predict_batch(X).tolist()
    assert 0 < len(model.conditions) <= 9
    # --json holds the report and the card
    status, text, _ = run(
        capsys,
        *("learn", "risk-score", str(data), "--target", BREAST[1], "--conditions", "3"),
        *("--tau", "0.1", "--positive", "0", "-o", str(out), "--json"),
    )
    doc = json.loads(text)
    assert (
        status == 0 and doc["model"] == "risk-score" and doc["classes"] == [1, 0]
    )  # (negative, positive)
    assert read_model(out).positive == 0 and doc["score_card"] == read_model(out).describe()


@pytest.mark.parametrize(
    ("table", "extra", "message"),
    [
        ("ok", ["--target", "nope"], "no target column named 'nope'"),
        ("three", [], "has 3"),
        ("colour", [], "hold categories: 'colour'"),
        ("ok", ["--positive", "maybe"], "positive class 'maybe'"),
        ("ok", ["--conditions", "0"], "expected a positive integer"),
        ("ok", ["--tau", "1.5"], "expected a fraction in [0, 1)"),
        ("missing-file", [], "missing-file"),
    ],
)
def test_learn_risk_score_bad_inputs_exit_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], table: str, extra: list[str], message: str
) -> None:
    frames = {
        "ok": pd.DataFrame({"a": range(20), "y": ["no", "yes"] * 10}),
        "three": pd.DataFrame({"a": range(21), "y": ["a", "b", "c"] * 7}),
        "colour": pd.DataFrame({"colour": ["r", "g"] * 10, "y": ["no", "yes"] * 10}),
    }
    path = tmp_path / f"{table}.csv"
    if table in frames:
        frames[table].to_csv(path, index=False)
    args = ["learn", "risk-score", str(path), "--target", "y", "--conditions", "3"]
    args += extra
    out = tmp_path / "m.json"
    status, text, err = run(capsys, *args, "-o", str(out))
    assert status == 2 and text == ""
    assert len(err.strip().splitlines()) == 1 and message in err, err
    assert not out.exists()


def test_the_risk_score_story_from_the_shell(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = shared_path("datasets", BREAST[0])
    model_path = tmp_path / "bc.json"
    # 1. learn, and the score card is printed
    status, text, _ = run(
        capsys,
        *("learn", "risk-score", str(data), "--target", BREAST[1], "--conditions", "15"),
        *("-o", str(model_path)),
    )
    rs = read_model(model_path)
    assert status == 0 and isinstance(rs, RiskScore) and rs.describe() in text
    assert len(rs.tested_features()) >= 3  # a card worth explaining
    frame = pd.read_csv(data).drop(columns=BREAST[1])
    rng = np.random.default_rng(15)
    rows = [frame.iloc[int(i)].to_dict() for i in rng.choice(len(frame), 6, replace=False)]
    dg = rs.to_decision_graph()
    for row in rows:
        row = {k: int(v) for k, v in row.items()}
        inst = instance_text(row)
        # 2. explain: enumeration against the library, axp/cxp among the enumerated ones
        status, text, _ = run(capsys, "enum", str(model_path), "--instance", inst, "--json")
        doc = json.loads(text)
        ref = enumerate_explanations(ExplanationGraph.from_decision_graph(dg, row))
        as_names = named_sets([f.name for f in rs.features])

        assert status == 0 and doc["complete"] and ref.complete
        assert as_names(doc["axps"]) == as_names(ref.axps)
        assert as_names(doc["cxps"]) == as_names(ref.cxps)
        status, text, _ = run(capsys, "axp", str(model_path), "--instance", inst, "--json")
        axp = json.loads(text)
        assert status == 0
        axp_set = frozenset(axp["features"])
        assert axp_set in as_names(ref.axps)
        status, text, _ = run(capsys, "cxp", str(model_path), "--instance", inst, "--json")
        cxp = json.loads(text)
        assert status == 0
        assert frozenset(cxp["features"]) in as_names(ref.cxps)
        # 3. robustness: exact, against brute force on the card's grid
        status, text, _ = run(capsys, "robustness", str(model_path), "--instance", inst, "--json")
        rob = json.loads(text)
        assert status == 0
        assert rob["distance"] == brute_force_robustness(rs, row)
        moved = rob["counterexample"]
        assert str(rs.predict(moved)) == rob["counterexample_class"] != str(rs.predict(row))
        # 4. verify with SMT: the AXp holds, a strict subset of it does not
        axp_text = ",".join(sorted(axp_set))
        status, text, _ = run(
            capsys, "verify", str(model_path), "--instance", inst, "--axp", axp_text, "--json"
        )
        assert status == 0 and json.loads(text)["holds"] is True
        smaller = sorted(axp_set)[1:]
        if smaller:
            status, text, _ = run(
                capsys,
                *("verify", str(model_path), "--instance", inst),
                *("--axp", ",".join(smaller), "--json"),
            )
            assert status == 1 and json.loads(text)["holds"] is False
