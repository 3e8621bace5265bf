"""The progress bar of ``xpg explain --data``: shown on a terminal only, with the rows to do as
its total (counted cheaply by :func:`xpg.io.tables.count_rows`, less those ``--resume``
skips) and so the time left, advanced row by row."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import xpg
from xpg.cli.batch import Progress, rows_to_do
from xpg.cli.main import main
from xpg.errors import DataNotFoundError, InvalidDataError
from xpg.examples import and_graph
from xpg.io.tables import count_rows, read_table


def test_count_rows_agrees_with_the_reader(tmp_path: Path) -> None:
    frame = pd.DataFrame({"a": [1, 0, 1, 1, 0], "b": [1, 1, 0, 1, 0], "y": list("pqrst")})
    paths = []
    for name in ("t.csv", "t.tsv", "t.jsonl", "t.csv.gz", "t.jsonl.gz", "t.parquet"):
        path = tmp_path / name
        if name.startswith("t.csv"):
            frame.to_csv(path, index=False)
        elif name == "t.tsv":
            frame.to_csv(path, index=False, sep="\t")
        elif name.startswith("t.jsonl"):
            frame.to_json(path, orient="records", lines=True)
        else:
            frame.to_parquet(path)
        paths.append(path)
    no_break = tmp_path / "last.csv"  # the last line without its line break
    no_break.write_text("a,b\n1,0\n0,1")
    header = tmp_path / "header.csv"
    header.write_text("a,b\n")
    for path in [*paths, no_break, header]:
        assert count_rows(path) == len(read_table(path)), path.name
    with pytest.raises(DataNotFoundError):
        count_rows(tmp_path / "none.csv")
    with pytest.raises(InvalidDataError, match="unknown table format"):
        count_rows(tmp_path / "rows.xlsx")
    big = tmp_path / "big.csv.gz"  # more than one block of 1 MiB once decompressed
    with gzip.open(big, "wt") as fh:
        fh.write("a,b\n" + "1,0\n" * 400_000)
    assert count_rows(big) == 400_000
    assert rows_to_do(str(big), {0, 1, 2, 500_000}) == 399_997
    assert rows_to_do(str(tmp_path / "none.csv"), set()) is None


def test_the_bar_has_a_total_and_the_time_left(capsys: pytest.CaptureFixture[str]) -> None:
    import threading

    threads = threading.active_count()
    bar = Progress(4, enabled=True)
    assert threading.active_count() == threads  # no tqdm monitor: workers can still be forked
    for _ in range(4):
        bar.update(1)
    bar.close(finished=True)
    err = capsys.readouterr().err
    assert "4/4" in err and "<00:00" in err  # done out of the total, and the time left
    bar = Progress(10, enabled=True)  # a count above the rows (a line break in a quoted value)
    bar.update(9)
    bar.close(finished=True)
    assert "9/9" in capsys.readouterr().err
    Progress(3, enabled=False).update(3)
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("workers", ["1", "2"])
@pytest.mark.slow
def test_the_command_counts_the_rows_and_advances_row_by_row(
    workers: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Was: no total, no time left, one step per 256-row chunk."""
    model = tmp_path / "and.json"
    xpg.save_model(and_graph(), model)
    data = tmp_path / "rows.csv"
    pd.DataFrame({"a": [1, 0, 1] * 100, "b": [1, 1, 0] * 100}).to_csv(data, index=False)
    out = tmp_path / "out.jsonl"
    argv = ["explain", str(model), "--data", str(data), "-o", str(out), "--workers", workers]
    # not a terminal: no bar, one summary line
    assert main(argv) == 0
    assert capsys.readouterr().err.count("\n") == 1
    steps: list[int] = []
    totals: list[Any] = []
    update, init = Progress.update, Progress.__init__

    def counted(self: Progress, rows: int) -> None:
        steps.append(rows)
        update(self, rows)

    def made(self: Progress, total: int | None, enabled: bool | None = None) -> None:
        totals.append(total)
        init(self, total, enabled)

    monkeypatch.setattr(Progress, "update", counted)
    monkeypatch.setattr(Progress, "__init__", made)
    monkeypatch.setattr("sys.stderr.isatty", lambda: True)
    lines = out.read_text().splitlines(keepends=True)
    out.write_text("".join(lines[:120]))
    assert main([*argv, "--resume"]) == 0
    err = capsys.readouterr().err
    assert totals == [180] and "180/180" in err and "rows/s" in err
    assert sum(steps) == 180
    if workers == "1":
        assert steps == [256 - 120, 300 - 256]  # the cell cache answers a chunk at once
        # without it (a model whose rows take time), row by row
        monkeypatch.setattr("xpg.explain.cell_cache.applies", lambda batch: False)
        out.write_text("".join(lines[:120]))
        steps.clear()
        assert main([*argv, "--resume"]) == 0
        assert steps == [1] * 180
    assert [json.loads(line)["row"] for line in out.read_text().splitlines()] == list(range(300))
