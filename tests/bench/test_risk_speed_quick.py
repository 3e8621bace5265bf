"""``xpg bench risk-speed --quick`` end to end: BBM-RS on adult and breastcancer, and the
compiled sizes of random and threshold risk scores within the O(levels x range) bound."""

from __future__ import annotations

import csv
import sys
from pathlib import Path

import pytest
from conftest import REPO_ROOT, shared_path

sys.path.insert(0, str(REPO_ROOT))  # bench/ is a folder of the checkout, not a package
from bench.cli import run  # noqa: E402


@pytest.mark.slow
def test_risk_speed_quick(tmp_path: Path) -> None:
    argv = ["--quick", "--repeat", "1", "--data-dir", str(shared_path("datasets"))]
    assert run("risk-speed", [*argv, "--out", str(tmp_path)]) == 0
    with (tmp_path / "risk_speed.csv").open(newline="", encoding="utf-8") as fh:
        learned = list(csv.DictReader(fh))
    assert {(r["dataset"], r["T"]) for r in learned} == {
        (d, t) for d in ("adult", "breastcancer") for t in ("15", "30")
    }
    for r in learned:
        assert 1 <= int(r["rounds"]) <= int(r["T"]) and r["stopped"] in ("T", "decided", "weak")
        assert 0 <= int(r["ic"]) <= int(r["rounds"]) and float(r["train_accuracy"]) > 0.75
    with (tmp_path / "risk_compile.csv").open(newline="", encoding="utf-8") as fh:
        compiled = list(csv.DictReader(fh))
    assert {r["kind"] for r in compiled} == {"random", "threshold"}
    assert all(1 <= int(r["nodes"]) <= int(r["bound"]) for r in compiled)
    assert (tmp_path / "risk_speed.md").read_text().startswith("## BBM-RS")
