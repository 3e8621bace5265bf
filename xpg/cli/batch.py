"""``xpg explain MODEL.json --data ROWS``: every row of a table explained, one JSON line each.

Rows are read in chunks (:func:`xpg.io.tables.iter_table_chunks`: CSV, TSV, JSON Lines,
each optionally gzipped, or Parquet), explained (:class:`xpg.explain.batch.BatchExplainer`)
in this process, on ``--workers N`` local processes or on a Dask cluster (``--scheduler``,
see :mod:`xpg.explain.parallel`), and written as JSON Lines to standard output or ``-o
OUT.jsonl``, or to ``-o OUT.parquet`` (written whole, at the end).

Each row's enumeration has a budget (``--limit``, default 100 explanations; ``--timeout``,
default 10 s for a tree ensemble or decision list too large to compile, none for a compiled
graph; ``0`` or ``none`` lifts either); a line on standard error says how many rows reached it.

JSON Lines are written row by row as rows are done (the parallel routes send a slow model's
rows one by one), and flushed after every row that took :data:`FLUSH_SECONDS` or more (fast
rows: every :data:`FLUSH_EVERY` seconds).  Ctrl-C (or SIGTERM)
stops the run within moments: worker processes are terminated, every row finished so far is
written, whole lines only, and ``--resume`` continues from there.  Every JSON Lines record
ends with ``"model"``, the fingerprint of the model file (:func:`model_fingerprint`), which
``--resume`` checks.  One line on standard error sums up: rows, errors, rows per second.
Exit status 0 when every row was explained, 1 when some rows gave error records, 2 for bad
arguments, 130 (SIGINT) or 143 (SIGTERM) when interrupted.

Examples
--------
>>> import argparse
>>> parser = argparse.ArgumentParser(prog="xpg")
>>> register(parser.add_subparsers(dest="command"))
>>> args = parser.parse_args(["explain", "m.json", "--data", "rows.csv", "--workers", "2"])
>>> args.func is cmd_explain, args.data, args.workers, args.kinds, args.limit, args.timeout
(True, 'rows.csv', 2, 'axp,cxp', 100, 'auto')
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any, NamedTuple

from xpg.cli.common import Terminated, add_command, positive_int, sigterm_raises
from xpg.errors import InvalidParameterError, ParseError

#: rows per chunk read (and at most per task sent to a worker)
DEFAULT_CHUNK_ROWS = 256
#: the seconds a task sent to a worker should take, about (a slow model's rows go one by one)
TASK_SECONDS = 0.25
#: JSON Lines output is flushed after a chunk of rows that took this long (seconds: a slow
#: row is on disk as soon as it is done; a flush costs about 2 us), and else once this long
#: has passed since the last flush
FLUSH_SECONDS = 0.001
FLUSH_EVERY = 0.1
#: what ``--limit`` and ``--timeout`` take for "no limit"
UNLIMITED = ("0", "none")
#: the defaults of ``--limit`` and ``--timeout`` (on the ensemble route), those of
#: :class:`xpg.explain.batch.BatchExplainer` (repeated here: building the parser must not
#: import numpy)
DEFAULT_LIMIT = 100
DEFAULT_ORACLE_TIMEOUT = 10.0


# -- the budget ------------------------------------------------------------------------------------
def budget_count(text: str) -> int | None:
    """``--limit``: a positive number of explanations, or ``0``/``none`` for no limit (None).

    >>> budget_count("20"), budget_count("0"), budget_count("none")
    (20, None, None)
    """
    if text.strip().lower() in UNLIMITED:
        return None
    try:
        return positive_int(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(
            f"expected a positive integer, or 0 or none for no limit, found {text!r}"
        ) from None


def budget_seconds(text: str) -> float | str | None:
    """``--timeout``: a positive number of seconds, ``0``/``none`` for no limit (None), or
    ``auto`` (the default: :data:`DEFAULT_ORACLE_TIMEOUT` for a tree ensemble too large to
    compile, no limit for a compiled graph).

    >>> budget_seconds("2.5"), budget_seconds("0"), budget_seconds("NONE"), budget_seconds("auto")
    (2.5, None, None, 'auto')
    """
    word = text.strip().lower()
    if word in UNLIMITED:
        return None
    if word == "auto":
        return "auto"
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(
            "expected a positive number of seconds, 0 or none for no limit, or auto, "
            f"found {text!r}"
        )
    return value


def budget_text(limit: int | None, timeout: float | None) -> str:
    """The per-row budget in words.

    >>> budget_text(100, 10.0), budget_text(None, 2.5), budget_text(100, None)
    ('100 explanations or 10 s', '2.5 s', '100 explanations')
    """
    parts = [] if limit is None else [f"{limit} explanations"]
    if timeout is not None:
        parts.append(f"{timeout:g} s")
    return " or ".join(parts) or "none"


# -- the model's fingerprint -----------------------------------------------------------------------
def model_fingerprint(path: str) -> str:
    """``sha256:`` and 16 hex digits of the model file's canonical JSON (keys sorted, no
    spaces): the same for the same model however the file is laid out.

    >>> import tempfile, os
    >>> a, b = (os.path.join(tempfile.mkdtemp(), "m.json") for _ in range(2))
    >>> _ = open(a, "w").write('{"b": 1, "a": [1.5, "x"]}')
    >>> _ = open(b, "w").write('{\\n "a": [1.5, "x"],\\n "b": 1\\n}\\n')
    >>> model_fingerprint(a) == model_fingerprint(b), model_fingerprint(a)[:7]
    (True, 'sha256:')

    Raises
    ------
    ParseError
        When the file cannot be read or is not JSON (as the model reader says).
    """
    from xpg.io.json_text import parse_json
    from xpg.io.xpg_format import read_text

    doc = parse_json(read_text(path, "JSON text"), path=path)
    digest = hashlib.sha256()
    try:
        text = json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        digest.update(text.encode("utf-8"))
    except RecursionError:  # a document deeper than json.dumps goes: the same text, by a loop
        digest = hashlib.sha256()
        todo: list[Any] = [doc]
        while todo:
            item = todo.pop()
            if isinstance(item, bytes):  # text already made
                digest.update(item)
            elif isinstance(item, dict):
                parts: list[Any] = [b"{"]
                for k, key in enumerate(sorted(item)):
                    name = json.dumps(key, ensure_ascii=False)
                    parts += [(b"," if k else b"") + name.encode("utf-8") + b":", item[key]]
                todo += [*parts, b"}"][::-1]
            elif isinstance(item, list):
                parts = [b"["]
                for k, value in enumerate(item):
                    parts += [b","] if k else []
                    parts.append(value)
                todo += [*parts, b"]"][::-1]
            else:
                digest.update(json.dumps(item, ensure_ascii=False).encode("utf-8"))
    return "sha256:" + digest.hexdigest()[:16]


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


class Done(NamedTuple):
    """What a JSON Lines output already holds: its rows, how many of them are errors, and
    the model fingerprints its records carry (none in a file written before they existed)."""

    rows: set[int]
    errors: int
    models: set[str]


def read_done(path: Path, model: str | None = None, model_path: str = "MODEL") -> Done:
    """The rows already in a JSON Lines output.  A torn last line (a run killed while
    writing) is cut off the file, so that its row is done again.

    Raises
    ------
    ParseError
        When a whole line of the file is not a record of ``xpg explain``.
    InvalidParameterError
        When ``model`` (a fingerprint) is given and the records were written with another
        model (the file is left untouched).
    """
    if not path.exists():
        return Done(set(), 0, set())
    data = path.read_bytes()
    end = data.rfind(b"\n") + 1
    done: set[int] = set()
    errors = 0
    models: set[str] = set()
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
        if isinstance(record.get("model"), str):
            models.add(record["model"])
    others = sorted(models - {model}) if model is not None else []
    if others:
        raise InvalidParameterError(
            f"--resume: {path} holds the records of another model ({', '.join(others)}), "
            f"not of {model_path} ({model}): give another -o file, or resume with the model "
            "that wrote it"
        )
    if end < len(data):
        with open(path, "r+b") as fh:
            fh.truncate(end)
    return Done(done, errors, models)


class JsonLinesWriter:
    """JSON Lines text (encoded by the workers) on a stream, flushed after a chunk whose rows
    took :data:`FLUSH_SECONDS` or more, and else when :data:`FLUSH_EVERY` seconds have passed
    since the last flush."""

    def __init__(self, stream: IO[str], owned: bool) -> None:
        self.stream = stream
        self.owned = owned
        self._flushed = time.perf_counter()

    def write(self, chunk: Any) -> None:
        """Write an :class:`~xpg.explain.batch.EncodedChunk`'s text, flushed if it is time."""
        self.stream.write(chunk.text)
        now = time.perf_counter()
        if chunk.seconds >= FLUSH_SECONDS or now - self._flushed >= FLUSH_EVERY:
            self.stream.flush()
            self._flushed = now

    def close(self) -> None:
        """Flush what is written; close the stream if it is the writer's."""
        try:
            self.stream.flush()
        finally:
            if self.owned:
                self.stream.close()


