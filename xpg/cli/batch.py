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

JSON Lines are written row by row as rows are done (the parallel routes send a slow model's
rows one by one), and flushed after every row that took :data:`FLUSH_SECONDS` or more (fast
rows: every :data:`FLUSH_EVERY` seconds).  Ctrl-C (or SIGTERM)
stops the run within moments: worker processes are terminated, every row finished so far is
written, whole lines only, and ``--resume`` continues from there.  Every JSON Lines record
ends with ``"model"``, the fingerprint of the model file (:func:`model_fingerprint`), which
``--resume`` checks.  One line on standard error sums up: rows, errors, rows per second.
Exit status 0 when every row was explained, 1 when some rows gave error records, 2 for bad
arguments, 130 (SIGINT) or 143 (SIGTERM) when interrupted.

Faults: the output is checked writable before any work, and locked for the run
(:class:`OutputLock`: a second run on it is refused).  A JSON Lines OUT is emptied only when
the first rows arrive (:class:`JsonLinesFile`): a run that fails before them leaves a previous
output as it was.  Workers or a cluster that fail (:class:`~xpg.errors.InfrastructureError`)
and an output that cannot take more (a full disk) end the run with one line on standard
error and exit status 2; OUT then holds the rows done, in whole lines, and ``--resume``
continues.  ``--resume`` reads OUT as a stream (:func:`read_done`), explains again the rows
whose record is an infrastructure error of an earlier version, and says how many records
are duplicates.

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
import heapq
import json
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any, NamedTuple

from xpg.cli.common import Terminated, add_command, positive_int, sigterm_raises
from xpg.errors import (
    InfrastructureError,
    InvalidParameterError,
    MissingExtraError,
    OutputError,
    ParseError,
)

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


#: the start of the error text of the infrastructure error records earlier versions wrote (a
#: chunk that failed on a Dask cluster, or on a worker process that died twice): not a row's
#: own error, so ``--resume`` explains those rows again
OLD_INFRASTRUCTURE_ERRORS = (
    "the chunk failed on the cluster",
    "the worker process died explaining this chunk",
)
#: records per row group of a Parquet output (written as they arrive: the memory a run takes
#: does not grow with its rows)
PARQUET_ROW_GROUP_ROWS = 16_384
#: records of a Parquet output kept at most while they wait for the rows before them (a Dask
#: cluster returns chunks as they complete)
PARQUET_WAITING_ROWS = 131_072
#: JSON Lines bytes kept before they are written (whatever the time since the last write)
FLUSH_BYTES = 1 << 20


class RowSet:
    """Row numbers as a bitmap (a numpy bool array, a byte per row up to the largest): what a
    1,000,000-row output holds takes 1 MB, where a set of ints takes 60.

    >>> rows = RowSet()
    >>> rows.add(3), rows.add(3), rows.add(0), 3 in rows, 1 in rows, len(rows)
    (True, False, True, True, False, 2)
    >>> import numpy as np
    >>> rows.mask(np.array([0, 1, 3, 9])).tolist(), rows.count_below(3)
    ([True, False, True, False], 1)
    """

    def __init__(self) -> None:
        import numpy as np

        self.bits = np.zeros(1024, dtype=bool)
        self.far: set[int] = set()  # rows too far past the others to grow the bitmap to
        self.count = 0

    def add(self, row: int) -> bool:
        """Add ``row``; whether it was new."""
        import numpy as np

        if row >= len(self.bits):
            if row >= 4 * len(self.bits) + (1 << 24):
                new = row not in self.far
                self.far.add(row)
                self.count += new
                return new
            bits = np.zeros(max(2 * len(self.bits), row + 1), dtype=bool)
            bits[: len(self.bits)] = self.bits
            self.bits = bits
        if self.bits[row]:
            return False
        self.bits[row] = True
        self.count += 1
        return True

    def __contains__(self, row: object) -> bool:
        if not isinstance(row, int) or row < 0:
            return False
        return bool(self.bits[row]) if row < len(self.bits) else row in self.far

    def __len__(self) -> int:
        return self.count

    def mask(self, rows: Any) -> Any:
        """A bool array: which of ``rows`` (an array of row numbers) are in the set."""
        import numpy as np

        rows = np.asarray(rows, dtype=np.int64)
        near = (rows >= 0) & (rows < len(self.bits))
        out = np.zeros(len(rows), dtype=bool)
        out[near] = self.bits[rows[near]]
        if self.far:
            out |= np.isin(rows, list(self.far))
        return out

    def count_below(self, total: int) -> int:
        """How many rows of the set are below ``total``."""
        return int(self.bits[:total].sum()) + sum(1 for row in self.far if row < total)


