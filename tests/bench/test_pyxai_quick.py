"""``bench.pyxai_compare`` against the real PyXAI, on a few instances (marked ``peers``).

``pytest -m peers`` runs it, creating PyXAI's environment (``bench/.venvs/pyxai``, from PyPI,
about 1.8 GB) when it is missing. The offline run of the same bench, with a fake PyXAI, is in
``test_fair_timing.py``.
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

import pytest
from conftest import REPO_ROOT, shared_path

sys.path.insert(0, str(REPO_ROOT))  # bench/ is a folder of the checkout, not a package
from bench import pyxai_compare  # noqa: E402


@pytest.mark.peers
def test_pyxai_quick(tmp_path: Path) -> None:
    argv = ["--no-progress", "--datasets", "iris,collins", "--max-instances", "3"]
    argv += ["--runs", "2", "--verify", "10", "--data-dir", str(shared_path("datasets"))]
    assert pyxai_compare.main([*argv, "--out", str(tmp_path)]) == 0
    with (tmp_path / "pyxai.csv").open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["dataset"] for r in rows] == ["iris", "collins"]
    for r in rows:
        assert r["runs"] == "2" and r["instances"] == "3"
        for stem in ("one_axp", "all_axps", "all_cxps"):
            assert 0 < float(r[f"{stem}_speedup_min"]) <= float(r[f"{stem}_speedup_median"])
        # every exact explanation is found by PyXAI here, and nothing it gives is invalid
        assert r["axp_missed"] == r["cxp_missed"] == r["axp_invalid"] == r["cxp_invalid"] == "0"
        assert int(r["axp_exact"]) == int(r["xpg_axps"]) > 0
        # non-minimal PyXAI sets fail the verifier's minimality check
        assert 0 < int(r["verified_ok"]) <= int(r["verified"]) <= 10
    with (tmp_path / "pyxai_instances.csv").open(newline="", encoding="utf-8") as fh:
        assert len(list(csv.DictReader(fh))) == 2 * 2 * 3
