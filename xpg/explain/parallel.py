"""Run a batch of explanations over chunks of rows: in process, on local processes, on Dask.

Every route takes a :class:`~xpg.explain.batch.BatchExplainer` (the compiled model and the
options) and an iterable of chunks (pandas ``DataFrame`` chunks, or
:class:`~xpg.io.tables.CsvRows`: rows of a CSV file that the process explaining them
parses, so that reading a file is not the work of one process), and yields each chunk's records as
a list, or with ``encode=True`` as JSON Lines text encoded by the worker
(:class:`~xpg.explain.batch.EncodedChunk`: the process writing the output then only copies
text, which keeps it from becoming the bottleneck of many workers):

* :func:`run_in_process`: chunk after chunk, in this process (no start-up cost at all);
  with ``per_row=True`` each row's record as soon as it is done.
* :func:`run_processes`: ``N`` local processes (``concurrent.futures``, forked when that is
  safe, see :func:`start_method`); the explainer is sent to each process once, by the pool's
  initializer; at most ``2 N`` tasks are running or queued, more may wait done behind a slow
  one, and the lists come back **in row order**.  A process that dies breaks the pool: the
  tasks in flight are then retried one at a time on a fresh pool; a task that kills its
  process again is retried one row at a time, and a row that kills its process every time
  (twice alone) gets an error record of its own (:data:`ROW_KILLS_WORKER`).  When no row of
  such a task can be explained, the workers fail, not the rows:
  :class:`~xpg.errors.InfrastructureError`.  The workers die with this process (even on
  SIGKILL) and ignore SIGINT (Ctrl-C reaches the whole process group): when the route
  stops early (an interrupt in the caller, or the caller closing the iterator) they are
  terminated at once, not awaited.
* :func:`run_dask`: a Dask distributed cluster (``tcp://HOST:PORT``, or ``local:N`` for a
  ``LocalCluster`` of ``N`` worker processes); the explainer travels in a worker plugin,
  which the scheduler keeps and gives to every worker, those that join later included (a
  worker restarted by its nanny, a replaced machine); the lists come back **as they
  complete** (not in row order).  The scheduler runs again elsewhere a task whose worker
  died; a task that killed several workers (Dask's ``KilledWorker``) is retried one row at a
  time, as above.  A cluster that cannot run the tasks (its scheduler gone, no worker for
  ``worker_wait`` seconds) raises :class:`~xpg.errors.InfrastructureError`: no record of the
  rows in flight is yielded.  Stopping early cancels what was submitted.

With ``task_seconds``, the two parallel routes size their tasks to about that many seconds
each, from the time the rows done so far took (:class:`TaskSizer`): a slow model's rows
travel one by one, so that they spread over the workers and each comes back as soon as it
is done, and a fast model's rows in whole chunks, merged up to :data:`MAX_TASK_ROWS` rows
(fewer, larger tasks: less overhead per row, on Dask most).

Examples
--------
>>> import pandas as pd
>>> from xpg import Explainer
>>> from xpg.examples import and_graph
>>> from xpg.explain.batch import BatchExplainer
>>> explainer = BatchExplainer(Explainer(and_graph(), many=True), kinds="axp")
>>> chunks = [pd.DataFrame({"a": [1, 0], "b": [1, 1]})]
>>> [[r["axps"] for r in records] for records in run_in_process(explainer, chunks)]
[[[['a', 'b']], [['a']]]]
"""

from __future__ import annotations

import collections
import concurrent.futures
import contextlib
import ctypes
import functools
import logging
import multiprocessing
import os
import pickle
import signal
import sys
import threading
import time
import uuid
from collections.abc import Generator, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from xpg.core.signals import handling
from xpg.errors import InfrastructureError, InvalidParameterError, MissingExtraError
from xpg.explain.batch import BatchExplainer
from xpg.explain.records import EncodedChunk, Record, chunk_counts, encode_records
from xpg.io.tables import CsvRows, as_frame

#: what a route yields per chunk: the records, or (``encode=True``) their JSON Lines text
Chunk = list[Record] | EncodedChunk

#: the extra that brings Dask (and pandas)
SCALE_EXTRA = "pip install -e '.[scale]' from a clone of xpg"

#: the error of a row that killed the process explaining it each time it was tried alone
#: (a row's own error, final: not an infrastructure failure, which is never a record)
ROW_KILLS_WORKER = "this row kills the process explaining it (tried alone, twice)"

