"""The four learners of the paper's Table 3, each giving an xpg model and its IC.

* **DT**: scikit-learn's ``DecisionTreeClassifier(criterion="entropy")`` (Appendix B), depth by
  5-fold cross-validation over 5, 10, ..., 30, compiled exactly (``tree_from_sklearn``).
* **RobDT**: Chen et al.'s RobustTrees is a C++ fork of XGBoost with no maintained package, so
  GROOT (``groot-trees``, Vos and Verwer 2021), a robust tree learner against l-infinity
  perturbations, at radius 0.05 is the substitute; depth by the same cross-validation.
* **LCPA**: risk-slim needs CPLEX, so FasterRisk (``fasterrisk``, Liu et al. 2022), which
  learns sparse integer risk scores (coefficients in [-5, 5]) without a MIP solver, is the
  substitute; its l0 norm ``k`` by cross-validation over 5, 10, ..., 30.  A risk score adds
  points for *conditions*, so each feature with more than two values is binarised into
  ``x >= t`` columns (up to :data:`THRESHOLDS` cut points at quantile midpoints, as risk-slim's
  own datasets are binarised); a FasterRisk model is then a :class:`~xpg.models.risk_score
  .RiskScore` with integer points.
* **BBM-RS**: :func:`xpg.learn.bbm_rs` with tau = 0.05, ``T`` by cross-validation over 5, 10,
  ..., 30 (the paper's grid, also the authors' code's).  Its IC is the score card's
  conditions; :attr:`Fitted.learners` also counts the distinct weak learners ``x_i >= theta``
  of its rounds, the paper's count (it includes the constant learner ``x_i >= lowest value``,
  which the card moves into its bias).

GROOT and FasterRisk pin old numpy, pandas and scikit-learn (``pip install --dry-run`` into the
project's environment would downgrade all three), so they run in ``bench/.venvs/risk-baselines``
through :mod:`bench.runners.risk_baselines_runner`; the environment is built by the benchmark
on first use (PyPI), never at import time nor in the default test run.  Each compiled model is
checked against the baseline's own ``predict`` on every test row (:class:`Fitted.agrees`).

Examples
--------
>>> import numpy as np
>>> from xpg.core.features import Feature
>>> X = np.array([[0.0, 1.0], [1.0, 0.0], [0.2, 0.9], [0.9, 0.1]] * 5); y = np.array([0, 1] * 10)
>>> feats = [Feature.real("a", 0, 1), Feature.real("b", 0, 1)]
>>> fitted = fit_dt(X, y, feats, grid=[5], seed=0)
>>> fitted.ic, fitted.param, fitted.model.predict([0.95, 0.0])
(1, 5, 1)
>>> tree = groot_tree_model({"feature": 0, "threshold": 0.5, "left": {"class": 0},
...                          "right": {"class": 1}}, feats)
>>> tree.predict([0.7, 0.3]), tree.predict([0.5, 0.3])
(1, 0)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from xpg.core.features import Feature, Literal
from xpg.models.risk_score import RiskScore, at_least
from xpg.models.tree import DecisionTree, Leaf, Split

#: the paper's grid for depth, T and the l0 norm
GRID = (5, 10, 15, 20, 25, 30)
#: RobDT's radius and BBM-RS's noise
RADIUS = 0.05
#: at most this many cut points per non-binary feature for FasterRisk
THRESHOLDS = 8
METHODS = ("DT", "RobDT", "LCPA", "BBM-RS")


@dataclass
class Fitted:
    """A learned model as an xpg model, with its IC and the chosen grid value.

    ``agrees`` is None for learners run here (the xpg model *is* the model), else whether the
    compiled model predicts what the baseline's own ``predict`` gave on every test row.
    ``learners``: BBM-RS's distinct weak learners (the paper's IC), None for the others.
    """

    model: Any
    ic: int
    param: int
    agrees: bool | None = None
    learners: int | None = None


def _folds(y: np.ndarray, seed: int) -> Any:
    from sklearn.model_selection import StratifiedKFold

    return StratifiedKFold(5, shuffle=True, random_state=seed).split(np.zeros(len(y)), y)


def fit_dt(
    X: np.ndarray, y: np.ndarray, features: list[Feature], grid: Sequence[int], seed: int
) -> Fitted:
    """DT: depth by 5-fold cross-validation, compiled into a ``DecisionTree``."""
    from sklearn.model_selection import GridSearchCV, StratifiedKFold
    from sklearn.tree import DecisionTreeClassifier

    from xpg.models.tree import tree_from_sklearn

    base = DecisionTreeClassifier(criterion="entropy", random_state=seed)
    if len(grid) > 1:
        search = GridSearchCV(
            base,
            {"max_depth": list(grid)},
            cv=StratifiedKFold(5, shuffle=True, random_state=seed),
        )
        search.fit(X, y)
        depth = int(search.best_params_["max_depth"])
    else:
        depth = int(grid[0])
    clf = DecisionTreeClassifier(criterion="entropy", random_state=seed, max_depth=depth)
    clf.fit(X, y)
    internal = int((clf.tree_.children_left >= 0).sum())
    return Fitted(tree_from_sklearn(clf, features, [0, 1]), internal, depth)


def fit_bbm(
    X: np.ndarray,
    y: np.ndarray,
    features: list[Feature],
    grid: Sequence[int],
    seed: int,
    tau: float = RADIUS,
) -> Fitted:
    """BBM-RS: ``T`` by 5-fold cross-validation on accuracy (ties: the smaller ``T``); IC the
    card's conditions, ``learners`` the distinct weak learners of its rounds."""
    from xpg.learn.risk_score import bbm_rs, run_bbm_rs

    def fit(rows: np.ndarray, T: int) -> RiskScore:
        return bbm_rs(X[rows], y[rows], T=T, tau=tau, features=features, positive=1)

    if len(grid) > 1:
        scores: dict[int, list[float]] = {T: [] for T in grid}
        for tr, va in _folds(y, seed):
            for T in grid:
                scores[T].append(float(np.mean(fit(tr, T).predict_batch(X[va]) == y[va])))
        best = max(grid, key=lambda T: (np.mean(scores[T]), -T))
    else:
        best = grid[0]
    result = run_bbm_rs(X, y, T=best, tau=tau, features=features, positive=1)
    learners = len({(r.feature, r.threshold) for r in result.rounds})
    return Fitted(result.model, len(result.model.conditions), best, learners=learners)


