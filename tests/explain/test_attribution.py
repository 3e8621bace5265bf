"""Formal feature attribution (issue 33, item 1) against brute force, on seeded small models
of every kind the explainer takes: decision trees, decision lists (compiled, and over their
SAT oracle), OBDDs, OMDDs, decision graphs (read-once or not), risk scores, random forests
and boosted trees (their oracle, and compiled), scikit-learn's histogram boosting (a GBDT).

The truth is independent of the library's algorithms: the model's own ``predict`` on every
point of a grid holding a value of every cell the model tells apart
(:class:`xpg.testing.ClassTable`), its AXps the minimal sufficient subsets
(:class:`xpg.testing.Oracle`), and each feature's share counted from them.  ``model_cases``
is shared with ``test_inflate.py``.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from xpg import Explainer, feature_attribution
from xpg.errors import InvalidParameterError
from xpg.explain.attribution import FeatureAttribution, mean_attribution, shares_of
from xpg.testing import (
    ClassTable,
    domain_values,
    grid_from_literals,
    random_decision_graph,
    random_decision_list,
    random_decision_tree,
    random_features,
    random_obdd,
    random_omdd,
    random_risk_score,
)
from xpg.testing.ensembles import random_small_ensemble

FINITE = ["boolean", "categorical", "integer"]
MIXED = ["boolean", "categorical", "integer", "real"]


@dataclass
class ModelCase:
    """A model's explainer, the grid table of its own ``predict`` and some instances (grid
    points, as dicts)."""

    name: str
    explainer: Explainer
    table: ClassTable
    instances: list[dict[str, Any]]
    finite: Any = None  # the model, when every feature's domain is finite (exhaustive oracle)


def _grid_of_graph(model: Any) -> dict[str, list[Any]]:
    """A value of every cell of the compiled graph, and of a decision list's own cells (its
    SAT oracle's: the graph may merge some)."""
    dg = model if hasattr(model, "edges") else model.to_decision_graph()
    literals = [lit for _, _, lit in dg.edges]
    literals += [lit for rule in getattr(model, "rules", []) for lit in rule.conditions]
    return grid_from_literals(model.features, literals)


def _instances(rng: random.Random, table: ClassTable, count: int) -> list[dict[str, Any]]:
    points = table.points()
    chosen = rng.sample(points, min(count, len(points)))
    return [dict(zip(table.names, p, strict=True)) for p in chosen]


def _graph_case(rng: random.Random, name: str, model: Any, count: int, **options: Any) -> ModelCase:
    grid = _grid_of_graph(model)
    names = [f.name for f in model.features]
    table = ClassTable(names, [grid[n] for n in names], model.predict)
    finite = model if all(f.is_discrete or f.kind == "integer" for f in model.features) else None
    return ModelCase(
        name, Explainer(model, **options), table, _instances(rng, table, count), finite
    )


def _estimator_case(
    rng: random.Random, name: str, est: Any, feats: list[Any], count: int, **options: Any
) -> ModelCase:
    """A scikit-learn estimator's case: its table classified by the estimator's own predict."""
    names = [f.name for f in feats]
    axes = [domain_values(f) for f in feats]

    def predict_many(rows: list[dict[str, Any]]) -> list[Any]:
        m = np.asarray([[float(r[n]) for n in names] for r in rows], dtype=float)
        return est.predict(m).tolist()  # type: ignore[no-any-return]

    table = ClassTable(names, axes, predict_many=predict_many)
    explainer = Explainer(est, feats, **options)
    return ModelCase(name, explainer, table, _instances(rng, table, count), explainer.model)


def _ensemble_case(
    rng: random.Random, name: str, kind: str, count: int, **options: Any
) -> ModelCase:
    est, feats, _ = random_small_ensemble(rng, kind, n_features=rng.randint(3, 4))
    return _estimator_case(rng, name, est, feats, count, **options)


def _gbdt_case(rng: random.Random, count: int) -> ModelCase:
    from sklearn.ensemble import HistGradientBoostingClassifier

    _, feats, X = random_small_ensemble(rng, "forest", n_features=rng.randint(3, 4))
    w = np.asarray([rng.uniform(-1, 1) for _ in feats])
    y = (X @ w > np.median(X @ w)).astype(int)
    if len(set(y.tolist())) < 2:
        y[0] = 1 - y[0]
    est = HistGradientBoostingClassifier(
        max_iter=rng.randint(2, 6), max_depth=3, min_samples_leaf=3
    ).fit(X, y)
    return _estimator_case(rng, "gbdt", est, feats, count)


def _features(rng: random.Random, kinds: list[str]) -> list[Any]:
    return random_features(rng, rng.randint(3, 5), kinds=kinds, bounded=0.3)


