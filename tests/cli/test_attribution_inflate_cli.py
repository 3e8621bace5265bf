"""Attribution and inflated explanations in batch records and on the command line (issue 33,
items 1 and 2): ``xpg explain --kinds attribution,inflated`` in process, with ``--workers 2``
and to Parquet, ``explain_many(..., kinds=...)``, ``xpg axp --inflate``; every record checked
against the library's one-instance functions, and the shares against those of the AXps
that brute force over the model's grid finds."""

from __future__ import annotations

import csv
import json
import random
from pathlib import Path
from typing import Any

import pytest

import xpg
from xpg.cli.main import main
from xpg.explain.attribution import shares_of
from xpg.explain.batch import BatchExplainer, _inflated
from xpg.models.ensemble_import import ensemble_from_sklearn
from xpg.testing import ClassTable, grid_from_literals, random_decision_list, random_features
from xpg.testing.ensembles import random_small_ensemble


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A decision list over mixed features (compiled: the graph route) and a forest (its
    oracle: sat-pb), each saved as a model file, with a CSV of grid rows."""
    tmp = tmp_path_factory.mktemp("attr")
    rng = random.Random(33)
    feats = random_features(rng, 4, kinds=["boolean", "categorical", "integer", "real"])
    dl = random_decision_list(rng, feats, 3, 6)
    xpg.save_model(dl, tmp / "list.json")
    dg = dl.to_decision_graph()
    grid = grid_from_literals(dl.features, [lit for _, _, lit in dg.edges])
    names = [f.name for f in dl.features]
    table = ClassTable(names, [grid[n] for n in names], dl.predict)
    points = rng.sample(table.points(), min(40, len(table.points())))
    _write_csv(tmp / "list.csv", names, points)
    est, efeats, X = random_small_ensemble(7, "forest", n_features=4)
    forest = ensemble_from_sklearn(est, efeats)
    xpg.save_model(forest, tmp / "forest.json")
    rows = [[f.check_value(v) for f, v in zip(efeats, r.tolist(), strict=True)] for r in X[:25]]
    _write_csv(tmp / "forest.csv", [f.name for f in efeats], rows)
    return {"tmp": tmp, "list": dl, "table": table, "points": points, "names": names,
            "forest": forest, "forest_rows": rows}  # fmt: skip


def _write_csv(path: Path, names: list[str], rows: list[list[Any]]) -> None:
    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(names)
        w.writerows(rows)


def _run(capsys: pytest.CaptureFixture[str], *argv: Any) -> tuple[int, str, str]:
    status = main([*map(str, argv)])
    out, err = capsys.readouterr()
    return status, out, err


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _strip(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in r.items() if k not in ("seconds", "model")} for r in records]


def _check_record(model: Any, record: dict[str, Any], instance: dict[str, Any]) -> None:
    """The record's fields are the library's answers for its row."""
    explainer = xpg.Explainer(model)
    ffa = xpg.feature_attribution(explainer, instance)
    assert record["attribution"] == pytest.approx(ffa.shares)
    assert list(record["attribution"]) == [f.name for f in model.features]
    assert record["attribution_complete"] is True and record["complete"] is True
    assert len(record["axps"]) == ffa.axps
    assert len(record["inflated"]) == len(record["axps"])
    for axp, inflated in zip(record["axps"], record["inflated"], strict=True):
        assert inflated == xpg.inflate(explainer, instance, axp).as_dict()["inflated"]
        assert [f["feature"] for f in inflated] == axp


@pytest.mark.parametrize("which", ["list", "forest"])
def test_records_in_process_with_workers_and_in_parquet(
    files: dict[str, Any], which: str, capsys: pytest.CaptureFixture[str]
) -> None:
    import pandas as pd

    tmp = files["tmp"]
    args = ["explain", tmp / f"{which}.json", "--data", tmp / f"{which}.csv"]
    args += ["--kinds", "attribution,inflated", "--limit", "0", "--timeout", "0"]
    one, two, parquet = (tmp / f"{which}-{k}" for k in ("1.jsonl", "2.jsonl", "p.parquet"))
    assert _run(capsys, *args, "-o", one)[0] == 0
    assert _run(capsys, *args, "-o", two, "--workers", "2")[0] == 0
    assert _run(capsys, *args, "-o", parquet)[0] == 0
    records = _records(one)
    assert _strip(_records(two)) == _strip(records)
    model = files[which]
    rows = files["points"] if which == "list" else files["forest_rows"]
    assert len(records) == len(rows)
    for record, row in zip(records, rows, strict=True):
        _check_record(model, record, dict(zip([f.name for f in model.features], row, strict=True)))
    frame = pd.read_parquet(parquet)
    assert list(frame.columns) == [
        "row", "prediction", "axps", "complete", "attribution", "attribution_complete",
        "inflated", "seconds", "error",
    ]  # fmt: skip
    for record, back in zip(records, frame.to_dict("records"), strict=True):
        assert json.loads(back["attribution"]) == record["attribution"]
        assert json.loads(back["inflated"]) == record["inflated"]
        assert back["attribution_complete"] == record["attribution_complete"]
        assert [list(a) for a in back["axps"]] == record["axps"]


def test_attribution_records_match_brute_force(files: dict[str, Any]) -> None:
    """``explain_many(..., kinds=("attribution",))``: the shares of the AXps the grid's brute
    force finds, every feature present; the kind alone lists no explanation."""
    table, names = files["table"], files["names"]
    rows = [dict(zip(names, p, strict=True)) for p in files["points"]]
    records = list(xpg.explain_many(files["list"], rows, kinds=("attribution",), limit=None))
    for record, x in zip(records, rows, strict=True):
        expected = shares_of(names, [sorted(a) for a in table.oracle(x).axps])
        assert record["attribution"] == pytest.approx(expected)
        assert record["attribution_complete"] is True
        assert "axps" not in record and "cxps" not in record


def test_a_tight_limit_leaves_the_attribution_incomplete(files: dict[str, Any]) -> None:
    rows = [dict(zip(files["names"], p, strict=True)) for p in files["points"]]
    records = list(xpg.explain_many(files["list"], rows, kinds="attribution", limit=1))
    assert any(not r["attribution_complete"] for r in records)
    assert all(r["attribution_complete"] == r["complete"] for r in records)


def test_an_inflation_budget_spent_gives_nulls_and_an_incomplete_row(files: dict[str, Any]) -> None:
    x = dict(zip([f.name for f in files["forest"].features], files["forest_rows"][0], strict=True))
    with xpg.Explainer(files["forest"]).explain(x) as decision:
        axps = [sorted(a) for a in decision.enumerate().axps]
        assert _inflated(decision, axps, 0.0) == ([None] * len(axps), False)
        full, whole = _inflated(decision, axps, None)
    assert whole and all(isinstance(f, list) for f in full)


def test_the_help_lists_the_kinds_and_bad_kinds_exit_2(
    files: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = _run(capsys, "explain", "--help")
    out = " ".join(out.split())
    assert status == 0
    assert "attribution (each feature's share" in out and "inflated (each AXp's" in out
    tmp = files["tmp"]
    status, out, err = _run(
        capsys, "explain", tmp / "list.json", "--data", tmp / "list.csv", "--kinds", "attrib"
    )
    assert status == 2 and out == "" and err.count("\n") == 1
    assert "unknown kind 'attrib'" in err and "attribution, inflated" in err


def test_inflated_is_refused_up_front_on_a_route_without_cells() -> None:
    class OwnOracleExplainer:  # an explainer whose route cannot ask about sets of values
        features = [xpg.Feature.boolean("a")]
        route = "oracle"

        def explain(self, instance: Any) -> Any:
            raise AssertionError("no row should be explained")

        def supports(self, query: str) -> bool:
            return query != "robustness"

    with pytest.raises(xpg.InvalidQueryError, match="kind 'inflated': not defined on the oracle"):
        BatchExplainer(OwnOracleExplainer(), kinds="inflated")
    BatchExplainer(OwnOracleExplainer(), kinds="attribution")  # attribution needs no cells


def test_axp_inflate_prints_the_conditions(
    files: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    tmp = files["tmp"]
    model = files["forest"]
    names = [f.name for f in model.features]
    for k in range(5):
        x = dict(zip(names, files["forest_rows"][k], strict=True))
        base = ["axp", tmp / "forest.json", "--data", tmp / "forest.csv", "--row", k]
        status, out, _ = _run(capsys, *base, "--inflate")
        assert status == 0
        lines = out.splitlines()
        axp_line = next(n for n, line in enumerate(lines) if line.startswith("AXp "))
        status, js, _ = _run(capsys, *base, "--inflate", "--json")
        doc = json.loads(js)
        expected = xpg.inflate(xpg.Explainer(model), x, doc["features"])
        assert lines[axp_line + 1 :] == [f"inflated: {c}" for c in expected.conditions()]
        assert doc["inflated"] == expected.as_dict()["inflated"]
        assert [f["feature"] for f in doc["inflated"]] == doc["features"]
    status, plain, _ = _run(capsys, "axp", tmp / "forest.json", "--data", tmp / "forest.csv",
                            "--row", 0)  # fmt: skip
    assert status == 0 and "inflated" not in plain


def test_axp_inflate_on_an_xpg_file_exits_2_with_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from xpg.examples import and_xpg

    path = tmp_path / "and.xpg"
    xpg.write_xpg(and_xpg(), path)
    status, out, err = _run(capsys, "axp", path, "--inflate")
    assert status == 2 and out == "" and err.count("\n") == 1
    assert "values are unknown" in err