#: the same on Dask: the row, in a task of its own, killed as many workers as the scheduler
#: allows (``distributed.scheduler.allowed-failures`` + 1; a worker holds a few tasks at a
#: time, so that a row queued on the same worker may share its fate: rare, with the default 3)
ROW_KILLS_DASK_WORKER = (
    "this row kills the process explaining it (alone in its task, on Dask workers, as many "
    "times as the scheduler allows)"
)

#: the most rows of a task made of whole chunks merged (fast rows)
MAX_TASK_ROWS = 8192

#: the same on Dask, whose tasks cost more each (about 12 ms of CPU over the client, the
#: scheduler and the worker; 4 times fewer tasks saved a tenth of the CPU of a run)
MAX_DASK_TASK_ROWS = 32768

#: local processes: the rows of tasks done that may wait for a slower task before them
#: (the records come in row order), so that the other workers go on past a slow row
WAITING_ROWS = 2048


def error_records(
    frame: Any, message: str, encode: bool = False, explainer: BatchExplainer | None = None
) -> Chunk:
    """One error record per row of ``frame`` (a chunk that could not be explained), stamped
    as ``explainer``'s records are."""
    stamp = {} if explainer is None else explainer.stamp
    records: list[Record] = [{"row": int(row), "error": message, **stamp} for row in frame.index]
    return encode_records(records) if encode else records


def explain(explainer: BatchExplainer, frame: Any, encode: bool) -> Chunk:
    """One chunk's records, or their JSON Lines text."""
    frame = as_frame(frame)
    return explainer.explain_lines(frame) if encode else explainer.explain_chunk(frame)


def joined(chunks: list[Chunk], encode: bool) -> Chunk:
    """Chunks of consecutive rows as one.

    >>> joined([[{"row": 0}], [{"row": 1}]], False)
    [{'row': 0}, {'row': 1}]
    """
    if not encode:
        records: list[Record] = []
        for chunk in chunks:
            records.extend(chunk)  # type: ignore[arg-type]
        return records
    parts: list[EncodedChunk] = chunks  # type: ignore[assignment]
    return EncodedChunk(
        "".join(c.text for c in parts),
        sum(c.rows for c in parts),
        sum(c.errors for c in parts),
        sum(c.incomplete for c in parts),
        sum(c.seconds for c in parts),
    )


def chunk_rows_seconds(chunk: Chunk) -> tuple[int, float]:
    """Rows of a route's chunk (records, or their encoded text) and the seconds they took."""
    if isinstance(chunk, EncodedChunk):
        return chunk.rows, chunk.seconds
    return len(chunk), chunk_counts(chunk)[2]


def run_in_process(
    explainer: BatchExplainer,
    chunks: Iterable[Any],
    *,
    encode: bool = False,
    per_row: bool = False,
) -> Generator[Chunk, None, None]:
    """Each chunk's records (their text with ``encode``), in this process, in row order;
    with ``per_row``, each row's record alone (a one-row chunk), as soon as it is done,
    except where the explainer's cell cache answers (a chunk then takes milliseconds)."""
    from xpg.explain.cell_cache import cache_of

    for frame in chunks:
        if not per_row or cache_of(explainer) is not None:
            yield explain(explainer, frame, encode)
            continue
        for record in explainer.explain_frame(as_frame(frame)):
            yield encode_records([record]) if encode else [record]


class TaskSizer:
    """Rows per task so that a task takes about ``seconds``, from the time the rows of the
    last :attr:`RECENT` tasks took (their records' ``"seconds"``): 1 row until a first
    result is back.  Recent tasks only: the first rows of a run, which fill the cell cache,
    cost more than the rows after them, which find their cells there.

    >>> sizer = TaskSizer(0.25)
    >>> sizer.rows()
    1
    >>> sizer.observe(1, 2.0)  # a slow row: one row per task
    >>> sizer.rows()
    1
    >>> sizer.observe(99, 0.0)  # the average falls to 0.02 s per row
    >>> sizer.rows()
    12
    """

    #: the tasks whose time sizes the next ones
    RECENT = 16

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._rows = 0
        self._spent = 0.0
        self._recent: collections.deque[tuple[int, float]] = collections.deque()

    def observe(self, rows: int, seconds: float) -> None:
        """Count a result: ``rows`` rows that took ``seconds`` together."""
        self._recent.append((rows, seconds))
        if len(self._recent) > self.RECENT:
            self._recent.popleft()
        self._rows = sum(r for r, _ in self._recent)
        self._spent = sum(s for _, s in self._recent)

    def rows(self) -> int:
        """The size of the next task."""
        if self._rows == 0:
            return 1
        if self._spent * 2**30 <= self.seconds * self._rows:  # no time measured: any size
            return 2**30
        return max(1, int(self.seconds * self._rows / self._spent))


