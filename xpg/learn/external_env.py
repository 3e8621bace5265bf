"""Virtual environments of their own for libraries that cannot live in xpg's environment.

Orange3 (CN2 rule lists, :mod:`xpg.learn.cn2`) pins numpy and pandas below xpg's versions;
the benchmarks' peers clash with xpg's import name or pull gigabytes.  Each gets a virtual
environment of its own, described by an :class:`ExternalEnv` (a folder, pip requirements, a
probe: Python code that must run there), created on first use by :func:`ensure` and reused
afterwards.  A script then runs with that environment's interpreter and talks JSON over its
standard input and output (:func:`run_json`); xpg itself is never imported there.

Creation is whole or nothing: the environment is built in a temporary folder beside its
place, checked with the probe, then renamed into place, so a failed or interrupted pip run
leaves nothing that looks ready; a lock file keeps two processes from building the same one.
Library environments live in :func:`envs_dir` (``$XPG_ENVS_DIR``, else the user's cache
folder), never inside xpg's own environment.

Examples
--------
>>> env = ExternalEnv("demo", ("tomli",), "import tomli", root=Path("/tmp/envs"))
>>> env.venv.as_posix(), env.python.name
('/tmp/envs/demo', 'python')
>>> envs_dir({"XPG_ENVS_DIR": "/data/envs"}).as_posix()
'/data/envs'
>>> envs_dir({"XDG_CACHE_HOME": "/c"}).as_posix()
'/c/xpg/envs'
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from xpg.errors import ExternalEnvError

#: environment variable naming the folder of the library environments
ENVS_ENV = "XPG_ENVS_DIR"


def envs_dir(environ: Mapping[str, str] | None = None) -> Path:
    """The folder of xpg's library environments: ``$XPG_ENVS_DIR``, else
    ``$XDG_CACHE_HOME/xpg/envs``, else ``~/.cache/xpg/envs``."""
    environ = os.environ if environ is None else environ
    if environ.get(ENVS_ENV):
        return Path(environ[ENVS_ENV]).expanduser()
    cache = environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache).expanduser() / "xpg" / "envs"


@dataclass(frozen=True)
class ExternalEnv:
    """A virtual environment for one external library.

    Parameters
    ----------
    name : str
        The environment's folder name.
    requirements : tuple of str
        What ``pip install`` installs there.
    probe : str
        Python code that runs without error once the environment is ready.
    root : Path, optional
        The folder holding the environment (default :func:`envs_dir`, read when used).
    no_deps : tuple of str
        Installed next with ``pip install --no-deps``: a library whose declared dependencies
        are not all needed (the requirements then list those that are).
    """

    name: str
    requirements: tuple[str, ...]
    probe: str
    root: Path | None = None
    no_deps: tuple[str, ...] = ()

    @property
    def venv(self) -> Path:
        """The environment's folder."""
        return (self.root if self.root is not None else envs_dir()) / self.name

    @property
    def python(self) -> Path:
        """The environment's interpreter."""
        return _interpreter(self.venv)


def _interpreter(venv: Path) -> Path:
    return venv / "Scripts" / "python.exe" if os.name == "nt" else venv / "bin" / "python"


def clean_environ() -> dict[str, str]:
    """The process environment without the variables that would let xpg's own packages leak
    into another interpreter."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}


def _probe(python: Path, code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(python), "-c", code],
        capture_output=True,
        text=True,
        check=False,
        env=clean_environ(),
        cwd=cwd,
    )


def is_ready(env: ExternalEnv) -> bool:
    """True when the environment exists and its probe runs."""
    if not env.python.exists():
        return False
    return _probe(env.python, env.probe, env.venv).returncode == 0


@contextlib.contextmanager
def _lock(path: Path) -> Iterator[None]:
    """An exclusive lock on ``path`` while the block runs (POSIX; elsewhere none)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        yield
        return
    with open(path, "a", encoding="utf-8") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _tail(proc: subprocess.CompletedProcess[str], lines: int = 5) -> str:
    text = (proc.stderr or proc.stdout or "").strip().splitlines()
    return " | ".join(line.strip() for line in text[-lines:] if line.strip()) or "no output"


