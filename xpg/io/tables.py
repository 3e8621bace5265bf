"""Data tables from files, through pandas: CSV, TSV (plain or gzip), JSON Lines, Parquet.

The format follows the file name: ``.csv``, ``.tsv``, ``.jsonl`` / ``.ndjson``, each
optionally ``.gz``, and ``.parquet`` (pyarrow).  pandas and pyarrow are the ``scale`` extra;
without them a :class:`~xpg.errors.MissingExtraError` says what to install.

Examples
--------
>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "rows.csv"
>>> _ = path.write_text("age,priors:=0,y\\n31,1,yes\\n45,0,no\\n")
>>> read_table(path).to_dict("records")[0]
{'age': 31, 'priors:=0': 1, 'y': 'yes'}
>>> [len(chunk) for chunk in iter_table_chunks(path, 1)]
[1, 1]
>>> count_rows(path)
2
"""

from __future__ import annotations

import itertools
import operator
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

from xpg.errors import DataNotFoundError, InvalidDataError, MissingExtraError

#: the column of a chunk marking its bad rows (lines that could not be read): the message,
#: ``"line L: ..."``, of each bad row, missing for the good ones; a reserved column name
ERROR_COLUMN = "__xpg_error__"

#: the table formats, by file-name ending (checked in this order)
FORMATS: tuple[tuple[str, str], ...] = (
    (".csv.gz", "csv"),
    (".tsv.gz", "tsv"),
    (".jsonl.gz", "jsonl"),
    (".ndjson.gz", "jsonl"),
    (".csv", "csv"),
    (".tsv", "tsv"),
    (".jsonl", "jsonl"),
    (".ndjson", "jsonl"),
    (".parquet", "parquet"),
)


def table_format(path: str | os.PathLike[str]) -> str:
    """``csv``, ``tsv``, ``jsonl`` or ``parquet``, from the file name.

    >>> table_format("day.tsv.gz"), table_format("rows.parquet")
    ('tsv', 'parquet')
    """
    name = Path(path).name.lower()
    for ending, kind in FORMATS:
        if name.endswith(ending):
            return kind
    endings = ", ".join(ending for ending, _ in FORMATS)
    raise InvalidDataError(f"{path}: unknown table format: expected a file ending in {endings}")


def pandas() -> Any:
    """The pandas module, or a :class:`MissingExtraError` naming the extra to install."""
    try:
        import pandas as pd
    except ImportError:
        raise MissingExtraError(
            "reading data tables needs pandas: pip install -e '.[scale]' from a clone of xpg"
        ) from None
    return pd


def read_table(path: str | os.PathLike[str]) -> Any:
    """The whole table in ``path`` as a pandas ``DataFrame`` (column types inferred by pandas).

    Raises
    ------
    DataNotFoundError
        When the file does not exist.
    InvalidDataError
        When the format is unknown or the file cannot be parsed as that format (the first
        malformed line named).
    """
    frames = list(iter_table_chunks(path, None, bad_rows="raise"))
    if len(frames) == 1:
        return frames[0]
    return pandas().concat(frames, ignore_index=True)


