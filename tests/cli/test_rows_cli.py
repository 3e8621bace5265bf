"""``--data FILE --row N`` (issue 28): a row of a data table as the instance of every command
that takes ``--instance``, numbered as ``xpg explain --data`` numbers its records, extra columns
ignored; one row prints what ``--instance`` prints, several are labelled; bad input is one line
with exit status 2."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from conftest import REPO_ROOT, shared_path

from xpg.cli.common import read_data_rows, row_spec
from xpg.cli.main import main
from xpg.core.features import Feature, Literal
from xpg.core.graph import DecisionGraph
from xpg.io import model_to_dict, save_model
from xpg.testing.ensembles import random_small_ensemble

MODEL = str(REPO_ROOT / "docs" / "img" / "compas-tree.json")
TARGET = "recidivate-within-two-years:1"
SECONDS = re.compile(r'("seconds": )[0-9.e+-]+|[0-9.]+(e-?[0-9]+)? s\b')


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, SECONDS.sub(lambda m: (m[1] or "") + "0" + ("" if m[1] else " s"), out), err


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    """20 rows of the binarised COMPAS table: the target first, as in the file, an id last."""
    table = pd.read_csv(
        shared_path("datasets", "interpretable-robust-trees", "compasbin_data.csv.gz")
    )
    rows = table.iloc[:20].copy()
    rows["id"] = [f"p{k}" for k in range(len(rows))]
    return rows


@pytest.fixture
def data(tmp_path: Path, frame: pd.DataFrame) -> str:
    path = tmp_path / "rows.csv"
    frame.to_csv(path, index=False)
    return str(path)


def instance_of(frame: pd.DataFrame, row: int) -> str:
    """The row as ``--instance`` JSON, the target and the id left out."""
    values = frame.drop(columns=[TARGET, "id"]).iloc[row]
    return json.dumps({k: int(v) for k, v in values.items()})


def test_rows_are_numbered_as_xpg_explain_numbers_its_records(
    capsys: pytest.CaptureFixture[str], data: str
) -> None:
    assert main(["explain", MODEL, "--data", data, "--target", TARGET]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["row"] for r in records] == list(range(20))
    for record in records[:8]:
        status, out, _ = run(
            capsys, "enum", MODEL, "--data", data, "--row", str(record["row"]), "--json"
        )
        doc = json.loads(out)
        assert status == 0 and "row" not in doc
        assert (doc["axps"], doc["cxps"]) == (record["axps"], record["cxps"])
        assert doc["prediction"] == record["prediction"]


COMMANDS: list[list[str]] = [
    ["axp"],
    ["cxp"],
    ["enum"],
    ["member", "-", "priors:>3"],
    ["features"],
    ["smallest", "-", "--kind", "cxp"],
    ["verify", "-", "--axp", "priors:>3"],
    ["robustness"],
]


def _argv(command: list[str], json_flag: bool) -> list[str]:
    """``command`` with the model file in place of ``-`` (or after the name)."""
    words = [command[0], MODEL, *command[2:]] if "-" in command else [command[0], MODEL]
    return words + (["--json"] if json_flag else [])


@pytest.mark.parametrize("command", COMMANDS, ids=[c[0] for c in COMMANDS])
@pytest.mark.parametrize("json_flag", [False, True], ids=["text", "json"])
def test_one_row_prints_what_the_instance_prints(
    capsys: pytest.CaptureFixture[str],
    data: str,
    frame: pd.DataFrame,
    command: list[str],
    json_flag: bool,
) -> None:
    for row in (0, 2, 7):
        argv = _argv(command, json_flag)
        by_row = run(capsys, *argv, "--data", data, "--row", str(row))
        by_instance = run(capsys, *argv, "--instance", instance_of(frame, row))
        assert by_row == by_instance and by_row[1]
        assert by_row[0] in (0, 1) and by_row[2] == ""


def test_several_rows_are_labelled(capsys: pytest.CaptureFixture[str], data: str) -> None:
    status, out, _ = run(capsys, "axp", MODEL, "--data", data, "--row", "2,0-1,2")
    assert status == 0
    blocks = out.split("\n\n")
    assert [b.splitlines()[0] for b in blocks] == ["row 2:", "row 0:", "row 1:"]
    for block in blocks:
        row = int(block.split()[1].rstrip(":"))
        single = run(capsys, "axp", MODEL, "--data", data, "--row", str(row))[1]
        assert block.split("\n", 1)[1].rstrip("\n") == single.rstrip("\n")
    status, out, _ = run(capsys, "enum", MODEL, "--data", data, "--row", "3-5", "--json")
    docs = [json.loads(line) for line in out.splitlines()]
    assert status == 0 and [d["row"] for d in docs] == [3, 4, 5]
    assert all(list(d)[0] == "row" and "axps" in d for d in docs)


def test_exit_status_is_the_largest_of_the_rows(
    capsys: pytest.CaptureFixture[str], data: str, frame: pd.DataFrame
) -> None:
    """``xpg verify`` over rows: 1 when the claim fails on one of them."""
    predicted_yes = [r for r in range(20) if frame.iloc[r]["priors:>3"] == 1]
    predicted_no = [r for r in range(20) if frame.iloc[r]["priors:>3"] == 0]
    rows = f"{predicted_yes[0]},{predicted_no[0]}"
    status, out, _ = run(
        capsys, "verify", MODEL, "--axp", "priors:>3", "--data", data, "--row", rows
    )
    assert status == 1 and out.count("holds") == 1 and "does NOT hold" in out
    rows = ",".join(map(str, predicted_yes[:3]))
    status, out, _ = run(
        capsys, "verify", MODEL, "--axp", "priors:>3", "--data", data, "--row", rows
    )
    assert status == 0 and out.count("holds") == 3


def test_extra_columns_and_their_order_do_not_matter(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, frame: pd.DataFrame, data: str
) -> None:
    shuffled = frame[list(reversed(frame.columns))]
    for name, write in [
        ("rows.tsv.gz", lambda p: shuffled.to_csv(p, sep="\t", index=False)),
        ("rows.jsonl", lambda p: shuffled.to_json(p, orient="records", lines=True)),
        ("rows.parquet", lambda p: shuffled.to_parquet(p)),
    ]:
        path = tmp_path / name
        write(path)
        got = run(capsys, "enum", MODEL, "--data", str(path), "--row", "4,11")
        assert got == run(capsys, "enum", MODEL, "--data", data, "--row", "4,11"), name


def test_draw_and_export_take_one_row(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, frame: pd.DataFrame, data: str
) -> None:
    out = tmp_path / "g.dot"
    assert main(["draw", MODEL, "--data", data, "--row", "2", "--explain", "-o", str(out)]) == 0
    by_row = out.read_text()
    assert (
        main(["draw", MODEL, "--instance", instance_of(frame, 2), "--explain", "-o", str(out)]) == 0
    )
    assert out.read_text() == by_row
    capsys.readouterr()
    for argv in (["draw", "--explain"], ["export"]):
        target = tmp_path / ("x.dot" if argv[0] == "draw" else "x.xpg")
        status, _, err = run(
            capsys, argv[0], MODEL, *argv[1:], "--data", data, "--row", "1-2", "-o", str(target)
        )
        assert status == 2 and not target.exists()
        assert err == (
            f"xpg {argv[0]}: error: --row 1-2: expected one row, found 2: xpg {argv[0]} writes "
            f"one file (-o {target})\n"
        )
    assert main(["export", MODEL, "--data", data, "--row", "3", "-o", str(tmp_path / "r.xpg")]) == 0
    assert main(["enum", str(tmp_path / "r.xpg")]) == 0


def test_a_tree_ensemble_from_a_row(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    est, feats, X = random_small_ensemble(4, "forest")
    from xpg.models.ensemble_import import ensemble_from_sklearn

    path = tmp_path / "forest.json"
    save_model(ensemble_from_sklearn(est, feats), path)
    table = pd.DataFrame(X, columns=[f.name for f in feats]).astype(int)
    table.insert(0, "label", est.predict(X))
    table.to_csv(tmp_path / "rows.csv", index=False)
    for row in (0, 3):
        instance = json.dumps({f.name: int(X[row, j]) for j, f in enumerate(feats)})
        for command in ("axp", "cxp", "enum", "features"):
            by_row = run(
                capsys,
                command,
                str(path),
                "--data",
                str(tmp_path / "rows.csv"),
                "--row",
                str(row),
                "--json",
            )
            by_instance = run(capsys, command, str(path), "--instance", instance, "--json")
            assert by_row == by_instance and by_row[0] == 0
            assert json.loads(by_row[1])["route"] == "sat-pb"


def test_categorical_text_columns(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    colour = Feature.categorical("colour, main", ["blue", "red"])
    dg = DecisionGraph([colour, Feature.integer("n", 0, 9)], classes=["keep", "drop"])
    dg.add_node(0, "colour, main")
    dg.add_terminal(1, "keep")
    dg.add_terminal(2, "drop")
    dg.add_edge(0, 1, Literal.eq("colour, main", "red"))
    dg.add_edge(0, 2, Literal.eq("colour, main", "blue"))
    model = tmp_path / "m.json"
    model.write_text(json.dumps(model_to_dict(dg)))
    (tmp_path / "rows.csv").write_text(
        'label,n,"colour, main"\nkeep,3,red\ndrop,12,blue\nx,1,green\n'
    )
    status, out, _ = run(
        capsys, "axp", str(model), "--data", str(tmp_path / "rows.csv"), "--row", "0"
    )
    assert status == 0
    assert out == 'prediction: keep\nAXp {"colour, main"}: "colour, main" = \'red\'\n'
    status, _, err = run(
        capsys, "axp", str(model), "--data", str(tmp_path / "rows.csv"), "--row", "1-2"
    )
    assert status == 2 and err.count("\n") == 1
    assert "rows.csv row 1: feature 'n': expected a value in [0.0, 9.0], found 12" in err
    status, out, err = run(
        capsys, "cxp", str(model), "--data", str(tmp_path / "rows.csv"), "--row", "0,2"
    )
    assert status == 2 and out.startswith("row 0:\nprediction: keep\n")
    assert "error: row 2:" not in err and "rows.csv row 2: feature 'colour, main'" in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--data", "{data}"], "--data {data}: expected --row N too, the row to explain"),
        (["--row", "3"], "--row 3: expected --data FILE too"),
        (
            ["--data", "{data}", "--row", "3", "--instance", "a=1"],
            "--instance and --data/--row both give the instance: expected one of them",
        ),
        (
            ["--data", "{data}", "--row", "1,20"],
            "--row 1,20: {data} has 20 rows (0 to 19); rows count from 0, the header not counted",
        ),
        (["--data", "{missing}", "--row", "0"], "{missing}: no such data file"),
        (
            ["--data", "{bad}", "--row", "0"],
            "{bad}: unknown table format: expected a file ending in",
        ),
        (["--data", "{empty}", "--row", "0"], "{empty} has no rows"),
        (["--data", "{partial}", "--row", "0"], "{partial}: expected a column for every feature"),
        (
            ["--data", "{ragged}", "--row", "1"],
            "{ragged}: row 1: line 3: expected 2 fields, found 3",
        ),
    ],
)
def test_bad_rows_are_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, data: str, argv: list[str], message: str
) -> None:
    names = {
        "data": data,
        "missing": str(tmp_path / "missing.csv"),
        "bad": str(tmp_path / "rows.txt"),
        "empty": str(tmp_path / "empty.csv"),
        "partial": str(tmp_path / "partial.csv"),
        "ragged": str(tmp_path / "ragged.csv"),
    }
    (tmp_path / "ragged.csv").write_text("sex:Female,priors:>3\n0,1\n1,0,1\n")
    (tmp_path / "rows.txt").write_text("a\n1\n")
    (tmp_path / "empty.csv").write_text("sex:Female,priors:>3\n")
    (tmp_path / "partial.csv").write_text("sex:Female,priors:>3\n0,1\n")
    status, out, err = run(capsys, "axp", MODEL, *[a.format(**names) for a in argv])
    assert status == 2 and out == "" and err.count("\n") == 1
    assert err.startswith("xpg axp: error: ") and message.format(**names) in err


def test_a_good_row_beside_a_malformed_line_is_read_as_it_is(tmp_path: Path) -> None:
    ragged = tmp_path / "ragged.csv"
    ragged.write_text("sex:Female,priors:>3\n0,1\n1,0,1\n")
    assert read_data_rows(str(ragged), row_spec("0"))[0].values == {
        "sex:Female": 0,
        "priors:>3": 1,
    }


def test_the_instance_is_needed_once(capsys: pytest.CaptureFixture[str], data: str) -> None:
    status, _, err = run(capsys, "verify", MODEL, "--axp", "priors:>3")
    assert (
        status == 2
        and "give the instance with --instance name=value,... or a row of a data file" in err
    )
    xpg_file = str(shared_path("xpg-examples", "mux6", "mux6_0.xpg"))
    status, _, err = run(capsys, "axp", xpg_file, "--data", data, "--row", "0")
    assert status == 2 and "for one instance already: drop --data/--row" in err


@pytest.mark.parametrize("text", ["x", "-1", "3-1", "1,,2", "1-", " "])
def test_bad_row_syntax_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], data: str, text: str
) -> None:
    status, _, err = run(capsys, "axp", MODEL, "--data", data, f"--row={text}")
    assert status == 2 and err.count("\n") == 1 and "argument --row: expected" in err


def test_row_spec_and_reading(data: str) -> None:
    assert row_spec(" 7 ").ranges == ((7, 7),)
    assert row_spec("0-2, 9 ,4-4").ranges == ((0, 2), (9, 9), (4, 4))
    rows = read_data_rows(data, row_spec("5,3-6,0"))
    assert [r.row for r in rows] == [5, 3, 4, 6, 0]
    values: dict[str, Any] = rows[0].values
    assert values["id"] == "p5" and TARGET in values


def test_every_instance_option_has_the_data_alternative() -> None:
    from xpg.cli.main import build_parser

    parser = build_parser()
    (sub,) = [a for a in parser._actions if a.dest == "command"]
    with_instance = []
    for name, p in sub.choices.items():
        options = {o for a in p._actions for o in a.option_strings}
        if "--instance" in options:
            with_instance.append(name)
            assert {"--data", "--row"} <= options, name
    assert set(with_instance) == {
        "axp", "cxp", "enum", "export", "member", "features", "smallest", "verify",
        "robustness", "draw",
    }  # fmt: skip
