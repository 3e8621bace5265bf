"""Faults of the parallel routes (:mod:`xpg.explain.parallel`, issue 31): workers killed by
their PID, a scheduler killed, the main process killed.  Every row gets exactly one correct
record, or the route raises :class:`~xpg.errors.InfrastructureError` and yields no record of
the rows it could not run; a row's own error record is kept for a row that kills its worker
every time it is tried alone; local workers die with their parent; tasks follow the rows'
cost."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from batch_cases import KillingExplainer, batch_case, frames_of, strip_seconds

from xpg.errors import InfrastructureError
from xpg.explain.batch import BatchExplainer
from xpg.explain.engine import Explainer
from xpg.explain.parallel import (
    TaskSizer,
    dask_client,
    run_dask,
    run_in_process,
    run_processes,
    split_tasks,
)
from xpg.explain.records import Record
from xpg.testing import random_decision_graph

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def case() -> tuple[BatchExplainer, list[pd.DataFrame]]:
    return batch_case()


def _like(cls: type[BatchExplainer], explainer: BatchExplainer) -> BatchExplainer:
    return cls(explainer.explainer, kinds=explainer.kinds)


class ChunkKiller(BatchExplainer):
    """Kills its worker on a task of several rows holding row 13; row 13 alone is fine (the
    chunk is the trouble, e.g. its memory, not one row)."""

    def explain_chunk(self, frame: Any) -> list[Record]:
        if 13 in frame.index and len(frame) > 1:
            os._exit(3)
        return super().explain_chunk(frame)


class EveryTaskKiller(BatchExplainer):
    """Kills its worker on every task from row 14 on: the workers, not the rows, fail."""

    def explain_chunk(self, frame: Any) -> list[Record]:
        if max(frame.index) >= 14:
            os._exit(3)
        return super().explain_chunk(frame)


class SlowChunks(BatchExplainer):
    """Takes 0.1 s per task, so that a worker can be killed while the route runs."""

    def explain_chunk(self, frame: Any) -> list[Record]:
        time.sleep(0.1)
        return super().explain_chunk(frame)


class HeadWaits(BatchExplainer):
    """The task of row 0 waits (20 s at most) until every other task of the run is done,
    and says in its record whether they were: a slow row at the head of the row order."""

    marks = Path()  # a directory: one file per task done
    tasks = 0

    def explain_chunk(self, frame: Any) -> list[Record]:
        records = super().explain_chunk(frame)
        if 0 not in frame.index:
            (self.marks / str(frame.index[0])).touch()
            return records
        deadline = time.monotonic() + 20
        while len(list(self.marks.iterdir())) < self.tasks - 1 and time.monotonic() < deadline:
            time.sleep(0.01)
        records[0]["others_done"] = len(list(self.marks.iterdir())) == self.tasks - 1
        return records


# -- local processes ---------------------------------------------------------------------------


def test_a_chunk_that_kills_its_worker_twice_is_retried_row_by_row(case: Any) -> None:
    """Was: the 7 rows of the chunk written as errors, though each row alone is fine."""
    explainer, frames = case
    expected = strip_seconds(run_in_process(explainer, frames))
    assert strip_seconds(run_processes(_like(ChunkKiller, explainer), frames, 2)) == expected


def test_a_row_that_kills_its_worker_every_time_gets_its_own_error(case: Any) -> None:
    """Was: every row of its chunk (7..13) written as an error."""
    explainer, frames = case
    expected = strip_seconds(run_in_process(explainer, frames))
    got = strip_seconds(run_processes(_like(KillingExplainer, explainer), frames, 2))
    assert [r["row"] for r in got] == [r["row"] for r in expected]
    errors = [r for r in got if "error" in r]
    assert [r["row"] for r in errors] == [13]
    assert "kills the process" in errors[0]["error"]
    assert [r for r in got if "error" not in r] == [r for r in expected if r["row"] != 13]


def test_workers_dying_on_every_task_are_an_infrastructure_error(case: Any) -> None:
    """Was: every row from 14 on written as an error ("the worker process died ...")."""
    explainer, frames = case
    expected = strip_seconds(run_in_process(explainer, frames))
    got: list[Any] = []
    with pytest.raises(InfrastructureError, match="worker process"):
        for chunk in run_processes(_like(EveryTaskKiller, explainer), frames, 2):
            got.append(chunk)
    assert strip_seconds(got) == expected[:14]  # the rows before, in order, and no error record


def test_a_slow_row_does_not_hold_the_other_workers(case: Any, tmp_path: Path) -> None:
    """The records come in row order, but the workers go on past a slow task at the head:
    was, 2 N tasks in flight at most, the other worker idle until the slow row was done."""
    explainer, frames = case
    slow = _like(HeadWaits, explainer)
    slow.marks, slow.tasks = tmp_path, len(frames)
    assert len(frames) > 2 * 2
    got = strip_seconds(run_processes(slow, frames, 2))
    assert got[0].pop("others_done") is True
    assert got == strip_seconds(run_in_process(explainer, frames))


def test_tasks_merge_whole_chunks_for_fast_rows_and_cut_them_for_slow_rows(case: Any) -> None:
    _, frames = case
    sizer = TaskSizer(1.0)
    tasks = split_tasks(frames, sizer)
    assert len(next(tasks)) == 1  # nothing measured yet
    sizer.observe(1000, 0.05)  # 20,000 rows a second: tasks of whole chunks, merged
    merged = list(tasks)
    assert [len(t) for t in merged] == [6] + [sum(len(f) for f in frames[1:])]
    rows = [r for t in [frames[0].iloc[:1], *merged] for r in t.index]
    assert rows == list(range(sum(len(f) for f in frames)))
    sizer = TaskSizer(0.25)
    sizer.observe(2, 1.0)  # 0.5 s a row: one row a task
    assert {len(t) for t in split_tasks(frames, sizer)} == {1}
    sizer = TaskSizer(1.0)
    sizer.observe(1, 0.1)  # 10 rows a task: whole chunks are never merged past it
    assert [len(t) for t in split_tasks(frames[:3], sizer)] == [7, 7, 7]


def _descendants(pid: int) -> list[int]:
    """The processes below ``pid`` (from /proc: the kernel's list of each thread's children)."""
    found: list[int] = []
    todo = [pid]
    while todo:
        parent = todo.pop()
        for task in Path(f"/proc/{parent}/task").glob("*"):
            try:
                children = (task / "children").read_text().split()
            except OSError:
                continue
            for child in map(int, children):
                found.append(child)
                todo.append(child)
    return found


def _gone(pid: int) -> bool:
    """Ended (or a zombie, which no one may reap in a container)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return True
    return fields[0] in ("Z", "X")


