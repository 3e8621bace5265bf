"""Rows of a CSV file left as text until the process explaining them parses them
(:class:`~xpg.io.tables.CsvRows`, issue 31): the reader only counts the rows, a worker parses
them.  Parsed after a round trip through pickle (as a worker gets them), merged into tasks,
they must give the rows pandas reads from the file with its bad lines cut out (an independent
path), each bad line an error row with its line number, whatever the group, block and chunk
sizes."""

from __future__ import annotations

import io
import pickle
import random
from pathlib import Path

import pandas as pd
import pytest

from xpg.explain.parallel import TaskSizer, split_tasks
from xpg.io import tables
from xpg.io.tables import ERROR_COLUMN, CsvRows, as_frame, iter_table_chunks


def _quote_free_csv(seed: int, sep: str) -> tuple[str, dict[int, str], list[str]]:
    """A table of 3 columns without quotes: random bad lines (fields missing or too many),
    blank and whitespace-only lines, some lines ending in CR LF; the text, {row: message}
    expected, and the lines of the good rows."""
    rng = random.Random(seed)
    header = sep.join(["a", "b", "c"])
    lines, good = [header], [header]
    bad: dict[int, str] = {}
    row = 0
    for _ in range(rng.randint(1, 60)):
        roll = rng.random()
        if roll < 0.1:
            lines.append(rng.choice(["", "  ", " \x0c"]))  # no row, no row number
            continue
        values = [str(rng.randint(0, 9)), str(rng.randint(0, 9)), rng.choice(["x", "y z", "2.5"])]
        if roll < 0.2:
            values.append("7")
        elif roll < 0.3:
            values = values[: rng.randint(1, 2)]
        text = sep.join(values)
        if len(values) != 3:
            bad[row] = f"line {len(lines) + 1}: expected 3 fields, found {len(values)}"
        else:
            good.append(text)
        lines.append(text + ("\r" if rng.random() < 0.1 else ""))
        row += 1
    return "\n".join(lines) + "\n", bad, good


def _errors(frame: pd.DataFrame) -> dict[int, str]:
    if ERROR_COLUMN not in frame.columns:
        return {}
    return {int(i): str(v) for i, v in frame[ERROR_COLUMN].items() if isinstance(v, str)}


def _values(frame: pd.DataFrame) -> list[list[str]]:
    """The cells as text, 2.0 and 2 alike (a chunk with a bad row holds NaN: floats)."""

    def norm(value: object) -> str:
        try:
            number = float(value)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            return str(value)
        return str(int(number)) if number.is_integer() else str(number)

    return [[norm(v) for v in row] for row in frame[["a", "b", "c"]].itertuples(index=False)]


@pytest.mark.parametrize("seed", range(40))
def test_rows_parsed_by_a_worker_are_the_good_lines_pandas_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    rng = random.Random(1000 + seed)
    sep = "\t" if seed % 4 == 0 else ","
    text, bad, good_lines = _quote_free_csv(seed, sep)
    path = tmp_path / ("t.tsv" if sep == "\t" else "t.csv")
    path.write_text(text, encoding="utf-8", newline="")
    want = pd.read_csv(io.StringIO("\n".join(good_lines) + "\n"), sep=sep)
    rows = len(want) + len(bad)
    # small groups and blocks: groups cut inside a block of lines and spanning several
    monkeypatch.setattr(tables, "GROUP_ROWS", rng.choice([1, 4, 9]))
    monkeypatch.setattr(tables, "BLOCK_LINES", rng.choice([1, 3, 7]))
    for chunk_rows in (1, 3, 5):
        chunks = list(iter_table_chunks(path, chunk_rows, lazy=True))
        assert all(isinstance(chunk, CsvRows) for chunk in chunks)
        frames = [as_frame(pickle.loads(pickle.dumps(chunk))) for chunk in chunks]
        for chunk, frame in zip(chunks, frames, strict=True):
            assert 0 < len(frame) == len(chunk) <= chunk_rows
            assert frame.index.tolist() == chunk.index.tolist()
        whole = pd.concat(frames)
        assert whole.index.tolist() == list(range(rows))
        assert _errors(whole) == bad
        assert _values(whole.drop(index=list(bad))) == _values(want)
        # consecutive chunks merged into one task: the same rows as the chunks together
        i = rng.randrange(len(chunks))
        j = rng.randrange(i, len(chunks)) + 1
        merged = pickle.loads(pickle.dumps(CsvRows.joined(chunks[i:j])))
        got = as_frame(merged)
        assert got.index.tolist() == merged.index.tolist() == pd.concat(frames[i:j]).index.tolist()
        assert _errors(got) == _errors(pd.concat(frames[i:j]))
        assert _values(got) == _values(pd.concat(frames[i:j]))


def test_a_line_short_of_a_field_and_one_over_are_both_bad_rows(tmp_path: Path) -> None:
    """The separators of the group add up to the right count, not each line's."""
    path = tmp_path / "t.csv"
    path.write_text("a,b,c\n1,2,3\n4,5\n6,7,8,9\n", encoding="utf-8")
    (chunk,) = iter_table_chunks(path, 256, lazy=True)
    frame = as_frame(chunk)
    assert _errors(frame) == {
        1: "line 3: expected 3 fields, found 2",
        2: "line 4: expected 3 fields, found 4",
    }
    assert _values(frame.iloc[:1]) == [["1", "2", "3"]]


def test_quotes_are_parsed_by_the_reader_from_the_first_on(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    path.write_text('a,b\n1,2\n3,"x,y"\n5,6\n', encoding="utf-8")
    chunks = list(iter_table_chunks(path, 1, lazy=True))
    assert [type(c) for c in chunks] == [pd.DataFrame] * 3  # one group: parsed as a whole
    assert [as_frame(c)["b"].tolist() for c in chunks] == [["2"], ["x,y"], ["6"]]


def test_merged_tasks_hold_whole_groups(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A task of unparsed rows does not start a group it cannot finish: a worker parses
    each group once (after the first task, every task starts a group)."""
    monkeypatch.setattr(tables, "GROUP_ROWS", 8)
    path = tmp_path / "t.csv"
    path.write_text("a,b\n" + "".join(f"{k},{k % 3}\n" for k in range(100)), encoding="utf-8")
    sizer = TaskSizer(1.0)
    sizer.observe(1, 0.0)  # fast rows: tasks as large as the limit
    tasks = list(split_tasks(iter_table_chunks(path, 2, lazy=True), sizer, limit=20))
    assert [len(t) for t in tasks] == [16] * 5 + [20]  # the last group has 4 rows
    assert all(isinstance(t, CsvRows) for t in tasks)
    assert all(lo == 0 and hi == g.rows for t in tasks for g, lo, hi in t.parts)
    assert pd.concat([as_frame(t) for t in tasks])["a"].tolist() == list(range(100))
