"""Fourier explainers of removal games, their quality metrics and the usual baselines.

A removal game turns (model, instance, removal rule) into a function on {-1, 1}^n (feature
kept or removed).  Fourier-basis explainers (Harmonica, Low-degree, Harmonica-local,
Harmonica-anchor) return readable polynomials over parity functions; the metrics measure their
interpretation error on neighbourhoods of the instance, their truthful gap and their
inconsistency; LIME, KernelSHAP and Shapley-style indices run on the same games; decision
trees have exact spectra.

Examples
--------
>>> from sklearn.datasets import load_breast_cancer
>>> from sklearn.ensemble import RandomForestClassifier
>>> from xpg.fourier import Harmonica, TabularGame, interpretation_error
>>> X, y = load_breast_cancer(return_X_y=True)
>>> X = X[:, :8]
>>> model = RandomForestClassifier(n_estimators=20, random_state=0).fit(X, y)
>>> game = TabularGame(model, X[0], background=X[:20])
>>> h = Harmonica(degree=2, n_samples=500, random_state=0).fit(game)
>>> err = interpretation_error(game, h.interpretation_, radius=2)
>>> err.exact and err.l1 < 0.05
True

References
----------
Zhang, Yuan et al. Trade-off Between Efficiency and Consistency for Removal-based Explanations.
"""

from xpg.errors import MissingExtraError
from xpg.fourier.baselines import (
    FaithShapIndex,
    KernelShapExplainer,
    LimeExplainer,
    ShapleyInteractionIndex,
    ShapleyTaylorIndex,
    ShapleyValues,
    exact_indices,
    moebius_transform,
)
from xpg.fourier.basis import (
    FourierPolynomial,
    InvalidPolynomialError,
    fourier_transform,
    parity_features,
    subsets_up_to_degree,
)
from xpg.fourier.explainer import ExplainerNotFittedError, InvalidExplainerError
from xpg.fourier.game import InvalidGameError, RemovalGame, TabularGame
from xpg.fourier.harmonica import (
    AnchoredInterpretation,
    Harmonica,
    HarmonicaAnchor,
    HarmonicaLocal,
    LowDegree,
)
from xpg.fourier.masks import GameTooLargeError, all_masks, ball_masks, uniform_masks
from xpg.fourier.metrics import (
    InterpretationError,
    InvalidMetricError,
    count_distinct_models,
    errors_on_masks,
    estimate_truthful_gap,
    inconsistency,
    interpretation_error,
    mean_spectrum_distance,
    spectrum_distance,
    truthful_gap,
    truthful_gap_on_masks,
)
from xpg.fourier.tree_spectrum import DecisionGraphGame, tree_game_spectrum

__all__ = [
    "AnchoredInterpretation",
    "DecisionGraphGame",
    "ExplainerNotFittedError",
    "FaithShapIndex",
    "FourierPolynomial",
    "GameTooLargeError",
    "Harmonica",
    "HarmonicaAnchor",
    "HarmonicaLocal",
    "InterpretationError",
    "InvalidExplainerError",
    "InvalidGameError",
    "InvalidMetricError",
    "InvalidPolynomialError",
    "KernelShapExplainer",
    "LimeExplainer",
    "LowDegree",
    "MissingExtraError",
    "RemovalGame",
    "ShapleyInteractionIndex",
    "ShapleyTaylorIndex",
    "ShapleyValues",
    "TabularGame",
    "all_masks",
    "ball_masks",
    "count_distinct_models",
    "errors_on_masks",
    "estimate_truthful_gap",
    "exact_indices",
    "fourier_transform",
    "inconsistency",
    "interpretation_error",
    "mean_spectrum_distance",
    "moebius_transform",
    "parity_features",
    "spectrum_distance",
    "subsets_up_to_degree",
    "tree_game_spectrum",
    "truthful_gap",
    "truthful_gap_on_masks",
    "uniform_masks",
]
