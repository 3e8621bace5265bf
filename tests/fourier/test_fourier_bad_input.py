"""Bad input to the Fourier explainers: a named project error saying what was expected and found.

Regression tests for issue 16 (NaN truth tables, negative degrees, empty model lists, oversized
fits refused only after building the feature list, wrong-width instances, models returning
strings).
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier

import xpg.fourier.harmonica as harmonica_module
from xpg.errors import (
    InvalidExplainerError,
    InvalidGameError,
    InvalidMetricError,
    InvalidPolynomialError,
)
from xpg.fourier import (
    FourierPolynomial,
    Harmonica,
    HarmonicaAnchor,
    HarmonicaLocal,
    KernelShapExplainer,
    LimeExplainer,
    LowDegree,
    RemovalGame,
    ShapleyValues,
    TabularGame,
    estimate_truthful_gap,
    fourier_transform,
    inconsistency,
    spectrum_distance,
    truthful_gap,
)


def test_fourier_transform_refuses_nan_and_inf() -> None:
    table = np.arange(8, dtype=float)
    table[5] = np.nan
    with pytest.raises(InvalidPolynomialError, match=r"expected finite numbers.*nan at position 5"):
        fourier_transform(table)
    table[5] = np.inf
    with pytest.raises(InvalidPolynomialError, match="position 5"):
        fourier_transform(table)


@pytest.mark.parametrize("degree", [-1, -5, 1.5, True, "2", None])
def test_truthful_gap_refuses_a_bad_degree(degree: object) -> None:
    f = FourierPolynomial(3, {(): 1.0, (0,): 0.5})
    found = re.escape(f"found {degree!r}")
    with pytest.raises(InvalidMetricError, match=f"degree: expected an integer >= 0, {found}"):
        truthful_gap(f, f, degree)  # type: ignore[arg-type]
    with pytest.raises(InvalidMetricError, match=f"degree: expected an integer >= 0, {found}"):
        estimate_truthful_gap(RemovalGame(f, 3), f, degree)  # type: ignore[arg-type]


def test_truthful_gap_degree_zero_is_the_constant_term() -> None:
    f = FourierPolynomial(2, {(): 1.0, (0,): 0.5})
    g = FourierPolynomial(2, {(): 0.75})
    assert truthful_gap(g, f, 0) == pytest.approx(0.0625)
    assert truthful_gap(g, f, 1) == pytest.approx(0.0625 + 0.25)


def test_inconsistency_of_no_model_is_an_error() -> None:
    with pytest.raises(InvalidMetricError, match="expected at least one interpretation model"):
        inconsistency([])


def _refuse_building(*args: object, **kwargs: object) -> None:
    raise AssertionError("the parity feature list was built before the size check")


@pytest.mark.parametrize(
    "explainer",
    [
        Harmonica(degree=3, n_samples=10),
        HarmonicaLocal(degree=3, n_samples=10),
        LowDegree(degree=3, n_samples=10),
        HarmonicaAnchor(degree=3, n_samples=10),
    ],
    ids=["Harmonica", "HarmonicaLocal", "LowDegree", "HarmonicaAnchor"],
)
def test_oversized_fit_is_refused_before_building_anything(
    explainer: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    # n = 600, degree 3: 36,000,500 parity features, a list that takes seconds and gigabytes;
    # the refusal must come from counting alone, before any subset list or query
    monkeypatch.setattr(harmonica_module, "subsets_up_to_degree", _refuse_building)
    game = RemovalGame(lambda x: x[:, 0], 600)
    with pytest.raises(InvalidExplainerError, match=r"gives 36000500 parity features, expected"):
        explainer.fit(game)  # type: ignore[attr-defined]
    assert game.n_queries == 0


def test_oversized_truthful_gap_estimate_is_refused_before_building(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(harmonica_module, "subsets_up_to_degree", _refuse_building)
    game = RemovalGame(lambda x: x[:, 0], 600)
    with pytest.raises(InvalidMetricError, match="parity features, expected at most"):
        estimate_truthful_gap(game, FourierPolynomial(600, {}), 3)
    assert game.n_queries == 0


def test_fit_just_under_the_limit_still_works(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(harmonica_module, "MAX_PARITY_FEATURES", 6)  # 3 players, degree 2: 6
    game = RemovalGame(lambda x: x[:, 0] * x[:, 1], 3)
    h = Harmonica(degree=2, n_samples=64, alpha=0.0, random_state=0).fit(game)
    assert h.interpretation_.coefficient((0, 1)) == pytest.approx(1.0)
    with pytest.raises(InvalidExplainerError, match="gives 7 parity features"):
        Harmonica(degree=3, n_samples=64).fit(game)


def _tree() -> DecisionTreeClassifier:
    rng = np.random.default_rng(0)
    X = rng.random((60, 4))
    return DecisionTreeClassifier(random_state=0).fit(X, (X[:, 0] > 0.5).astype(int))


def test_wrong_width_instance_is_refused() -> None:
    with pytest.raises(InvalidGameError, match="the model expects 4 features, found 3 values"):
        TabularGame(_tree(), [0.1, 0.2, 0.3], baseline=[0.0, 0.0, 0.0])


def test_model_failing_on_rows_is_wrapped() -> None:
    game = TabularGame(lambda X: X[:, 7], [1.0, 2.0, 3.0], baseline=[0.0, 0.0, 0.0])
    with pytest.raises(InvalidGameError, match=r"failed on rows of shape \(1, 3\): IndexError"):
        game([[1, 1, 1]])


def test_model_returning_strings_is_refused() -> None:
    game = TabularGame(lambda X: np.array(["yes"] * len(X)), [1.0, 2.0], baseline=[0.0, 0.0])
    with pytest.raises(InvalidGameError, match=r"values such as \['yes'\], expected numbers"):
        game([[1, -1]])
    strings = RemovalGame(lambda x: ["a"] * len(x), 2)
    with pytest.raises(InvalidGameError, match=r"the value function returned list"):
        strings([[1, 1]])


def test_classifier_with_string_labels_still_works() -> None:
    # string *labels* are fine: the game is the probability of the predicted class
    rng = np.random.default_rng(1)
    X = rng.random((40, 2))
    model = DecisionTreeClassifier(random_state=0).fit(X, np.where(X[:, 0] > 0.5, "hi", "lo"))
    game = TabularGame(model, X[0], background=X[:5])
    assert game([[1, 1]]).tolist() == [1.0]


def test_bad_explainer_options_are_refused() -> None:
    game = RemovalGame(lambda x: x[:, 0], 3)
    setups = "setup: expected one of 'lime', 'paper', found 'captum'"
    with pytest.raises(InvalidExplainerError, match=setups):
        LimeExplainer(setup="captum").fit(game)
    local_queries = "local_queries: expected one of 'extra', 'within', found 'both'"
    with pytest.raises(InvalidExplainerError, match=local_queries):
        HarmonicaAnchor(local_queries="both").fit(game)


@pytest.mark.parametrize(
    ("explainer", "message"),
    [
        (Harmonica(alpha="0.1"), "Harmonica: alpha: expected a number >= 0, found '0.1'"),
        (HarmonicaLocal(radius=-1), "HarmonicaLocal: radius: expected an integer >= 0, found -1"),
        (
            HarmonicaAnchor(local_radius=1.5),
            "HarmonicaAnchor: local_radius: expected an integer >= 0 or None, found 1.5",
        ),
        (LowDegree(degree=True), "LowDegree: degree: expected an integer >= 0, found True"),
        (
            LimeExplainer(kernel_width=0.0),
            "LimeExplainer: kernel_width: expected a number > 0 or None, found 0.0",
        ),
        (
            ShapleyValues(n_samples=1),
            "ShapleyValues: n_samples: expected an integer >= 2 or None, found 1",
        ),
        (
            KernelShapExplainer(n_samples=2),
            "KernelShapExplainer: n_samples: expected an integer >= 3, found 2",
        ),
    ],
    ids=lambda v: "refused" if isinstance(v, str) else type(v).__name__,
)
def test_explainer_parameters_are_refused_in_one_vocabulary_before_any_query(
    explainer: object, message: str
) -> None:
    # issue 29: the explainer, the parameter, every accepted form and the value found
    game = RemovalGame(lambda x: x[:, 0], 3)
    with pytest.raises(InvalidExplainerError, match=re.escape(message)):
        explainer.fit(game)  # type: ignore[attr-defined]
    assert game.n_queries == 0


def test_spectrum_distance_orders() -> None:
    p, q = FourierPolynomial(2, {(0,): 1.0}), FourierPolynomial(2, {(1,): 0.5})
    assert spectrum_distance(p, q, order=math.inf) == 1.0
    assert spectrum_distance(p, q, order=0) == 2.0
    for order in (-1, float("nan"), "2"):
        expected = f"order: expected a number >= 0 or one of inf, found {order!r}"
        with pytest.raises(InvalidMetricError, match=re.escape(expected)):
            spectrum_distance(p, q, order=order)  # type: ignore[arg-type]