ORPHAN_SCRIPT = textwrap.dedent(
    """
    import sys, time
    from xpg.examples import and_graph
    from xpg.explain.batch import BatchExplainer
    from xpg.explain.engine import Explainer
    from xpg.explain.parallel import run_processes
    import pandas as pd

    class Slow(BatchExplainer):
        def explain_chunk(self, frame):
            time.sleep(60)  # busy workers: they never return to read their queue
            return super().explain_chunk(frame)

    def chunks():
        yield pd.DataFrame({"a": [1, 0], "b": [1, 1]})
        print("started", flush=True)
        for i in range(100):
            yield pd.DataFrame({"a": [1, 0], "b": [1, 1]}, index=[2 * i + 2, 2 * i + 3])

    explainer = Slow(Explainer(and_graph(), many=True), kinds="axp")
    for _ in run_processes(explainer, chunks(), 2):
        pass
    """
)


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads /proc")
@pytest.mark.parametrize("signum", [signal.SIGKILL, signal.SIGTERM])
def test_local_workers_die_with_their_parent(signum: int) -> None:
    """Was: two orphans running forever per killed job (SIGKILL, or SIGTERM without the
    command's handler)."""
    proc = subprocess.Popen(
        [sys.executable, "-c", ORPHAN_SCRIPT], stdout=subprocess.PIPE, text=True, cwd=REPO
    )
    workers: list[int] = []
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "started"
        deadline = time.monotonic() + 30
        while len(workers) < 2 and time.monotonic() < deadline:
            workers = [p for p in _descendants(proc.pid) if not _gone(p)]
            time.sleep(0.05)
        assert len(workers) >= 2
        os.kill(proc.pid, signum)
        proc.wait(30)
        deadline = time.monotonic() + 10
        while not all(map(_gone, workers)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert [p for p in workers if not _gone(p)] == []
    finally:
        for pid in [proc.pid, *workers]:
            if not _gone(pid):
                os.kill(pid, signal.SIGKILL)
        proc.wait(10)


# -- Dask --------------------------------------------------------------------------------------


def _dask_case() -> tuple[BatchExplainer, list[pd.DataFrame]]:
    dg = random_decision_graph(3, "dag")
    return BatchExplainer(Explainer(dg), kinds="axp,cxp,features"), frames_of(dg, 3, copies=2)


def _collect_killing(route: Iterator[Any], kill: Any, got: list[Any]) -> None:
    """Consume ``route`` into ``got``, calling ``kill`` once the first chunk is back."""
    for chunk in route:
        got.append(chunk)
        if len(got) == 1:
            kill()


def _pickled_by_value() -> None:
    """This module's classes travel by value: a ``dask worker`` cannot import tests/."""
    import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])