class Done(NamedTuple):
    """What a JSON Lines output already holds: its rows (each with a record that counts: an
    explanation, or a row's own error), how many of them are errors, the model fingerprints
    its records carry (none in a file written before they existed), and how many records are
    duplicates (a row's second record, written by two runs at once before outputs were
    locked)."""

    rows: RowSet
    errors: int
    models: set[str]
    duplicates: int = 0


def is_infrastructure_error(record: dict[str, Any]) -> bool:
    """Whether a record is an infrastructure error record of an earlier version (the chunk's
    workers failed, not the row): not final, ``--resume`` explains the row again.

    >>> is_infrastructure_error({"row": 0, "error": "the chunk failed on the cluster, twice: X"})
    True
    >>> is_infrastructure_error({"row": 0, "error": "feature 'a': missing value"})
    False
    """
    error = record.get("error")
    return isinstance(error, str) and error.startswith(OLD_INFRASTRUCTURE_ERRORS)


def read_done(path: Path, model: str | None = None, model_path: str = "MODEL") -> Done:
    """The rows already in a JSON Lines output, read line by line (the memory it takes does
    not grow with the records: :class:`RowSet`).  A torn last line (a run killed while
    writing) is cut off the file, so that its row is done again.  The infrastructure error
    records of earlier versions (:func:`is_infrastructure_error`) do not count: their rows
    are done again, and their new record is not a duplicate.

    Raises
    ------
    ParseError
        When a whole line of the file is not a record of ``xpg explain``.
    InvalidParameterError
        When ``model`` (a fingerprint) is given and the records were written with another
        model (the file is left untouched).
    """
    done = RowSet()
    errors = duplicates = 0
    models: set[str] = set()
    if not path.exists():
        return Done(done, 0, models)
    end = 0  # the end of the last whole line
    torn = False
    with open(path, "rb") as fh:
        for number, line in enumerate(fh, start=1):
            if not line.endswith(b"\n"):
                torn = True
                break
            end += len(line)
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except (json.JSONDecodeError, UnicodeDecodeError):
                record = None
            row = record.get("row") if isinstance(record, dict) else None
            if not isinstance(row, int) or isinstance(row, bool) or row < 0:
                raise ParseError(
                    "expected a record of 'xpg explain' (a JSON object with a row number); "
                    "cannot resume into this file",
                    path=str(path),
                    line=number,
                )
            assert isinstance(record, dict)
            if isinstance(record.get("model"), str):
                models.add(record["model"])
            if is_infrastructure_error(record):
                continue
            if done.add(row):
                errors += "error" in record
            else:
                duplicates += 1
    others = sorted(models - {model}) if model is not None else []
    if others:
        raise InvalidParameterError(
            f"--resume: {path} holds the records of another model ({', '.join(others)}), "
            f"not of {model_path} ({model}): give another -o file, or resume with the model "
            "that wrote it"
        )
    if torn:
        with open(path, "r+b") as fh:
            fh.truncate(end)
    return Done(done, errors, models, duplicates)


