"""Models learned from a data table, in one call: split, fit, compile, measure.

:func:`learn_tree_from_table` trains scikit-learn's ``DecisionTreeClassifier`` (or an
optimal depth-limited tree, :mod:`xpg.learn.optimal_tree`),
:func:`learn_ensemble_from_table` a random forest, extra trees or gradient boosting,
:func:`learn_list_from_table` a RIPPER decision list (or a CN2 one, learned by Orange3 in an
environment of its own: :mod:`xpg.learn.cn2`) and :func:`learn_risk_score_from_table` a
BBM-RS risk score on a table (a pandas ``DataFrame`` or a
file :func:`xpg.io.tables.read_table` reads).  The columns are typed and encoded by
:func:`xpg.learn.table_data.prepare_table`; the rows are split into a training and a test set
with a seed (stratified by class when every class has two rows or more); the learned model is
the project's own (a :class:`~xpg.models.tree.DecisionTree` over the original features, whose
categorical features are tested by value sets of their categories, or a
:class:`~xpg.models.decision_list.DecisionList`), ready for :func:`xpg.io.save_model`.  The
:class:`LearnReport` says what was done: rows dropped, split, accuracy of the written model on
both sets, its size and the features it tests.

Examples
--------
>>> import pandas as pd
>>> frame = pd.DataFrame({"a": [0, 1] * 20, "colour": ["red", "blue", "green", "red"] * 10,
...                       "y": ["no", "yes"] * 20})
>>> learned = learn_tree_from_table(frame, "y", max_depth=2, seed=0)
>>> learned.report.train_accuracy, learned.report.test_accuracy, learned.report.features_used
(1.0, 1.0, ['a'])
>>> learned.model.predict({"a": 1, "colour": "green"})
'yes'

References
----------
Breiman, Friedman, Olshen, Stone. Classification and Regression Trees. 1984; Cohen. Fast
effective rule induction. ICML 1995 (RIPPER); Huang et al. KR 2021, Sec. 7.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Literal

import numpy as np

from xpg.errors import InvalidDataError, InvalidModelError, MissingExtraError
from xpg.learn.table_data import CategoricalEncoding, MissingPolicy, TableData, prepare_table

#: the learners of :func:`learn_tree_from_table`
TreeLearner = Literal["cart", "optimal"]
TREE_LEARNERS: tuple[str, ...] = ("cart", "optimal")
#: the learners of :func:`learn_list_from_table`
ListLearner = Literal["ripper", "cn2"]
LIST_LEARNERS: tuple[str, ...] = ("ripper", "cn2")


@dataclass(frozen=True)
class LearnReport:
    """What :func:`learn_tree_from_table` or :func:`learn_list_from_table` did.

    ``size`` is ``{"nodes", "leaves", "depth"}`` for a tree, ``{"rules", "conditions"}`` for a
    list; accuracies are those of the learned (written) model; ``test_accuracy`` is None when
    there is no test set.
    """

    model: str
    target: str
    classes: list[Any]
    features: int
    source_rows: int
    dropped_rows: int
    dropped_columns: list[str]
    train_rows: int
    test_rows: int
    stratified: bool
    train_accuracy: float
    test_accuracy: float | None
    size: dict[str, int]
    features_used: list[str]
    #: learner-specific facts: JSON fields added to :meth:`to_dict`, and text lines
    details: dict[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """The report as a JSON-ready dict."""
        return {
            "model": self.model,
            "target": self.target,
            "classes": list(self.classes),
            "features": self.features,
            "source_rows": self.source_rows,
            "dropped_rows": self.dropped_rows,
            "dropped_columns": list(self.dropped_columns),
            "train_rows": self.train_rows,
            "test_rows": self.test_rows,
            "stratified": self.stratified,
            "train_accuracy": self.train_accuracy,
            "test_accuracy": self.test_accuracy,
            "size": dict(self.size),
            "features_used": list(self.features_used),
            **self.details,
        }

    def lines(self) -> list[str]:
        """The report as text, one fact per line."""
        rows = f"rows: {self.source_rows}"
        if self.dropped_rows:
            rows += f", {self.dropped_rows} dropped for a missing value"
        if self.dropped_columns:
            rows += f"; columns dropped for a missing value: {', '.join(self.dropped_columns)}"
        split = f"split: {self.train_rows} train, {self.test_rows} test"
        split += (
            " (stratified)" if self.stratified else (" (not stratified)" * (self.test_rows > 0))
        )
        test = "n/a" if self.test_accuracy is None else f"{self.test_accuracy:.4f}"
        size = ", ".join(f"depth {v}" if k == "depth" else f"{v} {k}" for k, v in self.size.items())
        used = ", ".join(self.features_used) if self.features_used else "none"
        return [
            f"{self.model}: target {self.target!r}, {len(self.classes)} classes, "
            f"{self.features} features",
            rows,
            split,
            f"accuracy: train {self.train_accuracy:.4f}, test {test}",
            f"size: {size}; features used ({len(self.features_used)}): {used}",
            *self.notes,
        ]


@dataclass
class Learned:
    """A learned model with its report, the table it came from and, for a tree, the fitted
    scikit-learn estimator (trained on ``data.X[train]``).  The model's domains are those
    read off the table; :func:`~xpg.learn.feature_types.declare_domains` widens the features
    it never tests, as ``xpg learn`` does before writing the file."""

    model: Any
    report: LearnReport
    data: TableData
    train: np.ndarray
    test: np.ndarray
    estimator: Any = field(default=None, repr=False)


def split_rows(y: np.ndarray, test_size: float, seed: int | None) -> tuple[Any, Any, bool]:
    """Training and test row indices, and whether the split is stratified by class.

    Stratified when the test set can hold every class and every class has two rows or more;
    ``test_size`` is a fraction in ``[0, 1)`` (0: no test set).

    >>> train, test, stratified = split_rows(np.array([0, 1] * 10), 0.2, 0)
    >>> len(train), len(test), stratified, sorted(np.array([0, 1] * 10)[test].tolist())
    (16, 4, True, [0, 0, 1, 1])
    """
    if not 0 <= test_size < 1:
        raise InvalidDataError(f"test size: expected a fraction in [0, 1), found {test_size}")
    n = len(y)
    everything = np.arange(n)
    if test_size == 0:
        return everything, everything[:0], False
    from sklearn.model_selection import train_test_split

    n_test = int(np.ceil(test_size * n))
    if n_test >= n:
        raise InvalidDataError(
            f"test size {test_size} leaves no training row out of {n} (use a smaller fraction)"
        )
    classes, counts = np.unique(y, return_counts=True)
    stratify = counts.min() >= 2 and len(counts) <= min(n_test, n - n_test)
    train, test = train_test_split(
        everything, test_size=n_test, random_state=seed, stratify=y if stratify else None
    )
    left = np.unique(y[train])
    if len(classes) >= 2 and len(left) < 2:
        raise InvalidDataError(
            f"test size {test_size} leaves {len(train)} of the {n} rows for training, all of "
            f"class {_plain(left[0])!r} (the table has {len(classes)} classes): a model of one "
            "class predicts nothing (use a smaller fraction)"
        )
    return np.sort(train), np.sort(test), bool(stratify)


def _plain(value: Any) -> Any:
    """A numpy scalar as the Python value it holds (for messages and reports)."""
    return value.item() if isinstance(value, np.generic) else value


def _check_classes(data: TableData) -> None:
    """A target of classes (not real numbers), two of them at least."""
    if data.y.dtype.kind == "f":
        distinct = np.unique(data.y)
        shown = ", ".join(f"{v:g}" for v in distinct[:3].tolist())
        more = ", ..." if len(distinct) > 3 else ""
        raise InvalidDataError(
            f"target {data.target!r}: expected a class column (categories or integers), "
            f"found real numbers ({len(distinct)} distinct values: {shown}{more})"
        )
    classes = data.classes
    if len(classes) < 2:
        raise InvalidDataError(
            f"target {data.target!r} has one class ({classes[0]!r}) in the rows kept: "
            "nothing to learn"
        )


def _positive_class(positive: Any, data: TableData) -> Any:
    """The class of ``data`` that ``positive`` names (equal, or of the same text); None for
    None."""
    if positive is None:
        return None
    matches = [c for c in data.classes if c == positive or str(c) == str(positive)]
    if not matches:
        raise InvalidDataError(
            f"positive class {positive!r} is not a class of {data.target!r} "
            f"(classes: {', '.join(str(c) for c in data.classes)})"
        )
    return matches[0]


def _refuse_columns(names: list[str], why: str) -> None:
    """Refuse the feature columns ``names``, when there are any, saying ``why``: a template
    of ``{n}``, their number, and ``{shown}``, the first five names."""
    if names:
        shown = ", ".join(repr(n) for n in names[:5]) + (" ..." if len(names) > 5 else "")
        raise InvalidDataError(why.format(n=len(names), shown=shown))


def _accuracy(model: Any, data: TableData, rows: np.ndarray) -> float | None:
    if len(rows) == 0:
        return None
    X = np.empty((len(rows), len(data.features)), dtype=object)
    X[:] = [data.values[i] for i in rows]
    predicted = model.predict_batch(X)
    return float(np.mean([p == t for p, t in zip(predicted.tolist(), data.y[rows].tolist())]))


def learn_tree_from_table(
    table: Any,
    target: str,
    *,
    max_depth: int | None = 6,
    seed: int | None = 0,
    test_size: float = 0.2,
    missing: MissingPolicy = "drop-rows",
    encoding: CategoricalEncoding = "one-hot",
    learner: TreeLearner = "cart",
    time_limit: float | None = None,
    **params: Any,
) -> Learned:
    """A decision tree learned from a table (scikit-learn's CART, or an optimal tree), as
    the project's ``DecisionTree``.

    Parameters
    ----------
    table : pandas.DataFrame or path
    target : str
        The class column.
    max_depth, seed, **params
        ``max_depth``, ``random_state`` and other parameters of ``DecisionTreeClassifier``
        (``learner="optimal"``: ``max_depth``, ``seed``, ``n_thresholds`` and ``complexity``
        of :func:`~xpg.learn.optimal_tree.learn_optimal_tree`).
    learner : {"cart", "optimal"}
        scikit-learn's greedy CART, or the most accurate tree of depth at most ``max_depth``
        on the training rows (STreeD, the ``optimal`` extra; the report says whether the
        search finished or stopped at the time limit with the best tree found so far).
    time_limit : float, optional
        Seconds the optimal tree's search may take (default
        :data:`~xpg.learn.optimal_tree.TIME_LIMIT`); only with ``learner="optimal"``.
    test_size : float
        Fraction of the rows held out for the test accuracy (split with ``seed``).
    missing, encoding
        See :func:`xpg.learn.table_data.prepare_table`.

    Returns
    -------
    Learned
        ``model`` (a :class:`~xpg.models.tree.DecisionTree` predicting what ``estimator``
        predicts, on every row), ``report``, ``data``, ``train``/``test`` row indices,
        ``estimator`` (for ``learner="optimal"``, the
        :class:`~xpg.learn.optimal_tree.OptimalTree`, whose ``streed_predict`` is pystreed's
        own prediction).

    Raises
    ------
    InvalidDataError
        Bad table (see :func:`~xpg.learn.table_data.prepare_table`), a target with one class,
        a test size that leaves no training row, an unknown learner.
    MissingExtraError
        ``learner="optimal"`` without pystreed.
    """
    from xpg.models.tree import Split

    if learner not in TREE_LEARNERS:
        raise InvalidDataError(
            f"learner: expected one of {', '.join(TREE_LEARNERS)}, found {learner!r}"
        )
    if max_depth is not None and max_depth < 1:
        raise InvalidDataError(f"max depth: expected a positive integer, found {max_depth}")
    if learner == "optimal":
        from xpg.learn.optimal_tree import _streed

        _streed()  # the missing extra is said before the table is read
    elif time_limit is not None:
        raise InvalidDataError("a time limit applies to learner='optimal' only")
    data = prepare_table(table, target, missing=missing, encoding=encoding)
    _check_classes(data)
    train, test, stratified = split_rows(data.y, test_size, seed)
    details: dict[str, Any] = {}
    notes: tuple[str, ...] = ()
    if learner == "optimal":
        clf, model, details, notes = _optimal_tree(data, train, max_depth, seed, time_limit, params)
    else:
        from sklearn.tree import DecisionTreeClassifier

        from xpg.models.tree import tree_from_sklearn

        try:
            clf = DecisionTreeClassifier(max_depth=max_depth, random_state=seed, **params)
        except TypeError as err:
            raise InvalidModelError(f"DecisionTreeClassifier: {err}") from None
        clf.fit(data.X[train], data.y[train])
        model = tree_from_sklearn(clf, data.entries)
    used = {node.feature for _, node in model.walk() if isinstance(node, Split)}
    nodes = len(model)
    leaves = sum(1 for _, node in model.walk() if not isinstance(node, Split))
    report = _report(
        "decision-tree",
        model,
        data,
        train,
        test,
        stratified,
        {"nodes": nodes, "leaves": leaves, "depth": model.depth},
        used,
        details,
        notes,
    )
    return Learned(model, report, data, train, test, clf)


def _optimal_tree(
    data: TableData,
    train: np.ndarray,
    max_depth: int | None,
    seed: int | None,
    time_limit: float | None,
    params: dict[str, Any],
) -> tuple[Any, Any, dict[str, Any], tuple[str, ...]]:
    """``learn_tree_from_table(learner="optimal")``: the fit, its model, report fields."""
    from xpg.learn.optimal_tree import TIME_LIMIT, learn_optimal_tree

    unknown = sorted(set(params) - {"n_thresholds", "complexity"})
    if unknown:
        raise InvalidModelError(f"optimal tree: unknown parameter(s) {', '.join(unknown)}")
    fit = learn_optimal_tree(
        data.X[train],
        data.y[train],
        features=data.entries,
        max_depth=6 if max_depth is None else max_depth,
        time_limit=TIME_LIMIT if time_limit is None else time_limit,
        classes=data.classes,
        seed=0 if seed is None else seed,
        **params,
    )
    details = {
        "learner": "optimal",
        "optimal": fit.optimal,
        "search_seconds": round(fit.seconds, 3),
        "time_limit": fit.time_limit,
        "binary_features": len(fit.binarization),
    }
    penalty = ""
    if params.get("complexity"):
        details["complexity"] = params["complexity"]
        penalty = f", complexity {params['complexity']:g} per split"
    note = (
        f"learner: optimal tree (STreeD, pystreed) over {len(fit.binarization)} binary "
        f"features{penalty}, search {fit.seconds:.2f} s: {fit.status}"
    )
    return fit, fit.model, details, (note,)


def learn_list_from_table(
    table: Any,
    target: str,
    *,
    seed: int | None = 0,
    test_size: float = 0.2,
    positive: Any | None = None,
    missing: MissingPolicy = "drop-rows",
    learner: ListLearner = "ripper",
    **params: Any,
) -> Learned:
    """A decision list learned from a table: RIPPER (the ``rules`` extra: wittgenstein), or
    an ordered CN2 rule list learned by Orange3 in an environment of its own.

    Parameters
    ----------
    table : pandas.DataFrame or path
    target : str
    seed, test_size, missing
        As for :func:`learn_tree_from_table` (``seed`` is also RIPPER's ``random_state``;
        CN2 is deterministic).
    positive : optional
        RIPPER only: the class whose rules come first; a string is matched against the
        classes' text, so ``"1"`` names the class ``1`` of a numeric target.
    learner : {"ripper", "cn2"}
        ``"cn2"``: Orange3's ``CN2Learner`` with its defaults, the core paper's set-up
        (:func:`xpg.learn.cn2.learn_cn2`; the environment is created on first use, which
        needs the network once); it also takes real-valued columns (``f <= t``, ``f >= t``).
        The report then says that the list predicts Orange's class on every row.
    **params
        RIPPER: ``max_rules``, ``max_rule_conds``, ``k``, ``prune_size`` of
        :func:`~xpg.learn.decision_list.learn_decision_list`; CN2: keyword arguments of
        ``CN2Learner``.

    Raises
    ------
    InvalidDataError
        As for :func:`learn_tree_from_table`; also an unknown positive class or learner.
    InvalidModelError
        RIPPER: a real-valued feature column (its lists test ``feature = value``).
    MissingExtraError
        RIPPER without wittgenstein.
    ExternalEnvError
        CN2: Orange3's environment cannot be created, or Orange fails.
    """
    if learner not in LIST_LEARNERS:
        raise InvalidDataError(
            f"learner: expected one of {', '.join(LIST_LEARNERS)}, found {learner!r}"
        )
    if learner == "cn2":
        if positive is not None:
            raise InvalidDataError("a positive class applies to RIPPER only (CN2 orders its rules)")
        return _learn_cn2_list(table, target, seed, test_size, missing, params)
    from xpg.learn.decision_list import _ripper, learn_decision_list

    _ripper()  # the missing extra is said before anything else
    data = prepare_table(table, target, missing=missing)
    _check_classes(data)
    classes = data.classes
    positive = _positive_class(positive, data)
    _refuse_columns(
        [f.name for f in data.features if f.kind == "real"],
        "a decision list tests feature = value, and {n} column(s) hold real numbers: {shown} "
        "(discretise them, learn a tree, or use the cn2 learner)",
    )
    train, test, stratified = split_rows(data.y, test_size, seed)
    X = np.empty((len(train), len(data.features)), dtype=object)
    X[:] = [data.values[i] for i in train]
    try:
        model = learn_decision_list(
            X,
            data.y[train],
            features=data.features,
            classes=classes,
            random_state=seed,
            positive=positive,
            **params,
        )
    except TypeError as err:
        raise InvalidModelError(f"learn_decision_list: {err}") from None
    return _list_learned(model, data, train, test, stratified)


def _list_learned(
    model: Any,
    data: TableData,
    train: np.ndarray,
    test: np.ndarray,
    stratified: bool,
    details: dict[str, Any] | None = None,
    notes: tuple[str, ...] = (),
) -> Learned:
    used = set(model.tested_features())
    conditions = sum(len(r.conditions) for r in model.rules)
    report = _report(
        "decision-list",
        model,
        data,
        train,
        test,
        stratified,
        {"rules": len(model.rules), "conditions": conditions},
        used,
    )
    if details or notes:
        report = replace(report, details=dict(details or {}), notes=notes)
    return Learned(model, report, data, train, test)


def _learn_cn2_list(
    table: Any,
    target: str,
    seed: int | None,
    test_size: float,
    missing: MissingPolicy,
    params: dict[str, Any],
) -> Learned:
    from xpg.learn.cn2 import learn_cn2

    data = prepare_table(table, target, missing=missing)
    _check_classes(data)
    train, test, stratified = split_rows(data.y, test_size, seed)
    rows = np.empty((len(data.values), len(data.features)), dtype=object)
    rows[:] = data.values
    result = learn_cn2(
        rows[train],
        data.y[train].tolist(),
        data.features,
        data.classes,
        predict=rows,
        params=params,
    )
    details = {
        "learner": "cn2",
        "orange_version": result.orange_version,
        "agrees_with_orange": len(rows),
    }
    note = (
        f"learner: CN2 (Orange3 {result.orange_version}); the list predicts Orange's class "
        f"on all {len(rows)} rows"
    )
    return _list_learned(result.model, data, train, test, stratified, details, (note,))


def learn_risk_score_from_table(
    table: Any,
    target: str,
    *,
    conditions: int,
    tau: float = 0.05,
    seed: int | None = 0,
    test_size: float = 0.2,
    positive: Any | None = None,
    missing: MissingPolicy = "drop-rows",
    gamma: float = 0.01,
) -> Learned:
    """A BBM-RS risk score learned from a table (:func:`xpg.learn.risk_score.bbm_rs`).

    The score card reads in the data's own units: BBM-RS moves each feature by ``tau`` times
    its range on the training rows, which is the paper's noise on features normalised to
    [0, 1].

    Parameters
    ----------
    table : pandas.DataFrame or path
    target : str
        The class column; it must hold two classes.
    conditions : int
        ``T``, the number of boosting rounds: at most this many conditions, one point each.
    tau : float
        The noise level in units of each feature's range (the paper's 0.05).
    seed, test_size, missing
        As for :func:`learn_tree_from_table` (BBM-RS itself is deterministic).
    positive : optional
        The class predicted when the total score is >= 0 (default: the greater class); a
        string is matched against the classes' text.
    gamma : float
        The weak learners' edge (the paper's 0.01: a round needs accuracy above 0.51).

    Returns
    -------
    Learned
        ``model`` a :class:`~xpg.models.risk_score.RiskScore` over the table's features.

    Raises
    ------
    InvalidDataError
        As for :func:`learn_tree_from_table`; a categorical column, a target without exactly
        two classes, an unknown positive class.
    InvalidParameterError
        ``conditions`` not a positive integer, ``tau`` outside [0, 1).

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"age": list(range(20, 60)), "y": ["no"] * 20 + ["yes"] * 20})
    >>> learned = learn_risk_score_from_table(frame, "y", conditions=3, tau=0.0, test_size=0)
    >>> print(learned.model.describe())
    condition    points
    bias term        -1
    age >= 39.5       2
    predict 'yes' (positive) if the total score >= 0, else 'no'
    """
    from xpg.learn.risk_score import _check, bbm_rs

    conditions, tau, gamma = _check(conditions, tau, gamma)
    data = prepare_table(table, target, missing=missing)
    _check_classes(data)
    classes = data.classes
    if len(classes) != 2:
        raise InvalidDataError(
            f"a risk score separates two classes, and {target!r} has {len(classes)}: "
            f"{', '.join(str(c) for c in classes[:10])}"
        )
    _refuse_columns(
        [f.name for f in data.features if f.kind == "categorical"],
        "a risk score tests feature >= threshold, and {n} column(s) hold categories: {shown} "
        "(encode them as 0/1 columns, or learn a tree)",
    )
    positive = _positive_class(positive, data)
    train, test, stratified = split_rows(data.y, test_size, seed)
    model = bbm_rs(
        data.X[train],
        data.y[train],
        T=conditions,
        tau=tau,
        gamma=gamma,
        features=data.features,
        positive=positive,
    )
    report = _report(
        "risk-score",
        model,
        data,
        train,
        test,
        stratified,
        {"conditions": len(model.conditions)},
        set(model.tested_features()),
    )
    return Learned(model, report, data, train, test)


#: the ensembles ``learn_ensemble_from_table`` trains, by kind: ``module.Class``
ENSEMBLE_LEARNERS: dict[str, str] = {
    "forest": "sklearn.ensemble.RandomForestClassifier",
    "extra-trees": "sklearn.ensemble.ExtraTreesClassifier",
    "boosted": "sklearn.ensemble.GradientBoostingClassifier",
    "hist": "sklearn.ensemble.HistGradientBoostingClassifier",
    "xgboost": "xgboost.XGBClassifier",
    "lightgbm": "lightgbm.LGBMClassifier",
}
#: the optional extra that installs each library
_EXTRAS = {"xgboost": "xgboost", "lightgbm": "lightgbm"}


def _ensemble_estimator(
    kind: str, n_trees: int, max_depth: int | None, seed: int | None, params: dict[str, Any]
) -> Any:
    """The unfitted estimator of ``kind`` (:data:`ENSEMBLE_LEARNERS`), single-threaded so that
    a seed gives the same model everywhere."""
    import importlib

    module, _, name = ENSEMBLE_LEARNERS[kind].rpartition(".")
    try:
        cls = getattr(importlib.import_module(module), name)
    except ImportError:
        raise MissingExtraError(
            f"--library {kind} needs {module}: pip install -e '.[{_EXTRAS.get(kind, kind)}]' "
            "from the clone"
        ) from None
    if kind == "hist":
        return cls(max_iter=n_trees, max_depth=max_depth, random_state=seed, **params)
    if kind == "xgboost":
        params = {"n_jobs": 1, **params}
    elif kind == "lightgbm":
        params = {"n_jobs": 1, "verbose": -1, **params}
    return cls(n_estimators=n_trees, max_depth=max_depth, random_state=seed, **params)


def learn_ensemble_from_table(
    table: Any,
    target: str,
    kind: str = "forest",
    *,
    n_trees: int = 100,
    max_depth: int | None = 6,
    seed: int | None = 0,
    test_size: float = 0.2,
    missing: MissingPolicy = "drop-rows",
    **params: Any,
) -> Learned:
    """A scikit-learn tree ensemble learned from a table, as the project's
    :class:`~xpg.models.ensemble.Forest` or :class:`~xpg.models.ensemble.BoostedTrees`.

    Categorical columns are given to scikit-learn as one column of category codes (their
    positions in the feature's sorted values), so the model's features are the table's own
    columns and an explanation names them.

    Parameters
    ----------
    table : pandas.DataFrame or path
    target : str
    kind : {"forest", "extra-trees", "boosted", "hist", "xgboost", "lightgbm"}
        ``RandomForestClassifier``, ``ExtraTreesClassifier``, ``GradientBoostingClassifier``,
        ``HistGradientBoostingClassifier``, XGBoost's ``XGBClassifier`` or LightGBM's
        ``LGBMClassifier`` (the last two need their extras).
    n_trees, max_depth, seed, **params
        ``n_estimators``, ``max_depth``, ``random_state`` and other parameters of the estimator
        in its library's names (``learning_rate`` for boosting, say;
        :func:`~xpg.learn.ensemble_params.ensemble_params` names the common ones); those
        given are reported as the fitted estimator holds them (``report.details``).
    test_size, missing
        As for :func:`learn_tree_from_table`.

    Returns
    -------
    Learned
        ``model`` predicts what ``estimator`` predicts, on every input;
        ``report.size`` is ``{"trees", "nodes", "depth"}``.

    Raises
    ------
    InvalidDataError
        As for :func:`learn_tree_from_table`; an unknown kind, a non-positive number of trees.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"a": [0, 1] * 20, "colour": ["red", "blue", "green", "red"] * 10,
    ...                       "y": ["no", "yes"] * 20})
    >>> learned = learn_ensemble_from_table(frame, "y", "boosted", n_trees=10, max_depth=2)
    >>> learned.report.size, learned.report.test_accuracy
    ({'trees': 10, 'nodes': 32, 'depth': 2}, 1.0)
    >>> learned.model.predict({"a": 0, "colour": "green"})
    'no'
    """
    from xpg.learn.importing import import_model
    from xpg.models.ensemble_tree import feature_number

    if kind not in ENSEMBLE_LEARNERS:
        raise InvalidDataError(
            f"ensemble kind: expected one of {', '.join(ENSEMBLE_LEARNERS)}, found {kind!r}"
        )
    if isinstance(n_trees, bool) or not isinstance(n_trees, int) or n_trees < 1:
        raise InvalidDataError(f"trees: expected a positive integer, found {n_trees!r}")
    if max_depth is not None and max_depth < 1:
        raise InvalidDataError(f"max depth: expected a positive integer, found {max_depth}")
    data = prepare_table(table, target, missing=missing, encoding="ordinal")
    _check_classes(data)
    for f in data.features:
        if f.kind == "categorical" and any(
            feature_number(f, v) != float(k) for k, v in enumerate(f.values)
        ):
            raise InvalidDataError(
                f"column {f.name!r}: a categorical column of numbers cannot be read by its codes"
            )
    train, test, stratified = split_rows(data.y, test_size, seed)
    name = ENSEMBLE_LEARNERS[kind].rpartition(".")[2]
    # XGBoost wants the classes as 0..K-1: it is given their positions in data.classes
    labels = list(data.classes)
    y = data.y if kind != "xgboost" else np.array([labels.index(v) for v in data.y.tolist()])
    try:
        est = _ensemble_estimator(kind, n_trees, max_depth, seed, params)
        est.fit(data.X[train].astype(np.float64), y[train])
    except (TypeError, ValueError) as err:
        raise InvalidModelError(f"{name}: {err}") from None
    model = import_model(est, data.features)
    if kind == "xgboost":  # the same trees, with the table's class labels
        model = type(model).from_json_body(model.to_json_body(), list(model.features), labels)
    # the parameters asked for, as the fitted estimator holds them
    own = est.get_params()
    asked = {k: _plain(own[k]) for k in params if k in own}
    shown = ", ".join(f"{k}={'none' if v is None else v}" for k, v in asked.items())
    report = _report(
        model.json_type,
        model,
        data,
        train,
        test,
        stratified,
        {"trees": len(model.trees), "nodes": model.n_nodes, "depth": model.max_depth},
        set(model.tested_features()),
        {"parameters": asked} if asked else None,
        (f"parameters: {shown}",) if asked else (),
    )
    return Learned(model, report, data, train, test, est)


def _report(
    kind: str,
    model: Any,
    data: TableData,
    train: np.ndarray,
    test: np.ndarray,
    stratified: bool,
    size: dict[str, int],
    used: set[str],
    details: dict[str, Any] | None = None,
    notes: tuple[str, ...] = (),
) -> LearnReport:
    train_accuracy = _accuracy(model, data, train)
    assert train_accuracy is not None  # split_rows leaves at least one training row
    return LearnReport(
        model=kind,
        target=data.target,
        classes=list(model.classes),
        features=len(data.features),
        source_rows=data.source_rows,
        dropped_rows=data.dropped_rows,
        dropped_columns=list(data.dropped_columns),
        train_rows=len(train),
        test_rows=len(test),
        stratified=stratified,
        train_accuracy=train_accuracy,
        test_accuracy=_accuracy(model, data, test),
        size=size,
        features_used=[f.name for f in data.features if f.name in used],
        details=dict(details or {}),
        notes=notes,
    )
