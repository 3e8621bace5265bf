"""What rows become, shared by the batch routes and the cell cache: a table's values as
values of the model's features (:func:`convert_value`, :func:`column_values`), and records as
JSON Lines text (:func:`encode_records`, :class:`EncodedChunk`).

Examples
--------
>>> from xpg.core.features import Feature
>>> convert_value(Feature.integer("n", 0, 9), "3"), encode_records([{"row": 0}]).rows
(3, 1)
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from xpg.core.features import Feature
from xpg.errors import InvalidInstanceError

#: a record: one row's explanations (or its error), as JSON writes it
Record = dict[str, Any]


def is_missing(value: Any) -> bool:
    """None, NaN, or pandas' NA or NaT."""
    if value is None:
        return True
    if isinstance(value, (float, np.floating)):
        return math.isnan(value)
    return type(value).__name__ in ("NAType", "NaTType")  # pandas' NA and NaT, unimported


def _takes_bools(feature: Feature) -> bool:
    """Whether ``True`` and ``False`` are values of ``feature`` (as themselves or as 1 and 0)."""
    return feature.kind == "boolean" or any(isinstance(v, bool) for v in feature.values)


def convert_value(feature: Feature, value: Any) -> Any:
    """``value`` (a Python, numpy or pandas scalar, or text) as a value of ``feature``.

    >>> import numpy as np
    >>> convert_value(Feature.integer("n", 0, 9), np.float64(3.0))
    3
    >>> convert_value(Feature.categorical("c", [1, 2]), "2")
    2

    A boolean (``True``, ``numpy.True_``) is a value of a boolean feature, or of a
    categorical one declaring booleans, only: ``True`` is not read as 1.

    Raises
    ------
    InvalidInstanceError
        For a missing value (None, NaN), a value outside the feature's domain, a boolean for
        a numeric feature.
    """
    if is_missing(value):
        raise InvalidInstanceError(f"feature {feature.name!r}: missing value (NaN or empty)")
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        value = value.item()  # numpy scalar -> Python
    if isinstance(value, bool) and not _takes_bools(feature):  # true is no 1 (a bool is an int)
        expected = f"one of {list(feature.values)!r}" if feature.is_discrete else "a number"
        raise InvalidInstanceError(
            f"feature {feature.name!r}: expected {expected}, found {value!r}"
        )
    if feature.is_discrete:
        if isinstance(value, str):
            return feature.parse_value(value)
        if isinstance(value, bool) and feature.kind == "boolean":
            value = int(value)
        try:
            return feature.values[feature.code(value)]  # 1.0 -> the declared 1
        except (KeyError, TypeError):
            if isinstance(value, float) and value.is_integer():
                value = int(value)  # 7, not 7.0, when a missing value made the column float
            raise InvalidInstanceError(
                f"feature {feature.name!r}: expected one of {list(feature.values)!r}, "
                f"found {value!r}"
            ) from None
    return feature.check_value(value.strip() if isinstance(value, str) else value)


def column_values(feature: Feature, column: Any) -> tuple[list[Any], np.ndarray]:
    """A pandas column's values as values of ``feature``, checked with numpy when the column
    is numeric, and which of them are good; the others (and every value of a text column)
    are left to :func:`convert_value`, whose error names the value at fault.

    >>> import pandas as pd
    >>> values, ok = column_values(Feature.integer("n", 0, 9), pd.Series([1.0, 2.5, None]))
    >>> values[0], ok.tolist()
    (1, [True, False, False])
    """
    kind = column.dtype.kind
    if kind not in "biuf" or (kind == "b" and not _takes_bools(feature)):
        return column.tolist(), np.zeros(len(column), dtype=bool)
    a = column.to_numpy(dtype=np.float64)
    if feature.is_discrete:
        numeric = [v for v in feature.values if isinstance(v, (int, float))]
        canonical = {float(v): v for v in numeric}
        ok = np.isin(a, np.asarray(numeric, dtype=np.float64))
        return [canonical.get(x) for x in a.tolist()], ok
    with np.errstate(invalid="ignore"):
        ok = np.isfinite(a) & (a >= feature.low) & (a <= feature.high)
        if feature.kind != "integer":
            return a.tolist(), ok
        ok &= a == np.floor(a)
    if kind in "iu":
        return column.tolist(), ok  # exact, beyond 2**53 too
    return np.where(ok, a, 0).astype(np.int64).tolist(), ok


def label_text(value: Any) -> str | None:
    """A ``--target`` value as a record's ``"label"`` (None when missing): ``7.0`` is ``"7"``."""
    if is_missing(value):
        return None
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        value = value.item()
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return str(value)


class EncodedChunk(NamedTuple):
    """The records of a chunk as JSON Lines text, with how many rows and errors it holds,
    how many rows stopped at their budget (``"complete": false``) and the seconds the rows
    took (their records' sum).  With ``path``, the text is in that file instead (written
    by a worker of this machine; the writer copies it in, then removes it)."""

    text: str
    rows: int
    errors: int
    incomplete: int = 0
    seconds: float = 0.0
    path: str = ""


def chunk_counts(records: Sequence[Record]) -> tuple[int, int, float]:
    """Errors, rows stopped at their budget, and seconds, of some records.

    >>> chunk_counts([{"row": 0, "complete": False, "seconds": 0.5}, {"row": 1, "error": "x"}])
    (1, 1, 0.5)
    """
    errors = incomplete = 0
    seconds = 0.0
    for r in records:
        if "error" in r:
            errors += 1
            continue
        incomplete += r.get("complete") is False
        seconds += r.get("seconds", 0.0)
    return errors, incomplete, seconds


def encode_records(records: Sequence[Record]) -> EncodedChunk:
    """Records as JSON Lines (one ``json.dumps`` per line, as ``xpg enum --json`` prints).

    >>> chunk = encode_records([{"row": 3, "error": "bad"}])
    >>> chunk.text, chunk.rows, chunk.errors
    ('{"row": 3, "error": "bad"}\\n', 1, 1)
    """
    text = "".join(json.dumps(r) + "\n" for r in records)
    return EncodedChunk(text, len(records), *chunk_counts(records))


__all__ = [
    "EncodedChunk",
    "Record",
    "chunk_counts",
    "column_values",
    "convert_value",
    "encode_records",
]
