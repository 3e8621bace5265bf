"""``xpg explain MODEL --data ROWS``: from a CSV of ../shared/datasets to JSON Lines, every
record checked against ``xpg.enumerate_explanations`` on the same instance (read by an
independent path: the csv module and each feature's own parser); bad rows, exit statuses,
``--resume`` after an interrupted run, ``--workers 2`` and ``--scheduler local:2``, Parquet,
``--limit`` and ``--kinds features``.  (The per-row budget, the model's fingerprint and
stopping a run: test_batch_stop.py; the progress bar: test_batch_progress.py.)"""

from __future__ import annotations

import csv
import gzip
import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from conftest import shared_path

import xpg
from xpg.cli.batch import model_fingerprint
from xpg.cli.main import main

COMPAS = "interpretable-robust-trees/compasbin_data.csv.gz"
COMPAS_TARGET = "recidivate-within-two-years:1"
IRIS = "pmlb/iris.tsv.gz"


def _train(tmp: Path, name: str, max_depth: int) -> tuple[Path, Any, str, Path]:
    from xpg.learn import learn_tree, load_dataset

    data = load_dataset(name, data_dir=shared_path("datasets"))
    clf, dg = learn_tree(data.X, data.y, features=data.features, max_depth=max_depth)
    model = tmp / f"{Path(name).name.split('.')[0]}.json"
    xpg.save_model(xpg.tree_from_sklearn(clf, data.features), model)
    return model, xpg.load_model(model), data.target, data.path


@pytest.fixture(scope="module")
def compas(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("compas")
    model, dg, target, path = _train(tmp, COMPAS, 6)
    with gzip.open(path, "rt", newline="") as fh:
        rows = list(csv.DictReader(fh))
    small = tmp / "small.csv"  # the first 700 rows, for the runs repeated below
    small.write_text("".join(gzip.open(path, "rt").readlines()[:701]))
    return {"model": model, "dg": dg, "target": target, "data": path, "rows": rows,
            "small": small, "tmp": tmp}  # fmt: skip


def _expected(dg: Any, text_row: dict[str, str]) -> dict[str, Any]:
    instance = {f.name: f.parse_value(text_row[f.name]) for f in dg.features}
    xg = xpg.ExplanationGraph.from_decision_graph(dg, instance)
    return {"prediction": str(xg.prediction), **xpg.enumerate_explanations(xg).to_json()}


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _strip(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in r.items() if k not in ("seconds", "model")} for r in records]


def _run(capsys: pytest.CaptureFixture[str], *argv: Any) -> tuple[int, str, str]:
    status = main(["explain", *map(str, argv)])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.slow
def test_every_record_is_the_enumeration_of_its_row(
    compas: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    out = compas["tmp"] / "all.jsonl"
    status, stdout, err = _run(
        capsys, compas["model"], "--data", compas["data"], "-o", out, "--target", COMPAS_TARGET
    )
    assert status == 0 and stdout == ""
    assert err.count("\n") == 1 and err.startswith(f"xpg explain: {len(compas['rows'])} rows, 0 ")
    assert "rows/s" in err
    records = _records(out)
    assert [r["row"] for r in records] == list(range(len(compas["rows"])))
    keys = ["row", "prediction", "label", "axps", "cxps", "complete", "seconds", "model"]
    fingerprint = model_fingerprint(str(compas["model"]))
    for record, text_row in zip(records, compas["rows"], strict=True):
        assert list(record) == keys
        assert record["model"] == fingerprint
        assert record["label"] == text_row[COMPAS_TARGET]
        expected = _expected(compas["dg"], text_row)
        assert record["prediction"] == expected["prediction"]
        assert record["axps"] == expected["axps"] and record["cxps"] == expected["cxps"]
        assert record["complete"] is True and record["seconds"] > 0
    assert any(":=" in name for r in records for x in r["axps"] for name in x)  # names with "="


def test_real_features_and_kinds_features(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model, dg, target, path = _train(tmp_path, IRIS, 4)
    status, stdout, _ = _run(capsys, model, "--data", path, "--kinds", "features,axp")
    assert status == 0
    records = [json.loads(line) for line in stdout.splitlines()]
    with gzip.open(path, "rt", newline="") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))
    assert len(records) == len(rows) == 150
    names = {f.name for f in dg.features}
    for record, text_row in zip(records, rows, strict=True):
        assert list(record) == ["row", "prediction", "axps", "complete", "necessary",
                                "relevant", "irrelevant", "seconds", "model"]  # fmt: skip
        assert record["axps"] == _expected(dg, text_row)["axps"]
        axps = [set(a) for a in record["axps"]]
        everywhere = set.intersection(*axps)
        somewhere = set.union(*axps)
        assert set(record["necessary"]) == everywhere
        assert set(record["relevant"]) == somewhere - everywhere
        assert set(record["irrelevant"]) == names - somewhere


