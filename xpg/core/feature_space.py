"""Feature groups: several input columns of a model declared as one feature.

A model trained on encoded data (the one-hot columns of a categorical attribute, the bins
of a discretised one) tests columns; explanations must speak of the original feature, and
freeing it must let it take any of its values, never an impossible combination of
columns (the core paper's remark on binarization).  A :class:`FeatureGroup` says how the
values of one feature become column values: its domain is partitioned into *cells*, each
mapped to one vector of column values.  A condition on a column then becomes the literal
"the feature is in one of the cells whose column value satisfies it"
(:meth:`FeatureGroup.preimage`), which the compilers restrict to the values still possible
on each path.

:class:`FeatureSpace` lays the groups (and plain features, one column each) over a
model's columns.

Examples
--------
>>> import portion as P
>>> colour = FeatureGroup.one_hot("colour", ["red", "green", "blue"])
>>> colour.columns
('colour=red', 'colour=green', 'colour=blue')
>>> colour.encode("green")
(0.0, 1.0, 0.0)
>>> sorted(colour.preimage(1, P.openclosed(-P.inf, 0.5)))   # colour=green <= 0.5
['blue', 'red']
>>> age = FeatureGroup.bins("age", [30, 60])
>>> age.columns, age.encode(45.0)
(('age<=30', '30<age<=60', 'age>60'), (0.0, 1.0, 0.0))

References
----------
Huang, Izza, Ignatiev, Marques-Silva. On Efficiently Explaining Graph-Based Classifiers.
KR 2021, Sec. 2, remark on binarization.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import portion as P

from xpg.core.features import Feature, Literal, ValueSet, _bound, describe_values
from xpg.core.valuesets import as_value_set, union
from xpg.errors import InvalidModelError


def _fmt(x: float) -> str:
    return f"{x:g}"


@dataclass(frozen=True)
class FeatureGroup:
    """One feature encoded as several columns.

    Parameters
    ----------
    feature : Feature
        The original feature (its name is the name explanations use).
    columns : tuple of str
        The column names, in the model's order for this group.
    cells : tuple of (value set, tuple of float)
        A partition of the feature's domain, each cell with its column values.
    """

    feature: Feature
    columns: tuple[str, ...]
    cells: tuple[tuple[ValueSet, tuple[float, ...]], ...]

    def __post_init__(self) -> None:
        f = self.feature
        where = f"feature group {f.name!r}"
        if not self.columns or len(set(self.columns)) != len(self.columns):
            raise InvalidModelError(
                f"{where}: expected distinct column names, found {self.columns}"
            )
        covered: ValueSet = frozenset() if f.is_discrete else P.empty()
        vectors = set()
        for cell, vec in self.cells:
            if len(vec) != len(self.columns):
                raise InvalidModelError(
                    f"{where}: cell {describe_values(f.name, cell)} has {len(vec)} column "
                    f"values, expected {len(self.columns)}"
                )
            if f.is_empty(cell & f.domain_set()):
                raise InvalidModelError(
                    f"{where}: cell {describe_values(f.name, cell)} holds no value of the domain"
                )
            if not f.is_empty(covered & cell):
                raise InvalidModelError(
                    f"{where}: cells overlap on {describe_values(f.name, covered & cell)}"
                )
            if vec in vectors:
                raise InvalidModelError(f"{where}: two cells have the column values {vec}")
            vectors.add(vec)
            covered = covered | cell
        gap = f.domain_set() - covered
        if not f.is_empty(gap):
            raise InvalidModelError(f"{where}: no cell holds {describe_values(f.name, gap)}")

    # -- constructors ----------------------------------------------------------------------------
    @classmethod
    def one_hot(
        cls, name: str, values: Iterable[Any], columns: Sequence[str] | None = None
    ) -> FeatureGroup:
        """A categorical feature with one 0/1 column per value (``name=value`` by default)."""
        values = list(values)
        feature = Feature.categorical(name, values)
        cols = tuple(columns) if columns is not None else tuple(f"{name}={v}" for v in values)
        n = len(values)
        cells = tuple(
            (frozenset([v]), tuple(1.0 if j == i else 0.0 for j in range(n)))
            for i, v in enumerate(values)
        )
        return cls(feature, cols, cells)

    @classmethod
    def bins(
        cls,
        name: str,
        edges: Sequence[float],
        columns: Sequence[str] | None = None,
        *,
        encoding: str = "one-hot",
        kind: str = "real",
        low: float = -math.inf,
        high: float = math.inf,
    ) -> FeatureGroup:
        """A numeric feature cut at ``edges`` into bins ``x <= e1``, ``e1 < x <= e2``, ...

        ``encoding="one-hot"``: one 0/1 column per bin; ``"thermometer"``: one column per edge,
        ``x > e_j``.  ``kind`` is ``"real"`` or ``"integer"``, on ``[low, high]``.
        """
        edges = [float(e) for e in edges]
        if not edges or any(a >= b for a, b in zip(edges, edges[1:])):
            raise InvalidModelError(
                f"feature group {name!r}: expected strictly increasing edges, found {edges}"
            )
        if kind not in ("real", "integer"):
            raise InvalidModelError(f"feature group {name!r}: kind must be real or integer")
        feature = (
            Feature.real(name, low, high) if kind == "real" else Feature.integer(name, low, high)
        )
        bounds = [-math.inf, *edges, math.inf]
        sets = [
            P.openclosed(_bound(lo), _bound(hi)) & feature.domain_set()
            for lo, hi in zip(bounds, bounds[1:])
        ]
        if encoding == "one-hot":
            k = len(sets)
            default = [f"{name}<={_fmt(edges[0])}"]
            default += [f"{_fmt(a)}<{name}<={_fmt(b)}" for a, b in zip(edges, edges[1:])]
            default += [f"{name}>{_fmt(edges[-1])}"]
            vecs = [tuple(1.0 if j == i else 0.0 for j in range(k)) for i in range(k)]
        elif encoding == "thermometer":
            default = [f"{name}>{_fmt(e)}" for e in edges]
            vecs = [
                tuple(1.0 if j < i else 0.0 for j in range(len(edges))) for i in range(len(sets))
            ]
        else:
            raise InvalidModelError(
                f"feature group {name!r}: encoding must be one-hot or thermometer, "
                f"found {encoding!r}"
            )
        cols = tuple(columns) if columns is not None else tuple(default)
        kept = [(s, v) for s, v in zip(sets, vecs, strict=True) if not feature.is_empty(s)]
        return cls(feature, cols, tuple(kept))

    # -- encoding --------------------------------------------------------------------------------
    def cell_of(self, value: Any) -> int:
        """Index of the cell holding ``value`` (checked against the domain)."""
        value = self.feature.check_value(value)
        for i, (cell, _) in enumerate(self.cells):
            if value in cell:
                return i
        raise InvalidModelError(f"feature group {self.feature.name!r}: no cell holds {value!r}")

    def encode(self, value: Any) -> tuple[float, ...]:
        """The column values of a feature value."""
        return self.cells[self.cell_of(value)][1]

    def preimage(self, position: int, allowed: ValueSet | Iterable[float]) -> ValueSet:
        """Feature values whose column ``position`` takes a value in ``allowed``.

        ``allowed`` is a portion interval or a set of column values.
        """
        if isinstance(allowed, P.Interval):
            inside = [cell for cell, vec in self.cells if vec[position] in allowed]
        else:
            admitted = {float(a) for a in allowed}
            inside = [cell for cell, vec in self.cells if vec[position] in admitted]
        return union(self.feature, inside)

    def decode(self, column_values: Sequence[float]) -> ValueSet:
        """The cell (a value set) whose column values are ``column_values``."""
        vec = tuple(float(v) for v in column_values)
        for cell, v in self.cells:
            if v == vec:
                return cell
        raise InvalidModelError(
            f"feature group {self.feature.name!r}: the columns {dict(zip(self.columns, vec))} "
            "match no value of the feature (an impossible combination)"
        )


Entry = Feature | FeatureGroup


class FeatureSpace:
    """Features laid over a model's columns: a plain Feature is one column of its own name.

    Parameters
    ----------
    entries : sequence of Feature or FeatureGroup
        One per feature of the explanations, in feature order.
    columns : sequence of str, optional
        The model's column names, in the model's order; every column must belong to exactly
        one entry.  Default: the entries' columns concatenated.

    Examples
    --------
    >>> space = FeatureSpace([Feature.real("age"), FeatureGroup.one_hot("c", ["a", "b"])],
    ...                      columns=["c=b", "age", "c=a"])
    >>> space.encode({"age": 3.5, "c": "a"})
    [0.0, 3.5, 1.0]
    >>> space.decode([1.0, 7.0, 0.0])
    {'age': 7.0, 'c': 'b'}
    """

    def __init__(self, entries: Sequence[Entry], columns: Sequence[str] | None = None) -> None:
        self.entries = list(entries)
        for e in self.entries:
            if not isinstance(e, (Feature, FeatureGroup)):
                raise InvalidModelError(f"expected a Feature or a FeatureGroup, found {e!r}")
        self.features = [e if isinstance(e, Feature) else e.feature for e in self.entries]
        names = [f.name for f in self.features]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise InvalidModelError(f"feature name(s) {dup} declared more than once")
        own: dict[str, tuple[int, int]] = {}
        for i, e in enumerate(self.entries):
            cols = [e.name] if isinstance(e, Feature) else list(e.columns)
            for pos, c in enumerate(cols):
                if c in own:
                    raise InvalidModelError(f"column {c!r} belongs to two features")
                own[c] = (i, -1 if isinstance(e, Feature) else pos)
        self.columns = list(own) if columns is None else [str(c) for c in columns]
        unknown = [c for c in self.columns if c not in own]
        if unknown:
            raise InvalidModelError(
                f"column(s) {unknown[:10]!r} belong to no declared feature or group"
            )
        unused = [c for c in own if c not in set(self.columns)]
        if unused or len(set(self.columns)) != len(self.columns):
            raise InvalidModelError(
                f"expected every declared column once among the model's columns; "
                f"missing {unused[:10]!r}"
            )
        #: column index -> (feature index, position in its group, -1 for a plain feature)
        self.owner = [own[c] for c in self.columns]

    @property
    def is_identity(self) -> bool:
        """True when every feature is one column of its own."""
        return all(isinstance(e, Feature) for e in self.entries)

    def column_set(self, column: int, allowed: ValueSet) -> ValueSet:
        """Values of the owning feature for which column ``column`` lies in ``allowed``.

        ``allowed`` is a set of column values: a portion interval (or a frozenset for a plain
        discrete feature).
        """
        i, pos = self.owner[column]
        e = self.entries[i]
        if isinstance(e, FeatureGroup):
            return e.preimage(pos, allowed)
        if e.is_discrete:
            if isinstance(allowed, frozenset):
                return frozenset(v for v in e.values if v in allowed)
            return frozenset(v for v in e.values if float(v) in allowed)
        return as_value_set(e, Literal(e.name, allowed)) & e.domain_set()

    def encode(self, instance: Mapping[str, Any]) -> list[Any]:
        """Column values of a feature-level instance (name -> value)."""
        out = []
        for i, pos in self.owner:
            e = self.entries[i]
            value = instance[self.features[i].name]
            out.append(e.encode(value)[pos] if isinstance(e, FeatureGroup) else value)
        return out

    def decode(self, row: Sequence[Any]) -> dict[str, Any]:
        """A feature-level instance from column values.

        For a group, the value of its cell when the cell is one value, otherwise a value
        inside the cell (its upper end when closed, else its lower end when closed, else a
        point strictly inside).
        """
        if len(row) != len(self.columns):
            raise InvalidModelError(f"expected {len(self.columns)} column values, found {len(row)}")
        grouped: dict[int, list[Any]] = {}
        out: dict[str, Any] = {}
        for (i, pos), v in zip(self.owner, row, strict=True):
            e = self.entries[i]
            if isinstance(e, FeatureGroup):
                grouped.setdefault(i, [0.0] * len(e.columns))[pos] = v
            else:
                out[e.name] = e.check_value(v)
        for i, vec in grouped.items():
            e = self.entries[i]
            assert isinstance(e, FeatureGroup)
            out[e.feature.name] = representative(e.feature, e.decode(vec))
        return {f.name: out[f.name] for f in self.features}


def representative(feature: Feature, cell: ValueSet) -> Any:
    """One value of ``feature`` inside ``cell`` (the first one for a discrete feature)."""
    if isinstance(cell, frozenset):
        return next(v for v in feature.values if v in cell)
    for atom in cell:
        lo = -math.inf if atom.lower == -P.inf else float(atom.lower)
        hi = math.inf if atom.upper == P.inf else float(atom.upper)
        if feature.kind == "integer":
            first = (
                lo
                if math.isinf(lo)
                else (math.floor(lo) + 1 if atom.left == P.OPEN else math.ceil(lo))
            )
            last = (
                hi
                if math.isinf(hi)
                else (math.ceil(hi) - 1 if atom.right == P.OPEN else math.floor(hi))
            )
            if first > last:
                continue
            if math.isfinite(last):
                return int(last)
            return int(first) if math.isfinite(first) else 0
        if atom.right == P.CLOSED and math.isfinite(hi):
            return hi
        if atom.left == P.CLOSED and math.isfinite(lo):
            return lo
        if math.isfinite(lo) and math.isfinite(hi):
            return (lo + hi) / 2
        if math.isfinite(hi):
            return hi - 1.0
        if math.isfinite(lo):
            return lo + 1.0
        return 0.0
    raise InvalidModelError(f"feature {feature.name!r}: the cell {cell} is empty")
