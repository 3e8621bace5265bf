"""The cells of a decision graph, for questions about sets of values
(:meth:`~xpg.explain.graph_oracle.GraphOracle.check_cells`): :class:`CellTable` (each
feature cut into the cells its edges' literals cannot tell apart, each edge a set of cells)
and :class:`GraphSpace` (those cells and an instance's, :class:`~xpg.explain.value_cells.
ValueCells`).

Examples
--------
>>> from xpg.examples import and_graph
>>> space = GraphSpace(and_graph(), [1, 0])
>>> space.n_cells, space.instance_cell, space.masks([None, [1]])
([2, 2], [1, 0], [3, 2])
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from xpg.explain.oracle_abc import allowed_cells
from xpg.explain.value_cells import ValueCells


class CellTable:
    """A decision graph's features cut into cells, and its edges as sets of cells (built
    once per graph, :meth:`of`).

    Attributes
    ----------
    cells : list of list of value sets
        Per feature, the cells its edges' literals cannot tell apart, in value order.
    out : list of list of (int, int, int)
        Per node, its edges as ``(child, feature, cells)``, the cells a bit mask.
    again : list of int
        Per node, the bit mask of the features tested at or below it.
    root : int
    """

    def __init__(self, dg: Any) -> None:
        from xpg.core.valuesets import as_value_set, feature_cells

        features = dg.features
        sets: list[list[Any]] = [[] for _ in features]
        literal_sets: dict[Any, Any] = {}
        for _, _, lit in dg.edges:
            if lit not in literal_sets:
                i = dg.feature_index[lit.feature]
                literal_sets[lit] = as_value_set(features[i], lit)
                sets[i].append(literal_sets[lit])
        self.cells = [feature_cells(f, s) for f, s in zip(features, sets, strict=True)]
        masks: dict[Any, int] = {}
        for lit, allowed in literal_sets.items():
            i = dg.feature_index[lit.feature]
            f = features[i]
            masks[lit] = sum(
                1 << c for c, cell in enumerate(self.cells[i]) if f.is_empty(cell - allowed)
            )
        n = len(dg)
        node_feature = [-1] * n
        self.out: list[list[tuple[int, int, int]]] = [[] for _ in range(n)]
        for p, c, lit in dg.edges:
            i = dg.feature_index[lit.feature]
            node_feature[p] = i
            self.out[p].append((c, i, masks[lit]))
        self.root = dg.index_of(dg.root)
        self.again = _tested_below(self.out, node_feature, self.root)

    @classmethod
    def of(cls, dg: Any) -> CellTable:
        """The table of ``dg``, kept in its cache (which any change to the graph clears): a
        batch asks about many rows of one model."""
        found: CellTable | None = dg._cache.get("cell_table")
        if found is None:
            found = dg._cache["cell_table"] = cls(dg)
        return found

    def other_class_path(
        self,
        masks: list[int],
        terminal_value: Sequence[int],
        check_deadline: Callable[[], Any] | None = None,
    ) -> list[tuple[int, int]] | None:
        """The edges ``(feature, cells)`` of a path to a terminal of another class
        (``terminal_value`` 0) on which each feature keeps a cell of ``masks``, or None.

        Depth-first over states: a node with, for each feature narrowed on the way and
        tested again at or below it, the cells still possible (none on read-once graphs:
        each node is then visited once; else their number can grow exponentially, hence
        ``check_deadline``, called every 1,024 states, which raises to stop)."""
        start: tuple[int, tuple[tuple[int, int], ...]] = (self.root, ())
        parent: dict[tuple[int, tuple[tuple[int, int], ...]], Any] = {start: None}
        stack = [start]
        visited = 0
        while stack:
            visited += 1
            if check_deadline is not None and not visited % 1024:
                check_deadline()
            state = stack.pop()
            n, narrowed = state
            if terminal_value[n] == 0:
                path = []
                while parent[state] is not None:
                    state, step = parent[state]
                    path.append(step)
                return path[::-1]
            here: dict[int, int] = dict(narrowed)
            for c, i, edge in self.out[n]:
                left = here.get(i, masks[i]) & edge
                if not left:
                    continue
                again = self.again[c]
                kept = {**here, i: left} if again >> i & 1 else here
                child = (c, tuple(sorted((k, v) for k, v in kept.items() if again >> k & 1)))
                if child not in parent:
                    parent[child] = (state, (i, left))
                    stack.append(child)
        return None


def _tested_below(
    out: list[list[tuple[int, int, int]]], feature: list[int], root: int
) -> list[int]:
    """Per node, the bit mask of the features tested at it or below it (children first, by
    an iterative depth-first post-order from the root)."""
    below = [0] * len(out)
    done = [False] * len(out)
    stack = [(root, False)]
    while stack:
        n, ready = stack.pop()
        if ready:
            mask = 1 << feature[n] if feature[n] >= 0 else 0
            for c, _, _ in out[n]:
                mask |= below[c]
            below[n], done[n] = mask, True
            continue
        if done[n]:
            continue
        stack.append((n, True))
        stack.extend((c, False) for c, _, _ in out[n] if not done[c])
    return below


class GraphSpace(ValueCells):
    """The cells of a decision graph's features (:class:`CellTable`) and an instance's
    (:class:`ValueCells`): the space of :meth:`GraphOracle.check_cells`.

    Attributes
    ----------
    dg : DecisionGraph
    table : CellTable
    """

    def __init__(self, dg: Any, values: Sequence[Any]) -> None:
        self.dg = dg
        self.table = CellTable.of(dg)
        names = [f.name for f in dg.features]
        super().__init__(dg.features, self.table.cells, dict(zip(names, values, strict=True)))

    def masks(self, allowed: Sequence[Iterable[int] | None]) -> list[int]:
        """Each feature's allowed cells as a bit mask (None: every cell), checked
        (:func:`~xpg.explain.oracle_abc.allowed_cells`)."""
        chosen = allowed_cells(self.names, self.n_cells, allowed)
        return [sum(1 << c for c in cells) for cells in chosen]

    def witness(self, masks: list[int], path: list[tuple[int, int]]) -> list[int]:
        """One cell per feature on ``path``: the instance's when the path allows it, else
        the first the path allows."""
        left = list(masks)
        for i, cells in path:
            left[i] &= cells
        out = []
        for i, mask in enumerate(left):
            own = self.instance_cell[i]
            out.append(own if mask >> own & 1 else (mask & -mask).bit_length() - 1)
        return out


__all__ = ["CellTable", "GraphSpace"]