def split_tasks(
    chunks: Iterable[Any], sizer: TaskSizer | None, limit: int = MAX_TASK_ROWS
) -> Iterator[Any]:
    """The chunks as tasks of ``sizer.rows()`` rows at most, each sized when the route asks
    for it: a chunk cut in slices (parsed here), or whole chunks merged (up to ``limit`` rows;
    a task never holds part of a chunk and more; unparsed rows of a CSV file in whole parse
    groups where they can); None: the chunks as they are."""
    if sizer is None:
        yield from chunks
        return
    source = iter(chunks)
    frame = next(source, None)
    while frame is not None:
        following = None  # the chunk after, read while merging
        start = 0
        while start < len(frame):
            size = sizer.rows()
            if start == 0 and size >= len(frame):
                task, following = _merged(frame, source, min(size, limit))
                yield task
                break
            yield as_frame(frame).iloc[start : start + size]
            start += size
        frame = following if following is not None else next(source, None)


def _merged(frame: Any, source: Iterator[Any], limit: int) -> tuple[Any, Any]:
    """``frame`` and the whole chunks after it while they fit in ``limit`` rows, and the
    first chunk that did not fit (None at the end)."""
    parts = [frame]
    rows = len(frame)
    for following in source:
        if rows + len(following) > limit:
            break
        group = following.starts_group() if isinstance(following, CsvRows) else None
        if group is not None and rows + group > limit:
            break  # the next task takes that group whole (a worker parses it once)
        parts.append(following)
        rows += len(following)
    else:
        following = None
    if len(parts) == 1:
        return frame, following
    if all(isinstance(part, CsvRows) for part in parts):
        return CsvRows.joined(parts), following
    import pandas as pd

    return pd.concat([as_frame(part) for part in parts]), following


def _rows_text(frame: Any) -> str:
    rows = [int(r) for r in frame.index]
    return f"row {rows[0]}" if len(rows) == 1 else f"rows {rows[0]} to {rows[-1]}"


# -- local processes ---------------------------------------------------------------------------

# The explainer of this worker process, set once by the pool's initializer: the documented way
# to give every task of a ProcessPoolExecutor the same large argument without resending it.
_WORKER_EXPLAINER: BatchExplainer | None = None

PR_SET_PDEATHSIG = 1  # linux/prctl.h


def _die_with_parent(parent: int) -> None:
    """End this process when ``parent`` ends, even killed by SIGKILL (which runs no cleanup
    of the parent's): Linux kills it (``prctl(PR_SET_PDEATHSIG)``), elsewhere a thread
    polls the parent's id."""
    watched = False
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            watched = libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
    if os.getppid() != parent:  # the parent ended before the line above
        os._exit(1)
    if not watched:
        threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(1)


def _init_worker(explainer: BatchExplainer, parent: int) -> None:
    global _WORKER_EXPLAINER
    _WORKER_EXPLAINER = explainer
    _die_with_parent(parent)
    # Ctrl-C reaches every process of the terminal's group: the parent stops the workers
    # (terminate_workers); SIGTERM kills at once, whatever handler a forked parent had set
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _worker_chunk(frame: Any, encode: bool) -> Chunk:
    assert _WORKER_EXPLAINER is not None  # set by _init_worker before any task runs
    return explain(_WORKER_EXPLAINER, frame, encode)


def start_method() -> str:
    """``fork`` where it exists and this process runs no other thread (a worker starts in
    milliseconds, with the modules already imported), else ``spawn`` (a fresh interpreter,
    about a second: forking a process that runs threads can deadlock the child)."""
    if "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1:
        return "fork"
    return "spawn"


def _new_pool(explainer: BatchExplainer, workers: int) -> ProcessPoolExecutor:
    return ProcessPoolExecutor(
        max_workers=workers,
        mp_context=multiprocessing.get_context(start_method()),
        initializer=_init_worker,
        initargs=(explainer, os.getpid()),
    )


def terminate_workers(pool: ProcessPoolExecutor) -> None:
    """Stop a pool now: its pending tasks cancelled and its processes terminated (killed if
    they do not end within a second), not awaited as ``shutdown`` awaits them."""
    # the processes are not public before Python 3.14 (terminate_workers); _processes holds
    # them from 3.8 on and is None once the pool is shut down
    processes = list((getattr(pool, "_processes", None) or {}).values())
    for process in processes:
        if process.is_alive():
            process.terminate()
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        process.join(1.0)
        if process.is_alive():
            process.kill()
            process.join(1.0)


