"""Optimal depth-limited decision trees (STreeD, through pystreed), over the original features.

STreeD finds, by dynamic programming with bounds, the tree of depth at most ``max_depth``
that misclassifies the fewest training rows.  It splits on 0/1 features only.  pystreed's
own binarizer passes a column holding only 0 and 1 through as it is (read as
``int(x) != 0``, so a later 0.5 or -1 goes where 0 or 1 would not) and turns every other
numeric column into tests ``x <= t`` at a few thresholds (``KThresholdBinarizer``, strategy
``"quantile"``: every midpoint between consecutive distinct values when the column has at
most ``n_thresholds + 1`` of them, otherwise ``n_thresholds`` quantiles).

Here the binarisation is explicit (:class:`Binarization`): the thresholds of every column are
those ``KThresholdBinarizer`` chooses on the training rows (a 0/1 column gets the midpoint
0.5), each binary feature is ``column <= t``, and the solver receives the 0/1 matrix.  Each
split of the learned tree is mapped back to the feature that owns the column, restricted
to the values still possible on its path (a split decided by its path is bypassed), so the
result is a :class:`~xpg.models.tree.DecisionTree` testing ``x <= t`` / ``x > t`` on real and
integer features and sets of categories on categorical ones: explanations name the original
features, never the binary ones.  The tree computes exactly what pystreed's ``predict``
computes on the binarised rows (:meth:`OptimalTree.streed_predict`), on every row.

The search stops at ``time_limit`` seconds; pystreed then returns the best tree found so
far (possibly a single leaf), without a proof of optimality: :attr:`OptimalTree.optimal`
says which, and the learn report and the command line repeat it.

Examples
--------
>>> import numpy as np
>>> from xpg.core.features import Feature
>>> X = np.array([[a, b] for a in range(4) for b in range(4)], dtype=float)
>>> y = [int(a >= 2 and b != 1) for a, b in X.tolist()]
>>> fit = learn_optimal_tree(X, y, features=[Feature.integer("a", 0, 3),
...                                          Feature.integer("b", 0, 3)], max_depth=3)
>>> fit.optimal, fit.model.depth, fit.model.predict({"a": 3, "b": 0})
(True, 3, 1)
>>> bool((fit.model.predict_batch(X) == fit.streed_predict(X)).all())
True

References
----------
van der Linden, de Weerdt, Demirović. Necessary and sufficient conditions for optimal
decision trees using dynamic programming. NeurIPS 2023 (STreeD); Huang, Izza, Ignatiev,
Marques-Silva. On Efficiently Explaining Graph-Based Classifiers. KR 2021, Sec. 7 and
Table 2 (optimal depth-6 trees) and the remark on binarization.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import portion as P

from xpg.core.feature_space import FeatureGroup, FeatureSpace
from xpg.core.features import Feature, Literal
from xpg.core.validation import Interval, validate_params
from xpg.errors import InvalidDataError, InvalidModelError, MissingExtraError
from xpg.models.tree import DecisionTree, Leaf, Split

#: pystreed's default number of thresholds per numeric column
N_THRESHOLDS = 5
#: seconds the search may take by default (pystreed's own default is 600)
TIME_LIMIT = 60.0
#: the accepted values of :func:`learn_optimal_tree`'s numeric parameters (depth: pystreed's
#: limit is 20)
PARAMETER_CONSTRAINTS: dict[str, list[Any]] = {
    "max_depth": [Interval(int, 1, 20)],
    "time_limit": [Interval(float, 0, None, closed="neither")],
    "n_thresholds": [Interval(int, 1, None)],
    "complexity": [Interval(float, 0, 1)],
}


def _streed() -> Any:
    try:
        from pystreed import STreeDClassifier
    except ImportError:
        raise MissingExtraError(
            "optimal trees need the 'pystreed' package "
            "(pip install -e '.[optimal]' from a clone of xpg or pip install pystreed)"
        ) from None
    return STreeDClassifier


@dataclass(frozen=True)
class Binarization:
    """Binary features ``X[:, column] <= threshold``, one per pair.

    Examples
    --------
    >>> b = Binarization(np.array([0, 0, 1]), np.array([1.5, 2.5, 0.5]))
    >>> b.transform(np.array([[2.0, 1.0]])).tolist()
    [[0, 1, 0]]
    """

    columns: np.ndarray
    thresholds: np.ndarray

    @classmethod
    def fit(cls, X: np.ndarray, n_thresholds: int = N_THRESHOLDS) -> Binarization:
        """The thresholds pystreed's ``KThresholdBinarizer`` (quantile strategy) picks on each
        column of ``X``, less those that leave every row on one side."""
        from pystreed.binarizer import KThresholdBinarizer

        columns: list[int] = []
        thresholds: list[float] = []
        if X.shape[0] and X.shape[1]:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                kb = KThresholdBinarizer("quantile", n_thresholds).fit(X)
            for j, cuts in enumerate(kb.thresholds_):
                for t in sorted({float(c) for c in cuts}):
                    below = X[:, j] <= t
                    if below.any() and not below.all():
                        columns.append(j)
                        thresholds.append(t)
        return cls(np.asarray(columns, dtype=np.intp), np.asarray(thresholds, dtype=np.float64))

    def __len__(self) -> int:
        return len(self.columns)

    def transform(self, X: np.ndarray) -> np.ndarray:
        """The 0/1 matrix (``intc``) of the binary features on the rows of ``X``."""
        X = np.asarray(X, dtype=np.float64)
        return (X[:, self.columns] <= self.thresholds).astype(np.intc)


@dataclass
class OptimalTree:
    """A fitted STreeD tree and the project's :class:`~xpg.models.tree.DecisionTree` of it.

    Attributes
    ----------
    model : DecisionTree
        Over the original features (see the module's description).
    estimator : pystreed.STreeDClassifier or None
        Fitted on ``binarization.transform(X)`` with class codes ``0..k-1``; None when no
        column can split the training rows (the model is then one leaf).
    binarization : Binarization
    classes : list
        The class labels; code ``i`` is ``classes[i]``.
    optimal : bool
        True when the search finished: no tree of the depth limit over these binary
        features misclassifies fewer training rows.  False when it stopped at the time limit
        with the best tree found so far.
    seconds : float
        Wall-clock time of the search.
    time_limit : float
    space : FeatureSpace
        The features laid over the columns of ``X`` (``space.encode`` turns a feature-level
        instance into the row :meth:`streed_predict` takes).
    """

    model: DecisionTree
    estimator: Any
    binarization: Binarization
    classes: list[Any]
    optimal: bool
    seconds: float
    time_limit: float
    space: FeatureSpace = field(repr=False)

    def streed_predict(self, X: Any) -> np.ndarray:
        """pystreed's own predictions on the rows of ``X`` (columns as in training), as
        class labels (an object array)."""
        X = np.asarray(X, dtype=np.float64)
        out = np.empty(len(X), dtype=object)
        if self.estimator is None:
            leaf = self.model.root
            assert isinstance(leaf, Leaf)
            out[:] = [leaf.label] * len(X)
            return out
        codes = self.estimator.predict(self.binarization.transform(X))
        out[:] = [self.classes[int(c)] for c in codes]
        return out

    @property
    def status(self) -> str:
        """``optimal``, or a sentence saying the time limit stopped the search."""
        if self.optimal:
            return "optimal"
        return (
            f"time limit of {self.time_limit:g} s reached: the best tree found so far, "
            "not proved optimal"
        )


def learn_optimal_tree(
    X: Any,
    y: Any,
    feature_names: Sequence[str] | None = None,
    *,
    features: Sequence[Feature | FeatureGroup] | None = None,
    max_depth: int = 6,
    time_limit: float = TIME_LIMIT,
    n_thresholds: int = N_THRESHOLDS,
    complexity: float = 0.0,
    classes: Sequence[Any] | None = None,
    seed: int = 0,
) -> OptimalTree:
    """The most accurate tree of depth at most ``max_depth`` on the training rows (STreeD),
    or with ``complexity`` > 0 the tree of least training error plus penalty per split.

    Parameters
    ----------
    X : array-like, shape (rows, columns)
        Numeric columns (categorical features as one-hot or code columns declared with
        :class:`~xpg.core.feature_space.FeatureGroup`, or as numeric codes).
    y : array-like
        Class labels.
    feature_names : sequence of str, optional
        Used to infer the features when ``features`` is not given.
    features : sequence of Feature or FeatureGroup, optional
        The domains, laid over the columns in order (default: inferred from the data).
    max_depth : int
        At most 20 (pystreed's limit).
    time_limit : float
        Seconds the search may take (see :attr:`OptimalTree.optimal`).
    n_thresholds : int
        Thresholds per numeric column (see :class:`Binarization`).
    complexity : float
        A cost per split, as a fraction of the training rows (pystreed's
        ``cost-complex-accuracy``: a split is kept only when it saves at least
        ``complexity * rows`` training errors), like the ``cp`` of CART's pruning and of
        the optimal trees of IAI, which the core paper used; 0 (default): no penalty, the
        fewest training errors.  In [0, 1].  The search is slower with a penalty.
    classes : sequence, optional
        The class labels in order (default: the distinct values of ``y``, numbers first in
        order, then the others by their text).
    seed : int
        pystreed's ``random_seed``.

    Returns
    -------
    OptimalTree

    Raises
    ------
    InvalidParameterError
        ``max_depth`` not an integer in 1..20, ``time_limit`` not a positive finite number,
        ``n_thresholds`` not an integer >= 1, ``complexity`` outside [0, 1]
        (:data:`PARAMETER_CONSTRAINTS`).
    InvalidDataError
        No rows, ``X`` and ``y`` of different lengths, a label outside ``classes``.
    MissingExtraError
        Without pystreed (the ``optimal`` extra).
    """
    streed = _streed()
    params = {
        "max_depth": max_depth,
        "time_limit": time_limit,
        "n_thresholds": n_thresholds,
        "complexity": complexity,
    }
    checked = validate_params(params, PARAMETER_CONSTRAINTS)
    max_depth, time_limit = checked["max_depth"], checked["time_limit"]
    n_thresholds, complexity = checked["n_thresholds"], checked["complexity"]
    X = np.asarray(X, dtype=np.float64)
    labels = [v.item() if isinstance(v, np.generic) else v for v in np.asarray(y, dtype=object)]
    if X.ndim != 2 or len(X) == 0 or len(X) != len(labels):
        raise InvalidDataError(
            f"expected a non-empty 2-d X with one label per row, found X of shape {X.shape} "
            f"and {len(labels)} labels"
        )
    if features is None:
        from xpg.learn.feature_types import infer_features

        names = [f"x{j}" for j in range(X.shape[1])] if feature_names is None else feature_names
        features = infer_features(X, [str(n) for n in names])
    space = FeatureSpace(list(features))
    if len(space.columns) != X.shape[1]:
        raise InvalidDataError(
            f"expected features covering the {X.shape[1]} columns of X, "
            f"found {len(space.columns)} columns"
        )
    class_list = sorted(set(labels), key=_class_order) if classes is None else list(classes)
    code = {c: i for i, c in enumerate(class_list)}
    unknown = [v for v in labels if v not in code]
    if unknown:
        raise InvalidDataError(f"label {unknown[0]!r} is not one of the classes {class_list!r}")
    codes = np.asarray([code[v] for v in labels], dtype=np.int32)
    binarization = Binarization.fit(X, n_thresholds)
    start = time.perf_counter()
    if len(binarization) == 0:  # nothing splits the rows: the best tree is one leaf
        counts = np.bincount(codes, minlength=len(class_list))
        root: Leaf | Split = Leaf(class_list[int(np.argmax(counts))])
        estimator, optimal = None, True
    else:
        penalty = (
            {"optimization_task": "cost-complex-accuracy", "cost_complexity": float(complexity)}
            if complexity > 0
            else {}
        )
        estimator = streed(
            max_depth=max_depth, time_limit=float(time_limit), random_seed=int(seed), **penalty
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            estimator.fit(binarization.transform(X), codes)
        if not estimator.is_fitted():
            raise InvalidModelError(f"pystreed found no tree within {time_limit:g} s")
        optimal = bool(estimator.fit_result.is_optimal())
        root = _translate(estimator.tree_, binarization, space, class_list)
    seconds = time.perf_counter() - start
    model = DecisionTree(space.features, class_list, root)
    return OptimalTree(
        model, estimator, binarization, class_list, optimal, seconds, float(time_limit), space
    )


def _class_order(label: Any) -> tuple[int, Any]:
    """Numbers first, in order, then anything else by its text (labels may mix kinds)."""
    if isinstance(label, (int, float)) and not isinstance(label, bool):
        return (0, label)
    return (1, str(label))


def _translate(
    streed_root: Any, binarization: Binarization, space: FeatureSpace, classes: list[Any]
) -> Leaf | Split:
    """pystreed's tree as the project's: a split on binary feature ``k`` sends the rows
    with ``column <= t`` to its right child ("satisfied"), the others to its left child."""
    feats = space.features

    def build(node: Any, possible: dict[int, Any]) -> Leaf | Split:
        while not node.is_leaf_node():
            k = int(node.feature)
            j, t = int(binarization.columns[k]), float(binarization.thresholds[k])
            f, _ = space.owner[j]
            here = possible.get(f, feats[f].domain_set())
            below = space.column_set(j, P.openclosed(-P.inf, t))
            lo, hi = here & below, here - below
            if feats[f].is_empty(lo):  # decided by the path: only the "column > t" side
                node = node.left_child
                continue
            if feats[f].is_empty(hi):
                node = node.right_child
                continue
            name = feats[f].name
            return Split(
                name,
                [
                    (Literal(name, lo), build(node.right_child, {**possible, f: lo})),
                    (Literal(name, hi), build(node.left_child, {**possible, f: hi})),
                ],
            )
        return Leaf(classes[int(node.label)])

    return build(streed_root, {})
