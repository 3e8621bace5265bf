"""The README's tour from a wheel (issue 28, "Done when"): a wheel of this checkout installed in
a new environment, the tour run as written from a folder outside the checkout, with the shared
folder given by ``XPG_SHARED_DIR`` alone, reaches every output it shows.

Offline and quick: the wheel is built from a copy of the package's sources without build
isolation (the test environment's setuptools, which ``dd`` requires), installed with
``--no-deps`` into a new virtual environment that reaches the test environment's packages (the
dependencies) through a ``.pth`` file, which adds their folder and no ``.pth`` file of theirs, so
that the checkout's editable install stays out.  The tour runs with the checker of
``tests/test_readme.py``, in the new environment's interpreter and with its ``xpg`` console
script, from a folder beside a link named ``shared`` (the README's commands name
``../shared/...``, as from the root of a checkout).  Every process of the tour records the
packages it imported: those that come from an extra must be installed by the tour's first
command (``pip install -e '.[EXTRAS]'``).
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import shutil
import site
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import REPO_ROOT, SHARED
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from test_readme import readme_blocks

pytestmark = pytest.mark.slow

README = REPO_ROOT / "README.md"
DIST = "xpg-toolkit"
#: where each process of the tour writes the names of the top-level modules it imported
MODULES_ENV = "XPG_TOUR_MODULES"
#: imported at start-up by every interpreter of the new environment (through a .pth file)
RECORDER = f"""\
import atexit, os, sys

_FOLDER = os.environ.get({MODULES_ENV!r})
#: modules not to record (the checker's own: pytest...), set by the tour's runner
baseline = set()


def _record():
    names = sorted({{name.partition(".")[0] for name in list(sys.modules)}} - baseline)
    path = os.path.join(_FOLDER, f"{{os.getpid()}}.txt")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("\\n".join(names))


if _FOLDER:
    atexit.register(_record)
"""
#: run by the new environment's interpreter: the README's tour, checked; JSON out
RUNNER = """\
import importlib.util, json, sys
from pathlib import Path

tests, readme, workdir, program, out = sys.argv[1:]


def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


load("conftest", Path(tests) / "conftest.py")
checker = load("readme_checker", Path(tests) / "test_readme.py")
import _xpg_tour_modules

_xpg_tour_modules.baseline = {name.partition(".")[0] for name in sys.modules}
problems = checker.check_readme(Path(readme).read_text(encoding="utf-8"), Path(workdir), program)
import xpg

Path(out).write_text(json.dumps({"problems": problems, "xpg": xpg.__file__}), encoding="utf-8")
"""


@dataclass(frozen=True)
class WheelEnv:
    """A new virtual environment with this checkout's wheel installed."""

    root: Path
    wheel: Path
    python: Path
    xpg: Path
    site_packages: Path

    def env(self, **extra: str) -> dict[str, str]:
        """The environment of a process run there: no path to the checkout, no data variable."""
        drop = ("PYTHONPATH", "PYTHONHOME", "XPG_DATA_DIR", "XPG_SHARED_DIR", MODULES_ENV)
        env = {k: v for k, v in os.environ.items() if k not in drop}
        env["PATH"] = f"{self.python.parent}{os.pathsep}{env.get('PATH', '')}"
        env["VIRTUAL_ENV"] = str(self.python.parent.parent)
        env["PIP_NO_INDEX"] = "1"
        return {**env, **extra}