def iter_table_chunks(
    path: str | os.PathLike[str],
    chunk_rows: int | None,
    *,
    bad_rows: str = "mark",
    lazy: bool = False,
) -> Iterator[Any]:
    """The table in ``path`` as ``DataFrame`` chunks of at most ``chunk_rows`` rows (all rows
    in one chunk for ``None``), read lazily: a file larger than memory can be streamed.

    The index of each chunk continues the previous one's, so ``chunk.index`` holds row numbers
    counted from 0 over the whole file (blank lines are no rows, as for pandas).

    A malformed line of a text table (a CSV or TSV line with more or fewer fields than the
    header, a line that is not JSON or not a JSON object, a line that is not UTF-8, a quote
    never closed) is a bad row: with ``bad_rows="mark"`` (the default) it keeps its row
    number, its other columns are missing, and the column :data:`ERROR_COLUMN` (present only
    in chunks holding a bad row) holds ``"line L: ..."`` (``L`` the 1-based line of the file
    where the row starts), which :class:`~xpg.explain.batch.BatchExplainer` turns into the
    row's error record; ``bad_rows="raise"`` raises :class:`InvalidDataError` at the first.
    The good rows of a chunk are parsed by pandas as a whole (types inferred per chunk);
    a JSON Lines chunk is built from the parsed objects (``true`` stays a boolean).

    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "rows.csv"
    >>> _ = path.write_text("a,b\\n1,2\\n3,4,5\\n6,7\\n")
    >>> (chunk,) = iter_table_chunks(path, 10)
    >>> chunk[ERROR_COLUMN].tolist()[1], chunk["a"].tolist()[2]
    ('line 3: expected 2 fields, found 3', 6.0)
    """
    if bad_rows not in ("mark", "raise"):
        raise ValueError(f"bad_rows: expected 'mark' or 'raise', found {bad_rows!r}")
    source = Path(path)
    kind = table_format(source)
    if not source.is_file():
        raise DataNotFoundError(f"{source}: no such data file")
    pd = pandas()
    size = chunk_rows or 2**62
    try:
        if kind == "parquet":
            yield from _parquet_chunks(source, chunk_rows)
            return
        with _open_binary(source) as fh:
            feed = _LineFeed(fh)
            if kind == "jsonl":
                parts: Iterator[Any] = _json_chunks(pd, feed, size)
            else:
                parts = _csv_chunks(pd, feed, "\t" if kind == "tsv" else ",", size)
            for chunk in parts:
                if not lazy or bad_rows == "raise":
                    chunk = as_frame(chunk)
                if bad_rows == "raise" and ERROR_COLUMN in chunk.columns:
                    first = next(v for v in chunk[ERROR_COLUMN].tolist() if isinstance(v, str))
                    raise InvalidDataError(f"{source}: cannot read as {kind}: {first}")
                yield chunk
    except (ValueError, pd.errors.ParserError, UnicodeDecodeError, OSError, EOFError) as err:
        if isinstance(err, InvalidDataError):
            raise
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise InvalidDataError(f"{source}: cannot read as {kind}: {first}") from None


def _open_binary(source: Path) -> Any:
    import gzip

    return gzip.open(source, "rb") if source.name.lower().endswith(".gz") else open(source, "rb")


class _LineFeed:
    """The lines of a binary file as text, numbered, each kept in ``taken`` until cleared (the
    raw text of the record being parsed), noting the first line that is not UTF-8."""

    def __init__(self, fh: Any) -> None:
        self._lines = iter(fh)
        self.line = 0  # lines read so far
        self.taken: list[str] = []
        self.ended = False
        self.bad: str | None = None  # "line L: not UTF-8 text..." of the lines taken

    def __iter__(self) -> _LineFeed:
        return self

    def __next__(self) -> str:
        try:
            raw = next(self._lines)
        except StopIteration:
            self.ended = True
            raise
        self.line += 1
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as err:
            text = raw.decode("utf-8", "replace")
            if self.bad is None:
                self.bad = (
                    f"line {self.line}: not UTF-8 text (byte 0x{raw[err.start]:02x} at "
                    f"column {err.start + 1})"
                )
        if self.line == 1 and text.startswith("\ufeff"):
            text = text[1:]  # a byte-order mark, as pandas drops it
        self.taken.append(text)
        return text

    def start(self) -> int:
        """Forget the lines taken; the number of the next line."""
        self.taken.clear()
        self.bad = None
        return self.line + 1


#: lines read at a time from a CSV or TSV file
BLOCK_LINES = 2048

#: rows pandas parses at once (a whole number of chunks, at least one): one call costs about
#: as much as 300 rows; the types of a column are inferred over such a group of rows
GROUP_ROWS = 8192


