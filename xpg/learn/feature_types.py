"""Feature domains inferred from data columns, and column values in each feature's terms.

A column of 0/1 values is boolean, a column of integers is an integer feature on its observed
range, other numbers make a real feature (unbounded), anything else (strings) a categorical
feature whose values are the sorted distinct strings.  Columns may be numpy arrays or pandas
``Series`` (numeric, ``bool``, ``object`` or ``string`` dtypes).

Once a model is learned, :func:`declare_domains` gives the domains its file declares: the
features it tests keep the learned ones (an explanation lets a freed feature take any value
of its domain, so the observed range keeps explanations about the values the data has: a
score from 1 to 10 is not freed to -5); the features it does not test take their kind's whole
range (:func:`widened_feature`), since no answer of the model, explanations included, depends
on them: a new row may hold any number there.

Examples
--------
>>> import numpy as np
>>> [f.kind for f in infer_features(np.array([[0, 3, 1.5], [1, 5, 2.0]]), ["a", "b", "c"])]
['boolean', 'integer', 'real']
>>> colour = infer_feature("colour", np.array(["red", "blue", "red"], dtype=object))
>>> colour.values, column_values(colour, np.array(["red", "blue"], dtype=object))
(('blue', 'red'), ['red', 'blue'])
>>> column_values(Feature.boolean("b"), np.array([True, False]))
[1, 0]
>>> widened = [widened_feature(Feature.integer("n", 0, 10)), widened_feature(Feature.boolean("b"))]
>>> [(f.kind, f.low, f.high) for f in widened]
[('integer', -inf, inf), ('integer', -inf, inf)]

References
----------
Huang et al. KR 2021, Sec. 2 (feature domains: boolean, categorical, integer, real).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from xpg.core.features import Feature
from xpg.errors import InvalidDataError, InvalidInstanceError, InvalidModelError


def infer_feature(name: str, column: Any) -> Feature:
    """A feature for one column: {0, 1} -> boolean, integers -> integer on the observed
    range, other numbers -> real (unbounded), anything else -> categorical (sorted values).

    Missing entries (``None``, NaN, pandas' ``NA``) are ignored."""
    column = as_column(column)
    values = column[~missing_mask(column)]
    if values.size == 0:
        raise InvalidModelError(f"column {name!r}: no value (every entry is missing)")
    try:
        numbers = values.astype(np.float64)
    except (TypeError, ValueError):
        return Feature.categorical(name, sorted({str(v) for v in values}))
    if not np.isfinite(numbers).all():
        raise InvalidDataError(f"column {name!r}: expected finite numbers, found an infinity")
    if np.isin(numbers, (0.0, 1.0)).all():
        return Feature.boolean(name)
    if (numbers == np.round(numbers)).all():
        return Feature.integer(name, float(numbers.min()), float(numbers.max()))
    return Feature.real(name)


def infer_features(X: Any, names: Sequence[str]) -> list[Feature]:
    """One inferred feature per column of ``X`` (see :func:`infer_feature`)."""
    X = np.asarray(X)
    if X.ndim != 2 or X.shape[1] != len(names):
        raise InvalidModelError(
            f"expected a 2-D array with {len(names)} columns (one per name), found shape {X.shape}"
        )
    return [infer_feature(str(n), X[:, j]) for j, n in enumerate(names)]


def column_values(feature: Feature, column: Any) -> list[Any]:
    """The entries of a column as values of ``feature``, in canonical form: booleans and
    integers as ``int``, reals as ``float``, categories as the ``str`` the feature declares
    (so that a column typed by :func:`infer_feature` round-trips).

    Raises
    ------
    InvalidDataError
        For an entry outside the feature's domain (the message names the column and value).
    """
    column = as_column(column)
    if not feature.is_discrete or feature.kind == "boolean":
        fast = _numeric_values(feature, column)
        if fast is not None:
            return fast
    out = []
    for v in column.tolist():
        if feature.kind == "categorical" and not _declared(feature, v):
            v = str(v)
        elif feature.kind == "boolean" and isinstance(v, (bool, float, str)):
            v = _number_or_self(v)
        try:
            out.append(feature.check_value(v))
        except InvalidInstanceError as err:
            raise InvalidDataError(f"column {feature.name!r}: {err}") from None
    return out


def _numeric_values(feature: Feature, column: np.ndarray) -> list[Any] | None:
    """The canonical values of a numeric column, vectorised; None when some entry is not a
    number in the domain (the caller then checks entry by entry, and names the bad one)."""
    try:
        numbers = column.astype(np.float64)
    except (TypeError, ValueError):
        return None
    with np.errstate(invalid="ignore"):
        ok = np.isfinite(numbers) & (numbers >= feature.low) & (numbers <= feature.high)
        if feature.kind != "real":
            ok &= numbers == np.round(numbers)
    if feature.kind == "boolean":
        ok = np.isin(numbers, (0.0, 1.0))
    if not ok.all():
        return None
    if feature.kind == "real":
        return numbers.tolist()
    return numbers.astype(np.int64).tolist()


def missing_mask(column: Any) -> np.ndarray:
    """Which entries of a column are missing (``None``, NaN, pandas' ``NA`` or ``NaT``)."""
    column = as_column(column)
    if column.dtype.kind == "f":
        return np.isnan(column)
    if column.dtype.kind == "O":
        return np.fromiter((_is_missing(v) for v in column), bool, len(column))
    return np.zeros(len(column), dtype=bool)


def as_column(column: Any) -> np.ndarray:
    """A column (numpy array, pandas ``Series``, sequence) as a numpy array; pandas' extension
    dtypes (``string``, nullable integers) become object arrays with ``None`` where missing."""
    if hasattr(column, "to_numpy"):  # a pandas Series: extension dtypes become object arrays
        dtype = column.dtype
        if getattr(dtype, "kind", "O") in "biuf" and isinstance(dtype, np.dtype):
            return np.asarray(column.to_numpy())
        return np.asarray(column.to_numpy(dtype=object, na_value=None))
    return np.asarray(column)


def _is_missing(v: Any) -> bool:
    if v is None:
        return True
    if isinstance(v, float):
        return math.isnan(v)
    return type(v).__name__ in ("NAType", "NaTType")


def _declared(feature: Feature, v: Any) -> bool:
    try:
        return v in feature.values and not isinstance(v, bool)
    except TypeError:
        return False


def _number_or_self(v: Any) -> Any:
    if isinstance(v, bool):
        return int(v)
    try:
        number = float(v)
    except ValueError:
        return v
    return int(number) if number in (0.0, 1.0) else v


def widened_feature(feature: Feature) -> Feature:
    """The widest feature of ``feature``'s kind that reads the same column: every integer for an
    integer or a boolean (0/1) feature, every real for a real one; a categorical feature as it
    is (no domain holds every string)."""
    if feature.kind in ("integer", "boolean"):
        return Feature.integer(feature.name)
    if feature.kind == "real":
        return Feature.real(feature.name)
    return feature


def _named_features(body: Any) -> set[str]:
    """Every name under a ``"feature"`` key of a model's JSON body (its literals' features)."""
    found: set[str] = set()
    stack = [body]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if isinstance(item.get("feature"), str):
                found.add(item["feature"])
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def declare_domains(model: Any) -> Any:
    """``model`` with the domains a learned model's file declares: each feature some literal of
    the model tests keeps its domain; each other one is widened (:func:`widened_feature`).

    The model's function, its explanations (which never hold an untested feature) and its
    verification are unchanged: no literal reads a widened feature.  What changes is that an
    instance may hold any value of its kind there (``px1=12`` where the table held 0 to 10).

    Examples
    --------
    >>> from xpg.core.features import Literal
    >>> from xpg.models.risk_score import RiskScore
    >>> card = RiskScore([Feature.integer("age", 18, 90), Feature.integer("px1", 0, 10)],
    ...                  [0, 1], [(Literal.gt("age", 60), 2)], bias=-1)
    >>> [(f.name, f.low, f.high) for f in declare_domains(card).features]
    [('age', 18.0, 90.0), ('px1', -inf, inf)]

    Raises
    ------
    InvalidModelError
        When the model does not read back from its JSON form (it was not valid).
    """
    from xpg.io.model_json import model_to_dict, read_model_dict

    doc = model_to_dict(model)
    tested = (
        set(model.tested_features())
        if hasattr(model, "tested_features")
        else _named_features(doc["model"])
    )
    features = [f if f.name in tested else widened_feature(f) for f in model.features]
    if features == list(model.features):
        return model
    doc["features"] = [f.to_json() for f in features]
    return read_model_dict(doc)