def _run(argv: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(argv, capture_output=True, text=True, check=False, **kwargs)  # type: ignore[call-overload]
    assert proc.returncode == 0, f"{' '.join(argv)}\n{proc.stdout}\n{proc.stderr}"
    return proc  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def wheel_env(tmp_path_factory: pytest.TempPathFactory) -> WheelEnv:
    """Build the wheel (from a copy of the sources: the checkout is not written to), make a
    new environment, install the wheel there without dependencies."""
    root = tmp_path_factory.mktemp("wheel-tour")
    src = root / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO_ROOT / name, src / name)
    shutil.copytree(
        REPO_ROOT / "xpg", src / "xpg", ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
    )
    offline = {**os.environ, "PIP_NO_INDEX": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    pip = [sys.executable, "-m", "pip"]
    wheels = root / "dist"
    _run(
        [*pip, "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-w", wheels, src],
        env=offline,
    )
    (wheel,) = wheels.glob("xpg_toolkit-*.whl")
    venv = root / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", venv])
    python = venv / "bin" / "python"
    _run([*pip, "--python", python, "install", "--no-deps", "--no-index", wheel], env=offline)
    purelib = _run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]
    ).stdout.strip()
    site_packages = Path(purelib)
    here = [p for p in site.getsitepackages() if Path(p).is_dir()]
    (site_packages / "_xpg_tour_modules.py").write_text(RECORDER, encoding="utf-8")
    (site_packages / "zz_xpg_test_env.pth").write_text(
        "import _xpg_tour_modules\n" + "".join(p + "\n" for p in here), encoding="utf-8"
    )
    return WheelEnv(root, wheel, python, venv / "bin" / "xpg", site_packages)


@dataclass(frozen=True)
class TourRun:
    problems: list[str]
    xpg_file: str
    modules: set[str]


@pytest.fixture(scope="module")
def tour(wheel_env: WheelEnv) -> TourRun:
    """The README run top to bottom from the wheel, in a folder outside the checkout."""
    base = wheel_env.root / "tour"
    (base / "work").mkdir(parents=True)
    (base / "shared").symlink_to(SHARED, target_is_directory=True)
    modules = base / "modules"
    modules.mkdir()
    runner = base / "run_tour.py"
    runner.write_text(RUNNER, encoding="utf-8")
    out = base / "result.json"
    argv = [wheel_env.python, runner, REPO_ROOT / "tests", README, base / "work"]
    _run(
        [*map(str, argv), str(wheel_env.xpg), str(out)],
        cwd=base / "work",
        env=wheel_env.env(XPG_SHARED_DIR=str(SHARED), **{MODULES_ENV: str(modules)}),
        timeout=900,
    )
    result = json.loads(out.read_text(encoding="utf-8"))
    names = {n for f in modules.glob("*.txt") for n in f.read_text(encoding="utf-8").split()}
    return TourRun(result["problems"], result["xpg"], names)


def test_the_tour_from_a_wheel_reaches_every_output(wheel_env: WheelEnv, tour: TourRun) -> None:
    assert Path(tour.xpg_file).is_relative_to(wheel_env.site_packages), tour.xpg_file
    assert not tour.problems, "from the wheel, README.md states:\n" + "\n".join(tour.problems)


# -- the tour's first command installs what the tour uses ------------------------------------------
def tour_install_extras(text: str) -> set[str]:
    """The extras named by the tour's first command (the first ``pip install`` after the
    README's two contract commands): ``pip install -e '.[scale,optimal]'`` -> both.

    Examples
    --------
    >>> sorted(tour_install_extras("```sh\\na\\n```\\n```sh\\nb\\n```\\n"
    ...                            "```sh\\n.venv/bin/pip install -e '.[scale,optimal]'\\n```\\n"))
    ['optimal', 'scale']
    """
    for block in readme_blocks(text)[2:]:
        match = re.search(r"pip install (?:-e )?'\.\[([\w,-]+)\]'", block.code)
        if block.lang == "sh" and match:
            return set(match.group(1).split(","))
    raise AssertionError("the README's tour has no install command (pip install -e '.[...]')")


def _own_requirements(wheel: Path) -> list[Requirement]:
    """The wheel's ``Requires-Dist`` lines."""
    with zipfile.ZipFile(wheel) as zf:
        (name,) = [n for n in zf.namelist() if n.endswith(".dist-info/METADATA")]
        metadata = zf.read(name).decode("utf-8")
    return [
        Requirement(line.split(":", 1)[1])
        for line in metadata.splitlines()
        if line.startswith("Requires-Dist:")
    ]


def _applies(req: Requirement, extras: set[str]) -> bool:
    if req.marker is None:
        return True
    return any(req.marker.evaluate({"extra": e}) for e in extras | {""})