class _Task:
    """A task of a route: its rows, its future, whether its time was counted (sizer)."""

    __slots__ = ("frame", "future", "counted")

    def __init__(self, frame: Any, future: Any) -> None:
        self.frame = frame
        self.future = future
        self.counted = False


def _succeeded(future: Future[Chunk]) -> bool:
    return future.done() and not future.cancelled() and future.exception() is None


def _broken(future: Future[Chunk]) -> bool:
    return (
        future.done()
        and not future.cancelled()
        and isinstance(future.exception(), BrokenProcessPool)
    )


class _Pool:
    """The pool of a route, replaced by a fresh one when a process dies."""

    def __init__(self, explainer: BatchExplainer, workers: int, encode: bool) -> None:
        self.explainer = explainer
        self.workers = workers
        self.encode = encode
        self.pool = _new_pool(explainer, workers)

    def submit(self, frame: Any) -> Future[Chunk]:
        """The future of a task; already failed when the pool broke before it was submitted."""
        try:
            return self.pool.submit(_worker_chunk, frame, self.encode)
        except BrokenProcessPool as err:
            failed: Future[Chunk] = Future()
            failed.set_exception(err)
            return failed

    def renew(self) -> None:
        """A fresh pool for a broken one (whose processes have ended)."""
        # awaited (at once: its processes are gone), so that its thread has ended and the
        # new pool can be forked (start_method), not spawned, which takes a second or more
        self.pool.shutdown(wait=True, cancel_futures=True)
        self.pool = _new_pool(self.explainer, self.workers)

    def alone(self, frame: Any) -> Chunk | None:
        """``frame``'s records, run alone on the pool; None when its process died."""
        try:
            return self.submit(frame).result()
        except BrokenProcessPool:
            self.renew()
            return None

    def recover(self, in_flight: list[_Task]) -> Iterator[Chunk]:
        """The tasks in flight when a process died, in order: those that had finished keep
        their result, the others are retried each alone; one that dies again, row by row."""
        for task in in_flight:
            if _succeeded(task.future):
                yield task.future.result()
                continue
            if not _broken(task.future) and task.future.done():
                task.future.result()  # the task's own exception: raised, as without a death
            done = self.alone(task.frame)
            if done is not None:
                yield done
            else:
                yield from self.row_by_row(task.frame)

    def row_by_row(self, frame: Any) -> Iterator[Chunk]:
        """A task that killed its process twice, one row at a time: a row that kills its
        process twice alone gets :data:`ROW_KILLS_WORKER`; when every row of a task of
        several does, the processes fail, not the rows (:class:`InfrastructureError`)."""
        held: list[Chunk] = []  # the error records, until a row shows the processes work
        explained = False
        frame = as_frame(frame)
        for i in range(len(frame)):
            row = frame.iloc[i : i + 1]
            done = self.alone(row)
            if done is None:
                done = self.alone(row)
            if done is None:
                held.append(error_records(row, ROW_KILLS_WORKER, self.encode, self.explainer))
                continue
            explained = True
            yield from held
            held.clear()
            yield done
        if held and not explained and len(frame) > 1:
            raise InfrastructureError(
                f"the worker processes die whatever they explain: each of {_rows_text(frame)}, "
                "tried alone twice, killed its process"
            )
        yield from held


def run_processes(
    explainer: BatchExplainer,
    chunks: Iterable[Any],
    workers: int,
    *,
    encode: bool = False,
    task_seconds: float | None = None,
) -> Generator[Chunk, None, None]:
    """Each chunk's records (their text with ``encode``), computed by ``workers`` local
    processes, in row order; with ``task_seconds``, each task's (see :class:`TaskSizer`).

    Closing the iterator early (or an interrupt while it runs) terminates the processes.

    Raises
    ------
    InvalidParameterError
        When ``workers`` is not positive.
    InfrastructureError
        When the processes die on every row of a task (see the module's text).
    """
    if workers < 1:
        raise InvalidParameterError(f"workers: expected a positive number, found {workers}")
    sizer = None if task_seconds is None else TaskSizer(task_seconds)
    pool = _Pool(explainer, workers, encode)
    # running or queued: 2 N tasks, so that no worker waits; done and waiting for the
    # tasks before them (a slow row at the head of the row order): 8 N tasks more, or
    # more while they hold fewer than WAITING_ROWS rows (slow rows travel one per task)
    running, waiting = 2 * workers, 8 * workers
    rows = 0  # of the pending tasks
    pending: collections.deque[_Task] = collections.deque()
    source = split_tasks(chunks, sizer)
    exhausted = False
    try:
        while True:
            busy = sum(not task.future.done() for task in pending)
            while (
                not exhausted
                and busy < running
                and (len(pending) < running + waiting or rows < WAITING_ROWS)
            ):
                frame = next(source, None)
                if frame is None:
                    exhausted = True
                    break
                pending.append(_Task(frame, pool.submit(frame)))
                busy += 1
                rows += len(frame)
            if not pending:
                break
            if not pending[0].future.done():
                concurrent.futures.wait(
                    [task.future for task in pending if not task.future.done()],
                    return_when=concurrent.futures.FIRST_COMPLETED,
                )
            if any(_broken(task.future) for task in pending):
                in_flight = list(pending)
                pending.clear()
                rows = 0
                pool.renew()
                yield from pool.recover(in_flight)
                continue
            for task in pending:
                if sizer is not None and not task.counted and _succeeded(task.future):
                    task.counted = True
                    sizer.observe(*chunk_rows_seconds(task.future.result()))
            while pending and pending[0].future.done():
                task = pending.popleft()
                rows -= len(task.frame)
                yield task.future.result()  # a task's exception is raised
    except BaseException:  # an interrupt, the caller closing the iterator, a failure
        terminate_workers(pool.pool)
        raise
    pool.pool.shutdown(wait=True, cancel_futures=True)


