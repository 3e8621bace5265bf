"""``bench.table1 --learner cn2``: RIPPER's and CN2's rows side by side, each beside the paper's
figures.  The layout is checked offline; the run itself needs Orange3's environment
(``pytest -m peers``; skipped with the reason when it cannot be created)."""

from __future__ import annotations

import csv
import sys
from pathlib import Path

import pytest
from conftest import REPO_ROOT, shared_path

from xpg.errors import ExternalEnvError
from xpg.learn.cn2 import ORANGE_ENV
from xpg.learn.external_env import ensure

sys.path.insert(0, str(REPO_ROOT))  # bench/ is a folder of the checkout, not a package
from bench import table1  # noqa: E402
from bench.paper_tables import TABLE1  # noqa: E402
from bench.tables import INSTANCE_COLUMNS, SUMMARY_COLUMNS, markdown_table  # noqa: E402


def summary(name: str, nodes: int) -> dict[str, object]:
    row: dict[str, object] = {c: 1 for c in SUMMARY_COLUMNS}
    row.update(dataset=name, depth="", nodes=nodes)
    return row


def test_the_table_has_a_learner_column_only_with_several_learners() -> None:
    rows = [
        {"learner": "ripper", **summary("corral", 6)},
        {"learner": "cn2", **summary("corral", 7)},
    ]
    md = markdown_table(rows, TABLE1, "T").splitlines()
    assert md[2].startswith("| Dataset | Learner | #F | #TI | #N | %A |")
    assert md[4].startswith("| corral | ripper | 1 (6) | 1 (64) | 6 (6) |")
    assert md[5].startswith("| corral | cn2 | 1 (6) | 1 (64) | 7 (6) |")
    single = markdown_table([summary("corral", 6)], TABLE1, "T").splitlines()
    assert single[2].startswith("| Dataset | #F | #TI | #N |")


@pytest.mark.peers
def test_quick_run_with_cn2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    try:
        ensure(ORANGE_ENV)
    except ExternalEnvError as err:
        pytest.skip(f"Orange3's environment is not available: {err}")
    argv = ["--learner", "cn2", "--quick", "--no-progress", "--datasets", "corral,mux6"]
    argv += ["--data-dir", str(shared_path("datasets")), "--out", str(tmp_path)]
    assert table1.main(argv) == 0
    err = capsys.readouterr().err
    assert "corral: the compiled CN2 OBDD (" in err and "predicts Orange's class on all" in err
    with (tmp_path / "table1_cn2.csv").open(newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        assert reader.fieldnames == ["learner", *SUMMARY_COLUMNS]
        rows = list(reader)
    assert [(r["dataset"], r["learner"]) for r in rows] == [
        ("corral", "ripper"),
        ("corral", "cn2"),
        ("mux6", "ripper"),
        ("mux6", "cn2"),
    ]
    with (tmp_path / "table1_cn2_instances.csv").open(newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        assert reader.fieldnames == ["learner", *INSTANCE_COLUMNS]
        assert len(list(reader)) == 40
    md = (tmp_path / "table1_cn2.md").read_text(encoding="utf-8")
    assert "| corral | cn2 | 6 (6) |" in md and "| mux6 | ripper |" in md
    assert "predicts Orange's own class on every row" in md
