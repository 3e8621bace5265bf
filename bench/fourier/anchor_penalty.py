"""Harmonica-anchor-constrained over its penalty lambda (the seed paper's Fig. 18).

Usage::

    xpg bench fourier-penalty --quick
    python -m bench.fourier.anchor_penalty --out bench/fourier/results

See :mod:`bench.fourier.paper_figures` for the protocol and the paper's numbers.
"""

from __future__ import annotations

from bench.fourier.paper_figures import main_for


def main(argv: list[str] | None = None) -> int:
    return main_for("fourier-penalty", argv)


if __name__ == "__main__":
    raise SystemExit(main())
