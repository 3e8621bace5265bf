"""Run a batch of explanations over chunks of rows: in process, on local processes, on Dask.

Every route takes a :class:`~xpg.explain.batch.BatchExplainer` (the compiled model and the
options) and an iterable of pandas ``DataFrame`` chunks, and yields each chunk's records as
a list, or with ``encode=True`` as JSON Lines text encoded by the worker
(:class:`~xpg.explain.batch.EncodedChunk`: the process writing the output then only copies
text, which keeps it from becoming the bottleneck of many workers):

* :func:`run_in_process`: chunk after chunk, in this process (no start-up cost at all);
  with ``per_row=True`` each row's record as soon as it is done.
* :func:`run_processes`: ``N`` local processes (``concurrent.futures``, forked when that is
  safe, see :func:`start_method`); the explainer is sent to each process once, by the pool's
  initializer; at most ``2 N`` chunks are in
  flight, and the lists come back **in row order**.  A process that dies breaks the pool:
  the chunks in flight are then retried one at a time on a fresh pool, so that a chunk
  which kills its process again is the culprit, reported as error records, and the others
  succeed.  The workers ignore SIGINT (Ctrl-C reaches the whole process group): when the
  route stops early (an interrupt in the caller, or the caller closing the iterator) they
  are terminated at once, not awaited.
* :func:`run_dask`: a Dask distributed cluster (``tcp://HOST:PORT``, or ``local:N`` for a
  ``LocalCluster`` of ``N`` worker processes); the explainer is scattered to every worker
  once, chunks are submitted with ``retries=1`` and the lists come back **as they
  complete** (not in row order).  A chunk that still fails is reported as error records.
  Stopping early cancels what was submitted.

With ``task_seconds``, the two parallel routes cut the chunks into tasks of about that many
seconds each, from the time the rows done so far took (:class:`TaskSizer`): a slow model's
rows travel one by one, so that each comes back as soon as it is done, and a fast model's
rows in whole chunks, as without it.

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
import contextlib
import multiprocessing
import signal
import threading
from collections.abc import Generator, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from xpg.core.signals import handling
from xpg.errors import InvalidParameterError, MissingExtraError
from xpg.explain.batch import BatchExplainer, EncodedChunk, Record, chunk_counts, encode_records

#: what a route yields per chunk: the records, or (``encode=True``) their JSON Lines text
Chunk = list[Record] | EncodedChunk

#: the extra that brings Dask (and pandas)
SCALE_EXTRA = "pip install -e '.[scale]' from a clone of xpg"


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
    return explainer.explain_lines(frame) if encode else explainer.explain_chunk(frame)


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
    with ``per_row``, each row's record alone (a one-row chunk), as soon as it is done."""
    for frame in chunks:
        if not per_row:
            yield explain(explainer, frame, encode)
            continue
        for record in explainer.explain_frame(frame):
            yield encode_records([record]) if encode else [record]


class TaskSizer:
    """Rows per task so that a task takes about ``seconds``, from the time the rows done so
    far took (their records' ``"seconds"``): 1 row until a first result is back.

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

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._rows = 0
        self._spent = 0.0

    def observe(self, rows: int, seconds: float) -> None:
        """Count a result: ``rows`` rows that took ``seconds`` together."""
        self._rows += rows
        self._spent += seconds

    def rows(self) -> int:
        """The size of the next task."""
        if self._rows == 0:
            return 1
        if self._spent * 2**30 <= self.seconds * self._rows:  # no time measured: any size
            return 2**30
        return max(1, int(self.seconds * self._rows / self._spent))


def split_tasks(chunks: Iterable[Any], sizer: TaskSizer | None) -> Iterator[Any]:
    """The chunks (pandas frames) cut into tasks of ``sizer.rows()`` rows at most (a task never
    spans two chunks), each cut when the route asks for it (None: the chunks as they are)."""
    if sizer is None:
        yield from chunks
        return
    for frame in chunks:
        start = 0
        while start < len(frame):
            size = sizer.rows()
            yield frame if start == 0 and size >= len(frame) else frame.iloc[start : start + size]
            start += size


# -- local processes ---------------------------------------------------------------------------

# The explainer of this worker process, set once by the pool's initializer: the documented way
# to give every task of a ProcessPoolExecutor the same large argument without resending it.
_WORKER_EXPLAINER: BatchExplainer | None = None


def _init_worker(explainer: BatchExplainer) -> None:
    global _WORKER_EXPLAINER
    _WORKER_EXPLAINER = explainer
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
        initargs=(explainer,),
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
    """
    if workers < 1:
        raise InvalidParameterError(f"workers: expected a positive number, found {workers}")
    sizer = None if task_seconds is None else TaskSizer(task_seconds)
    pool = _new_pool(explainer, workers)
    pending: collections.deque[tuple[Any, Future[Chunk]]] = collections.deque()
    source = split_tasks(chunks, sizer)
    try:
        while True:
            while len(pending) < 2 * workers:
                frame = next(source, None)
                if frame is None:
                    break
                pending.append((frame, _submit(pool, frame, encode)))
            if not pending:
                break
            frame, future = pending[0]
            try:
                records = future.result()
            except BrokenProcessPool:
                pool.shutdown(wait=False, cancel_futures=True)
                in_flight = list(pending)
                pending.clear()
                pool, retried = _retry_one_by_one(explainer, workers, in_flight, encode)
                yield from retried
                continue
            pending.popleft()
            if sizer is not None:
                sizer.observe(*chunk_rows_seconds(records))
            yield records
    except BaseException:  # an interrupt, the caller closing the iterator, a failure
        terminate_workers(pool)
        raise
    pool.shutdown(wait=True, cancel_futures=True)