def _csv_chunks(pd: Any, feed: _LineFeed, sep: str, size: int) -> Iterator[Any]:
    """CSV or TSV chunks: each record split into fields (by the csv module once a quote is
    seen: quoted separators and line breaks), its fields counted; the raw text of the good
    records parsed by pandas.  Up to the first quote, the chunks are :class:`CsvRows`: the
    lines' text, counted, and parsed only when :meth:`CsvRows.frame` is asked for (by the
    process that explains them)."""
    import csv

    reader = csv.reader(feed, delimiter=sep)
    header: list[str] | None = None
    while header is None:
        feed.start()
        try:
            fields = next(reader)
        except StopIteration:
            raise pd.errors.EmptyDataError("No columns to parse from file") from None
        if "".join(feed.taken).strip():
            if feed.bad is not None:
                raise InvalidDataError(feed.bad.replace("line", "header line", 1))
            header = fields
    header_text = _with_break("".join(feed.taken))
    width = len(header)
    group = size * max(1, GROUP_ROWS // size)
    # the lines not yet in a group (until the first quote): their text, the number of the
    # first, and the positions of the rows among them (a blank line is no row)
    pending: list[str] = []
    first_line = feed.line + 1
    rows_at: list[int] = []
    start = 0
    yielded = False

    def grouped(end: int, rows: int) -> Iterator[CsvRows]:
        """The chunks of the group of the pending lines up to ``end``, holding ``rows``."""
        text = "\n".join(pending[:end]) + "\n"
        return CsvGroup(header_text, sep, width, text, first_line, start, rows, size).views()

    records = _csv_records(feed, sep, width)
    for block in records:
        if not isinstance(block, _CsvLines):
            break
        if not pending:
            first_line = block.first
        offset = len(pending)
        pending += block.texts
        rows_at += [offset + k for k in block.rows_at]
        while len(rows_at) >= group:  # a group's lines: up to the line of its next row
            end = rows_at[group] if group < len(rows_at) else len(pending)
            yield from grouped(end, group)
            yielded = True
            start += group
            pending, first_line = pending[end:], first_line + end
            rows_at = [r - end for r in rows_at[group:]]
    else:  # the end of the file, no quote met
        if rows_at:
            yield from grouped(len(pending), len(rows_at))
        elif not yielded:
            yield _csv_frame(pd, header_text, sep, [], [])[0]
        return
    # a quote: the csv module splits the records from here on, parsed in this process
    entries, lines = _line_entries(pending, first_line, sep, width)
    split: Iterator[Any] = itertools.chain([block], records)
    for block_entries, block_lines in split:
        entries += block_entries
        lines += block_lines
        if len(entries) >= group:
            cut = len(entries) - len(entries) % size
            frame, good = _csv_frame(pd, header_text, sep, entries[:cut], lines[:cut])
            yield from _chunks(pd, frame, entries[:cut], good, start, size)
            yielded = True
            start += cut
            entries, lines = entries[cut:], lines[cut:]
    if entries or not yielded:
        frame, good = _csv_frame(pd, header_text, sep, entries, lines)
        yield from _chunks(pd, frame, entries, good, start, size) if entries else [frame]


class _CsvLines(NamedTuple):
    """A block of lines without quotes: their text (no line breaks), the number of the
    first, and the positions of those that are rows (not blank)."""

    texts: list[str]
    first: int
    rows_at: list[int]


def _line_entries(
    texts: list[str], first: int, sep: str, width: int
) -> tuple[list[tuple[str | None, str]], list[int]]:
    """The records of lines without quotes, one per line that is not blank: (error or None,
    raw text), and the line of each; a record is bad when its fields, counted with
    ``str.count``, are not ``width``."""
    entries: list[tuple[str | None, str]] = []
    lines: list[int] = []
    for k, text in enumerate(texts):
        if not text.strip():
            continue  # a blank line: no row (as for pandas)
        n = text.count(sep) + 1
        if n == width:
            entries.append((None, text + "\n"))
        else:
            entries.append((f"line {first + k}: expected {width} fields, found {n}", ""))
        lines.append(first + k)
    return entries, lines


def _csv_records(
    feed: _LineFeed, sep: str, width: int
) -> Iterator[_CsvLines | tuple[list[tuple[str | None, str]], list[int]]]:
    """The lines after the header, by blocks: a block without quotes (nor a lone carriage
    return) as :class:`_CsvLines`; from the first block that has one, the records the csv
    module splits, as (error or None, raw text) and the first line of each."""
    while True:
        raw = list(itertools.islice(feed._lines, BLOCK_LINES))
        if not raw:
            return
        blob = b"".join(raw)
        if b'"' not in blob and blob.count(b"\r") == blob.count(b"\r\n"):
            try:
                texts = blob.decode("utf-8").split("\n")
            except UnicodeDecodeError:
                texts = None
            if texts is not None:
                if len(texts) > len(raw):
                    texts.pop()  # the empty text after the last line break
                first = feed.line + 1
                feed.line += len(raw)
                yield _CsvLines(texts, first, [k for k, t in enumerate(texts) if t.strip()])
                continue
        feed._lines = itertools.chain(raw, feed._lines)  # the csv module takes over
        yield from _csv_module_records(feed, sep, width)
        return


class CsvGroup:
    """Rows of a CSV or TSV file as the text of their lines, parsed by pandas as one group,
    then cut in chunks of ``size`` rows, numbered from ``start``, as the file's other rows
    are (:func:`iter_table_chunks`).  Kept as text until a process explains them: the text
    travels to a worker in fewer bytes than a frame, and the worker parses it.  What is
    parsed is kept (not pickled): a worker parses a group once per task."""

    def __init__(
        self,
        header: str,
        sep: str,
        width: int,
        text: str,
        first: int,
        start: int,
        rows: int,
        size: int,
    ) -> None:
        self.header, self.sep, self.width, self.text = header, sep, width, text
        self.first, self.start, self.rows, self.size = first, start, rows, size
        self._parsed: tuple[Any, list[Any]] | None = None

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in vars(self).items() if k != "_parsed"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        vars(self).update(state, _parsed=None)

    def views(self) -> Iterator[CsvRows]:
        """The group's chunks, unparsed."""
        for lo in range(0, self.rows, self.size):
            yield CsvRows([(self, lo, min(lo + self.size, self.rows))])

    def parsed(self) -> tuple[Any, list[Any]]:
        """The group as one frame when each line is a good row (its chunks are slices of it),
        else None and its chunks; parsed on first use."""
        if self._parsed is None:
            pd = pandas()
            texts = self.text.split("\n")[:-1]
            # no blank line (each line is a row) and the fields of each counted right
            counts = set(map(operator.methodcaller("count", self.sep), texts))
            if len(texts) == self.rows and counts == {self.width - 1}:
                import io

                frame = pd.read_csv(
                    io.StringIO(self.header + self.text), sep=self.sep, index_col=False
                )
                if len(frame) == self.rows:
                    frame.index = pd.RangeIndex(self.start, self.start + self.rows)
                    self._parsed = frame, []
                    return self._parsed
            entries, lines = _line_entries(texts, self.first, self.sep, self.width)
            frame, good = _csv_frame(pd, self.header, self.sep, entries, lines)
            self._parsed = None, list(_chunks(pd, frame, entries, good, self.start, self.size))
        return self._parsed


class CsvRows:
    """Consecutive rows of a CSV or TSV file, unparsed: ranges ``(group, lo, hi)`` of
    :class:`CsvGroup` rows; what :func:`iter_table_chunks` yields with ``lazy=True``.
    :meth:`frame` gives the frame :func:`iter_table_chunks` would have given (several
    chunks: concatenated, as ``pandas.concat`` does).

    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "rows.csv"
    >>> _ = path.write_text("a,b\\n1,2\\n\\n3,4\\n5,6\\n")
    >>> rows = CsvRows.joined(list(iter_table_chunks(path, 2, lazy=True)))
    >>> len(rows), rows.index.tolist(), rows.frame()["a"].tolist()
    (3, [0, 1, 2], [1, 3, 5])
    """

    def __init__(self, parts: list[tuple[CsvGroup, int, int]]) -> None:
        self.parts = parts

    def __len__(self) -> int:
        return sum(hi - lo for _, lo, hi in self.parts)

    @property
    def index(self) -> Any:
        """The row numbers."""
        pd = pandas()
        ranges = [pd.RangeIndex(g.start + lo, g.start + hi) for g, lo, hi in self.parts]
        return ranges[0].append(ranges[1:]) if len(ranges) > 1 else ranges[0]

    @staticmethod
    def joined(rows: list[CsvRows]) -> CsvRows:
        """Several as one (consecutive rows of a group: one range)."""
        parts: list[tuple[CsvGroup, int, int]] = []
        for group, lo, hi in (part for r in rows for part in r.parts):
            if parts and parts[-1][0] is group and parts[-1][2] == lo:
                lo = parts.pop()[1]
            parts.append((group, lo, hi))
        return CsvRows(parts)

    def starts_group(self) -> int | None:
        """The rows of the group these rows start, when they start one."""
        group, lo, _ = self.parts[0]
        return group.rows if lo == 0 else None

    def frame(self) -> Any:
        """The rows parsed, as the chunks of :func:`iter_table_chunks`."""
        frames = []
        for group, lo, hi in self.parts:
            whole, chunks = group.parsed()
            if whole is not None:
                frames.append(whole if (lo, hi) == (0, group.rows) else whole.iloc[lo:hi])
                continue
            size = group.size
            for c in range(lo // size, (hi + size - 1) // size):
                chunk = chunks[c]
                a, b = max(lo - c * size, 0), min(hi - c * size, len(chunk))
                frames.append(chunk if (a, b) == (0, len(chunk)) else chunk.iloc[a:b])
        if len(frames) == 1:
            return frames[0]
        return pandas().concat(frames)


def as_frame(rows: Any) -> Any:
    """A chunk of :func:`iter_table_chunks` as a ``DataFrame`` (:class:`CsvRows` parsed)."""
    return rows.frame() if isinstance(rows, CsvRows) else rows


def _csv_module_records(
    feed: _LineFeed, sep: str, width: int
) -> Iterator[tuple[list[tuple[str | None, str]], list[int]]]:
    import csv

    reader = csv.reader(feed, delimiter=sep)
    entries: list[tuple[str | None, str]] = []
    lines: list[int] = []
    while True:
        line = feed.start()
        try:
            fields = next(reader)
        except StopIteration:
            break
        except csv.Error as err:
            entries.append((f"line {line}: {err}", ""))
            lines.append(line)
        else:
            raw = "".join(feed.taken)
            if not raw.strip():
                continue  # a blank line: no row
            if feed.bad is not None:
                entries.append((feed.bad, ""))
            elif feed.ended:
                message = "EOF inside a quoted value opened on this line (never closed)"
                entries.append((f"line {line}: {message}", ""))
            elif len(fields) != width:
                entries.append((f"line {line}: expected {width} fields, found {len(fields)}", ""))
            else:
                entries.append((None, _with_break(raw)))
            lines.append(line)
        if len(entries) >= BLOCK_LINES:
            yield entries, lines
            entries, lines = [], []
    if entries:
        yield entries, lines


def _with_break(text: str) -> str:
    return text if text.endswith(("\n", "\r")) else text + "\n"


def _csv_frame(
    pd: Any, header: str, sep: str, entries: list[tuple[str | None, str]], lines: list[int]
) -> tuple[Any, list[int]]:
    """The good records of ``entries`` parsed by pandas, and their positions; a record that
    pandas reads otherwise than the fields were counted is marked bad in ``entries``."""
    import io

    def parse(texts: list[str]) -> Any:
        return pd.read_csv(io.StringIO(header + "".join(texts)), sep=sep, index_col=False)

    good = [k for k, (error, _) in enumerate(entries) if error is None]
    try:
        frame = parse([entries[k][1] for k in good])
        ok = len(frame) == len(good)
    except (ValueError, pd.errors.ParserError):
        ok = False
    if not ok:  # some record pandas reads otherwise than the csv module: find it, mark it
        for k in good:
            try:
                alone = len(parse([entries[k][1]]))
                problem = None if alone == 1 else f"{alone} rows read from one"
            except (ValueError, pd.errors.ParserError) as err:
                problem = (str(err).strip().splitlines() or [type(err).__name__])[0]
            if problem is not None:
                entries[k] = (f"line {lines[k]}: cannot read as CSV: {problem}", "")
        good = [k for k, (error, _) in enumerate(entries) if error is None]
        frame = parse([entries[k][1] for k in good])
    return frame, good


def _chunks(
    pd: Any,
    frame: Any,
    entries: list[tuple[str | None, Any]],
    good: list[int],
    start: int,
    size: int,
) -> Iterator[Any]:
    """``entries`` cut in chunks of ``size`` rows, numbered from ``start``: the rows of
    ``frame`` (the good entries, at positions ``good``) and the bad rows put back in place."""
    if len(good) == len(entries) and len(entries) <= size:
        yield _with_errors(pd, frame, entries, good, start)
        return
    g = 0
    for first in range(0, len(entries), size):
        last = min(first + size, len(entries))
        h = g
        while h < len(good) and good[h] < last:
            h += 1
        part = frame.iloc[g:h]
        yield _with_errors(
            pd, part, entries[first:last], [k - first for k in good[g:h]], start + first
        )
        g = h


def _with_errors(
    pd: Any, frame: Any, entries: list[tuple[str | None, Any]], good: list[int], start: int
) -> Any:
    """``frame`` (the good rows) numbered from ``start``, with the bad rows put back in their
    places (missing values) and their messages in :data:`ERROR_COLUMN`."""
    n = len(entries)
    if len(good) == n:
        frame.index = pd.RangeIndex(start, start + n)
        return frame
    frame.index = pd.Index([start + k for k in good], dtype="int64")
    frame = frame.reindex(pd.RangeIndex(start, start + n))
    frame[ERROR_COLUMN] = pd.Series([e for e, _ in entries], index=frame.index, dtype=object)
    return frame


#: what a JSON value is, in an error message
_JSON_KINDS = {list: "an array", str: "a string", bool: "a boolean", type(None): "null"}


def _json_chunks(pd: Any, feed: _LineFeed, size: int) -> Iterator[Any]:
    """JSON Lines chunks: each line parsed by the json module, each object a row (its values
    as JSON says: ``true`` a boolean, ``1`` an integer)."""
    import json

    entries: list[tuple[str | None, Any]] = []
    start = 0
    yielded = False
    while True:
        line = feed.start()
        try:
            text = next(feed)
        except StopIteration:
            break
        if not text.strip():
            continue
        if feed.bad is not None:
            entries.append((feed.bad, None))
        else:
            try:
                value = json.loads(text)
            except json.JSONDecodeError as err:
                entries.append((f"line {line}: not JSON: {err.msg} (column {err.colno})", None))
            except (ValueError, RecursionError) as err:  # a number too long, nesting too deep
                detail = str(err).strip() or type(err).__name__
                entries.append((f"line {line}: not JSON: {detail}", None))
            else:
                if isinstance(value, dict):
                    entries.append((None, value))
                else:
                    found = _JSON_KINDS.get(type(value), "a number")
                    entries.append((f"line {line}: expected a JSON object, found {found}", None))
        if len(entries) >= size:
            yield _json_frame(pd, entries, start)
            yielded = True
            start += len(entries)
            entries = []
    if entries or not yielded:
        yield _json_frame(pd, entries, start)


def _json_frame(pd: Any, entries: list[tuple[str | None, Any]], start: int) -> Any:
    good = [k for k, (error, _) in enumerate(entries) if error is None]
    frame = pd.DataFrame([entries[k][1] for k in good])
    return _with_errors(pd, frame, entries, good, start)


def count_rows(path: str | os.PathLike[str]) -> int:
    """How many rows the table in ``path`` holds, counted cheaply, without parsing it: a
    Parquet file's metadata, or the lines of a text table (less a CSV's or TSV's header),
    read in blocks (through gzip for ``.gz``).  A quoted CSV value holding a line break
    counts as one row more, and blank lines count too: a count for a progress bar.

    Raises
    ------
    DataNotFoundError
        When the file does not exist.
    InvalidDataError
        When the format is unknown or a Parquet file's metadata cannot be read.
    """
    source = Path(path)
    kind = table_format(source)
    if not source.is_file():
        raise DataNotFoundError(f"{source}: no such data file")
    if kind == "parquet":
        try:
            import pyarrow.parquet as pq

            return int(pq.ParquetFile(source).metadata.num_rows)
        except ImportError:
            raise MissingExtraError(
                "reading Parquet needs pyarrow: pip install -e '.[scale]' from a clone of xpg"
            ) from None
        except (OSError, ValueError) as err:
            raise InvalidDataError(f"{source}: cannot read as parquet: {err}") from None
    import gzip

    lines, last = 0, b"\n"
    with (
        gzip.open(source, "rb") if source.name.lower().endswith(".gz") else open(source, "rb") as fh
    ):
        while block := fh.read(1 << 20):
            lines += block.count(b"\n")
            last = block[-1:]
    lines += last != b"\n"  # a last line without its line break
    return max(0, lines - (kind != "jsonl"))


def _parquet_chunks(source: Path, chunk_rows: int | None) -> Iterator[Any]:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise MissingExtraError(
            "reading Parquet needs pyarrow: pip install -e '.[scale]' from a clone of xpg"
        ) from None
    pd = pandas()
    start = 0
    with pq.ParquetFile(source) as parquet:
        batches = parquet.iter_batches(batch_size=chunk_rows or parquet.metadata.num_rows or 1)
        for batch in batches:
            chunk = batch.to_pandas()
            chunk.index = pd.RangeIndex(start, start + len(chunk))
            start += len(chunk)
            yield chunk
