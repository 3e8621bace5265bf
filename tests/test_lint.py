"""The package passes ruff (lint and format) and mypy: part of the test suite, so CI runs them."""

from __future__ import annotations

import subprocess
import sys

import pytest
from conftest import REPO_ROOT


def _run(*cmd: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=REPO_ROOT, capture_output=True, text=True, check=False)


def test_ruff_lint_and_format() -> None:
    lint = _run(sys.executable, "-m", "ruff", "check", "xpg", "tests", "bench")
    assert lint.returncode == 0, lint.stdout + lint.stderr
    fmt = _run(sys.executable, "-m", "ruff", "format", "--check", "xpg", "tests", "bench")
    assert fmt.returncode == 0, fmt.stdout + fmt.stderr


@pytest.mark.slow
def test_mypy_package() -> None:
    result = _run(sys.executable, "-m", "mypy", "xpg")
    assert result.returncode == 0, result.stdout + result.stderr
