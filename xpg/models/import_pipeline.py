"""A fitted scikit-learn ``Pipeline`` (a ``ColumnTransformer`` of ``OneHotEncoder``,
``OrdinalEncoder`` and passthrough columns, then a tree model) as one model over the
ORIGINAL columns (:func:`read_pipeline`), exactly.

The tree model is read over its encoded columns (a ``DecisionTreeClassifier`` as a forest of
one tree, the scikit-learn ensembles by :func:`~xpg.models.ensemble_import.ensemble_from_sklearn`,
``HistGradientBoostingClassifier`` by :func:`~xpg.models.import_hist.read_hist_gradient_boosting`,
``XGBClassifier`` and ``LGBMClassifier`` by their loaders), then every split on an encoded
column is rewritten into a split on the original feature: the categories whose encoded value
passes the cut (``onehot_k <= 0.5``: every category but ``k``; an ordinal cut: a prefix of the
codes) go left, through :func:`~xpg.models.gbdt.set_split_subtree`; a split that the path
already decides is dropped.  The encoded value of each category is what the fitted encoder's
own ``transform`` gives (``drop``, infrequent categories, ``handle_unknown`` and declared
unknown values included).  An encoded column's feature is categorical over the encoder's
categories (missing values, NaN, left out); a passthrough column's is real unless declared.
Dropped columns are no feature.

Examples
--------
>>> import pandas as pd
>>> from sklearn.compose import make_column_transformer
>>> from sklearn.ensemble import RandomForestClassifier
>>> from sklearn.pipeline import make_pipeline
>>> from sklearn.preprocessing import OneHotEncoder
>>> df = pd.DataFrame({"colour": ["red", "blue", "green", "red"] * 10, "size": range(40)})
>>> y = [c == "red" and s > 10 for c, s in zip(df.colour, df["size"])]
>>> pipe = make_pipeline(make_column_transformer((OneHotEncoder(), ["colour"]),
...                                              remainder="passthrough"),
...                      RandomForestClassifier(5, random_state=0)).fit(df, y)
>>> model = read_pipeline(pipe)
>>> [f.name for f in model.features], model.features[0].values
(['colour', 'size'], ('blue', 'green', 'red'))
>>> bool((model.predict_batch(df.to_numpy(object)) == pipe.predict(df)).all())
True
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from xpg.core.features import Feature
from xpg.core.float32 import float32_cut
from xpg.core.library_predict import check_library_predict, library_class
from xpg.errors import InvalidModelError, UnsupportedModelError
from xpg.models.ensemble import BoostedTrees, Forest, TreeEnsemble
from xpg.models.ensemble_tree import EnsembleTree, feature_number
from xpg.models.gbdt import GBDT, set_split_subtree
from xpg.models.import_hist import TreeWriter

#: per output column: (index of the original feature, column value of each of its values,
#: or None for a passthrough column)
Layout = list[tuple[int, dict[Any, float] | None]]


def _plain(x: Any) -> Any:
    return x.item() if isinstance(x, np.generic) else x


def _missing(x: Any) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def _kind(obj: Any) -> str:
    return type(obj).__name__


def _steps(pipeline: Any) -> tuple[Any, Any]:
    """The ColumnTransformer (or None) and the final estimator."""
    from sklearn.compose import ColumnTransformer
    from sklearn.exceptions import NotFittedError
    from sklearn.pipeline import Pipeline
    from sklearn.utils.validation import check_is_fitted

    if not isinstance(pipeline, Pipeline):
        raise InvalidModelError(f"expected a scikit-learn Pipeline, found {_kind(pipeline)}")
    check_library_predict(pipeline)
    steps = [(n, s) for n, s in pipeline.steps if s is not None and s != "passthrough"]
    if not steps:
        raise InvalidModelError("the pipeline has no steps")
    try:
        check_is_fitted(pipeline)
    except NotFittedError:
        raise InvalidModelError("the pipeline is not fitted") from None
    for k, (name, step) in enumerate(steps[:-1]):
        if k > 0 or not isinstance(step, ColumnTransformer):
            raise UnsupportedModelError(
                f"pipeline step {name!r}: expected one ColumnTransformer then a tree model, "
                f"found {_kind(step)}"
            )
    ct = steps[0][1] if len(steps) == 2 else None
    if ct is not None:  # what predict computes the final estimator's input with
        check_library_predict(ct, ("transform",), f"pipeline step {steps[0][0]!r}")
    return ct, steps[-1]


def _encoder_values(encoder: Any, i: int, values: list[Any], where: str) -> list[np.ndarray]:
    """What ``encoder`` outputs for input column ``i`` at each of ``values`` (the other
    columns at their first category)."""
    import pandas as pd

    cats = [c[0] for c in encoder.categories_]
    rows = [[*cats[:i], v, *cats[i + 1 :]] for v in values]
    names = getattr(encoder, "feature_names_in_", None)
    table: Any = (
        pd.DataFrame(rows, columns=list(names)) if names is not None else np.array(rows, object)
    )
    if names is not None:
        table = table.astype({names[i]: object})
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = encoder.transform(table)
    except ValueError as err:
        first = str(err).strip().splitlines()[0] if str(err).strip() else _kind(err)
        raise InvalidModelError(f"{where}: the encoder refuses a declared value: {first}") from None
    out = out.toarray() if hasattr(out, "toarray") else np.asarray(out)
    return [np.asarray(r, dtype=np.float64) for r in out]


def _layout(ct: Any, declared: dict[str, Feature]) -> tuple[list[Feature], Layout]:
    """The original features (used columns, input order) and each output column's layout."""
    from sklearn.preprocessing import OneHotEncoder, OrdinalEncoder

    n_in = int(ct.n_features_in_)
    names_in = getattr(ct, "feature_names_in_", None)
    names = [str(c) for c in names_in] if names_in is not None else [f"x{i}" for i in range(n_in)]
    unknown = sorted(set(declared) - set(names))
    if unknown:
        raise InvalidModelError(
            f"features {unknown[:5]!r}: expected names of the pipeline's input columns {names}"
        )
    specs = {name: t for name, t, _ in ct.transformers}
    n_out = sum(s.stop - s.start for s in ct.output_indices_.values())
    out: list[tuple[int, dict[Any, float] | None] | None] = [None] * n_out
    used: dict[int, Feature] = {}
    for name, trans, _ in ct.transformers_:
        spec = ct.remainder if name == "remainder" else specs.get(name, trans)
        inputs = [int(i) for i in ct._transformer_to_input_indices[name]]
        where = ct.output_indices_[name]
        if spec == "drop" or not inputs:
            continue
        for i in inputs:
            if i in used:
                raise UnsupportedModelError(
                    f"ColumnTransformer: column {names[i]!r} is used by two transformers"
                )
        if spec == "passthrough":
            for k, i in enumerate(inputs):
                f = declared.get(names[i], Feature.real(names[i]))
                if f.is_discrete and not all(isinstance(v, (int, float)) for v in f.values):
                    raise InvalidModelError(
                        f"feature {f.name!r}: a passthrough column reaches the model as a "
                        "number: expected numeric values"
                    )
                used[i] = f
                out[where.start + k] = (i, None)
            continue
        if not isinstance(trans, (OneHotEncoder, OrdinalEncoder)):
            raise UnsupportedModelError(
                f"ColumnTransformer step {name!r}: expected OneHotEncoder, OrdinalEncoder, "
                f"'passthrough' or 'drop', found {_kind(trans)}"
            )
        check_library_predict(trans, ("transform",), f"ColumnTransformer step {name!r}")
        widths = (
            list(trans._n_features_outs) if isinstance(trans, OneHotEncoder) else [1] * len(inputs)
        )
        start = where.start
        for k, i in enumerate(inputs):
            cats = [_plain(c) for c in trans.categories_[k] if not _missing(_plain(c))]
            f = declared.get(names[i], Feature.categorical(names[i], cats))
            if not f.is_discrete:
                raise InvalidModelError(
                    f"feature {f.name!r}: column encoded by {name!r}: expected a categorical "
                    f"feature, found a {f.kind} one"
                )
            used[i] = f
            vectors = _encoder_values(trans, k, list(f.values), f"feature {f.name!r}")
            first = start - where.start  # the encoder's output has every column it encodes
            for p in range(widths[k]):
                out[start + p] = (
                    i,
                    {v: float(vec[first + p]) for v, vec in zip(f.values, vectors)},
                )
            start += widths[k]
    if any(o is None for o in out):
        raise InvalidModelError("ColumnTransformer: an output column has no known source")
    order = sorted(used)
    index = {i: j for j, i in enumerate(order)}
    layout = [(index[o[0]], o[1]) for o in out if o is not None]
    return [used[i] for i in order], layout


