"""The ``--quick`` modes of Tables 1 and 2 on two small datasets each: shape, consistency, and
every listed explanation checked twice, by the SMT verifier on the original model and by
exhaustive evaluation of the compiled graph (which also shows the lists are complete)."""

from __future__ import annotations

import csv
import json
import statistics
import sys
from pathlib import Path

import pytest
from conftest import REPO_ROOT, shared_path

from xpg.core.graph import DecisionGraph
from xpg.testing import ClassTable
from xpg.verify.verifier import Verifier

sys.path.insert(0, str(REPO_ROOT))  # bench/ is a folder of the checkout, not a package
from bench import table1, table2  # noqa: E402
from bench.data import instance, load_dataset  # noqa: E402
from bench.models import train_obdd, train_tree  # noqa: E402
from bench.paper_tables import TABLE1, TABLE2  # noqa: E402
from bench.tables import INSTANCE_COLUMNS, SUMMARY_COLUMNS  # noqa: E402

CASES = {
    "table1": (table1.main, ["corral", "mux6"], train_obdd, TABLE1),
    "table2": (table2.main, ["iris", "mouse"], train_tree, TABLE2),
}


def _read(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    with path.open(newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        return list(reader.fieldnames or []), list(reader)


@pytest.mark.parametrize("table", sorted(CASES))
def test_quick_run_is_consistent_and_verified(table: str, tmp_path: Path) -> None:
    main, names, train, paper = CASES[table]
    data = shared_path("datasets")
    assert (
        main(
            [
                "--quick",
                "--no-progress",
                "--datasets",
                ",".join(names),
                "--data-dir",
                str(data),
                "--out",
                str(tmp_path),
            ]
        )
        == 0
    )
    header, summary = _read(tmp_path / f"{table}.csv")
    assert header == SUMMARY_COLUMNS and [r["dataset"] for r in summary] == names
    header, instances = _read(tmp_path / f"{table}_instances.csv")
    assert header == INSTANCE_COLUMNS
    md = (tmp_path / f"{table}.md").read_text(encoding="utf-8")
    for row in summary:
        name = row["dataset"]
        mine = [r for r in instances if r["dataset"] == name]
        assert int(row["n_tested"]) == len(mine) == 10
        n_axp = [len(json.loads(r["axps"])) for r in mine]
        n_cxp = [len(json.loads(r["cxps"])) for r in mine]
        assert n_axp == [int(r["n_axps"]) for r in mine]
        assert n_cxp == [int(r["n_cxps"]) for r in mine]
        assert int(row["axp_max"]) == max(n_axp) and int(row["axp_min"]) == min(n_axp)
        assert int(row["cxp_max"]) == max(n_cxp) and int(row["cxp_min"]) == min(n_cxp)
        assert float(row["axp_avg"]) == pytest.approx(statistics.mean(n_axp), abs=0.01)
        assert float(row["xps_avg"]) == pytest.approx(
            statistics.mean(a + c for a, c in zip(n_axp, n_cxp)), abs=0.01
        )
        assert float(row["cxp_avg"]) == pytest.approx(statistics.mean(n_cxp), abs=0.01)
        ds = load_dataset(name, data, seed=0)
        n_features = len(ds.features)
        assert int(row["n_features"]) == n_features
        for kind in ("axp", "cxp"):  # %L: mean length over every listed explanation
            lengths = [len(x) for r in mine for x in json.loads(r[f"{kind}s"])]
            expected = 100 * statistics.mean(lengths) / n_features
            assert float(row[f"{kind}_len_pct"]) == pytest.approx(expected, abs=0.06), kind
        secs = [float(r["seconds"]) for r in mine]
        assert float(row["runtime_total"]) == pytest.approx(sum(secs), abs=1e-3)
        assert float(row["runtime_max"]) == pytest.approx(max(secs), abs=1e-5)
        assert float(row["runtime_min"]) == pytest.approx(min(secs), abs=1e-5)
        assert float(row["runtime_avg"]) == pytest.approx(statistics.mean(secs), abs=1e-5)
        assert row["complete"] == "True" and all(r["complete"] == "True" for r in mine)
        model = train(ds, 0)
        assert int(row["nodes"]) == len(model.dg)
        assert row["depth"] == ("" if model.depth is None else str(model.depth))
        if table == "table2":
            assert 1 <= int(row["depth"]) <= 6  # depth-6 trees
        # the Markdown row: every cell "ours (paper)", with the paper's published figures
        p = paper[name]
        md_row = next(line for line in md.splitlines() if line.startswith(f"| {name} | "))
        cells = [c.strip() for c in md_row.strip("|").split("|")]
        assert cells[1] == f"{n_features} ({p.n_features})"
        assert cells[2] == f"10 ({p.n_tested})"
        assert cells[-4] == f"{float(row['runtime_total']):.3f} ({p.runtime_total:.3f})"
        assert all(c.endswith(")") for c in cells[1:]), md_row
        assert _check_explanations(ds, model, mine) == sum(n_axp) + sum(n_cxp) > 10


def _check_explanations(ds, model, rows: list[dict[str, str]]) -> int:
    """Check every listed explanation; the number checked."""
    checked = 0
    name = ds.name
    brute = ClassTable.of_graph(model.dg)
    with Verifier(model.original, None if model.kind == "obdd" else ds.features) as smt:
        for r in rows:
            x = instance(ds, int(r["row"]))
            axps = {frozenset(a) for a in json.loads(r["axps"])}
            cxps = {frozenset(c) for c in json.loads(r["cxps"])}
            assert len(axps) == int(r["n_axps"]) and len(cxps) == int(r["n_cxps"])
            for a in axps:
                assert smt.verify_axp(x, sorted(a)).holds, (name, r["row"], sorted(a))
            for c in cxps:
                assert smt.verify_cxp(x, sorted(c)).holds, (name, r["row"], sorted(c))
            checked += len(axps) + len(cxps)
            truth = brute.oracle(_representative(model.dg, brute, x))
            assert (axps, cxps) == (truth.axps, truth.cxps), r["row"]
    return checked


def _representative(dg: DecisionGraph, brute: ClassTable, x: list) -> list:
    """The representative point of the cell of ``x`` (same side of every edge literal)."""
    out = []
    for i, (f, v) in enumerate(zip(dg.features, x)):
        lits = [lit for _, _, lit in dg.edges if lit.feature == f.name]
        sides = [lit.satisfied_by(v) for lit in lits]
        out.append(next(r for r in brute.axes[i] if [t.satisfied_by(r) for t in lits] == sides))
    return out


def test_progress_bar_on_standard_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("tqdm")  # the bench extra; without it one line per dataset instead
    argv = ["--datasets", "mouse", "--max-instances", "3", "--out", str(tmp_path)]
    assert table2.main([*argv, "--data-dir", str(shared_path("datasets"))]) == 0
    err = capsys.readouterr().err
    assert "mouse:   0%|" in err and "/3 [" in err and "inst/s" in err  # tqdm, on stderr
    assert "mouse: 3 instances" in err
    assert table2.main([*argv, "--no-progress", "--data-dir", str(shared_path("datasets"))]) == 0
    assert "inst/s" not in capsys.readouterr().err
