"""An estimator whose prediction is its library's own (:func:`check_library_predict`).

xpg reads a trained classifier's trees and computes what its library's ``predict`` computes
from them.  A subclass that overrides ``predict`` (a 0.9 threshold on ``predict_proba``, say),
or one of the methods it is made of, predicts something else from the same trees: explaining
the trees would explain another classifier, silently.  Such an estimator is refused.

Examples
--------
>>> from sklearn.ensemble import RandomForestClassifier
>>> class Cautious(RandomForestClassifier):
...     def predict(self, X):
...         return (self.predict_proba(X)[:, 1] >= 0.9).astype(int)
>>> check_library_predict(RandomForestClassifier())  # the library's own: nothing said
>>> check_library_predict(Cautious())
Traceback (most recent call last):
...
xpg.errors.InvalidModelError: Cautious: expected the predict of scikit-learn's \
RandomForestClassifier, found it overridden in Cautious (xpg reproduces only the library's own \
predict, predict_proba, predict_log_proba and decision_function)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from xpg.errors import InvalidModelError

#: the methods a classifier predicts with: one overridden, and the trees say something else
PREDICT_METHODS: tuple[str, ...] = (
    "predict",
    "predict_proba",
    "predict_log_proba",
    "decision_function",
)
#: the libraries whose classes xpg reproduces, by top-level module, as the messages name them
LIBRARIES: dict[str, str] = {
    "sklearn": "scikit-learn",
    "xgboost": "XGBoost",
    "lightgbm": "LightGBM",
}


def library_class(obj: Any) -> type | None:
    """The first class of scikit-learn, XGBoost or LightGBM among the bases of ``obj``'s
    class (that class included), or None: what an importer recognises a subclass by.

    >>> from sklearn.ensemble import RandomForestClassifier
    >>> class Mine(RandomForestClassifier):
    ...     pass
    >>> library_class(Mine()).__name__, library_class(3)
    ('RandomForestClassifier', None)
    """
    return next((c for c in type(obj).__mro__ if c.__module__.split(".")[0] in LIBRARIES), None)


def check_library_predict(
    estimator: Any, methods: Iterable[str] = PREDICT_METHODS, where: str | None = None
) -> None:
    """Refuse ``estimator`` unless each of ``methods`` it has is its library's own: defined by
    a class of scikit-learn, XGBoost or LightGBM (:data:`LIBRARIES`), not by a subclass
    elsewhere nor on the instance.

    A subclass that keeps the library's methods (one that only adds a convenience, or
    another package's subclass such as imbalanced-learn's forests) is accepted: it predicts
    what the library predicts.

    Parameters
    ----------
    estimator : object
    methods : iterable of str
        Default :data:`PREDICT_METHODS`; a pipeline's encoders: ``("transform",)``.
    where : str, optional
        What to name in the message (default: the estimator's class).

    Raises
    ------
    InvalidModelError
        Naming the class and the first method overridden.
    """
    cls = type(estimator)
    name = where or cls.__name__
    methods = tuple(methods)
    base = library_class(estimator)
    if base is None:
        return  # not a library's class: the importers refuse it for what it is
    library = LIBRARIES[base.__module__.split(".")[0]]
    listed = ", ".join(methods[:-1]) + (" and " if len(methods) > 1 else "") + methods[-1]
    instance = getattr(estimator, "__dict__", {})
    for method in methods:
        if method in instance:
            raise InvalidModelError(
                f"{name}: expected the {method} of {library}'s {base.__name__}, found one "
                f"set on the instance (xpg reproduces only the library's own {listed})"
            )
        owner = next((c for c in cls.__mro__ if method in vars(c)), None)
        if owner is not None and owner.__module__.split(".")[0] not in LIBRARIES:
            raise InvalidModelError(
                f"{name}: expected the {method} of {library}'s {base.__name__}, found it "
                f"overridden in {owner.__name__} (xpg reproduces only the library's own "
                f"{listed})"
            )


__all__ = ["LIBRARIES", "PREDICT_METHODS", "check_library_predict", "library_class"]
