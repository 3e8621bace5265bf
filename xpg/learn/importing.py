"""One entry for every trained classifier xpg reads: :func:`import_model`.

A file is recognised by its content, never by its name (:func:`file_format`): XGBoost's JSON or
UBJSON model (``save_model``), LightGBM's text model (``save_model``), a skops file, a pickle.
An object is recognised by its class: an XGBoost ``Booster`` or ``XGBClassifier``, a LightGBM
``Booster`` or ``LGBMClassifier``, scikit-learn's ``HistGradientBoostingClassifier``, a
``Pipeline`` (``ColumnTransformer`` then a tree model), a ``DecisionTreeClassifier``,
``RandomForestClassifier``, ``ExtraTreesClassifier`` or ``GradientBoostingClassifier``.  Reading
an XGBoost or LightGBM *file* needs neither library.

Examples
--------
>>> from sklearn.ensemble import HistGradientBoostingClassifier
>>> X, y = [[0.0, 1.0], [1.0, 0.0], [1.0, 1.0], [0.0, 0.0]] * 10, [0, 1, 1, 0] * 10
>>> hgb = HistGradientBoostingClassifier(max_iter=5, random_state=0).fit(X, y)
>>> model = import_model(hgb, ["a", "b"])
>>> [f.name for f in model.features], model.predict({"a": 1.0, "b": 0.0})
(['a', 'b'], 1)
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from xpg.core.features import Feature
from xpg.errors import InvalidModelError
from xpg.learn.estimator_import import (
    ESTIMATOR_CLASSES,
    features_from_table,
    load_estimator,
    order_features,
    table_features,
)

#: what :func:`file_format` answers, and what each is
FILE_FORMATS: dict[str, str] = {
    "xgboost-json": "an XGBoost JSON model (Booster.save_model)",
    "xgboost-ubjson": "an XGBoost UBJSON model (Booster.save_model)",
    "lightgbm": "a LightGBM text model (Booster.save_model)",
    "skops": "a scikit-learn estimator saved with skops",
    "pickle": "a pickle or joblib file",
}

SUPPORTED_TEXT = (
    "an XGBoost Booster or XGBClassifier, a LightGBM Booster or LGBMClassifier, a "
    "HistGradientBoostingClassifier, a Pipeline (ColumnTransformer then a tree model), a "
    + ", ".join(c for _, c in ESTIMATOR_CLASSES)
    + ", or a file of one of them"
)


def file_format(data: bytes) -> str | None:
    """Which of :data:`FILE_FORMATS` the bytes ``data`` (a file's start will do) are, or None.

    >>> file_format(b'{"learner": {"attributes": {}}, "version": [3, 1, 0]}')
    'xgboost-json'
    >>> file_format(b"tree\\nversion=v4\\nnum_class=1\\n"), file_format(b"hello")
    ('lightgbm', None)
    """
    from xpg.models.import_lightgbm import looks_like_lightgbm
    from xpg.models.import_xgboost import looks_like_xgboost

    if looks_like_xgboost(data):
        return "xgboost-json" if data.lstrip()[1:].lstrip()[:1] == b'"' else "xgboost-ubjson"
    if looks_like_lightgbm(data):
        return "lightgbm"
    if data[:4] == b"PK\x03\x04":
        return "skops"
    if data[:1] == b"\x80":
        return "pickle"
    return None


def import_model(
    source: Any,
    features: Sequence[Feature | str] | None = None,
    *,
    features_from: Any = None,
    target: str | None = None,
    trust_pickle: bool = False,
) -> Any:
    """A trained classifier (an object or a file, see the module docstring) as an xpg model
    that predicts exactly what the classifier predicts.

    Parameters
    ----------
    source : estimator, booster, pipeline, path or bytes
    features : sequence of Feature or of names, optional
        One per input column, in order.  Default: the model's own names (``f0, f1, ...`` or
        ``x0, x1, ...`` when it has none), real features (category features as the model
        declares them).
    features_from : pandas.DataFrame or path, optional
        A table whose columns name and type the features (matched by name when the model has
        names, else in order, less ``target``).
    target : str, optional
        The class column of ``features_from``.
    trust_pickle : bool
        Allow unpickling a pickle or joblib file (runs the file's code).

    Raises
    ------
    InvalidModelError
        An unknown file or object, a model that does not fit the features.
    UnsupportedModelError
        A model xpg cannot reproduce exactly (a regression objective, linear trees, ...).
    """
    if features is not None and features_from is not None:
        raise InvalidModelError("give the features or a table to name them from, not both")
    if isinstance(source, (str, os.PathLike, bytes)):
        return _import_file(source, features, features_from, target, trust_pickle)
    return _import_object(source, features, features_from, target)


def _import_file(
    source: str | os.PathLike[str] | bytes,
    features: Sequence[Feature | str] | None,
    features_from: Any,
    target: str | None,
    trust_pickle: bool,
) -> Any:
    if isinstance(source, bytes):
        data, where = source, "the model bytes"
    else:
        path = Path(source)
        if not path.is_file():
            raise InvalidModelError(f"{path}: no such model file")
        data, where = path.read_bytes(), str(path)
    kind = file_format(data)
    if kind is None:
        raise InvalidModelError(
            f"{where}: not a model file xpg reads (expected "
            + "; ".join(FILE_FORMATS.values())
            + ")"
        )
    if kind in ("skops", "pickle"):
        if isinstance(source, bytes):
            raise InvalidModelError(f"{where}: give a skops or pickle model as a file path")
        estimator = load_estimator(source, trust_pickle=trust_pickle, any_supported=True)
        return _import_object(estimator, features, features_from, target)
    read = _file_reader(kind)
    given = source if isinstance(source, bytes) else Path(source)  # a path: errors name it
    if features_from is None:
        return read(given, features)
    # first the model's own names and number of inputs, then the table's columns for them
    names = [f.name for f in read(given, None).features]
    return read(given, _table_features(names, features_from, target))


def _file_reader(kind: str) -> Any:
    if kind.startswith("xgboost"):
        from xpg.models.import_xgboost import read_xgboost

        return read_xgboost
    from xpg.models.import_lightgbm import read_lightgbm

    return read_lightgbm


def _import_object(
    estimator: Any,
    features: Sequence[Feature | str] | None,
    features_from: Any,
    target: str | None,
) -> Any:
    from xpg.core.library_predict import library_class

    # a subclass is read as its library's class: each reader then refuses one that overrides
    # how it predicts (xpg.core.library_predict)
    base = library_class(estimator)
    module = "" if base is None else base.__module__.split(".")[0]
    name = type(estimator).__name__ if base is None else base.__name__
    if module in ("xgboost", "lightgbm"):
        reader = _file_reader(module)
        if features_from is None:
            return reader(estimator, features)
        names = [f.name for f in reader(estimator, None).features]
        return reader(estimator, _table_features(names, features_from, target))
    if module != "sklearn":
        raise InvalidModelError(
            f"expected {SUPPORTED_TEXT}; found {type(estimator).__module__}.{name}"
        )
    if name == "Pipeline":
        from xpg.models.import_pipeline import read_pipeline

        if features_from is not None:
            raise InvalidModelError(
                "a Pipeline names its own columns: give features, or none, not a table"
            )
        return read_pipeline(estimator, None if features is None else _as_features(features))
    if name == "HistGradientBoostingClassifier":
        from xpg.models.import_hist import read_hist_gradient_boosting

        if features_from is not None:
            return read_hist_gradient_boosting(
                estimator, features_from_table(estimator, features_from, target)
            )
        return read_hist_gradient_boosting(
            estimator, None if features is None else _as_features(features)
        )
    from xpg.core.library_predict import check_library_predict
    from xpg.learn.estimator_import import check_estimator, import_sklearn_model

    check_estimator(estimator)
    check_library_predict(estimator)
    declared: list[Feature] | None = None
    if features_from is not None:
        declared = features_from_table(estimator, features_from, target)
    elif features is not None:
        declared = order_features(estimator, _as_features(features))
    return import_sklearn_model(estimator, features=declared)


def _as_features(features: Sequence[Feature | str]) -> list[Feature]:
    return [f if isinstance(f, Feature) else Feature.real(str(f)) for f in features]


def _table_features(names: list[str], table: Any, target: str | None) -> list[Feature]:
    """The features ``names`` typed from ``table``'s columns: by name when the table has them
    all, else the table's columns in order (less ``target``): a model's default names
    ``f0, f1, ...`` are not the table's."""
    if isinstance(table, (str, os.PathLike)):
        from xpg.io.tables import read_table

        table = read_table(table)
    named = set(names) <= {str(c) for c in table.columns}
    return table_features(names if named else None, len(names), table, target)


__all__ = ["FILE_FORMATS", "file_format", "import_model"]