def _tree_model(est: Any) -> TreeEnsemble:
    """The final estimator over its encoded columns."""
    from sklearn.base import is_regressor
    from sklearn.ensemble import (
        ExtraTreesClassifier,
        GradientBoostingClassifier,
        HistGradientBoostingClassifier,
        RandomForestClassifier,
    )
    from sklearn.tree import DecisionTreeClassifier

    base = library_class(est)  # a subclass is read as its library's class, if it predicts so
    module = "" if base is None else base.__module__.split(".")[0]
    if is_regressor(est):
        raise UnsupportedModelError(
            f"pipeline: expected a tree classifier last, found the regressor {_kind(est)}"
        )
    if isinstance(est, DecisionTreeClassifier):
        return _one_tree_forest(est)
    if isinstance(est, (RandomForestClassifier, ExtraTreesClassifier, GradientBoostingClassifier)):
        from xpg.models.ensemble_import import ensemble_from_sklearn

        return ensemble_from_sklearn(est)
    if isinstance(est, HistGradientBoostingClassifier):
        from xpg.models.import_hist import read_hist_gradient_boosting

        return read_hist_gradient_boosting(est)
    if module == "xgboost":
        from xpg.models.import_xgboost import read_xgboost

        return read_xgboost(est)
    if module == "lightgbm":
        from xpg.models.import_lightgbm import read_lightgbm

        return read_lightgbm(est)
    raise UnsupportedModelError(
        "pipeline: expected a tree classifier last (DecisionTree, RandomForest, ExtraTrees, "
        f"GradientBoosting, HistGradientBoosting, XGB, LGBM), found {_kind(est)}"
    )


