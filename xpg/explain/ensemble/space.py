"""The cells of a tree ensemble's input space, one partition per explained feature.

Every split of every tree compares one column with a threshold, so each explained feature's
domain falls apart into *cells*: the values between two consecutive thresholds the trees use
on it (intersected with the declared domain: bounds, integers, the values of a discrete
feature), or the cells of a :class:`~xpg.core.feature_space.FeatureGroup` (one-hot or binned
columns declared as one feature).  Inside a cell the ensemble cannot tell values apart, so a
choice of one cell per feature decides the leaf of every tree.  A plain feature's cells are
*ordered* (a split sends a prefix of them left); a group's cells are not (a one-hot column
sends one cell one way and the others the other way).

:class:`CellSpace` holds, per feature, the cells, a representative value of each, the
instance's cell, and per tree node the cells that go left; :meth:`CellSpace.rows` turns cell
choices into the model's input rows.

Examples
--------
>>> import numpy as np
>>> from xpg.core.features import Feature
>>> from xpg.models.ensemble import Forest
>>> from xpg.models.ensemble_tree import EnsembleTree
>>> t = EnsembleTree(np.array([0, -1, -1]), np.array([2.5, 0, 0]), np.array([1, -1, -1]),
...                  np.array([2, -1, -1]), np.array([[0, 0], [1.0, 0], [0, 1.0]]))
>>> f = Forest([Feature.integer("n", 0, 9)], ["lo", "hi"], [t], [0.0, 0.0], 1.0)
>>> space = CellSpace(f, {"n": 7})
>>> space.n_cells, space.instance_cell, space.representatives[0]
([2], [1], [2, 9])

The layout, shared by the spaces of the model, holds what does not depend on the instance:
the values of each cell (:meth:`CellLayout.cell_values`) and the leaf each choice of cells
reaches in each tree (:meth:`CellLayout.leaf_indices`).

>>> space.layout.cell_values(0, 0), space.layout.cell_values(0, 1)
([0.0,2.5], (2.5,9.0])
>>> space.layout.leaf_indices(np.array([[0], [1]])).tolist()
[[1], [2]]

References
----------
Izza, Marques-Silva. On Explaining Random Forests with SAT. IJCAI 2021 (one Boolean per
interval between the thresholds of a feature); Huang, Izza, Ignatiev, Marques-Silva. On
Efficiently Explaining Graph-Based Classifiers. KR 2021, remark on binarization.
"""

from __future__ import annotations

import bisect
import math
import weakref
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import portion as P

from xpg.core.feature_space import FeatureGroup, FeatureSpace, representative
from xpg.core.features import Feature, ValueSet, _bound
from xpg.core.graph import DecisionGraph
from xpg.core.instances import instance_dict
from xpg.errors import InvalidGraphError, InvalidInstanceError, InvalidModelError
from xpg.models.ensemble import TreeEnsemble
from xpg.models.ensemble_tree import feature_number, read_by_code


