"""Harmonica against Harmonica-local of radius 4 (the seed paper's Figs. 9-11).

Usage::

    xpg bench fourier-local --quick
    python -m bench.fourier.harmonica_local --out bench/fourier/results

See :mod:`bench.fourier.paper_figures` for the protocol and the paper's numbers.
"""

from __future__ import annotations

from bench.fourier.paper_figures import main_for


def main(argv: list[str] | None = None) -> int:
    return main_for("fourier-local", argv)


if __name__ == "__main__":
    raise SystemExit(main())
