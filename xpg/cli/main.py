"""The ``xpg`` command line: the parser, built from the command modules, and the entry point.

Each module of :data:`COMMAND_MODULES` adds its commands with ``register(subparsers)``, in
the order ``xpg --help`` lists them; the helpers they share are in :mod:`xpg.cli.common`.
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
import sys
from collections.abc import Sequence
from types import ModuleType

from xpg import __version__
from xpg.cli import batch, bench, demo, explain, files, membership, verify
from xpg.cli.common import OneLineErrorParser, run_command

#: The modules contributing sub-commands, each with ``register(subparsers)``, in help order.
COMMAND_MODULES: tuple[ModuleType, ...] = (demo, explain, batch, files, membership, verify, bench)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``xpg``."""
    parser = OneLineErrorParser(
        prog="xpg",
        description="Explain classifier decisions with proofs: abductive (AXp) and "
        "contrastive (CXp) explanations of decision trees, lists, diagrams and graphs.",
    )
    parser.add_argument("--version", action="version", version=f"xpg {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module in COMMAND_MODULES:
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``xpg``; returns the exit status (2 for bad input, with a one-line message)."""
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exit_:
        return int(exit_.code or 0)
    return run_command(args)


def entry_point() -> None:
    """Console-script entry: exit with :func:`main`'s status."""
    sys.exit(main())


if __name__ == "__main__":
    entry_point()
