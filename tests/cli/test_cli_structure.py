"""The command-line package: a registry of command modules, one set of shared helpers, no
import circle, and no heavy library imported before a command needs it."""

from __future__ import annotations

import argparse
import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

import xpg.cli
from xpg.cli import common
from xpg.cli.main import COMMANDS, build_parser, command_modules

CLI_DIR = Path(xpg.cli.__file__).parent
HEAVY = ("sklearn", "scipy", "pysmt", "z3", "dd", "networkx", "pandas")


def _module_level_imports(path: Path) -> list[str]:
    """Modules imported when ``path`` is imported (not inside functions or TYPE_CHECKING)."""
    names: list[str] = []
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            continue
        for sub in ast.walk(node):
            if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef)):
                break
            if isinstance(sub, ast.Import):
                names += [a.name for a in sub.names]
            elif isinstance(sub, ast.ImportFrom) and sub.module:
                names += [sub.module] + [f"{sub.module}.{a.name}" for a in sub.names]
    return names


def _subcommands() -> list[str]:
    parser = build_parser()
    (action,) = [a for a in parser._actions if a.dest == "command"]
    return list(action.choices)


def test_every_command_comes_from_a_registered_module() -> None:
    assert all(callable(getattr(m, "register", None)) for m in command_modules())
    assert _subcommands() == [
        "demo", "learn", "import", "axp", "cxp", "enum", "explain", "export", "validate",
        "member", "features", "smallest", "verify", "robustness", "draw", "report", "bench",
    ]  # fmt: skip
    modules = {p.stem for p in CLI_DIR.glob("*.py")} - {"__init__", "main", "common"}
    assert modules == {m.__name__.rsplit(".", 1)[-1] for m in command_modules()} == set(COMMANDS)
    for name, commands in COMMANDS.items():  # the registry says which module adds a command
        (module,) = command_modules(commands[0])
        parser = argparse.ArgumentParser()
        module.register(parser.add_subparsers())
        (action,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        assert (module.__name__, tuple(action.choices)) == (f"xpg.cli.{name}", commands)


def test_no_import_circle_and_one_set_of_helpers() -> None:
    """Command modules import the shared helpers, never ``main`` nor one another."""
    for path in CLI_DIR.glob("*.py"):
        cli_imports = {n for n in _module_level_imports(path) if n.startswith("xpg.cli.")}
        if path.stem == "main":
            continue
        allowed = {"xpg.cli.common"} | {f"xpg.cli.common.{n}" for n in dir(common)}
        assert cli_imports <= allowed, (path.name, cli_imports - allowed)
    helpers = ("def parse_instance", "def load_explanation_graph", "def positive_int", "def emit")
    for helper in helpers:
        defined_in = [p.name for p in CLI_DIR.glob("*.py") if helper in p.read_text("utf-8")]
        assert defined_in == ["common.py"], (helper, defined_in)


@pytest.mark.parametrize("path", sorted(CLI_DIR.glob("*.py")), ids=lambda p: p.name)
def test_no_heavy_import_at_module_level(path: Path) -> None:
    heavy = [n for n in _module_level_imports(path) if n.split(".")[0] in HEAVY]
    assert heavy == [], f"{path.name} imports {heavy} when it is imported"


def test_help_and_axp_load_no_scientific_stack(examples_dir: Path) -> None:
    """Checked in a fresh interpreter: scikit-learn, scipy and dd stay unloaded."""
    code = (
        "import contextlib, io, json, sys\n"
        "from xpg.cli.main import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    main(['--help'])\n"
        "    help_loaded = sorted(m for m in ('sklearn', 'scipy', 'dd') if m in sys.modules)\n"
        "    status = main(['axp', sys.argv[1]])\n"
        "axp_loaded = sorted(m for m in ('sklearn', 'scipy', 'dd') if m in sys.modules)\n"
        "print(json.dumps([help_loaded, status, axp_loaded]))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, str(examples_dir / "mux6" / "mux6_0.xpg")],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(proc.stdout) == [[], 0, []]
