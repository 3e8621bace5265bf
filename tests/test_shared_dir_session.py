"""``XPG_SHARED_DIR=ELSEWHERE pytest``: the library's default data directory is
``ELSEWHERE/datasets`` in every test, also after a test changes directory and when the value
is relative (``tests/conftest.py``'s ``pytest_configure``; the library reads the variable
itself, nothing sets ``XPG_DATA_DIR`` for it).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO_ROOT, SHARED, SHARED_ENV

from xpg.learn.datasets import default_data_dir


def test_the_default_data_directory_is_the_shared_folders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert default_data_dir().resolve() == SHARED / "datasets"
    if os.environ.get(SHARED_ENV):
        assert os.environ[SHARED_ENV] == str(SHARED)


@pytest.mark.slow
def test_a_relative_xpg_shared_dir_names_the_same_folder_in_every_test(tmp_path: Path) -> None:
    """Run the test above with ``XPG_SHARED_DIR`` relative to the checkout, through a link
    elsewhere (the relative path means nothing from the test's own directory)."""
    (tmp_path / "elsewhere").symlink_to(SHARED, target_is_directory=True)
    relative = Path(os.path.relpath(tmp_path / "elsewhere", REPO_ROOT))
    test = "tests/test_shared_dir_session.py::test_the_default_data_directory_is_the_shared_folders"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "XPG_"))}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO_ROOT), *filter(None, [env.get("PYTHONPATH")])])
    env[SHARED_ENV] = str(relative)
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", test]
        + ["--basetemp", str(tmp_path / "inner")],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 passed" in proc.stdout
