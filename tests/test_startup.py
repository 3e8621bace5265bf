"""Start-up (issue 13, item 1): ``import xpg`` and the ``xpg`` command load no heavy library
until a feature needs it; on a small ``.xpg`` file, not even numpy, portion or python-sat.

Each check runs a fresh interpreter.  ``tests/cli/test_cli_structure.py`` checks the command
modules' own imports (statically) and ``main(["--help"])``/``main(["axp", ...])`` in process;
here the whole package is checked, through the console script's entry point and for every
public name re-exported lazily by ``xpg/__init__.py``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import xpg

#: never imported by ``import xpg``, ``xpg --help``, ``xpg axp`` or ``xpg enum`` on a ``.xpg``
HEAVY = ("scipy", "sklearn", "pysmt", "networkx", "z3", "ortools", "shap", "dd", "pandas")
HEAVY += ("numpy", "portion", "pysat")  # the small-graph path is pure Python

LOADED = (
    "import json, sys\n"
    "def loaded():\n"
    f"    return sorted(m for m in {HEAVY!r} if m in sys.modules)\n"
)


def _run(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, check=False
    )


def test_import_xpg_loads_nothing_heavy() -> None:
    code = LOADED + (
        "import xpg\n"
        "core = [n in vars(xpg) for n in ('DecisionGraph', 'ExplanationGraph', 'Feature')]\n"
        "lazy = [n in vars(xpg) for n in ('find_axp', 'Verifier', 'read_xpg')]\n"
        "print(json.dumps([loaded(), core, lazy]))\n"
    )
    proc = _run(code)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == [[], [False] * 3, [False] * 3]


@pytest.mark.parametrize(
    "args",
    [["--help"], ["axp", "{file}"], ["enum", "{file}"], ["validate", "{file}"]],
    ids=["help", "axp", "enum", "validate"],
)
def test_the_command_loads_no_heavy_library(args: list[str], examples_dir: Path) -> None:
    """Through ``entry_point``, as the ``xpg`` console script runs it."""
    file = str(examples_dir / "mux6" / "mux6_0.xpg")
    code = LOADED + (
        "import atexit\n"
        "atexit.register(lambda: print('LOADED', json.dumps(loaded())))\n"
        "sys.argv = ['xpg', *sys.argv[1:]]\n"
        "from xpg.cli.main import entry_point\n"
        "sys.exit(entry_point())\n"
    )
    proc = _run(code, *[a.format(file=file) for a in args])
    assert proc.returncode == 0, proc.stderr
    last = proc.stdout.strip().splitlines()[-1]
    assert last == "LOADED []", proc.stdout


def test_every_public_name_resolves() -> None:
    """The lazily re-exported names are the eager ones they replace."""
    from xpg.explain import find_axp
    from xpg.verify import verify_axp as verify

    assert set(xpg.__all__) <= set(dir(xpg))
    assert all(getattr(xpg, name) is not None for name in xpg.__all__)
    assert xpg.find_axp is find_axp
    from xpg import verify_axp

    assert verify_axp is verify
    with pytest.raises(AttributeError, match="no_such_name"):
        _ = xpg.no_such_name


def test_no_lazy_name_is_shadowed_by_a_submodule() -> None:
    """Importing a submodule binds its name in the package, so a lazily re-exported name that
    is also a submodule's name would turn into that module once the submodule is imported
    (``xpg.robustness`` was the module ``xpg.explain.robustness`` after its first use)."""
    import importlib
    import pkgutil

    for package_name in ["xpg", *(f"xpg.{m.name}" for m in pkgutil.iter_modules(xpg.__path__))]:
        package = importlib.import_module(package_name)
        lazy = getattr(package, "_LAZY", None)
        if not lazy or not hasattr(package, "__path__"):
            continue
        submodules = {m.name for m in pkgutil.iter_modules(package.__path__)}
        assert not set(lazy) & submodules, package_name
        for name, source in lazy.items():
            importlib.import_module(source)
            assert not isinstance(getattr(package, name), type(xpg)), f"{package_name}.{name}"


@pytest.mark.slow
def test_every_module_imports_first() -> None:
    """No import circle: each module of the package can be the first one imported (the lazy
    ``xpg/__init__.py`` no longer fixes an order)."""
    root = Path(xpg.__file__).parent
    modules = sorted(
        ".".join(p.relative_to(root.parent).with_suffix("").parts).removesuffix(".__init__")
        for p in root.rglob("*.py")
        if p.name != "__main__.py"
    )
    code = (
        "import importlib, json, sys\n"
        "failed = []\n"
        "for name in sys.argv[1:]:\n"
        "    for m in [m for m in sys.modules if m == 'xpg' or m.startswith('xpg.')]:\n"
        "        del sys.modules[m]\n"
        "    try:\n"
        "        importlib.import_module(name)\n"
        "    except ImportError as err:\n"
        "        failed.append([name, str(err)])\n"
        "print(json.dumps(failed))\n"
    )
    proc = _run(code, *modules)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == []
    assert len(modules) > 50


@pytest.mark.slow
def test_subpackages_are_attributes_imported_on_first_use() -> None:
    """Issue 28: ``import xpg`` then ``xpg.learn.load_dataset`` (the README's spelling) was an
    AttributeError; the subpackage is imported when first touched, not by ``import xpg``."""
    code = LOADED + (
        "import xpg\n"
        "before = 'xpg.learn' in sys.modules\n"
        "load = xpg.learn.load_dataset\n"
        "print(json.dumps([before, load.__module__, 'learn' in dir(xpg)]))\n"
    )
    proc = _run(code)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == [False, "xpg.learn.datasets", True]


def test_the_subpackage_attributes_are_the_subpackages() -> None:
    """Every name of ``xpg._SUBPACKAGES`` is a subpackage or module of xpg, and every public
    subpackage but the command line is one of them."""
    import importlib
    import pkgutil

    modules = {m.name: m.ispkg for m in pkgutil.iter_modules(xpg.__path__)}
    assert xpg._SUBPACKAGES <= set(modules)
    public = {n for n, is_pkg in modules.items() if is_pkg and not n.startswith("_")}
    assert public - xpg._SUBPACKAGES == {"cli"}
    assert not xpg._SUBPACKAGES & set(xpg._LAZY)
    for name in sorted(xpg._SUBPACKAGES):
        assert getattr(xpg, name) is importlib.import_module(f"xpg.{name}")
