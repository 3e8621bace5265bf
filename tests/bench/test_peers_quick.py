"""``bench.peers_compare --quick`` on two small datasets (one OBDD, one tree).

By default xpg's side runs alone (``--ours-only``: no network).  The comparison with the
reference implementation is marked ``peers``: ``pytest -m peers`` runs it, creating the reference
implementation's environment (``bench/.venvs/xpgraph``, from PyPI, about 20 s) when it is
missing, and requires identical explanation sets.
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

import pytest
from conftest import REPO_ROOT, shared_path

from xpg import enumerate_explanations, read_xpg

sys.path.insert(0, str(REPO_ROOT))  # bench/ is a folder of the checkout, not a package
from bench import peers_compare  # noqa: E402


@pytest.mark.parametrize(
    "with_reference", [False, pytest.param(True, marks=pytest.mark.peers)], ids=["ours", "peers"]
)
def test_peers_quick(tmp_path: Path, with_reference: bool) -> None:
    argv = ["--quick", "--no-progress", "--datasets", "corral,iris", "--out", str(tmp_path)]
    argv += ["--data-dir", str(shared_path("datasets")), "--timeout", "30"]
    if not with_reference:
        argv.append("--ours-only")
    assert peers_compare.main(argv) == 0
    with (tmp_path / "peers.csv").open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["dataset"] for r in rows] == ["corral"] * 5 + ["iris"] * 5
    assert {r["table"] for r in rows} == {"1", "2"}
    for r in rows:
        assert float(r["ours_s"]) > 0 and int(r["n_axps"]) >= 1
        if with_reference:
            assert r["ref_status"] == "ok" and r["identical"] == "True", r
            assert float(r["ratio"]) > 0
        else:
            assert r["ref_status"] == "skipped" and r["identical"] == ""
    with (tmp_path / "peers_summary.csv").open(newline="", encoding="utf-8") as fh:
        summary = list(csv.DictReader(fh))
    assert [s["dataset"] for s in summary] == ["corral", "iris"]
    assert all(s["mismatches"] == "0" for s in summary)
    md = (tmp_path / "peers.md").read_text(encoding="utf-8")
    assert "| 1 | corral | 5 |" in md and "| 2 | iris | 5 |" in md


def test_peers_ours_only(tmp_path: Path) -> None:
    argv = ["--quick", "--no-progress", "--ours-only", "--datasets", "mux6", "--max-instances"]
    argv += ["3", "--data-dir", str(shared_path("datasets")), "--out", str(tmp_path)]
    assert peers_compare.main(argv) == 0
    md = (tmp_path / "peers.md").read_text(encoding="utf-8")
    assert "Reference skipped (--ours-only)" in md and "| 1 | mux6 | 3 |" in md


def test_a_difference_is_reported_with_its_graph(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reference that loses one AXp on every graph: exit status 1, every graph marked,
    counted in the summary and copied to ``peers_mismatches/`` (as a readable ``.xpg``)."""

    def lossy_reference(files, timeout, modes):
        out = {}
        for f in files:
            result = enumerate_explanations(read_xpg(f))
            axps = [list(a) for a in result.axps][1:]  # one AXp missing
            res = {"status": "ok", "seconds": 1.0, "axps": axps}
            out[str(f)] = {m: {**res, "cxps": [list(c) for c in result.cxps]} for m in modes}
        return out

    monkeypatch.setattr(peers_compare, "is_ready", lambda peer: True)
    monkeypatch.setattr(peers_compare, "reference_results", lossy_reference)
    argv = ["--no-progress", "--datasets", "mux6", "--max-instances", "3"]
    argv += ["--data-dir", str(shared_path("datasets")), "--out", str(tmp_path)]
    assert peers_compare.main(argv) == 1
    with (tmp_path / "peers.csv").open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 3 and all(r["identical"] == "False" for r in rows)
    assert all(r["ref_status"] == "ok" and float(r["ratio"]) > 0 for r in rows)
    with (tmp_path / "peers_summary.csv").open(newline="", encoding="utf-8") as fh:
        assert [s["mismatches"] for s in csv.DictReader(fh)] == ["3"]
    copied = sorted((tmp_path / "peers_mismatches").glob("*.xpg"))
    assert [p.name for p in copied] == sorted(f"mux6_{r['row']}.xpg" for r in rows)
    assert all(enumerate_explanations(read_xpg(p)).axps for p in copied)
    md = (tmp_path / "peers.md").read_text(encoding="utf-8")
    assert "Identical explanation sets: 0 of 3 compared graphs." in md