@pytest.mark.slow
@pytest.mark.parametrize("in_files", [False, True])
def test_dask_worker_killed_and_restarted_by_its_nanny_loses_no_row(
    in_files: bool, tmp_path: Path
) -> None:
    """Was: the scattered explainer died with its only holder, and every row after it was
    written as an error ("the chunk failed on the cluster, twice: NoneType").  With a
    folder, the rows of the task that died are read again from their file by the new
    worker, and the records come back as files."""
    explainer, frames = _dask_case()
    expected = strip_seconds(run_in_process(explainer, frames))
    client, cluster = dask_client("local:1")
    folder = str(tmp_path) if in_files else None
    try:
        pids = list(client.run(os.getpid).values())
        got: list[Any] = []
        slow = _like(SlowChunks, explainer)
        route = run_dask(slow, frames, client, in_flight=2, encode=in_files, folder=folder)
        _collect_killing(route, lambda: os.kill(pids[0], signal.SIGKILL), got)
        assert list(client.run(os.getpid).values()) != pids  # a new worker did the rest
    finally:
        client.close()
        cluster.close()
    if in_files:
        texts = [Path(chunk.path).read_text() for chunk in got]
        got = [[json.loads(line) for text in texts for line in text.splitlines()]]
        assert list(tmp_path.glob("*.rows")) == []
    assert sorted(strip_seconds(got), key=lambda r: r["row"]) == expected


class Scheduler:
    """A ``dask scheduler`` and one ``dask worker`` (no nanny: nothing restarts it) started as
    processes of their own, killed by their PID at the end."""

    def __init__(self, tmp: Path) -> None:
        self.file = tmp / "scheduler.json"
        cli = [sys.executable, "-m"]
        where = ["--scheduler-file", str(self.file), "--host", "127.0.0.1", "--no-dashboard"]
        self.scheduler = subprocess.Popen(
            [*cli, "distributed.cli.dask_scheduler", *where, "--port", "0"],
            stderr=subprocess.DEVNULL,
        )
        self.worker = subprocess.Popen(
            [*cli, "distributed.cli.dask_worker", *where, "--nthreads", "1", "--no-nanny"],
            stderr=subprocess.DEVNULL,
        )

    def client(self) -> Any:
        from distributed import Client

        client = Client(scheduler_file=str(self.file), timeout="30s")
        client.wait_for_workers(1, timeout=30)
        return client

    def close(self) -> None:
        for proc in (self.worker, self.scheduler):
            if proc.poll() is None:
                os.kill(proc.pid, signal.SIGKILL)
            proc.wait(10)


@pytest.fixture
def scheduler(tmp_path: Path) -> Iterator[Scheduler]:
    started = Scheduler(tmp_path)
    try:
        deadline = time.monotonic() + 30
        while not started.file.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        yield started
    finally:
        started.close()


@pytest.mark.slow
@pytest.mark.parametrize("killed", ["worker", "scheduler"])
def test_dask_cluster_gone_is_an_infrastructure_error(scheduler: Scheduler, killed: str) -> None:
    """The only worker killed (none comes back) or the scheduler killed: one clear error, and
    no record of the rows that were not explained (was: error records, or a traceback)."""
    _pickled_by_value()
    explainer, frames = _dask_case()
    expected = strip_seconds(run_in_process(explainer, frames))
    client = scheduler.client()
    victim = scheduler.worker if killed == "worker" else scheduler.scheduler
    got: list[Any] = []
    try:
        route = run_dask(_like(SlowChunks, explainer), frames, client, in_flight=2, worker_wait=2)
        with pytest.raises(InfrastructureError, match=r"Dask (worker|scheduler)") as raised:
            _collect_killing(route, lambda: os.kill(victim.pid, signal.SIGKILL), got)
    finally:
        client.close(timeout=5)
    assert "\n" not in str(raised.value)
    records = strip_seconds(got)
    assert records and all("error" not in r for r in records)
    assert len({r["row"] for r in records}) == len(records)
    assert sorted(records, key=lambda r: r["row"]) == [r for r in expected if r in records]
