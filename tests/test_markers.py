"""The ``slow`` marker: the default run runs everything, ``pytest -m 'not slow'`` is quick.

The collections run pytest in a subprocess on a small part of the suite: a module with slow
and quick tests (:data:`MIXED`), and one with a peer comparison, which the quick run must leave
out as well.
"""

from __future__ import annotations

import pytest
from conftest import PEERS_MARK, SLOW_MARK
from test_offline import run_pytest

MIXED = "tests/test_offline.py"
PEERS_FILE = "tests/bench/test_peers_quick.py"


def collected(*args: str) -> list[str]:
    """The test ids ``pytest --collect-only -q ARGS`` collects."""
    proc = run_pytest("--collect-only", "-q", *args)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return [line for line in proc.stdout.splitlines() if "::" in line]


def test_slow_is_registered_and_the_default_options_keep_it(pytestconfig: pytest.Config) -> None:
    names = [line.split(":", 1)[0] for line in pytestconfig.getini("markers")]
    assert SLOW_MARK in names and PEERS_MARK in names
    addopts = pytestconfig.getini("addopts")  # the default run deselects the peers alone
    assert "--strict-markers" in addopts
    assert addopts[addopts.index("-m") + 1] == f"not {PEERS_MARK}"


def test_the_quick_run_leaves_out_the_slow_tests_and_the_peer_comparisons() -> None:
    default = collected(MIXED)
    slow = collected("-m", SLOW_MARK, MIXED)
    quick = collected("-m", f"not {SLOW_MARK}", MIXED, PEERS_FILE)
    quick_mixed = [test for test in quick if test.startswith(MIXED)]
    assert slow and quick_mixed and len(quick_mixed) < len(default)
    assert sorted(slow + quick_mixed) == sorted(default)
    assert f"{PEERS_FILE}::test_peers_quick[ours]" in quick
    assert not any("[peers]" in test for test in quick)