# -- Dask --------------------------------------------------------------------------------------


@functools.cache
def _plugin_class() -> type[Any]:
    """The worker plugin class (built on first use: Dask is an optional extra)."""
    from distributed.diagnostics.plugin import WorkerPlugin

    class ExplainerPlugin(WorkerPlugin):  # type: ignore[misc]
        """A batch's explainer, on every worker: the scheduler keeps the plugin and gives it
        to each worker that joins, unlike scattered data, lost with its last holder."""

        def __init__(self, explainer: BatchExplainer) -> None:
            self.explainer = explainer

    return ExplainerPlugin


def _dask_task(plugin: str, rows: bytes | str, encode: bool, folder: str | None = None) -> Chunk:
    """A task of :func:`run_dask`, on a worker: the records of the frame pickled in
    ``rows`` (or in the file ``rows`` names; their text then written to a new file of
    ``folder``); a row whose explanation raises (not an :class:`~xpg.errors.XpgError`,
    which is a record already) gets an error record naming the exception, and the other
    rows their records."""
    from distributed import get_worker

    installed: Any = get_worker().plugins.get(plugin)
    if installed is None:
        raise LookupError(f"the worker has no explainer {plugin}")
    if isinstance(rows, str):
        with open(rows, "rb") as source:
            rows = source.read()
    chunk = _row_by_row_on_error(installed.explainer, as_frame(pickle.loads(rows)), encode)
    if folder is None or not isinstance(chunk, EncodedChunk):
        return chunk
    path = os.path.join(folder, f"{uuid.uuid4().hex}.jsonl")
    with open(path, "x", encoding="utf-8") as out:
        out.write(chunk.text)
    return chunk._replace(text="", path=path)


def _row_by_row_on_error(explainer: BatchExplainer, frame: Any, encode: bool) -> Chunk:
    try:
        return explain(explainer, frame, encode)
    except Exception:
        pass
    parts: list[Chunk] = []
    for i in range(len(frame)):
        row = frame.iloc[i : i + 1]
        try:
            parts.append(explain(explainer, row, encode))
        except Exception as err:
            text = " ".join(str(err).split()) or "(no message)"
            parts.append(error_records(row, f"{type(err).__name__}: {text}", encode, explainer))
    return joined(parts, encode)


#: the Dask configuration of a ``local:N`` cluster: what serves a dashboard only (the
#: profiler's samples, the event loop's ticks, the system monitor), or a memory check ten
#: times a second, would wake each worker's event loop often enough to slow its tasks down
#: (it takes the GIL from them): rows answered from the cell cache take microseconds
LOCAL_DASK_CONFIG = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "500ms",
    "distributed.admin.system-monitor.interval": "2s",
    "distributed.worker.memory.monitor-interval": "500ms",
    # no web pages: their modules are imported by every start (Prometheus metrics, a proxy)
    "distributed.scheduler.http.routes": [],
    "distributed.worker.http.routes": [],
}

#: seconds a thread of a ``local:N`` worker holds the GIL while another waits for it
#: (Python's default is 0.005): the task's thread, not the event loop's, is the one that
#: works, and it was made to hand the GIL over about every 5 ms
LOCAL_SWITCH_INTERVAL = 0.05


#: what the fork server of a ``local:N`` cluster imports once, before it forks each worker
#: (a spawned worker imported them itself: about 1.5 s a run on two cores)
LOCAL_PRELOAD = ["distributed", "pandas", "xpg.explain.parallel"]


