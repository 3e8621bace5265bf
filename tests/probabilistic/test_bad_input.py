"""Bad input to every public probabilistic explainer: a named xpg error, never a bare
numpy/scikit-learn/anchor-exp exception, and never a silent answer from meaningless labels
(issue 16, "Bad input")."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier

from xpg.core.features import Feature
from xpg.errors import (
    InvalidDataError,
    InvalidFeatureError,
    InvalidFeatureSetError,
    InvalidInstanceError,
    InvalidModelError,
    InvalidParameterError,
    XpgError,
)
from xpg.probabilistic import (
    BlackBox,
    EmpiricalDistribution,
    GraphPrecision,
    UniformDistribution,
    error_upper_bound,
    explain_probabilistically,
    find_anchor,
    find_certificate,
    find_optimal_rule,
    find_probabilistic_axp,
    is_weak_probabilistic_axp,
    precision_error,
    solve_rule,
    theorem1_parameters,
)

FEATURES = [Feature.boolean(f"x{i}") for i in range(4)]
X = [1, 0, 1, 0]
RNG = np.random.default_rng(0)
TRAIN = RNG.integers(0, 2, (60, 4))
TREE = DecisionTreeClassifier(random_state=0).fit(TRAIN, TRAIN[:, 0] & TRAIN[:, 2])

#: Every public explainer, run cheaply on (model, instance).
EXPLAINERS: dict[str, Callable[[Any, Any], Any]] = {
    "certificate": lambda m, x: find_certificate(m, x, max_depth=2, seed=0),
    "cop": lambda m, x: find_optimal_rule(m, x, k=2, n_samples=50, solver="rc2", seed=0),
    "sat": lambda m, x: explain_probabilistically(m, x, "sat", k=2, n_samples=50, seed=0),
    "anchors": lambda m, x: find_anchor(m, x, seed=0),
    "precision-sampled": lambda m, x: precision_error(m, x, ["x0"], method="sample", seed=0),
    "precision-enumerated": lambda m, x: precision_error(m, x, ["x0"], method="enumerate"),
}
#: The explainers that need exact precision (a compiled model).
EXACT: dict[str, Callable[[Any, Any], Any]] = {
    "probabilistic-axp": lambda m, x: find_probabilistic_axp(m, x),
    "weak-probabilistic-axp": lambda m, x: is_weak_probabilistic_axp(m, x, ["x0"]),
    "precision-exact": lambda m, x: precision_error(m, x, ["x0"], method="exact"),
}

BAD_LABELS = {
    "all NaN": lambda Z: np.full(len(Z), np.nan),
    "some NaN": lambda Z: np.where(Z[:, 1] == 1, np.nan, Z[:, 0]),
    "None": lambda Z: [None] * len(Z),
    "a dict": lambda Z: [{}] * len(Z),
    "strings for numeric classes": lambda Z: np.where(Z[:, 0] == 1, "1", "0"),
    "a class not declared": lambda Z: Z[:, 0] + 2 * Z[:, 1],
}


def run_all(model: Any, instance: Any, explainers: dict[str, Callable[[Any, Any], Any]]) -> None:
    for name, explain in explainers.items():
        with pytest.raises(XpgError) as caught:
            explain(model, instance)
        assert "\n" not in str(caught.value), name


@pytest.mark.parametrize("kind", BAD_LABELS)
def test_meaningless_labels_are_refused(kind: str) -> None:
    model = BlackBox(BAD_LABELS[kind], FEATURES, classes=[0, 1])
    for name, explain in EXPLAINERS.items():
        with pytest.raises(InvalidModelError, match="label") as caught:
            explain(model, X)
        assert "expected" in str(caught.value), name


def test_the_message_says_what_was_found() -> None:
    nan = BlackBox(BAD_LABELS["some NaN"], FEATURES)
    with pytest.raises(InvalidModelError, match=r"returned NaN as the label of \d+ of 1000 rows"):
        precision_error(nan, X, [], method="sample", n_samples=1000, seed=0)
    strings = BlackBox(BAD_LABELS["strings for numeric classes"], FEATURES, classes=[0, 1])
    with pytest.raises(InvalidModelError, match=r"label '1', expected one of its classes \[0, 1\]"):
        strings.predict_one(X)
    # string labels are fine when they are the classes
    words = BlackBox(lambda Z: np.where(Z[:, 0] == 1, "yes", "no"), FEATURES)
    assert find_certificate(words, X, seed=0).features == ("x0",)


def test_model_failures_become_model_errors() -> None:
    def broken(Z: np.ndarray) -> np.ndarray:
        return Z[:, 7]  # written for a wider input

    with pytest.raises(InvalidModelError, match="model failed on a 1 x 4 array.*IndexError"):
        find_certificate(BlackBox(broken, FEATURES), X, seed=0)
    run_all(BlackBox(broken, FEATURES), X, EXPLAINERS)


def test_an_estimator_fitted_on_another_width_is_refused_at_once() -> None:
    wide = DecisionTreeClassifier().fit(RNG.integers(0, 2, (20, 5)), RNG.integers(0, 2, 20))
    with pytest.raises(InvalidModelError, match="fitted on 5 features.*has 4"):
        BlackBox(wide, FEATURES)


def test_strings_given_to_a_numeric_estimator() -> None:
    features = [Feature.categorical("colour", ["red", "green"]), Feature.boolean("b")]
    numeric = DecisionTreeClassifier().fit([[0, 1], [1, 0]], [0, 1])
    model = BlackBox(numeric, features)
    with pytest.raises(InvalidModelError, match="object values.*could not convert string"):
        find_certificate(model, ["red", 1], seed=0)
    run_all(model, ["red", 1], EXPLAINERS)


@pytest.mark.parametrize(
    "instance",
    [[1, 0, 1], [1, 0, 1, 0, 1], np.array([[1, 0, 1, 0]]), "1010", None, 5, [1, 0, 1, np.nan]],
    ids=["short", "long", "2-D", "string", "None", "int", "NaN"],
)
def test_wrong_instances(instance: Any) -> None:
    sampled = BlackBox(TREE, FEATURES)
    compiled = BlackBox.from_sklearn_tree(TREE, FEATURES)
    for name, explain in {**EXPLAINERS, **EXACT}.items():
        with pytest.raises(InvalidInstanceError):
            explain(compiled if name in EXACT else sampled, instance)


@pytest.mark.parametrize(
    "options",
    [
        {"max_anchor_size": 0},
        {"max_anchor_size": -1},
        {"max_anchor_size": 1.5},
        {"max_anchor_size": "2"},
        {"beam_size": 1.5},
        {"beam_size": True},
        {"batch_size": 0},
        {"coverage_samples": 0},
        {"threshold": float("nan")},
        {"seed": -1},
    ],
    ids=str,
)
def test_anchor_options_are_refused_before_anchor_exp_runs(
    options: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    import xpg.probabilistic.anchors as anchors

    def not_called() -> None:
        raise AssertionError("anchor-exp was reached")

    monkeypatch.setattr(anchors, "anchor_base", not_called)
    with pytest.raises(InvalidParameterError, match=next(iter(options))):
        find_anchor(BlackBox(TREE, FEATURES), X, **options)


def test_a_maximum_anchor_size_of_one_works() -> None:
    r = find_anchor(BlackBox(TREE, FEATURES), X, max_anchor_size=1, seed=0)
    assert r.size <= 1


@pytest.mark.parametrize(
    ("explain", "options"),
    [
        (find_certificate, {"max_depth": 1.5}),
        (find_certificate, {"max_depth": "3"}),
        (find_certificate, {"n_score_samples": 1.5}),
        (find_certificate, {"n_check": 2.5}),
        (find_certificate, {"seed": -1}),
        (find_certificate, {"seed": "a"}),
        (find_certificate, {"error": float("nan")}),
        (find_optimal_rule, {"n_samples": 1.5}),
        (find_optimal_rule, {"k": True}),
        (find_optimal_rule, {"workers": 0}),
        (find_optimal_rule, {"time_limit": "60"}),
        (find_optimal_rule, {"seed": -1}),
        (precision_error, {"n_samples": 1.5}),
        (precision_error, {"max_enumeration": -1}),
        (precision_error, {"confidence": float("nan")}),
    ],
    ids=lambda v: str(v) if isinstance(v, dict) else v.__name__,
)
def test_numeric_options(explain: Callable[..., Any], options: dict[str, Any]) -> None:
    args: tuple[Any, ...] = (BlackBox(TREE, FEATURES), X)
    if explain is precision_error:
        args = (*args, ["x0"])
    with pytest.raises(InvalidParameterError, match=next(iter(options))):
        explain(*args, **options)


def test_probabilistic_axp_options() -> None:
    compiled = BlackBox.from_sklearn_tree(TREE, FEATURES)
    for options in ({"max_exhaustive": -1}, {"max_exhaustive": 1.5}, {"delta": float("nan")}):
        with pytest.raises(InvalidParameterError):
            find_probabilistic_axp(compiled, X, **options)
    with pytest.raises(InvalidFeatureSetError, match=r"write \['x0'\]"):
        find_probabilistic_axp(compiled, X, order="x0")
    # indices are accepted, like names, and give the same answer
    by_index = find_probabilistic_axp(compiled, X, order=[3, 2, 1, 0], delta=0.0)
    by_name = find_probabilistic_axp(compiled, X, order=["x3", "x2", "x1", "x0"], delta=0.0)
    assert by_index.features == by_name.features


def test_feature_sets_distributions_and_options() -> None:
    model = BlackBox(TREE, FEATURES)
    for subset in ("x0", None, 3):
        with pytest.raises(InvalidFeatureSetError):
            precision_error(model, X, subset)
    with pytest.raises(InvalidParameterError, match="SamplingDistribution"):
        find_certificate(model, X, "uniform")  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError, match="SamplingDistribution"):
        GraphPrecision(BlackBox.from_sklearn_tree(TREE, FEATURES).graph, X, None)  # type: ignore[arg-type]
    with pytest.raises(InvalidFeatureError):
        UniformDistribution(["x0", "x1"])  # type: ignore[list-item]
    with pytest.raises(InvalidDataError):
        EmpiricalDistribution(FEATURES).fit([["a", 0, 1, 0]])
    with pytest.raises(InvalidParameterError, match="'bogus': not an option of the cop"):
        explain_probabilistically(model, X, "cop", bogus=1)
    with pytest.raises(InvalidParameterError, match="'encoding': not an option of the sat"):
        explain_probabilistically(model, X, "sat", encoding="cop")
    with pytest.raises(InvalidModelError, match="sequence of class labels"):
        BlackBox(TREE, FEATURES, classes=5)  # type: ignore[arg-type]


def test_solve_rule_refuses_non_boolean_samples() -> None:
    with pytest.raises(InvalidParameterError, match="agree: expected 0/1.*nan"):
        solve_rule([[np.nan, 1.0]], [1], 1)
    with pytest.raises(InvalidParameterError, match="same: expected 0/1.*'yes'"):
        solve_rule([[1, 0]], ["yes"], 1)
    assert solve_rule([[1, 0], [0, 1]], [1, 0], 1, solver="rc2").features == (0,)


COMPILED = BlackBox.from_sklearn_tree(TREE, FEATURES)
#: A bad option of each explainer, and the message in the vocabulary of xpg.core.validation.
REFUSED: dict[str, tuple[Callable[[], Any], str]] = {
    "anchors": (
        lambda: find_anchor(COMPILED, X, threshold=1.5),
        "threshold: expected a number in (0, 1], found 1.5",
    ),
    "certificate": (
        lambda: find_certificate(COMPILED, X, n_check=0),
        "n_check: expected an integer >= 1 or None, found 0",
    ),
    "optimal rule": (
        lambda: find_optimal_rule(COMPILED, X, time_limit="60"),
        "time_limit: expected a number > 0 or one of inf, found '60'",
    ),
    "encoding": (
        lambda: solve_rule([[1, 0]], [1], 1, encoding="maxsat"),  # type: ignore[arg-type]
        "encoding: expected one of 'cop', 'sat', found 'maxsat'",
    ),
    "precision": (
        lambda: precision_error(COMPILED, X, ["x0"], method="guess"),  # type: ignore[arg-type]
        "method: expected one of 'auto', 'enumerate', 'exact', 'sample', found 'guess'",
    ),
    "probabilistic AXp": (
        lambda: find_probabilistic_axp(COMPILED, X, delta=1.0),
        "delta: expected a number in [0, 1), found 1.0",
    ),
    "seed": (
        lambda: find_certificate(COMPILED, X, seed=-1),
        "seed: expected an integer >= 0 or a Generator or a Random or None, found -1",
    ),
    "error bound": (
        lambda: error_upper_bound(5, 3, 0.95),
        "failures: expected an integer in [0, 3], found 5",
    ),
    "theorem 1": (
        lambda: theorem1_parameters(0.1, 0.9, 20, certificate_complexity=math.inf),
        "certificate_complexity: expected a number >= 1, found inf",
    ),
}


@pytest.mark.parametrize("case", REFUSED)
def test_options_are_refused_in_one_vocabulary(case: str) -> None:
    # issue 29: the parameter, every accepted form and the value found
    call, message = REFUSED[case]
    with pytest.raises(InvalidParameterError, match=re.escape(message)):
        call()
