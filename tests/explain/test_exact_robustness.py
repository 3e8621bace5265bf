"""Exact robustness against brute force on hundreds of seeded small models.

The reference enumerates, per feature, a finite set of candidate values (the instance's value,
every constant a literal compares with, each constant plus and minus a tiny step, the domain's
finite bounds; every value of a finite domain), classifies every combination with the model's
own ``predict_batch`` and keeps the smallest l-infinity distance to another class.  A point
just past a strict threshold is credited with its distance to the threshold, so the reference
is an infimum too; it also says whether the infimum is attained.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

import xpg
from xpg.core.features import Feature, Literal
from xpg.core.graph import DecisionGraph
from xpg.errors import InvalidInstanceError, InvalidQueryError
from xpg.explain.exact_robustness import MARGIN, is_read_once, nearest_value, robustness
from xpg.testing import (
    domain_values,
    grid_from_literals,
    literal_constants,
    random_bounded_graph,
    random_decision_graph,
    random_decision_list,
    random_decision_tree,
    random_features,
    random_instance,
    random_obdd,
    random_omdd,
    small_mixed_graph,
)

TINY = 1e-6  # far below the gaps between the generators' thresholds (0.5 and more)
MAX_POINTS = 40_000


def _candidates(f: Feature, v: Any, constants: set[float]) -> list[tuple[Any, float, bool]]:
    """``(value, credited distance, exact)``: ``exact`` is False for a point just past a
    constant, credited with the distance from ``v`` to the segment between it and the constant."""
    if f.is_discrete:
        return [(w, 0.0 if w == v else 1.0, True) for w in f.values]
    if f.kind == "integer":
        if math.isfinite(f.low) and math.isfinite(f.high):
            values = domain_values(f)
        else:
            values = sorted(
                {int(v)} | {math.floor(c) + k for c in constants for k in (-1, 0, 1, 2)}
            )
        return [(w, float(abs(w - v)), True) for w in values if f.low <= w <= f.high]
    out: list[tuple[Any, float, bool]] = [(float(v), 0.0, True)]
    for c in constants | {b for b in (f.low, f.high) if math.isfinite(b)}:
        out.append((c, abs(c - v), True))
        for w in (c - TINY, c + TINY):
            lo, hi = min(c, w), max(c, w)
            credit = 0.0 if lo <= v <= hi else min(abs(lo - v), abs(hi - v))
            out.append((w, credit, False))
    return [(w, d, e) for w, d, e in out if f.low <= w <= f.high]


def brute_robustness(model: Any, values: Sequence[Any]) -> tuple[float, bool] | None:
    """``(infimum distance, attained)`` by enumeration (``inf`` for a constant model), or
    ``None`` when the candidate grid is too large to enumerate."""
    dg = model.to_decision_graph()
    consts = literal_constants(lit for _, _, lit in dg.edges)
    cands = [
        _candidates(f, v, consts.get(f.name, set()))
        for f, v in zip(dg.features, values, strict=True)
    ]
    if math.prod(len(c) for c in cands) > MAX_POINTS:
        return None
    combos = list(itertools.product(*cands))
    X = np.empty((len(combos), len(dg.features)), dtype=object)
    for i, combo in enumerate(combos):
        X[i] = [w for w, _, _ in combo]
    labels = model.predict_batch(X)
    predicted = model.predict(list(values))
    best: tuple[float, int] = (math.inf, 0)
    for combo, label in zip(combos, labels, strict=True):
        if label == predicted:
            continue
        d = max((credit for _, credit, _ in combo), default=0.0)
        is_open = any(credit == d and not exact for _, credit, exact in combo)
        best = min(best, (d, int(is_open)))
    return best[0], not best[1] and math.isfinite(best[0])


def _instance(rng: random.Random, dg: DecisionGraph) -> list[Any]:
    grid = grid_from_literals(dg.features, [lit for _, _, lit in dg.edges])
    inst = random_instance(rng, dg.features, grid)
    return [inst[f.name] for f in dg.features]


def _check(model: Any, values: list[Any], rng: random.Random) -> bool:
    """Compare with brute force; False when the grid was too large (not checked)."""
    truth = brute_robustness(model, values)
    if truth is None:
        return False
    er = robustness(model, values)
    distance, attained = truth
    assert er.distance == pytest.approx(distance, abs=1e-12), (er, values)
    assert er.attained == attained, (er, values)
    dg = model.to_decision_graph()
    if math.isinf(distance):
        assert er.counterexample is None and er.counterexample_class is None
    else:
        cex = er.counterexample
        assert cex is not None
        dg.instance_values(cex)  # inside the domains
        assert model.predict(cex) == er.counterexample_class != er.prediction
        scale = max([1.0] + [abs(float(v)) + distance for v in values if not isinstance(v, str)])
        assert er.counterexample_distance is not None
        assert er.counterexample_distance <= distance + MARGIN * scale + 1e-12
        if attained:
            assert er.counterexample_distance == pytest.approx(distance, abs=1e-12)
    # the general route agrees wherever the read-once programme applies
    if is_read_once(dg):
        assert er.route == "read-once"
        other = robustness(model, values, route="best-first")
        assert (other.distance, other.attained) == (er.distance, er.attained)
    else:
        assert er.route == "best-first"
    # radius: the closed ball just below, at and just above the distance
    if math.isfinite(distance):
        for r in (max(0.0, distance - 0.1), distance, distance + 0.1):
            robust = robustness(model, values, radius=r).robust
            assert robust == (distance > r or (distance == r and not attained)), (r, er)
    return True


@pytest.mark.parametrize("kind", ["tree", "dag", "ordered"])
@pytest.mark.slow
def test_random_graphs_against_brute_force(kind: str) -> None:
    rng = random.Random(["tree", "dag", "ordered"].index(kind))
    checked = repeated = 0
    for _ in range(150):
        dg = random_decision_graph(rng, kind, max_features=4)
        dg.validate()
        for _ in range(2):
            if _check(dg, _instance(rng, dg), rng):
                checked += 1
                repeated += not is_read_once(dg)
    assert checked >= 200
    if kind == "dag":
        assert repeated >= 50  # the general route is exercised on graphs that repeat features


def test_bounded_graphs_against_brute_force() -> None:
    rng = random.Random(11)
    checked = 0
    for seed in range(120):
        dg = random_bounded_graph(seed, max_features=4)
        dg.validate()
        checked += _check(dg, _instance(rng, dg), rng)
    assert checked >= 100


@pytest.mark.slow
def test_models_against_brute_force() -> None:
    """The project's own model kinds: trees, decision lists, OMDDs and OBDDs (dd)."""
    rng = random.Random(5)
    checked = 0
    for _ in range(60):
        feats = random_features(rng, rng.randint(1, 4))
        models: list[Any] = [
            random_decision_tree(rng, feats, rng.randint(2, 3), 3),
            random_decision_list(rng, feats, 2, rng.randint(1, 4)),
            random_obdd(rng.randrange(10**6), rng.randint(2, 6)),
        ]
        finite = [f for f in feats if f.kind != "real"]
        if finite:
            models.append(random_omdd(rng, finite, 2))
        for model in models:
            checked += _check(model, _instance(rng, model.to_decision_graph()), rng)
    assert checked >= 200


