"""BBM-RS (Algorithm 1 of Moshkovitz, Yang and Chaudhuri 2021) against independent
computations: each round's weights against the Boost-by-Majority formula written with
math.comb, each round's condition against a brute-force evaluation of every candidate's
weighted accuracy, the stopping rule, and the returned score card against the vote of the
chosen conditions."""

from __future__ import annotations

import math
import re
import time
from fractions import Fraction

import numpy as np
import pytest
from conftest import shared_path

from xpg.core.features import Feature
from xpg.core.xpgraph import ExplanationGraph
from xpg.errors import InvalidDataError, InvalidParameterError
from xpg.explain.marco import enumerate_explanations
from xpg.learn import bbm_rs
from xpg.learn.risk_score import BBMResult, bbm_weights, noise_units, run_bbm_rs
from xpg.models.risk_score import RiskScore
from xpg.verify.verifier import Verifier


def formula(T: int, t: int, s: int, gamma: float) -> float:
    """Freund's weight, exactly: P(exactly k successes in the n = T - t rounds left) for the
    k = floor((n - s + 1) / 2) correct votes the example still needs."""
    n = T - t
    k = (n - s + 1) // 2
    if k < 0 or k > n:
        return 0.0
    p = Fraction(1, 2) + Fraction(gamma)
    return float(math.comb(n, k) * p**k * (1 - p) ** (n - k))


def brute_best(noisy: np.ndarray, signs: np.ndarray, w: np.ndarray) -> float:
    """The best weighted accuracy of ``x_j >= v`` over every feature and every observed value
    (every split of the data that predicts +1 somewhere)."""
    best = -1.0
    for j in range(noisy.shape[1]):
        for v in np.unique(noisy[:, j]):
            best = max(best, accuracy(noisy, signs, w, j, float(v)))
    return best


def accuracy(noisy: np.ndarray, signs: np.ndarray, w: np.ndarray, j: int, theta: float) -> float:
    pred = np.where(noisy[:, j] >= theta, 1, -1)
    return float(sum(wi for wi, p, s in zip(w, pred, signs, strict=True) if p == s))


def units(X: np.ndarray, features: list[Feature]) -> np.ndarray:
    """The noise unit of each column: its declared domain's width, else the rows' range."""
    out = []
    for j, f in enumerate(features):
        if f.kind == "boolean":
            out.append(1.0)
        elif math.isinf(f.low) or math.isinf(f.high):
            out.append(float(X[:, j].max() - X[:, j].min()))
        else:
            out.append(float(f.high - f.low))
    return np.array(out)


