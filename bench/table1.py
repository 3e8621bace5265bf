"""Rebuild the core paper's Table 1: every AXp and CXp of OBDDs compiled from decision lists.

Usage: ``python -m bench.table1 [--learner ripper|cn2] [--quick] [--data-dir D] [--out DIR]
[--datasets a,b]``.  Decision lists are learned with RIPPER (``xpg.learn``, the default) or,
with ``--learner cn2``, as the paper did: ordered CN2 lists learned by Orange3 (in an
environment of its own, created on first use: :mod:`xpg.learn.cn2`), each shown beside
RIPPER's list for the same dataset.  Lists are compiled into reduced OBDDs with dd
(:func:`bench.models.train_obdd`, :func:`bench.models.train_cn2_obdd`); every compiled CN2
OBDD must predict Orange's own class on every row of its dataset, and the run stops
otherwise.  The dbworld datasets of the paper are not available.  Writes ``table1.csv``,
``table1_instances.csv`` and ``table1.md`` (``table1_cn2.*`` with ``--learner cn2``; see
:mod:`bench.tables`).

References
----------
Huang, Izza, Ignatiev, Marques-Silva. On Efficiently Explaining Graph-Based Classifiers.
KR 2021, Table 1.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from bench.data import TABLE1
from bench.models import train_cn2_obdd, train_obdd
from bench.paper_tables import TABLE1 as PAPER_TABLE1
from bench.tables import Learners, run_table

#: the decision-list learners of ``--learner``
LEARNERS = ("ripper", "cn2")


def _options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--learner",
        choices=LEARNERS,
        default="ripper",
        help="ripper (default), or cn2: the paper's CN2 lists (Orange3) beside RIPPER's",
    )


def _learners(args: argparse.Namespace) -> Learners:
    if args.learner == "ripper":
        return Learners("table1", "", {"ripper": train_obdd})
    note = (
        "CN2: Orange3's CN2Learner with its defaults, as in the paper; every compiled CN2 OBDD "
        "predicts Orange's own class on every row of its dataset (checked; the run stops "
        "otherwise)."
    )
    return Learners(
        "table1_cn2", " (RIPPER / CN2)", {"ripper": train_obdd, "cn2": train_cn2_obdd}, note
    )


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
        options=_options,
        learners=_learners,
    )


if __name__ == "__main__":
    sys.exit(main())