def groot_tree_model(doc: dict[str, Any], features: list[Feature]) -> DecisionTree:
    """A GROOT tree (the runner's nested dicts, ``x <= threshold`` to the left) as a
    ``DecisionTree``; a split that cannot go one way on its path (its threshold outside the
    values still possible there) is replaced by its other side."""

    def build(node: dict[str, Any], box: dict[int, tuple[float, float]]) -> Leaf | Split:
        if "class" in node:
            return Leaf(int(node["class"]))
        j, t = int(node["feature"]), float(node["threshold"])
        low, high = box.get(j, (features[j].low, features[j].high))
        if t >= high:  # every value left possible is <= t
            return build(node["left"], box)
        if t < low:
            return build(node["right"], box)
        name = features[j].name
        left = build(node["left"], {**box, j: (low, t)})
        right = build(node["right"], {**box, j: (math.nextafter(t, math.inf), high)})
        if left == right:
            return left
        return Split(name, [(Literal.le(name, t), left), (Literal.gt(name, t), right)])

    return DecisionTree(features, [0, 1], build(doc, {}))


def binarize(X: np.ndarray, limit: int = THRESHOLDS) -> list[tuple[int, float]]:
    """The columns FasterRisk sees, as ``(feature, t)`` for ``x[feature] >= t``: ``t = 0.5``
    for a feature with two values (0 and 1 after scaling), else up to ``limit`` midpoints
    between consecutive distinct values, at evenly spaced quantiles.

    >>> binarize(np.array([[0.0, 0.0], [1.0, 0.5], [0.0, 1.0]]), limit=3)
    [(0, 0.5), (1, 0.25), (1, 0.75)]
    """
    columns: list[tuple[int, float]] = []
    for j, column in enumerate(X.T):
        values = np.unique(column)
        if len(values) < 2:
            continue
        mids = (values[:-1] + values[1:]) / 2
        if len(mids) > limit:
            picks = np.unique(np.quantile(column, np.linspace(0, 1, limit + 2)[1:-1]))
            mids = np.unique([mids[min(np.searchsorted(mids, q), len(mids) - 1)] for q in picks])
        columns.extend((j, float(t)) for t in mids)
    return columns


