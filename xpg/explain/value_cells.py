"""The space of an oracle over cells that are value sets: :class:`ValueCells`.

A decision list's oracle and a decision graph's (for :meth:`~xpg.explain.oracle_abc.Oracle.
check_cells`) ask about each feature's *cells*, the sets of values its tests cannot tell
apart, and answer with one cell per feature, which becomes an input: the instance's own value
in the instance's cell, a representative in the others.  The cells come from the model (the
rules' conditions, the graph's edges); the rest is here once.

Examples
--------
>>> from xpg.core.features import Feature
>>> from xpg.core.valuesets import feature_cells
>>> import portion as P
>>> n = Feature.integer("n", 0, 9)
>>> space = ValueCells([n], [feature_cells(n, {P.closed(5, 9)})], {"n": 7})
>>> space.n_cells, space.instance_cell, space.values([0]), space.values([1])
([2], [1], {'n': 4}, {'n': 7})
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from xpg.core.feature_space import representative
from xpg.core.features import Feature, ValueSet


class ValueCells:
    """Each feature's cells (value sets, in value order) and the instance's.

    Parameters
    ----------
    features : sequence of Feature
    cells : sequence of list of value sets
        Per feature, its cells; together they cover its domain.
    instance : mapping
        The instance's values, by feature name (each in one cell of its feature).

    Attributes
    ----------
    features, names, cells, instance
    n_cells, instance_cell : list of int
    representatives : list of list
        Per feature and cell, a value of the cell (:func:`~xpg.core.feature_space.representative`).
    layout : ValueCells
        The space itself (what an ensemble's space calls its layout: :meth:`cell_values`).
    """

    def __init__(
        self,
        features: Sequence[Feature],
        cells: Sequence[list[ValueSet]],
        instance: Mapping[str, Any],
    ) -> None:
        self.layout = self
        self.features: list[Feature] = list(features)
        self.names = [f.name for f in self.features]
        self.cells: list[list[ValueSet]] = list(cells)
        self.instance = dict(instance)
        self.n_cells = [len(c) for c in self.cells]
        self.instance_cell = [self.cell_of(i, self.instance[n]) for i, n in enumerate(self.names)]
        self.representatives = [
            [representative(f, cell) for cell in cs]
            for f, cs in zip(self.features, self.cells, strict=True)
        ]

    def cell_of(self, i: int, value: Any) -> int:
        """The cell of feature ``i`` that holds ``value`` (a value of its domain)."""
        return next(j for j, cell in enumerate(self.cells[i]) if value in cell)

    def cell_values(self, i: int, cell: int) -> ValueSet:
        """The values of feature ``i`` that ``cell`` holds."""
        return self.cells[i][cell]

    def values(self, cells: Sequence[int]) -> dict[str, Any]:
        """The features' values of one choice of cells: the instance's own value in its
        cell, a representative in the others."""
        return {
            name: self.instance[name]
            if int(c) == self.instance_cell[i]
            else self.representatives[i][int(c)]
            for i, (name, c) in enumerate(zip(self.names, cells, strict=True))
        }


__all__ = ["ValueCells"]