def _one_tree_forest(est: Any) -> Forest:
    """A ``DecisionTreeClassifier`` as a forest of one tree (``predict``: the first class of
    largest leaf value, as the forest's vote)."""
    from xpg.compile.sklearn_tree import learned_missing_routing

    check_library_predict(est)
    if getattr(est, "tree_", None) is None:
        raise InvalidModelError("the DecisionTreeClassifier is not fitted")
    if est.n_outputs_ != 1:
        raise InvalidModelError(
            f"DecisionTreeClassifier: expected one output, found {est.n_outputs_}"
        )
    if learned_missing_routing(est):
        raise UnsupportedModelError(
            "DecisionTreeClassifier: expected a tree trained without missing values"
        )
    tree = est.tree_
    k = len(est.classes_)
    left = np.asarray(tree.children_left, dtype=np.int64)
    split = left >= 0
    cuts = np.zeros(len(left))
    cuts[split] = [float32_cut(float(t)) for t in tree.threshold[split]]
    arrays = EnsembleTree(
        np.where(split, tree.feature, -1).astype(np.int64),
        cuts,
        left,
        np.asarray(tree.children_right, dtype=np.int64),
        np.where(split[:, None], 0.0, tree.value[:, 0, :k]).astype(np.float64),
    )
    n = int(est.n_features_in_)
    feats = [Feature.real(f"x{i}") for i in range(n)]
    return Forest(feats, [_plain(c) for c in est.classes_], [arrays], np.zeros(k), 1.0)


def _rewrite(model: TreeEnsemble, feats: list[Feature], layout: Layout) -> list[EnsembleTree]:
    """Each tree of ``model`` (over encoded columns) as a tree over ``feats``."""
    if len(model.features) != len(layout):
        raise InvalidModelError(
            f"pipeline: the model reads {len(model.features)} columns, the ColumnTransformer "
            f"makes {len(layout)}"
        )
    numbers: list[dict[Any, float] | None] = []
    for c, (j, values) in enumerate(layout):
        if values is None:
            numbers.append(None)
            continue
        inner = model.features[c]
        table = {}
        for v, x in values.items():
            if inner.is_discrete and not math.isnan(x) and not inner.contains(x):
                raise UnsupportedModelError(
                    f"feature {feats[j].name!r}: the encoder gives {x!r}, outside the model's "
                    f"domain for column {inner.name!r}"
                )
            table[v] = x if math.isnan(x) else feature_number(inner, x)
        numbers.append(table)
    out = []
    for tree in model.trees:
        out.append(_rewrite_tree(tree, feats, layout, numbers))
    return out


