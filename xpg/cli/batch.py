"""``xpg explain MODEL.json --data ROWS``: every row of a table explained, one JSON line each.

Rows are read in chunks (:func:`xpg.io.tables.iter_table_chunks`: CSV, TSV, JSON Lines,
each optionally gzipped, or Parquet), explained (:class:`xpg.explain.batch.BatchExplainer`)
in this process, on ``--workers N`` local processes or on a Dask cluster (``--scheduler``,
see :mod:`xpg.explain.parallel`), and written as JSON Lines to standard output or ``-o
OUT.jsonl`` (appended and flushed chunk by chunk, so that an interrupted run keeps what it
had finished; ``--resume`` skips the rows already in OUT), or to ``-o OUT.parquet`` (written
whole, at the end).  One line on standard error sums up: rows, errors, rows per second.
Exit status 0 when every row was explained, 1 when some rows gave error records, 2 for bad
arguments.

Examples
--------
>>> import argparse
>>> parser = argparse.ArgumentParser(prog="xpg")
>>> register(parser.add_subparsers(dest="command"))
>>> args = parser.parse_args(["explain", "m.json", "--data", "rows.csv", "--workers", "2"])
>>> args.func is cmd_explain, args.data, args.workers, args.kinds
(True, 'rows.csv', 2, 'axp,cxp')
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from xpg.cli.common import add_command, positive_float, positive_int
from xpg.errors import InvalidParameterError, ParseError

#: rows per chunk read, sent to a worker, and flushed to OUT
DEFAULT_CHUNK_ROWS = 256


# -- output ----------------------------------------------------------------------------------------
def output_kind(path: str | None) -> str | None:
    """``"jsonl"`` or ``"parquet"`` from the name of ``-o`` (None: standard output).

    >>> output_kind("out.jsonl"), output_kind(None)
    ('jsonl', None)
    """
    if path is None or path == "-":
        return None
    name = path.lower()
    if name.endswith((".jsonl", ".ndjson")):
        return "jsonl"
    if name.endswith(".parquet"):
        return "parquet"
    raise InvalidParameterError(f"-o {path}: expected a file ending in .jsonl or .parquet")


def read_done(path: Path) -> tuple[set[int], int]:
    """The rows already in a JSON Lines output, and how many of them are errors.  A torn last
    line (a run killed while writing) is cut off the file, so that its row is done again.

    Raises
    ------
    ParseError
        When a whole line of the file is not a record of ``xpg explain``.
    """
    if not path.exists():
        return set(), 0
    data = path.read_bytes()
    end = data.rfind(b"\n") + 1
    if end < len(data):
        with open(path, "r+b") as fh:
            fh.truncate(end)
    done: set[int] = set()
    errors = 0
    for number, line in enumerate(data[:end].splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError):
            record = None
        if not isinstance(record, dict) or not isinstance(record.get("row"), int):
            raise ParseError(
                "expected a record of 'xpg explain' (a JSON object with a row number); "
                "cannot resume into this file",
                path=str(path),
                line=number,
            )
        done.add(record["row"])
        errors += "error" in record
    return done, errors


class JsonLinesWriter:
    """JSON Lines text (encoded by the workers) on a stream, flushed after every chunk."""

    def __init__(self, stream: IO[str], owned: bool) -> None:
        self.stream = stream
        self.owned = owned

    def write(self, chunk: Any) -> None:
        """Write an :class:`~xpg.explain.batch.EncodedChunk`'s text and flush it."""
        self.stream.write(chunk.text)
        self.stream.flush()

    def close(self) -> None:
        if self.owned:
            self.stream.close()


class ParquetWriter:
    """Records kept in memory and written as one Parquet file at the end, atomically."""

    def __init__(self, path: str, columns: list[tuple[str, str]]) -> None:
        self.path = path
        self.columns = columns
        self.records: list[dict[str, Any]] = []

    def write(self, records: list[dict[str, Any]]) -> None:
        self.records += records

    def close(self) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        from xpg.io.atomic import write_bytes_atomic

        types = {
            "int": pa.int64(),
            "str": pa.string(),
            "bool": pa.bool_(),
            "float": pa.float64(),
            "names": pa.list_(pa.string()),
            "lists": pa.list_(pa.list_(pa.string())),
            "json": pa.string(),  # nested values of mixed types, as their JSON text
        }
        schema = pa.schema([(name, types[kind]) for name, kind in self.columns])
        self.records.sort(key=lambda r: r["row"])
        for name, kind in self.columns:
            if kind == "json":
                import json

                for r in self.records:
                    if name in r:
                        r[name] = json.dumps(r[name])
        table = pa.Table.from_pylist(self.records, schema=schema)
        sink = pa.BufferOutputStream()
        pq.write_table(table, sink)
        write_bytes_atomic(self.path, sink.getvalue().to_pybytes())


