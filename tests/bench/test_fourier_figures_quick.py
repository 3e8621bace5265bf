"""``xpg bench fourier-{truthful-gap,local,anchors,penalty,lowdegree} --quick`` end to end: each
writes its CSV and plot, and the rows hold what the experiment promises."""

from __future__ import annotations

import csv
import sys
from pathlib import Path

import pytest
from conftest import REPO_ROOT, shared_path

sys.path.insert(0, str(REPO_ROOT))  # bench/ is a folder of the checkout, not a package
from bench.cli import BENCHMARKS, run  # noqa: E402

NAMES = ["fourier-local", "fourier-anchors", "fourier-penalty", "fourier-lowdegree"]


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


@pytest.mark.slow
def test_fourier_paper_figures_quick(tmp_path: Path) -> None:
    argv = ["--quick", "--data-dir", str(shared_path("datasets")), "--out", str(tmp_path)]
    for name in [*NAMES, "fourier-truthful-gap"]:
        assert name in BENCHMARKS
        assert run(name, argv) == 0, name
        assert (tmp_path / f"{name}.png").stat().st_size > 1000
    for name in NAMES:
        rows = _rows(tmp_path / f"{name}.csv")
        assert {r["radius"] for r in rows} == {"1", "2", "4", "8", "full"}
        for r in rows:  # MSE = RMS^2 >= L1^2 (Jensen)
            rms, mse, l1 = float(r["rms"]), float(r["mse"]), float(r["l1"])
            assert abs(rms**2 - mse) <= 1e-5 * max(1.0, mse) and rms >= l1 - 1e-6
    anchors = _rows(tmp_path / "fourier-anchors.csv")
    queries = {r["method"]: int(r["n_queries"]) for r in anchors}
    assert queries["anchor K=2"] == 300 + 150 and queries["anchor K=16"] == 300 + 18
    low = {r["method"] for r in _rows(tmp_path / "fourier-lowdegree.csv")}
    assert {"Low-degree-2 (1x)", "Low-degree-3 (5x)", "Harmonica-3 (1x)"} <= low
    gaps = _rows(tmp_path / "fourier-truthful-gap.csv")
    assert {r["C"] for r in gaps} == {"1", "2", "3"}
    assert {r["method"] for r in gaps} >= {"Harmonica-3", "LIME (paper)", "Faith-SHAP"}


def test_fourier_bench_refuses_bad_options(tmp_path: Path) -> None:
    assert run("fourier-local", ["--instances", "0", "--out", str(tmp_path)]) == 2
