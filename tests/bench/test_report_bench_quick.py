"""``xpg bench report --quick`` (issue 33): both readers timed, the page's size and its
opening time in headless Chromium measured, the table written."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from bench import report_speed
from bench.cli import BENCHMARKS


@pytest.mark.slow
def test_quick_run_measures_both_readers_and_the_page(tmp_path: Path) -> None:
    assert BENCHMARKS["report"] == "bench.report_speed"
    assert report_speed.main(["--quick", "--out", str(tmp_path)]) == 0
    with open(tmp_path / "report_speed.csv", newline="") as f:
        lines = list(csv.DictReader(f))
    assert [line["reader"] for line in lines] == ["orjson", "json"]
    for line in lines:
        assert int(line["rows"]) == 2000 and 0 < int(line["shown"]) <= 2000
        assert 0 < float(line["megabytes"]) <= 5.0
        assert float(line["seconds"]) > 0 and float(line["open_s"]) > 0


def test_the_probe_is_read_or_refused() -> None:
    assert report_speed.probe_times("<html><title>load 10 frame 12</title>") == (10.0, 12.0)
    with pytest.raises(RuntimeError, match="the probe wrote no times"):
        report_speed.probe_times("<html><title>xpg report</title>")
