"""The common parameters of tree ensembles in each library's own names
(:func:`ensemble_params`): the share of features tried at a split, the least rows in a leaf,
balanced class weights, the share of rows each boosting round sees and the learning rate.

A library without a parameter is refused in one line rather than given something else:
LightGBM, XGBoost and HistGradientBoosting sample a *fraction* of the features at each
split, not ``sqrt`` of them; XGBoost bounds a leaf's hessian, not its rows;
``GradientBoostingClassifier`` and XGBoost take no class weights; HistGradientBoosting
never subsamples rows.

Examples
--------
>>> ensemble_params("forest", max_features="all", min_samples_leaf=5, class_weight="balanced")
{'max_features': None, 'min_samples_leaf': 5, 'class_weight': 'balanced'}
>>> ensemble_params("lightgbm", max_features=0.5, min_samples_leaf=5, subsample=0.8)
{'feature_fraction_bynode': 0.5, 'min_child_samples': 5, 'subsample': 0.8, 'subsample_freq': 1}
>>> ensemble_params("xgboost", max_features="sqrt")
Traceback (most recent call last):
...
xpg.errors.InvalidParameterError: --max-features sqrt: XGBClassifier samples a fraction of \
the features at each split (colsample_bynode): give a fraction in (0, 1] or all
"""

from __future__ import annotations

import math
from numbers import Integral, Real
from typing import Any

from xpg.errors import InvalidParameterError

#: the words ``max_features`` takes besides a number
MAX_FEATURES_WORDS = ("sqrt", "log2", "all")
#: the words ``class_weight`` takes
CLASS_WEIGHTS = ("balanced", "none")

#: per ensemble kind, its class name and, per common parameter, the library's own name
#: (absent: the library has no such parameter)
_NAMES: dict[str, tuple[str, dict[str, str]]] = {
    "forest": (
        "RandomForestClassifier",
        {
            "max_features": "max_features",
            "min_samples_leaf": "min_samples_leaf",
            "class_weight": "class_weight",
        },
    ),
    "extra-trees": (
        "ExtraTreesClassifier",
        {
            "max_features": "max_features",
            "min_samples_leaf": "min_samples_leaf",
            "class_weight": "class_weight",
        },
    ),
    "boosted": (
        "GradientBoostingClassifier",
        {
            "max_features": "max_features",
            "min_samples_leaf": "min_samples_leaf",
            "subsample": "subsample",
            "learning_rate": "learning_rate",
        },
    ),
    "hist": (
        "HistGradientBoostingClassifier",
        {
            "max_features": "max_features",
            "min_samples_leaf": "min_samples_leaf",
            "class_weight": "class_weight",
            "learning_rate": "learning_rate",
        },
    ),
    "xgboost": (
        "XGBClassifier",
        {
            "max_features": "colsample_bynode",
            "subsample": "subsample",
            "learning_rate": "learning_rate",
        },
    ),
    "lightgbm": (
        "LGBMClassifier",
        {
            "max_features": "feature_fraction_bynode",
            "min_samples_leaf": "min_child_samples",
            "class_weight": "class_weight",
            "subsample": "subsample",
            "learning_rate": "learning_rate",
        },
    ),
}

#: the option of each parameter on ``xpg learn``, for the messages
_OPTIONS = {
    "max_features": "--max-features",
    "min_samples_leaf": "--min-samples-leaf",
    "class_weight": "--class-weight",
    "subsample": "--subsample",
    "learning_rate": "--learning-rate",
}

#: why a library lacks a parameter, in the refusal
_WHY_NOT = {
    ("xgboost", "min_samples_leaf"): "it bounds a leaf's hessian (min_child_weight), not its rows",
    ("boosted", "class_weight"): "it takes no class weights (give sample weights to fit)",
    ("xgboost", "class_weight"): "it takes no class weights (give sample weights to fit)",
    ("hist", "subsample"): "it never subsamples the rows",
}


def parse_max_features(text: str) -> str | int | float:
    """``--max-features``: ``sqrt``, ``log2``, ``all``, an integer (that many features) or a
    fraction in (0, 1] (that share of them).

    >>> parse_max_features("sqrt"), parse_max_features("3"), parse_max_features("0.5")
    ('sqrt', 3, 0.5)

    Raises
    ------
    InvalidParameterError
        For anything else.
    """
    if text in MAX_FEATURES_WORDS:
        return text
    try:
        value: int | float = int(text)
    except ValueError:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
    check_max_features(value, text)
    return value