def _submit(pool: ProcessPoolExecutor, frame: Any, encode: bool) -> Future[Chunk]:
    """The future of a chunk; already failed when the pool broke before it was submitted."""
    try:
        return pool.submit(_worker_chunk, frame, encode)
    except BrokenProcessPool as err:
        failed: Future[Chunk] = Future()
        failed.set_exception(err)
        return failed


def _retry_one_by_one(
    explainer: BatchExplainer,
    workers: int,
    in_flight: list[tuple[Any, Future[Chunk]]],
    encode: bool,
) -> tuple[ProcessPoolExecutor, list[Chunk]]:
    """The chunks in flight when a process died: those that had finished keep their result,
    the others are retried once, each alone on a fresh pool."""
    out: list[Chunk] = []
    pool = _new_pool(explainer, workers)
    try:
        for frame, future in in_flight:
            if future.done() and not future.cancelled() and future.exception() is None:
                out.append(future.result())
                continue
            try:
                out.append(pool.submit(_worker_chunk, frame, encode).result())
            except BrokenProcessPool:
                pool.shutdown(wait=False, cancel_futures=True)
                pool = _new_pool(explainer, workers)
                message = "the worker process died explaining this chunk, twice"
                out.append(error_records(frame, message, encode, explainer))
    except BaseException:
        terminate_workers(pool)
        raise
    return pool, out


# -- Dask --------------------------------------------------------------------------------------


def _dask_chunk(explainer: BatchExplainer, frame: Any, encode: bool) -> Chunk:
    return explain(explainer, frame, encode)


@contextlib.contextmanager
def _sigint_ignored() -> Iterator[None]:
    """SIGINT ignored within the block (in the main thread), so that the processes started
    there ignore it too: a worker Ctrl-C reaches through the terminal's process group would
    print its own traceback, while this process stops it (:func:`stop_local_cluster`)."""
    with handling(signal.SIGINT, signal.SIG_IGN):
        yield


def dask_client(scheduler: str) -> tuple[Any, Any]:
    """A Dask ``Client`` for ``tcp://HOST:PORT`` (an existing cluster) or ``local:N`` (a new
    ``LocalCluster`` of ``N`` single-threaded worker processes), and the cluster to close
    afterwards (None for an existing one).

    Raises
    ------
    MissingExtraError
        Without dask.distributed (the message names the extra).
    InvalidParameterError
        For a malformed address, or a cluster that cannot be reached.
    """
    import logging

    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise MissingExtraError(f"--scheduler needs Dask distributed: {SCALE_EXTRA}") from None
    if scheduler.startswith("local:"):
        text = scheduler.removeprefix("local:")
        if not text.isdigit() or int(text) < 1:
            raise InvalidParameterError(
                f"scheduler {scheduler!r}: expected local:N with N a positive number of workers"
            )
        with _sigint_ignored():  # inherited by the workers: Ctrl-C is for this process
            cluster = LocalCluster(
                n_workers=int(text),
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
                host="127.0.0.1",
                # errors only: a long task holding the GIL makes warnings ("event loop was
                # unresponsive"), and so does cancelling the tasks of an interrupted run
                silence_logs=logging.ERROR,
            )
        return Client(cluster), cluster
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
    import logging

    async def close(nannies: list[Any]) -> None:
        closing = (n.close(timeout=seconds, reason="xpg-interrupted") for n in nannies)
        await asyncio.gather(*closing, return_exceptions=True)

    logging.getLogger("distributed").setLevel(logging.CRITICAL)  # the workers' last words
    with contextlib.suppress(Exception):
        cluster.sync(close, list(cluster.workers.values()))
    cluster.close()


def run_dask(
    explainer: BatchExplainer,
    chunks: Iterable[Any],
    client: Any,
    *,
    in_flight: int | None = None,
    encode: bool = False,
    task_seconds: float | None = None,
) -> Generator[Chunk, None, None]:
    """Each chunk's records (their text with ``encode``), computed on the Dask cluster of
    ``client``, as they complete; with ``task_seconds``, each task's (see :class:`TaskSizer`).

    ``in_flight`` chunks at most are submitted and not yet returned (default: four per
    worker thread), so that a file larger than memory streams through.  Closing the iterator
    early (or an interrupt while it runs) cancels what was submitted.
    """
    from distributed import as_completed

    if in_flight is None:
        threads = sum(client.nthreads().values()) or 1
        in_flight = 4 * threads
    sizer = None if task_seconds is None else TaskSizer(task_seconds)
    remote = client.scatter(explainer, broadcast=True, hash=False)  # a fresh key per run
    frames: dict[str, tuple[Any, Any]] = {}  # in flight: key -> (frame, future)
    running = as_completed()

    def collect(future: Any) -> Chunk:
        frame, _ = frames.pop(future.key)
        if future.status == "finished":
            done: Chunk = future.result()
            if sizer is not None:
                sizer.observe(*chunk_rows_seconds(done))
            return done
        message = f"the chunk failed on the cluster, twice: {type(future.exception()).__name__}"
        return error_records(frame, message, encode, explainer)

    try:
        for frame in split_tasks(chunks, sizer):
            future = client.submit(_dask_chunk, remote, frame, encode, retries=1, pure=False)
            frames[future.key] = (frame, future)
            running.add(future)
            while running.count() >= in_flight:
                yield collect(next(running))
        for future in running:
            yield collect(future)
    except BaseException:  # an interrupt, the caller closing the iterator, a failure
        with contextlib.suppress(Exception):  # a client already closed: nothing to cancel
            client.cancel([future for _, future in frames.values()], force=True)
        raise
