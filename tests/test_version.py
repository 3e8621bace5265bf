"""One version string: ``xpg.__version__`` is the source, the distribution's metadata and
``xpg --version`` follow it."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import version

from conftest import REPO_ROOT

import xpg

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: tomli, which the test extra's mypy requires there
    import tomli as tomllib


def test_xpg_version_prints_the_installed_distributions_version() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "xpg", "--version"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert proc.stdout == f"xpg {version('xpg-toolkit')}\n"
    assert version("xpg-toolkit") == xpg.__version__


def test_pyproject_takes_the_version_from_the_package() -> None:
    with (REPO_ROOT / "pyproject.toml").open("rb") as fh:
        pyproject = tomllib.load(fh)
    assert "version" not in pyproject["project"]
    assert "version" in pyproject["project"]["dynamic"]
    assert pyproject["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "xpg.__version__"}