def installed_by(wheel: Path, extras: set[str]) -> set[str]:
    """Every distribution ``pip install 'xpg-toolkit[extras]'`` installs (canonical names):
    the requirements of the wheel for those extras, and theirs, transitively."""
    own = _own_requirements(wheel)
    found: set[str] = set()
    todo = [(req, frozenset()) for req in own if _applies(req, extras)]
    seen: set[tuple[str, frozenset[str]]] = set()
    while todo:
        req, _ = todo.pop()
        name = canonicalize_name(req.name)
        key = (name, frozenset(req.extras))
        if key in seen:
            continue
        seen.add(key)
        if name == DIST:  # an extra naming others: xpg-toolkit[rules,cp]
            todo += [(r, frozenset()) for r in own if _applies(r, set(req.extras))]
            continue
        found.add(name)
        try:
            requires = importlib.metadata.distribution(req.name).requires or []
        except importlib.metadata.PackageNotFoundError:
            continue  # not installed here, so nothing of it was imported either
        todo += [
            (r, frozenset()) for r in map(Requirement, requires) if _applies(r, set(req.extras))
        ]
    return found


def extra_packages(wheel: Path) -> dict[str, set[str]]:
    """Each distribution an extra names directly -> the extras naming it (the base
    dependencies left out)."""
    own = _own_requirements(wheel)
    base = {canonicalize_name(r.name) for r in own if r.marker is None}
    out: dict[str, set[str]] = {}
    for req in own:
        if req.marker is None or canonicalize_name(req.name) == DIST:
            continue
        extras = {m.group(1) for m in re.finditer(r"extra == \"([\w-]+)\"", str(req.marker))}
        if canonicalize_name(req.name) not in base:
            out.setdefault(canonicalize_name(req.name), set()).update(extras)
    return out


def test_the_tour_install_command_installs_what_the_tour_imports(
    wheel_env: WheelEnv, tour: TourRun
) -> None:
    """A package of an extra that the tour imports is installed by the tour's first command."""
    extras = tour_install_extras(README.read_text(encoding="utf-8"))
    installed = installed_by(wheel_env.wheel, extras)
    of_extras = extra_packages(wheel_env.wheel)
    by_module = importlib.metadata.packages_distributions()
    imported = {canonicalize_name(d) for m in tour.modules for d in by_module.get(m, [])}
    assert "pandas" in imported and tour.modules  # the recorder worked
    missing = {d: sorted(of_extras[d]) for d in imported & set(of_extras) if d not in installed}
    assert not missing, (
        f"the tour imports packages its first command (extras {sorted(extras)}) does not "
        f"install: {missing} (package: the extras naming it)"
    )


# -- the data variable, from the wheel -------------------------------------------------------------
LOAD = "import xpg; print(xpg.learn.load_dataset('pmlb/corral').X.shape)"


@pytest.mark.parametrize("load", [LOAD, LOAD.replace("import xpg;", "import xpg.learn;")])
def test_load_dataset_from_the_wheel_reads_the_shared_folder(
    wheel_env: WheelEnv, load: str
) -> None:
    """``import xpg`` then ``xpg.learn.load_dataset`` (was an AttributeError), the datasets
    found through ``XPG_SHARED_DIR`` (was ignored: the wheel looked inside the environment)."""
    proc = _run(
        [str(wheel_env.python), "-c", load],
        cwd=wheel_env.root,
        env=wheel_env.env(XPG_SHARED_DIR=str(SHARED)),
    )
    assert proc.stdout.strip() == "(160, 6)"


def test_without_the_variable_the_error_says_to_set_it(wheel_env: WheelEnv) -> None:
    proc = subprocess.run(
        [str(wheel_env.python), "-c", LOAD],
        cwd=wheel_env.root,
        env=wheel_env.env(),
        capture_output=True,
        text=True,
        check=False,
    )
    last = proc.stderr.strip().splitlines()[-1]
    assert proc.returncode == 1
    assert last.startswith("xpg.errors.DataNotFoundError: no data directory: set XPG_SHARED_DIR")
    assert "outside a checkout" in last