def parquet_columns(kinds: tuple[str, ...], target: str | None) -> list[tuple[str, str]]:
    """The columns of the Parquet output, and their types, for these kinds.

    >>> [name for name, _ in parquet_columns(("axp",), "y")]
    ['row', 'prediction', 'label', 'axps', 'complete', 'seconds', 'error']
    """
    columns = [("row", "int"), ("prediction", "str")]
    if target is not None:
        columns.append(("label", "str"))
    if "axp" in kinds:
        columns.append(("axps", "lists"))
    if "cxp" in kinds:
        columns.append(("cxps", "lists"))
    if "axp" in kinds or "cxp" in kinds:
        columns.append(("complete", "bool"))
    if "features" in kinds:
        columns += [("necessary", "names"), ("relevant", "names"), ("irrelevant", "names")]
    if "robustness" in kinds:
        columns.append(("robustness", "json"))
    return [*columns, ("seconds", "float"), ("error", "str")]


# -- input -----------------------------------------------------------------------------------------
def todo_chunks(data: str, chunk_rows: int, done: set[int], target: str | None) -> Iterator[Any]:
    """The chunks of the table, without the rows in ``done``; the first chunk checks that the
    target column exists."""
    from xpg.io.tables import iter_table_chunks

    first = True
    for frame in iter_table_chunks(data, chunk_rows):
        if first and target is not None and target not in frame.columns:
            raise InvalidParameterError(
                f"--target {target}: {data} has no such column "
                f"(columns: {', '.join(map(str, frame.columns))})"
            )
        first = False
        if done:
            frame = frame[~frame.index.isin(done)]
        if len(frame):
            yield frame


# -- the command -----------------------------------------------------------------------------------
def _progress(chunks: Iterable[Any]) -> Iterator[Any]:
    """A tqdm bar on standard error, only when it is a terminal."""
    if not sys.stderr.isatty():
        yield from chunks
        return
    from tqdm import tqdm

    with tqdm(unit=" rows", file=sys.stderr, dynamic_ncols=True) as bar:
        for chunk in chunks:
            bar.update(_rows_errors(chunk)[0])
            yield chunk


def _rows_errors(chunk: Any) -> tuple[int, int]:
    """Rows and error records of a route's chunk: records, or their encoded text."""
    if isinstance(chunk, list):
        return len(chunk), sum("error" in r for r in chunk)
    return chunk.rows, chunk.errors


def _check_arguments(args: argparse.Namespace) -> str | None:
    kind = output_kind(args.output)
    if args.resume and kind != "jsonl":
        raise InvalidParameterError(
            "--resume continues a JSON Lines output: give -o OUT.jsonl "
            "(a Parquet file is only written at the end of a run)"
        )
    if args.scheduler is not None and args.workers != 1:
        raise InvalidParameterError(
            "--workers and --scheduler exclude each other (local:N starts N Dask workers)"
        )
    return kind


