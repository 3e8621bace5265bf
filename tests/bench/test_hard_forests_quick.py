"""``xpg bench hard-forests --quick`` (issue 32): one line per row, AXps checked, and a summary
that is the rows' distribution."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

from bench import hard_forests
from bench.cli import BENCHMARKS


def test_quick_run_writes_rows_and_their_distribution(tmp_path: Path) -> None:
    assert BENCHMARKS["hard-forests"] == "bench.hard_forests"
    assert hard_forests.main(["--quick", "--out", str(tmp_path)]) == 0
    with open(tmp_path / "hard_forests.csv", newline="") as f:
        lines = list(csv.DictReader(f))
    assert [int(line["row"]) for line in lines] == list(range(3))
    assert all(line["checked"] == "True" and line["timed_out"] == "False" for line in lines)
    seconds = [float(line["cpu_s"]) for line in lines]
    table = (tmp_path / "hard_forests.md").read_text()
    row = next(r for r in table.splitlines() if r.startswith("| wine | 4 |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert int(cells[2]) == 3
    assert float(cells[3]) == pytest.approx(float(np.median(seconds)), abs=1e-3)
    assert float(cells[6]) == pytest.approx(max(seconds), abs=1e-3)


def test_a_wrong_axp_is_caught() -> None:
    """The check is not vacuous: a set that is not sufficient, and one that is not minimal,
    are refused."""
    _, model, X = hard_forests.forest("wine", 3)
    instance = X.iloc[0].to_dict()
    import xpg

    axp = xpg.Explainer(model).explain(instance).axp()
    assert hard_forests.checked(model, instance, axp)
    assert not hard_forests.checked(model, instance, axp[1:])  # not sufficient
    extra = next(f for f in X.columns if f not in axp)
    assert not hard_forests.checked(model, instance, (*axp, extra))  # not minimal


def test_start_and_rows_choose_a_range(tmp_path: Path) -> None:
    """``--start 170 --rows 5`` on wine's 178 rows: rows 170 to 174; without ``--rows``, to
    the last (177), the first ``--check`` of them checked."""
    argv = ["--datasets", "wine", "--depths", "3", "--out", str(tmp_path)]
    for extra, expected in (
        (["--start", "170", "--rows", "5", "--check", "0"], list(range(170, 175))),
        (["--start", "175", "--check", "1"], [175, 176, 177]),
    ):
        assert hard_forests.main([*argv, *extra]) == 0
        with open(tmp_path / "hard_forests.csv", newline="") as f:
            lines = list(csv.DictReader(f))
        assert [int(line["row"]) for line in lines] == expected
        assert [line["checked"] for line in lines].count("True") == int(extra[-1])
