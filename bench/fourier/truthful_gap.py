"""Truthful gap of each explainer up to degree C (the seed paper's Table 1, Figs. 12-14).

Usage::

    xpg bench fourier-truthful-gap --quick
    python -m bench.fourier.truthful_gap --out bench/fourier/results

See :mod:`bench.fourier.paper_figures` for the protocol and the paper's numbers.
"""

from __future__ import annotations

from bench.fourier.paper_figures import main_for


def main(argv: list[str] | None = None) -> int:
    return main_for("fourier-truthful-gap", argv)


if __name__ == "__main__":
    raise SystemExit(main())
