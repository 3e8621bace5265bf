"""The default run is offline and says what it leaves out; a missing shared folder stops it.

These run pytest itself in a subprocess on this checkout (``tests/conftest.py`` is what is
tested), with ``XPG_SHARED_DIR`` pointing the shared folder elsewhere where needed.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import REPO_ROOT, SHARED, SHARED_ENV, SHARED_MISSING_STATUS

PEERS_FILE = "tests/bench/test_peers_quick.py"


def run_pytest(*args: str, shared: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m pytest ARGS`` in the repository root (this checkout's xpg first)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "XPG_"))}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO_ROOT), *filter(None, [env.get("PYTHONPATH")])])
    env[SHARED_ENV] = str(shared if shared is not None else SHARED)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_a_missing_shared_folder_stops_the_run_in_one_line(
    tmp_path: Path, workers: list[str]
) -> None:
    nowhere = tmp_path / "nowhere"
    proc = run_pytest(*workers, shared=nowhere)
    assert proc.returncode == SHARED_MISSING_STATUS != 0
    assert proc.stdout == ""
    assert lines(proc.stderr) == [
        f"ERROR: no shared folder at {nowhere} (../shared beside the repository, or "
        f"${SHARED_ENV}): the tests read datasets/ and xpg-examples/ there"
    ]


def test_a_shared_folder_without_the_examples_stops_the_run(tmp_path: Path) -> None:
    (tmp_path / "datasets").mkdir()
    proc = run_pytest("tests/test_offline.py", shared=tmp_path)
    assert proc.returncode == SHARED_MISSING_STATUS
    assert lines(proc.stderr) == [
        f"ERROR: the shared folder {tmp_path} (../shared beside the repository, or "
        f"${SHARED_ENV}) has no xpg-examples/"
    ]


@pytest.mark.slow
def test_the_default_run_leaves_out_the_peer_comparisons_and_says_so() -> None:
    default = run_pytest("--collect-only", "-q", PEERS_FILE)
    assert default.returncode == 0, default.stdout + default.stderr
    assert f"{PEERS_FILE}::test_peers_quick[ours]" in default.stdout
    assert "[peers]" not in default.stdout
    *_, summary, stats = lines(default.stdout)
    assert summary == (
        "not run: 1 peer comparison (they build environments from PyPI; "
        "run them with: pytest -m peers)"
    )
    assert stats.startswith("3/4 tests collected (1 deselected)")
    asked = run_pytest("--collect-only", "-q", "-m", "peers", PEERS_FILE)
    assert asked.returncode == 0, asked.stdout + asked.stderr
    assert lines(asked.stdout)[0] == f"{PEERS_FILE}::test_peers_quick[peers]"
    assert "not run:" not in asked.stdout


def test_pip_cannot_reach_an_index_outside_peer_tests(tmp_path: Path) -> None:
    """The conftest guard: a download attempted by any default test fails at once."""
    assert os.environ["PIP_NO_INDEX"] == "1"
    start = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "-d", str(tmp_path), "numpy"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode != 0 and not any(tmp_path.iterdir())
    assert "No matching distribution found for numpy" in proc.stderr
    assert time.monotonic() - start < 60