class OutputLock:
    """``OUT.lock`` beside an output, locked (``flock``) by the run that writes it and holding
    its process id: a second run on the same output is refused at once.  The lock dies with
    its process (a killed run leaves the file, which locks nothing); a run that ends removes
    it.  Where no lock file can be made (a folder this user cannot write), the output file
    itself is locked, when it exists.

    >>> import tempfile, os
    >>> out = os.path.join(tempfile.mkdtemp(), "out.jsonl")
    >>> lock = OutputLock(out)
    >>> OutputLock(out)
    Traceback (most recent call last):
    xpg.errors.OutputError: ... is being written by another xpg explain (pid ...)
    >>> lock.release(); os.listdir(os.path.dirname(out))
    []
    """

    def __init__(self, output: str) -> None:
        self.output = output
        self.path: str | None = output + ".lock"
        self.fd: int | None = None
        try:
            import fcntl
        except ImportError:  # no flock (Windows): no lock
            return
        while self.fd is None:
            try:
                fd = os.open(output + ".lock", os.O_RDWR | os.O_CREAT, 0o666)
            except OSError as err:
                if not os.path.isfile(output):
                    raise OutputError(f"{output}: cannot write: {err.strerror}") from None
                self.path = None  # lock the output itself
                fd = os.open(output, os.O_RDONLY)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                pid = os.read(fd, 32).decode("ascii", "replace").strip()
                os.close(fd)
                holder = f" (pid {pid})" if pid.isdigit() else ""
                raise OutputError(
                    f"{output} is being written by another xpg explain{holder}"
                ) from None
            if self.path is not None and not _same_file(fd, self.path):
                os.close(fd)  # its last holder removed it after we opened it: again
                continue
            self.fd = fd
        if self.path is not None:
            os.ftruncate(self.fd, 0)
            os.write(self.fd, f"{os.getpid()}\n".encode())

    def release(self) -> None:
        """Remove the lock file (while it is locked, see :func:`_same_file`) and unlock."""
        fd, self.fd = self.fd, None
        if fd is None:
            return
        if self.path is not None:
            with contextlib.suppress(OSError):
                os.unlink(self.path)
        os.close(fd)


def _same_file(fd: int, path: str) -> bool:
    """Whether ``path`` is still the file open as ``fd`` (a lock file removed and made again
    by another run is another file: its lock is not ours)."""
    try:
        here, there = os.fstat(fd), os.stat(path)
    except OSError:
        return False
    return (here.st_dev, here.st_ino) == (there.st_dev, there.st_ino)


class WriteFailed(Exception):
    """Writing the output failed (disk full, ...): the message says what failed; the run
    stops with one line and exit status 2."""


class JsonLinesWriter:
    """JSON Lines text (encoded by the workers) on a stream (standard output), flushed after
    a chunk whose rows took :data:`FLUSH_SECONDS` or more, and else when
    :data:`FLUSH_EVERY` seconds have passed since the last flush."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream
        self.rows = 0  # rows handed to the stream
        self._flushed = time.perf_counter()

    def write(self, chunk: Any) -> None:
        """Write an :class:`~xpg.explain.batch.EncodedChunk`'s text, flushed if it is time."""
        try:
            self.stream.write(chunk.text)
            now = time.perf_counter()
            if chunk.seconds >= FLUSH_SECONDS or now - self._flushed >= FLUSH_EVERY:
                self.stream.flush()
                self._flushed = now
        except BrokenPipeError:
            raise  # a reader that stopped reading (| head): the command ends quietly
        except OSError as err:
            self._silence()
            raise WriteFailed(f"cannot write standard output: {err.strerror}") from None
        self.rows += chunk.rows

    def finish(self) -> None:
        """Flush what is written."""
        self.abort()

    def abort(self) -> None:
        """Flush what is written."""
        try:
            self.stream.flush()
        except BrokenPipeError:
            raise
        except OSError as err:
            self._silence()
            raise WriteFailed(f"cannot write standard output: {err.strerror}") from None

    def _silence(self) -> None:
        """Point the standard output's descriptor to /dev/null: what is left in its buffer
        goes nowhere, instead of failing again (and printing) when the process exits."""
        with contextlib.suppress(OSError, ValueError, AttributeError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, self.stream.fileno())
            os.close(devnull)

    def where(self, done: int) -> str:
        return f"{self.rows} rows done were written to standard output"