def cmd_explain(args: argparse.Namespace) -> int:
    """Handler of ``xpg explain``."""
    from xpg.explain.batch import BatchExplainer, parse_kinds
    from xpg.explain.parallel import dask_client, run_dask, run_in_process, run_processes
    from xpg.io.model_json import read_model
    from xpg.io.tables import pandas, table_format

    kind = _check_arguments(args)
    kinds = parse_kinds(args.kinds)
    table_format(args.data)
    if not Path(args.data).is_file():
        from xpg.errors import DataNotFoundError

        raise DataNotFoundError(f"{args.data}: no such data file")
    pandas()
    explainer = BatchExplainer(
        read_model(args.model),  # a tree ensemble too large to compile stays one
        kinds=kinds,
        limit=args.limit,
        timeout=args.timeout,
        target=args.target,
    )
    done: set[int] = set()
    earlier_errors = 0
    if args.resume:
        done, earlier_errors = read_done(Path(args.output))
    start = time.perf_counter()
    client = cluster = None
    writer: JsonLinesWriter | ParquetWriter
    if kind == "parquet":
        writer = ParquetWriter(args.output, parquet_columns(kinds, args.target))
    elif kind == "jsonl":
        try:
            stream = open(args.output, "a" if args.resume else "w", encoding="utf-8")  # noqa: SIM115
        except OSError as err:
            from xpg.errors import OutputError

            raise OutputError(f"{args.output}: cannot write: {err.strerror}") from None
        writer = JsonLinesWriter(stream, owned=True)
    else:
        writer = JsonLinesWriter(sys.stdout, owned=False)
    rows = errors = 0
    try:
        chunks = todo_chunks(args.data, args.chunk_rows, done, args.target)
        encode = kind != "parquet"  # JSON Lines: the workers encode, this process copies text
        if args.scheduler is not None:
            client, cluster = dask_client(args.scheduler)
            results = run_dask(explainer, chunks, client, encode=encode)
        elif args.workers > 1:
            results = run_processes(explainer, chunks, args.workers, encode=encode)
        else:
            results = run_in_process(explainer, chunks, encode=encode)
        for chunk in _progress(results):
            writer.write(chunk)
            n, bad = _rows_errors(chunk)
            rows += n
            errors += bad
        if kind == "parquet":
            writer.close()
    finally:
        if kind != "parquet":
            writer.close()
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()
    seconds = time.perf_counter() - start
    rate = rows / seconds if seconds > 0 else 0.0
    resumed = (
        f"; {len(done)} rows already in {args.output} ({earlier_errors} errors) were skipped"
        if args.resume
        else ""
    )
    print(
        f"xpg explain: {rows} rows, {errors} errors, {rate:.1f} rows/s ({seconds:.2f} s){resumed}",
        file=sys.stderr,
    )
    return 1 if errors or earlier_errors else 0


def register(subparsers: Any) -> None:
    """Add ``explain`` to the ``xpg`` sub-commands."""
    p = add_command(
        subparsers,
        "explain",
        cmd_explain,
        help="explain every row of a data table (JSON Lines or Parquet out)",
        description="Explain every row of a data table: one record per row, "
        '{"row", "prediction", "axps", "cxps", "complete", "seconds"} or {"row", "error"}; '
        "JSON Lines on standard output or -o OUT.jsonl (flushed chunk by chunk), or "
        "-o OUT.parquet (written at the end). Exit status 0 when every row was explained, "
        "1 when some gave errors, 2 for bad arguments.",
        file_arguments=False,
    )
    p.add_argument("model", metavar="MODEL.json", help="a model file in xpg's JSON format")
    p.add_argument(
        "--data",
        required=True,
        metavar="ROWS",
        help="the rows: .csv, .tsv, .jsonl (each optionally .gz) or .parquet; columns the "
        "model does not use are ignored",
    )
    p.add_argument(
        "-o",
        "--output",
        metavar="OUT",
        help="OUT.jsonl or OUT.parquet (default: JSON Lines on standard output)",
    )
    p.add_argument(
        "--kinds",
        default="axp,cxp",
        help="what each record holds: some of axp, cxp, features (necessary/relevant/"
        "irrelevant features), robustness (exact l-infinity distance to another class, with a "
        "counterexample; in Parquet as JSON text; not for a tree ensemble too large to "
        "compile, whose rows are explained by the SAT route); default axp,cxp",
    )
    p.add_argument(
        "--limit", type=positive_int, help="stop each row's enumeration after N explanations"
    )
    p.add_argument(
        "--timeout", type=positive_float, help="stop each row's enumeration after S seconds"
    )
    p.add_argument(
        "--workers",
        type=positive_int,
        default=1,
        help="local processes (default 1: in this process); records stay in row order",
    )
    p.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="a Dask cluster: tcp://HOST:PORT (running 'dask scheduler' and workers with xpg "
        "installed) or local:N (a LocalCluster of N processes); records are written as they "
        "arrive. Needs pip install 'xpg-toolkit[scale]'",
    )
    p.add_argument(
        "--resume",
        action="store_true",
        help="skip the rows already in -o OUT.jsonl and append the others",
    )
    p.add_argument("--target", metavar="COLUMN", help='a column copied into each record as "label"')
    p.add_argument(
        "--json",
        action="store_true",
        help="accepted as by every command that prints results: the records are JSON always",
    )
    p.add_argument(
        "--chunk-rows",
        type=positive_int,
        default=DEFAULT_CHUNK_ROWS,
        help=f"rows per chunk read, sent to a worker and flushed (default {DEFAULT_CHUNK_ROWS})",
    )
