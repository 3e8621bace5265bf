"""``xpg bench batch`` (issue 14's benchmark) end to end on few rows: every route's records
are checked against the loop's by the benchmark itself; here, the table it writes."""

from __future__ import annotations

import csv
import sys
from pathlib import Path

import pytest
from conftest import REPO_ROOT, shared_path

sys.path.insert(0, str(REPO_ROOT))  # bench/ is a folder of the checkout, not a package
from bench.cli import run  # noqa: E402

pytestmark = pytest.mark.slow


def test_batch_bench_quick(tmp_path: Path) -> None:
    argv = ["--quick", "--max-rows", "150", "--heavy-rows", "40", "--csv-rows", "150"]
    argv += ["--repeat", "1", "--data-dir", str(shared_path("datasets")), "--out", str(tmp_path)]
    assert run("batch", argv) == 0
    with (tmp_path / "batch_speed.csv").open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    routes = {(r["case"].split(" ")[0], r["route"]) for r in rows}
    for case in ("adult", "shuttle", "pendigits"):
        for route in ("loop", "in-process chunks", "processes 1", "processes 2", "dask 2"):
            assert (case, route) in routes
    assert ("CSV", "xpg explain --workers 1 (run)") in routes
    for r in rows:
        assert float(r["rows_per_s"]) > 0 and float(r["seconds"]) > 0
        if r["route"] == "loop":
            assert float(r["vs_loop"]) == 1.0 and float(r["overhead_us"]) == 0.0
    md = (tmp_path / "batch_speed.md").read_text()
    assert "target 1" in md and "target 2" in md and "target 3" in md
