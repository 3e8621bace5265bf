"""The ``xpg`` command line: the parser, built from the command modules, and the entry point.

Each module of :data:`COMMANDS` adds its commands with ``register(subparsers)``, in the
order ``xpg --help`` lists them; the helpers they share are in :mod:`xpg.cli.common`.
Every command that prints results takes ``--json``.  Bad input ends with a one-line
message on standard error and exit status 2, never a traceback.

Examples
--------
>>> main(["--version"])  # doctest: +ELLIPSIS
xpg ...
0
"""

from __future__ import annotations

import argparse
import atexit
import os
import sys
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any, NoReturn

from xpg import __version__
from xpg.cli.common import OneLineErrorParser, run_command

#: The modules of :mod:`xpg.cli` contributing sub-commands (each with ``register(subparsers)``),
#: in the order ``xpg --help`` lists them, with the commands each adds: a command line imports
#: the module of its command alone.
COMMANDS: dict[str, tuple[str, ...]] = {
    "demo": ("demo",),
    "learn": ("learn", "import"),
    "explain": ("axp", "cxp", "enum"),
    "batch": ("explain",),
    "files": ("export", "validate"),
    "membership": ("member", "features", "smallest"),
    "verify": ("verify",),
    "robustness": ("robustness",),
    "draw": ("draw",),
    "report": ("report",),
    "bench": ("bench",),
}


def command_modules(command: str | None = None) -> list[ModuleType]:
    """The command modules, in help order; with ``command``, the one that adds it (all of
    them for a name no module adds)."""
    import importlib

    names = [m for m, commands in COMMANDS.items() if command in commands] or list(COMMANDS)
    return [importlib.import_module(f"xpg.cli.{name}") for name in names]


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The argument parser of ``xpg``; with ``command``, one with that sub-command alone when
    it exists (building every command's parser costs more than ``xpg enum`` on a small
    graph), else the whole parser."""
    parser = OneLineErrorParser(
        prog="xpg",
        description="Explain classifier decisions with proofs: abductive (AXp) and "
        "contrastive (CXp) explanations of decision trees, lists, diagrams and graphs.",
    )
    parser.add_argument("--version", action="version", version=f"xpg {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    target = sub if command is None else _OneCommand(sub, command)
    for module in command_modules(command):
        module.register(target)
    if isinstance(target, _OneCommand) and not target.found:
        return build_parser()
    return parser


class _OneCommand:
    """Sub-parsers that build the parser of one command and skip the others' arguments."""

    def __init__(self, subparsers: Any, command: str) -> None:
        self.subparsers = subparsers
        self.command = command
        self.found = False

    def add_parser(self, name: str, **kwargs: Any) -> Any:
        if name == self.command:
            self.found = True
            return self.subparsers.add_parser(name, **kwargs)
        return _Skipped()


class _Skipped:
    """A parser of a command not on the command line: every call is accepted and ignored."""

    def __getattr__(self, name: str) -> Callable[..., _Skipped]:
        return lambda *args, **kwargs: self


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``xpg``; returns the exit status (2 for bad input, with a one-line message)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    command = argv[0] if argv and not argv[0].startswith("-") else None
    try:
        args = build_parser(command).parse_args(argv)
    except SystemExit as exit_:
        return int(exit_.code or 0)
    return run_command(args)


def entry_point() -> None:
    """Console-script entry: exit with :func:`main`'s status.

    The process then ends without the interpreter's teardown, which frees every object one by
    one (5 ms after ``xpg enum`` on a 10,000-node graph): once the output is flushed and the
    exit handlers have run, and unless a non-daemon thread is still alive (:func:`exit_now`).
    """
    exit_now(main())


def exit_now(status: int) -> NoReturn:
    """End the process with ``status``: flush, run the :mod:`atexit` handlers, then
    ``os._exit``; the usual ``sys.exit`` when a non-daemon thread runs (the interpreter
    would wait for it) or a flush fails.  Daemon threads (Dask's, after ``xpg explain
    --scheduler``) end with the process, as they do at any exit."""
    threading = sys.modules.get("threading")
    if threading is not None and any(
        not t.daemon for t in threading.enumerate() if t is not threading.main_thread()
    ):
        sys.exit(status)
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):  # a closed pipe or stream: let the interpreter report it
        sys.exit(status)
    os._exit(status)


if __name__ == "__main__":
    entry_point()
