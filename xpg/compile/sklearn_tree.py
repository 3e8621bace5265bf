"""Compile a fitted scikit-learn ``DecisionTreeClassifier`` into a decision graph, exactly.

The tree is read from its public ``tree_`` arrays.  Each split ``x[f] <= t`` becomes
two interval literals restricted to the values still possible on the path, so the
graph satisfies Def. 2 of the core paper; a split whose restricted branch is empty
(possible when a declared domain is narrower than the data) is bypassed, never
kept.

scikit-learn compares ``float32(x) <= t``; the compiler turns every threshold into
the float64 cut with the same effect on float64 inputs, so the graph agrees with
``estimator.predict`` on every input, boundary points included.

Examples
--------
>>> from sklearn.datasets import load_iris
>>> from sklearn.tree import DecisionTreeClassifier
>>> X, y = load_iris(return_X_y=True)
>>> clf = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
>>> dg = from_sklearn_tree(clf)
>>> dg.validate()
>>> int(dg.predict(list(X[100]))) == int(clf.predict(X[100:101])[0])
True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import portion as P

from xpg.errors import InvalidModelError
from xpg.features import Feature, Literal
from xpg.graph import DecisionGraph


def float32_cut(threshold: float) -> float:
    """The largest float64 ``c`` with ``float32(x) <= threshold`` exactly when ``x <= c``.

    Examples
    --------
    >>> c = float32_cut(0.5)
    >>> bool(np.float32(c) <= 0.5), bool(np.float32(np.nextafter(c, 1.0)) <= 0.5)
    (True, False)
    """
    f = np.float32(threshold)
    if float(f) > threshold:
        f = np.nextafter(f, np.float32(-np.inf))
    g = np.nextafter(f, np.float32(np.inf))
    if not np.isfinite(g) or not np.isfinite(f):
        return float(threshold)
    mid = (float(f) + float(g)) / 2.0  # exact in float64
    f_is_even = int(np.asarray(f, dtype=np.float32).view(np.uint32)) % 2 == 0
    return mid if f_is_even else float(np.nextafter(mid, -np.inf))


def _split(feature: Feature, possible: Any, cut: float) -> tuple[Any, Any]:
    """Values of ``feature`` going left (``x <= cut``) and right, within ``possible``."""
    if feature.is_discrete:
        left = frozenset(v for v in possible if float(v) <= cut)
        return left, frozenset(possible) - left
    left_iv = P.openclosed(-P.inf, cut)
    return possible & left_iv, possible - left_iv


def from_sklearn_tree(
    estimator: Any,
    features: Sequence[Feature] | None = None,
    classes: Sequence[Any] | None = None,
) -> DecisionGraph:
    """A :class:`DecisionGraph` computing exactly what ``estimator.predict`` computes.

    Parameters
    ----------
    estimator : sklearn.tree.DecisionTreeClassifier
        Fitted, single-output.
    features : sequence of Feature, optional
        One per input column (default: real features named after ``feature_names_in_``
        or ``x0, x1, ...``).  Boolean and numeric categorical features get value-set literals.
    classes : sequence, optional
        Class labels (default: ``estimator.classes_``).

    References
    ----------
    Huang et al. KR 2021, Def. 2 and the remark on binarization (explanations name whole features).
    """
    tree = getattr(estimator, "tree_", None)
    if tree is None:
        raise InvalidModelError(
            f"expected a fitted DecisionTreeClassifier, found {type(estimator).__name__}"
        )
    if getattr(estimator, "n_outputs_", 1) != 1:
        raise InvalidModelError(
            f"expected a single-output tree, found {estimator.n_outputs_} outputs"
        )
    n_features = int(estimator.n_features_in_)
    if features is None:
        names = getattr(estimator, "feature_names_in_", None)
        features = [
            Feature.real(str(n))
            for n in (names if names is not None else [f"x{i}" for i in range(n_features)])
        ]
    features = list(features)
    if len(features) != n_features:
        raise InvalidModelError(
            f"expected {n_features} features (the tree's inputs), found {len(features)}"
        )
    for feature in features:
        if feature.kind == "categorical" and not all(
            isinstance(v, (int, float)) for v in feature.values
        ):
            raise InvalidModelError(
                f"categorical feature {feature.name!r}: a scikit-learn tree compares numbers, "
                f"expected numeric category codes, found {list(feature.values)!r}"
            )
    labels = list(estimator.classes_) if classes is None else list(classes)
    if len(labels) != len(estimator.classes_):
        raise InvalidModelError(
            f"expected {len(estimator.classes_)} class labels, found {len(labels)}"
        )
    labels = [x.item() if isinstance(x, np.generic) else x for x in labels]
    dg = DecisionGraph(features, labels)
    left, right = tree.children_left, tree.children_right
    feat, thr, value = tree.feature, tree.threshold, tree.value
    # Iterative DFS carrying the values still possible per feature on the path.
    stack: list[tuple[int, Any, dict[int, Any], Literal | None]] = [(0, None, {}, None)]
    while stack:
        node, parent, possible, literal = stack.pop()
        # bypass splits with an empty branch: the node's other branch takes all values
        while left[node] >= 0:
            f = int(feat[node])
            here = possible.get(f, features[f].domain_set())
            lo, hi = _split(features[f], here, float32_cut(float(thr[node])))
            if not features[f].is_empty(lo) and not features[f].is_empty(hi):
                break
            node = int(left[node]) if features[f].is_empty(hi) else int(right[node])
        if left[node] >= 0:
            dg.add_node(node, features[int(feat[node])].name)
        else:
            dg.add_terminal(node, labels[int(np.argmax(value[node][0]))])
        if parent is not None:
            assert literal is not None
            dg.add_edge(parent, node, literal)
        if left[node] < 0:
            continue
        f = int(feat[node])
        here = possible.get(f, features[f].domain_set())
        lo, hi = _split(features[f], here, float32_cut(float(thr[node])))
        name = features[f].name
        stack.append((int(right[node]), node, {**possible, f: hi}, Literal(name, hi)))
        stack.append((int(left[node]), node, {**possible, f: lo}, Literal(name, lo)))
    return dg