class ParquetWriter:
    """Records kept in memory and written as one Parquet file at the end, atomically; the
    model's fingerprint goes in the file's metadata (``xpg.model``)."""

    def __init__(self, path: str, columns: list[tuple[str, str]], model: str) -> None:
        self.path = path
        self.columns = columns
        self.model = model
        self.records: list[dict[str, Any]] = []

    def write(self, records: Any) -> None:
        """Keep a route's chunk of records."""
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
        schema = pa.schema(
            [(name, types[kind]) for name, kind in self.columns],
            metadata={"xpg.model": self.model},
        )
        self.records.sort(key=lambda r: r["row"])
        for name, kind in self.columns:
            if kind == "json":
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
        if "conditions" in kinds:
            columns += [("conditions", "lists"), ("counterexamples", "json")]
            columns.append(("counterexample_classes", "names"))
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
class Progress:
    """A tqdm bar on standard error, only when it is a terminal (or ``enabled``): ``total``
    rows to do (so that it shows the time left), advanced by each result's rows.

    >>> bar = Progress(3, enabled=False)
    >>> bar.update(2); bar.close()
    """

    def __init__(self, total: int | None, enabled: bool | None = None) -> None:
        self.bar: Any = None
        if enabled if enabled is not None else sys.stderr.isatty():
            from tqdm import tqdm

            class Bar(tqdm):  # type: ignore[type-arg]
                monitor_interval = 0  # no monitor thread: workers are forked while none runs

            self.bar = Bar(total=total, unit=" rows", file=sys.stderr, dynamic_ncols=True)

    def update(self, rows: int) -> None:
        """Advance the bar by ``rows`` rows."""
        if self.bar is not None:
            self.bar.update(rows)

    def close(self, finished: bool = False) -> None:
        """Close the bar; a finished run's total becomes the rows done (the count of a CSV's
        lines can exceed its rows: a quoted value may hold a line break)."""
        bar, self.bar = self.bar, None
        if bar is None:
            return
        if finished and bar.total != bar.n:
            bar.total = bar.n
            bar.refresh()
        bar.close()


