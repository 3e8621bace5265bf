"""The probabilistic benchmarks run through ``xpg bench`` (imported as bench.probabilistic.*)."""

from __future__ import annotations

import csv
import importlib
from pathlib import Path

import pytest
from conftest import REPO_ROOT


@pytest.fixture
def bench_cli(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    monkeypatch.syspath_prepend(str(REPO_ROOT))
    return importlib.import_module("bench.cli")


def test_parity_benchmark_through_the_cli(bench_cli, tmp_path: Path) -> None:
    argv = ["--repetitions", "1", "--methods", "certificate", "--out", str(tmp_path)]
    assert bench_cli.run("probabilistic-parity", argv) == 0
    with open(tmp_path / "parity_summary.csv") as handle:
        rows = list(csv.DictReader(handle))
    assert [r["method"] for r in rows] == ["certificate"]
