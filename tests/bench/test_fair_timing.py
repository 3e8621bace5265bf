"""The fair timing protocol of the peer comparisons, fed fake timings (no clock involved).

:mod:`bench.runners.timing` (turn order, best of rounds, per-instance ratios, min/median over
runs), the runner request loop and its client (:mod:`bench.runners.serve`,
:class:`bench.peers.RunnerSession`, with a runner in this interpreter), and how
``bench.pyxai_compare`` and ``bench.peers_compare`` aggregate what they measure. Nothing here
asserts anything about speed.
"""

from __future__ import annotations

import csv
import doctest
import itertools
import math
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO_ROOT, shared_path

from xpg import enumerate_explanations, read_xpg

sys.path.insert(0, str(REPO_ROOT))  # bench/ is a folder of the checkout, not a package
from bench import peers_compare, pyxai_compare  # noqa: E402
from bench.peers import Peer, PeerError, RunnerSession  # noqa: E402
from bench.runners import serve, timing  # noqa: E402


def scripted(log: list[str], name: str, times: list[float]) -> Any:
    """A side that logs its turn and returns the next scripted measurement."""
    it = iter(times)

    def side() -> float:
        log.append(name)
        return next(it)

    return side


@pytest.mark.parametrize("module", [timing, serve, peers_compare])
def test_doctests(module: Any) -> None:
    assert doctest.testmod(module).failed == 0