def ensure(env: ExternalEnv, log: IO[str] | None = None) -> Path:
    """Create the environment if it is not ready (pip reaches PyPI) and return its interpreter.

    A message on ``log`` (default standard error) says what is being created, where, and
    that it happens once.

    Raises
    ------
    ExternalEnvError
        The folder cannot be created, a step (venv, pip) fails (no network, no wheel for this
        Python...), or the probe fails in the new environment; nothing is left in place.
    """
    if is_ready(env):
        return env.python
    log = sys.stderr if log is None else log
    venv = env.venv
    try:
        venv.parent.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise ExternalEnvError(
            f"cannot create the folder {venv.parent} for the {env.name} environment: "
            f"{err.strerror or err} (set {ENVS_ENV} to another folder)"
        ) from None
    with _lock(venv.parent / f".{env.name}.lock"):
        if is_ready(env):  # another process made it while this one waited
            return env.python
        print(
            f"[xpg] creating the {env.name} environment at {venv} (once; pip install "
            f"{' '.join(env.no_deps or env.requirements)}: this can take a few minutes)",
            file=log,
            flush=True,
        )
        build = Path(tempfile.mkdtemp(prefix=f".{env.name}-building-", dir=venv.parent))
        umask = os.umask(0)
        os.umask(umask)
        build.chmod(0o777 & ~umask)  # mkdtemp's folder is private; the environment is not
        try:
            _build(env, build)
            if venv.exists() or venv.is_symlink():  # a broken earlier environment
                stale = Path(tempfile.mkdtemp(prefix=f".{env.name}-stale-", dir=venv.parent))
                os.replace(venv, stale / env.name)
                shutil.rmtree(stale, ignore_errors=True)
            os.replace(build, venv)
        finally:
            shutil.rmtree(build, ignore_errors=True)
    if not is_ready(env):
        raise ExternalEnvError(f"{venv} was created but `{env.probe}` fails there")
    print(f"[xpg] the {env.name} environment is ready", file=log, flush=True)
    return env.python


def _build(env: ExternalEnv, folder: Path) -> None:
    python = _interpreter(folder)
    steps = [
        [sys.executable, "-m", "venv", str(folder)],
        [str(python), "-m", "pip", "install", "-q", "--upgrade", "pip"],
        [str(python), "-m", "pip", "install", "-q", *env.requirements],
    ]
    if env.no_deps:
        steps.append([str(python), "-m", "pip", "install", "-q", "--no-deps", *env.no_deps])
    for cmd in steps:
        proc = subprocess.run(
            cmd,
            capture_output=True,
            text=True,
            check=False,
            env=clean_environ(),
            cwd=folder.parent,
        )
        if proc.returncode != 0:
            shown = " ".join(
                ["python", *(c if c != str(folder) else str(env.venv) for c in cmd[1:])]
            )
            raise ExternalEnvError(
                f"could not create the {env.name} environment at {env.venv} "
                f"(pip needs to reach PyPI once): `{shown}` failed: {_tail(proc)}"
            )
    proc = _probe(python, env.probe, folder)
    if proc.returncode != 0:
        raise ExternalEnvError(f"the new {env.name} environment fails `{env.probe}`: {_tail(proc)}")


def run_json(env: ExternalEnv, script: Path, request: Any, *, timeout: float | None = None) -> Any:
    """Run ``script`` with the environment's interpreter, ``request`` as JSON on its standard
    input, and return the JSON it prints on its standard output.

    Raises
    ------
    ExternalEnvError
        The environment is not ready, the script exits with an error or prints no JSON, or
        it runs longer than ``timeout`` seconds.
    """
    if not env.python.exists():
        raise ExternalEnvError(f"no {env.name} environment at {env.venv} (create it first)")
    with tempfile.TemporaryDirectory(prefix=f"xpg-{env.name}-") as tmp:
        try:
            proc = subprocess.run(
                [str(env.python), str(script)],
                input=json.dumps(request),
                capture_output=True,
                text=True,
                timeout=timeout,
                env=clean_environ(),
                cwd=tmp,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise ExternalEnvError(
                f"{script.name} in the {env.name} environment took more than {timeout} s"
            ) from None
    if proc.returncode != 0:
        raise ExternalEnvError(
            f"{script.name} in the {env.name} environment failed "
            f"(exit {proc.returncode}): {_tail(proc, 3)}"
        )
    try:
        return json.loads(proc.stdout)
    except json.JSONDecodeError:
        raise ExternalEnvError(
            f"{script.name} in the {env.name} environment printed no JSON: "
            f"{proc.stdout.strip()[:200]!r}"
        ) from None


#: XReason (Ignatiev et al., AAAI 2022; not on PyPI: its ``src/`` runs from
#: ``../shared/peers/xreason``), the ``xpg bench xreason`` peer: the recipe of that folder's
#: README (XGBoost 1.7.5 loads its pickles and needs numpy < 2); the probe imports what its
#: ``xreason.py`` imports
XREASON_ENV = ExternalEnv(
    "xreason",
    (
        "xgboost==1.7.5",
        "numpy<2",
        "scikit-learn",
        "pandas",
        "python-sat",
        "pysmt",
        "anytree",
        "namedlist",
        "lime",
        "anchor-exp",
        "shap<0.45",
    ),
    "import xgboost, numpy, sklearn, six, pysat.examples.rc2, pysmt.shortcuts, anytree, "
    "namedlist, lime, anchor, shap; assert xgboost.__version__ == '1.7.5'",
)