def local_start_method() -> str:
    """How a ``local:N`` cluster starts its workers: ``forkserver`` where it exists, its
    server started now (it imports :data:`LOCAL_PRELOAD` while this process goes on; a
    single-threaded process, safe to fork, unlike this one once Dask's event loop runs in
    a thread), else ``spawn``.  Calling it early hides the server's imports; calling it
    again costs nothing.

    >>> local_start_method() in ("forkserver", "spawn")
    True
    """
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return "spawn"
    from multiprocessing import forkserver

    multiprocessing.get_context("forkserver").set_forkserver_preload(LOCAL_PRELOAD)
    with _sigint_ignored():  # the server's workers ignore it as the server does
        forkserver.ensure_running()  # a server already running keeps its own preload
    return "forkserver"


@functools.cache
def _switch_plugin_class() -> type[Any]:
    """The worker plugin that sets :data:`LOCAL_SWITCH_INTERVAL` on the workers of a
    ``local:N`` cluster (those its nannies restart included)."""
    from distributed.diagnostics.plugin import WorkerPlugin

    class SwitchIntervalPlugin(WorkerPlugin):  # type: ignore[misc]
        def setup(self, worker: Any) -> None:
            sys.setswitchinterval(LOCAL_SWITCH_INTERVAL)

    return SwitchIntervalPlugin


@contextlib.contextmanager
def _sigint_ignored() -> Iterator[None]:
    """SIGINT ignored within the block (in the main thread), so that the processes started
    there ignore it too: a worker Ctrl-C reaches through the terminal's process group would
    print its own traceback, while this process stops it (:func:`stop_local_cluster`)."""
    with handling(signal.SIGINT, signal.SIG_IGN):
        yield


def dask_client(scheduler: str) -> tuple[Any, Any]:
    """A Dask ``Client`` for ``tcp://HOST:PORT`` (an existing cluster) or ``local:N`` (a new
    ``LocalCluster`` of ``N`` single-threaded worker processes, made for short tasks: see
    :data:`LOCAL_DASK_CONFIG` and :data:`LOCAL_SWITCH_INTERVAL`), and the cluster to close
    afterwards (None for an existing one).

    Raises
    ------
    MissingExtraError
        Without dask.distributed (the message names the extra).
    InvalidParameterError
        For a malformed address, or a cluster that cannot be reached.
    """
    try:
        import dask
        from distributed import Client, LocalCluster
    except ImportError:
        raise MissingExtraError(f"--scheduler needs Dask distributed: {SCALE_EXTRA}") from None
    if scheduler.startswith("local:"):
        text = scheduler.removeprefix("local:")
        if not text.isdigit() or int(text) < 1:
            raise InvalidParameterError(
                f"scheduler {scheduler!r}: expected local:N with N a positive number of workers"
            )
        # inherited by the workers: SIGINT ignored (Ctrl-C is for this process) and the
        # configuration (LOCAL_DASK_CONFIG)
        method = {"distributed.worker.multiprocessing-method": local_start_method()}
        with _sigint_ignored(), dask.config.set({**LOCAL_DASK_CONFIG, **method}):
            cluster = LocalCluster(
                n_workers=int(text),
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
                # the scheduler's web server, without pages, on a free port: on its default
                # port, taken by another cluster, it would warn on standard error
                scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
                host="127.0.0.1",
                # errors only: a long task holding the GIL makes warnings ("event loop was
                # unresponsive"), and so does cancelling the tasks of an interrupted run
                silence_logs=logging.ERROR,
            )
        # the records come from the workers straight, not through the scheduler (a cluster
        # of this machine: every worker can be reached)
        client = Client(cluster, direct_to_workers=True)
        try:
            client.register_plugin(_switch_plugin_class()(), name="xpg-switch-interval")
        except BaseException:
            client.close()
            cluster.close()
            raise
        return client, cluster
    if "://" not in scheduler:
        raise InvalidParameterError(
            f"scheduler {scheduler!r}: expected tcp://HOST:PORT (a running 'dask scheduler') "
            "or local:N"
        )
    try:
        return Client(scheduler, timeout="10s"), None
    except (OSError, TimeoutError, ValueError) as err:
        raise InvalidParameterError(
            f"scheduler {scheduler!r}: cannot connect: {str(err).splitlines()[0]}"
        ) from None


