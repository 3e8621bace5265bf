"""A decision graph's literals as flat arrays, and which edges an instance satisfies.

Building the explanation graph of an instance
(:meth:`~xpg.core.xpgraph.ExplanationGraph.from_decision_graph`) labels every edge 1 when the
instance satisfies its literal: one vectorised pass over the :class:`EdgeTable` of the graph,
built once per graph and kept with it.

Examples
--------
>>> from xpg.examples import paper_figure2
>>> dg = paper_figure2()
>>> edge_table(dg).satisfied(dg.features, dg.instance_values([0, 1, 2])).astype(int).tolist()
[0, 1, 0, 1, 0, 1, 1, 0, 1, 0]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import xpg.core.lazy as lazy
from xpg.core.features import Feature

if TYPE_CHECKING:
    import numpy as np

    from xpg.core.graph import DecisionGraph
else:
    np = lazy.module("numpy")


class EdgeTable(NamedTuple):
    """A decision graph's literals as flat arrays, built once per graph (:func:`edge_table`)."""

    src: np.ndarray
    dst: np.ndarray
    # value-set literals on discrete features: one row per admitted value (as a code)
    code_edge: np.ndarray
    code_feature: np.ndarray
    code_value: np.ndarray
    # value-set literals on numeric features: one row per admitted number
    num_edge: np.ndarray
    num_feature: np.ndarray
    num_value: np.ndarray
    # interval literals: one row per atomic interval
    iv_edge: np.ndarray
    iv_feature: np.ndarray
    iv_low: np.ndarray
    iv_high: np.ndarray
    iv_low_closed: np.ndarray
    iv_high_closed: np.ndarray
    terminal_class: np.ndarray  # class index per node, -1 for non-terminals
    node_feature: np.ndarray  # feature index per node, -1 for terminals

    def satisfied(self, features: Sequence[Feature], values: Sequence[Any]) -> np.ndarray:
        """Per edge, True when ``values`` (checked, in feature order) satisfy its literal."""
        codes = np.asarray(
            [f.code(v) if f.is_discrete else -1 for f, v in zip(features, values, strict=True)],
            dtype=np.int64,
        )
        numbers = np.asarray(
            [np.nan if f.is_discrete else float(v) for f, v in zip(features, values, strict=True)],
            dtype=np.float64,
        )
        label = np.zeros(len(self.src), dtype=bool)
        label[self.code_edge[self.code_value == codes[self.code_feature]]] = True
        label[self.num_edge[self.num_value == numbers[self.num_feature]]] = True
        v = numbers[self.iv_feature]
        inside = ((v > self.iv_low) | (self.iv_low_closed & (v == self.iv_low))) & (
            (v < self.iv_high) | (self.iv_high_closed & (v == self.iv_high))
        )
        label[self.iv_edge[inside]] = True
        return label


def edge_table(dg: DecisionGraph) -> EdgeTable:
    """The :class:`EdgeTable` of ``dg``, kept with the graph until it changes."""
    cached = dg._cache.get("edge_table")
    if cached is not None:
        return cached
    code_rows: list[tuple[int, int, int]] = []
    num_rows: list[tuple[int, int, float]] = []
    iv_rows: list[tuple[int, int, float, float, bool, bool]] = []
    for e, (p, _c, lit) in enumerate(dg.edges):
        f = dg._feature[p]
        feature = dg.features[f]
        if feature.is_discrete:
            code_rows += [(e, f, feature.code(v)) for v in lit.allowed if feature.contains(v)]
        elif lit.is_value_set:
            num_rows += [(e, f, float(v)) for v in lit.allowed]
        else:
            iv_rows += [(e, f, *atom) for atom in lit.intervals()]

    def cols(rows: list, dtypes: Sequence[Any]) -> list[np.ndarray]:
        if not rows:
            return [np.zeros(0, dtype=d) for d in dtypes]
        return [np.asarray(col, dtype=d) for col, d in zip(zip(*rows), dtypes, strict=True)]

    columns = [  # in the order of EdgeTable's fields
        np.asarray([p for p, _, _ in dg.edges], dtype=np.int64),
        np.asarray([c for _, c, _ in dg.edges], dtype=np.int64),
        *cols(code_rows, (np.int64, np.int64, np.int64)),
        *cols(num_rows, (np.int64, np.int64, np.float64)),
        *cols(iv_rows, (np.int64, np.int64, np.float64, np.float64, bool, bool)),
        np.asarray(dg._class, dtype=np.int64),
        np.asarray(dg._feature, dtype=np.int64),
    ]
    table = EdgeTable(*columns)
    dg._cache["edge_table"] = table
    return table


__all__ = ["EdgeTable", "edge_table"]
