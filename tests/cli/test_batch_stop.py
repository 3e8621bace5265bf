"""``xpg explain --data`` and ``xpg.explain_many`` runs that stop: each row's default budget
(``--limit``/``--timeout``, and the line saying how many rows reached it), the model's
fingerprint that ``--resume`` checks, and Ctrl-C (SIGINT) or SIGTERM on a running command,
in a subprocess: it stops within moments, its workers are gone, the output keeps every row
written before, in whole lines, and ``--resume`` completes it into the file an uninterrupted
run writes.

The model is a tree computing the majority of 9 boolean features: the row of all ones has 252
explanations (126 AXps, 126 CXps), more than the default budget of 100."""

from __future__ import annotations

import itertools
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import xpg
from xpg.cli.batch import model_fingerprint
from xpg.cli.main import main
from xpg.core.features import Feature
from xpg.errors import InvalidParameterError

N = 9
NAMES = [f"x{i}" for i in range(N)]
REPO = Path(__file__).resolve().parents[2]
ROWS = 250  # fewer than a chunk (256 rows): the old command wrote nothing before the end


def _majority_tree() -> Any:
    from sklearn.tree import DecisionTreeClassifier

    X = np.array(list(itertools.product([0, 1], repeat=N)))
    clf = DecisionTreeClassifier(random_state=0).fit(X, (X.sum(axis=1) > N // 2).astype(int))
    return xpg.tree_from_sklearn(clf, [Feature.boolean(n) for n in NAMES])


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("stop")
    model = tmp / "majority.json"
    xpg.save_model(_majority_tree(), model)
    few = tmp / "few.csv"  # all ones (252 explanations), all zeros (252), a row with 6
    pd.DataFrame([[1] * N, [0] * N, [1] * 5 + [0] * 4], columns=NAMES).to_csv(few, index=False)
    many = tmp / "many.csv"
    rng = np.random.default_rng(0)
    pd.DataFrame(rng.integers(0, 2, size=(ROWS, N)), columns=NAMES).to_csv(many, index=False)
    return {"tmp": tmp, "model": model, "few": few, "many": many}


def _run(capsys: pytest.CaptureFixture[str], *argv: Any) -> tuple[int, str, str]:
    status = main(["explain", *map(str, argv)])
    out, err = capsys.readouterr()
    return status, out, err


def _records(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines()]


def _strip(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in r.items() if k != "seconds"} for r in records]


# -- the budget ------------------------------------------------------------------------------------
def test_the_default_budget_stops_a_row_and_a_line_says_so(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """Was: every explanation of every row, however many (no default budget)."""
    status, out, err = _run(capsys, files["model"], "--data", files["few"])
    records = _records(out)
    assert status == 0
    assert [len(r["axps"]) + len(r["cxps"]) for r in records] == [100, 100, 6]
    assert [r["complete"] for r in records] == [False, False, True]
    lines = err.splitlines()
    assert len(lines) == 2 and lines[1].startswith("xpg explain: 3 rows, 0 errors")
    assert lines[0].startswith(
        "xpg explain: 2 of 3 rows reached the per-row budget (100 explanations) "
    )
    assert "--limit N and --timeout S (0: no limit)" in lines[0]
    for unlimited in (["--limit", "0"], ["--limit", "none", "--timeout", "0"]):
        status, out, err = _run(capsys, files["model"], "--data", files["few"], *unlimited)
        records = _records(out)
        assert [len(r["axps"]) + len(r["cxps"]) for r in records] == [252, 252, 6]
        assert all(r["complete"] for r in records) and err.count("\n") == 1
    status, out, err = _run(capsys, files["model"], "--data", files["few"], "--limit", "7")
    assert [len(r["axps"]) + len(r["cxps"]) for r in _records(out)] == [7, 7, 6]
    assert "2 of 3 rows reached the per-row budget (7 explanations)" in err


@pytest.mark.parametrize(
    "option, value, message",
    [
        ("--limit", "-3", "expected a positive integer, or 0 or none for no limit, found '-3'"),
        ("--limit", "2.5", "expected a positive integer"),
        ("--timeout", "abc", "expected a positive number of seconds, 0 or none for no limit"),
        ("--timeout", "inf", "found 'inf'"),
    ],
)
def test_bad_budgets_exit_2_with_one_line(
    files: dict[str, Path],
    capsys: pytest.CaptureFixture[str],
    option: str,
    value: str,
    message: str,
) -> None:
    status, out, err = _run(capsys, files["model"], "--data", files["few"], option, value)
    assert status == 2 and out == "" and err.count("\n") == 1 and message in err


def test_explain_many_has_the_same_default_budget() -> None:
    tree = _majority_tree()
    rows = [[1] * N, [1] * 5 + [0] * 4]
    first, second = xpg.explain_many(tree, rows)
    assert len(first["axps"]) + len(first["cxps"]) == 100 and first["complete"] is False
    assert second["complete"] is True
    (whole,) = xpg.explain_many(tree, rows[:1], limit=None)
    assert (len(whole["axps"]), len(whole["cxps"]), whole["complete"]) == (126, 126, True)
    for bad in ({"limit": 0}, {"timeout": -1.0}, {"timeout": "soon"}):
        with pytest.raises(InvalidParameterError):  # once, up front: not an error per row
            list(xpg.explain_many(tree, rows, **bad))


def test_the_ensemble_route_has_a_default_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    """A compiled graph's rows have no default time limit (a timer per row would cost more
    than the row); a tree ensemble or decision list too large to compile gets 10 s per row."""
    from xpg.cli import batch as cli_batch
    from xpg.explain import batch
    from xpg.explain.batch import BatchExplainer
    from xpg.explain.decision import Decision
    from xpg.explain.engine import Explainer
    from xpg.models.ensemble_import import ensemble_from_sklearn
    from xpg.testing.ensembles import random_small_ensemble

    assert (cli_batch.DEFAULT_LIMIT, cli_batch.DEFAULT_ORACLE_TIMEOUT) == (
        batch.DEFAULT_LIMIT,
        batch.DEFAULT_ORACLE_TIMEOUT,
    )
    est, feats, X = random_small_ensemble(3, "forest")
    model = ensemble_from_sklearn(est, feats)
    compiled, uncompiled = Explainer(model, many=True), Explainer(model, budget=1, many=True)
    graph, solver = BatchExplainer(compiled), BatchExplainer(uncompiled)
    assert (graph.route, graph.limit, graph.timeout) == ("graph", 100, None)
    assert (solver.route, solver.limit, solver.timeout) == ("sat-pb", 100, 10.0)
    assert BatchExplainer(uncompiled, timeout=None, limit=None).timeout is None
    assert BatchExplainer(compiled, timeout=2.5).timeout == 2.5
    budgets = []
    enumerate_all = Decision.enumerate

    def spy(self: Any, limit: Any = None, timeout: Any = None, **options: Any) -> Any:
        budgets.append((limit, timeout))
        return enumerate_all(self, limit=limit, timeout=timeout, **options)

    monkeypatch.setattr(Decision, "enumerate", spy)
    solver.explain_row(0, X[0].tolist())
    assert budgets == [(100, 10.0)]


# -- the model's fingerprint and --resume ----------------------------------------------------------
def test_resume_refuses_an_output_of_another_model(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Was: the other model's rows skipped, exit status 0."""
    from sklearn.tree import DecisionTreeClassifier

    X = np.array(list(itertools.product([0, 1], repeat=N)))
    clf = DecisionTreeClassifier(random_state=0).fit(X, X[:, 0] ^ X[:, 1])
    other = tmp_path / "other.json"
    xpg.save_model(xpg.tree_from_sklearn(clf, [Feature.boolean(n) for n in NAMES]), other)
    out = tmp_path / "out.jsonl"
    assert _run(capsys, other, "--data", files["many"], "-o", out, "--chunk-rows", "50")[0] == 0
    lines = out.read_text().splitlines(keepends=True)
    out.write_text("".join(lines[:120]) + lines[120][:30])  # interrupted, a torn last line
    before = out.read_bytes()
    status, stdout, err = _run(
        capsys, files["model"], "--data", files["many"], "-o", out, "--resume"
    )
    mine, theirs = model_fingerprint(str(files["model"])), model_fingerprint(str(other))
    assert mine != theirs
    assert status == 2 and stdout == "" and err.count("\n") == 1
    assert f"holds the records of another model ({theirs}), not of {files['model']} ({mine})" in err
    assert out.read_bytes() == before  # untouched, torn line included
    # the same model in another layout (whitespace, key order) is the same model
    relaid = tmp_path / "relaid.json"
    doc = json.loads(other.read_text())
    relaid.write_text(json.dumps(dict(reversed(list(doc.items())))))
    assert model_fingerprint(str(relaid)) == theirs
    status, _, err = _run(capsys, relaid, "--data", files["many"], "-o", out, "--resume")
    assert status == 0 and "120 rows already in" in err
    records = _records(out.read_text())
    assert [r["row"] for r in records] == list(range(ROWS))
    assert {r["model"] for r in records} == {theirs}


def test_a_fingerprint_is_of_the_canonical_json_at_any_depth(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Documents deeper than ``json.dumps`` goes are hashed by a loop, to the same digest."""
    import hashlib

    from xpg.cli import batch
    from xpg.io.json_text import dump_json

    doc: Any = {"z": 1.5, "a": ["é", None, True, {"y": [], "x": {}}]}
    path = tmp_path / "m.json"
    path.write_text(json.dumps(doc, indent=3))
    canonical = json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    expected = "sha256:" + hashlib.sha256(canonical.encode()).hexdigest()[:16]
    assert model_fingerprint(str(path)) == expected
    dumps = json.dumps

    def too_deep(obj: Any, **kwargs: Any) -> str:
        if kwargs.get("sort_keys"):
            raise RecursionError
        return dumps(obj, **kwargs)

    monkeypatch.setattr(batch.json, "dumps", too_deep)
    assert model_fingerprint(str(path)) == expected
    monkeypatch.undo()
    for _ in range(5000):
        doc = {"k": doc}
    path.write_text(dump_json(doc))
    assert model_fingerprint(str(path)).startswith("sha256:")


@pytest.mark.slow
def test_resume_accepts_an_output_written_before_fingerprints(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.jsonl"
    assert _run(capsys, files["model"], "--data", files["many"], "-o", out)[0] == 0
    whole = _records(out.read_text())
    out.write_text(
        "".join(json.dumps({k: v for k, v in r.items() if k != "model"}) + "\n" for r in whole[:40])
    )
    status, _, err = _run(capsys, files["model"], "--data", files["many"], "-o", out, "--resume")
    assert status == 0 and "40 rows already in" in err
    assert [r["row"] for r in _records(out.read_text())] == list(range(ROWS))


def test_an_interrupt_keeps_the_json_lines_done_and_writes_no_parquet(
    files: dict[str, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Ctrl-C while row 30 is explained, in this process (the signal itself is sent by the
    tests below): rows 0-29 are kept, and a Parquet output is not written at all."""
    from xpg.explain.batch import BatchExplainer

    record = BatchExplainer._record

    def interrupted(self: Any, row: int, *args: Any, **kwargs: Any) -> Any:
        if row == 30:
            raise KeyboardInterrupt
        return record(self, row, *args, **kwargs)

    monkeypatch.setattr(BatchExplainer, "_record", interrupted)
    out, parquet = tmp_path / "out.jsonl", tmp_path / "out.parquet"
    status, _, err = _run(capsys, files["model"], "--data", files["many"], "-o", out)
    last = err.splitlines()[-1]  # after the line on the rows that reached their budget
    assert status == 130 and last.startswith("xpg explain: 30 rows, 0 errors")
    assert err.rstrip().endswith(
        f"interrupted by SIGINT: the rows done are in {out}, --resume continues"
    )
    assert [r["row"] for r in _records(out.read_text())] == list(range(30))
    status, _, err = _run(capsys, files["model"], "--data", files["many"], "-o", parquet)
    assert status == 130 and not parquet.exists()
    assert f"nothing written to {parquet} (a Parquet output is written whole at the end" in err
    assert [p.name for p in tmp_path.iterdir()] == ["out.jsonl"]  # no temporary file left


# -- stopping a running command --------------------------------------------------------------------
# The command in a fresh interpreter whose explainer spends 20 ms more on each row, inside the
# time its record reports (so that the parallel routes' tasks shrink to about a dozen rows, as
# for a slow model); the class lives in a module on PYTHONPATH, so that the workers, forked or
# spawned (Dask), explain with it too.  SIGINT gets Python's handler even if this process
# ignores it (a background job).
SLOW_ROWS = """
import time

from xpg.explain.batch import BatchExplainer


class SlowExplainer(BatchExplainer):
    def _record(self, *args, **kwargs):
        start = time.perf_counter()
        time.sleep(0.02)
        record = super()._record(*args, **kwargs)
        if "seconds" in record:
            record["seconds"] = time.perf_counter() - start
        return record
"""
LAUNCHER = """
import signal, sys
signal.signal(signal.SIGINT, signal.default_int_handler)
import slow_rows, xpg.explain.batch
xpg.explain.batch.BatchExplainer = slow_rows.SlowExplainer
from xpg.cli.main import main
sys.exit(main(sys.argv[1:]))
"""


def _wait_for_lines(path: Path, proc: subprocess.Popen[str], lines: int) -> int:
    """Wait until ``path`` holds ``lines`` whole lines (an event, polled), or fail."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if path.exists() and path.read_bytes().count(b"\n") >= lines:
            return path.read_bytes().count(b"\n")
        if proc.poll() is not None:
            pytest.fail(f"the command ended first: {proc.communicate()[1]}")
        time.sleep(0.02)
    proc.kill()
    pytest.fail(f"{path} never held {lines} lines")


@pytest.mark.parametrize(
    "route, signum, to_group",
    [
        (["--workers", "1"], signal.SIGINT, True),  # Ctrl-C in a terminal: the whole group
        (["--workers", "2"], signal.SIGINT, True),
        (["--workers", "2"], signal.SIGINT, False),  # kill -INT PID: the workers get nothing
        (["--workers", "2"], signal.SIGTERM, False),
        (["--scheduler", "local:2"], signal.SIGINT, True),
    ],
    ids=["in-process", "workers-ctrl-c", "workers-kill-int", "workers-sigterm", "dask-ctrl-c"],
)
@pytest.mark.slow
def test_a_signal_stops_the_run_and_resume_completes_it(
    files: dict[str, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    route: list[str],
    signum: int,
    to_group: bool,
) -> None:
    """Was: nothing written until a 256-row chunk was done, workers awaited (tens of seconds,
    or for ever when they did not get the signal)."""
    import psutil

    whole = tmp_path / "whole.jsonl"
    assert _run(capsys, files["model"], "--data", files["many"], "-o", whole)[0] == 0
    (tmp_path / "slow_rows.py").write_text(SLOW_ROWS)
    out = tmp_path / "out.jsonl"
    argv = [sys.executable, "-c", LAUNCHER, "explain", str(files["model"])]
    argv += ["--data", str(files["many"]), "-o", str(out), *route]
    path = os.pathsep.join([str(tmp_path), str(REPO), *sys.path])
    proc = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": path}, start_new_session=True,
    )  # fmt: skip
    try:
        seen = _wait_for_lines(out, proc, 20)
        before = out.read_bytes()[: out.read_bytes().rfind(b"\n") + 1]
        children = psutil.Process(proc.pid).children(recursive=True)
        assert len(children) >= (0 if route[1] == "1" else 2)
        if to_group:
            os.killpg(proc.pid, signum)
        else:
            proc.send_signal(signum)
        _, err = proc.communicate(timeout=30)  # a generous bound: it takes about a second
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    name = "SIGINT" if signum == signal.SIGINT else "SIGTERM"
    assert proc.returncode == (130 if signum == signal.SIGINT else 143), err
    assert f"interrupted by {name}: the rows done are in {out}, --resume continues" in err
    assert "Traceback" not in err
    _, alive = psutil.wait_procs(children, timeout=30)
    assert alive == []  # the workers were stopped, not left running
    data = out.read_bytes()
    assert data.startswith(before) and data.endswith(b"\n")  # whole lines, none lost
    rows = [r["row"] for r in _records(data.decode())]
    assert len(rows) >= seen and len(rows) < ROWS and len(set(rows)) == len(rows)
    if route[0] == "--workers":
        assert rows == list(range(len(rows)))  # in row order: the file is a prefix of the whole
    status, _, err = _run(capsys, files["model"], "--data", files["many"], "-o", out, "--resume")
    assert status == 0 and f"{len(rows)} rows already in" in err
    got, expected = _strip(_records(out.read_text())), _strip(_records(whole.read_text()))
    if route[0] == "--workers":
        assert got == expected  # the very file of an uninterrupted run
    else:  # Dask writes rows as they complete
        assert sorted(got, key=lambda r: r["row"]) == expected
