"""Malformed lines of a data table are bad ROWS (issue 31, items 7 and 12): the chunk reader
marks them (``ERROR_COLUMN``) and goes on, row numbers stay those of the data rows, the message
has the 1-based line of the file; ``xpg explain --data`` writes one error record per bad line
and ``--resume`` continues past it.  ``true``/``false`` in a numeric feature is an error, not 1/0.

The good rows are cross-checked against pandas reading the same file with the bad lines cut
out (an independent path)."""

from __future__ import annotations

import gzip
import io
import json
import random
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import xpg
from xpg.cli.main import main
from xpg.errors import InvalidDataError
from xpg.examples import paper_figure2
from xpg.explain.batch import BatchExplainer
from xpg.explain.engine import Explainer
from xpg.io.tables import ERROR_COLUMN, iter_table_chunks, read_table


def _write(path: Path, text: str) -> Path:
    if path.name.endswith(".gz"):
        with gzip.open(path, "wt", encoding="utf-8", newline="") as fh:
            fh.write(text)
    else:
        path.write_text(text, encoding="utf-8", newline="")
    return path


def _read_all(path: Path, chunk_rows: int | None) -> pd.DataFrame:
    chunks = list(iter_table_chunks(path, chunk_rows))
    starts = [c.index[0] for c in chunks if len(c)]
    assert all(isinstance(c.index, pd.RangeIndex) for c in chunks)
    assert starts == sorted(starts)
    return pd.concat(chunks) if chunks else pd.DataFrame()


def _errors(frame: pd.DataFrame) -> dict[int, str]:
    if ERROR_COLUMN not in frame.columns:
        return {}
    col = frame[ERROR_COLUMN]
    return {int(i): str(v) for i, v in col.items() if isinstance(v, str)}


def _random_csv(seed: int, sep: str) -> tuple[str, dict[int, str], list[str]]:
    """A table of 3 columns with random bad lines (extra or missing fields), blank lines and
    quoted values holding the separator and line breaks: the text, {row: message} expected,
    and the lines of the good rows (the file without its bad lines)."""
    rng = random.Random(seed)
    lines = [sep.join(["a", "b", "c"])]
    good = [lines[0]]
    bad: dict[int, str] = {}
    row = 0
    line = 1  # physical lines written so far
    for _ in range(rng.randint(1, 40)):
        roll = rng.random()
        if roll < 0.1:
            lines.append("")  # blank: skipped, no row number
            line += 1
            continue
        values = [str(rng.randint(0, 9)), str(rng.randint(0, 9)), rng.choice(["x", "y z"])]
        spans = 1
        if rng.random() < 0.2:
            values[2] = f'"two{sep}\nlines"'
            spans = 2
        if roll < 0.25:
            values.append("7")
        elif roll < 0.4:
            values = values[: rng.randint(1, 2)]
            spans = 1 if len(values) < 3 else spans
        text = sep.join(values)
        spans = text.count("\n") + 1
        lines.append(text)
        if len(values) != 3:
            bad[row] = f"line {line + 1}: expected 3 fields, found {len(values)}"
        else:
            good.append(text)
        row += 1
        line += spans
    return "\n".join(lines) + "\n", bad, good


@pytest.mark.parametrize("seed", range(30))
def test_bad_csv_lines_are_marked_rows_and_the_rest_is_what_pandas_reads(
    tmp_path: Path, seed: int
) -> None:
    sep = "\t" if seed % 3 == 0 else ","
    suffix = (".tsv" if sep == "\t" else ".csv") + (".gz" if seed % 2 else "")
    text, bad, good_lines = _random_csv(seed, sep)
    path = _write(tmp_path / f"t{suffix}", text)
    expected_good = pd.read_csv(io.StringIO("\n".join(good_lines) + "\n"), sep=sep)
    rows = len(expected_good) + len(bad)
    for chunk_rows in (1, 3, 256):
        frame = _read_all(path, chunk_rows)
        assert frame.index.tolist() == list(range(rows))
        assert _errors(frame) == bad
        good = frame.drop(index=list(bad), columns=[ERROR_COLUMN], errors="ignore")
        got = good.reset_index(drop=True)[["a", "b", "c"]].to_dict("records")
        want = expected_good.to_dict("records")
        assert [{k: _norm(v) for k, v in r.items()} for r in got] == [
            {k: _norm(v) for k, v in r.items()} for r in want
        ]
    with pytest.raises(InvalidDataError) if bad else _no_error():
        read_table(path)


