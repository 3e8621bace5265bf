"""``xpg explain MODEL.json --data ROWS``: every row of a table explained, one JSON line each.

Rows are read in chunks (:func:`xpg.io.tables.iter_table_chunks`: CSV, TSV, JSON Lines,
each optionally gzipped, or Parquet), explained (:class:`xpg.explain.batch.BatchExplainer`)
in this process, on ``--workers N`` local processes or on a Dask cluster (``--scheduler``,
see :mod:`xpg.explain.parallel`), and written as JSON Lines to standard output or ``-o
OUT.jsonl``, or to ``-o OUT.parquet`` (by row groups, in row order, to a temporary file
renamed over OUT at the end: the memory a run takes does not grow with its rows).

Each row's enumeration has a budget (``--limit``, default 100 explanations; ``--timeout``,
default 10 s for a tree ensemble or decision list too large to compile, none for a compiled
graph; ``0`` or ``none`` lifts either); a line on standard error says how many rows reached it.

JSON Lines are written as rows are done (the parallel routes send a slow model's rows one
by one) and flushed as :mod:`xpg.io.batch_output` says.  Ctrl-C (or SIGTERM) stops the run
within moments: worker processes are terminated, every row finished so far is written,
whole lines only, and ``--resume`` continues from there.  Every JSON Lines record ends with
``"model"``, the fingerprint of the model file (:func:`model_fingerprint`), which
``--resume`` checks.  One line on standard error sums up: rows, errors, rows per second.
Exit status 0 when every row was explained, 1 when some rows gave error records, 2 for bad
arguments and for faults, 130 (SIGINT) or 143 (SIGTERM) when interrupted.

Faults: the output is checked writable before any work and locked for the run (a second
run on it is refused).  A JSON Lines OUT is emptied only when the first rows arrive: a run
that fails before them leaves a previous output as it was.  Workers or a cluster that fail
(:class:`~xpg.errors.InfrastructureError`) and an output that cannot take more (a full disk)
end the run with one line on standard error and exit status 2; OUT then holds the rows
done, in whole lines, and ``--resume`` continues: it reads OUT as a stream, explains again
the rows whose record is an infrastructure error of an earlier version, and says how many
records are duplicates (:mod:`xpg.io.batch_output`).

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
import contextlib
import hashlib
import json
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

from xpg.cli.common import Terminated, add_command, positive_int, sigterm_raises
from xpg.errors import (
    InfrastructureError,
    InvalidParameterError,
    OutputError,
)
from xpg.io.batch_output import (
    Done,
    JsonLinesFile,
    JsonLinesWriter,
    OutputLock,
    ParquetWriter,
    RowSet,
    WriteFailed,
    parquet_columns,
    read_done,
)

#: rows per chunk read (and at most per task sent to a worker)
DEFAULT_CHUNK_ROWS = 256
#: the seconds a task sent to a worker should take, about (a slow model's rows go one by one)
TASK_SECONDS = 0.25
#: the same on Dask, where a task costs about 12 ms of CPU (the client, the scheduler, the
#: worker): longer tasks, so that fewer of them start a run whose first rows are slow
DASK_TASK_SECONDS = 1.0
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


# -- input -----------------------------------------------------------------------------------------
def todo_chunks(
    data: str, chunk_rows: int, done: RowSet | set[int], target: str | None
) -> Iterator[Any]:
    """The chunks of the table, without the rows in ``done``; the first chunk checks that the
    target column exists.  A CSV file's chunks are left unparsed where they can be
    (:class:`~xpg.io.tables.CsvRows`): the workers parse them."""
    from xpg.io.tables import as_frame, iter_table_chunks

    first = True
    for frame in iter_table_chunks(data, chunk_rows, lazy=True):
        if first and target is not None and target not in (columns := as_frame(frame).columns):
            raise InvalidParameterError(
                f"--target {target}: {data} has no such column "
                f"(columns: {', '.join(map(str, columns))})"
            )
        first = False
        if len(done):
            if isinstance(done, RowSet):
                mask = done.mask(frame.index)
            else:
                mask = frame.index.isin(done)
            if mask.any():
                frame = as_frame(frame)[~mask]
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


def rows_to_do(data: str, done: RowSet | set[int]) -> int | None:
    """How many rows the run has to explain (for the progress bar): the table's rows, counted
    cheaply (:func:`xpg.io.tables.count_rows`), less those done; None when they cannot be
    counted."""
    from xpg.errors import XpgError
    from xpg.io.tables import count_rows

    try:
        total = count_rows(data)
    except (XpgError, OSError):
        return None
    if isinstance(done, RowSet):
        return max(0, total - done.count_below(total))
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
        from xpg.explain.records import chunk_counts

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


def open_writer(
    kind: str | None, args: argparse.Namespace, kinds: tuple[str, ...], fingerprint: str
) -> JsonLinesWriter | JsonLinesFile | ParquetWriter:
    """The writer of the output; the output is checked writable here, before any work."""
    if kind == "parquet":
        return ParquetWriter(args.output, parquet_columns(kinds, args.target), fingerprint)
    if kind == "jsonl":
        return JsonLinesFile(args.output, args.resume)
    return JsonLinesWriter(sys.stdout)


def cmd_explain(args: argparse.Namespace) -> int:
    """Handler of ``xpg explain``."""
    from xpg.explain.batch import BatchExplainer, parse_kinds
    from xpg.explain.engine import Explainer
    from xpg.io.model_json import read_model
    from xpg.io.tables import pandas, table_format

    kind = _check_arguments(args)
    kinds = parse_kinds(args.kinds)
    table_format(args.data)
    if not Path(args.data).is_file():
        from xpg.errors import DataNotFoundError

        raise DataNotFoundError(f"{args.data}: no such data file")
    if (args.scheduler or "").startswith("local:"):
        from xpg.explain.parallel import local_start_method

        local_start_method()  # the workers' server imports its modules while this goes on
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
    lock = OutputLock(args.output) if kind is not None else None
    try:
        writer = open_writer(kind, args, kinds, fingerprint)
        try:
            done = Done(RowSet(), 0, set())
            if args.resume:
                done = read_done(Path(args.output), fingerprint, args.model)
        except BaseException:
            writer.abort()
            raise
        return _run(args, kind, explainer, writer, done)
    finally:
        if lock is not None:
            lock.release()


def _quiet_dask() -> None:
    """No log lines from Dask in this process: xpg explain says what failed in one line (a
    scheduler that dies makes the client log tracebacks at INFO level, then one at ERROR
    level when it closes)."""
    import logging

    names = [n for n in logging.root.manager.loggerDict if n.startswith("distributed.")]
    for name in ["distributed", *names]:  # Dask sets some of its loggers' levels itself
        logging.getLogger(name).setLevel(logging.CRITICAL + 1)


def _run(
    args: argparse.Namespace,
    kind: str | None,
    explainer: Any,
    writer: JsonLinesWriter | JsonLinesFile | ParquetWriter,
    done: Done,
) -> int:
    """Explain the rows to do into ``writer``; the lines on standard error; the exit status."""
    from xpg.explain.parallel import (
        dask_client,
        run_dask,
        run_in_process,
        run_processes,
        stop_local_cluster,
    )

    if done.duplicates:
        print(
            f"xpg explain: {args.output} holds {done.duplicates} duplicate records (rows "
            "written more than once, by runs at the same time); --resume adds none",
            file=sys.stderr,
        )
    start = time.perf_counter()
    client = cluster = None
    folder: tempfile.TemporaryDirectory[str] | None = None  # rows and records, as files
    rows = errors = incomplete = 0
    stopped: str | None = None
    failure: str | None = None  # infrastructure or output: one line, exit status 2
    finished = False
    progress: Progress | None = None
    try:
        with sigterm_raises():
            progress = Progress(rows_to_do(args.data, done.rows) if sys.stderr.isatty() else None)
            chunks = todo_chunks(args.data, args.chunk_rows, done.rows, args.target)
            encode = kind != "parquet"  # JSON Lines: the workers encode, this process copies
            if args.scheduler is not None:
                client, cluster = dask_client(args.scheduler)
                _quiet_dask()
                if cluster is not None and kind == "jsonl":  # workers of this machine
                    folder = tempfile.TemporaryDirectory(prefix="xpg-", ignore_cleanup_errors=True)
                results = run_dask(
                    explainer,
                    chunks,
                    client,
                    encode=encode,
                    task_seconds=DASK_TASK_SECONDS,
                    folder=None if folder is None else folder.name,
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
            writer.finish()
            finished = True
    except KeyboardInterrupt:
        stopped = "SIGINT"
    except Terminated:
        stopped = "SIGTERM"
    except (InfrastructureError, WriteFailed, OutputError) as err:
        failure = str(err)
    except Exception as err:
        if not _is_solver_interrupt(err):
            raise
        stopped = "SIGINT"
    finally:
        if progress is not None:
            progress.close()
        try:
            if not finished:
                writer.abort()  # the whole lines done are kept (JSON Lines)
        except (WriteFailed, OutputError) as err:
            failure = failure or str(err)
        finally:
            if client is not None:
                with contextlib.suppress(Exception):
                    client.close()
            if cluster is not None:
                if stopped is None and failure is None:
                    cluster.close()
                else:
                    stop_local_cluster(cluster)
            if folder is not None:
                folder.cleanup()
    if failure is not None:
        print(f"xpg explain: {failure}; {writer.where(len(done.rows))}", file=sys.stderr)
        return 2
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
        if isinstance(writer, JsonLinesFile) and (writer.started or args.resume):
            notes += f": the rows done are in {args.output}, --resume continues"
        elif kind is not None:
            notes += f": {writer.where(len(done.rows))}"
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
        "--resume continues), or -o OUT.parquet (complete at the end). OUT is locked for the "
        "run. Each row's enumeration stops at a budget (--limit, --timeout). Exit status 0 "
        "when every row was explained, 1 when some gave errors, 2 for bad arguments or a "
        "failure of the output (disk full) or of the workers (the rows done are kept), 130 "
        "when interrupted (143: SIGTERM).",
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
        "search distances), attribution (each feature's share of the AXps that contain it, "
        "formal feature attribution; in Parquet as JSON text), inflated (each AXp's features "
        "widened to the largest intervals or value sets that keep it an explanation; implies "
        "axp; in Parquet as JSON text); default axp,cxp",
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
