"""Peer libraries in their own virtual environments, and runner scripts executed inside them.

The reference implementation (PyPI ``XpGraph``) is imported as ``xpg``, which clashes with
this project, and PyXAI pulls in gigabytes of dependencies: neither may enter the project's
environment.  Each peer gets a virtual environment under ``bench/.venvs/<name>`` (created on
first use, reused afterwards, by :mod:`xpg.learn.external_env`, which also makes Orange3's
environment for CN2); a runner script from ``bench/runners/`` runs there and times the
peer in-process, either on a whole JSON job file (:func:`run_runner`) or request by request
while it stays alive (:class:`RunnerSession`, ``--serve``: the comparisons use it to take
turns with xpg on each instance, :mod:`bench.runners.timing`).

Examples
--------
>>> sorted(PEERS)
['pyxai', 'xpgraph']
>>> PEERS["xpgraph"].runner.name
'xpgraph_runner.py'

References
----------
Huang, Izza, Ignatiev, Marques-Silva. On Efficiently Explaining Graph-Based Classifiers.
KR 2021, reference implementation https://github.com/yizza91/xpg (PyPI XpGraph 0.0.1).
"""

from __future__ import annotations

import json
import select
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sklearn

from xpg.errors import ExternalEnvError
from xpg.learn import external_env
from xpg.learn.external_env import ExternalEnv, clean_environ

BENCH_DIR = Path(__file__).resolve().parent
VENVS_DIR = BENCH_DIR / ".venvs"
RUNNERS_DIR = BENCH_DIR / "runners"


class PeerError(ExternalEnvError):
    """A peer environment could not be created, or a runner failed."""


@dataclass(frozen=True)
class Peer:
    """A peer library: its venv name, the pip requirements, the import to check, the runner."""

    name: str
    requirements: tuple[str, ...]
    probe: str
    runner: Path

    @property
    def env(self) -> ExternalEnv:
        """The peer's environment, under :data:`VENVS_DIR`."""
        return ExternalEnv(self.name, self.requirements, self.probe, root=VENVS_DIR)

    @property
    def venv(self) -> Path:
        """The environment's folder."""
        return self.env.venv

    @property
    def python(self) -> Path:
        """The environment's interpreter."""
        return self.env.python


PEERS: dict[str, Peer] = {
    "xpgraph": Peer(
        "xpgraph",
        ("XpGraph==0.0.1", "networkx", "numpy", "python-sat"),
        "from xpg import XpGraph, MarcoXpG",
        RUNNERS_DIR / "xpgraph_runner.py",
    ),
    "pyxai": Peer(
        "pyxai",
        # the same scikit-learn as here: fitted trees are handed over pickled
        ("pyxai==2.0.1", f"scikit-learn=={sklearn.__version__}"),
        "from pyxai import Learning, Explaining",
        RUNNERS_DIR / "pyxai_runner.py",
    ),
}


def is_ready(peer: Peer) -> bool:
    """True when the peer's environment exists and imports the peer."""
    return external_env.is_ready(peer.env)


def ensure_venv(peer: Peer, log: Any = sys.stderr) -> Path:
    """Create the peer's environment if needed (network: PyPI) and return its interpreter
    (:func:`xpg.learn.external_env.ensure`: built aside, renamed into place when it works)."""
    return external_env.ensure(peer.env, log)


def run_runner(peer: Peer, job: dict[str, Any], timeout: float | None = None) -> dict[str, Any]:
    """Run the peer's runner on ``job`` (JSON) inside its environment and return its JSON answer.

    ``timeout`` bounds the whole subprocess (seconds); the runner applies its own per-item
    time limits from the job.
    """
    with tempfile.TemporaryDirectory(prefix="xpg-peer-") as tmp:
        job_path, out_path = Path(tmp) / "job.json", Path(tmp) / "out.json"
        job_path.write_text(json.dumps(job), encoding="utf-8")
        env = clean_environ()
        try:
            proc = subprocess.run(
                [str(peer.python), str(peer.runner), str(job_path), str(out_path)],
                capture_output=True,
                text=True,
                timeout=timeout,
                env=env,
                cwd=tmp,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise PeerError(f"the {peer.name} runner took more than {timeout} s") from None
        if proc.returncode != 0 or not out_path.exists():
            tail = proc.stderr.strip().splitlines()[-8:]
            raise PeerError(
                f"the {peer.name} runner failed (exit {proc.returncode}): {' | '.join(tail)}"
            )
        result: dict[str, Any] = json.loads(out_path.read_text(encoding="utf-8"))
        return result


class RunnerSession:
    """A peer's runner kept alive (``runner --serve``), answering one request at a time.

    Requests and answers are JSON lines (:mod:`bench.runners.serve`). The runner's standard
    error goes to a temporary file, whose last lines are quoted when it fails. Use as a
    context manager, or call :meth:`close`.
    """

    def __init__(self, peer: Peer) -> None:
        self.peer = peer
        self._tmp = tempfile.TemporaryDirectory(prefix="xpg-peer-")
        self._stderr = open(Path(self._tmp.name) / "stderr.txt", "w+", encoding="utf-8")  # noqa: SIM115
        self._proc = subprocess.Popen(
            [str(peer.python), str(peer.runner), "--serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            text=True,
            env=clean_environ(),
            cwd=self._tmp.name,
        )

    def request(self, op: str, wait: float | None = None, **fields: Any) -> dict[str, Any]:
        """Send ``{"op": op, **fields}`` and return the answer; ``wait`` bounds the wait
        (wall seconds; the runner is then stopped). A failed request raises :class:`PeerError`."""
        proc = self._proc
        assert proc.stdin is not None and proc.stdout is not None
        try:
            proc.stdin.write(json.dumps({"op": op, **fields}) + "\n")
            proc.stdin.flush()
        except BrokenPipeError:
            raise self._failure(f"the {self.peer.name} runner has stopped") from None
        ready, _, _ = select.select([proc.stdout], [], [], wait)
        if not ready:
            proc.kill()
            self.close()
            raise PeerError(f"the {self.peer.name} runner took more than {wait} s on {op!r}")
        line = proc.stdout.readline()
        if not line:
            raise self._failure(f"the {self.peer.name} runner stopped during {op!r}")
        answer: dict[str, Any] = json.loads(line)
        if not answer.pop("ok", False):
            raise PeerError(f"the {self.peer.name} runner failed on {op!r}: {answer.get('error')}")
        return answer

    def _failure(self, message: str) -> PeerError:
        self._proc.wait(timeout=5)
        self._stderr.seek(0)
        tail = self._stderr.read().strip().splitlines()[-8:]
        return PeerError(f"{message} (exit {self._proc.returncode}): {' | '.join(tail)}")

    def close(self) -> None:
        """Ask the runner to quit (stop it after 5 s) and remove its temporary folder."""
        proc = self._proc
        if proc.poll() is None:
            try:
                assert proc.stdin is not None
                proc.stdin.write(json.dumps({"op": "quit"}) + "\n")
                proc.stdin.close()
                proc.wait(timeout=5)
            except (BrokenPipeError, subprocess.TimeoutExpired):
                proc.kill()
                proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()
        self._stderr.close()
        self._tmp.cleanup()

    def __enter__(self) -> RunnerSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