#: per kind of model, how to draw one from a random stream and how many instances of it
KIND_MAKERS: dict[str, Callable[[random.Random], ModelCase]] = {
    "tree": lambda r: _graph_case(
        r, "tree", random_decision_tree(r, _features(r, MIXED), r.choice([2, 3]), 4), 5
    ),
    "list": lambda r: _graph_case(
        r,
        "list",
        random_decision_list(r, _features(r, MIXED), r.choice([2, 3]), r.randint(2, 5)),
        5,
    ),
    "finite-tree": lambda r: _graph_case(
        r, "finite-tree", random_decision_tree(r, _features(r, FINITE), r.choice([2, 3]), 4), 5
    ),
    "finite-list": lambda r: _graph_case(
        r,
        "finite-list",
        random_decision_list(r, _features(r, FINITE), r.choice([2, 3]), r.randint(2, 5)),
        5,
    ),
    "list-sat": lambda r: _graph_case(
        r,
        "list-sat",
        random_decision_list(r, _features(r, MIXED), r.choice([2, 3]), r.randint(2, 5)),
        5,
        route="sat",
    ),
    "obdd": lambda r: _graph_case(r, "obdd", random_obdd(r.randrange(10**6), r.randint(3, 6)), 5),
    "omdd": lambda r: _graph_case(
        r, "omdd", random_omdd(r, _features(r, FINITE), r.choice([2, 3])), 5
    ),
    "dag": lambda r: _graph_case(r, "dag", random_decision_graph(r, "dag", max_features=5), 5),
    "ordered": lambda r: _graph_case(
        r, "ordered", random_decision_graph(r, "ordered", max_features=5), 5
    ),
    "risk-score": lambda r: _graph_case(
        r, "risk-score", random_risk_score(r, _features(r, MIXED), r.randint(2, 5)), 5
    ),
    "forest": lambda r: _ensemble_case(r, "forest", "forest", 4),
    "boosted": lambda r: _ensemble_case(r, "boosted", "boosted", 4),
    "forest-smt": lambda r: _ensemble_case(r, "forest-smt", "forest", 3, route="smt"),
    "boosted-graph": lambda r: _ensemble_case(r, "boosted-graph", "boosted", 3, route="graph"),
    "gbdt": lambda r: _gbdt_case(r, 4),
}

#: models drawn per kind
MODELS_PER_KIND = 8


def model_cases(kind: str, seed: int = 0, models: int = MODELS_PER_KIND) -> Iterator[ModelCase]:
    """Seeded models of one kind, each with its grid table and instances."""
    rng = random.Random(f"{kind}-{seed}")
    for _ in range(models):
        yield KIND_MAKERS[kind](rng)


def truth_shares(table: ClassTable, x: dict[str, Any]) -> tuple[dict[str, float], int]:
    """Each feature's share of the AXps found by brute force, and their number."""
    axps = table.oracle(x).axps
    return shares_of(table.names, [sorted(a) for a in axps]), len(axps)


@pytest.mark.parametrize("kind", list(KIND_MAKERS))
def test_attribution_is_the_share_of_every_axp(kind: str) -> None:
    checked = 0
    for case in model_cases(kind):
        for x in case.instances:
            expected, count = truth_shares(case.table, x)
            found = feature_attribution(case.explainer, x)
            assert found.complete and found.axps == count, (case.name, x)
            assert list(found.shares) == case.table.names  # every feature, in model order
            for name, share in expected.items():
                assert found.shares[name] == pytest.approx(share), (case.name, x, name)
                assert found.bounds[name] == (found.shares[name], found.shares[name])
            checked += 1
    assert checked >= 15


@pytest.mark.parametrize("kind", ["tree", "dag", "list-sat", "forest", "boosted", "risk-score"])
def test_an_anytime_stop_proves_bounds_that_hold_the_exact_share(kind: str) -> None:
    """A limit of one AXp (and a time budget already spent) stops the enumeration:
    ``complete`` is False, no exception, and every bound holds the exact share; with time
    left, the features in every AXp are proved necessary."""
    stopped = 0
    for case in model_cases(kind, seed=1):
        for x in case.instances:
            expected, _ = truth_shares(case.table, x)
            necessary = case.table.oracle(x).necessary()
            for options in ({"limit": 1}, {"timeout": 0.0}):
                found = feature_attribution(case.explainer, x, **options)  # type: ignore[arg-type]
                assert not found.complete, (case.name, x, options)
                stopped += 1
                for name, share in expected.items():
                    low, high = found.bounds[name]
                    assert low - 1e-12 <= share <= high + 1e-12, (case.name, x, name, low, high)
                    assert low - 1e-12 <= found.shares[name] <= high + 1e-12
                if "limit" in options:  # time to prove the necessary features
                    assert found.axps == 1
                    for name in necessary:
                        assert found.bounds[name] == (1.0, 1.0), (case.name, x, name)
    assert stopped >= 10