def stop_local_cluster(cluster: Any, seconds: float = 0.5) -> None:
    """Close a ``LocalCluster`` at once, after an interrupt: each worker process is given
    ``seconds`` to stop, then killed (a graceful close awaits a busy worker for 4 s).

    The workers of a remote cluster (``tcp://``) are not this process's: cancelling the
    futures (:func:`run_dask` does) is all a client can do.
    """
    import asyncio

    async def close(nannies: list[Any]) -> None:
        closing = (n.close(timeout=seconds, reason="xpg-interrupted") for n in nannies)
        await asyncio.gather(*closing, return_exceptions=True)

    logging.getLogger("distributed").setLevel(logging.CRITICAL)  # the workers' last words
    with contextlib.suppress(Exception):
        cluster.sync(close, list(cluster.workers.values()))
    cluster.close()


#: seconds between two looks at the cluster while no task completes
DASK_POLL = 1.0


class _NoReconnectTraceback(logging.Filter):
    """Drops the client's traceback of its failed reconnection to a scheduler that is gone
    (logged when the client closes): :class:`InfrastructureError` already said it."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith("Failed to reconnect to scheduler")


class _DaskRun:
    """The state of one :func:`run_dask`: the tasks in flight (by key), and the groups of
    one-row tasks of a task that killed its workers (by the key of that task)."""

    def __init__(
        self, client: Any, explainer: BatchExplainer, encode: bool, folder: str | None
    ) -> None:
        self.client = client
        self.explainer = explainer
        self.encode = encode
        self.folder = folder
        self.plugin = f"xpg-explainer-{uuid.uuid4().hex}"
        self.tasks: dict[str, tuple[_Task, str | None]] = {}  # key -> (task, group)
        self.inputs: dict[str, str] = {}  # key -> the file of its pickled rows (``folder``)
        # group -> [rows of the task, rows not back yet, held error records, one explained]
        self.groups: dict[str, list[Any]] = {}
        self.address = getattr(client.scheduler, "address", None) or "?"

    def install(self) -> None:
        """The explainer on every worker, now and to come."""
        plugin = _plugin_class()(self.explainer)
        try:
            replies = self.client.register_plugin(plugin, name=self.plugin)
        except (OSError, TimeoutError) as err:
            raise self.lost(err) from None
        for worker, reply in (replies or {}).items():
            if isinstance(reply, dict) and reply.get("status") != "OK":
                raise InfrastructureError(
                    f"the explainer could not be installed on Dask worker {worker}: "
                    f"{' '.join(str(reply.get('exception', reply)).split())}"
                )

    def uninstall(self) -> None:
        if self.client.status == "running":
            with contextlib.suppress(Exception):
                self.client.unregister_worker_plugin(self.plugin)

    def submit(self, frame: Any, group: str | None = None) -> None:
        # the frame travels pickled: the scheduler, which unpickles a task's arguments and
        # pickles them again for its worker, then only copies bytes (a frame's pickling is
        # what a task's overhead was made of)
        data = pickle.dumps(frame, protocol=pickle.HIGHEST_PROTOCOL)
        rows: bytes | str = data
        if self.folder is not None:  # the bytes through a file, not the scheduler
            rows = os.path.join(self.folder, f"{uuid.uuid4().hex}.rows")
            with open(rows, "xb") as out:
                out.write(data)
        future = self.client.submit(
            _dask_task, self.plugin, rows, self.encode, self.folder, pure=False
        )
        self.tasks[future.key] = (_Task(frame, future), group)
        if isinstance(rows, str):
            self.inputs[future.key] = rows

    def forget_input(self, key: str) -> None:
        """Remove the file of a task's rows (a task whose result is in)."""
        with contextlib.suppress(OSError):
            os.unlink(self.inputs.pop(key, ""))

    def cancel(self) -> None:
        if self.client.status == "running":
            with contextlib.suppress(Exception):
                self.client.cancel([task.future for task, _ in self.tasks.values()], force=True)

    def lost(self, err: BaseException | None = None) -> InfrastructureError:
        """The error of a scheduler this client lost (or of a task cancelled by the cluster)."""
        if self.client.status != "running":
            logging.getLogger("distributed.client").addFilter(_NoReconnectTraceback())
            return InfrastructureError(
                f"the Dask scheduler at {self.address} is gone (the connection was lost)"
            )
        why = "" if err is None else f": {' '.join(str(err).split())[:200]}"
        return InfrastructureError(f"the Dask cluster at {self.address} cancelled a task{why}")

    def workers(self) -> int:
        """How many workers the scheduler has."""
        if self.client.status != "running":
            raise self.lost()
        try:
            return len(self.client.nthreads())
        except (OSError, TimeoutError) as err:
            raise self.lost(err) from None

    def collect(self, future: Any) -> Iterator[Chunk]:
        """What a completed task gives: its records; or, for a task that killed its workers,
        its rows as tasks of their own (see :meth:`Pool.row_by_row`)."""
        from distributed import KilledWorker

        task, group = self.tasks.pop(future.key)
        if future.status == "cancelled":
            raise self.lost()
        if future.status == "finished":
            done: Chunk = future.result()
            self.forget_input(future.key)
            if group is None:
                yield done
                return
            state = self.groups[group]
            state[1] -= 1
            state[3] = True
            yield from state[2]
            state[2].clear()
            yield done
            yield from self.close_group(group)
            return
        err = future.exception()
        self.forget_input(future.key)
        if not isinstance(err, KilledWorker):
            text = " ".join(f"{type(err).__name__}: {err}".split())[:300]
            raise InfrastructureError(
                f"a task of {_rows_text(task.frame)} failed on the Dask cluster: {text}"
            )
        if group is None and len(task.frame) > 1:
            self.groups[future.key] = [len(task.frame), len(task.frame), [], False]
            frame = as_frame(task.frame)
            for i in range(len(frame)):
                self.submit(frame.iloc[i : i + 1], future.key)
            return
        records = error_records(task.frame, ROW_KILLS_DASK_WORKER, self.encode, self.explainer)
        if group is None:
            yield records
            return
        state = self.groups[group]
        state[1] -= 1
        state[2].append(records)
        yield from self.close_group(group)

    def close_group(self, group: str) -> Iterator[Chunk]:
        rows, left, held, explained = self.groups[group]
        if left:
            return
        del self.groups[group]
        if held and not explained and rows > 1:
            raise InfrastructureError(
                "the Dask workers die whatever they explain: each row of a task, alone, "
                "killed its workers"
            )
        yield from held


