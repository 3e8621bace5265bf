"""The gbdt model kind (xpg.models.gbdt): float32/float64 sums, the three decisions, averages,
missing-value routing, categorical subtrees, JSON, compilation, SMT, and explanations equal to
brute force through the model's own predict."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

from xpg.core.features import Feature
from xpg.errors import InvalidInstanceError, InvalidModelError
from xpg.explain.engine import Explainer
from xpg.explain.ensemble.space import CellSpace
from xpg.explain.ensemble.vote import Vote
from xpg.io import read_model, save_model
from xpg.models import Forest
from xpg.models.ensemble_tree import EnsembleTree
from xpg.models.gbdt import (
    GBDT,
    SetSplit,
    set_split_subtree,
    sigmoid_probabilities,
    sigmoid_tie_width,
    softmax,
)
from xpg.testing import domain_values
from xpg.testing.oracle import Oracle


def _stump(j: int, cut: float, lo: list[float], hi: list[float], miss: bool | None = None):
    return EnsembleTree(
        np.array([j, -1, -1]),
        np.array([cut, 0.0, 0.0]),
        np.array([1, -1, -1]),
        np.array([2, -1, -1]),
        np.array([[0.0] * len(lo), lo, hi]),
        None if miss is None else np.array([miss, False, False]),
    )


def _random_tree(
    rng: np.random.Generator,
    sizes: list[int],
    n_scores: int,
    column: int,
    dyadic: bool,
    spread: float = 1.0,
):
    feature: list[int] = []
    threshold: list[float] = []
    left: list[int] = []
    right: list[int] = []
    value: list[list[float]] = []
    missing: list[bool] = []

    def grow(depth: int) -> int:
        k = len(feature)
        feature.append(-1)
        threshold.append(0.0)
        left.append(-1)
        right.append(-1)
        row = [0.0] * n_scores
        missing.append(False)
        value.append(row)
        if depth < 3 and rng.random() < 0.8:
            j = int(rng.integers(len(sizes)))
            feature[k] = j
            threshold[k] = float(rng.integers(0, sizes[j] - 1)) + 0.5
            missing[k] = bool(rng.random() < 0.5)
            left[k] = grow(depth + 1)
            right[k] = grow(depth + 1)
        else:
            v = rng.integers(-8, 9) / 8 if dyadic else rng.normal()
            row[column] = float(np.float32(v * spread))
        return k

    grow(0)
    return EnsembleTree(
        np.array(feature),
        np.array(threshold),
        np.array(left),
        np.array(right),
        np.array(value),
        np.array(missing),
    )


def _random_gbdt(seed: int, decision: str, spread: float = 1.0, **options: Any) -> GBDT:
    rng = np.random.default_rng(seed)
    sizes = [int(s) for s in rng.integers(2, 5, 3)]
    feats = [Feature.integer(f"f{j}", 0, s - 1) for j, s in enumerate(sizes)]
    k = 2 if decision == "threshold" else 3
    n_scores = 1 if k == 2 else k
    n_trees = n_scores * int(rng.integers(2, 6))
    dyadic = seed % 2 == 0
    trees = [
        _random_tree(rng, sizes, n_scores, t % n_scores, dyadic, spread) for t in range(n_trees)
    ]
    base = [float(np.float32(b)) for b in rng.normal(0, 0.5, n_scores)]
    if decision == "threshold":
        options.setdefault("cut", float(np.float32(rng.normal(0, 0.5))))
        options.setdefault("strict", bool(seed % 3))
    return GBDT(feats, list(range(k)), trees, base, decision=decision, **options)  # type: ignore[arg-type]


def _points(model: GBDT) -> np.ndarray:
    return np.array(list(itertools.product(*[domain_values(f) for f in model.features])), float)


CASES: list[tuple[str, dict[str, Any]]] = [
    ("threshold", {}),
    ("threshold", {"precision": "float64", "average": True}),
    ("argmax", {}),
    ("softmax-argmax", {}),
    ("argmax", {"precision": "float64", "average": True}),
    ("softmax-argmax", {"precision": "float64"}),
    ("sigmoid-argmax", {"precision": "float64", "sigmoid": 0.75}),
    ("sigmoid-argmax", {"precision": "float64", "sigmoid": 2.0, "average": True}),
    # leaves of up to 16: the sigmoids flatten to 1.0 and tie (LightGBM multiclassova)
    ("sigmoid-argmax", {"precision": "float64", "spread": 16.0}),
]


def test_float32_sums_round_every_addition() -> None:
    x = Feature.integer("x", 0, 1)
    tiny = [_stump(0, 0.5, [2.0**-24], [2.0**-24]) for _ in range(3)]
    f32 = GBDT([x], [0, 1], tiny, [1.0], cut=1.0, strict=True)
    f64 = GBDT([x], [0, 1], tiny, [1.0], cut=1.0, strict=True, precision="float64")
    assert f32.scores([[0]]).tolist() == [[1.0]]  # 1 + 2**-24 rounds to 1 (ties to even)
    assert f64.scores([[0]]).tolist() == [[1.0 + 3 * 2.0**-24]]
    assert (f32.predict([0]), f64.predict([0])) == (0, 1)
    with pytest.raises(InvalidModelError, match="float32"):
        GBDT([x], [0, 1], tiny, [0.1])


def test_threshold_strict_and_not_at_the_cut() -> None:
    x = Feature.integer("x", 0, 1)
    t = [_stump(0, 0.5, [-0.25], [0.25])]
    for strict, expected in ((True, [0, 0]), (False, [0, 1])):
        m = GBDT([x], ["n", "y"], t, [0.0], cut=0.25, strict=strict)
        assert m.predict_batch([[0], [1]]).tolist() == [["n", "y"][e] for e in expected]


def test_softmax_argmax_ties_as_the_library_rounds() -> None:
    """Scores a few float32 units apart whose float32 probabilities tie: the first wins."""
    found = 0
    for k in range(1, 12):  # scores k float32 units apart, near 2**-10
        low = 2.0**-10
        high = float(np.float32(low) + np.float32(k * 2.0**-33))
        s = np.array([[low, high]])
        p = softmax(s, "float32")
        if p[0, 0] == p[0, 1]:
            found += 1
            x = Feature.integer("x", 0, 1)
            trees = [_stump(0, 0.5, [low, high], [0.0, 0.0])]
            m = GBDT([x], ["a", "b"], trees, [0.0, 0.0], decision="softmax-argmax")
            assert m.scores([[0]]).tolist() == [[low, high]]
            assert m.predict([0]) == "a"  # tie of the probabilities: the first
            argmax = GBDT([x], ["a", "b"], trees, [0.0, 0.0], decision="argmax")
            assert argmax.predict([0]) == "b"
            assert 2 * m.rounding_bound() > high - low
    assert found >= 5
    assert softmax(np.array([[0.0, math.log(3.0)]])).tolist() == [[0.25, 0.75]]


def test_average_divides_by_the_trees_per_score() -> None:
    x = Feature.integer("x", 0, 1)
    trees = [_stump(0, 0.5, [0.5], [1.5]), _stump(0, 0.5, [0.25], [0.5])]
    m = GBDT([x], [0, 1], trees, [0.0], cut=0.5, strict=False, average=True, precision="float64")
    assert m.scores([[0], [1]]).ravel().tolist() == [0.375, 1.0]
    assert m.predict_batch([[0], [1]]).tolist() == [0, 1]
    with pytest.raises(InvalidModelError, match="same number of trees"):
        three = [_stump(0, 0.5, [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]) for _ in range(4)]
        GBDT([x], [0, 1, 2], three, [0.0] * 3, average=True)


def test_missing_values_route_by_missing_left() -> None:
    x, y = Feature.real("x"), Feature.real("y")
    trees = [_stump(0, 0.5, [-1.0], [1.0], miss=True), _stump(1, 0.5, [-0.5], [0.5], miss=False)]
    m = GBDT([x, y], [0, 1], trees, [0.0])
    rows = [[np.nan, 0.0], [np.nan, np.nan], [1.0, np.nan], [0.0, 0.0]]
    assert m.scores(rows).ravel().tolist() == [-1.5, -0.5, 1.5, -1.5]
    assert m.predict({"x": float("nan"), "y": 1.0}) == 0
    assert m.predict([2.0, float("nan")]) == 1
    with pytest.raises(InvalidInstanceError):
        m.predict({"x": "a", "y": float("nan")})
    # no routing: NaN fails x <= c and goes right (as before), and is refused by predict
    plain = GBDT([x, y], [0, 1], [t._replace(missing_left=None) for t in trees], [0.0])
    assert plain.scores([[np.nan, np.nan]]).ravel().tolist() == [1.5]
    with pytest.raises(InvalidInstanceError):
        plain.predict({"x": float("nan"), "y": 1.0})
    # a NaN instance is predicted but not explained
    with pytest.raises(InvalidInstanceError, match="'x'.*NaN"):
        CellSpace(m, {"x": float("nan"), "y": 0.0})


def test_json_round_trip(tmp_path) -> None:
    for seed, (decision, options) in enumerate(CASES):
        m = _random_gbdt(seed, decision, source="test", **options)
        body = m.to_json_body()
        assert body["type"] == "gbdt" and "missing_left" in body["trees"][0]
        again = GBDT.from_json_body(body, list(m.features), list(m.classes))
        assert again.to_json_body() == body
        save_model(m, tmp_path / "m.json")
        loaded: Any = read_model(tmp_path / "m.json")
        P = _points(m)
        P[::3, 0] = np.nan
        assert np.array_equal(loaded.scores(P), m.scores(P))
        assert (loaded.decision, loaded.precision, loaded.average) == (
            decision,
            options.get("precision", "float32"),
            options.get("average", False),
        )
    # forests without routing write no missing_left: their JSON is unchanged
    f = Forest([Feature.boolean("a")], [0, 1], [_stump(0, 0.5, [1, 0], [0, 1])], [0, 0], 1.0)
    assert "missing_left" not in f.to_json_body()["trees"][0]


@pytest.mark.parametrize(
    "edit, words",
    [
        ({"decision": "vote"}, "model.decision"),
        ({"precision": "float16"}, "model.precision"),
        ({"strict": 1}, "model.strict"),
        ({"cut": "0"}, "model.cut"),
        ({"sigmoid": "1"}, "model.sigmoid"),
        ({"sigmoid": -1.0}, "sigmoid"),
        ({"base": [0.1]}, "float32"),
    ],
)
def test_bad_json_names_the_field(edit: dict[str, Any], words: str) -> None:
    m = _random_gbdt(0, "threshold")
    body = {**m.to_json_body(), **edit}
    with pytest.raises(InvalidModelError, match=words):
        GBDT.from_json_body(body, list(m.features), list(m.classes))
    trees = [dict(t) for t in m.to_json_body()["trees"]]
    trees[0]["missing_left"] = [1] * len(trees[0]["left"])
    with pytest.raises(InvalidModelError, match=r"trees\[0\].missing_left"):
        GBDT.from_json_body({**m.to_json_body(), "trees": trees}, list(m.features), [0, 1])


def test_refused_options() -> None:
    t = [_stump(0, 0.5, [0.0], [1.0])]
    x = [Feature.integer("x", 0, 1)]
    for kwargs, words in (
        ({"decision": "vote"}, "decision"),
        ({"precision": "half"}, "precision"),
        ({"cut": math.inf}, "cut"),
        ({"strict": "yes"}, "strict"),
        ({"sigmoid": 0.0}, "sigmoid"),
        ({"sigmoid": math.nan}, "sigmoid"),
    ):
        with pytest.raises(InvalidModelError, match=words):
            GBDT(x, [0, 1], t, [0.0], **kwargs)
    with pytest.raises(InvalidModelError, match="two classes"):
        GBDT(x, [0, 1, 2], t, [0.0], decision="threshold")


def _walk(node: SetSplit | bool, x: float) -> bool:
    while not isinstance(node, bool):
        if math.isnan(x):
            node = node.left if node.missing_left else node.right
        else:
            node = node.left if x <= node.cut else node.right
    return node


def _depth(node: SetSplit | bool) -> int:
    return 0 if isinstance(node, bool) else 1 + max(_depth(node.left), _depth(node.right))


def test_set_split_subtree_sends_exactly_the_set() -> None:
    checked = one_cut = 0
    for domain in ([0, 1, 2, 3, 4, 5], [3.0, 7.0, 11.0, 13.0, 20.0]):
        for r in range(len(domain) + 1):
            for members in itertools.combinations(domain, r):
                for missing_in in (None, True, False):
                    sub = set_split_subtree(domain, members, missing_in)
                    assert all(_walk(sub, float(c)) == (c in members) for c in domain)
                    if missing_in is not None:
                        assert _walk(sub, math.nan) == missing_in
                    runs = 1 + sum(
                        (a in members) != (b in members) for a, b in zip(domain, domain[1:])
                    )
                    side = bool(members)  # the side of every code when there is one run
                    if runs == 1 and missing_in is not None and missing_in != side:
                        # every code one way, NaN the other: one cut at the largest code
                        assert sub == SetSplit(max(domain), side, missing_in, False)
                        assert _walk(sub, math.nan) == missing_in
                        one_cut += 1
                    else:
                        assert _depth(sub) == math.ceil(math.log2(runs))
                    checked += 1
    assert checked == 3 * (2**6 + 2**5) and one_cut == 4


@pytest.mark.parametrize("decision, options", CASES)
def test_graph_smt_and_predict_agree_on_every_point(decision: str, options: dict) -> None:
    from xpg.core.instances import instance_dict  # noqa: F401  (the SMT values are checked)

    for seed in range(8):
        m = _random_gbdt(seed, decision, **options)
        P = _points(m)
        expected = m.predict_batch(P).tolist()
        dg = m.to_decision_graph()
        assert [dg.predict(list(map(int, p))) for p in P] == expected, (seed, decision)
        if seed < 3:
            enc = m.smt_encoding()
            bound = m.rounding_bound()
            for p, c in zip(P, expected):
                values = {f.name: int(v) for f, v in zip(m.features, p)}
                subst = {enc.variables[n]: enc.value_term(n, v) for n, v in values.items()}
                term = enc.env.substituter.substitute(enc.class_term, subst)
                got = m.classes[int(enc.env.simplifier.simplify(term).constant_value())]
                if got != c:  # only where the exact sums are within rounding of a tie
                    s = _exact_scores(m, p)
                    gap = abs(s[0] - _cut(m)) if m.n_scores == 1 else _top_gap(s)
                    assert gap <= 2 * bound, (seed, decision, p)


def _cut(m: GBDT) -> Fraction:
    return Fraction(m.cut) * (m.trees_per_score if m.average else 1)


def _exact_scores(m: GBDT, p: np.ndarray) -> list[Fraction]:
    leaves = m.leaf_indices(p[None, :])[0]
    return [
        Fraction(float(m.base[k]))
        + sum(Fraction(float(t.value[leaves[i], k])) for i, t in enumerate(m.trees))
        for k in range(m.n_scores)
    ]


def _top_gap(s: list[Fraction]) -> Fraction:
    top = sorted(s, reverse=True)
    return top[0] - top[1]


def test_rounding_bound_bounds_the_float32_error() -> None:
    for seed in range(30):
        decision, options = CASES[seed % len(CASES)]
        m = _random_gbdt(seed, decision, **options)
        P = _points(m)
        floats = m.scores(P)
        count = m.trees_per_score if m.average else 1
        for r, p in enumerate(P):
            exact = _exact_scores(m, p)
            for k in range(m.n_scores):
                err = abs(Fraction(float(floats[r, k])) - exact[k] / count)
                assert err <= Fraction(m.rounding_bound()), seed


@pytest.mark.parametrize("route", [None, "sat", "smt", "graph"])
@pytest.mark.parametrize("decision, options", CASES)
def test_explanations_equal_brute_force(decision: str, options: dict, route: str | None) -> None:
    checked = 0
    for seed in range(10 if route is None else 4):
        m = _random_gbdt(seed, decision, **options)
        rng = np.random.default_rng(seed)
        grid = {f.name: domain_values(f) for f in m.features}
        for _ in range(3):
            x = {f.name: int(rng.choice(domain_values(f))) for f in m.features}
            oracle = Oracle.of_model(m.predict, m.features, grid, x)
            kw: dict[str, Any] = {} if route is None else {"route": route, "shortcuts": False}
            with Explainer(m, **kw).explain(x) as ex:
                result = ex.enumerate()
                assert result.complete
                assert {frozenset(a) for a in result.axps} == oracle.axps, (seed, x)
                assert {frozenset(c) for c in result.cxps} == oracle.cxps, (seed, x)
            checked += 1
    assert checked >= 12


def test_vote_exactness_and_rounding() -> None:
    dyadic = _random_gbdt(0, "threshold")  # dyadic leaves, small sums
    exact = GBDT(dyadic.features, dyadic.classes, dyadic.trees, [0.125], cut=0.25)
    x = {f.name: 0 for f in exact.features}
    vote = Vote(CellSpace(exact, x), int(exact.classes.index(exact.predict(x))))
    assert vote.exact and vote.cut == 0.25
    soft = _random_gbdt(0, "softmax-argmax")
    vote = Vote(CellSpace(soft, x), int(soft.predict(x)))
    # score by score (each tree adds to one score): below the bound over every tree at once
    assert not vote.exact and 2.0**-21 < vote.eps < soft.vote_rounding(vote.magnitude)
    noisy = _random_gbdt(1, "argmax")
    vote = Vote(CellSpace(noisy, x), int(noisy.predict(x)))
    assert not vote.exact and 0 < vote.eps < noisy.vote_rounding(vote.magnitude)


def test_the_votes_rounding_bounds_each_scores_float_error() -> None:
    """``Vote.eps``, the oracle's bound on the model's rounding, counted score by score (a
    multi-class booster's tree adds to one score): every score the model adds in floats is
    within it of the exact sum, on boosters whose rounding is large (many trees of large
    leaves with full mantissas), and it is at least 5 times below the bound that counts
    every tree in every score."""
    worst = 0.0
    for seed in range(12):
        rng = np.random.default_rng(seed)
        sizes = [4, 3, 4]
        feats = [Feature.integer(f"f{j}", 0, s - 1) for j, s in enumerate(sizes)]
        n_scores = 3
        trees = [
            _random_tree(rng, sizes, n_scores, t % n_scores, False, 1000.0)
            for t in range(n_scores * 20)
        ]
        base = [float(np.float32(b)) for b in rng.normal(0, 500, n_scores)]
        m = GBDT(feats, [0, 1, 2], trees, base, decision="argmax")
        P = _points(m)
        floats = m.scores(P)
        x = {f.name: int(v) for f, v in zip(m.features, P[0])}
        vote = Vote(CellSpace(m, x), int(m.predict(x)))
        assert 0 < 5 * vote.eps < m.vote_rounding(vote.magnitude), seed
        for r, p in enumerate(P):
            exact = _exact_scores(m, p)
            for k in range(n_scores):
                err = abs(Fraction(float(floats[r, k])) - exact[k])
                assert err <= Fraction(vote.eps), (seed, r, k)
                worst = max(worst, float(err) / vote.eps)
    assert worst > 0.01  # the cases round enough to test the bound


def test_the_votes_rounding_bounds_sums_that_round_one_way() -> None:
    """Every addition rounds up by 3/8 of a unit (1 + 5 * 2**-26 is nearer 1 + 2**-23): 20
    trees per score carry the error to a third of ``Vote.eps``, which a bound a few times
    too small would miss."""
    x = Feature.integer("x", 0, 1)
    step = 5 * 2.0**-26
    trees = [
        _stump(0, 0.5, [step if k == t % 3 else 0.0 for k in range(3)], [0.0, 0.0, 0.0])
        for t in range(60)
    ]
    m = GBDT([x], [0, 1, 2], trees, [1.0, 1.0, 1.0], decision="argmax")
    vote = Vote(CellSpace(m, {"x": 0}), int(m.predict({"x": 0})))
    error = float(m.scores([[0]])[0, 0]) - (1.0 + 20 * step)
    assert error == 20 * 3 * 2.0**-26  # every addition rounded up
    assert error <= vote.eps < 4 * error


# -- LightGBM's decisions in float64: softmax and multiclassova's sigmoids ----------------------
def _libm_softmax_row(row: list[float]) -> list[float]:
    """LightGBM's ``Common::Softmax``, element by element."""
    top = max(row)
    e = [math.exp(x - top) for x in row]
    total = 0.0
    for x in e:
        total += x
    return [x / total for x in e]


@pytest.mark.parametrize("k", [8, 9, 12, 17])
def test_float64_softmax_adds_class_by_class_with_libm_exp(k: int) -> None:
    rng = np.random.default_rng(k)
    S = rng.normal(0, 3, (3000, k))
    ours = softmax(S, "float64")
    assert ours.tolist() == [_libm_softmax_row(r) for r in S.tolist()]
    # the test tells the sum and the exp apart: numpy's pairwise sum and numpy's exp differ
    e = np.exp(S - S.max(axis=1, keepdims=True))
    assert (ours != e / e.sum(axis=1, keepdims=True)).any()


def test_sigmoid_argmax_is_the_first_largest_float64_sigmoid() -> None:
    rng = np.random.default_rng(0)
    S = np.concatenate([rng.normal(0, 3, (500, 4)), rng.uniform(30, 45, (500, 4))])
    S[:50] = -S[:50] * 20  # exp overflows: probabilities 0.0
    for sigma in (1.0, 0.5, 2.5):
        p = sigmoid_probabilities(S, sigma)
        expected = [
            [1.0 / (1.0 + math.exp(-sigma * x)) if -sigma * x < 709 else 0.0 for x in r]
            for r in S.tolist()
        ]
        assert p.tolist() == expected
    x = [Feature.integer("x", 0, 1)]
    # class 0 at 40, class 1 at 100: both 1.0 in float64, the first wins
    t = _stump(0, 0.5, [40.0, 100.0, -1.0], [0.0, 0.5, 0.0])
    m = GBDT(x, ["a", "b", "c"], [t], [0.0] * 3, precision="float64", decision="sigmoid-argmax")
    assert m.predict([0]) == "a" and m.predict([1]) == "b"
    assert GBDT(x, ["a", "b", "c"], [t], [0.0] * 3, precision="float64").predict([0]) == "b"
    # the decision slack covers that tie: the exact scores are 60 apart
    assert 2 * m.rounding_bound() >= 60.0
    assert m.vote_rounding(100.0) >= 30.0
    assert not m.exact_decision


@pytest.mark.parametrize("sigma", [1.0, 0.3, 3.0])
def test_sigmoid_tie_width_covers_every_tie_it_is_asked_about(sigma: float) -> None:
    """Scores of equal probability are never further apart than the bound, around every
    place the sigmoid flattens (near 1.0, near 0, and where exp overflows)."""
    rng = np.random.default_rng(int(sigma * 10))
    widest = 0.0
    for magnitude in (5.0, 20.0, 30.0, 36.0, 38.0, 50.0, 400.0, 800.0):
        m = magnitude / sigma
        a = np.concatenate(
            [
                rng.uniform(-m, m, 40000),
                m - rng.exponential(m / 50, 20000),
                -m + rng.exponential(m / 50, 20000),
            ]
        )
        a = np.clip(a, -m, m)
        p = sigmoid_probabilities(a[None, :], sigma)[0]
        order = np.lexsort((a, p))
        a, p = a[order], p[order]
        starts = np.flatnonzero(np.r_[True, p[1:] != p[:-1]])
        ends = np.r_[starts[1:], len(p)] - 1
        spread = float((a[ends] - a[starts]).max())
        assert spread <= sigmoid_tie_width(m, sigma), (magnitude, spread)
        widest = max(widest, spread)
    assert widest > 1.0  # some ties are wide: the flat ends were reached


def test_sigmoid_argmax_rounding_bound_covers_the_flat_sigmoid() -> None:
    """On models whose sigmoids flatten, every class the model picks over another is within
    twice the rounding bound of it on the exact sums, and the flattening happens."""
    flat = 0
    for seed in range(12):
        m = _random_gbdt(seed, "sigmoid-argmax", spread=16.0, precision="float64")
        P = _points(m)
        chosen = m.classes_of_scores(m.scores(P))
        bound = m.rounding_bound()
        flat += int((chosen != np.argmax(m.scores(P), axis=1)).sum())
        for p, c in zip(P, chosen.tolist()):
            s = _exact_scores(m, p)
            assert all(s[c] - s[k] >= -2 * bound for k in range(m.n_scores)), (seed, p)
    assert flat > 0


def test_documented_example_reads_as_described() -> None:
    import json
    import re
    from pathlib import Path

    from xpg.io.model_json import read_model_dict

    text = (Path(__file__).resolve().parents[2] / "docs" / "model-format.md").read_text()
    blocks = [json.loads(b) for b in re.findall(r"```json\n(.*?)```", text, flags=re.S)]
    doc = next(b for b in blocks if b.get("model", {}).get("type") == "gbdt")
    m = read_model_dict(doc)
    assert isinstance(m, GBDT) and m.to_json_body() == doc["model"]
    assert m.scores([[70.0, 1], [50.0, 0]]).ravel().tolist() == [1.0, -1.0]
    assert [m.predict({"age": a, "color": c}) for a, c in ((70.0, 1), (50.0, 0))] == ["yes", "no"]
    assert m.predict({"age": math.nan, "color": 1}) == "no"  # -0.25 - 0.5 + 0.5
    dg = m.to_decision_graph()
    for age, color in itertools.product((0.0, 60.0, 60.5, 120.0), (0, 1, 2)):
        assert dg.predict({"age": age, "color": color}) == m.predict([age, color])
