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


THREAD_SCRIPT = (
    "import os, sys, threading, time, types\n"
    "class Teardown:\n"
    "    def __del__(self, write=os.write): write(2, b'torn down\\n')\n"
    "holder = sys.modules['holder'] = types.ModuleType('holder')\n"
    "holder.kept = Teardown()  # freed by the teardown of the modules\n"
    "from xpg.cli.main import exit_now\n"
    "daemon = sys.argv[1] == 'daemon'\n"
    "def work(): time.sleep(30 if daemon else 0.3); print('thread done', file=sys.stderr)\n"
    "threading.Thread(target=work, daemon=daemon).start()\n"
    "exit_now(3)\n"
)


def test_a_daemon_thread_does_not_stop_the_fast_exit_and_another_is_awaited() -> None:
    # a daemon thread (Dask leaves one) ends with the process: no teardown, no waiting
    daemon = subprocess.run(
        [sys.executable, "-c", THREAD_SCRIPT, "daemon"], capture_output=True, text=True
    )
    assert daemon.returncode == 3 and daemon.stderr == ""
    # the interpreter waits for a non-daemon thread: so does exit_now, then tears down
    other = subprocess.run(
        [sys.executable, "-c", THREAD_SCRIPT, "other"], capture_output=True, text=True
    )
    assert other.returncode == 3 and other.stderr.splitlines() == ["thread done", "torn down"]


def test_exit_now_is_used_by_the_console_script() -> None:
    assert "exit_now" in xpg.cli.main.entry_point.__code__.co_names
