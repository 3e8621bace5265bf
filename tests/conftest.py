"""Shared fixtures: the location of ../shared (datasets, papers' examples)."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED = REPO_ROOT.parent / "shared"


def shared_path(*parts: str) -> Path:
    """A path inside ../shared; fails the test with a clear message when it is missing."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.fail(
            f"missing {path}: these tests need the project's shared folder beside the repository "
            f"(expected at {SHARED}, holding datasets/ and xpg-examples/)",
            pytrace=False,
        )
    return path


@pytest.fixture
def examples_dir() -> Path:
    """../shared/xpg-examples."""
    return shared_path("xpg-examples")
