"""Low-degree at 1 to 5 times Harmonica's sample size (the seed paper's Fig. 19).

Usage::

    xpg bench fourier-lowdegree --quick
    python -m bench.fourier.lowdegree_samples --out bench/fourier/results

See :mod:`bench.fourier.paper_figures` for the protocol and the paper's numbers.
"""

from __future__ import annotations

from bench.fourier.paper_figures import main_for


def main(argv: list[str] | None = None) -> int:
    return main_for("fourier-lowdegree", argv)


if __name__ == "__main__":
    raise SystemExit(main())
