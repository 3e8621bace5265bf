"""``xpg bench NAME [options]``: run a benchmark of the checkout's ``bench/`` folder.

The benchmarks are not installed with the package: the command runs ``bench.cli.run`` from
the checkout in the current directory.

Examples
--------
>>> import argparse
>>> parser = argparse.ArgumentParser(prog="xpg")
>>> register(parser.add_subparsers(dest="command"))
>>> args = parser.parse_args(["bench", "table2", "--quick"])
>>> args.func is cmd_bench, args.name, args.options
(True, 'table2', ['--quick'])
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from xpg.cli.common import add_command
from xpg.errors import XpgError


def cmd_bench(args: argparse.Namespace) -> int:
    """Handler of ``xpg bench``: run ``bench.cli.run`` from the checkout in the cwd.

    Raises
    ------
    XpgError
        When the current directory is not the root of a checkout.
    """
    from pathlib import Path  # here: pathlib costs every other command 5 ms of start-up

    root = Path.cwd()
    if not (root / "bench" / "cli.py").is_file():
        raise XpgError(
            f"no bench/cli.py in {root}: run 'xpg bench' from the root of an xpg checkout "
            "(the benchmarks are not installed with the package)"
        )
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    from bench.cli import run  # type: ignore[import-not-found]

    return int(run(args.name, args.options))


def register(subparsers: Any) -> None:
    """Add ``bench`` to the ``xpg`` sub-commands."""
    p = add_command(
        subparsers,
        "bench",
        cmd_bench,
        help="run a benchmark of bench/ (from the repository root)",
        description="Run one of the benchmarks in the repository's bench/ folder, e.g. "
        "'xpg bench table2 --quick'; 'xpg bench NAME --help' lists its options. The benchmarks "
        "are not installed with the package: run from the root of a checkout.",
        file_arguments=False,
        example="xpg bench table2 --quick",
    )
    p.add_argument(
        "name",
        help="table1, table2, peers, pyxai, ensembles, xreason (xpg against XReason on the "
        "AAAI-22 boosted trees), growth, core-speed, membership, ...",
    )
    p.add_argument("options", nargs=argparse.REMAINDER, help="options passed to the benchmark")