def rows_to_do(data: str, done: set[int]) -> int | None:
    """How many rows the run has to explain (for the progress bar): the table's rows, counted
    cheaply (:func:`xpg.io.tables.count_rows`), less those done; None when they cannot be
    counted."""
    from xpg.errors import XpgError
    from xpg.io.tables import count_rows

    try:
        total = count_rows(data)
    except (XpgError, OSError):
        return None
    return max(0, total - sum(1 for row in done if row < total))


class Tally(NamedTuple):
    """What a route's chunk holds: rows, error records, rows stopped at their budget."""

    rows: int
    errors: int
    incomplete: int


def tally(chunk: Any) -> Tally:
    """The :class:`Tally` of a route's chunk: records, or their encoded text.

    >>> tally([{"row": 0, "complete": False}, {"row": 1, "error": "bad"}])
    Tally(rows=2, errors=1, incomplete=1)
    """
    if isinstance(chunk, list):
        from xpg.explain.batch import chunk_counts

        errors, incomplete, _ = chunk_counts(chunk)
        return Tally(len(chunk), errors, incomplete)
    return Tally(chunk.rows, chunk.errors, chunk.incomplete)


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


def _is_solver_interrupt(err: BaseException) -> bool:
    """An error a solver raises instead of KeyboardInterrupt when Ctrl-C arrives during a
    call (see :func:`xpg.explain.batch._is_interrupt`)."""
    from xpg.explain.batch import _is_interrupt

    return _is_interrupt(err)


