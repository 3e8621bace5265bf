"""Optimal trees (pystreed): the compiled graph computes pystreed's own ``predict`` on every
row (exhaustively over small random domains, and on every row of real datasets), the trees are
as accurate as a brute-force search over the same binary features says they can be, and the
time limit and the missing extra are reported honestly."""

from __future__ import annotations

import itertools
import math
import sys
from functools import cache

import numpy as np
import pandas as pd
import pytest
from conftest import shared_path

from xpg.core.feature_space import FeatureGroup, FeatureSpace
from xpg.core.features import Feature
from xpg.errors import InvalidDataError, InvalidParameterError, MissingExtraError
from xpg.learn import learn_tree_from_table
from xpg.learn.optimal_tree import Binarization, OptimalTree, learn_optimal_tree

pytest.importorskip("pystreed")


def random_table(rng: np.random.Generator, rows: int) -> tuple[list, list[list], list, list]:
    """Random features (boolean, integer, real, categorical as a one-hot group or as codes),
    rows drawn from their domains, labels from a hidden random rule plus noise."""
    entries: list = []
    grids: list[list] = []
    kinds = rng.choice(["boolean", "integer", "real", "onehot", "codes"], size=3)
    for k, kind in enumerate(kinds):
        name = f"f{k}"
        if kind == "boolean":
            entries.append(Feature.boolean(name))
            grids.append([0, 1])
        elif kind == "integer":
            hi = int(rng.integers(2, 6))
            entries.append(Feature.integer(name, 0, hi))
            grids.append(list(range(hi + 1)))
        elif kind == "real":
            values = sorted({round(float(v), 2) for v in rng.uniform(-3, 3, size=6)})
            entries.append(Feature.real(name))
            # observed values, points between them and beyond both ends
            between = [(a + b) / 2 for a, b in itertools.pairwise(values)]
            grids.append(sorted({*values, *between, values[0] - 1.0, values[-1] + 1.0}))
        else:
            cats = ["a", "b", "c", "d"][: int(rng.integers(2, 5))]
            if kind == "onehot":
                entries.append(FeatureGroup.one_hot(name, cats, [f"{name}={c}" for c in cats]))
            else:
                feature = Feature.categorical(name, cats)
                cells = tuple((frozenset([c]), (float(i),)) for i, c in enumerate(cats))
                entries.append(FeatureGroup(feature, (f"{name}#code",), cells))
            grids.append(cats)
    data_grids = [
        g if not isinstance(e, Feature) or e.kind != "real" else g[::2]
        for e, g in zip(entries, grids)
    ]
    values = [[g[int(rng.integers(len(g)))] for g in data_grids] for _ in range(rows)]
    n_classes = int(rng.integers(2, 4))
    hidden = {v: int(rng.integers(n_classes)) for v in itertools.product(*data_grids)}
    labels = [
        hidden[tuple(v)] if rng.random() > 0.15 else int(rng.integers(n_classes)) for v in values
    ]
    return entries, values, labels, grids


def encode(space: FeatureSpace, rows: list[list]) -> np.ndarray:
    names = [f.name for f in space.features]
    return np.asarray([space.encode(dict(zip(names, r))) for r in rows], dtype=np.float64)


def fewest_errors(B: np.ndarray, y: np.ndarray, depth: int, split_cost: float = 0.0) -> float:
    """Brute force, independent of pystreed: the least training errors (plus ``split_cost``
    per split) of any tree of depth at most ``depth`` splitting on the columns of the 0/1
    matrix ``B``."""

    @cache
    def best(rows: frozenset[int], d: int) -> float:
        labels = y[sorted(rows)]
        leaf = float(len(labels) - (np.bincount(labels).max() if len(labels) else 0))
        if d == 0 or leaf == 0:
            return leaf
        out = leaf
        for k in range(B.shape[1]):
            right = frozenset(i for i in rows if B[i, k])
            if right and right != rows:
                out = min(out, best(rows - right, d - 1) + best(right, d - 1) + split_cost)
        return out

    return best(frozenset(range(len(y))), depth)


