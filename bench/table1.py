"""Rebuild the core paper's Table 1: every AXp and CXp of OBDDs compiled from decision lists.

Usage: ``python -m bench.table1 [--quick] [--data-dir D] [--out DIR] [--datasets a,b]``.
Decision lists are learned with RIPPER (``xpg.learn``; the paper used Orange3's CN2) and
compiled into reduced OBDDs with dd (:func:`bench.models.train_obdd`).  The dbworld
datasets of the paper are not available.  Writes ``table1.csv``, ``table1_instances.csv``
and ``table1.md`` (see :mod:`bench.tables`).

References
----------
Huang, Izza, Ignatiev, Marques-Silva. On Efficiently Explaining Graph-Based Classifiers.
KR 2021, Table 1.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from bench.data import TABLE1
from bench.models import train_obdd
from bench.paper_tables import TABLE1 as PAPER_TABLE1
from bench.tables import run_table


def main(argv: Sequence[str] | None = None) -> int:
    """Run Table 1 (``argv`` as on the command line)."""
    return run_table(
        argv,
        prog="python -m bench.table1",
        stem="table1",
        title="Table 1: all AXps and CXps of OBDDs (decision lists compiled with dd)",
        datasets=TABLE1,
        train=train_obdd,
        paper=PAPER_TABLE1,
    )


if __name__ == "__main__":
    sys.exit(main())