def exact_rounds(noisy: np.ndarray, signs: np.ndarray, T: int, gamma: Fraction) -> tuple:
    """BBM-RS in rational arithmetic: per round, the prediction set of the first condition
    (by feature, then threshold) of highest weighted accuracy, and why it stopped."""
    p = Fraction(1, 2) + gamma
    margins = [0] * len(signs)
    chosen = []
    for t in range(1, T + 1):
        n = T - t
        w = [
            math.comb(n, (n - s + 1) // 2) * p ** ((n - s + 1) // 2) * (1 - p) ** ((n + s - 1) // 2)
            if 0 <= (n - s + 1) // 2 <= n
            else Fraction(0)
            for s in margins
        ]
        if sum(w) == 0:
            return chosen, "decided"
        best: tuple = (Fraction(-1),)
        for j in range(noisy.shape[1]):
            for v in np.unique(noisy[:, j]):  # ascending: a later equal one does not win
                pred = noisy[:, j] >= v
                acc = sum((wi for wi, h, s in zip(w, pred, signs) if h == (s > 0)), Fraction(0))
                if acc / sum(w) > best[0]:
                    best = (acc / sum(w), j, pred)
        if not best[0] > Fraction(1, 2) + gamma:
            return chosen, "weak"
        chosen.append((best[1], best[2].tolist()))
        margins = [m + int(s) * (1 if h else -1) for m, s, h in zip(margins, signs, best[2])]
    return chosen, "T"


def replay(X: np.ndarray, y: np.ndarray, result: BBMResult, T: int, tau: float, gamma: float):
    """Recompute every round from scratch and compare; returns the next round's weights."""
    positive = result.model.positive
    signs = np.array([1 if v == positive else -1 for v in y.tolist()])
    spread = units(X, result.model.features)
    noisy = X - tau * signs[:, None] * spread[None, :]
    np.testing.assert_allclose(result.noisy, noisy, rtol=0, atol=1e-12)
    margins = np.zeros(len(X), dtype=int)
    for t, r in enumerate(result.rounds, start=1):
        raw = np.array([formula(T, t, int(s), gamma) for s in margins])
        np.testing.assert_allclose(r.weights, raw / raw.sum(), rtol=1e-9, atol=1e-15)
        best = brute_best(noisy, signs, r.weights)
        assert r.accuracy == pytest.approx(best, abs=1e-9)
        assert accuracy(noisy, signs, r.weights, r.feature, r.threshold) == pytest.approx(
            best, abs=1e-9
        )
        assert r.accuracy > 0.5 + gamma
        margins += signs * np.where(noisy[:, r.feature] >= r.threshold, 1, -1)
    t = len(result.rounds) + 1
    if t > T:
        return None
    raw = np.array([formula(T, t, int(s), gamma) for s in margins])
    if raw.sum() == 0:
        assert result.stopped == "decided"
        return None
    assert result.stopped == "weak"
    assert brute_best(noisy, signs, raw / raw.sum()) <= 0.5 + gamma + 1e-12
    return raw / raw.sum()


def vote(X: np.ndarray, result: BBMResult) -> list:
    """The majority vote of the chosen conditions (ties positive) on the clean data; with no
    condition, the majority class of the training labels (ties positive)."""
    rs = result.model
    if not result.rounds:
        majority = 2 * int((result.signs > 0).sum()) >= len(result.signs)
        return [rs.positive if majority else rs.negative] * len(X)
    count = np.zeros(len(X), dtype=int)
    for r in result.rounds:
        count += X[:, r.feature] >= r.threshold
    return [rs.positive if 2 * c >= len(result.rounds) else rs.negative for c in count]


def random_data(rng: np.random.Generator, n: int, d: int) -> tuple[np.ndarray, np.ndarray]:
    cols = []
    for _ in range(d):
        kind = rng.integers(3)
        if kind == 0:
            cols.append(rng.integers(0, 2, n).astype(float))  # boolean
        elif kind == 1:
            cols.append(rng.integers(0, 5, n).astype(float) * 10)  # integer, ties
        else:
            cols.append(np.round(rng.normal(size=n), 2))  # real
    X = np.column_stack(cols)
    score = X @ rng.normal(size=d) + rng.normal(scale=0.5, size=n)
    y = np.where(score > np.median(score), "yes", "no")
    return X, y


def test_weights_are_freunds_formula() -> None:
    for T in range(1, 13):
        for t in range(1, T + 1):
            margins = np.arange(-(t - 1), t, 2)  # every margin t-1 votes can give
            for gamma in (0.0, 0.01, 0.1, 0.3):
                expected = [formula(T, t, int(s), gamma) for s in margins]
                got = bbm_weights(T, t, margins, gamma).tolist()
                assert got == pytest.approx(expected, rel=1e-12, abs=1e-300)
                if T % 2 == 0 or gamma == 0.0:
                    # even T: an example is undecided at the end only on a tie
                    total = sum(e for e, s in zip(expected, margins, strict=True) if s == 0)
                    assert total >= 0.0
    # large T: the log route agrees with the exact one where both apply
    margins = np.arange(-50, 51, 2)
    exact = [formula(1200, 1150, int(s), 0.05) for s in margins]
    assert bbm_weights(1200, 1150, margins, 0.05).tolist() == pytest.approx(exact, rel=1e-9)
    assert np.isfinite(bbm_weights(5000, 1, np.array([0]), 0.01)).all()


def test_every_round_is_the_brute_force_best_and_the_stop_is_right() -> None:
    rng = np.random.default_rng(2026)
    stops = set()
    for _ in range(40):
        n, d = int(rng.integers(6, 30)), int(rng.integers(1, 5))
        X, y = random_data(rng, n, d)
        T = int(rng.integers(1, 12))
        tau = float(rng.choice([0.0, 0.05, 0.2]))
        gamma = float(rng.choice([0.01, 0.05]))
        result = run_bbm_rs(X, y, T=T, tau=tau, gamma=gamma)
        replay(X, y, result, T, tau, gamma)
        stops.add(result.stopped)
        if result.stopped == "T":
            assert len(result.rounds) == T
        assert result.model.predict_batch(X).tolist() == vote(X, result)
        m, rs = len(result.rounds), result.model
        if m:
            folded = rs.bias + math.ceil(m / 2)  # always-true conditions, into the bias
            dropped = m - folded - sum(c.points for c in rs.conditions)  # never-true ones
            assert folded >= 0 and dropped >= 0
    assert stops == {"T", "weak", "decided"}


def test_ties_are_decided_exactly_lowest_feature_then_threshold() -> None:
    """Column 1 splits off the same rows as column 0 at 4.5, in another order: the two
    conditions tie exactly in every round, and float sums in their two orders differed (the
    third round took column 1)."""
    X = np.column_stack([np.arange(7), [2, 3, 1, 4, 0, 6, 5]]).astype(float)
    y = np.array([1, 0, 0, 0, 0, 1, 1])
    result = run_bbm_rs(X, y, T=6, tau=0.0)
    assert [(r.feature, r.threshold) for r in result.rounds] == [(0, 4.5)] * 4
    assert result.stopped == "decided"
    # many cuts of one feature tie: the lowest threshold
    y = np.array([0] * 10 + [1, 0] * 245)  # every cut at 10, 12, ..., 498: 255 of 500 right
    result = run_bbm_rs(np.arange(500.0)[:, None], y, T=1, tau=0.0, gamma=0.0)
    assert [(r.threshold, r.accuracy) for r in result.rounds] == [(9.5, 0.51)]


def test_rounds_match_rational_arithmetic_on_tie_prone_data() -> None:
    """Two columns that split off the same rows in different orders, against BBM-RS computed
    with fractions: the same condition every round, the same stop."""
    rng = np.random.default_rng(7)
    for _ in range(40):
        n = int(rng.integers(6, 16))
        m = int(rng.integers(2, n - 1))
        b = np.concatenate([rng.permutation(m), m + rng.permutation(n - m)])
        X = np.column_stack([np.arange(n), b, rng.integers(0, 2, n)]).astype(float)
        y = (rng.random(n) < np.where(np.arange(n) >= m, 0.85, 0.15)).astype(int)
        if len(set(y.tolist())) < 2:
            continue
        T, tau = int(rng.integers(2, 8)), float(rng.choice([0.0, 0.05]))
        result = run_bbm_rs(X, y, T=T, tau=tau)
        got = [
            (r.feature, (result.noisy[:, r.feature] >= r.threshold).tolist()) for r in result.rounds
        ]
        assert (got, result.stopped) == exact_rounds(
            result.noisy, result.signs, T, Fraction(1, 100)
        )


def test_the_stop_at_weighted_accuracy_51_percent_is_exact() -> None:
    """The best condition gets exactly 255 of 500 equally weighted rows right: 0.51 is not
    above 1/2 + 0.01 (float sums made it 0.5100000000000002 and one more round)."""
    y = np.array([0] * 10 + [1, 0] * 245)
    X = np.arange(500.0)[:, None]
    result = run_bbm_rs(X, y, T=1, tau=0.0, gamma=0.01)
    assert result.rounds == [] and result.stopped == "weak"
    y[-1] = 1  # 256 of 500 right: above 0.51
    assert len(run_bbm_rs(X, y, T=1, tau=0.0, gamma=0.01).rounds) == 1


def test_noise_is_in_units_of_the_declared_domain() -> None:
    """The paper moves features normalised to [0, 1] by tau: a feature declared on [0, 1]
    moves by tau whatever rows are fitted; an unbounded one by tau times the rows' range."""
    rng = np.random.default_rng(3)
    X = rng.random((40, 2)) * 0.2 + 0.4  # every value in [0.4, 0.6]
    y = (X[:, 0] > 0.5).astype(int)
    signs = np.where(y == 1, 1, -1)
    feats = [Feature.real("a", 0.0, 1.0), Feature.real("b")]
    result = run_bbm_rs(X, y, T=3, tau=0.05, features=feats)
    spread_b = X[:, 1].max() - X[:, 1].min()
    np.testing.assert_array_equal(result.noisy[:, 0], X[:, 0] - 0.05 * signs)
    np.testing.assert_array_equal(result.noisy[:, 1], X[:, 1] - 0.05 * signs * spread_b)
    assert noise_units(feats, X).tolist() == [1.0, spread_b]
    # a subset of the rows (a fold) gets the same noise on the bounded feature
    half = run_bbm_rs(X[:20], y[:20], T=3, tau=0.05, features=feats)
    np.testing.assert_array_equal(half.noisy[:, 0], result.noisy[:20, 0])
    # a boolean feature moves by tau even where the rows hold one value
    flat = run_bbm_rs(np.zeros((4, 1)), [0, 1, 0, 1], T=1, tau=0.05)
    assert flat.noisy[:, 0].tolist() == [0.05, -0.05, 0.05, -0.05]


def test_score_card_is_the_vote_and_reads_in_data_units() -> None:
    rng = np.random.default_rng(5)
    X, y = random_data(rng, 300, 5)
    result = run_bbm_rs(X, y, T=15)
    rs = result.model
    assert isinstance(rs, RiskScore) and rs.classes == ["no", "yes"]
    constant = rs.bias + math.ceil(len(result.rounds) / 2)  # always-true conditions' points
    assert constant >= 0 and all(c.points > 0 for c in rs.conditions)
    assert sum(c.points for c in rs.conditions) + constant == len(result.rounds)
    assert rs.predict_batch(X).tolist() == vote(X, result)
    # an affine change of units moves the thresholds with it and changes nothing else
    scale, shift = np.array([3.0, 1000.0, 0.5, 7.0, 2.0]), np.array([1.0, -50.0, 3.0, 0, 10])
    moved = run_bbm_rs(X * scale + shift, y, T=15)
    assert [r.feature for r in moved.rounds] == [r.feature for r in result.rounds]
    for a, b in zip(moved.rounds, result.rounds, strict=True):
        assert a.threshold == pytest.approx(b.threshold * scale[b.feature] + shift[b.feature])
        np.testing.assert_allclose(a.weights, b.weights, rtol=1e-9)


def test_noise_makes_the_score_robust_on_the_noisy_points() -> None:
    """Claim 7: when the noisy copy of a training point is classified correctly, every input
    within tau * (max - min) of the point (per feature, l-infinity) gets its class."""
    rng = np.random.default_rng(8)
    X = rng.random((200, 3)) * np.array([1.0, 10.0, 100.0])
    y = np.where(X[:, 0] + X[:, 1] / 10 > 1.0, 1, 0)
    tau = 0.1
    result = run_bbm_rs(X, y, T=9, tau=tau)
    rs = result.model
    spread = X.max(axis=0) - X.min(axis=0)
    right = rs.predict_batch(result.noisy) == y
    assert right.sum() >= 60
    for i in np.flatnonzero(right)[:60]:
        box = X[i] + (rng.random((50, 3)) * 2 - 1) * tau * spread
        assert (rs.predict_batch(box) == y[i]).all()


def test_no_useful_condition_gives_the_majority_class() -> None:
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    result = run_bbm_rs(X, np.array([1, 0, 1, 0]), T=5, tau=0.0)  # every split: accuracy <= 1/2
    assert result.stopped == "weak" and result.rounds == []
    assert result.model.conditions == [] and result.model.predict([3.0]) == 1  # a tie: positive
    result = run_bbm_rs(np.array([[0.0], [1.0], [2.0]]), [1, 0, 0], T=5, tau=0.0)
    assert result.rounds == [] or result.rounds[0].accuracy > 0.51


def test_a_condition_every_value_satisfies_goes_into_the_bias() -> None:
    X, y = np.array([[1.0], [2.0], [3.0], [4.0]]), np.array([1, 1, 1, 0])
    result = run_bbm_rs(X, y, T=1, tau=0.05)  # the constant learner x >= 1 - 0.05 * 3
    assert [(r.threshold, r.accuracy) for r in result.rounds] == [(0.85, 0.75)]
    rs = result.model
    assert rs.features[0].low == 1 and rs.conditions == [] and rs.bias == -1 + 1
    assert rs.predict_batch(X).tolist() == vote(X, result) == [1] * 4
    real = run_bbm_rs(X, y, T=1, tau=0.05, features=[Feature.real("x0")]).model
    assert [str(c.literal) for c in real.conditions] == ["x0 >= 0.85"] and real.bias == -1


def test_a_condition_no_value_satisfies_is_left_off_the_card() -> None:
    X = np.array([[0.0]] + [[8.0]] * 8 + [[10.0]])  # an integer feature on [0, 10]
    y = np.array([1] + [0] * 9)
    result = run_bbm_rs(X, y, T=1, tau=0.2)  # noisy: 0 -> -2, 8 -> 10, 10 -> 12
    assert [(r.threshold, r.accuracy) for r in result.rounds] == [(11.0, pytest.approx(0.8))]
    rs = result.model
    assert rs.features[0].high == 10 and rs.conditions == [] and rs.bias == -1
    assert rs.predict_batch(X).tolist() == vote(X, result) == [0] * 10


def test_boolean_and_bounded_features_get_their_own_literals() -> None:
    X = np.array([[0, 5.0], [0, 7.0], [1, 6.0], [1, 8.0]] * 3)
    y = np.array([0, 0, 1, 1] * 3)
    rs = bbm_rs(X, y, T=3, tau=0.05, feature_names=["b", "r"])
    assert [str(c.literal) for c in rs.conditions] == ["b = 1"]
    feats = [Feature.boolean("b"), Feature.real("r", 5.0, 8.0)]
    rs = bbm_rs(X, 1 - y, T=3, tau=0.05, features=feats, positive=0)
    assert rs.classes == [1, 0] and rs.predict_batch(X).tolist() == (1 - y).tolist()
    assert rs.features == feats


def test_dataframe_columns_name_the_features() -> None:
    import pandas as pd

    frame = pd.DataFrame({"age": [20.0, 30, 40, 50, 60, 70], "ones": [1, 1, 1, 1, 1, 1]})
    rs = bbm_rs(frame, ["lo", "lo", "lo", "hi", "hi", "hi"], T=1, positive="hi")
    assert [f.name for f in rs.features] == ["age", "ones"]
    assert [str(c.literal) for c in rs.conditions] == ["age >= 45"]


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"T": 0}, InvalidParameterError, "T: expected an integer >= 1, found 0"),
        ({"T": 2.5}, InvalidParameterError, "T: expected an integer >= 1"),
        ({"T": 3, "tau": 1.0}, InvalidParameterError, "tau: expected a number in [0, 1)"),
        ({"T": 3, "tau": False}, InvalidParameterError, "tau: expected a number in [0, 1)"),
        ({"T": 3, "gamma": 0.5}, InvalidParameterError, "gamma"),
        ({"T": 3, "positive": "maybe"}, InvalidDataError, "positive: expected one of"),
        ({"T": 3, "feature_names": ["a"]}, InvalidDataError, "expected 2 feature names"),
        (
            {"T": 3, "features": [Feature.categorical("a", [0, 1]), Feature.real("b")]},
            InvalidDataError,
            "needs numeric features, found categorical",
        ),
    ],
)
def test_bad_parameters_are_refused(kwargs: dict, error: type, message: str) -> None:
    X, y = np.array([[0.0, 1.0], [1.0, 0.0]]), ["no", "yes"]
    with pytest.raises(error, match=re.escape(message)):
        bbm_rs(X, y, **kwargs)