@pytest.mark.parametrize("seed", range(12))
def test_random_tables_exhaustive_agreement_and_optimality(seed: int) -> None:
    rng = np.random.default_rng(seed)
    entries, values, labels, grids = random_table(rng, rows=int(rng.integers(12, 40)))
    space = FeatureSpace(entries)
    X = encode(space, values)
    depth = int(rng.integers(1, 4))
    fit = learn_optimal_tree(X, labels, features=entries, max_depth=depth, time_limit=30)
    assert isinstance(fit, OptimalTree) and fit.optimal
    assert fit.model.depth <= depth
    dg = fit.model.to_decision_graph()
    dg.validate()
    # every point of the domain grid: the graph computes pystreed's predict
    domain = [list(v) for v in itertools.product(*grids)]
    ours = dg.predict_batch(np.asarray(domain, dtype=object))
    theirs = fit.streed_predict(encode(space, domain))
    assert ours.tolist() == theirs.tolist()
    # as accurate as any tree of the depth over the same binary features
    B = fit.binarization.transform(X)
    codes = np.asarray([fit.classes.index(v) for v in labels])
    errors = int(sum(p != t for p, t in zip(fit.streed_predict(X).tolist(), labels)))
    assert errors == fewest_errors(B, codes, depth)
    # explanations name the original features only
    assert set(dg.feature_index) == {f.name for f in space.features}
    # with a cost per split: least errors + cost, as brute force says
    cp = 0.05
    fit = learn_optimal_tree(
        X, labels, features=entries, max_depth=depth, time_limit=30, complexity=cp
    )
    assert fit.optimal
    errors = int(sum(p != t for p, t in zip(fit.streed_predict(X).tolist(), labels)))
    splits = fit.estimator.fit_result.tree_nodes() if fit.estimator is not None else 0
    penalised = fewest_errors(B, codes, depth, cp * len(labels))
    assert errors + cp * len(labels) * splits == pytest.approx(penalised)
    assert len(fit.model) <= 2 * splits + 1
    ours = fit.model.to_decision_graph().predict_batch(np.asarray(domain, dtype=object))
    assert ours.tolist() == fit.streed_predict(encode(space, domain)).tolist()


def test_brute_force_oracle_can_fail() -> None:
    """The optimality check above has teeth: a depth-1 tree is beaten by depth 2 on XOR."""
    B = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
    y = np.array([0, 1, 1, 0])
    assert fewest_errors(B, y, 1) == 2 and fewest_errors(B, y, 2) == 0
    fit = learn_optimal_tree(B.astype(float), y.tolist(), max_depth=2)
    assert fit.streed_predict(B.astype(float)).tolist() == y.tolist()


def test_binarization_is_pystreeds_quantile_choice() -> None:
    from pystreed.binarizer import KThresholdBinarizer

    rng = np.random.default_rng(0)
    X = np.column_stack([rng.normal(size=200), rng.integers(0, 4, 200), rng.integers(0, 2, 200)])
    b = Binarization.fit(X, 5)
    kb = KThresholdBinarizer("quantile", 5).fit(X)
    for j in range(3):
        assert b.thresholds[b.columns == j].tolist() == sorted(float(t) for t in kb.thresholds_[j])
    assert b.thresholds[b.columns == 1].tolist() == [0.5, 1.5, 2.5]  # every midpoint
    assert b.thresholds[b.columns == 2].tolist() == [0.5]
    assert b.transform(np.array([[0.0, 2.0, 1.0]])).sum() >= 1


DATASETS = [
    ("pmlb/iris.tsv.gz", "target"),
    ("pmlb/monk1.tsv.gz", "target"),
    ("pmlb/new_thyroid.tsv.gz", "target"),
    ("pmlb/hayes_roth.tsv.gz", "target"),
    ("xreason/zoo.csv.gz", "class_type"),
    ("interpretable-robust-trees/careval_data.csv.gz", "class_1"),
]


@pytest.mark.parametrize("path,target", DATASETS)
def test_every_row_of_real_datasets(path: str, target: str) -> None:
    learned = learn_tree_from_table(
        shared_path("datasets", path), target, learner="optimal", time_limit=20
    )
    data, fit = learned.data, learned.estimator
    values = np.empty((len(data.values), len(data.features)), dtype=object)
    values[:] = data.values
    dg = learned.model.to_decision_graph()
    assert dg.predict_batch(values).tolist() == fit.streed_predict(data.X).tolist()
    report = learned.report
    assert report.details["learner"] == "optimal" and report.details["optimal"] == fit.optimal
    assert report.size["depth"] <= 6
    # the report's accuracy is pystreed's own, on the test rows
    test = learned.test
    expected = float(np.mean(fit.streed_predict(data.X[test]) == data.y[test]))
    assert report.test_accuracy == pytest.approx(expected)


