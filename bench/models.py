"""The models of the paper's Tables 1 and 2, trained the same way by every benchmark.

* Table 1: a decision list learned on the training split (RIPPER, ``xpg.learn``; or, as the
  paper did, an ordered CN2 list learned by Orange3 in its own environment,
  :func:`train_cn2_obdd`) compiled into a reduced OBDD with dd.
* Table 2: a scikit-learn ``DecisionTreeClassifier(max_depth=6)`` (the paper used IAI's
  optimal trees, a commercial learner) compiled exactly; or, with ``--learner optimal``, an
  optimal depth-6 tree (STreeD, :func:`xpg.learn.optimal_tree.learn_optimal_tree`).

The data are split 80/20 with a seeded permutation; accuracy is measured on the 20%.

Examples
--------
>>> import numpy as np
>>> train, test = split_rows(10, seed=0)
>>> len(train), len(test), sorted(np.concatenate([train, test]).tolist()) == list(range(10))
(8, 2, True)

References
----------
Huang, Izza, Ignatiev, Marques-Silva. On Efficiently Explaining Graph-Based Classifiers.
KR 2021, Sec. 7 (DLs compiled to OBDDs; depth-6 DTs).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from sklearn.tree import DecisionTreeClassifier

from bench.data import Dataset, instance
from xpg.compile.sklearn_tree import from_sklearn_tree
from xpg.core.graph import DecisionGraph
from xpg.errors import XpgError
from xpg.learn.decision_list import learn_decision_list
from xpg.models.decision_list import compile_decision_list


@dataclass
class TrainedModel:
    """A fitted model, its decision graph, and what the tables report about it."""

    kind: str  # "obdd", "tree" or "optimal-tree"
    original: Any  # the DecisionList, the DecisionTreeClassifier or the OptimalTree
    dg: DecisionGraph
    accuracy: float  # % on the test split
    depth: int | None
    train: np.ndarray
    test: np.ndarray
    #: learner-specific facts for the tables (optimal trees: "optimal", "search_seconds")
    notes: dict[str, Any] = field(default_factory=dict)


def split_rows(n: int, seed: int, test_fraction: float = 0.2) -> tuple[np.ndarray, np.ndarray]:
    """A seeded train/test split of ``range(n)`` (at least one row in each part when n >= 2)."""
    order = np.random.default_rng(seed).permutation(n)
    n_test = min(max(1, int(round(test_fraction * n))), n - 1) if n >= 2 else 0
    return np.sort(order[n_test:]), np.sort(order[:n_test])


def _labels(y: np.ndarray) -> list[Any]:
    return [v.item() if isinstance(v, np.generic) else v for v in y.tolist()]


def train_tree(ds: Dataset, seed: int = 0, max_depth: int = 6) -> TrainedModel:
    """Table 2's model: a depth-6 scikit-learn tree, compiled."""
    train, test = split_rows(len(ds.X), seed)
    y = np.asarray(_labels(ds.y))
    clf = DecisionTreeClassifier(max_depth=max_depth, random_state=seed)
    clf.fit(ds.X[train], y[train])
    dg = from_sklearn_tree(clf, ds.features)
    accuracy = 100.0 * float(np.mean(clf.predict(ds.X[test]) == y[test])) if len(test) else 100.0
    return TrainedModel("tree", clf, dg, accuracy, int(clf.get_depth()), train, test)


#: seconds the optimal tree's search may take per dataset in Table 2 (see bench/README.md)
OPTIMAL_TIME_LIMIT = 30.0


def train_optimal_tree(
    ds: Dataset,
    seed: int = 0,
    max_depth: int = 6,
    time_limit: float = OPTIMAL_TIME_LIMIT,
    complexity: float = 0.0,
) -> TrainedModel:
    """Table 2's model with ``--learner optimal``: an optimal depth-6 tree (STreeD), compiled.

    Trained on the same split as :func:`train_tree`, with the dataset's features (codes of
    categorical columns are integer features, as CART sees them); when the search stops at
    ``time_limit`` the best tree found so far is kept and ``notes["optimal"]`` is False.
    ``complexity``: a cost per split (see :func:`~xpg.learn.optimal_tree.learn_optimal_tree`).
    """
    from xpg.learn.optimal_tree import learn_optimal_tree

    train, test = split_rows(len(ds.X), seed)
    y = np.asarray(_labels(ds.y), dtype=object)
    fit = learn_optimal_tree(
        ds.X[train],
        y[train],
        features=ds.features,
        max_depth=max_depth,
        time_limit=time_limit,
        complexity=complexity,
        seed=seed,
    )
    dg = fit.model.to_decision_graph()
    hits = fit.streed_predict(ds.X[test]) == y[test]
    accuracy = 100.0 * float(np.mean(hits)) if len(test) else 100.0
    notes = {
        "optimal": fit.optimal,
        "search_seconds": round(fit.seconds, 2),
        "binary_features": len(fit.binarization),
    }
    return TrainedModel(
        "optimal-tree", fit, dg, accuracy, fit.model.depth, train, test, notes=notes
    )


def train_obdd(ds: Dataset, seed: int = 0) -> TrainedModel:
    """Table 1's model: a decision list compiled into a reduced OBDD."""
    train, test = split_rows(len(ds.X), seed)
    y = _labels(ds.y)
    dl = learn_decision_list(
        ds.X[train].astype(int), [y[i] for i in train], features=ds.features, random_state=seed
    )
    dg = compile_decision_list(dl, method="bdd")
    hits = [dl.predict(instance(ds, int(i))) == y[i] for i in test]
    accuracy = 100.0 * float(np.mean(hits)) if hits else 100.0
    return TrainedModel("obdd", dl, dg, accuracy, None, train, test)


def train_cn2_obdd(ds: Dataset, seed: int = 0) -> TrainedModel:
    """Table 1's model as the paper learned it: an ordered CN2 list (Orange3's ``CN2Learner``
    with its defaults, :func:`xpg.learn.cn2.learn_cn2`) compiled into a reduced OBDD.

    Orange's own model classifies every row of the dataset, and the compiled OBDD must give
    the same class on each (:class:`OrangeMismatchError` otherwise); a line on standard error
    says so.  Orange3's environment is created on first use (pip, network).
    """
    from xpg.learn.cn2 import learn_cn2

    train, test = split_rows(len(ds.X), seed)
    y = _labels(ds.y)
    rows = [instance(ds, i) for i in range(len(ds.X))]
    result = learn_cn2([rows[i] for i in train], [y[i] for i in train], ds.features, predict=rows)
    dg = compile_decision_list(result.model, method="bdd")
    compiled = dg.predict_batch(rows).tolist()
    wrong = [i for i, (a, b) in enumerate(zip(compiled, result.orange_predictions)) if a != b]
    if wrong:
        i = wrong[0]
        raise OrangeMismatchError(
            f"{ds.name}: the compiled OBDD disagrees with Orange's CN2 model on {len(wrong)} "
            f"of {len(rows)} rows (row {i}: {compiled[i]!r}, Orange "
            f"{result.orange_predictions[i]!r})"
        )
    print(
        f"{ds.name}: the compiled CN2 OBDD ({len(dg)} nodes) predicts Orange's class on all "
        f"{len(rows)} rows",
        file=sys.stderr,
    )
    hits = [compiled[i] == y[i] for i in test]
    accuracy = 100.0 * float(np.mean(hits)) if hits else 100.0
    return TrainedModel("obdd", result.model, dg, accuracy, None, train, test)


class OrangeMismatchError(XpgError, RuntimeError):
    """A compiled CN2 list disagrees with Orange's own model on some row."""
