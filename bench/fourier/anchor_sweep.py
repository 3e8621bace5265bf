"""Harmonica-anchor with 2, 4, 8, 16 anchors against Harmonica (the seed paper's Figs. 15-17).

Usage::

    xpg bench fourier-anchors --quick
    python -m bench.fourier.anchor_sweep --out bench/fourier/results

See :mod:`bench.fourier.paper_figures` for the protocol and the paper's numbers.
"""

from __future__ import annotations

from bench.fourier.paper_figures import main_for


def main(argv: list[str] | None = None) -> int:
    return main_for("fourier-anchors", argv)


if __name__ == "__main__":
    raise SystemExit(main())
