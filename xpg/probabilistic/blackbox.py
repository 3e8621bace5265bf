"""Any classifier as a black box: a prediction function with a feature specification.

A :class:`BlackBox` wraps a callable on 2-D numpy arrays, any object with a scikit-learn
style ``predict`` method, or a compiled :class:`~xpg.core.graph.DecisionGraph`.  The explainers
of this package only query its predictions; when the wrapper also carries a compiled graph
computing the same function (:meth:`BlackBox.from_graph`,
:meth:`BlackBox.from_sklearn_tree`), precision can be computed exactly instead of sampled.

Examples
--------
>>> import numpy as np
>>> from xpg.core.features import Feature
>>> features = [Feature.boolean(f"x{i}") for i in range(3)]
>>> parity = BlackBox(lambda X: (X[:, 0] != X[:, 1]).astype(int), features, classes=[0, 1])
>>> parity.predict(np.array([[0, 1, 0], [1, 1, 0]])).tolist()
[1, 0]
>>> counted = QueryCounter(parity)
>>> _ = counted(np.zeros((5, 3)))
>>> counted.n_queries
5

References
----------
Koriche, Lagniez, Mengel, Tran. Learning Model Agnostic Explanations via Constraint
Programming, section 2 (black boxes with query access).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any

import numpy as np

from xpg.compile.sklearn_tree import from_sklearn_tree
from xpg.core.features import Feature
from xpg.core.graph import DecisionGraph
from xpg.errors import InvalidModelError, XpgError
from xpg.models.protocol import CompiledModel, Model
from xpg.probabilistic.distributions import feature_tuple, instance_row, matrix_dtype


class BlackBox:
    """A classifier known only through its predictions, with its feature specification.

    Parameters
    ----------
    model : callable, estimator or model kind
        A function mapping an ``(n, d)`` array to ``n`` labels, an object with a ``predict``
        method (any scikit-learn classifier), or a model kind of
        :class:`xpg.models.protocol.Model` (a DecisionGraph, DecisionTree, ...): its
        ``predict_batch`` answers and its compiled graph gives exact precision.
    features : sequence of Feature, optional
        The inputs, in column order, with their domains (default: the graph's features when
        ``model`` is a model kind).
    classes : sequence, optional
        The class labels (default: ``model.classes_`` or the graph's classes when known).
    graph : DecisionGraph, optional
        A compiled graph computing the same function as ``model``; it enables exact
        precision (:func:`~xpg.probabilistic.precision.precision_error`).

    Raises
    ------
    InvalidModelError
        When ``model`` cannot predict, the features do not match the graph, or a fitted
        estimator's ``n_features_in_`` differs from the number of features.  Later, from
        :meth:`predict`: when the model fails on the features' values (its exception is
        chained), or returns no label per row, NaN, None, or a label outside ``classes``.
    """

    def __init__(
        self,
        model: Any,
        features: Sequence[Feature] | None = None,
        classes: Sequence[Any] | None = None,
        graph: DecisionGraph | None = None,
    ) -> None:
        self._predict = self._prediction_function(model)
        if isinstance(model, CompiledModel) and graph is None:
            graph = model.to_decision_graph()
        if features is None:
            if graph is None:
                raise InvalidModelError(
                    "expected a feature specification (a sequence of Feature) for this model, "
                    "found none"
                )
            features = graph.features
        self.features = feature_tuple(
            features, not_a_feature=InvalidModelError, repeated_name=InvalidModelError
        )
        names = [f.name for f in self.features]
        if graph is not None and [f.name for f in graph.features] != names:
            raise InvalidModelError(
                f"the graph's features {[f.name for f in graph.features]!r} differ from the "
                f"black box's {names!r}"
            )
        width = getattr(model, "n_features_in_", None)
        if isinstance(width, (int, np.integer)) and width != len(self.features):
            raise InvalidModelError(
                f"the estimator was fitted on {width} features, the feature specification "
                f"has {len(self.features)} ({', '.join(names)})"
            )
        self.model = model
        self.graph = graph
        if classes is None:
            known = getattr(model, "classes_", None)
            if known is None and graph is not None:
                known = graph.classes
            classes = [] if known is None else list(known)
        if isinstance(classes, (str, bytes)) or not hasattr(classes, "__iter__"):
            raise InvalidModelError(
                f"classes: expected a sequence of class labels, found {type(classes).__name__}"
            )
        self.classes: list[Any] = [c.item() if isinstance(c, np.generic) else c for c in classes]
        self.dtype = matrix_dtype(self.features)

    def _prediction_function(self, model: Any) -> Callable[[np.ndarray], Any]:
        if isinstance(model, Model):
            return model.predict_batch
        if hasattr(model, "predict"):
            return model.predict  # type: ignore[no-any-return]
        if callable(model):
            return model  # type: ignore[no-any-return]
        raise InvalidModelError(
            "expected a callable on 2-D arrays, an object with a predict method, or a "
            f"model kind (xpg.models.protocol.Model), found {type(model).__name__}"
        )

    @classmethod
    def from_graph(cls, graph: DecisionGraph) -> BlackBox:
        """The black box of a compiled decision graph (exact precision available)."""
        return cls(graph)

    @classmethod
    def from_sklearn_tree(
        cls, estimator: Any, features: Sequence[Feature] | None = None
    ) -> BlackBox:
        """A fitted ``DecisionTreeClassifier``: predictions by scikit-learn, exact precision on
        its compiled graph (:func:`~xpg.compile.sklearn_tree.from_sklearn_tree`)."""
        graph = from_sklearn_tree(estimator, features)
        return cls(estimator, graph.features, classes=graph.classes, graph=graph)

    @property
    def n_features(self) -> int:
        """Number of input features."""
        return len(self.features)

    @property
    def feature_names(self) -> list[str]:
        """Feature names in column order."""
        return [f.name for f in self.features]

    def predict(self, X: Any) -> np.ndarray:
        """Labels of the rows of ``X`` (an ``(n, d)`` array)."""
        M: np.ndarray = np.asarray(X, dtype=self.dtype)
        if M.ndim != 2 or M.shape[1] != self.n_features:
            raise InvalidModelError(
                f"expected an array with {self.n_features} columns, found shape {M.shape}"
            )
        try:
            out = np.asarray(self._predict(M))
        except XpgError:
            raise
        except Exception as err:  # the model's own failure, reported as a model error
            raise InvalidModelError(
                f"the model failed on a {M.shape[0]} x {M.shape[1]} array of {M.dtype} values "
                f"(columns: {', '.join(self.feature_names)}): {type(err).__name__}: {err}"
            ) from err
        if out.ndim == 2 and out.shape[1] == 1:
            out = out[:, 0]
        if out.shape != (len(M),):
            raise InvalidModelError(
                f"the model returned an array of shape {out.shape} for {len(M)} rows, "
                "expected one label per row"
            )
        self._check_labels(out)
        return out

    def _check_labels(self, out: np.ndarray) -> None:
        """Refuse labels no class can be: NaN, None, containers; and, when the classes are
        known, any label outside them (a comparison with the instance's class would silently
        count it as another class)."""
        if out.dtype.kind == "f" or out.dtype.kind == "c":
            bad = np.flatnonzero(np.isnan(out))
            if len(bad):
                raise InvalidModelError(
                    f"the model returned NaN as the label of {len(bad)} of {len(out)} rows "
                    f"(first: row {bad[0]}), expected a class label per row"
                )
        if out.dtype.kind == "O":
            for i, label in enumerate(out.tolist()):
                if (
                    label is None
                    or (isinstance(label, float) and label != label)
                    or not isinstance(label, Hashable)
                ):
                    raise InvalidModelError(
                        f"the model returned {label!r} as the label of row {i}, expected a "
                        "class label (a number, a string or a bool)"
                    )
        if self.classes:
            found = set(np.unique(out).tolist()) if out.dtype.kind != "O" else set(out.tolist())
            declared = set(self.classes)
            unknown = [v for v in found if v not in declared]
            if unknown:
                raise InvalidModelError(
                    f"the model returned the label {unknown[0]!r}, expected one of its "
                    f"classes {self.classes!r}"
                )

    def row(self, instance: Any) -> np.ndarray:
        """An instance (mapping or values in feature order) as a checked row."""
        return instance_row(self.features, instance)

    def predict_one(self, instance: Any) -> Any:
        """The label of one instance."""
        label = self.predict(self.row(instance)[None, :])[0]
        return label.item() if isinstance(label, np.generic) else label

    def __repr__(self) -> str:
        kind = getattr(self.model, "json_type", type(self.model).__name__)
        exact = ", compiled" if self.graph is not None else ""
        return f"BlackBox({kind}, {self.n_features} features{exact})"


class QueryCounter:
    """Counts the rows an explainer sends to a black box (its number of model queries).

    Examples
    --------
    >>> from xpg.core.features import Feature
    >>> counter = QueryCounter(BlackBox(lambda X: X[:, 0], [Feature.boolean("a")]))
    >>> counter(np.ones((3, 1))).tolist(), counter.n_queries
    ([1.0, 1.0, 1.0], 3)
    """

    def __init__(self, model: BlackBox) -> None:
        self.model = model
        self.n_queries = 0

    def __call__(self, X: np.ndarray) -> np.ndarray:
        self.n_queries += len(X)
        return self.model.predict(X)