class JsonLinesFile:
    """JSON Lines written to ``-o OUT.jsonl`` in whole lines only: the text is kept (at most
    :data:`FLUSH_BYTES`, :data:`FLUSH_EVERY` seconds, or until a slow row) and written at
    once; a write that fails (a full disk) is cut off the file, which then ends with the last
    whole line.

    OUT is opened when the writer is made (a file that cannot be written is refused before
    any work) but only emptied when the first rows arrive (or when a run of no rows ends):
    a run that fails before its first row (a wrong ``--target``, an unreachable scheduler)
    leaves a previous output as it was, and one interrupted later leaves the rows done in
    OUT, for ``--resume``.  With ``resume`` the rows are appended.
    """

    def __init__(self, path: str, resume: bool) -> None:
        self.path = path
        self.resume = resume
        existed = os.path.lexists(path)
        try:
            self.fd: int | None = os.open(path, os.O_WRONLY | os.O_CREAT, 0o666)
        except OSError as err:
            raise OutputError(f"{path}: cannot write: {err.strerror}") from None
        self.created = not existed
        self.started = False  # emptied (or, resuming, positioned at its end)
        self.end = 0  # where the next bytes go
        self.rows = 0  # rows this run wrote to the file
        self.pending: list[bytes] = []
        self.pending_rows = self.pending_bytes = 0
        self._flushed = time.perf_counter()

    def write(self, chunk: Any) -> None:
        """Keep an :class:`~xpg.explain.batch.EncodedChunk`'s text, written if it is time."""
        data = chunk.text.encode("utf-8")
        self.pending.append(data)
        self.pending_rows += chunk.rows
        self.pending_bytes += len(data)
        now = time.perf_counter()
        if (
            chunk.seconds >= FLUSH_SECONDS
            or now - self._flushed >= FLUSH_EVERY
            or self.pending_bytes >= FLUSH_BYTES
        ):
            self.flush()
            self._flushed = now

    def flush(self) -> None:
        """Write the text kept, whole or not at all.

        Raises
        ------
        WriteFailed
            When the file cannot take it (what was written of it is cut off).
        """
        data, rows = b"".join(self.pending), self.pending_rows
        self.pending, self.pending_rows, self.pending_bytes = [], 0, 0
        if not data:
            return
        self._start()
        assert self.fd is not None
        written = 0
        try:
            view = memoryview(data)
            while written < len(data):
                written += os.pwrite(self.fd, view[written:], self.end + written)
        except BaseException as err:
            with contextlib.suppress(OSError):
                os.ftruncate(self.fd, self.end)
            if isinstance(err, OSError):
                raise WriteFailed(f"cannot write {self.path}: {err.strerror}") from None
            raise
        self.end += len(data)
        self.rows += rows

    def _start(self) -> None:
        if self.started:
            return
        assert self.fd is not None
        try:
            if self.resume:
                self.end = os.fstat(self.fd).st_size
            else:
                os.ftruncate(self.fd, 0)
        except OSError as err:
            raise WriteFailed(f"cannot write {self.path}: {err.strerror}") from None
        self.started = True

    def finish(self) -> None:
        """The run is complete: write what is kept (a run of no rows empties the file)."""
        self.flush()
        self._start()
        self._close()

    def abort(self) -> None:
        """The run stops early: write the whole lines kept; a file this run created and wrote
        nothing to is removed."""
        try:
            self.flush()
        finally:
            if self.fd is not None and not self.started and self.created:
                with contextlib.suppress(OSError):
                    os.unlink(self.path)
            self._close()

    def _close(self) -> None:
        fd, self.fd = self.fd, None
        if fd is not None:
            os.close(fd)

    def where(self, done: int) -> str:
        if not self.started and not self.resume:
            return f"nothing written to {self.path}"
        return f"{done + self.rows} rows done are in {self.path}, --resume continues"


