"""Compile a fitted scikit-learn ``DecisionTreeClassifier`` into a decision graph, exactly.

The tree is read from its public ``tree_`` arrays.  Each split ``x[f] <= t`` becomes
two interval literals restricted to the values still possible on the path, so the
graph satisfies Def. 2 of the core paper; a split whose restricted branch is empty
(possible when a declared domain is narrower than the data) is bypassed, never
kept.

scikit-learn compares ``float32(x) <= t``; the compiler turns every threshold into
the float64 cut with the same effect on float64 inputs (:func:`xpg.core.float32.float32_cut`,
whose bound the SMT encoding :func:`encode_sklearn_tree` shares, thresholds beyond the float32
range included), so the graph agrees with ``estimator.predict`` on every input, boundary points
included.

Missing values: NaN belongs to no feature's domain (instances holding NaN are refused), so
on every instance the graph accepts it computes ``predict``.  A tree trained with missing
values has learned where NaN goes at its splits; that routing cannot be expressed over the
domains, and such a tree is refused (:func:`learned_missing_routing`) rather than compiled
into a graph that would silently drop it.

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

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import portion as P

from xpg.core.feature_space import FeatureGroup, FeatureSpace
from xpg.core.features import Feature, Literal
from xpg.core.float32 import float32_cut
from xpg.core.graph import DecisionGraph
from xpg.core.library_predict import check_library_predict
from xpg.errors import InvalidModelError
from xpg.solvers.smt import SmtModel, postorder

if TYPE_CHECKING:
    from pysmt.fnode import FNode


def _at_most(cut: float) -> Any:
    """The numbers ``x <= cut`` as a portion interval (every number for ``cut = inf``)."""
    return P.openclosed(-P.inf, cut) if cut < math.inf else P.open(-P.inf, P.inf)


def _split(feature: Feature, possible: Any, cut: float) -> tuple[Any, Any]:
    """Values of ``feature`` going left (``x <= cut``) and right, within ``possible``."""
    if feature.is_discrete:
        left = frozenset(v for v in possible if float(v) <= cut)
        return left, frozenset(possible) - left
    left_iv = _at_most(cut)
    return possible & left_iv, possible - left_iv


def feature_space(
    estimator: Any, features: Sequence[Feature | FeatureGroup] | None
) -> FeatureSpace:
    """The features of a fitted estimator laid over its input columns.

    Plain features only, as many as columns: one per column, in order.  With feature
    groups: columns matched by name to ``feature_names_in_`` when the estimator has it,
    otherwise the entries' columns concatenated in order.
    """
    n_features = int(estimator.n_features_in_)
    names = getattr(estimator, "feature_names_in_", None)
    if features is None:
        cols = (
            [str(n) for n in names] if names is not None else [f"x{i}" for i in range(n_features)]
        )
        return FeatureSpace([Feature.real(c) for c in cols])
    entries = list(features)
    if all(isinstance(e, Feature) for e in entries):
        if len(entries) != n_features:
            raise InvalidModelError(
                f"expected {n_features} features (the tree's inputs), found {len(entries)}"
            )
        return FeatureSpace(entries)
    space = FeatureSpace(entries, [str(n) for n in names] if names is not None else None)
    if len(space.columns) != n_features:
        raise InvalidModelError(
            f"expected features and groups covering the tree's {n_features} input columns, "
            f"found {len(space.columns)} columns"
        )
    return space


def learned_missing_routing(estimator: Any) -> list[int]:
    """The split nodes of a fitted scikit-learn tree whose NaN routing was learned from
    missing values in the training data.

    scikit-learn (1.3 and later) sends NaN at a split to the child that saw more training
    samples (the right child on a tie) unless missing values reached the split during
    training and another direction was better: a split departing from that default can only
    come from training with missing values.  (A tree trained with missing values whose
    learned directions all agree with the default cannot be told apart from its arrays; it
    routes NaN as any tree does.)

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0], [4.0], [np.nan]]); y = [1, 1, 0, 0, 0, 1]
    >>> learned_missing_routing(DecisionTreeClassifier(random_state=0).fit(X, y))
    [0]
    >>> learned_missing_routing(DecisionTreeClassifier(random_state=0).fit(X[:5], y[:5]))
    []
    """
    tree = estimator.tree_
    go_left = getattr(tree, "missing_go_to_left", None)
    if go_left is None:  # scikit-learn before 1.3: NaN is refused by predict
        return []
    left, right, count = tree.children_left, tree.children_right, tree.n_node_samples
    splits = np.flatnonzero(left >= 0)
    default = count[left[splits]] > count[right[splits]]
    return [int(n) for n in splits[np.asarray(go_left)[splits].astype(bool) != default]]


def from_sklearn_tree(
    estimator: Any,
    features: Sequence[Feature | FeatureGroup] | None = None,
    classes: Sequence[Any] | None = None,
) -> DecisionGraph:
    """A :class:`DecisionGraph` computing exactly what ``estimator.predict`` computes.

    Parameters
    ----------
    estimator : sklearn.tree.DecisionTreeClassifier
        Fitted, single-output, any depth, any number of classes.
    features : sequence of Feature or FeatureGroup, optional
        One Feature per input column (default: real features named after
        ``feature_names_in_`` or ``x0, x1, ...``); boolean and numeric categorical features
        get value-set literals.  A :class:`~xpg.core.feature_space.FeatureGroup` declares several
        columns (one-hot columns, bins) as one feature: the graph tests the feature, and a
        branch no value of it can take is bypassed (see :func:`feature_space` for how
        columns are matched).
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
    check_library_predict(estimator)
    learned = learned_missing_routing(estimator)
    if learned:
        node = learned[0]
        raise InvalidModelError(
            f"expected a tree trained without missing values, found one that routes NaN by "
            f"what it learned ({len(learned)} split(s), first node {node} on column "
            f"{int(tree.feature[node])}): NaN is in no feature domain, so the graph could not "
            "compute predict's function there; impute the missing values before training"
        )
    space = feature_space(estimator, features)
    for entry in space.entries:
        if (
            isinstance(entry, Feature)
            and entry.kind == "categorical"
            and not all(isinstance(v, (int, float)) for v in entry.values)
        ):
            raise InvalidModelError(
                f"categorical feature {entry.name!r}: a scikit-learn tree compares numbers, "
                f"expected numeric category codes, found {list(entry.values)!r} "
                "(declare one-hot columns with FeatureGroup.one_hot)"
            )
    labels = list(estimator.classes_) if classes is None else list(classes)
    if len(labels) != len(estimator.classes_):
        raise InvalidModelError(
            f"expected {len(estimator.classes_)} class labels, found {len(labels)}"
        )
    labels = [x.item() if isinstance(x, np.generic) else x for x in labels]
    feats = space.features
    dg = DecisionGraph(feats, labels)
    left, right = tree.children_left, tree.children_right
    column, thr, value = tree.feature, tree.threshold, tree.value

    def split(node: int, possible: dict[int, Any]) -> tuple[int, Any, Any]:
        j = int(column[node])
        f, _ = space.owner[j]
        here = possible.get(f, feats[f].domain_set())
        cut = float32_cut(float(thr[node]))
        if space.is_identity:
            lo, hi = _split(feats[f], here, cut)
        else:
            goes_left = space.column_set(j, _at_most(cut))
            lo, hi = here & goes_left, here - goes_left
        return f, lo, hi

    # Iterative DFS carrying the values still possible per feature on the path.
    stack: list[tuple[int, Any, dict[int, Any], Literal | None]] = [(0, None, {}, None)]
    while stack:
        node, parent, possible, literal = stack.pop()
        # bypass splits with an empty branch: the node's other branch takes all values
        while left[node] >= 0:
            f, lo, hi = split(node, possible)
            if not feats[f].is_empty(lo) and not feats[f].is_empty(hi):
                break
            node = int(left[node]) if feats[f].is_empty(hi) else int(right[node])
        if left[node] >= 0:
            dg.add_node(node, feats[space.owner[int(column[node])][0]].name)
        else:
            dg.add_terminal(node, labels[int(np.argmax(value[node][0]))])
        if parent is not None:
            assert literal is not None
            dg.add_edge(parent, node, literal)
        if left[node] < 0:
            continue
        f, lo, hi = split(node, possible)
        name = feats[f].name
        stack.append((int(right[node]), node, {**possible, f: hi}, Literal(name, hi)))
        stack.append((int(left[node]), node, {**possible, f: lo}, Literal(name, lo)))
    return dg