def test_thresholds_strict_and_closed() -> None:
    dg = DecisionGraph([Feature.real("x"), Feature.integer("n", -5, 5)], classes=[0, 1])
    dg.add_node("r", "x")
    dg.add_node("m", "n")
    dg.add_terminal("a", 0)
    dg.add_terminal("b", 1)
    dg.add_edge("r", "a", Literal.le("x", 3.0))  # x > 3 is the strict side
    dg.add_edge("r", "m", Literal.gt("x", 3.0))
    dg.add_edge("m", "a", Literal.interval("n", -math.inf, 2.5))
    dg.add_edge("m", "b", Literal.interval("n", 2.5, math.inf))
    er = robustness(dg, {"x": 2.0, "n": 4})  # predicted 0; class 1 needs x > 3
    assert (er.distance, er.attained) == (1.0, False)
    assert 3.0 < er.counterexample["x"] <= 3.0 + 3 * MARGIN
    assert robustness(dg, {"x": 2.0, "n": 4}, radius=1.0).robust is True
    er = robustness(dg, {"x": 4.0, "n": 2})  # predicted 0 through n <= 2.5; n must reach 3
    assert (er.distance, er.attained, er.counterexample) == (1.0, True, {"x": 4.0, "n": 3})
    assert robustness(dg, {"x": 4.0, "n": 2}, radius=1.0).robust is False
    er = robustness(dg, {"x": 4.0, "n": 5})  # predicted 1: x down to 3 (attained) or n to 2
    assert (er.distance, er.attained, er.counterexample) == (1.0, True, {"x": 3.0, "n": 5})