@pytest.mark.parametrize(
    ("X", "y", "message"),
    [
        ([[0.0], [1.0], [2.0]], [0, 1, 2], "two classes in y, found [0, 1, 2]"),
        ([[0.0], [1.0]], [1, 1], "two classes in y, found [1]"),
        ([[0.0], [float("nan")]], [0, 1], "missing or infinite"),
        ([["a"], ["b"]], [0, 1], "numeric features"),
        ([[0.0], [1.0]], [0, 1, 1], "one label per row"),
    ],
)
def test_bad_data_is_refused(X: list, y: list, message: str) -> None:
    with pytest.raises(InvalidDataError, match=re.escape(message)):
        bbm_rs(X, y, T=3)


def test_adult_in_seconds_explained_and_verified() -> None:
    import pandas as pd

    frame = pd.read_csv(shared_path("datasets", "riskslim", "adult_data.csv.gz"))
    y, X = frame.iloc[:, 0].to_numpy(), frame.iloc[:, 1:]
    start = time.perf_counter()
    result = run_bbm_rs(X, y, T=30, tau=0.05)
    seconds = time.perf_counter() - start
    rs = result.model
    assert [f.kind for f in rs.features] == ["boolean"] * 36 and rs.classes == [0, 1]
    assert rs.predict_batch(X.to_numpy()).tolist() == vote(X.to_numpy(), result)
    assert float(np.mean(rs.predict_batch(X.to_numpy()) == y)) > 0.76  # the majority: 0.759
    print(f"BBM-RS on adult, T=30: {seconds:.2f} s, {len(result.rounds)} rounds, {rs!r}")
    dg = rs.to_decision_graph()
    x = dict(zip(X.columns, X.iloc[0].tolist(), strict=True))
    found = enumerate_explanations(ExplanationGraph.from_decision_graph(dg, x))
    assert found.complete and found.axps
    with Verifier(rs) as v:
        assert all(v.verify_axp(x, a).holds for a in found.axps)
        assert all(v.verify_cxp(x, c).holds for c in found.cxps)
