"""The console script ends without the interpreter's teardown (``exit_now``): the output is
complete, the exit status kept and the :mod:`atexit` handlers run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import xpg.cli.main
from xpg import enumerate_explanations, read_xpg

SCRIPT = (
    "import atexit, sys\n"
    "atexit.register(lambda: print('handler ran', file=sys.stderr))\n"
    "sys.argv = ['xpg', *sys.argv[1:]]\n"
    "from xpg.cli.main import entry_point\n"
    "entry_point()\n"
)


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", SCRIPT, *args], capture_output=True, text=True, check=False
    )


def test_output_status_and_handlers_survive_the_fast_exit(examples_dir: Path) -> None:
    path = examples_dir / "xd6" / "xd6_0.xpg"
    proc = _run("enum", str(path))
    result = enumerate_explanations(read_xpg(path))
    lines = proc.stdout.splitlines()
    assert proc.returncode == 0 and len(lines) == len(result.axps) + len(result.cxps) + 1
    assert "complete" in lines[-1] and proc.stderr == "handler ran\n"
    bad = _run("enum", str(path.with_name("missing.xpg")))
    assert bad.returncode == 2 and "cannot read the file" in bad.stderr
    assert bad.stderr.endswith("handler ran\n")


def test_exit_now_is_used_by_the_console_script() -> None:
    assert "exit_now" in xpg.cli.main.entry_point.__code__.co_names
