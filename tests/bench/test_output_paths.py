"""Benchmarks write only into git-ignored folders unless told otherwise.

Each benchmark of ``xpg bench`` is started with no options and stopped at its argument parser
(nothing is measured): its ``--out`` default must be a folder that git ignores, so the published
results committed under ``bench/<topic>/results/`` change only when asked for with ``--out``.
"""

from __future__ import annotations

import argparse
import importlib
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT))  # bench/ is a folder of the checkout, not a package
from bench.cli import BENCHMARKS  # noqa: E402
from bench.peers import VENVS_DIR  # noqa: E402


class _Parsed(Exception):
    """Raised instead of parsing: carries the benchmark's parser."""

    def __init__(self, parser: argparse.ArgumentParser) -> None:
        super().__init__()
        self.parser = parser


def default_out(module_name: str, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The ``--out`` default of a benchmark, read from its parser without running it."""

    def stop(self: argparse.ArgumentParser, *args: object, **kwargs: object) -> None:
        raise _Parsed(self)

    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", stop)
    with pytest.raises(_Parsed) as caught:
        importlib.import_module(module_name).main([])
    out = caught.value.parser.get_default("out")
    assert out is not None, f"{module_name}: no --out default"
    return Path(out)


def git_ignores(folder: Path) -> bool:
    """Does git ignore ``folder`` in this checkout (``git check-ignore``; the trailing slash
    says it is a folder, which it may not be yet)?"""
    proc = subprocess.run(
        ["git", "-C", str(REPO_ROOT), "check-ignore", "-q", f"{folder}/"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode in (0, 1), proc.stderr
    return proc.returncode == 0


needs_git = pytest.mark.skipif(
    shutil.which("git") is None or not (REPO_ROOT / ".git").exists(),
    reason="not a git checkout: nothing is ignored or committed",
)


@needs_git
@pytest.mark.parametrize("name", sorted(BENCHMARKS))
def test_default_output_is_git_ignored(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    out = default_out(BENCHMARKS[name], monkeypatch)
    assert out.is_absolute() and out.is_relative_to(REPO_ROOT), out
    assert git_ignores(out), f"xpg bench {name}: default --out {out} is not git-ignored"


@needs_git
def test_the_checks_tell_ignored_from_published_folders() -> None:
    assert git_ignores(VENVS_DIR / "xpgraph")
    assert git_ignores(REPO_ROOT / "bench" / "results" / "anything")
    assert not git_ignores(REPO_ROOT / "bench" / "fourier" / "results")