@pytest.mark.parametrize("n_sides,rounds", [(2, 2), (2, 4), (3, 3), (3, 6), (4, 8)])
def test_rotation_lets_every_side_go_first_equally_often(n_sides: int, rounds: int) -> None:
    for start in range(n_sides):
        orders = [timing.rotation(n_sides, r, start) for r in range(rounds)]
        assert all(sorted(o) == list(range(n_sides)) for o in orders)
        firsts = [o[0] for o in orders]
        assert {firsts.count(i) for i in range(n_sides)} == {rounds // n_sides}


def test_interleave_alternates_and_keeps_each_sides_best() -> None:
    log: list[str] = []
    ours = scripted(log, "ours", [3.0, 1.0, 2.0])
    theirs = scripted(log, "theirs", [5.0, 6.0, 4.0])
    assert timing.interleave([ours, theirs], rounds=3, start=1) == [1.0, 4.0]
    assert log == ["theirs", "ours", "ours", "theirs", "theirs", "ours"]
    # never two measurements of one side in a row within a round, and both measured every round
    assert all(sorted(log[i : i + 2]) == ["ours", "theirs"] for i in range(0, 6, 2))


def test_interleave_ignores_timed_out_measurements_unless_all_are() -> None:
    log: list[str] = []
    sides = [
        scripted(log, "a", [math.inf, 2.0]),
        scripted(log, "b", [math.inf, math.inf]),
    ]
    assert timing.interleave(sides, rounds=2) == [2.0, math.inf]


def test_instances_alternate_who_goes_first() -> None:
    """``start`` is the instance's index: over two instances each side opens a round as
    often as the other."""
    firsts = []
    for index in range(4):
        log: list[str] = []
        sides = [scripted(log, "ours", [1.0] * 3), scripted(log, "theirs", [1.0] * 3)]
        timing.interleave(sides, rounds=3, start=index)
        firsts += log[0::2]
    assert firsts.count("ours") == firsts.count("theirs") == 6


def test_median_ratio_compares_each_instance_with_itself() -> None:
    ours = [1.0, 2.0, 9.0, 4.0]
    theirs = [2.0, 1.0, 10.0, 8.0]
    assert timing.median_ratio(ours, theirs) == statistics.median([0.5, 2.0, 0.9, 0.5])
    # not the ratio of the medians (3.0 / 5.0)
    assert timing.median_ratio(ours, theirs) != pytest.approx(3.0 / 5.0)
    with pytest.raises(ValueError, match="as many timings"):
        timing.median_ratio([1.0], [1.0, 2.0])
    with pytest.raises(ValueError):
        timing.median_ratio([], [])


def test_over_runs_reports_the_least_favourable_and_the_middle_run() -> None:
    assert timing.over_runs([1.4, 0.9, 1.2]) == {"min": 0.9, "median": 1.2, "runs": 3}
    assert timing.over_runs([2.0]) == {"min": 2.0, "median": 2.0, "runs": 1}
    with pytest.raises(ValueError):
        timing.over_runs([])


def test_loops_for_targets_the_budget() -> None:
    assert timing.loops_for(0.001, budget=0.005) == 5
    assert timing.loops_for(0.5, budget=0.005) == 1
    assert timing.loops_for(1e-12) == 10_000 and timing.loops_for(0.0) == 1000


# --- the runner loop and its client -------------------------------------------------------


def test_serve_answers_errors_and_stops_at_quit() -> None:
    import io

    out = io.StringIO()
    handlers = {"echo": lambda req: {"got": req["x"]}, "boom": lambda req: 1 / 0}
    lines = ['{"op": "echo", "x": 1}', "", '{"op": "boom"}', '{"op": "quit"}', '{"op": "echo"}']
    serve.serve(handlers, lines, out)
    answers = out.getvalue().splitlines()
    assert answers == [
        '{"got": 1, "ok": true}',
        '{"ok": false, "error": "ZeroDivisionError: division by zero"}',
    ]


@dataclass(frozen=True)
class LocalPeer(Peer):
    """A peer whose runner runs in this interpreter (no virtual environment)."""

    @property
    def python(self) -> Path:
        return Path(sys.executable)


FAKE_RUNNER = """
import sys, time
sys.path.insert(0, {runners!r})
from serve import serve, take_stdout
channel = take_stdout()
print("noise a peer prints on standard output")
STATE = {{}}
def put(req):
    STATE["x"] = req["x"]
    return {{}}
def get(req):
    return {{"x": STATE["x"]}}
def slow(req):
    time.sleep(3600)  # only the wait stops it
    return {{}}
serve({{"put": put, "get": get, "slow": slow}}, channel=channel)
"""


def fake_peer(tmp_path: Path) -> LocalPeer:
    runner = tmp_path / "fake_runner.py"
    runner.write_text(FAKE_RUNNER.format(runners=str(REPO_ROOT / "bench" / "runners")))
    return LocalPeer("fake", (), "", runner)


def test_session_keeps_state_between_requests_despite_prints(tmp_path: Path) -> None:
    with RunnerSession(fake_peer(tmp_path)) as session:
        assert session.request("put", wait=30, x=[1, 2]) == {}
        assert session.request("get", wait=30) == {"x": [1, 2]}
        with pytest.raises(PeerError, match="failed on 'nope': unknown op 'nope'"):
            session.request("nope", wait=30)
        assert session.request("get", wait=30) == {"x": [1, 2]}  # still serving


def test_session_stops_a_runner_that_takes_too_long(tmp_path: Path) -> None:
    session = RunnerSession(fake_peer(tmp_path))
    with pytest.raises(PeerError, match="took more than 0.5 s on 'slow'"):
        session.request("slow", wait=0.5)
    assert session._proc.poll() is not None
    session.close()  # closing twice is harmless


# --- how the comparisons aggregate --------------------------------------------------------


class FakePyxai:
    """PyXAI's side, answering with xpg's own exact sets (plus one duplicate AXp reason) and
    scripted times, logging the turns."""

    def __init__(self, log: list[str], seconds: dict[str, float]) -> None:
        self.log, self.seconds, self.dg = log, seconds, None

    def load(self, model: Path, feature_names: list[str]) -> None:
        self.log.append("load")

    def prepare(self, x: list[float]) -> dict[str, Any]:
        from xpg.core.xpgraph import ExplanationGraph

        if self.dg is None:
            return {"setup_s": 0.0, "axps": [], "cxps": []}
        result = enumerate_explanations(ExplanationGraph.from_decision_graph(self.dg, x))
        axps = [sorted(a) for a in result.axps]
        return {
            "setup_s": 0.0,
            "axps": axps + axps[:1],
            "cxps": [sorted(c) for c in result.cxps],
        }

    def measure(self, task: str) -> float:
        self.log.append(f"theirs:{task}")
        return self.seconds[task]


def test_time_instance_takes_turns_on_every_task() -> None:
    log: list[str] = []
    peer = FakePyxai(log, {"one": 1.0, "axps": 2.0, "cxps": 3.0})
    calls = {task: (lambda: None) for task in pyxai_compare.TASKS}
    timed = pyxai_compare.time_instance(calls, peer, [0.0], index=0, rounds=3)
    assert timed.theirs == {"one": 1.0, "all": 2.0, "cxps": 3.0}
    assert set(timed.ours) == {"one", "all", "cxps"} and all(s >= 0 for s in timed.ours.values())
    assert log == ["theirs:one"] * 3 + ["theirs:axps"] * 3 + ["theirs:cxps"] * 3


def test_pyxai_timing_summary_is_min_and_median_over_runs() -> None:
    def run(factors: list[float]) -> list[pyxai_compare.Timed]:
        """Instances where PyXAI takes ``f`` times xpg's 1 ms on every task."""
        ours = dict.fromkeys(pyxai_compare.TASKS, 0.001)
        return [pyxai_compare.Timed(ours, {t: 0.001 * f for t in ours}, {}, {}) for f in factors]

    runs = [run([2.0, 3.0, 0.5]), run([1.0, 0.8, 0.9]), run([4.0, 4.0, 1.0])]
    s = pyxai_compare.timing_summary(runs)
    assert s["runs"] == 3
    # per-run medians of the per-instance speed-ups: 2.0, 0.9, 4.0
    for stem in ("one_axp", "all_axps", "all_cxps"):
        assert s[f"{stem}_speedup_min"] == 0.9 and s[f"{stem}_speedup_median"] == 2.0
    assert s["ours_one_axp_ms"] == 1.0 and s["pyxai_all_cxps_ms"] == 2.0


def test_pyxai_compare_offline_with_a_fake_peer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The whole bench with PyXAI replaced: turns logged, exactness counted, speed-ups
    aggregated over runs, the CSVs written."""
    from contextlib import nullcontext

    log: list[str] = []
    peer = FakePyxai(log, {"one": 1.0, "axps": 1.0, "cxps": 1.0})
    real_prepare = pyxai_compare.prepare_dataset

    def prepare(name: str, args: Any, folder: Path) -> Any:
        p = real_prepare(name, args, folder)
        peer.dg = p.dg
        return p

    monkeypatch.setattr(pyxai_compare, "prepare_dataset", prepare)
    monkeypatch.setattr(pyxai_compare, "open_peer", lambda: (peer, nullcontext()))
    argv = ["--no-progress", "--datasets", "iris", "--max-instances", "3", "--runs", "2"]
    argv += ["--verify", "4", "--data-dir", str(shared_path("datasets")), "--out", str(tmp_path)]
    assert pyxai_compare.main(argv) == 0
    assert log.count("load") == 2 and log.count("theirs:one") == 2 * 3 * 3
    with (tmp_path / "pyxai.csv").open(newline="", encoding="utf-8") as fh:
        (row,) = list(csv.DictReader(fh))
    assert row["runs"] == "2" and row["instances"] == "3"
    assert float(row["one_axp_speedup_min"]) <= float(row["one_axp_speedup_median"])
    assert float(row["one_axp_speedup_min"]) > 0
    assert row["axp_duplicates"] == "3" and row["axp_exact"] == row["xpg_axps"]
    assert row["axp_missed"] == row["axp_invalid"] == row["cxp_nonminimal"] == "0"
    assert row["verified"] == row["verified_ok"] == "4"
    with (tmp_path / "pyxai_instances.csv").open(newline="", encoding="utf-8") as fh:
        inst = list(csv.DictReader(fh))
    assert [r["run"] for r in inst] == ["0"] * 3 + ["1"] * 3
    assert [r["row"] for r in inst[:3]] == [r["row"] for r in inst[3:]]
    assert len(inst) == 6 and all(float(r["one_axp_speedup"]) > 0 for r in inst)
    assert "speed-up min, med" in (tmp_path / "pyxai.md").read_text(encoding="utf-8")


def test_peers_measure_graph_interleaves_with_each_reference_mode() -> None:
    path = shared_path("xpg-examples", "corral", "corral_0.xpg")
    result = enumerate_explanations(read_xpg(path))
    sets = {"axps": [list(a) for a in result.axps], "cxps": [list(c) for c in result.cxps]}
    log: list[str] = []

    class Ref(peers_compare.RecordedReference):
        def measure(self, path: Path, mode: str) -> float:
            log.append(mode)
            return super().measure(path, mode)

    recorded = {
        str(path): {
            "traverse": {"status": "ok", "seconds": 0.5, **sets},
            "horn": {"status": "timeout", "seconds": 60.0},
        }
    }
    ours, ref = peers_compare.measure_graph(path, Ref(recorded), rounds=3, index=0)
    assert log == ["traverse"] * 3  # the timed-out mode is not measured again
    assert ref is not None and ref["horn"]["status"] == "timeout"
    row = peers_compare.compare_graph(path, ours, ref)
    assert row["identical"] is True and row["ref_status"] == "ok"
    assert row["ratio"] == round(0.5 / ours[0], 2)


def test_peers_summary_reports_min_and_median_over_runs() -> None:
    def row(ratio: float, ours: float = 0.001) -> dict[str, Any]:
        return {
            "ours_s": ours,
            "ref_traverse_s": ours * ratio,
            "ref_horn_s": "timeout",
            "ref_status": "ok",
            "ratio": ratio,
            "identical": True,
        }

    runs = [[row(8.0), row(10.0)], [row(4.0), row(6.0)], [row(12.0), row(14.0, 0.0005)]]
    merged = [peers_compare.merge_runs(list(g)) for g in zip(*runs)]
    assert [m["ratio"] for m in merged] == [8.0, 10.0]
    assert merged[1]["ours_s"] == 0.0005 and merged[1]["ref_horn_s"] == "timeout"
    per_run = [peers_compare.run_median(r) for r in runs]
    assert per_run == [9.0, 5.0, 13.0]
    s = peers_compare.summarise("2", "toy", merged, per_run)
    assert (s["median_ratio_min"], s["median_ratio_median"], s["median_ratio"]) == (5.0, 9.0, 9.0)
    assert s["runs"] == 3 and s["mismatches"] == 0
    assert peers_compare.spread(s) == "5.0, 9.0"


def test_peers_merge_runs_keeps_any_mismatch_and_timeout() -> None:
    base = {"ours_s": 1.0, "ref_traverse_s": 2.0, "ref_horn_s": 3.0, "ratio": 2.0}
    runs = [
        {**base, "ref_status": "ok", "identical": True},
        {**base, "ref_status": "timeout", "identical": "", "ratio": 60.0},
        {**base, "ref_status": "ok", "identical": False},
    ]
    for order in itertools.permutations(runs):
        merged = peers_compare.merge_runs(list(order))
        assert merged["identical"] is False and merged["ref_status"] == "timeout"
    assert peers_compare.merge_runs([runs[1], runs[0]])["identical"] is True
