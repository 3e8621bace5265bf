"""The routes of a batch (:mod:`xpg.explain.parallel`): local processes and a Dask cluster give
the records of the in-process loop; a worker that dies loses only its chunk; a route stopped
early terminates its workers at once; slow rows travel one per task."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from batch_cases import KillingExplainer, batch_case, strip_seconds

from xpg.errors import InvalidParameterError, MissingExtraError
from xpg.explain.batch import BatchExplainer
from xpg.explain.parallel import (
    TaskSizer,
    dask_client,
    run_dask,
    run_in_process,
    run_processes,
    split_tasks,
)
from xpg.explain.records import Record

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def case() -> tuple[BatchExplainer, list[pd.DataFrame]]:
    return batch_case()


class HangingExplainer(BatchExplainer):
    """Never finishes the chunk holding row 13 (a row that runs unbounded), in a worker that
    ignores SIGINT as every worker does."""

    def explain_chunk(self, frame: Any) -> list[Record]:
        if 13 in frame.index:
            import time

            time.sleep(120)  # a row that does not end while the test runs
        return super().explain_chunk(frame)


class SlowRowsExplainer(BatchExplainer):
    """Says each row took a second (its records' ``"seconds"``), as a slow model's would."""

    def _record(self, *args: Any, **kwargs: Any) -> Record:
        record = super()._record(*args, **kwargs)
        record["seconds"] = 1.0
        return record


def test_closing_the_route_terminates_its_workers(case: Any) -> None:
    """Was: the pool awaited, with the chunk in flight, however long it ran."""
    import time

    import psutil

    explainer, frames = case
    hanging = HangingExplainer(explainer.explainer, kinds=explainer.kinds)
    before = {p.pid for p in psutil.Process().children()}
    route = run_processes(hanging, frames, 2)
    assert [r["row"] for r in next(route)] == list(range(7))
    workers = [  # the pool's: not a process of an earlier test, nor a resource tracker
        p
        for p in psutil.Process().children()
        if p.pid not in before and "resource_tracker" not in " ".join(p.cmdline())
    ]
    assert len(workers) == 2
    start = time.monotonic()
    route.close()
    assert time.monotonic() - start < 30  # a generous bound: the hanging chunk takes 120 s
    _, alive = psutil.wait_procs(workers, timeout=30)
    assert alive == []


def test_slow_rows_travel_one_per_task_fast_rows_in_whole_chunks(case: Any) -> None:
    explainer, frames = case
    expected = strip_seconds(run_in_process(explainer, frames))
    slow = SlowRowsExplainer(explainer.explainer, kinds=explainer.kinds)
    chunks = list(run_processes(slow, frames, 2, task_seconds=0.25))
    assert {len(c) for c in chunks} == {1} and strip_seconds(chunks) == expected
    chunks = list(run_processes(explainer, frames, 2, task_seconds=0.25))
    assert strip_seconds(chunks) == expected
    assert len(chunks[-1]) >= len(frames[-1])  # the time measured: whole chunks, or more
    cached = list(run_in_process(explainer, frames, per_row=True))
    assert [len(c) for c in cached] == [len(f) for f in frames]  # the cell cache answers
    uncached = BatchExplainer(explainer.explainer, kinds=explainer.kinds)
    uncached.cell_cache_size = 0
    per_row = list(run_in_process(uncached, frames, per_row=True))
    assert {len(c) for c in per_row} == {1} and strip_seconds(per_row) == strip_seconds(
        cached
    ) == expected


def test_tasks_are_cut_from_the_chunks_as_the_sizer_says(case: Any) -> None:
    _, frames = case
    sizer = TaskSizer(1.0)
    tasks = split_tasks(frames[:2], sizer)
    assert len(next(tasks)) == 1  # nothing measured yet
    sizer.observe(1, 0.25)  # 4 rows per second
    assert [len(t) for t in tasks] == [4, 2, 4, 3]  # never across two chunks
    assert list(split_tasks(frames, None)) == frames


def test_task_sizes_follow_the_recent_tasks() -> None:
    """The first rows fill the cell cache and are slow; the rows after them are fast: the
    tasks grow with them (a whole-run average would keep them at about 1,900 rows)."""
    sizer = TaskSizer(0.25)
    for _ in range(4):
        sizer.observe(100, 1.0)
    assert sizer.rows() == 25
    for _ in range(TaskSizer.RECENT):
        sizer.observe(1000, 0.01)
    assert sizer.rows() == 25_000


def test_local_processes_give_the_in_process_records_in_row_order(case: Any) -> None:
    explainer, frames = case
    assert len(frames) > 4
    expected = strip_seconds(run_in_process(explainer, frames))
    assert [r["row"] for r in expected] == list(range(len(expected)))
    assert strip_seconds(run_processes(explainer, frames, 2)) == expected


def test_a_dead_worker_loses_only_its_chunk(case: Any) -> None:
    explainer, frames = case
    killer = KillingExplainer(explainer.explainer, kinds=explainer.kinds)
    expected = strip_seconds(run_in_process(explainer, frames))
    got = strip_seconds(run_processes(killer, frames, 2))
    assert [r["row"] for r in got] == [r["row"] for r in expected]
    lost = [r["row"] for r in got if "error" in r]
    assert lost == [13]  # the chunk of rows 7..13 retried row by row: row 13 kills its worker
    assert all("kills the process" in r["error"] for r in got if "error" in r)
    assert [r for r in got if "error" not in r] == [r for r in expected if r["row"] not in lost]


def test_workers_must_be_positive(case: Any) -> None:
    with pytest.raises(InvalidParameterError, match="positive"):
        list(run_processes(case[0], case[1], 0))


def test_dask_local_cluster_gives_the_same_records_as_they_arrive(
    case: Any, tmp_path: Path
) -> None:
    explainer, frames = case
    expected = strip_seconds(run_in_process(explainer, frames))
    bad = frames[1].copy()
    column = bad.columns[0]
    bad[column] = bad[column].astype(object)
    bad.at[bad.index[0], column] = np.array([1, 2])  # conversion raises a ValueError
    client, cluster = dask_client("local:2")
    try:
        got = strip_seconds(run_dask(explainer, frames, client, in_flight=3))
        sized = strip_seconds(run_dask(explainer, frames, client, task_seconds=0.25))
        failed = strip_seconds(run_dask(explainer, [frames[0], bad], client))
        # each task's text in a file of the folder, not through the cluster
        in_files = list(run_dask(explainer, [frames[0], bad], client, encode=True, folder=tmp_path))
    finally:
        client.close()
        cluster.close()
    assert sorted(got, key=lambda r: r["row"]) == expected
    assert sorted(sized, key=lambda r: r["row"]) == expected
    assert all(c.text == "" and Path(c.path).parent == tmp_path for c in in_files)
    assert list(tmp_path.glob("*.rows")) == []  # the rows' files removed as tasks came back
    lines = [json.loads(x) for c in in_files for x in Path(c.path).read_text().splitlines()]
    assert sorted(strip_seconds([lines]), key=lambda r: r["row"]) == sorted(
        failed, key=lambda r: r["row"]
    )
    errors = [r for r in failed if "error" in r]
    assert [r["row"] for r in errors] == [bad.index[0]]  # that row alone, its own error
    assert errors[0]["error"].startswith("TypeError: ")
    good = sorted((r for r in failed if "error" not in r), key=lambda r: r["row"])
    assert good == expected[:7] + expected[8:14]


def test_dask_addresses(monkeypatch: pytest.MonkeyPatch) -> None:
    for bad in ("local:0", "local:x", "localhost:8786"):
        with pytest.raises(InvalidParameterError, match="expected"):
            dask_client(bad)
    monkeypatch.setitem(__import__("sys").modules, "distributed", None)
    with pytest.raises(
        MissingExtraError, match=r"pip install -e '\.\[scale\]' from a clone of xpg"
    ):
        dask_client("local:2")


def test_encoded_chunks_are_the_records_as_json_lines(case: Any) -> None:
    explainer, frames = case
    records = [r for chunk in run_in_process(explainer, frames) for r in chunk]
    for route in (
        lambda: run_in_process(explainer, frames, encode=True),
        lambda: run_processes(explainer, frames, 2, encode=True),
    ):
        chunks = list(route())
        lines = [json.loads(line) for c in chunks for line in c.text.splitlines()]
        assert strip_seconds([lines]) == strip_seconds([records])
        assert sum(c.rows for c in chunks) == len(records)
        assert sum(c.errors for c in chunks) == 0