def check_max_features(value: Any, shown: Any = None) -> None:
    """Raise :class:`~xpg.errors.InvalidParameterError` unless ``value`` is one of
    :data:`MAX_FEATURES_WORDS`, a positive integer or a fraction in (0, 1]."""
    if isinstance(value, str) and value in MAX_FEATURES_WORDS:
        return
    if isinstance(value, Integral) and not isinstance(value, bool) and int(value) >= 1:
        return
    if isinstance(value, Real) and not isinstance(value, (bool, Integral)):
        if 0 < float(value) <= 1:
            return
    raise InvalidParameterError(
        "--max-features: expected sqrt, log2, all, a positive integer or a fraction in "
        f"(0, 1], found {shown if shown is not None else value!r}"
    )


def _fraction(name: str, value: Any) -> float:
    if isinstance(value, Real) and not isinstance(value, bool) and 0 < float(value) <= 1:
        return float(value)
    raise InvalidParameterError(f"{_OPTIONS[name]}: expected a fraction in (0, 1], found {value!r}")


def ensemble_params(
    kind: str,
    *,
    max_features: str | int | float | None = None,
    min_samples_leaf: int | None = None,
    class_weight: str | None = None,
    subsample: float | None = None,
    learning_rate: float | None = None,
) -> dict[str, Any]:
    """The parameters given (None: the library's default) in the names of the estimator of
    ``kind`` (a kind of :func:`~xpg.learn.from_table.learn_ensemble_from_table`).

    Parameters
    ----------
    kind : {"forest", "extra-trees", "boosted", "hist", "xgboost", "lightgbm"}
    max_features : "sqrt", "log2", "all", int or float, optional
        The features tried at each split: ``sqrt`` or ``log2`` of their number, all, that
        many, or that fraction (the boosting libraries but scikit-learn's: a fraction or all).
    min_samples_leaf : int, optional
        The least training rows in a leaf.
    class_weight : "balanced" or "none", optional
        ``balanced``: classes weighted inversely to their frequency.
    subsample, learning_rate : float, optional
        Boosting: the share of the rows each round is fitted on (LightGBM: bagging at every
        round), the shrinkage of each round.

    Raises
    ------
    InvalidParameterError
        A value out of range, or a parameter the library does not have (its reason given).
    """
    if kind not in _NAMES:
        raise InvalidParameterError(
            f"ensemble kind: expected one of {', '.join(_NAMES)}, found {kind!r}"
        )
    name, names = _NAMES[kind]
    given: dict[str, Any] = {}
    if max_features is not None:
        check_max_features(max_features)
        given["max_features"] = max_features
    if min_samples_leaf is not None:
        if (
            isinstance(min_samples_leaf, bool)
            or not isinstance(min_samples_leaf, Integral)
            or min_samples_leaf < 1
        ):
            raise InvalidParameterError(
                f"--min-samples-leaf: expected a positive integer, found {min_samples_leaf!r}"
            )
        given["min_samples_leaf"] = int(min_samples_leaf)
    if class_weight is not None:
        if class_weight not in CLASS_WEIGHTS:
            raise InvalidParameterError(
                f"--class-weight: expected balanced or none, found {class_weight!r}"
            )
        if class_weight == "balanced":  # "none" is every library's default
            given["class_weight"] = "balanced"
    if subsample is not None:
        given["subsample"] = _fraction("subsample", subsample)
    if learning_rate is not None:
        if not (isinstance(learning_rate, Real) and 0 < learning_rate < math.inf):
            raise InvalidParameterError(
                f"--learning-rate: expected a positive number, found {learning_rate!r}"
            )
        given["learning_rate"] = float(learning_rate)
    out: dict[str, Any] = {}
    for param, value in given.items():
        own = names.get(param)
        if own is None:
            why = _WHY_NOT.get((kind, param))
            raise InvalidParameterError(
                f"{_OPTIONS[param]}: {name} has no such parameter" + (f": {why}" if why else "")
            )
        if param == "max_features":
            value = _max_features(kind, name, own, value)
        out[own] = value
    if kind == "lightgbm" and "subsample" in out:
        out["subsample_freq"] = 1  # LightGBM bags rows only when the frequency is positive
    return out


def _max_features(kind: str, name: str, own: str, value: Any) -> Any:
    """``max_features`` as the library takes it: scikit-learn's forests and gradient boosting
    take every form (``all`` is None); the others a fraction (``all`` is 1.0)."""
    if kind in ("forest", "extra-trees", "boosted"):
        return None if value == "all" else value
    if value == "all":
        return 1.0
    if not isinstance(value, (str, Integral)):  # a fraction (checked)
        return float(value)
    raise InvalidParameterError(
        f"--max-features {value}: {name} samples a fraction of the features at each split "
        f"({own}): give a fraction in (0, 1] or all"
    )


__all__ = [
    "CLASS_WEIGHTS",
    "MAX_FEATURES_WORDS",
    "check_max_features",
    "ensemble_params",
    "parse_max_features",
]
