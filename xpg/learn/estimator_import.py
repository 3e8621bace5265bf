"""Trained scikit-learn trees and tree ensembles from files: skops (safe) or pickle (trusted only).

:func:`load_estimator` reads a fitted estimator saved with skops (recognised by content, a zip
archive): the types skops does not trust by default (:func:`skops.io.get_untrusted_types`) are
accepted only when each is a class of scikit-learn's tree, ensemble, loss, pipeline, compose or
preprocessing packages or of numpy (:func:`expected_type`); anything else (functions included)
is refused, naming the types, and nothing is loaded.  A pickle or joblib file is loaded only
with ``trust_pickle=True``: unpickling runs whatever code the file asks for.

:func:`import_sklearn_tree` turns a tree into the project's
:class:`~xpg.models.tree.DecisionTree`, :func:`import_sklearn_model` any of the four into the
project's model (a tree, or a :class:`~xpg.models.ensemble.Forest` or
:class:`~xpg.models.ensemble.BoostedTrees`) over declared features: typed from the columns of a
data table (as :mod:`xpg.learn.from_table` types them), from a list of features in the JSON
model vocabulary, or real features named after ``feature_names_in_`` (``x0, x1, ...`` when the
estimator was fitted without column names).

Examples
--------
>>> import tempfile, pathlib, skops.io
>>> from sklearn.tree import DecisionTreeClassifier
>>> clf = DecisionTreeClassifier(max_depth=2, random_state=0).fit([[0, 1], [1, 0], [1, 1]],
...                                                              ["a", "b", "b"])
>>> path = pathlib.Path(tempfile.mkdtemp()) / "tree.skops"
>>> skops.io.dump(clf, path)
>>> tree = import_sklearn_tree(path)
>>> [f.name for f in tree.features], tree.predict({"x0": 1.0, "x1": 0.0})
(['x0', 'x1'], 'b')
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from xpg.core.features import Feature
from xpg.core.json_body import feature_from_dict
from xpg.errors import InvalidDataError, InvalidModelError, MissingExtraError, ParseError
from xpg.learn.feature_types import infer_feature

#: the modules whose classes a skops file of a decision tree or tree ensemble may ask to trust
EXPECTED_MODULES: tuple[str, ...] = (
    "sklearn.tree",
    "sklearn.ensemble",
    "sklearn._loss",
    "sklearn.pipeline",
    "sklearn.compose",
    "sklearn.preprocessing",
    "numpy",
)
#: the scikit-learn classifiers ``xpg import`` reads, by module
ESTIMATOR_CLASSES: tuple[tuple[str, str], ...] = (
    ("sklearn.tree", "DecisionTreeClassifier"),
    ("sklearn.ensemble", "RandomForestClassifier"),
    ("sklearn.ensemble", "ExtraTreesClassifier"),
    ("sklearn.ensemble", "GradientBoostingClassifier"),
)


def load_estimator(
    path: str | os.PathLike[str], *, trust_pickle: bool = False, any_supported: bool = False
) -> Any:
    """The fitted classifier saved in ``path``: a skops file, or a pickle/joblib file when
    ``trust_pickle`` (recognised by content: a zip archive or a pickle stream).  Without
    ``any_supported`` it must be one of :data:`ESTIMATOR_CLASSES`; with it, any object, which
    :func:`xpg.learn.importing.import_model` then recognises or refuses.

    Raises
    ------
    InvalidModelError
        No such file, neither skops nor pickle, a pickle without ``trust_pickle``, a skops file
        asking to trust anything but classes of :data:`EXPECTED_MODULES`, an unreadable file,
        or (without ``any_supported``) an object that is not a fitted single-output
        classifier of :data:`ESTIMATOR_CLASSES`.
    MissingExtraError
        A skops file without skops installed.
    """
    source = Path(path)
    if not source.is_file():
        raise InvalidModelError(f"{source}: no such estimator file")
    with open(source, "rb") as f:
        head = f.read(4)
    if head == b"PK\x03\x04":
        estimator = _load_skops(source)
    elif head[:1] == b"\x80":
        if not trust_pickle:
            raise InvalidModelError(
                f"{source}: refusing to unpickle: loading a pickle runs any code its author "
                "put in it; save the estimator with skops.io.dump, or pass --trust-pickle "
                "(trust_pickle=True) if you trust the file"
            )
        estimator = _load_pickle(source)
    else:
        raise InvalidModelError(
            f"{source}: unknown estimator file (expected a skops file, or a pickle/joblib "
            "file with --trust-pickle)"
        )
    return estimator if any_supported else check_estimator(estimator, str(source))


def _load_skops(source: Path) -> Any:
    try:
        import skops.io as sio
    except ImportError:
        raise MissingExtraError(
            "reading .skops files needs skops: pip install -e '.[scale]' from a clone of xpg"
        ) from None
    try:
        untrusted = sio.get_untrusted_types(file=source)
    except Exception as err:  # a corrupt zip or schema: skops raises many kinds
        raise InvalidModelError(f"{source}: not a skops file: {_first_line(err)}") from None
    unexpected = [t for t in untrusted if not expected_type(t)]
    if unexpected:
        raise InvalidModelError(
            f"{source}: refusing to load: the file asks to trust types that a tree or tree "
            f"ensemble does not need: {', '.join(sorted(unexpected))}"
        )
    try:
        return sio.load(source, trusted=untrusted)
    except Exception as err:
        raise InvalidModelError(f"{source}: cannot load: {_first_line(err)}") from None


def expected_type(name: str) -> bool:
    """True when ``name`` (``module.Class``, as skops lists it) is a class of scikit-learn's
    tree, ensemble, loss, pipeline, compose or preprocessing packages or of numpy: functions
    and other packages' types are not.

    >>> expected_type("sklearn.tree._tree.Tree"), expected_type("numpy.float64")
    (True, True)
    >>> expected_type("numpy.load"), expected_type("fractions.Fraction")
    (False, False)
    """
    import importlib

    module, _, attribute = name.rpartition(".")
    if not any(module == m or module.startswith(m + ".") for m in EXPECTED_MODULES):
        return False
    try:
        obj = getattr(importlib.import_module(module), attribute)
    except (ImportError, AttributeError):
        return False
    return isinstance(obj, type)


def _load_pickle(source: Path) -> Any:
    import joblib

    try:
        return joblib.load(source)
    except Exception as err:  # unpickling can raise anything
        raise InvalidModelError(f"{source}: cannot unpickle: {_first_line(err)}") from None


def _first_line(err: BaseException) -> str:
    text = str(err).strip()
    return text.splitlines()[0] if text else type(err).__name__


def check_estimator(estimator: Any, where: str = "estimator") -> Any:
    """``estimator`` when it is a fitted single-output classifier of :data:`ESTIMATOR_CLASSES`
    that predicts as its class does (a subclass overriding ``predict`` is refused:
    :func:`~xpg.core.library_predict.check_library_predict`)."""
    import importlib

    from xpg.core.library_predict import check_library_predict

    classes = tuple(getattr(importlib.import_module(m), c) for m, c in ESTIMATOR_CLASSES)
    if not isinstance(estimator, classes):
        kind = f"{type(estimator).__module__}.{type(estimator).__qualname__}"
        names = ", ".join(c for _, c in ESTIMATOR_CLASSES)
        raise InvalidModelError(f"{where}: expected one of {names}, found {kind}")
    check_library_predict(estimator)
    name = type(estimator).__name__
    fitted = "tree_" if isinstance(estimator, classes[0]) else "estimators_"
    if getattr(estimator, fitted, None) is None:
        raise InvalidModelError(f"{where}: the {name} is not fitted")
    if getattr(estimator, "n_outputs_", 1) != 1:
        raise InvalidModelError(
            f"{where}: expected a single-output classifier, found {estimator.n_outputs_} outputs"
        )
    return estimator


def features_from_table(estimator: Any, table: Any, target: str | None = None) -> list[Feature]:
    """The estimator's features typed from the columns of a table (a ``DataFrame`` or a file
    :func:`xpg.io.tables.read_table` reads).

    Columns are matched by ``feature_names_in_`` when the estimator has it, otherwise they are
    the table's columns in order, less ``target`` (:func:`table_features`).
    """
    names_in = getattr(estimator, "feature_names_in_", None)
    names = None if names_in is None else [str(c) for c in names_in]
    return table_features(names, int(estimator.n_features_in_), table, target)


def table_features(
    names: Sequence[str] | None, n: int, table: Any, target: str | None = None
) -> list[Feature]:
    """``n`` features typed from the columns of ``table`` (a ``DataFrame`` or a file): the
    columns ``names``, or without names the table's columns in order, less ``target``.

    Raises
    ------
    InvalidModelError
        A named column is absent, the number of columns is wrong, or a column holds strings
        (a tree model's inputs are numbers).
    """
    if isinstance(table, (str, os.PathLike)):
        from xpg.io.tables import read_table

        table = read_table(table)
    columns = {str(c): table[c] for c in table.columns}
    if target is not None and target not in columns:
        raise InvalidDataError(f"no target column named {target!r} in the data")
    if names is not None:
        absent = [c for c in names if c not in columns]
        if absent:
            raise InvalidModelError(
                f"the model was fitted on columns the data lacks: {absent[:10]!r}"
            )
    else:
        names = [c for c in columns if c != target]
        if len(names) != n:
            hint = "" if target is not None else " (give the target column to leave it out)"
            raise InvalidModelError(
                f"expected {n} feature columns (the model's inputs), "
                f"found {len(names)} in the data{hint}"
            )
    features = [infer_feature(c, columns[c]) for c in names]
    text = [f.name for f in features if f.kind == "categorical"]
    if text:
        raise InvalidModelError(
            f"column(s) {text[:10]!r} hold text, but the model reads numbers: "
            "declare the features with a feature list instead"
        )
    return features


def read_feature_spec(path: str | os.PathLike[str]) -> list[Feature]:
    """Features from a JSON file: a list of features in the JSON model vocabulary
    (``{"name": ..., "type": ...}``, see ``docs/model-format.md``), or an object with such a
    ``"features"`` list (a model file's)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise ParseError(f"cannot read: {err}", path=str(path)) from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as err:
        raise ParseError(f"malformed JSON: {err.msg}", path=str(path), line=err.lineno) from None
    if isinstance(doc, dict) and "features" in doc:
        doc = doc["features"]
    if not isinstance(doc, list) or not doc:
        raise ParseError("expected a non-empty JSON list of features", path=str(path))
    try:
        return [feature_from_dict(d, f"features[{i}]") for i, d in enumerate(doc)]
    except InvalidModelError as err:
        raise InvalidModelError(f"{path}: {err}") from None


def order_features(estimator: Any, features: Sequence[Feature]) -> list[Feature]:
    """``features`` in the estimator's column order (by ``feature_names_in_`` when it has it).

    Raises
    ------
    InvalidModelError
        The wrong number of features, or names other than the estimator's columns.
    """
    n = int(estimator.n_features_in_)
    features = list(features)
    if len(features) != n:
        raise InvalidModelError(
            f"expected {n} features (the estimator's inputs), found {len(features)}"
        )
    names_in = getattr(estimator, "feature_names_in_", None)
    if names_in is None:
        return features
    by_name = {f.name: f for f in features}
    names = [str(c) for c in names_in]
    if set(by_name) != set(names):
        raise InvalidModelError(
            f"expected features named as the estimator's columns {names[:10]!r}, "
            f"found {[f.name for f in features][:10]!r}"
        )
    return [by_name[c] for c in names]


def import_sklearn_tree(
    source: Any,
    *,
    features: Sequence[Feature] | None = None,
    features_from: Any = None,
    target: str | None = None,
    trust_pickle: bool = False,
) -> Any:
    """A trained scikit-learn tree as the project's :class:`~xpg.models.tree.DecisionTree`.

    Parameters
    ----------
    source : path or DecisionTreeClassifier
        A ``.skops`` file, a pickle/joblib file (with ``trust_pickle``), or the estimator.
    features : sequence of Feature, optional
        The domains, one per input column (see :func:`order_features`).
    features_from : pandas.DataFrame or path, optional
        A table whose columns type the features (see :func:`features_from_table`).
    target : str, optional
        The class column of ``features_from``, left out of the features.
    trust_pickle : bool
        Allow unpickling (runs the file's code).

    Returns
    -------
    DecisionTree
        Predicts what the estimator predicts on every input of the features' domains.
    """
    from xpg.models.tree import tree_from_sklearn

    return tree_from_sklearn(
        *_estimator_and_features(
            source, trust_pickle, features=features, features_from=features_from, target=target
        )
    )


def _estimator_and_features(
    source: Any,
    trust_pickle: bool = False,
    *,
    features: Sequence[Feature] | None = None,
    features_from: Any = None,
    target: str | None = None,
) -> tuple[Any, list[Feature] | None]:
    """The estimator (loaded from a file, with ``trust_pickle``, or checked) and its
    declared features, if any (the parameters of :func:`import_sklearn_tree`)."""
    if features is not None and features_from is not None:
        raise InvalidModelError("give the features or a table to type them from, not both")
    if isinstance(source, (str, os.PathLike)):
        estimator = load_estimator(source, trust_pickle=trust_pickle)
    else:
        estimator = check_estimator(source)
    if features_from is not None:
        return estimator, features_from_table(estimator, features_from, target)
    if features is not None:
        return estimator, order_features(estimator, features)
    return estimator, None


def import_sklearn_model(source: Any, **options: Any) -> Any:
    """A trained scikit-learn tree or tree ensemble as the project's model.

    Parameters (``source`` and the keyword ``options``: ``features``, ``features_from``,
    ``target``, ``trust_pickle``) as for :func:`import_sklearn_tree`; ``source`` may also hold
    a ``RandomForestClassifier``, ``ExtraTreesClassifier`` or ``GradientBoostingClassifier``.

    Returns
    -------
    DecisionTree, Forest or BoostedTrees
        Predicts what the estimator predicts on every input of the features' domains.

    Examples
    --------
    >>> import tempfile, pathlib, skops.io
    >>> from sklearn.ensemble import RandomForestClassifier
    >>> rf = RandomForestClassifier(n_estimators=3, random_state=0).fit([[0], [1]] * 3, [0, 1] * 3)
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "forest.skops"
    >>> skops.io.dump(rf, path)
    >>> forest = import_sklearn_model(path)
    >>> forest.json_type, len(forest.trees), forest.predict({"x0": 1.0})
    ('forest', 3, 1)
    """
    from sklearn.tree import DecisionTreeClassifier

    from xpg.models.ensemble_import import ensemble_from_sklearn
    from xpg.models.tree import tree_from_sklearn

    estimator, declared = _estimator_and_features(source, **options)
    if isinstance(estimator, DecisionTreeClassifier):
        return tree_from_sklearn(estimator, declared)
    return ensemble_from_sklearn(estimator, declared)