class CellLayout:
    """The part of a :class:`CellSpace` that depends on the model and the groups only: the
    cells of every feature and each tree node's split over them.  It is built once per model
    and groups (:func:`cell_layout`) and shared by the spaces of every instance; ``cache``
    keeps what the explanation oracle derives from it (the trees' leaves over the cells).

    Raises
    ------
    InvalidModelError
        When the groups do not cover the model's features exactly.
    """

    def __init__(
        self, model: TreeEnsemble, groups: Sequence[Feature | FeatureGroup] | None = None
    ) -> None:
        self.model = model
        columns = [f.name for f in model.features]
        self.columns = columns
        if groups is None:
            self.fspace = FeatureSpace(list(model.features))
        else:
            self.fspace = FeatureSpace(list(groups), columns)
            for e in self.fspace.entries:
                if isinstance(e, Feature):
                    own = model.features[columns.index(e.name)]
                    if own != e:
                        raise InvalidModelError(
                            f"feature {e.name!r}: expected the model's own declaration "
                            f"{own!r}, found {e!r}"
                        )
        self.features: list[Feature] = self.fspace.features
        self.names = [f.name for f in self.features]
        #: model column -> (explained feature, position in its group or -1)
        col_of = {c: k for k, c in enumerate(self.fspace.columns)}
        self.owner = [self.fspace.owner[col_of[c]] for c in columns]
        cuts: list[set[float]] = [set() for _ in columns]
        for t in model.trees:
            split = t.left >= 0
            for j, c in zip(t.feature[split].tolist(), t.threshold[split].tolist()):
                cuts[j].add(c)
        self.n_cells: list[int] = []
        self.ordered: list[bool] = []
        self.representatives: list[list[Any]] = []
        #: per feature, per cell: {model column: the value the column takes}
        self.cell_columns: list[list[dict[int, Any]]] = []
        #: per plain feature: the sorted cuts and, per raw interval, its cell (-1: empty)
        self._raw: list[tuple[list[float], list[int]] | None] = []
        for e in self.fspace.entries:
            if isinstance(e, FeatureGroup):
                self._group_cells(e)
            else:
                self._plain_cells(e, sorted(cuts[columns.index(e.name)]))
        self.splits = [self._tree_splits(t) for t in model.trees]
        #: per feature, its cuts and raw cells when its value is its number, else None
        self._plain: list[tuple[list[float], list[int]] | None] = [
            None if isinstance(e, FeatureGroup) or read_by_code(e) else self._raw[i]
            for i, e in enumerate(self.fspace.entries)
        ]
        #: what the explanation oracle derives from the layout, by name
        self.cache: dict[str, Any] = {}

    def _plain_cells(self, f: Feature, cuts: list[float]) -> None:
        j = self.columns.index(f.name)
        bounds = [-np.inf, *cuts, np.inf]
        raw_cell: list[int] = []
        reps: list[Any] = []
        if f.is_discrete:
            members: dict[int, list[Any]] = {}
            for v in f.values:
                members.setdefault(bisect.bisect_left(cuts, feature_number(f, v)), []).append(v)
            for k in range(len(bounds) - 1):
                if k in members:
                    raw_cell.append(len(reps))
                    reps.append(members[k][0])
                else:
                    raw_cell.append(-1)
        else:
            domain = f.domain_set()
            for lo, hi in zip(bounds, bounds[1:]):
                cell = P.openclosed(_bound(float(lo)), _bound(float(hi))) & domain
                if f.is_empty(cell):
                    raw_cell.append(-1)
                else:
                    raw_cell.append(len(reps))
                    reps.append(representative(f, cell))
        self._raw.append((cuts, raw_cell))
        self.n_cells.append(len(reps))
        self.ordered.append(True)
        self.representatives.append(reps)
        self.cell_columns.append([{j: v} for v in reps])

    def _group_cells(self, g: FeatureGroup) -> None:
        where = [self.columns.index(c) for c in g.columns]
        self._raw.append(None)
        self.n_cells.append(len(g.cells))
        self.ordered.append(False)
        self.representatives.append([representative(g.feature, cell) for cell, _ in g.cells])
        self.cell_columns.append(
            [{j: float(x) for j, x in zip(where, vec, strict=True)} for _, vec in g.cells]
        )

    def cell_of(self, i: int, value: Any) -> int:
        """The cell of feature ``i`` holding ``value`` (a value of its domain)."""
        e = self.fspace.entries[i]
        if isinstance(e, FeatureGroup):
            return int(e.cell_of(value))
        raw = self._raw[i]
        assert raw is not None
        cuts, raw_cell = raw
        return raw_cell[bisect.bisect_left(cuts, feature_number(e, value))]

    def cells_of(self, values: Sequence[Any]) -> list[int]:
        """The cell of each feature holding its value of ``values`` (in feature order), as
        :meth:`cell_of`."""
        out = []
        for i, (plain, value) in enumerate(zip(self._plain, values, strict=True)):
            if plain is None:
                out.append(self.cell_of(i, value))
            else:
                out.append(plain[1][bisect.bisect_left(plain[0], float(value))])
        return out

    def cell_values(self, i: int, cell: int) -> ValueSet:
        """The values of feature ``i`` that ``cell`` holds: the values between two consecutive
        thresholds (``low < x <= high``, within the declared domain) for a plain feature, the
        declared cell of a group.  An explanation's condition on the feature is its cell."""
        e = self.fspace.entries[i]
        if isinstance(e, FeatureGroup):
            return e.cells[cell][0]
        raw = self._raw[i]
        assert raw is not None
        cuts, raw_cell = raw
        k = raw_cell.index(cell)
        if e.is_discrete:
            return frozenset(
                v for v in e.values if bisect.bisect_left(cuts, feature_number(e, v)) == k
            )
        lo = cuts[k - 1] if k > 0 else -np.inf
        hi = cuts[k] if k < len(cuts) else np.inf
        return P.openclosed(_bound(float(lo)), _bound(float(hi))) & e.domain_set()

    def _left_cells(self, j: int, cut: float) -> int | frozenset[int]:
        """The cells of column ``j``'s feature that ``x[j] <= cut`` sends left."""
        i, pos = self.owner[j]
        if pos < 0:
            raw = self._raw[i]
            assert raw is not None
            cuts, raw_cell = raw
            m = bisect.bisect_left(cuts, cut)  # raw intervals 0 .. m go left
            return sum(1 for c in raw_cell[: m + 1] if c >= 0)
        cols = self.cell_columns[i]
        return frozenset(k for k in range(self.n_cells[i]) if cols[k][j] <= cut)

    def leaf_indices(self, cells: np.ndarray) -> np.ndarray:
        """The leaf each row of cell choices (shape ``(n_rows, n_features)``) reaches in each
        tree, as :meth:`TreeEnsemble.leaf_indices` gives it for the rows those cells stand
        for, without making the rows: every tree descends at once over the cells."""
        feature, cut, member, left, right, offset, depth = self._cell_nodes()
        cells = np.asarray(cells, dtype=np.int64)
        node = np.broadcast_to(offset, (len(cells), len(offset))).copy()
        for _ in range(depth):
            cell = np.take_along_axis(cells, feature[node], axis=1)
            goes_left = cell < cut[node]
            if member is not None:  # a group's split: a set of cells goes left
                goes_left = np.where(cut[node] < 0, member[node, cell], goes_left)
            node = np.where(goes_left, left[node], right[node])
        return node - offset

    def _cell_nodes(self) -> tuple[Any, ...]:
        """The trees' nodes end to end as :meth:`TreeEnsemble._flat_nodes` lays them, with
        each split over the cells: the explained feature, the first cell going right (-1 for
        a group's split) and, when groups exist, per node the cells going left (built once)."""
        if "cell_nodes" not in self.cache:
            _, _, left, right, offset, depth = self.model._flat_nodes()
            n = len(left)
            feature = np.zeros(n, dtype=np.int64)
            cut = np.full(n, np.iinfo(np.int64).max, dtype=np.int64)  # a leaf: either way
            groups = [k for i, k in enumerate(self.n_cells) if not self.ordered[i]]
            member = np.zeros((n, max(self.n_cells)), dtype=bool) if groups else None
            for base, (feat, lefts) in zip(offset.tolist(), self.splits):
                for k, lc in enumerate(lefts):
                    if lc is None:
                        continue
                    feature[base + k] = feat[k]
                    if isinstance(lc, int):
                        cut[base + k] = lc
                    else:
                        assert member is not None
                        cut[base + k] = -1
                        member[base + k, sorted(lc)] = True
            self.cache["cell_nodes"] = (feature, cut, member, left, right, offset, depth)
        return self.cache["cell_nodes"]

    def _tree_splits(self, t: Any) -> tuple[np.ndarray, list[int | frozenset[int] | None]]:
        feat = np.full(len(t.left), -1, dtype=np.int64)
        left: list[int | frozenset[int] | None] = [None] * len(t.left)
        for n in np.flatnonzero(t.left >= 0).tolist():
            j = int(t.feature[n])
            feat[n] = self.owner[j][0]
            left[n] = self._left_cells(j, float(t.threshold[n]))
        return feat, left