def test_bounds_of_a_partial_enumeration_by_sperner() -> None:
    """An OR of four features at an instance where all are 1: four AXps of one feature each,
    no necessary feature.  After one AXp, the others' share is proved within
    ``[0, M / (1 + M)]`` and the one found within ``[1 / (1 + M), 1]``, ``M = C(4, 2) - 1``."""
    from xpg.core.features import Feature, Literal
    from xpg.models.decision_list import DecisionList, Rule

    feats = [Feature.boolean(f"b{i}") for i in range(4)]
    rules = [Rule([Literal.eq(f"b{i}", 1)], 1) for i in range(4)]
    dl = DecisionList(feats, [0, 1], rules, 0)
    x = {f.name: 1 for f in feats}
    exact = feature_attribution(Explainer(dl), x)
    assert exact.shares == {f.name: 0.25 for f in feats} and exact.axps == 4
    found = feature_attribution(Explainer(dl, route="sat"), x, limit=1)
    assert not found.complete and found.axps == 1
    m = math.comb(4, 2) - 1
    (first,) = [n for n, s in found.shares.items() if s == 1.0]
    for name, (low, high) in found.bounds.items():
        if name == first:
            assert (low, high) == pytest.approx((1 / (1 + m), 1.0))
        else:
            assert (low, high) == pytest.approx((0.0, m / (1 + m)))


def test_features_the_model_never_tests_are_proved_irrelevant() -> None:
    from xpg.core.features import Feature, Literal
    from xpg.models.decision_list import DecisionList, Rule

    feats = [Feature.boolean("a"), Feature.boolean("b"), Feature.real("unused")]
    dl = DecisionList(
        feats, [0, 1], [Rule([Literal.eq("a", 1)], 1), Rule([Literal.eq("b", 1)], 1)], 0
    )
    found = feature_attribution(
        Explainer(dl, route="sat"), {"a": 0, "b": 0, "unused": 2.5}, limit=1
    )
    assert found.bounds["unused"] == (0.0, 0.0) and found.shares["unused"] == 0.0
    # a = b = 0 predicts 0: the one AXp is {a, b}, both necessary (each a CXp of one feature)
    assert found.bounds["a"] == found.bounds["b"] == (1.0, 1.0)


def test_as_dict_is_json() -> None:
    import json

    from xpg.examples import and_graph

    found = feature_attribution(Explainer(and_graph()), {"a": 1, "b": 1})
    doc = json.loads(json.dumps(found.as_dict()))
    assert doc["shares"] == {"a": 1.0, "b": 1.0} and doc["complete"] is True
    assert doc["axps"] == 1 and doc["bounds"] == {"a": [1.0, 1.0], "b": [1.0, 1.0]}
    assert doc["prediction"] == "1" and doc["route"] == "graph"
    assert isinstance(found, FeatureAttribution)


def test_mean_attribution_skips_errors_and_rows_without_the_field() -> None:
    records = [
        {"row": 0, "attribution": {"a": 1.0, "b": 0.0}},
        {"row": 1, "error": "bad value"},
        {"row": 2, "axps": []},
        {"row": 3, "attribution": {"a": 0.0, "b": 0.5}},
    ]
    assert mean_attribution(records) == {"a": 0.5, "b": 0.25}
    assert mean_attribution([]) == {}


@pytest.mark.parametrize("options", [{"limit": 0}, {"timeout": -1.0}, {"limit": 1.5}])
def test_bad_budgets_are_refused(options: dict[str, Any]) -> None:
    from xpg.examples import and_graph

    with pytest.raises(InvalidParameterError):
        feature_attribution(Explainer(and_graph()), {"a": 1, "b": 1}, **options)


def test_a_batch_estimate_keeps_what_its_enumeration_proved() -> None:
    """Was: an incomplete batch record gave the raw shares of the AXps found (all 0 with none
    found) where xpg.feature_attribution keeps each share within its proved bounds: a
    feature that is a CXp on its own is in every AXp."""
    from xpg.examples import and_graph
    from xpg.explain.engine import explain_many

    (record,) = explain_many(and_graph(), [{"a": 1, "b": 1}], kinds="cxp,attribution", limit=1)
    assert record["cxps"] == [["a"]] and record["attribution_complete"] is False
    assert record["attribution"] == {"a": 1.0, "b": 0.0}