def test_bad_rows_give_error_records_and_status_1(
    compas: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = compas["small"].read_text().splitlines()[:6]
    header = lines[0].split(",")
    column = header.index("priors:=0")
    cells = [line.split(",") for line in lines[1:]]
    cells[1][column] = ""  # NaN
    cells[3][column] = "7"  # outside the boolean domain
    data = tmp_path / "bad.csv"
    data.write_text("\n".join(",".join(r) for r in [header, *cells]) + "\n")
    status, stdout, err = _run(capsys, compas["model"], "--data", data)
    raw = [json.loads(line) for line in stdout.splitlines()]
    assert {r["model"] for r in raw} == {model_fingerprint(str(compas["model"]))}  # errors too
    records = _strip(raw)
    assert status == 1
    assert err.startswith("xpg explain: 5 rows, 2 errors")
    assert records[1] == {"row": 1, "error": "feature 'priors:=0': missing value (NaN or empty)"}
    assert records[3] == {"row": 3, "error": "feature 'priors:=0': expected one of [0, 1], found 7"}
    assert [r["row"] for r in records if "error" not in r] == [0, 2, 4]
    # a feature's column missing altogether: every row is an error record
    data.write_text(
        "\n".join(",".join(c for j, c in enumerate(r) if j != column) for r in [header, *cells])
    )
    status, stdout, _ = _run(capsys, compas["model"], "--data", data)
    assert status == 1
    assert {json.loads(line)["error"] for line in stdout.splitlines()} == {
        "the data has no column for feature(s) 'priors:=0'"
    }


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--kinds", "axp,shap"], "unknown kind 'shap'"),
        (["--resume"], "--resume continues a JSON Lines output"),
        (["-o", "out.txt"], "expected a file ending in .jsonl or .parquet"),
        (["--workers", "2", "--scheduler", "local:2"], "exclude each other"),
        (["--target", "nope"], "--target nope"),
        (["--scheduler", "somewhere"], "expected tcp://HOST:PORT"),
        (["--workers", "0"], "expected a positive integer"),
    ],
)
def test_bad_arguments_exit_2_with_one_line(
    compas: dict[str, Any], capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    status, stdout, err = _run(capsys, compas["model"], "--data", compas["small"], *extra)
    assert status == 2 and stdout == ""
    assert err.count("\n") == 1 and message in err and "Traceback" not in err


def test_missing_files_exit_2(
    compas: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for model, data, message in [
        (compas["model"], tmp_path / "none.csv", "no such data file"),
        (compas["model"], tmp_path / "rows.xlsx", "unknown table format"),
        (tmp_path / "none.json", compas["small"], "none.json"),
    ]:
        status, _, err = _run(capsys, model, "--data", data)
        assert status == 2 and message in err and err.count("\n") == 1


def test_resume_after_an_interrupted_run(
    compas: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    whole = tmp_path / "whole.jsonl"
    args = [compas["model"], "--data", compas["small"], "--chunk-rows", "64"]
    assert _run(capsys, *args, "-o", whole)[0] == 0
    lines = whole.read_text().splitlines(keepends=True)
    out = tmp_path / "out.jsonl"
    out.write_text("".join(lines[:150]) + lines[150][:40])  # killed while writing row 150
    status, _, err = _run(capsys, *args, "-o", out, "--resume")
    assert status == 0 and "150 rows already in" in err and "550 rows" in err
    assert _strip(_records(out)) == _strip(_records(whole))
    # nothing left to do: nothing is added
    status, _, err = _run(capsys, *args, "-o", out, "--resume")
    assert status == 0 and err.startswith("xpg explain: 0 rows")
    assert _strip(_records(out)) == _strip(_records(whole))
    # a file that is not an output of xpg explain is refused
    out.write_text('{"row": 0}\nnot json\n{"row": 2}\n')
    status, _, err = _run(capsys, *args, "-o", out, "--resume")
    assert status == 2 and "out.jsonl:2:" in err


@pytest.mark.slow
def test_workers_and_a_dask_local_cluster_give_the_same_records(
    compas: dict[str, Any],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    args = [compas["model"], "--data", compas["small"], "--chunk-rows", "100"]
    one, two, dask = tmp_path / "one.jsonl", tmp_path / "two.jsonl", tmp_path / "dask.jsonl"
    assert _run(capsys, *args, "-o", one)[0] == 0
    assert _run(capsys, *args, "-o", two, "--workers", "2")[0] == 0
    folders: list[str] = []  # where the local workers write their records' files
    made_by = tempfile.TemporaryDirectory

    def folder(*args: Any, **kwargs: Any) -> tempfile.TemporaryDirectory[str]:
        made = made_by(*args, **kwargs)
        folders.append(made.name)
        return made

    monkeypatch.setattr(tempfile, "TemporaryDirectory", folder)
    assert _run(capsys, *args, "-o", dask, "--scheduler", "local:2")[0] == 0
    assert len(folders) == 1 and not Path(folders[0]).exists()  # used, then removed
    expected = _strip(_records(one))
    assert len(expected) == 700
    assert _strip(_records(two)) == expected  # in row order
    assert sorted(_strip(_records(dask)), key=lambda r: r["row"]) == expected  # as they arrive


def test_parquet_round_trip_and_limit(
    compas: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import pandas as pd
    import pyarrow.parquet as pq

    args = [compas["model"], "--data", compas["small"], "--target", COMPAS_TARGET]
    jsonl, parquet = tmp_path / "out.jsonl", tmp_path / "out.parquet"
    assert _run(capsys, *args, "-o", jsonl, "--limit", "2")[0] == 0
    assert _run(capsys, *args, "-o", parquet, "--limit", "2")[0] == 0
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
    frame = pd.read_parquet(parquet)
    assert list(frame.columns) == ["row", "prediction", "label", "axps", "cxps", "complete",
                                   "seconds", "error"]  # fmt: skip
    metadata = pq.read_schema(parquet).metadata  # the fingerprint, as JSON Lines records carry it
    assert metadata[b"xpg.model"].decode() == model_fingerprint(str(compas["model"]))
    back = []
    for rec in frame.to_dict("records"):
        rec = {k: v for k, v in rec.items() if k != "error" or isinstance(v, str)}
        rec["axps"] = [list(x) for x in rec["axps"]]
        rec["cxps"] = [list(x) for x in rec["cxps"]]
        back.append(rec)
    records = _records(jsonl)
    assert _strip(back) == _strip(records)
    for record, text_row in zip(records, compas["rows"][:700], strict=True):
        whole = _expected(compas["dg"], text_row)
        total = len(whole["axps"]) + len(whole["cxps"])
        assert len(record["axps"]) + len(record["cxps"]) == min(2, total)
        assert record["complete"] == (total < 2)


@pytest.mark.slow
def test_robustness_records_in_json_lines_and_parquet(
    compas: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--kinds robustness``: each record holds what ``xpg.robustness`` finds for its row,
    in JSON Lines as an object and in Parquet as its JSON text."""
    import pandas as pd

    args = [compas["model"], "--data", compas["small"], "--kinds", "robustness"]
    jsonl, parquet = tmp_path / "r.jsonl", tmp_path / "r.parquet"
    assert _run(capsys, *args, "-o", jsonl)[0] == 0
    assert _run(capsys, *args, "-o", parquet)[0] == 0
    records = _records(jsonl)
    for record, text_row in list(zip(records, compas["rows"], strict=False))[:50]:
        instance = {f.name: f.parse_value(text_row[f.name]) for f in compas["dg"].features}
        want = xpg.robustness(compas["dg"], instance).to_json()
        assert record["robustness"] == {
            k: want[k] for k in ("distance", "counterexample", "counterexample_class")
        }
    frame = pd.read_parquet(parquet)
    assert [json.loads(t) for t in frame["robustness"]] == [r["robustness"] for r in records]
