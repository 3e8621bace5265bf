"""``xpg bench membership --quick`` (issue 4's speed benchmark) end to end.

The benchmark itself fails when membership, feature classification and complete
enumeration disagree, or when the two smallest-AXp methods find different sizes; this test
checks the CSV it writes: the route is ``tree-polynomial`` (no SAT call) on the tree
families and ``sat`` (one call per feature) on the OBDDs, and the ratio column is what it
claims to be.
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

import pytest
from conftest import REPO_ROOT, shared_path

sys.path.insert(0, str(REPO_ROOT))  # bench/ is a folder of the checkout, not a package
from bench.cli import run  # noqa: E402


@pytest.mark.slow
def test_membership_quick(tmp_path: Path) -> None:
    argv = ["--quick", "--data-dir", str(shared_path("datasets")), "--out", str(tmp_path)]
    assert run("membership", argv) == 0
    with (tmp_path / "membership_speed.csv").open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    families = {r["family"] for r in rows}
    assert families == {"tree-data", "tree-random", "obdd"}
    assert {int(r["size"]) for r in rows if r["family"] != "obdd"} == {6, 8}  # tree depths
    assert {int(r["size"]) for r in rows if r["family"] == "obdd"} == {50, 100}  # features
    for r in rows:
        tree = r["family"] != "obdd"
        assert r["route"] == ("tree-polynomial" if tree else "sat"), r
        assert int(r["sat_calls"]) == (0 if tree else int(r["features"])), r
        assert r["smallest_method"] == ("tree-cxps" if tree else "implicit-hitting-set")
        assert 0 <= int(r["members"]) <= int(r["features"])
        assert float(r["ratio"]) == pytest.approx(float(r["enum_s"]) / float(r["member_s"]))
        assert int(r["smallest_size"]) >= 1 and int(r["smallest_iterations"]) >= 1
        if r["enum_complete"] == "True" and int(r["members"]) > 0:
            assert int(r["axps"]) >= 1 and int(r["cxps"]) >= 1
    pytest.importorskip("matplotlib")
    assert (tmp_path / "membership_speed.png").stat().st_size > 0
