"""A data table made ready for learning: target, missing values, typed features, encodings.

:func:`prepare_table` takes a pandas ``DataFrame`` (or a file :func:`xpg.io.tables.read_table`
reads), picks the target column, drops the rows with a missing value (or the columns with one),
and types every other column as a feature (:func:`xpg.learn.feature_types.infer_feature`).
The result, a :class:`TableData`, gives the rows two ways: in the features' own terms
(:attr:`TableData.values`, what the project's models predict from and what explanations speak
of) and as the numeric matrix a scikit-learn tree is trained on (:attr:`TableData.X`).  A
categorical column becomes a :class:`~xpg.core.feature_space.FeatureGroup`: one 0/1 column per
category (``one-hot``) or one column of category codes (``ordinal``), so that the compiled tree
tests value sets of the original categories; every other feature is one column.

Examples
--------
>>> import pandas as pd
>>> frame = pd.DataFrame({"priors:=0": [1, 0, 1, 0], "colour": ["red", "blue", "red", None],
...                       "age": [31, 45, 52, 28], "y": ["yes", "no", "yes", "no"]})
>>> data = prepare_table(frame, "y")
>>> [(f.name, f.kind) for f in data.features]
[('priors:=0', 'boolean'), ('colour', 'categorical'), ('age', 'integer')]
>>> data.dropped_rows, data.values[0], data.X[0].tolist()
(1, [1, 'red', 31], [1.0, 0.0, 1.0, 31.0])
>>> data.columns
['priors:=0', 'colour=blue', 'colour=red', 'age']
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from xpg.core.feature_space import FeatureGroup, FeatureSpace
from xpg.core.features import Feature
from xpg.errors import InvalidDataError
from xpg.learn.feature_types import as_column, column_values, infer_feature, missing_mask

#: how a table's missing values are handled
MissingPolicy = Literal["drop-rows", "drop-columns"]
#: how a categorical column is laid over a scikit-learn tree's numeric inputs
CategoricalEncoding = Literal["one-hot", "ordinal"]

ENCODINGS: tuple[str, ...] = ("one-hot", "ordinal")
MISSING_POLICIES: tuple[str, ...] = ("drop-rows", "drop-columns")


@dataclass
class TableData:
    """The rows of a table, typed and encoded (see :func:`prepare_table`).

    Attributes
    ----------
    features : list of Feature
        One per feature column, in the table's order.
    entries : list of Feature or FeatureGroup
        How each feature is laid over the numeric columns of :attr:`X`.
    columns : list of str
        The names of the columns of :attr:`X` (distinct; a plain feature's is its name).
    values : list of list
        Each row's feature values, in the features' canonical form.
    X : ndarray of float, shape (rows, len(columns))
    y : ndarray
        The target's values (numbers, or strings).
    target : str
    source_rows, dropped_rows : int
        Rows in the table, and rows dropped for a missing value.
    dropped_columns : list of str
        Feature columns dropped for a missing value (``missing="drop-columns"``).
    """

    features: list[Feature]
    entries: list[Feature | FeatureGroup]
    columns: list[str]
    values: list[list[Any]]
    X: np.ndarray
    y: np.ndarray
    target: str
    source_rows: int
    dropped_rows: int
    dropped_columns: list[str]

    @property
    def space(self) -> FeatureSpace:
        """The features laid over the columns of :attr:`X`."""
        return FeatureSpace(self.entries, self.columns)

    @property
    def classes(self) -> list[Any]:
        """The target's distinct values, sorted (as scikit-learn orders its ``classes_``)."""
        return [v.item() if isinstance(v, np.generic) else v for v in np.unique(self.y)]

    def encode(self, values: list[list[Any]]) -> np.ndarray:
        """Rows of feature values as the numeric matrix of :attr:`columns`."""
        blocks = []
        for j, entry in enumerate(self.entries):
            column = [row[j] for row in values]
            if isinstance(entry, Feature):
                blocks.append(np.asarray(column, dtype=np.float64).reshape(-1, 1))
            else:
                vectors = {v: entry.encode(v) for v in entry.feature.values}
                width = len(entry.columns)
                blocks.append(
                    np.asarray([vectors[v] for v in column], dtype=np.float64).reshape(-1, width)
                )
        return np.hstack(blocks) if blocks else np.empty((len(values), 0))


def prepare_table(
    table: Any,
    target: str,
    *,
    missing: MissingPolicy = "drop-rows",
    encoding: CategoricalEncoding = "one-hot",
) -> TableData:
    """Type and encode a table for learning.

    Parameters
    ----------
    table : pandas.DataFrame or path
        A path is read with :func:`xpg.io.tables.read_table` (CSV, TSV, gzip, JSON Lines,
        Parquet).
    target : str
        The class column.
    missing : {"drop-rows", "drop-columns"}
        Drop the rows with a missing value in some column, or the feature columns with one
        (rows whose target is missing are dropped either way).
    encoding : {"one-hot", "ordinal"}
        How a categorical column becomes numeric columns for a scikit-learn tree.

    Raises
    ------
    InvalidDataError
        No such target column, no feature column, no rows, no row left, an unknown option.
    """
    if missing not in MISSING_POLICIES:
        raise InvalidDataError(
            f"missing: expected one of {', '.join(MISSING_POLICIES)}, found {missing!r}"
        )
    if encoding not in ENCODINGS:
        raise InvalidDataError(
            f"encoding: expected one of {', '.join(ENCODINGS)}, found {encoding!r}"
        )
    if isinstance(table, (str, os.PathLike)):
        from xpg.io.tables import read_table

        table = read_table(table)
    names = [str(c) for c in table.columns]
    if len(set(names)) != len(names):
        dup = sorted({n for n in names if names.count(n) > 1})
        raise InvalidDataError(f"column name(s) {dup} appear more than once")
    if target not in names:
        shown = ", ".join(repr(n) for n in names[:20]) + (" ..." if len(names) > 20 else "")
        raise InvalidDataError(f"no target column named {target!r} (columns: {shown})")
    feature_names = [n for n in names if n != target]
    if not feature_names:
        raise InvalidDataError(
            f"the table has only the target column {target!r}: expected feature columns too"
        )
    columns = {n: table[c] for n, c in zip(names, table.columns, strict=True)}
    holes = {n: missing_mask(columns[n]) for n in names}
    dropped_columns: list[str] = []
    if missing == "drop-columns":
        dropped_columns = [n for n in feature_names if holes[n].any()]
        feature_names = [n for n in feature_names if n not in dropped_columns]
        if not feature_names:
            raise InvalidDataError(
                f"every feature column has a missing value (dropped {len(dropped_columns)})"
            )
    rows = len(table)
    if not rows:
        raise InvalidDataError("the table has no rows: expected at least one row of data")
    if holes[target].all():
        raise InvalidDataError(
            f"no row left: the target column {target!r} is missing in every row ({rows})"
        )
    keep = ~holes[target]
    for n in feature_names:
        keep &= ~holes[n]
    if not keep.any():
        raise InvalidDataError(
            f"no row left: each of the {rows} rows has a missing value"
            " (try dropping the columns with missing values instead)"
        )
    kept = {n: _take(columns[n], keep) for n in [*feature_names, target]}
    features = [infer_feature(n, kept[n]) for n in feature_names]
    by_column = [column_values(f, kept[f.name]) for f in features]
    values = [list(r) for r in zip(*by_column, strict=True)]
    y = _target_array(kept[target])
    entries = _entries(features, encoding)
    data = TableData(
        features=features,
        entries=entries,
        columns=_column_names(entries),
        values=values,
        X=np.empty((0, 0)),
        y=y,
        target=target,
        source_rows=rows,
        dropped_rows=int(rows - keep.sum()),
        dropped_columns=dropped_columns,
    )
    data.X = data.encode(values)
    return data


def _take(column: Any, keep: np.ndarray) -> np.ndarray:
    return as_column(column)[keep]


def _target_array(column: np.ndarray) -> np.ndarray:
    """Numbers stay numbers (integral floats become ints), anything else becomes ``str``."""
    try:
        numbers = column.astype(np.float64)
    except (TypeError, ValueError):
        return np.asarray([str(v) for v in column], dtype=object)
    if column.dtype.kind == "b":
        return column.astype(np.int64)
    if np.isfinite(numbers).all() and (numbers == np.round(numbers)).all():
        return numbers.astype(np.int64)
    return numbers


def _entries(features: list[Feature], encoding: str) -> list[Feature | FeatureGroup]:
    taken = {f.name for f in features}
    out: list[Feature | FeatureGroup] = []
    for f in features:
        if f.kind != "categorical":
            out.append(f)
            continue
        if encoding == "one-hot":
            cols = [_fresh(f"{f.name}={v}", taken) for v in f.values]
            out.append(FeatureGroup.one_hot(f.name, f.values, cols))
        else:
            cells = tuple((frozenset([v]), (float(i),)) for i, v in enumerate(f.values))
            out.append(FeatureGroup(f, (_fresh(f"{f.name}#code", taken),), cells))
    return out


def _fresh(name: str, taken: set[str]) -> str:
    """``name``, or ``name#2``, ``name#3``... : the first not yet taken (then taken)."""
    candidate, k = name, 1
    while candidate in taken:
        k += 1
        candidate = f"{name}#{k}"
    taken.add(candidate)
    return candidate


def _column_names(entries: list[Feature | FeatureGroup]) -> list[str]:
    return [c for e in entries for c in ([e.name] if isinstance(e, Feature) else e.columns)]