def test_categorical_change_counts_one() -> None:
    dg = small_mixed_graph()  # x <= 2: no; else c = a: no, c in {b, d}: yes
    er = robustness(dg, {"x": 9.0, "c": "b"})
    assert (er.distance, er.counterexample, er.counterexample_class) == (
        1.0,
        {"x": 9.0, "c": "a"},
        "no",
    )
    er = robustness(dg, {"x": 2.5, "c": "b"})
    assert (er.distance, er.counterexample) == (0.5, {"x": 2.0, "c": "b"})


def test_domain_bounds_are_respected() -> None:
    dg = DecisionGraph([Feature.real("x", 0.0, 1.0)], classes=[0, 1])
    dg.add_node("r", "x")
    dg.add_terminal("a", 0)
    dg.add_terminal("b", 1)
    dg.add_edge("r", "a", Literal.le("x", 0.5))
    dg.add_edge("r", "b", Literal.gt("x", 0.5))
    er = robustness(dg, [0.1])
    assert er.distance == pytest.approx(0.4) and not er.attained
    assert 0.5 < er.counterexample["x"] <= 1.0


def test_constant_model_is_infinitely_robust() -> None:
    dg = DecisionGraph([Feature.real("x")], classes=[0, 1])
    dg.add_node("r", "x")
    dg.add_terminal("a", 0)
    dg.add_terminal("b", 0 + 0)
    dg.add_edge("r", "a", Literal.le("x", 0.5))
    dg.add_edge("r", "b", Literal.gt("x", 0.5))
    er = robustness(dg, [0.0], radius=100.0)
    assert math.isinf(er.distance) and er.counterexample is None and er.robust is True
    assert er.to_json()["distance"] is None


def test_read_once_route_refused_on_repeated_tests() -> None:
    rng = random.Random(3)
    while True:
        dg = random_decision_graph(rng, "dag", max_features=3)
        if not is_read_once(dg):
            break
    values = _instance(rng, dg)
    with pytest.raises(InvalidQueryError, match="read-once"):
        robustness(dg, values, route="read-once")
    assert robustness(dg, values).route == "best-first"


@pytest.mark.parametrize("radius", [-1.0, math.nan, math.inf, "big"])
def test_bad_radius(radius: Any) -> None:
    dg = random_decision_graph(0, "tree")
    with pytest.raises(InvalidQueryError, match="radius"):
        robustness(dg, _instance(random.Random(0), dg), radius=radius)


def test_bad_route_and_instance() -> None:
    dg = random_decision_graph(0, "tree")
    values = _instance(random.Random(0), dg)
    with pytest.raises(InvalidQueryError, match="route"):
        robustness(dg, values, route="fast")  # type: ignore[arg-type]
    with pytest.raises(InvalidInstanceError):
        robustness(dg, values[:-1] if len(values) > 1 else values + [0])


def test_nearest_value_open_interval_narrow() -> None:
    import portion as P

    (d, is_open), point = nearest_value(Feature.real("x"), 0.0, P.open(1.0, 1.0 + 1e-12))
    assert (d, is_open) == (1.0, 1) and 1.0 < point < 1.0 + 1e-12


def test_exported_lazily() -> None:
    assert xpg.robustness is robustness


def test_json_of_numpy_classes() -> None:
    import json

    dg = DecisionGraph([Feature.real("x")], classes=[np.int64(0), np.int64(1)])
    dg.add_node("r", "x")
    dg.add_terminal("a", np.int64(0))
    dg.add_terminal("b", np.int64(1))
    dg.add_edge("r", "a", Literal.le("x", 0.5))
    dg.add_edge("r", "b", Literal.gt("x", 0.5))
    doc = json.loads(json.dumps(robustness(dg, [2.0]).to_json()))
    assert doc["counterexample_class"] == "0" and doc["counterexample"] == {"x": 0.5}
