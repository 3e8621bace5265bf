"""Runner for the risk benchmark's baselines, started inside ``bench/.venvs/risk-baselines``.

GROOT (``groot-trees``: a robust decision tree, the substitute for Chen et al.'s RobDT) and
FasterRisk (``fasterrisk``: risk scores, the substitute for LCPA, whose risk-slim needs
CPLEX) pin old numpy, pandas and scikit-learn, so they live in their own environment
(:mod:`bench.risk.baselines` builds it).

Usage: ``python risk_baselines_runner.py JOB.json OUT.json``.  The job::

    {"method": "groot" | "fasterrisk", "X": [[...]], "y": [0 | 1, ...], "X_test": [[...]],
     "grid": [5, 10, ...], "folds": 5, "seed": 0, "radius": 0.05}

The runner picks the grid value of best mean accuracy by stratified ``folds``-fold cross-
validation on ``X, y`` (ties: the smaller value), fits on all of ``X, y`` and answers::

    {"param": best, "cv": {value: accuracy}, "model": ..., "test_predictions": [0 | 1, ...]}

``model`` is, for GROOT, the tree as nested dicts (``{"feature", "threshold", "left",
"right"}``, ``x[feature] <= threshold`` going left, thresholds rounded to float32 as GROOT's
own compiled ``predict`` does; leaves ``{"class": 0 | 1}``, the class ``predict`` gives
there) and, for FasterRisk, ``{"intercept", "coefficients", "multiplier"}`` of its best integer
model (it predicts 1 when ``intercept + X @ coefficients
> 0``).  ``test_predictions`` are the baseline's own predictions on ``X_test``, against which
the compiled models are checked.

References
----------
Vos, Verwer. Efficient Training of Robust Decision Trees Against Adversarial Examples. ICML
2021 (GROOT); Liu, Zhong, Li, Rudin, Seltzer. FasterRisk: Fast and Accurate Interpretable
Risk Scores. NeurIPS 2022.
"""

import json
import sys

import numpy as np
from sklearn.model_selection import StratifiedKFold


def fit_groot(X, y, depth, radius, seed):
    from groot.model import GrootTreeClassifier

    clf = GrootTreeClassifier(
        max_depth=depth, attack_model=[radius] * X.shape[1], random_state=seed
    )
    clf.fit(X, y)
    return clf


def groot_tree(node):
    # GrootTreeClassifier.predict runs a compiled copy of the tree that stores thresholds and
    # leaf values as float32 and predicts 1 where 2 * p1 - 1 > 0: so does the exported tree
    if node.is_leaf():
        value = np.asarray(node.value, dtype=float).reshape(-1)
        p1 = value[1] if value.size > 1 else value[0]
        return {"class": int(np.float32(p1 * 2 - 1) > 0)}
    return {
        "feature": int(node.feature),
        "threshold": float(np.float32(node.threshold)),
        "left": groot_tree(node.left_child),
        "right": groot_tree(node.right_child),
    }


def fit_fasterrisk(X, y, k, seed):
    from fasterrisk.fasterrisk import RiskScoreClassifier, RiskScoreOptimizer

    np.random.seed(seed)
    # lighter than the defaults (parent_size=10, select_top_m=50, maxAttempts=50): only the
    # best model of the diverse pool is used, and the defaults take minutes at k = 30
    opt = RiskScoreOptimizer(
        X=X, y=np.where(y == 1, 1.0, -1.0), k=k, parent_size=5, select_top_m=5, maxAttempts=5
    )
    opt.optimize()
    multiplier, intercept, coefficients = opt.get_models(model_index=0)
    return RiskScoreClassifier(multiplier, intercept, coefficients)


def predict(method, model, X):
    out = model.predict(X)
    if method == "fasterrisk":
        return (np.asarray(out) > 0).astype(int)
    return np.asarray(out).astype(int)


def fit(method, X, y, param, job):
    if method == "groot":
        return fit_groot(X, y, param, job.get("radius", 0.05), job.get("seed", 0))
    return fit_fasterrisk(X, y, param, job.get("seed", 0))


def main(job_path, out_path):
    with open(job_path, encoding="utf-8") as fh:
        job = json.load(fh)
    method = job["method"]
    X = np.asarray(job["X"], dtype=float)
    y = np.asarray(job["y"], dtype=int)
    X_test = np.asarray(job["X_test"], dtype=float).reshape(-1, X.shape[1])
    grid = list(job["grid"])
    cv = {}
    if len(grid) > 1:
        folds = StratifiedKFold(job.get("folds", 5), shuffle=True, random_state=job["seed"])
        for param in grid:
            scores = []
            for tr, va in folds.split(X, y):
                model = fit(method, X[tr], y[tr], param, job)
                scores.append(float(np.mean(predict(method, model, X[va]) == y[va])))
            cv[param] = float(np.mean(scores))
        best = max(grid, key=lambda p: (cv[p], -p))
    else:
        best = grid[0]
    model = fit(method, X, y, best, job)
    if method == "groot":
        doc = groot_tree(model.root_)
    else:
        doc = {
            "intercept": float(model.intercept),
            "coefficients": [float(c) for c in model.coefficients],
            "multiplier": float(model.multiplier),
        }
    answer = {
        "param": best,
        "cv": {str(k): v for k, v in cv.items()},
        "model": doc,
        "test_predictions": predict(method, model, X_test).tolist(),
    }
    with open(out_path, "w", encoding="utf-8") as fh:
        json.dump(answer, fh)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: python risk_baselines_runner.py JOB.json OUT.json")
    main(sys.argv[1], sys.argv[2])
