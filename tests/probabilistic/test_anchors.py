"""Anchors through anchor-exp's beam search, with the distribution and result type of the rest."""

from __future__ import annotations

import anchor.anchor_base  # noqa: F401  (the anchors extra: a missing install fails here)
import numpy as np
import pytest

from xpg.core.features import Feature
from xpg.probabilistic import BlackBox, ProbabilisticExplanation, find_anchor, precision_error

FEATURES = [Feature.boolean(f"x{i}") for i in range(8)]
AND = BlackBox(lambda X: (X[:, 1] * X[:, 6]).astype(int), FEATURES)


def test_anchor_of_a_conjunction() -> None:
    x = [0, 1, 0, 0, 0, 0, 1, 0]
    r = find_anchor(AND, x, seed=0)
    assert isinstance(r, ProbabilisticExplanation) and r.method == "anchors"
    assert r.features == ("x1", "x6") and r.error == 0.0
    assert r.details["anchor_precision"] == 1.0 and r.details["beam_size"] == 10
    assert 0 < r.details["anchor_coverage"] < 0.5  # about 1/4 of inputs agree on x1, x6


def test_seeded_runs_repeat_and_leave_numpy_global_state_alone() -> None:
    x = [0, 1, 0, 0, 0, 0, 1, 0]
    np.random.seed(123)
    before = np.random.get_state()[1].copy()
    a = find_anchor(AND, x, seed=7)
    after = np.random.get_state()[1]
    assert np.array_equal(before, after)
    b = find_anchor(AND, x, seed=7)
    assert (a.features, a.n_queries, a.details) == (b.features, b.n_queries, b.details)


def test_beam_size_reaches_the_search(monkeypatch: pytest.MonkeyPatch) -> None:
    """anchor-exp's explain_instance drops beam_size; find_anchor passes it to anchor_beam."""
    from xpg.probabilistic.anchors import anchor_base

    beam = anchor_base().AnchorBaseBeam
    seen: list[int] = []
    original = beam.anchor_beam

    def spy(*args, **kwargs):  # type: ignore[no-untyped-def]
        seen.append(kwargs["beam_size"])
        return original(*args, **kwargs)

    monkeypatch.setattr(beam, "anchor_beam", staticmethod(spy))
    find_anchor(AND, [0, 1, 0, 0, 0, 0, 1, 0], seed=0)
    find_anchor(AND, [0, 1, 0, 0, 0, 0, 1, 0], beam_size=3, seed=0)
    assert seen == [10, 3]


@pytest.mark.slow
def test_wide_beam_finds_parity_anchors_a_beam_of_one_misses() -> None:
    """x_2 xor x_7 over 10 bits: every single feature has precision 1/2, so size-2 candidates
    are the pairs containing a kept feature.  A beam holding every feature always reaches
    {x2, x7}; a beam of one reaches it only when its one kept feature is x2 or x7."""
    features = [Feature.boolean(f"x{i}") for i in range(10)]
    model = BlackBox(lambda X: (X[:, 2] != X[:, 7]).astype(int), features)
    wide = narrow = 0
    for seed in range(3):
        x = np.random.default_rng(seed).integers(0, 2, 10).tolist()
        w = find_anchor(model, x, beam_size=10, max_anchor_size=3, seed=seed)
        n = find_anchor(model, x, beam_size=1, max_anchor_size=3, seed=seed)
        wide += w.features == ("x2", "x7")
        narrow += n.features == ("x2", "x7")
    assert wide == 3 and narrow < 3


def test_exact_evaluation_on_compiled_models() -> None:
    from sklearn.tree import DecisionTreeClassifier

    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, (300, 8))
    y = X[:, 1] & X[:, 6]
    model = BlackBox.from_sklearn_tree(DecisionTreeClassifier(random_state=0).fit(X, y), FEATURES)
    r = find_anchor(model, [0, 1, 0, 0, 0, 0, 1, 0], seed=1)
    assert r.precision is not None and r.precision.method == "exact-propagation"
    assert r.precision.error == precision_error(model, [0, 1, 0, 0, 0, 0, 1, 0], r.features).error


def test_training_data_perturbation_as_anchor_exp_draws_it() -> None:
    """Koriche et al. ran Anchors on training-data perturbations: anchor-exp's tabular
    sampler draws training rows and overwrites the anchored columns with the instance's
    values.  ``EmpiricalDistribution`` as the distribution does the same: every input the
    model sees is a training row with some columns set to the instance's values."""
    from xpg.probabilistic import EmpiricalDistribution

    train = np.random.default_rng(0).integers(0, 2, (5, 8))
    x = np.array([0, 1, 0, 0, 0, 0, 1, 0])

    def perturbed_from_training(Z: np.ndarray) -> np.ndarray:
        """Per row of Z: some training row agrees with it wherever it differs from x."""
        ok = (Z[:, None, :] == train[None, :, :]) | (Z[:, None, :] == x[None, None, :])
        return np.asarray(ok.all(axis=2).any(axis=1))

    for distribution, expected in (
        (EmpiricalDistribution(FEATURES).fit(train), True),
        (None, False),
    ):
        queried: list[np.ndarray] = []

        def f(X: np.ndarray, queried: list[np.ndarray] = queried) -> np.ndarray:
            queried.append(np.array(X))
            return (X[:, 1] * X[:, 6]).astype(int)

        r = find_anchor(BlackBox(f, FEATURES), x, distribution, seed=0, evaluate=None)
        assert r.method == "anchors" and r.size <= 8
        Z = np.concatenate(queried[1:]).astype(int)  # the first query is the instance
        assert len(Z) >= 100
        inside = perturbed_from_training(Z)
        if expected:
            assert inside.all()
        else:  # uniform perturbations leave the five training rows' patterns
            assert inside.mean() < 0.5
