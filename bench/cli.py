"""``xpg bench NAME [options]``: one entry point for every benchmark of this folder.

``bench/`` is not installed with the package; ``xpg/cli/main.py`` imports this module only from a
checkout (the repository root on ``sys.path``) and otherwise tells the user to run from one
(``python -m bench.<name>`` in the repository root).

Examples
--------
>>> BENCHMARKS["table2"], "robustness" in BENCHMARKS
('bench.table2', True)
>>> try:
...     run("nope", [])
... except UnknownBenchmarkError as err:
...     print(err)  # doctest: +ELLIPSIS
unknown benchmark 'nope'; expected one of batch, compile, core-speed, ...
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence

from xpg.errors import XpgError

#: benchmark name -> module whose ``main(argv)`` runs it (returns an exit status or None)
BENCHMARKS: dict[str, str] = {
    "table1": "bench.table1",
    "table2": "bench.table2",
    "peers": "bench.peers_compare",
    "pyxai": "bench.pyxai_compare",
    "ensembles": "bench.ensembles",
    "xreason": "bench.xreason.compare",
    "growth": "bench.growth",
    "core-speed": "bench.core_speed",
    "traversal": "bench.traversal_speed",
    "compile": "bench.compile.compile_speed",
    "membership": "bench.membership.membership_speed",
    "probabilistic": "bench.probabilistic.table2",
    "probabilistic-exact": "bench.probabilistic.exact_trees",
    "probabilistic-parity": "bench.probabilistic.parity",
    "probabilistic-sweep": "bench.probabilistic.sweep",
    "fourier-error": "bench.fourier.interpretation_error",
    "fourier-recovery": "bench.fourier.polynomial_recovery",
    "fourier-truthful-gap": "bench.fourier.truthful_gap",
    "fourier-local": "bench.fourier.harmonica_local",
    "fourier-anchors": "bench.fourier.anchor_sweep",
    "fourier-penalty": "bench.fourier.anchor_penalty",
    "fourier-lowdegree": "bench.fourier.lowdegree_samples",
    "reading": "bench.reading_speed",
    "risk": "bench.risk.table3",
    "risk-speed": "bench.risk_speed",
    "risk-tradeoff": "bench.risk.tradeoff",
    "separation": "bench.risk.table2",
    "robustness": "bench.robustness_speed",
    "batch": "bench.batch_speed",
    "report": "bench.report_speed",
    "hard-forests": "bench.hard_forests",
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
    try:
        status = module.main(list(argv))
    except SystemExit as exit_:  # argparse: --help, or bad options (usage already printed)
        return exit_.code if isinstance(exit_.code, int) else 2
    return int(status or 0)