def binary_matrix(X: np.ndarray, columns: list[tuple[int, float]]) -> np.ndarray:
    """``X`` as the 0/1 matrix of the conditions ``columns``."""
    return np.column_stack([X[:, j] >= t for j, t in columns]).astype(float)


def fasterrisk_model(
    doc: dict[str, Any], columns: list[tuple[int, float]], features: list[Feature]
) -> RiskScore:
    """A FasterRisk model (``1`` when ``intercept + sum(points) > 0``) as a ``RiskScore``
    (``1`` when ``total >= 0``): integer points, bias ``-(floor(-intercept) + 1)``.

    >>> from xpg.core.features import Feature
    >>> rs = fasterrisk_model({"intercept": -2.0, "coefficients": [3.0, 0.0]},
    ...                       [(0, 0.5), (0, 0.8)], [Feature.real("a", 0, 1)])
    >>> rs.bias, [str(c) for c in rs.conditions]
    (-3, ['a >= 0.5: 3 points'])
    """
    points: dict[Literal, int] = {}
    for (j, t), c in zip(columns, doc["coefficients"], strict=True):
        if c == 0:
            continue
        if c != round(c):
            raise ValueError(f"FasterRisk gave a non-integer coefficient {c}")
        lit = at_least(features[j].name, t)
        points[lit] = points.get(lit, 0) + int(round(c))
    bias = -(math.floor(-float(doc["intercept"])) + 1)
    return RiskScore(features, [0, 1], [(lit, p) for lit, p in points.items() if p], bias)


def runner_job(
    method: str,
    X: np.ndarray,
    y: np.ndarray,
    X_test: np.ndarray,
    grid: Sequence[int],
    seed: int,
) -> dict[str, Any]:
    """The job for :mod:`bench.runners.risk_baselines_runner`."""
    return {
        "method": method,
        "X": X.tolist(),
        "y": [int(v) for v in y],
        "X_test": X_test.tolist(),
        "grid": list(grid),
        "folds": 5,
        "seed": seed,
        "radius": RADIUS,
    }


def baselines_peer() -> Any:
    """The environment of GROOT and FasterRisk (a :class:`bench.peers.Peer`)."""
    from bench.peers import RUNNERS_DIR, Peer

    return Peer(
        "risk-baselines",
        ("groot-trees==0.0.17", "fasterrisk==0.1.10"),
        "import groot.model, fasterrisk.fasterrisk",
        RUNNERS_DIR / "risk_baselines_runner.py",
    )


def fit_robdt(
    X: np.ndarray,
    y: np.ndarray,
    features: list[Feature],
    grid: Sequence[int],
    seed: int,
    X_test: np.ndarray,
) -> Fitted:
    """RobDT's substitute, GROOT at radius 0.05, through the runner; compiled and checked."""
    from bench.peers import ensure_venv, run_runner

    peer = baselines_peer()
    ensure_venv(peer)
    answer = run_runner(peer, runner_job("groot", X, y, X_test, grid, seed))
    tree = groot_tree_model(answer["model"], features)
    agrees = tree.predict_batch(X_test).tolist() == answer["test_predictions"]
    internal = sum(1 for _, node in tree.walk() if isinstance(node, Split))
    return Fitted(tree, internal, int(answer["param"]), agrees)


def fit_lcpa(
    X: np.ndarray,
    y: np.ndarray,
    features: list[Feature],
    grid: Sequence[int],
    seed: int,
    X_test: np.ndarray,
) -> Fitted:
    """LCPA's substitute, FasterRisk on binarised features, through the runner."""
    from bench.peers import ensure_venv, run_runner

    peer = baselines_peer()
    ensure_venv(peer)
    columns = binarize(X)
    B, B_test = binary_matrix(X, columns), binary_matrix(X_test, columns)
    answer = run_runner(peer, runner_job("fasterrisk", B, y, B_test, grid, seed))
    rs = fasterrisk_model(answer["model"], columns, features)
    agrees = rs.predict_batch(X_test).tolist() == answer["test_predictions"]
    return Fitted(rs, len(rs.conditions), int(answer["param"]), agrees)