def run_dask(
    explainer: BatchExplainer,
    chunks: Iterable[Any],
    client: Any,
    *,
    in_flight: int | None = None,
    encode: bool = False,
    task_seconds: float | None = None,
    worker_wait: float = 60.0,
    folder: str | None = None,
) -> Generator[Chunk, None, None]:
    """Each chunk's records (their text with ``encode``), computed on the Dask cluster of
    ``client``, as they complete; with ``task_seconds``, each task's (see :class:`TaskSizer`).

    With ``folder`` (a folder this process and every worker share: a ``local:N``
    cluster's), each task's rows go to its worker in a file of ``folder``, and with
    ``encode`` its text comes back in one (:class:`~xpg.explain.records.EncodedChunk`
    ``path``), not through the cluster's connections, where they went through this
    process's and the worker's event loops (a tenth of the CPU of a run on two cores).

    ``in_flight`` tasks at most are submitted and not yet returned (default: four per
    worker thread), so that a file larger than memory streams through.  Closing the iterator
    early (or an interrupt while it runs) cancels what was submitted.

    Raises
    ------
    InfrastructureError
        When the scheduler is gone, the cluster has had no worker for ``worker_wait``
        seconds, or a task fails for another reason than its rows (see the module's text).
    """
    from distributed import wait

    run = _DaskRun(client, explainer, encode, folder)
    if in_flight is None:
        in_flight = 4 * (sum(client.nthreads().values()) or 1)
    sizer = None if task_seconds is None else TaskSizer(task_seconds)
    run.install()
    source = split_tasks(chunks, sizer, MAX_DASK_TASK_ROWS)
    exhausted = False
    no_worker_since: float | None = None
    try:
        while True:
            while not exhausted and len(run.tasks) < in_flight:
                frame = next(source, None)
                if frame is None:
                    exhausted = True
                    break
                run.submit(frame)
            if not run.tasks:
                break
            futures = [task.future for task, _ in run.tasks.values()]
            try:
                done, _ = wait(futures, timeout=DASK_POLL, return_when="FIRST_COMPLETED")
            except concurrent.futures.CancelledError as err:
                raise run.lost(err) from None
            except TimeoutError:  # nothing done: is there a cluster still?
                if run.workers():
                    no_worker_since = None
                elif no_worker_since is None:
                    no_worker_since = time.monotonic()
                elif time.monotonic() - no_worker_since > worker_wait:
                    raise InfrastructureError(
                        f"no Dask worker on the cluster at {run.address} for {worker_wait:g} s "
                        "(all gone, none came back)"
                    ) from None
                continue
            no_worker_since = None
            for future in done:
                for chunk in run.collect(future):
                    if sizer is not None:
                        sizer.observe(*chunk_rows_seconds(chunk))
                    yield chunk
    except BaseException:  # an interrupt, the caller closing the iterator, a failure
        run.cancel()
        raise
    finally:
        run.uninstall()
