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

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from xpg.errors import DataNotFoundError, InvalidDataError, MissingExtraError

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
        When the format is unknown or the file cannot be parsed as that format.
    """
    frames = list(iter_table_chunks(path, None))
    if len(frames) == 1:
        return frames[0]
    return pandas().concat(frames, ignore_index=True)


def iter_table_chunks(path: str | os.PathLike[str], chunk_rows: int | None) -> Iterator[Any]:
    """The table in ``path`` as ``DataFrame`` chunks of at most ``chunk_rows`` rows (all rows
    in one chunk for ``None``), read lazily: a file larger than memory can be streamed.

    The index of each chunk continues the previous one's, so ``chunk.index`` holds row numbers
    counted from 0 over the whole file.
    """
    source = Path(path)
    kind = table_format(source)
    if not source.is_file():
        raise DataNotFoundError(f"{source}: no such data file")
    pd = pandas()
    try:
        if kind == "parquet":
            yield from _parquet_chunks(source, chunk_rows)
            return
        if kind == "jsonl":
            reader = pd.read_json(source, lines=True, chunksize=chunk_rows or 2**62)
        else:
            sep = "\t" if kind == "tsv" else ","
            reader = pd.read_csv(source, sep=sep, chunksize=chunk_rows or 2**62)
        with reader:
            start = 0
            for chunk in reader:
                chunk.index = pd.RangeIndex(start, start + len(chunk))
                start += len(chunk)
                yield chunk
    except (ValueError, pd.errors.ParserError, UnicodeDecodeError, OSError) as err:
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise InvalidDataError(f"{source}: cannot read as {kind}: {first}") from None


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
