"""Run a batch of explanations over chunks of rows: in process, on local processes, on Dask.

Every route takes a :class:`~xpg.explain.batch.BatchExplainer` (the compiled model and the
options) and an iterable of pandas ``DataFrame`` chunks, and yields each chunk's records as
a list, or with ``encode=True`` as JSON Lines text encoded by the worker
(:class:`~xpg.explain.batch.EncodedChunk`: the process writing the output then only copies
text, which keeps it from becoming the bottleneck of many workers):

* :func:`run_in_process`: chunk after chunk, in this process (no start-up cost at all).
* :func:`run_processes`: ``N`` local processes (``concurrent.futures``, forked when that is
  safe, see :func:`start_method`); the explainer is sent to each process once, by the pool's
  initializer; at most ``2 N`` chunks are in
  flight, and the lists come back **in row order**.  A process that dies breaks the pool:
  the chunks in flight are then retried one at a time on a fresh pool, so that a chunk
  which kills its process again is the culprit, reported as error records, and the others
  succeed.
* :func:`run_dask`: a Dask distributed cluster (``tcp://HOST:PORT``, or ``local:N`` for a
  ``LocalCluster`` of ``N`` worker processes); the explainer is scattered to every worker
  once, chunks are submitted with ``retries=1`` and the lists come back **as they
  complete** (not in row order).  A chunk that still fails is reported as error records.

Examples
--------
>>> import pandas as pd
>>> from xpg.examples import and_graph
>>> from xpg.explain.batch import BatchExplainer
>>> explainer = BatchExplainer(and_graph(), kinds="axp")
>>> chunks = [pd.DataFrame({"a": [1, 0], "b": [1, 1]})]
>>> [[r["axps"] for r in records] for records in run_in_process(explainer, chunks)]
[[[['a', 'b']], [['a']]]]
"""

from __future__ import annotations

import collections
import multiprocessing
import threading
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from xpg.errors import InvalidParameterError, MissingExtraError
from xpg.explain.batch import BatchExplainer, EncodedChunk, Record, encode_records

#: what a route yields per chunk: the records, or (``encode=True``) their JSON Lines text
Chunk = list[Record] | EncodedChunk

#: the extra that brings Dask (and pandas)
SCALE_EXTRA = "pip install 'xpg-toolkit[scale]'"


def error_records(frame: Any, message: str, encode: bool = False) -> Chunk:
    """One error record per row of ``frame`` (a chunk that could not be explained)."""
    records: list[Record] = [{"row": int(row), "error": message} for row in frame.index]
    return encode_records(records) if encode else records


def explain(explainer: BatchExplainer, frame: Any, encode: bool) -> Chunk:
    """One chunk's records, or their JSON Lines text."""
    return explainer.explain_lines(frame) if encode else explainer.explain_chunk(frame)


def run_in_process(
    explainer: BatchExplainer, chunks: Iterable[Any], *, encode: bool = False
) -> Iterator[Chunk]:
    """Each chunk's records (their text with ``encode``), in this process, in row order."""
    for frame in chunks:
        yield explain(explainer, frame, encode)


# -- local processes ---------------------------------------------------------------------------

# The explainer of this worker process, set once by the pool's initializer: the documented way
# to give every task of a ProcessPoolExecutor the same large argument without resending it.
_WORKER_EXPLAINER: BatchExplainer | None = None


def _init_worker(explainer: BatchExplainer) -> None:
    global _WORKER_EXPLAINER
    _WORKER_EXPLAINER = explainer


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


def run_processes(
    explainer: BatchExplainer, chunks: Iterable[Any], workers: int, *, encode: bool = False
) -> Iterator[Chunk]:
    """Each chunk's records (their text with ``encode``), computed by ``workers`` local
    processes, in row order.

    Raises
    ------
    InvalidParameterError
        When ``workers`` is not positive.
    """
    if workers < 1:
        raise InvalidParameterError(f"workers: expected a positive number, found {workers}")
    pool = _new_pool(explainer, workers)
    pending: collections.deque[tuple[Any, Future[Chunk]]] = collections.deque()
    source = iter(chunks)
    try:
        while True:
            while len(pending) < 2 * workers:
                frame = next(source, None)
                if frame is None:
                    break
                pending.append((frame, _submit(pool, frame, encode)))
            if not pending:
                return
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
            yield records
    finally:
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
            out.append(error_records(frame, message, encode))
    return pool, out


# -- Dask --------------------------------------------------------------------------------------


def _dask_chunk(explainer: BatchExplainer, frame: Any, encode: bool) -> Chunk:
    return explain(explainer, frame, encode)


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
        cluster = LocalCluster(
            n_workers=int(text),
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            host="127.0.0.1",
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


def run_dask(
    explainer: BatchExplainer,
    chunks: Iterable[Any],
    client: Any,
    *,
    in_flight: int | None = None,
    encode: bool = False,
) -> Iterator[Chunk]:
    """Each chunk's records (their text with ``encode``), computed on the Dask cluster of
    ``client``, as they complete.

    ``in_flight`` chunks at most are submitted and not yet returned (default: four per
    worker thread), so that a file larger than memory streams through.
    """
    from distributed import as_completed

    if in_flight is None:
        threads = sum(client.nthreads().values()) or 1
        in_flight = 4 * threads
    remote = client.scatter(explainer, broadcast=True, hash=False)  # a fresh key per run
    frames: dict[str, Any] = {}
    running = as_completed()

    def collect(future: Any) -> Chunk:
        frame = frames.pop(future.key)
        if future.status == "finished":
            done: Chunk = future.result()
            return done
        message = f"the chunk failed on the cluster, twice: {type(future.exception()).__name__}"
        return error_records(frame, message, encode)

    for frame in chunks:
        future = client.submit(_dask_chunk, remote, frame, encode, retries=1, pure=False)
        frames[future.key] = frame
        running.add(future)
        while running.count() >= in_flight:
            yield collect(next(running))
    for future in running:
        yield collect(future)
