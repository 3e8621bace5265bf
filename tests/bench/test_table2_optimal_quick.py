"""``table2 --quick --learner optimal`` on two small datasets: CART and the optimal tree side by
side, every compiled optimal tree equal to pystreed's predict on every row of its dataset,
and every listed explanation of the optimal trees confirmed by the SMT verifier and by
exhaustive evaluation of the compiled graph."""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import REPO_ROOT, shared_path

from xpg.testing import ClassTable
from xpg.verify.verifier import Verifier

pytest.importorskip("pystreed")

sys.path.insert(0, str(REPO_ROOT))  # bench/ is a folder of the checkout, not a package
from bench import table2  # noqa: E402
from bench.data import instance, load_dataset  # noqa: E402
from bench.models import train_optimal_tree  # noqa: E402
from bench.paper_tables import TABLE2  # noqa: E402
from bench.tables import (  # noqa: E402
    INSTANCE_COLUMNS,
    SUMMARY_COLUMNS,
    ModelMismatchError,
    check_all_rows,
)

NAMES = ["iris", "mouse"]


def _read(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    with path.open(newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        return list(reader.fieldnames or []), list(reader)


@pytest.mark.slow
def test_quick_optimal_table(tmp_path: Path) -> None:
    data = shared_path("datasets")
    argv = ["--quick", "--no-progress", "--datasets", ",".join(NAMES), "--data-dir", str(data)]
    assert table2.main([*argv, "--learner", "optimal", "--out", str(tmp_path)]) == 0
    header, summary = _read(tmp_path / "table2_optimal.csv")
    assert header[0] == "learner" and header[1 : 1 + len(SUMMARY_COLUMNS)] == SUMMARY_COLUMNS
    assert [(r["learner"], r["dataset"]) for r in summary] == [
        (x, n) for x in ("cart", "optimal") for n in NAMES
    ]
    header, instances = _read(tmp_path / "table2_optimal_instances.csv")
    assert header == ["learner", *INSTANCE_COLUMNS]
    md = (tmp_path / "table2_optimal.md").read_text(encoding="utf-8")
    assert "Searches stopped at the time limit: none." in md
    for name in NAMES:
        ds = load_dataset(name, data, seed=0)
        cart, optimal = (
            next(r for r in summary if r["dataset"] == name and r["learner"] == x)
            for x in ("cart", "optimal")
        )
        # every row of the dataset checked, for both learners
        assert int(cart["rows_agreeing"]) == int(optimal["rows_agreeing"]) == len(ds.X)
        assert optimal["optimal"] == "True" and cart["optimal"] == ""
        model = train_optimal_tree(ds, 0)
        assert int(optimal["nodes"]) == len(model.dg) and int(optimal["depth"]) <= 6
        # the Markdown row: "cart / optimal (paper)"
        p = TABLE2[name]
        line = next(x for x in md.splitlines() if x.startswith(f"| {name} | "))
        cells = [c.strip() for c in line.strip("|").split("|")]
        assert cells[4] == f"{cart['nodes']} / {optimal['nodes']} ({p.size})"
        assert cells[6] == "yes"
        mine = [r for r in instances if r["dataset"] == name and r["learner"] == "optimal"]
        assert len(mine) == 10
        assert _check_explanations(ds, model, mine) > 10


def _check_explanations(ds, model, rows: list[dict[str, str]]) -> int:
    """Every listed explanation: sufficient/minimal (SMT, on the original tree) and the
    complete lists (exhaustive evaluation of the compiled graph)."""
    checked = 0
    dg = model.dg
    brute = ClassTable.of_graph(dg)
    with Verifier(model.original.model) as smt:
        for r in rows:
            x = instance(ds, int(r["row"]))
            axps = {frozenset(a) for a in json.loads(r["axps"])}
            cxps = {frozenset(c) for c in json.loads(r["cxps"])}
            for a in axps:
                assert smt.verify_axp(x, sorted(a)).holds, (ds.name, r["row"], sorted(a))
            for c in cxps:
                assert smt.verify_cxp(x, sorted(c)).holds, (ds.name, r["row"], sorted(c))
            point = []
            for i, (f, v) in enumerate(zip(dg.features, x)):
                lits = [lit for _, _, lit in dg.edges if lit.feature == f.name]
                sides = [lit.satisfied_by(v) for lit in lits]
                point.append(
                    next(u for u in brute.axes[i] if [t.satisfied_by(u) for t in lits] == sides)
                )
            truth = brute.oracle(point)
            assert (axps, cxps) == (truth.axps, truth.cxps), r["row"]
            checked += len(axps) + len(cxps)
    return checked


def test_a_wrong_graph_is_caught() -> None:
    """The every-row check fails when the graph does not compute pystreed's predict."""
    ds = load_dataset("mouse", shared_path("datasets"), seed=0)
    model = train_optimal_tree(ds, 0)
    assert check_all_rows(model, ds) == len(ds.X)
    fit = model.original
    wrong = fit.classes[1] if fit.streed_predict(ds.X[:1])[0] == fit.classes[0] else fit.classes[0]
    original = fit.streed_predict

    def flipped(X: np.ndarray) -> np.ndarray:
        out = original(X)
        out[0] = wrong
        return out

    fit.streed_predict = flipped  # type: ignore[method-assign]
    with pytest.raises(ModelMismatchError, match="disagrees with pystreed on 1 of"):
        check_all_rows(model, ds)