def _norm(value: Any) -> str:
    """A value as text, 2.0 and 2 alike (a chunk with a bad row holds NaN: its ints are floats)."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return str(value)
    return str(int(number)) if number.is_integer() else str(number)


class _no_error:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: Any) -> bool:
        return False


def test_a_file_without_bad_lines_is_read_as_pandas_reads_it(tmp_path: Path) -> None:
    text = 'n,r,s,t\n1,2.5,x,true\n,3,"a,b",false\n4,,"q""uote",\n'
    path = _write(tmp_path / "ok.csv", text)
    whole = pd.read_csv(io.StringIO(text))
    for chunk_rows in (1, 2, 256):
        chunks = list(iter_table_chunks(path, chunk_rows))
        assert [len(c) for c in chunks] == [
            len(c) for _, c in whole.groupby(whole.index // chunk_rows)
        ]
        for got in chunks:  # the values pandas reads (their types: inferred per group of rows)
            assert ERROR_COLUMN not in got.columns
            pd.testing.assert_frame_equal(got, whole.loc[got.index], check_dtype=False)


def test_extra_field_message_and_read_table_names_the_line(tmp_path: Path) -> None:
    path = _write(tmp_path / "x.csv", "a,b,c,d,e\n1,2,3,4,5\n1,2,3,4,5,6\n1,2,3,4,5\n")
    frame = _read_all(path, 256)
    assert _errors(frame) == {1: "line 3: expected 5 fields, found 6"}
    assert frame.loc[2, "e"] == 5
    with pytest.raises(InvalidDataError, match=r"x\.csv: cannot read as csv: line 3: expected 5"):
        read_table(path)


def test_a_quote_never_closed_is_a_bad_row(tmp_path: Path) -> None:
    path = _write(tmp_path / "q.csv", 'a,b\n1,2\n3,"x\n5,6\n')
    frame = _read_all(path, 256)
    assert frame.index.tolist() == [0, 1]
    message = _errors(frame)[1]
    assert message.startswith("line 3: ") and "never closed" in message


@pytest.mark.parametrize("name", ["r.jsonl", "r.jsonl.gz", "r.ndjson"])
def test_bad_json_lines_are_marked_rows(tmp_path: Path, name: str) -> None:
    lines = [
        '{"a": 1, "b": 2}',
        '{"a": 3, "b": ',  # broken
        "",  # blank: skipped
        "[1, 2]",  # not an object
        '{"a": 5, "b": 6}',
        "7",
        "null",
        '"text"',
        '{"a": 8, "b": 9}',
    ]
    path = _write(tmp_path / name, "\n".join(lines) + "\n")
    for chunk_rows in (1, 2, 256):
        frame = _read_all(path, chunk_rows)
        assert frame.index.tolist() == list(range(8))
        errors = _errors(frame)
        assert sorted(errors) == [1, 2, 4, 5, 6]
        assert errors[1].startswith("line 2: not JSON: ")
        assert errors[2] == "line 4: expected a JSON object, found an array"
        assert errors[4] == "line 6: expected a JSON object, found a number"
        assert errors[5] == "line 7: expected a JSON object, found null"
        assert errors[6] == "line 8: expected a JSON object, found a string"
        good = frame.drop(index=list(errors))
        assert good[["a", "b"]].astype(int).values.tolist() == [[1, 2], [5, 6], [8, 9]]


def test_json_booleans_stay_booleans(tmp_path: Path) -> None:
    """pandas' read_json turns [1, true] into [1, 1]: the reader keeps what the line says."""
    path = _write(tmp_path / "b.jsonl", '{"n": 1}\n{"n": true}\n{"n": 2.5}\n')
    frame = _read_all(path, 256)
    values = frame["n"].tolist()
    assert values[1] is True or isinstance(values[1], np.bool_)
    assert values[0] == 1 and values[2] == 2.5


def test_a_line_that_is_not_utf8_is_a_bad_row(tmp_path: Path) -> None:
    path = tmp_path / "l.csv"
    path.write_bytes(b"a,b\n1,2\n3,\xe9\n5,6\n")
    frame = _read_all(path, 256)
    assert frame.index.tolist() == [0, 1, 2]
    assert _errors(frame)[1].startswith("line 3: not UTF-8")
    assert frame.loc[2, "a"] == 5


