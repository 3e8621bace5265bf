"""``xpg bench NAME [options]``: one entry point for every benchmark of this folder.

``bench/`` is not installed with the package; ``xpg/cli.py`` imports this module only from a
checkout (the repository root on ``sys.path``) and otherwise tells the user to run from one
(``python -m bench.<name>`` in the repository root).

Examples
--------
>>> sorted(BENCHMARKS)
['core-speed', 'growth', 'peers', 'pyxai', 'table1', 'table2']
>>> run("nope", [])  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
bench.cli.UnknownBenchmarkError: unknown benchmark 'nope'; expected one of core-speed, ...
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence

from xpg.errors import XpgError

#: benchmark name -> module whose ``main(argv) -> int`` runs it
BENCHMARKS: dict[str, str] = {
    "table1": "bench.table1",
    "table2": "bench.table2",
    "peers": "bench.peers_compare",
    "pyxai": "bench.pyxai_compare",
    "growth": "bench.growth",
    "core-speed": "bench.core_speed",
}


class UnknownBenchmarkError(XpgError, ValueError):
    """``xpg bench`` was given a name that is not a benchmark."""


def run(name: str, argv: Sequence[str]) -> int:
    """Run benchmark ``name`` with command-line options ``argv``; its exit status."""
    if name not in BENCHMARKS:
        raise UnknownBenchmarkError(
            f"unknown benchmark {name!r}; expected one of {', '.join(sorted(BENCHMARKS))}"
        )
    module = importlib.import_module(BENCHMARKS[name])
    status: int = module.main(list(argv))
    return status
