"""What the tests of the batch routes share: a random graph's rows in chunks, and records
without their ``"seconds"`` (the one field that differs from run to run)."""

from __future__ import annotations

import os
from typing import Any

import pandas as pd

from xpg.explain.batch import BatchExplainer
from xpg.explain.engine import Explainer
from xpg.explain.records import Record
from xpg.testing import ClassTable, random_decision_graph


def frames_of(dg: Any, size: int, copies: int = 1) -> list[pd.DataFrame]:
    """Every point of ``dg``'s class table (``copies`` times), in frames of ``size`` rows."""
    points = ClassTable.of_graph(dg).points() * copies
    frame = pd.DataFrame(points, columns=[f.name for f in dg.features])
    return [frame.iloc[i : i + size] for i in range(0, len(frame), size)]


def strip_seconds(chunks: Any) -> list[Record]:
    """The records of ``chunks``, in order, without ``"seconds"``."""
    return [{k: v for k, v in r.items() if k != "seconds"} for c in chunks for r in c]


def batch_case() -> tuple[BatchExplainer, list[pd.DataFrame]]:
    """A random DAG's batch explainer and its rows in frames of 7."""
    dg = random_decision_graph(3, "dag")
    return BatchExplainer(Explainer(dg), kinds="axp,cxp,features"), frames_of(dg, 7)


class KillingExplainer(BatchExplainer):
    """Kills its worker process on every task holding row 13 (a crash, not an exception)."""

    def explain_chunk(self, frame: Any) -> list[Record]:
        if 13 in frame.index:
            os._exit(3)
        return super().explain_chunk(frame)