class ParquetWriter:
    """Records written to a Parquet file by row groups of :data:`PARQUET_ROW_GROUP_ROWS` as
    they arrive, in row order (records that arrive early, from Dask, wait for the rows before
    them), to a temporary file beside the output, renamed over it at the end; the model's
    fingerprint goes in the file's metadata (``xpg.model``).  Made before any work: an output
    that cannot be written (no such folder, a folder, no pyarrow) is refused at once."""

    def __init__(self, path: str, columns: list[tuple[str, str]], model: str) -> None:
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError:
            raise MissingExtraError(
                f"-o {path}: writing Parquet needs pyarrow: pip install -e '.[scale]' from a "
                "clone of xpg"
            ) from None
        from xpg.io.atomic import temporary_beside

        if os.path.isdir(path):
            raise OutputError(f"{path}: cannot write: Is a directory")
        self.path = path
        self.json_columns = [name for name, kind in columns if kind == "json"]
        types = {
            "int": pa.int64(),
            "str": pa.string(),
            "bool": pa.bool_(),
            "float": pa.float64(),
            "names": pa.list_(pa.string()),
            "lists": pa.list_(pa.list_(pa.string())),
            "json": pa.string(),  # nested values of mixed types, as their JSON text
        }
        self.schema = pa.schema(
            [(name, types[kind]) for name, kind in columns], metadata={"xpg.model": model}
        )
        fd, self.tmp = temporary_beside(path)
        os.close(fd)
        try:
            self.writer: Any = pq.ParquetWriter(str(self.tmp), self.schema)
        except BaseException:
            self.tmp.unlink(missing_ok=True)
            raise
        self.waiting: list[tuple[int, int, dict[str, Any]]] = []  # a heap, by row
        self.next_row = 0  # the row whose record goes next
        self.group: list[dict[str, Any]] = []
        self.arrived = 0
        self.rows = 0

    def write(self, records: Any) -> None:
        """Take a route's chunk of records; write a row group when one is full."""
        for record in records:
            heapq.heappush(self.waiting, (record["row"], self.arrived, record))
            self.arrived += 1
        # records wait for the rows before them; should a row never come (a number the
        # reader skipped), they go on once PARQUET_WAITING_ROWS wait (the order is then lost)
        while self.waiting and (
            self.waiting[0][0] <= self.next_row or len(self.waiting) > PARQUET_WAITING_ROWS
        ):
            row, _, record = heapq.heappop(self.waiting)
            self.group.append(record)
            self.next_row = max(self.next_row, row + 1)
        if len(self.group) >= PARQUET_ROW_GROUP_ROWS:
            self._write_group()

    def _write_group(self) -> None:
        import pyarrow as pa

        group, self.group = self.group, []
        if not group:
            return
        for name in self.json_columns:
            for r in group:
                if name in r:
                    r[name] = json.dumps(r[name])
        try:
            for k in range(0, len(group), PARQUET_ROW_GROUP_ROWS):
                table = pa.Table.from_pylist(group[k : k + PARQUET_ROW_GROUP_ROWS], self.schema)
                self.writer.write_table(table)
        except OSError as err:
            raise WriteFailed(f"cannot write {self.path}: {err.strerror or err}") from None
        self.rows += len(group)

    def finish(self) -> None:
        """The run is complete: write the rest, rename the file over the output."""
        from xpg.io.atomic import replace_with

        while self.waiting:
            self.group.append(heapq.heappop(self.waiting)[2])
        self._write_group()
        try:
            self.writer.close()
        except OSError as err:
            raise WriteFailed(f"cannot write {self.path}: {err.strerror or err}") from None
        self.writer = None
        replace_with(self.tmp, self.path)

    def abort(self) -> None:
        """The run stops early: nothing is written (the temporary file is removed)."""
        if self.writer is not None:
            with contextlib.suppress(Exception):
                self.writer.close()
            self.writer = None
        self.tmp.unlink(missing_ok=True)

    def where(self, done: int) -> str:
        return (
            f"nothing written to {self.path} (a Parquet output is written whole at the end; "
            "-o OUT.jsonl can be resumed)"
        )


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
def todo_chunks(
    data: str, chunk_rows: int, done: RowSet | set[int], target: str | None
) -> Iterator[Any]:
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
        if len(done):
            if isinstance(done, RowSet):
                frame = frame[~done.mask(frame.index)]
            else:
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
    """No more log lines from Dask: the one line said what failed."""
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
                if failure is not None or stopped is not None:
                    _quiet_dask()  # a scheduler gone: its client's reconnection traceback
                with contextlib.suppress(Exception):
                    client.close()
            if cluster is not None:
                if stopped is None and failure is None:
                    cluster.close()
                else:
                    stop_local_cluster(cluster)
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