def cmd_explain(args: argparse.Namespace) -> int:
    """Handler of ``xpg explain``."""
    from xpg.explain.batch import BatchExplainer, parse_kinds
    from xpg.explain.engine import Explainer
    from xpg.explain.parallel import (
        dask_client,
        run_dask,
        run_in_process,
        run_processes,
        stop_local_cluster,
    )
    from xpg.io.model_json import read_model
    from xpg.io.tables import pandas, table_format

    kind = _check_arguments(args)
    kinds = parse_kinds(args.kinds)
    table_format(args.data)
    if not Path(args.data).is_file():
        from xpg.errors import DataNotFoundError

        raise DataNotFoundError(f"{args.data}: no such data file")
    pandas()
    model = read_model(args.model)
    fingerprint = model_fingerprint(args.model)
    explainer = BatchExplainer(
        Explainer(model, many=True),  # for many rows: compiled when it fits its budget
        kinds=kinds,
        limit=args.limit,
        timeout=args.timeout,
        target=args.target,
        model_id=None if kind == "parquet" else fingerprint,
    )
    done = Done(set(), 0, set())
    if args.resume:
        done = read_done(Path(args.output), fingerprint, args.model)
    start = time.perf_counter()
    client = cluster = None
    writer: JsonLinesWriter | ParquetWriter
    if kind == "parquet":
        writer = ParquetWriter(args.output, parquet_columns(kinds, args.target), fingerprint)
    elif kind == "jsonl":
        try:
            stream = open(args.output, "a" if args.resume else "w", encoding="utf-8")  # noqa: SIM115
        except OSError as err:
            from xpg.errors import OutputError

            raise OutputError(f"{args.output}: cannot write: {err.strerror}") from None
        writer = JsonLinesWriter(stream, owned=True)
    else:
        writer = JsonLinesWriter(sys.stdout, owned=False)
    rows = errors = incomplete = 0
    stopped: str | None = None
    progress: Progress | None = None
    try:
        with sigterm_raises():
            progress = Progress(rows_to_do(args.data, done.rows) if sys.stderr.isatty() else None)
            chunks = todo_chunks(args.data, args.chunk_rows, done.rows, args.target)
            encode = kind != "parquet"  # JSON Lines: the workers encode, this process copies
            if args.scheduler is not None:
                client, cluster = dask_client(args.scheduler)
                results = run_dask(
                    explainer, chunks, client, encode=encode, task_seconds=TASK_SECONDS
                )
            elif args.workers > 1:
                results = run_processes(
                    explainer, chunks, args.workers, encode=encode, task_seconds=TASK_SECONDS
                )
            else:
                results = run_in_process(explainer, chunks, encode=encode, per_row=True)
            try:
                for chunk in results:
                    writer.write(chunk)
                    counts = tally(chunk)
                    rows += counts.rows
                    errors += counts.errors
                    incomplete += counts.incomplete
                    progress.update(counts.rows)
            finally:
                results.close()  # stops the workers at once when the loop did not finish
            progress.close(finished=True)
            if kind == "parquet":
                writer.close()
    except KeyboardInterrupt:
        stopped = "SIGINT"
    except Terminated:
        stopped = "SIGTERM"
    except Exception as err:
        if not _is_solver_interrupt(err):
            raise
        stopped = "SIGINT"
    finally:
        if progress is not None:
            progress.close()
        if kind != "parquet":
            writer.close()
        if client is not None:
            client.close()
        if cluster is not None:
            if stopped is None:
                cluster.close()
            else:
                stop_local_cluster(cluster)
    seconds = time.perf_counter() - start
    if incomplete:
        print(
            f"xpg explain: {incomplete} of {rows} rows reached the per-row budget "
            f"({budget_text(explainer.limit, explainer.timeout)}) and list only some of their "
            'explanations ("complete": false); raise it with --limit N and --timeout S '
            "(0: no limit)",
            file=sys.stderr,
        )
    rate = rows / seconds if seconds > 0 else 0.0
    notes = ""
    if args.resume:
        notes += (
            f"; {len(done.rows)} rows already in {args.output} ({done.errors} errors) were skipped"
        )
    if stopped is not None:
        notes += f"; interrupted by {stopped}"
        if kind == "jsonl":
            notes += f": the rows done are in {args.output}, --resume continues"
        elif kind == "parquet":
            notes += (
                f": nothing written to {args.output} (a Parquet output is written whole at "
                "the end; -o OUT.jsonl can be resumed)"
            )
    print(
        f"xpg explain: {rows} rows, {errors} errors, {rate:.1f} rows/s ({seconds:.2f} s){notes}",
        file=sys.stderr,
    )
    if stopped is not None:
        return 130 if stopped == "SIGINT" else 143
    return 1 if errors or done.errors else 0