def _rewrite_tree(
    tree: EnsembleTree,
    feats: list[Feature],
    layout: Layout,
    numbers: list[dict[Any, float] | None],
) -> EnsembleTree:
    w = TreeWriter(tree.value.shape[1])
    routes = tree.missing_left is not None

    def emit(n: int, possible: dict[int, frozenset[Any]]) -> int:
        if tree.left[n] < 0:
            return w.leaf(tree.value[n].tolist())
        c = int(tree.feature[n])
        cut = float(tree.threshold[n])
        nan_left = bool(tree.missing_left[n]) if tree.missing_left is not None else False
        lo, hi = int(tree.left[n]), int(tree.right[n])
        j, _ = layout[c]
        table = numbers[c]
        if table is None:
            node = w.split(j, cut, nan_left)
            w.children(node, emit(lo, possible), emit(hi, possible))
            return node
        here = possible.get(j, frozenset(feats[j].values))
        go = frozenset(v for v in here if (nan_left if math.isnan(table[v]) else table[v] <= cut))
        if go == here or not go:
            return emit(lo if go else hi, possible)
        f = feats[j]
        sub = set_split_subtree(
            [feature_number(f, v) for v in here],
            {feature_number(f, v) for v in go},
            missing_in=nan_left if routes else None,
        )
        inside: Callable[[], int] = lambda: emit(lo, {**possible, j: go})  # noqa: E731
        outside: Callable[[], int] = lambda: emit(hi, {**possible, j: here - go})  # noqa: E731
        return w.graft(j, sub, inside, outside)

    emit(0, {})
    return w.tree(missing=routes)


def _rebuilt(model: TreeEnsemble, feats: list[Feature], trees: list[EnsembleTree]) -> Any:
    if isinstance(model, GBDT):
        return GBDT(
            feats,
            model.classes,
            trees,
            model.base,
            precision=model.precision,
            decision=model.decision,  # type: ignore[arg-type]
            cut=model.cut,
            strict=model.strict,
            average=model.average,
            source=model.source,
        )
    if isinstance(model, (Forest, BoostedTrees)):
        return type(model)(feats, model.classes, trees, model.base, model.scale)
    raise InvalidModelError(f"pipeline: cannot rewrite a {_kind(model)}")


def read_pipeline(pipeline: Any, features: Sequence[Feature] | None = None) -> TreeEnsemble:
    """A fitted ``Pipeline`` (``ColumnTransformer`` then a tree classifier) as a model over
    its original columns, computing exactly ``pipeline.predict`` (see the module docstring).

    Parameters
    ----------
    pipeline : sklearn.pipeline.Pipeline
        Fitted; a ``ColumnTransformer`` of ``OneHotEncoder``, ``OrdinalEncoder``,
        ``"passthrough"`` and ``"drop"`` (remainder passthrough or drop), then a
        ``DecisionTreeClassifier``, a scikit-learn tree ensemble, a
        ``HistGradientBoostingClassifier``, an ``XGBClassifier`` or an ``LGBMClassifier``.
    features : sequence of Feature, optional
        Domains of some original columns, matched by name (others: categorical over the
        encoder's categories, real for passthrough columns).

    Returns
    -------
    Forest, BoostedTrees or GBDT
        Over the used original columns, in input order.

    Raises
    ------
    UnsupportedModelError
        Any other step (a scaler, an imputer, ...), a regressor, a column read twice.
    InvalidModelError
        Not a pipeline, not fitted, declared values the encoder refuses.

    Examples
    --------
    >>> from sklearn.compose import make_column_transformer
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> pipe = make_pipeline(StandardScaler(), DecisionTreeClassifier()).fit([[0], [1]], [0, 1])
    >>> try:
    ...     read_pipeline(pipe)
    ... except UnsupportedModelError as err:
    ...     print(str(err).split(": ")[0], "|", str(err).split(", ")[-1])
    pipeline step 'standardscaler' | found StandardScaler
    """
    ct, (_, est) = _steps(pipeline)
    declared = {f.name: f for f in features or ()}
    if not all(isinstance(f, Feature) for f in declared.values()):
        raise InvalidModelError("pipeline: expected plain features, matched by name")
    model = _tree_model(est)
    if ct is None:
        n = len(model.features)
        names = getattr(pipeline, "feature_names_in_", None)
        cols = [str(c) for c in names] if names is not None else [f"x{i}" for i in range(n)]
        feats = [declared.get(c, model.features[i]) for i, c in enumerate(cols)]
        layout: Layout = [(i, None) for i in range(n)]
    else:
        feats, layout = _layout(ct, declared)
    return _rebuilt(model, feats, _rewrite(model, feats, layout))


__all__ = ["read_pipeline"]
