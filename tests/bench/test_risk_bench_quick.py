"""``xpg bench separation|risk|risk-tradeoff`` end to end on one small dataset, and the
compilation of the baselines' models (GROOT trees, FasterRisk scores) into xpg models, checked
against an independent evaluation of what those libraries compute.  The runs of the real
GROOT and FasterRisk (their own environment) are marked ``peers``."""

from __future__ import annotations

import csv
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import REPO_ROOT, shared_path

sys.path.insert(0, str(REPO_ROOT))  # bench/ is a folder of the checkout, not a package
from bench.cli import run  # noqa: E402
from bench.risk import baselines, table3  # noqa: E402
from xpg.core.features import Feature  # noqa: E402


def rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def test_separation_risk_and_tradeoff_quick(tmp_path: Path) -> None:
    data = str(shared_path("datasets"))
    common = ["--datasets", "heart", "--data-dir", data, "--out", str(tmp_path)]
    assert run("separation", common) == 0
    (row,) = rows(tmp_path / "risk_table2.csv")
    # the paper's Table 2 for heart: 270 rows, 20 features, 13 binary, r-separated, 2r = 0.13
    assert (row["samples"], row["features"], row["binary"], row["sep_r"]) == (
        "270",
        "20",
        "13",
        "1.0",
    )
    assert abs(float(row["two_r"]) - 0.13) < 0.005 and 0.8 < float(row["sep_linear"]) <= 1

    assert run("risk", ["--quick", *common]) == 0
    table = rows(tmp_path / "risk_table3.csv")
    assert {(r["method"], r["split"]) for r in table} == {
        (m, s) for m in ("DT", "BBM-RS") for s in ("0", "1")
    }
    for r in table:
        assert int(r["ic"]) >= 1 and 0.5 < float(r["accuracy"]) <= 1 and 0 < float(r["er"]) <= 1
        # BBM-RS's IC counted as the paper counts it (distinct weak learners) beside the card's
        if r["method"] == "BBM-RS":
            assert int(r["ic_learners"]) >= int(r["ic"])
        else:
            assert r["ic_learners"] == ""
    md = (tmp_path / "risk_table3.md").read_text()
    assert "| heart |" in md and "/ 9.5" in md  # the paper's BBM-RS IC beside ours
    assert "IC BBM-RS, paper's count" in md

    assert run("risk-tradeoff", ["--quick", *common]) == 0
    trade = rows(tmp_path / "risk_tradeoff.csv")
    assert [float(r["tau"]) for r in trade] == [0.0, 0.25]
    assert (tmp_path / "risk_tradeoff.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_bbm_rs_ic_counted_both_ways() -> None:
    """The constant learner ``x >= lowest value`` goes into the card's bias: not a condition
    of the card, but one of the paper's distinct weak learners."""
    X, y = np.array([[1.0], [2.0], [3.0], [4.0]]), np.array([1, 1, 1, 0])
    fitted = baselines.fit_bbm(X, y, [Feature.real("x0", 1.0, 4.0)], grid=[1], seed=0)
    assert (fitted.ic, fitted.learners) == (0, 1)


def test_table3_shows_the_papers_count_of_bbm_rs_ic() -> None:
    rows = [
        {"dataset": "compasbin", "method": "DT", "split": s, "ic": 60, "ic_learners": "",
         "accuracy": 0.66, "er": 0.5} for s in (0, 1)
    ] + [
        {"dataset": "compasbin", "method": "BBM-RS", "split": s, "ic": ic, "ic_learners": ic + 1,
         "accuracy": 0.65, "er": 0.5} for s, ic in ((0, 6), (1, 7))
    ]  # fmt: skip
    summary = table3.summarise(rows)
    bbm = next(r for r in summary if r["method"] == "BBM-RS")
    assert (bbm["ic"], bbm["ic_learners"], bbm["ic_learners_se"]) == (6.5, 7.5, 0.5)
    assert next(r for r in summary if r["method"] == "DT")["ic_learners"] == ""
    md = table3.markdown(summary, "note")
    head, _, line = md.splitlines()[4:7]
    cells = dict(zip(head.split(" | "), line.split(" | "), strict=True))
    assert cells["IC BBM-RS"] == "6.5 ± 0.5 / 7.6"
    assert cells["IC BBM-RS, paper's count"] == "7.5 ± 0.5 / 7.6"


def groot_predict(node: dict[str, Any], x: np.ndarray) -> int:
    """GROOT's own rule: ``x[feature] <= threshold`` goes left."""
    while "class" not in node:
        node = node["left"] if x[node["feature"]] <= node["threshold"] else node["right"]
    return int(node["class"])


def random_groot(rng: np.random.Generator, d: int, depth: int) -> dict[str, Any]:
    if depth == 0 or rng.random() < 0.2:
        return {"class": int(rng.integers(2))}
    # thresholds outside [0, 1] too: splits the compiled tree must drop
    t = float(rng.choice([rng.random(), -0.1, 1.0, 1.2, round(rng.random(), 1)]))
    return {
        "feature": int(rng.integers(d)),
        "threshold": t,
        "left": random_groot(rng, d, depth - 1),
        "right": random_groot(rng, d, depth - 1),
    }


def test_groot_trees_compile_to_what_groot_predicts() -> None:
    rng = np.random.default_rng(5)
    feats = [Feature.real(f"x{j}", 0.0, 1.0) for j in range(3)]
    for _ in range(100):
        doc = random_groot(rng, 3, 5)
        tree = baselines.groot_tree_model(doc, feats)
        X = np.vstack([rng.random((200, 3)), rng.integers(0, 11, (100, 3)) / 10])
        assert tree.predict_batch(X).tolist() == [groot_predict(doc, x) for x in X]


def test_fasterrisk_scores_compile_to_what_fasterrisk_predicts() -> None:
    rng = np.random.default_rng(6)
    feats = [Feature.real(f"x{j}", 0.0, 1.0) for j in range(4)]
    for _ in range(100):
        X = rng.integers(0, 5, (60, 4)) / 4
        columns = baselines.binarize(X, limit=3)
        coef = rng.integers(-5, 6, len(columns)).astype(float)
        coef[rng.random(len(columns)) < 0.5] = 0.0
        intercept = float(rng.choice([rng.integers(-8, 9), rng.integers(-8, 9) + 0.5]))
        rs = baselines.fasterrisk_model(
            {"intercept": intercept, "coefficients": coef.tolist()}, columns, feats
        )
        B = baselines.binary_matrix(X, columns)
        expected = ((intercept + B @ coef) > 0).astype(int)  # RiskScoreClassifier.predict
        assert rs.predict_batch(X).tolist() == expected.tolist()
        assert len(rs.conditions) == int(np.count_nonzero(coef))


def test_binarize_keeps_binary_features_whole_and_bounds_the_cuts() -> None:
    X = np.column_stack([np.array([0.0, 1.0] * 50), np.linspace(0, 1, 100)])
    cols = baselines.binarize(X, limit=5)
    assert cols[0] == (0, 0.5) and len(cols) == 6
    assert all(0 < t < 1 and math.isfinite(t) for _, t in cols)


@pytest.mark.peers
def test_real_groot_and_fasterrisk_agree_with_their_compiled_models() -> None:
    rng = np.random.default_rng(0)
    X = rng.random((240, 4))
    y = (X[:, 0] + 0.5 * X[:, 1] > 0.8).astype(int)
    feats = [Feature.real(f"x{j}", 0.0, 1.0) for j in range(4)]
    tree = baselines.fit_robdt(X[:160], y[:160], feats, [3], 0, X[160:])
    assert tree.agrees is True and tree.ic >= 1
    score = baselines.fit_lcpa(X[:160], y[:160], feats, [3], 0, X[160:])
    assert score.agrees is True and 1 <= score.ic <= 3