def register(subparsers: Any) -> None:
    """Add ``explain`` to the ``xpg`` sub-commands."""
    p = add_command(
        subparsers,
        "explain",
        cmd_explain,
        help="explain every row of a data table (JSON Lines or Parquet out)",
        description="Explain every row of a data table: one record per row, "
        '{"row", "prediction", "axps", "cxps", "complete", "seconds"} or {"row", "error"} '
        '(and "model", the model file\'s fingerprint, in JSON Lines); JSON Lines on standard '
        "output or -o OUT.jsonl (written row by row; Ctrl-C keeps every finished row and "
        "--resume continues), or -o OUT.parquet (written at the end). Each row's enumeration "
        "stops at a budget (--limit, --timeout). Exit status 0 when every row was explained, "
        "1 when some gave errors, 2 for bad arguments, 130 when interrupted.",
        file_arguments=False,
        example="xpg explain model.json --data rows.csv -o records.jsonl --workers 2",
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
        help="what each record holds: some of axp, cxp, conditions (what each AXp's features "
        "satisfy, each CXp's counterexample and its class), features (necessary/relevant/"
        "irrelevant features), robustness (exact l-infinity distance to another class, with a "
        "counterexample; in Parquet as JSON text; refused where the model's route cannot "
        "search distances); default axp,cxp",
    )
    p.add_argument(
        "--limit",
        type=budget_count,
        default=DEFAULT_LIMIT,
        metavar="N",
        help="stop each row's enumeration after N explanations (AXps and CXps together; "
        f'"complete": false); default {DEFAULT_LIMIT}; 0 or none: list them all',
    )
    p.add_argument(
        "--timeout",
        type=budget_seconds,
        default="auto",
        metavar="S",
        help="stop each row's enumeration after S seconds; default auto: "
        f"{DEFAULT_ORACLE_TIMEOUT:g} for a tree ensemble or decision list too large to compile "
        "(explained by the SAT route), none for a model compiled to a decision graph (its "
        "rows take milliseconds); 0 or none: no time limit",
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
        "arrive. Needs pip install -e '.[scale]' from a clone of xpg",
    )
    p.add_argument(
        "--resume",
        action="store_true",
        help="skip the rows already in -o OUT.jsonl and append the others (refused when "
        "OUT was written with another model)",
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
        help=f"rows per chunk read (default {DEFAULT_CHUNK_ROWS}); a task sent to a worker "
        "holds at most a chunk, fewer rows when they are slow",
    )