#: per model, its layouts by groups (a model's layout lives as long as the model)
_LAYOUTS: weakref.WeakKeyDictionary[TreeEnsemble, dict[Any, CellLayout]] = (
    weakref.WeakKeyDictionary()
)


def cell_layout(
    model: TreeEnsemble, groups: Sequence[Feature | FeatureGroup] | None = None
) -> CellLayout:
    """The :class:`CellLayout` of ``model`` and ``groups``, built on first use and kept with
    the model (models are not changed once made)."""
    try:
        key = None if groups is None else tuple(groups)
        hash(key)
    except TypeError:
        return CellLayout(model, groups)
    layouts = _LAYOUTS.setdefault(model, {})
    if key not in layouts:
        layouts[key] = CellLayout(model, groups)
    return layouts[key]


class CellSpace:
    """The cells of every explained feature, each tree node's split over them, and the
    instance's cells.

    Parameters
    ----------
    model : TreeEnsemble
    instance : mapping or sequence
        The instance, over the explained features (group names when ``groups`` is given).
    groups : sequence of Feature or FeatureGroup, optional
        The explained features laid over the model's features (its columns): a
        :class:`~xpg.core.feature_space.FeatureGroup` declares several columns as one
        feature.  Default: the model's own features.

    Attributes
    ----------
    layout : CellLayout
        The model-level part, shared by the spaces of one model and groups.
    features : list of Feature
        The explained features.
    n_cells : list of int
        Per feature, the number of cells.
    ordered : list of bool
        Per feature, True when every split sends a prefix of its cells left.
    instance : dict
        The instance, checked.
    instance_cell : list of int
        Per feature, the cell of the instance's value.
    representatives : list of list
        Per feature, one value per cell.
    splits : list of (ndarray, list)
        Per tree, the explained feature of each node (-1 at a leaf) and the cells each node
        sends left: an int ``r`` (cells ``0 .. r-1``) for an ordered feature, a frozenset of
        cells otherwise (None at a leaf).

    Raises
    ------
    InvalidInstanceError
        For a missing, unknown or out-of-domain value of the instance, or a NaN (a missing
        value the model may route, but outside every declared domain).
    InvalidModelError
        When the groups do not cover the model's features exactly.
    """

    def __init__(
        self,
        model: TreeEnsemble,
        instance: Mapping[str, Any] | Sequence[Any],
        groups: Sequence[Feature | FeatureGroup] | None = None,
    ) -> None:
        layout = cell_layout(model, groups)
        self.layout, self.model = layout, model
        self.features, self.names = layout.features, layout.names
        self.n_cells, self.ordered = layout.n_cells, layout.ordered
        self.representatives, self.cell_columns = layout.representatives, layout.cell_columns
        self.splits = layout.splits
        _refuse_missing(self.names, instance)
        checker: Any = layout.cache.get("instance-check")  # instance_dict's, made once
        if checker is None:
            try:
                checker = layout.cache["instance-check"] = DecisionGraph(self.features)
            except InvalidGraphError:
                checker = layout.cache["instance-check"] = False
        if checker is not False:
            self.instance = dict(zip(self.names, checker.instance_values(instance), strict=True))
        else:
            self.instance = instance_dict(self.features, instance)
        self.instance_cell = layout.cells_of([self.instance[n] for n in self.names])
        self._base: np.ndarray | None = None  # the instance's row, made on first need

    @property
    def _base_row(self) -> np.ndarray:
        if self._base is None:
            layout = self.layout
            base = np.empty(len(layout.columns), dtype=object)
            for j in range(len(layout.columns)):
                i, pos = layout.owner[j]
                value = self.instance[self.names[i]]
                base[j] = value if pos < 0 else self.cell_columns[i][self.instance_cell[i]][j]
            self._base = base
        return self._base

    def goes_left(self, i: int, left: int | frozenset[int], cell: int) -> bool:
        """Does ``cell`` of feature ``i`` go left at a split sending ``left`` left?"""
        return cell < left if isinstance(left, int) else cell in left

    # -- rows ----------------------------------------------------------------------------------
    def rows(self, cells: np.ndarray) -> np.ndarray:
        """The model's input rows (object array, one per row of ``cells``: one cell index per
        explained feature)."""
        cells = np.asarray(cells, dtype=np.int64).reshape(-1, len(self.features))
        out = np.tile(self._base_row, (len(cells), 1))
        for i in range(len(self.features)):
            col = cells[:, i]
            if (col == self.instance_cell[i]).all():
                continue
            for j in self.cell_columns[i][0]:
                table = np.empty(self.n_cells[i], dtype=object)
                table[:] = [cc[j] for cc in self.cell_columns[i]]
                out[:, j] = table[col]
        return out

    def values(self, cells: Sequence[int]) -> dict[str, Any]:
        """The explained features' values of one choice of cells: the instance's own value in
        its cell, a representative in the others."""
        out = {}
        for i, (name, c) in enumerate(zip(self.names, cells, strict=True)):
            same = int(c) == self.instance_cell[i]
            out[name] = self.instance[name] if same else self.representatives[i][int(c)]
        return out


def _refuse_missing(names: Sequence[str], instance: Any) -> None:
    """Raise :class:`InvalidInstanceError` naming the first feature whose value is a NaN."""
    if isinstance(instance, Mapping):
        pairs = list(instance.items())
    elif isinstance(instance, str):
        return
    else:
        try:
            pairs = list(zip(names, instance))
        except TypeError:
            return
    for name, v in pairs:
        if isinstance(v, (float, np.floating)) and math.isnan(v):
            raise InvalidInstanceError(
                f"feature {name!r}: expected a value of its domain, found NaN (a missing "
                f"value): explanations range over the declared domains, which have no NaN"
            )


__all__ = ["CellLayout", "CellSpace", "cell_layout"]
