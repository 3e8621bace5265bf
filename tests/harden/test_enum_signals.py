"""Ctrl-C or SIGTERM during ``xpg enum``: the partial result is printed, exit 130 / 143."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from xpg.core.features import Feature, Literal
from xpg.core.graph import DecisionGraph
from xpg.core.xpgraph import ExplanationGraph
from xpg.io import write_xpg
from xpg.testing import Oracle

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def many_axps_graph(k: int) -> DecisionGraph:
    """``OR_i (a_i AND b_i)`` as a chain of ``2k`` boolean tests: at the all-zero instance
    (class 0) every choice of one of ``a_i, b_i`` per term is an AXp, ``2**k`` of them."""
    names = [f"{x}{i}" for i in range(k) for x in "ab"]
    dg = DecisionGraph([Feature.boolean(n) for n in names], classes=[0, 1], root="a0")
    dg.add_terminal("yes", 1)
    dg.add_terminal("no", 0)
    for n in names:
        dg.add_node(n, n)
    for i in range(k):
        nxt = f"a{i + 1}" if i + 1 < k else "no"
        dg.add_edge(f"a{i}", nxt, Literal.isin(f"a{i}", [0]))
        dg.add_edge(f"a{i}", f"b{i}", Literal.isin(f"a{i}", [1]))
        dg.add_edge(f"b{i}", nxt, Literal.isin(f"b{i}", [0]))
        dg.add_edge(f"b{i}", "yes", Literal.isin(f"b{i}", [1]))
    dg.validate()
    return dg


def _start(path: Path, json_output: bool) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, "-m", "xpg", "enum", str(path)] + (["--json"] if json_output else [])
    return subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        # a test run started in the background (nohup, `cmd &` without job control) ignores
        # SIGINT, and so would the child: Python turns SIGINT into KeyboardInterrupt only when
        # it starts with the default action
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def _xpg(tmp_path: Path, k: int = 40) -> tuple[Path, ExplanationGraph]:
    dg = many_axps_graph(k)
    xg = ExplanationGraph.from_decision_graph(dg, [0] * (2 * k))
    path = tmp_path / "many.xpg"
    write_xpg(xg, path)
    return path, xg


def _catches_sigterm(pid: int) -> bool:
    """Whether the process has a SIGTERM handler (Linux: the ``SigCgt`` mask of its status)."""
    status = Path(f"/proc/{pid}/status").read_text()
    (mask,) = [line.split()[1] for line in status.splitlines() if line.startswith("SigCgt:")]
    return bool(int(mask, 16) >> (signal.SIGTERM - 1) & 1)


def _cpu_seconds(pid: int) -> float:
    """User and system CPU time of the process (Linux: fields 14 and 15 of its stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _wait_until_enumerating(proc: subprocess.Popen[str], cpu: float = 0.5) -> None:
    """Wait until ``xpg enum --json`` (which prints nothing before the end) has enumerated for
    ``cpu`` seconds of its own CPU time: it sets its SIGTERM handler just before it starts.
    Both are events of the process, not guessed delays, so the machine's load does not matter."""
    deadline = time.monotonic() + 300

    def wait(ready: Callable[[], bool]) -> None:
        while not ready():
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "xpg enum did not get under way"
            time.sleep(0.01)

    wait(lambda: _catches_sigterm(proc.pid))
    start = _cpu_seconds(proc.pid)
    wait(lambda: _cpu_seconds(proc.pid) >= start + cpu)


def test_the_graph_has_the_explanations_it_claims() -> None:
    dg = many_axps_graph(3)
    xg = ExplanationGraph.from_decision_graph(dg, [0] * 6)
    oracle = Oracle.of_xpg(xg)
    assert len(oracle.axps) == 8 and len(oracle.cxps) == 3
    assert all(len(c) == 2 for c in oracle.cxps)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize(("sig", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_signal_after_the_first_lines_prints_what_was_found(
    tmp_path: Path, sig: int, status: int
) -> None:
    path, _ = _xpg(tmp_path)
    proc = _start(path, json_output=False)
    assert proc.stdout is not None
    lines = [proc.stdout.readline() for _ in range(5)]  # the enumeration is under way
    assert all(line.startswith(("AXP", "CXP")) for line in lines), lines
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == status, err
    summary = out.strip().splitlines()[-1]
    assert "INCOMPLETE (interrupted" in summary and "Traceback" not in err


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="Linux's /proc")
@pytest.mark.parametrize(("sig", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_json_partial_result(tmp_path: Path, sig: int, status: int) -> None:
    path, xg = _xpg(tmp_path)
    proc = _start(path, json_output=True)
    _wait_until_enumerating(proc)
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == status, err
    doc = json.loads(out)
    assert doc["complete"] is False and set(doc) == {"axps", "cxps", "complete", "seconds"}
    # whatever was found is right: each AXp takes one of a_i, b_i per term, each CXp is {a_i, b_i}
    for axp in doc["axps"]:
        assert sorted(int(n[1:]) for n in axp) == list(range(40))
    for cxp in doc["cxps"]:
        assert len(cxp) == 2 and cxp[0][1:] == cxp[1][1:]
    assert doc["axps"] or doc["cxps"]
