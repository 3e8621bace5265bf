"""A fitted scikit-learn ``HistGradientBoostingClassifier`` as a
:class:`~xpg.models.gbdt.GBDT`, exactly (:func:`read_hist_gradient_boosting`).

scikit-learn's ``predict`` starts from ``_baseline_prediction`` and adds, iteration by
iteration and class by class, each tree's leaf value in float64; two classes: class 1 iff the
sum is ``> 0``, more: the first largest.  A numeric split sends ``x`` left when
``x <= num_threshold`` on the float64 input (``+inf``, a split "on NaN", becomes the largest
float64: every number of the domain goes left), a NaN as ``missing_go_to_left`` says, also
when no value was missing at fit (it then goes to the child that saw more samples).  A
categorical split sends left the categories of its bitset; a known category outside it goes
right, and an unknown category (or NaN) goes where a missing value goes.  The feature of a
categorical column is ``Feature.categorical(name, categories known at fit)``, and each such
split becomes a subtree of cuts over the feature's numbers
(:func:`~xpg.models.gbdt.set_split_subtree`).

:class:`TreeWriter` lays such rewritten trees out in scikit-learn's array layout; the
pipeline importer (:mod:`xpg.models.import_pipeline`) uses it too.

Examples
--------
>>> import numpy as np
>>> from sklearn.ensemble import HistGradientBoostingClassifier
>>> rng = np.random.default_rng(0)
>>> X = np.column_stack([rng.integers(0, 3, 200), rng.normal(size=200)])
>>> X[::7, 1] = np.nan
>>> y = (X[:, 0] == 1) ^ (np.nan_to_num(X[:, 1]) > 0.3)
>>> hgb = HistGradientBoostingClassifier(max_iter=10, categorical_features=[0]).fit(X, y)
>>> model = read_hist_gradient_boosting(hgb)
>>> model.features[0].kind, model.features[0].values, model.decision, len(model.trees)
('categorical', (0.0, 1.0, 2.0), 'threshold', 10)
>>> bool((model.predict_batch(X) == hgb.predict(X)).all())
True
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from xpg.core.features import Feature
from xpg.core.library_predict import check_library_predict
from xpg.errors import InvalidModelError, UnsupportedModelError
from xpg.models.ensemble_tree import EnsembleTree, feature_number
from xpg.models.gbdt import GBDT, SetSplit, set_split_subtree

#: the float64 cut with the effect of ``x <= +inf`` on every number of a domain
LARGEST = float(np.finfo(np.float64).max)


class TreeWriter:
    """Nodes appended in preorder (every child after its parent), as an
    :class:`~xpg.models.ensemble_tree.EnsembleTree`.

    Examples
    --------
    >>> w = TreeWriter(1)
    >>> root = w.split(0, 0.5, True)
    >>> w.children(root, w.leaf([-1.0]), w.leaf([1.0]))
    >>> t = w.tree(missing=True)
    >>> t.left.tolist(), t.missing_left.tolist()
    ([1, -1, -1], [True, False, False])
    """

    def __init__(self, n_scores: int) -> None:
        self.n_scores = n_scores
        self.feature: list[int] = []
        self.threshold: list[float] = []
        self.left: list[int] = []
        self.right: list[int] = []
        self.value: list[Sequence[float]] = []
        self.missing: list[bool] = []

    def split(self, feature: int, cut: float, missing_left: bool) -> int:
        """A new split ``x[feature] <= cut``; its children are set by :meth:`children`."""
        self.feature.append(feature)
        self.threshold.append(cut)
        self.left.append(-1)
        self.right.append(-1)
        self.value.append([0.0] * self.n_scores)
        self.missing.append(missing_left)
        return len(self.feature) - 1

    def children(self, node: int, left: int, right: int) -> None:
        """Set the children of split ``node``."""
        self.left[node], self.right[node] = left, right

    def leaf(self, value: Sequence[float]) -> int:
        """A new leaf adding ``value`` to the scores."""
        self.feature.append(-1)
        self.threshold.append(0.0)
        self.left.append(-1)
        self.right.append(-1)
        self.value.append(list(value))
        self.missing.append(False)
        return len(self.feature) - 1

    def graft(self, feature: int, subtree: SetSplit | bool, inside: Any, outside: Any) -> int:
        """The nodes of a :func:`~xpg.models.gbdt.set_split_subtree` over ``feature``; each
        ``True`` end calls ``inside()``, each ``False`` end ``outside()`` (both write the
        child there and return its node)."""
        if isinstance(subtree, bool):
            return int(inside() if subtree else outside())
        node = self.split(feature, float(subtree.cut), bool(subtree.missing_left))
        lo = self.graft(feature, subtree.left, inside, outside)
        hi = self.graft(feature, subtree.right, inside, outside)
        self.children(node, lo, hi)
        return node

    def tree(self, missing: bool) -> EnsembleTree:
        """The arrays written, with ``missing_left`` when ``missing``."""
        return EnsembleTree(
            np.asarray(self.feature, dtype=np.int64),
            np.asarray(self.threshold, dtype=np.float64),
            np.asarray(self.left, dtype=np.int64),
            np.asarray(self.right, dtype=np.int64),
            np.asarray(self.value, dtype=np.float64).reshape(len(self.feature), self.n_scores),
            np.asarray(self.missing, dtype=bool) if missing else None,
        )


def _plain(x: Any) -> Any:
    return x.item() if isinstance(x, np.generic) else x


def _is_nan(x: Any) -> bool:
    return isinstance(x, float) and math.isnan(x)


def _checked(estimator: Any) -> None:
    from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor

    kind = f"{type(estimator).__module__}.{type(estimator).__qualname__}"
    if isinstance(estimator, HistGradientBoostingRegressor):
        raise UnsupportedModelError(
            "HistGradientBoostingRegressor: expected a classifier, found a regressor "
            "(explanations are of classes)"
        )
    if not isinstance(estimator, HistGradientBoostingClassifier):
        raise InvalidModelError(f"expected a HistGradientBoostingClassifier, found {kind}")
    check_library_predict(estimator)
    if not getattr(estimator, "_predictors", None):
        raise InvalidModelError("the HistGradientBoostingClassifier is not fitted")
    if estimator.loss != "log_loss":
        raise UnsupportedModelError(
            f"HistGradientBoostingClassifier: expected loss='log_loss', found "
            f"{type(estimator.loss).__name__}"
        )
    if getattr(estimator, "_in_fit", False):
        raise UnsupportedModelError(
            "HistGradientBoostingClassifier: the estimator is left in the middle of fit "
            "(_in_fit is set: its predict reads binned data)"
        )
    k = int(estimator.n_trees_per_iteration_)
    shapes = {len(it) for it in estimator._predictors}
    base = np.asarray(estimator._baseline_prediction)
    if shapes != {k} or base.shape != (1, k) or len(estimator.classes_) != max(2, k):
        raise UnsupportedModelError(
            f"HistGradientBoostingClassifier: expected {k} tree(s) per iteration and a "
            f"baseline of shape (1, {k}) for {len(estimator.classes_)} classes, found "
            f"{sorted(shapes)} and {base.shape}"
        )


def _columns(estimator: Any) -> tuple[np.ndarray, dict[int, list[Any]]]:
    """The original column of each column the trees see, and the categories (by code) of
    each categorical original column."""
    n = int(estimator.n_features_in_)
    pre = estimator._preprocessor
    if pre is None:
        return np.arange(n), {}
    mask = np.asarray(estimator.is_categorical_, dtype=bool)
    order = np.empty(n, dtype=np.int64)
    for name, cols in (("encoder", np.flatnonzero(mask)), ("numerical", np.flatnonzero(~mask))):
        where = pre.output_indices_.get(name, slice(0, 0))
        order[where] = cols
    encoder = pre.named_transformers_["encoder"]
    categories = {}
    for j, cats in zip(np.flatnonzero(mask).tolist(), encoder.categories_):
        values = [_plain(c) for c in cats]
        if values and _is_nan(values[-1]):  # missing values: not a category
            values = values[:-1]
        categories[j] = values
    return order, categories


def _features(
    estimator: Any, categories: dict[int, list[Any]], features: Sequence[Feature] | None
) -> list[Feature]:
    n = int(estimator.n_features_in_)
    if features is None:
        names = getattr(estimator, "feature_names_in_", None)
        cols = [str(c) for c in names] if names is not None else [f"x{i}" for i in range(n)]
        return [
            Feature.categorical(c, categories[j]) if j in categories else Feature.real(c)
            for j, c in enumerate(cols)
        ]
    feats = list(features)
    if not all(isinstance(f, Feature) for f in feats):
        raise InvalidModelError(
            "HistGradientBoostingClassifier: expected plain features, one per input column"
        )
    if len(feats) != n:
        raise InvalidModelError(
            f"HistGradientBoostingClassifier: expected {n} features (one per input column), "
            f"found {len(feats)}"
        )
    for j, f in enumerate(feats):
        if j in categories and not f.is_discrete:
            raise InvalidModelError(
                f"feature {f.name!r}: column {j} is categorical in the estimator: expected a "
                f"categorical feature, found a {f.kind} one"
            )
    return feats


def _left_codes(f: Feature, categories: list[Any], node: Any, raw: np.ndarray) -> set[float]:
    """The numbers of the values of ``f`` that a categorical split sends left: those in its
    bitset, and the unknown ones when missing values go left."""
    code = {c: k for k, c in enumerate(categories)}
    out = set()
    for v in f.values:
        k = code.get(v)
        left = bool(node["missing_go_to_left"]) if k is None else bool(raw[k // 32] >> (k % 32) & 1)
        if left:
            out.add(feature_number(f, v))
    return out


def _tree(
    predictor: Any,
    column: int,
    n_scores: int,
    order: np.ndarray,
    categories: dict[int, list[Any]],
    feats: list[Feature],
) -> EnsembleTree:
    nodes = predictor.nodes
    bitsets = predictor.raw_left_cat_bitsets
    w = TreeWriter(n_scores)

    def emit(i: int) -> int:
        node = nodes[i]
        if node["is_leaf"]:
            value = [0.0] * n_scores
            value[column] = float(node["value"])
            return w.leaf(value)
        j = int(order[int(node["feature_idx"])])
        lo, hi = int(node["left"]), int(node["right"])
        missing = bool(node["missing_go_to_left"])
        if node["is_categorical"]:
            f = feats[j]
            codes = [feature_number(f, v) for v in f.values]
            members = _left_codes(f, categories[j], node, bitsets[int(node["bitset_idx"])])
            sub = set_split_subtree(codes, members, missing_in=missing)
            return w.graft(j, sub, lambda: emit(lo), lambda: emit(hi))
        t = float(node["num_threshold"])
        if math.isnan(t) or t == -math.inf:
            raise UnsupportedModelError(
                f"HistGradientBoostingClassifier: a split on column {j} has threshold {t!r}"
            )
        split = w.split(j, min(t, LARGEST), missing)
        w.children(split, emit(lo), emit(hi))
        return split

    emit(0)
    return w.tree(missing=True)


def read_hist_gradient_boosting(estimator: Any, features: Sequence[Feature] | None = None) -> GBDT:
    """A fitted ``HistGradientBoostingClassifier`` as a :class:`~xpg.models.gbdt.GBDT`
    computing exactly its ``predict`` (see the module docstring).

    Parameters
    ----------
    estimator : sklearn.ensemble.HistGradientBoostingClassifier
        Fitted, binary or multi-class, log-loss, numeric and categorical features.
    features : sequence of Feature, optional
        One per input column, in column order.  Default: named after ``feature_names_in_``
        (or ``x0, x1, ...``), real for numeric columns, categorical over the categories seen
        at fit for categorical ones.  A categorical column needs a discrete feature; its
        values unknown to the estimator go where missing values go, as in ``predict``.

    Raises
    ------
    UnsupportedModelError
        A regressor, another loss, an estimator left in the middle of ``fit``.
    InvalidModelError
        Another object, an unfitted estimator, features that do not fit the columns.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.ensemble import HistGradientBoostingClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> hgb = HistGradientBoostingClassifier(max_iter=5, random_state=0).fit(X, y)
    >>> model = read_hist_gradient_boosting(hgb)
    >>> model.decision, len(model.trees), model.precision
    ('argmax', 15, 'float64')
    >>> bool((model.predict_batch(X) == hgb.predict(X)).all())
    True
    """
    import sklearn

    _checked(estimator)
    order, categories = _columns(estimator)
    feats = _features(estimator, categories, features)
    k = int(estimator.n_trees_per_iteration_)
    trees = [
        _tree(p, column, k, order, categories, feats)
        for iteration in estimator._predictors
        for column, p in enumerate(iteration)
    ]
    classes = [_plain(c) for c in estimator.classes_]
    return GBDT(
        feats,
        classes,
        trees,
        np.asarray(estimator._baseline_prediction, dtype=np.float64)[0],
        precision="float64",
        decision="threshold" if k == 1 else "argmax",
        cut=0.0,
        strict=True,
        source=f"scikit-learn {sklearn.__version__} HistGradientBoostingClassifier log_loss",
    )


__all__ = ["TreeWriter", "read_hist_gradient_boosting"]
