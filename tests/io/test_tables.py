"""Data tables (``xpg.io.tables``): every format gives the same rows, chunks number the rows
of the whole file, and bad files name themselves."""

from __future__ import annotations

import builtins
import gzip
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from xpg.errors import DataNotFoundError, InvalidDataError, MissingExtraError
from xpg.io.tables import iter_table_chunks, read_table, table_format

FRAME = pd.DataFrame(
    {"age": [31, 45, 27, 60, 19], "priors:=0": [1, 0, 0, 1, 1], "c": ["a b", "x,y", "z", "a", "b"]}
)


def write(frame: pd.DataFrame, path: Path) -> Path:
    kind = table_format(path)
    if kind == "parquet":
        frame.to_parquet(path)
        return path
    if kind == "jsonl":
        text = frame.to_json(orient="records", lines=True)
    else:
        text = frame.to_csv(sep="\t" if kind == "tsv" else ",", index=False)
    if path.name.endswith(".gz"):
        with gzip.open(path, "wt", encoding="utf-8") as fh:
            fh.write(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "name",
    ["t.csv", "t.tsv", "t.csv.gz", "t.tsv.gz", "t.jsonl", "t.ndjson", "t.jsonl.gz", "t.parquet"],
)
def test_every_format_reads_the_same_rows(tmp_path: Path, name: str) -> None:
    path = write(FRAME, tmp_path / name)
    assert read_table(path).to_dict("records") == FRAME.to_dict("records")
    chunks = list(iter_table_chunks(path, 2))
    assert [c.index.tolist() for c in chunks] == [[0, 1], [2, 3], [4]]
    assert pd.concat(chunks).to_dict("records") == FRAME.to_dict("records")


def test_unknown_format_lists_the_known_ones() -> None:
    with pytest.raises(InvalidDataError, match=r"rows\.xlsx: unknown table format: .*\.parquet"):
        table_format("rows.xlsx")


def test_missing_and_broken_files_name_themselves(tmp_path: Path) -> None:
    with pytest.raises(DataNotFoundError, match="none.csv: no such data file"):
        read_table(tmp_path / "none.csv")
    bad = tmp_path / "bad.csv"
    bad.write_text('a,b\n1,"x\n', encoding="utf-8")
    with pytest.raises(InvalidDataError, match=r"bad\.csv: cannot read as csv: .*EOF"):
        read_table(bad)
    not_parquet = tmp_path / "p.parquet"
    not_parquet.write_text("not parquet", encoding="utf-8")
    with pytest.raises(InvalidDataError, match=r"p\.parquet: cannot read as parquet"):
        read_table(not_parquet)


def test_without_pandas_the_error_names_the_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write(FRAME, tmp_path / "t.csv")
    real_import = builtins.__import__

    def no_pandas(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "pandas" or name.startswith("pandas."):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_pandas)
    with pytest.raises(MissingExtraError, match=r"'\.\[scale\]' from a clone of xpg"):
        read_table(path)
