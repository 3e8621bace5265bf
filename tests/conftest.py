"""Session rules and shared fixtures.

- The shared folder (``../shared`` beside the repository, or ``$XPG_SHARED_DIR``) holds the
  datasets and the papers' example graphs; when it is missing the run stops at once with one
  line saying where it was expected (exit status :data:`SHARED_MISSING_STATUS`, pytest's
  usage error).
- Tests marked ``peers`` build peer libraries' environments from PyPI; the default run
  deselects them (``addopts`` in ``pyproject.toml``) and its last lines say how many were left
  out.  Every other test runs with pip pointed at no index, so none can download by accident.
  A ``-m`` expression that does not name ``peers`` leaves them out too.
- Tests marked ``slow`` run by default; the quick run ``pytest -m 'not slow'`` leaves them out.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest

# one OpenMP thread per test process (XGBoost, LightGBM, HistGradientBoosting): pytest -n 2 on
# 2 cores runs two processes, and each library's default of a thread per core oversubscribes
os.environ.setdefault("OMP_NUM_THREADS", "1")

REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED_ENV = "XPG_SHARED_DIR"
SHARED = Path(os.environ.get(SHARED_ENV) or REPO_ROOT.parent / "shared").resolve()
SHARED_FOLDERS = ("datasets", "xpg-examples")
#: exit status of a run stopped because the shared folder is missing
SHARED_MISSING_STATUS = int(pytest.ExitCode.USAGE_ERROR)
PEERS_MARK = "peers"
SLOW_MARK = "slow"
_PEERS_LEFT_OUT = pytest.StashKey[int]()
_WORKER_KEY = "xpg_peers_left_out"


def shared_path(*parts: str) -> Path:
    """A path inside the shared folder; fails the test with a clear message when it is missing."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        needed = " and ".join(name + "/" for name in SHARED_FOLDERS)
        pytest.fail(
            f"missing {path}: these tests need the project's shared folder (expected at "
            f"{SHARED}, holding {needed}; set {SHARED_ENV} to move it)",
            pytrace=False,
        )
    return path


def shared_missing_message() -> str | None:
    """One line naming what is missing from the shared folder, or None when it is complete."""
    where = f"(../shared beside the repository, or ${SHARED_ENV})"
    needed = " and ".join(name + "/" for name in SHARED_FOLDERS)
    if not SHARED.is_dir():
        return f"no shared folder at {SHARED} {where}: the tests read {needed} there"
    missing = [name + "/" for name in SHARED_FOLDERS if not (SHARED / name).is_dir()]
    if missing:
        return f"the shared folder {SHARED} {where} has no {' and no '.join(missing)}"
    return None


def pytest_configure(config: pytest.Config) -> None:
    """The library reads ``$XPG_SHARED_DIR/datasets`` itself; name the folder by its absolute
    path, so that a relative value still means :data:`SHARED` after a test changes directory."""
    if os.environ.get(SHARED_ENV):
        os.environ[SHARED_ENV] = str(SHARED)


def pytest_sessionstart(session: pytest.Session) -> None:
    """Stop the whole run at once when the shared folder is missing."""
    message = shared_missing_message()
    if message is not None:  # pytest prints "ERROR: <message>" alone and exits with status 4
        raise pytest.UsageError(message)


@pytest.fixture(autouse=True)
def _pip_offline(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Outside ``peers`` tests, any pip call fails at once instead of reaching an index."""
    if request.node.get_closest_marker(PEERS_MARK) is None:
        monkeypatch.setenv("PIP_NO_INDEX", "1")
        monkeypatch.setenv("PIP_INDEX_URL", "http://127.0.0.1:9/")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Leave the peer comparisons out of a run whose ``-m`` expression does not name them.

    A given ``-m`` replaces the default ``-m 'not peers'``, so without this the quick run
    ``-m 'not slow'`` would build the peers' environments from PyPI.
    """
    if re.search(rf"\b{PEERS_MARK}\b", config.option.markexpr or ""):
        return
    peers = [item for item in items if item.get_closest_marker(PEERS_MARK)]
    if peers:
        items[:] = [item for item in items if not item.get_closest_marker(PEERS_MARK)]
        config.hook.pytest_deselected(items=peers)


def pytest_deselected(items: list[pytest.Item]) -> None:
    """Count the peer comparisons that ``-m`` left out."""
    if items:
        config = items[0].config
        left_out = sum(1 for item in items if item.get_closest_marker(PEERS_MARK))
        config.stash[_PEERS_LEFT_OUT] = config.stash.get(_PEERS_LEFT_OUT, 0) + left_out


def pytest_sessionfinish(session: pytest.Session) -> None:
    """An xdist worker hands its count to the controller."""
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:
        workeroutput[_WORKER_KEY] = session.config.stash.get(_PEERS_LEFT_OUT, 0)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    """xdist controller: every worker collects the whole suite, so take one worker's count."""
    count = getattr(node, "workeroutput", {}).get(_WORKER_KEY, 0)
    config = node.config
    config.stash[_PEERS_LEFT_OUT] = max(config.stash.get(_PEERS_LEFT_OUT, 0), count)


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    """Say which tests the default selection did not run, and how to run them."""
    left_out = config.stash.get(_PEERS_LEFT_OUT, 0)
    if left_out:
        noun = "comparison" if left_out == 1 else "comparisons"
        terminalreporter.write_line(
            f"not run: {left_out} peer {noun} (they build environments from PyPI; "
            f"run them with: pytest -m {PEERS_MARK})"
        )


@pytest.fixture
def examples_dir() -> Path:
    """The shared folder's ``xpg-examples``."""
    return shared_path("xpg-examples")