# -- the command and the batch ----------------------------------------------------------------
@pytest.fixture()
def model(tmp_path: Path) -> Path:
    path = tmp_path / "fig2.json"
    xpg.save_model(paper_figure2(), path)
    return path


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.mark.parametrize("data_name", ["d.csv", "d.csv.gz", "d.jsonl"])
def test_xpg_explain_writes_an_error_record_per_bad_line_and_resume_goes_past_it(
    tmp_path: Path, model: Path, data_name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    if data_name.startswith("d.csv"):
        lines = ["x1,x2,x3", "0,1,2", "1,1,2,9", "1,0", "0,0,1", "1,1,1"]
        bad = {1: "line 3: expected 3 fields, found 4", 2: "line 4: expected 3 fields, found 2"}
    else:
        lines = ['{"x1": 0, "x2": 1, "x3": 2}', '{"x1": 1,', "[]", '{"x1": 0, "x2": 0, "x3": 1}']
        lines.append('{"x1": 1, "x2": 1, "x3": 1}')
        bad = {1: "line 2: not JSON: ", 2: "line 3: expected a JSON object, found an array"}
    data = _write(tmp_path / data_name, "\n".join(lines) + "\n")
    out = tmp_path / "out.jsonl"
    status = main(["explain", str(model), "--data", str(data), "-o", str(out), "--chunk-rows", "2"])
    err = capsys.readouterr().err
    assert status == 1, err
    records = _records(out)
    assert [r["row"] for r in records] == [0, 1, 2, 3, 4]
    for row, message in bad.items():
        assert records[row]["error"].startswith(message), records[row]
        assert set(records[row]) == {"row", "error", "model"}
    dg = paper_figure2()
    for r, x in [(0, [0, 1, 2]), (3, [0, 0, 1]), (4, [1, 1, 1])]:
        assert "error" not in records[r]
        assert records[r]["prediction"] == str(dg.predict(x))
    # --resume: every row has its record, nothing is added
    status = main(["explain", str(model), "--data", str(data), "-o", str(out), "--resume"])
    capsys.readouterr()
    assert status == 1
    assert len(_records(out)) == 5


def test_batch_explainer_turns_marked_rows_into_error_records(tmp_path: Path) -> None:
    data = _write(tmp_path / "d.csv", "x1,x2,x3\n0,1,2\n1,1,2,9\n0,0,1\n")
    batch = BatchExplainer(Explainer(paper_figure2(), many=True), kinds="axp")
    (frame,) = iter_table_chunks(data, 256)
    for records in (list(batch.explain_frame(frame)), batch.explain_chunk(frame)):
        assert records[1] == {"row": 1, "error": "line 3: expected 3 fields, found 4"}
        assert "error" not in records[0] and "error" not in records[2]
    text = batch.explain_lines(frame).text.splitlines()
    assert json.loads(text[1]) == {"row": 1, "error": "line 3: expected 3 fields, found 4"}


# -- item 12: booleans are not numbers ---------------------------------------------------------
@pytest.mark.parametrize(
    "text",
    ["x1,x2,x3\n0,1,true\n0,1,2\n", "x1,x2,x3\n0,1,true\n0,1,false\n", "x1,x2,x3\n0,1,True\n"],
)
def test_true_in_an_integer_column_is_an_error_naming_feature_and_value(
    tmp_path: Path, text: str
) -> None:
    data = _write(tmp_path / "b.csv", text)
    batch = BatchExplainer(Explainer(paper_figure2(), many=True), kinds="axp")
    records = [r for frame in iter_table_chunks(data, 256) for r in batch.explain_frame(frame)]
    first = records[0]
    assert "error" in first, first
    assert "'x3'" in first["error"] and "true" in first["error"].lower()
    for r in records[1:]:
        if "false" in text.lower().split("\n")[2]:
            assert "error" in r and "'x3'" in r["error"] and "false" in r["error"].lower()
        else:
            assert "error" not in r


def test_booleans_in_numeric_features_are_errors_on_every_path() -> None:
    dg = paper_figure2()
    frame = pd.DataFrame({"x1": [0, 0], "x2": [1, 1], "x3": [True, False]})
    mixed = pd.DataFrame({"x1": [0, 0], "x2": [1, 1], "x3": pd.Series([1, True], dtype=object)})
    for records in (
        list(xpg.explain_many(dg, frame)),
        list(xpg.explain_many(dg, frame.to_dict("records"))),
        list(xpg.explain_many(dg, [[0, 1, True], [0, 1, np.True_]])),
        list(xpg.explain_many(dg, mixed))[1:],
    ):
        for r in records:
            assert "error" in r and "'x3'" in r["error"], r
            assert "True" in r["error"] or "False" in r["error"]
    assert "error" not in next(iter(xpg.explain_many(dg, mixed)))
    # a boolean feature still reads true and false
    from xpg.examples import and_graph

    (r,) = xpg.explain_many(and_graph(), pd.DataFrame({"a": [True], "b": [True]}))
    assert r["prediction"] == "1"