def test_categorical_strings_one_hot_and_ordinal() -> None:
    rng = np.random.default_rng(5)
    n = 300
    frame = pd.DataFrame(
        {
            "colour": rng.choice(["red", "green", "blue", "black"], n),
            "size": rng.uniform(0, 10, n).round(1),
            "count": rng.integers(0, 7, n),
        }
    )
    frame["y"] = np.where(
        (frame.colour == "green") | ((frame.colour == "black") & (frame["size"] > 4)), "yes", "no"
    )
    for encoding in ("one-hot", "ordinal"):
        learned = learn_tree_from_table(
            frame, "y", learner="optimal", encoding=encoding, max_depth=3, time_limit=20
        )
        assert learned.report.test_accuracy == 1.0
        dg = learned.model.to_decision_graph()
        assert set(dg.feature_index) == {"colour", "size", "count"}
        tested = {dg.feature_of(n) for n in dg.nodes if not dg.is_terminal(n)}
        assert "colour" in tested  # tested as one feature, by sets of its categories
        # the domain of every feature, exhaustively over the categories and a grid
        grid = list(
            itertools.product(
                ["red", "green", "blue", "black"], np.arange(-1, 11.5, 0.25), range(7)
            )
        )
        rows = np.empty((len(grid), 3), dtype=object)
        rows[:] = [list(g) for g in grid]
        theirs = learned.estimator.streed_predict(learned.data.encode([list(g) for g in grid]))
        assert dg.predict_batch(rows).tolist() == theirs.tolist()


def test_time_limit_keeps_the_best_tree_and_says_so() -> None:
    learned = learn_tree_from_table(
        shared_path("datasets", "pmlb/collins.tsv.gz"), "target", learner="optimal", time_limit=1
    )
    fit = learned.estimator
    assert fit.optimal is False and learned.report.details["optimal"] is False
    assert "time limit of 1 s reached" in "\n".join(learned.report.lines())
    assert "not proved optimal" in fit.status
    values = np.empty((len(learned.data.values), len(learned.data.features)), dtype=object)
    values[:] = learned.data.values
    dg = learned.model.to_decision_graph()
    assert dg.predict_batch(values).tolist() == fit.streed_predict(learned.data.X).tolist()


def test_constant_columns_give_one_leaf() -> None:
    fit = learn_optimal_tree(np.zeros((5, 2)), [1, 1, 0, 1, 0], max_depth=3)
    assert fit.estimator is None and fit.optimal and len(fit.model) == 1
    assert fit.streed_predict(np.ones((2, 2))).tolist() == [1, 1]


def test_bad_input_is_named() -> None:
    X, y = np.eye(3), [0, 1, 0]
    with pytest.raises(InvalidParameterError, match="max_depth: expected an integer in"):
        learn_optimal_tree(X, y, max_depth=0)
    with pytest.raises(InvalidParameterError, match="time_limit: expected a number > 0"):
        learn_optimal_tree(X, y, time_limit=0)
    with pytest.raises(InvalidParameterError, match="time_limit"):
        learn_optimal_tree(X, y, time_limit=math.inf)
    with pytest.raises(InvalidParameterError, match="complexity"):
        learn_optimal_tree(X, y, complexity=1.5)
    with pytest.raises(InvalidDataError, match="one label per row"):
        learn_optimal_tree(X, [0, 1])
    with pytest.raises(InvalidDataError, match="learner"):
        learn_tree_from_table(pd.DataFrame({"a": [0, 1], "y": [0, 1]}), "y", learner="c45")  # type: ignore[arg-type]
    with pytest.raises(InvalidDataError, match="time limit"):
        learn_tree_from_table(pd.DataFrame({"a": [0, 1], "y": [0, 1]}), "y", time_limit=3)


def test_missing_extra_names_the_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pystreed", None)
    with pytest.raises(
        MissingExtraError, match=r"pip install -e '\.\[optimal\]' from a clone of xpg"
    ):
        learn_optimal_tree(np.eye(3), [0, 1, 0])
    with pytest.raises(MissingExtraError, match="optimal"):
        learn_tree_from_table("no-such-file.csv", "y", learner="optimal")


def test_mixed_labels_keep_their_kinds() -> None:
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    fit = learn_optimal_tree(X, [1, "U", 2, "U"], max_depth=2)
    assert fit.classes == [1, 2, "U"]
    assert fit.streed_predict(X).tolist() == [1, "U", 2, "U"]
    assert fit.model.predict([2.0]) == 2 and fit.model.predict([1.0]) == "U"