def encode_sklearn_tree(
    estimator: Any, features: Sequence[Feature | FeatureGroup] | None = None
) -> SmtModel:
    """A fitted ``DecisionTreeClassifier`` from its ``tree_`` arrays (float32 semantics).

    ``features`` as for :func:`~xpg.compile.sklearn_tree.from_sklearn_tree` (feature groups
    included); the class of a leaf is the first class of largest weight, as ``predict``.
    """
    tree = getattr(estimator, "tree_", None)
    if tree is None:
        raise InvalidModelError(
            f"expected a fitted DecisionTreeClassifier, found {type(estimator).__name__}"
        )
    space: FeatureSpace = feature_space(estimator, features)
    labels = [c.item() if isinstance(c, np.generic) else c for c in estimator.classes_]

    def predict(instance: dict[str, Any]) -> Any:
        import warnings

        row = np.asarray([space.encode(instance)], dtype=np.float64)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # fitted with column names
            out = estimator.predict(row)[0]
        return out.item() if isinstance(out, np.generic) else out

    enc = SmtModel(space.features, labels, predict)
    m = enc.mgr
    left, right = tree.children_left, tree.children_right
    column, thr, value = tree.feature, tree.threshold, tree.value

    def goes_left(j: int, t: float) -> FNode:
        i, pos = space.owner[j]
        entry = space.entries[i]
        # not np.float32(v) <= t: numpy would round t to float32 too, scikit-learn does not
        cut = float32_cut(t)
        if isinstance(entry, FeatureGroup):
            cells = [cell for cell, vec in entry.cells if float(vec[pos]) <= cut]
            return m.Or([enc.in_set(entry.feature.name, c) for c in cells])
        if entry.is_discrete:
            return m.Or([enc.is_value(entry.name, v) for v in entry.values if float(v) <= cut])
        return enc.float32_at_most(entry.name, t)

    terms: dict[int, FNode] = {}
    for n in postorder(0, lambda n: [int(left[n]), int(right[n])] if left[n] >= 0 else []):
        if left[n] < 0:
            terms[n] = m.Int(int(np.argmax(value[n][0])))
        else:
            cond = goes_left(int(column[n]), float(thr[n]))
            terms[n] = m.Ite(cond, terms[int(left[n])], terms[int(right[n])])
    enc.class_term = terms[0]
    return enc
