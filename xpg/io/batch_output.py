"""The output of ``xpg explain --data``: what an earlier run left there (:func:`read_done`,
for ``--resume``), the lock a run holds on it (:class:`OutputLock`), and its writers, which
write whole lines only (:class:`JsonLinesFile`, :class:`JsonLinesWriter` for standard output)
or a whole Parquet file by row groups (:class:`ParquetWriter`).

Examples
--------
>>> rows = RowSet()
>>> rows.add(3), rows.add(3), 3 in rows, len(rows)
(True, False, True, 1)
"""

from __future__ import annotations

import contextlib
import errno
import heapq
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any, NamedTuple

from xpg.errors import InvalidParameterError, MissingExtraError, OutputError, ParseError

#: JSON Lines output is flushed after a chunk of rows that took this long (seconds: a slow
#: row is on disk as soon as it is done; a flush costs about 2 us), and else once this long
#: has passed since the last flush
FLUSH_SECONDS = 0.001
FLUSH_EVERY = 0.1

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


#: what ``os.copy_file_range`` raises where it cannot copy (another file system, an old kernel)
_NO_COPY_RANGE = (errno.EXDEV, errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP)
#: bytes read at a time where ``os.copy_file_range`` cannot copy
COPY_BLOCK = 1 << 22


def _copy_range(part: Any, fd: int, count: int, start: int, at: int) -> int:
    """Copy up to ``count`` bytes of ``part`` from ``start`` into ``fd`` at ``at``: by
    ``os.copy_file_range`` (no copy through this process), else read and written."""
    if hasattr(os, "copy_file_range"):
        try:
            return os.copy_file_range(part.fileno(), fd, count, start, at)
        except OSError as err:
            if err.errno not in _NO_COPY_RANGE:
                raise
    part.seek(start)
    data = part.read(min(count, COPY_BLOCK))
    written = 0
    while written < len(data):
        written += os.pwrite(fd, memoryview(data)[written:], at + written)
    return written


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
        """Keep an :class:`~xpg.explain.batch.EncodedChunk`'s text, written if it is time; a
        chunk whose text is in a file (``path``) is copied in at once, and the file removed."""
        if chunk.path:
            self.flush()
            self._copy_in(chunk.path)
            self.rows += chunk.rows
            return
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
        with self._appending():
            view = memoryview(data)
            while written < len(data):
                written += os.pwrite(self.fd, view[written:], self.end + written)
        self.end += len(data)
        self.rows += rows

    def _copy_in(self, path: str) -> None:
        """Append the file ``path`` (the kernel copies it, where it can), whole or not at all;
        then remove it."""
        self._start()
        assert self.fd is not None
        copied = 0
        try:
            with self._appending(), open(path, "rb") as part:
                size = os.fstat(part.fileno()).st_size
                while copied < size:
                    n = _copy_range(part, self.fd, size - copied, copied, self.end + copied)
                    if n == 0:  # the file is shorter than it was
                        raise WriteFailed(f"cannot write {self.path}: {path} was cut short")
                    copied += n
        finally:
            with contextlib.suppress(OSError):
                os.unlink(path)
        self.end += copied

    @contextlib.contextmanager
    def _appending(self) -> Iterator[None]:
        """Bytes appended at ``self.end`` within the block: whole, or cut off again when it
        fails (an ``OSError`` raised as :class:`WriteFailed`)."""
        assert self.fd is not None
        try:
            yield
        except BaseException as err:
            with contextlib.suppress(OSError):
                os.ftruncate(self.fd, self.end)
            if isinstance(err, OSError):
                raise WriteFailed(f"cannot write {self.path}: {err.strerror}") from None
            raise

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
    if "axp" in kinds or "cxp" in kinds or "attribution" in kinds:
        columns.append(("complete", "bool"))
        if "conditions" in kinds:
            columns += [("conditions", "lists"), ("counterexamples", "json")]
            columns.append(("counterexample_classes", "names"))
    if "features" in kinds:
        columns += [("necessary", "names"), ("relevant", "names"), ("irrelevant", "names")]
    if "attribution" in kinds:  # {feature: share}, as JSON text as robustness is
        columns += [("attribution", "json"), ("attribution_complete", "bool")]
    if "inflated" in kinds:
        columns.append(("inflated", "json"))
    if "robustness" in kinds:
        columns.append(("robustness", "json"))
    return [*columns, ("seconds", "float"), ("error", "str")]
