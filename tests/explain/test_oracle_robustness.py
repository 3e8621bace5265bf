"""Exact robustness without a compiled graph (:mod:`xpg.explain.oracle_robustness`): on models
that do compile, the same distance, attainment and verdict as the graph route of
:func:`xpg.explain.exact_robustness.robustness`; the cell questions of both oracles against
brute force."""

from __future__ import annotations

import itertools
import math
import random
from typing import Any

import numpy as np
import pytest

from xpg.core.features import Feature, Literal
from xpg.errors import InvalidQueryError
from xpg.explain.engine import Explainer
from xpg.explain.ensemble.oracle import EnsembleOracle
from xpg.explain.ensemble.space import CellSpace
from xpg.explain.exact_robustness import MARGIN, robustness
from xpg.explain.oracle_abc import OracleTimeout
from xpg.explain.oracle_robustness import oracle_robustness
from xpg.models.decision_list import DecisionList, Rule
from xpg.models.ensemble_import import ensemble_from_sklearn
from xpg.testing import grid_from_literals, random_decision_list, random_features, random_instance
from xpg.testing.ensembles import random_small_ensemble


def _same(graph: Any, oracle: Any, model: Any) -> None:
    assert oracle.distance == graph.distance and oracle.attained == graph.attained
    assert oracle.prediction == graph.prediction
    if math.isinf(graph.distance):
        assert oracle.counterexample is None
        return
    assert model.predict(oracle.counterexample) == oracle.counterexample_class
    assert oracle.counterexample_class != oracle.prediction
    # an open bound b is passed by MARGIN * max(1, |b|) (b: a value of the counterexample)
    numbers = [abs(float(v)) for v in oracle.counterexample.values() if not isinstance(v, str)]
    slack = MARGIN * max([1.0, *numbers]) * 1.01
    assert oracle.counterexample_distance <= oracle.distance + slack


def _iris_forest(seed: int, trees: int, depth: int) -> tuple[Any, np.ndarray]:
    from sklearn.datasets import load_iris
    from sklearn.ensemble import GradientBoostingClassifier, RandomForestClassifier

    X, y = load_iris(return_X_y=True)
    if seed % 2:
        est: Any = GradientBoostingClassifier(
            n_estimators=trees, max_depth=depth, random_state=seed
        )
    else:
        est = RandomForestClassifier(n_estimators=trees, max_depth=depth, random_state=seed)
    return est.fit(X, y), X


@pytest.mark.parametrize("shortcuts", [True, False])
def test_ensembles_on_real_features_agree_with_the_graph_route(shortcuts: bool) -> None:
    """Real features: open and closed bounds, infima; with and without the exhaustive
    shortcut (False: every question to the solver)."""
    for seed in range(4):
        est, X = _iris_forest(seed, 3, 2)
        model = ensemble_from_sklearn(est)
        for row in X[:: 25 + seed]:
            x = list(row)
            truth = robustness(model, x, radius=0.3)
            space = CellSpace(model, x)
            with EnsembleOracle(space, shortcuts=shortcuts) as oracle:
                found = oracle_robustness(oracle, radius=0.3)
            _same(truth, found, model)
            assert found.robust == truth.robust and found.route == "sat-pb"


@pytest.mark.parametrize("kind", ["forest", "boosted", "tied-forest"])
def test_ensembles_on_discrete_features_agree_with_the_graph_route(kind: str) -> None:
    for seed in range(8):
        est, feats, X = random_small_ensemble(seed, kind)
        model = ensemble_from_sklearn(est, feats)
        for row in X[:6]:
            x = {f.name: int(v) for f, v in zip(feats, row.tolist())}
            truth = robustness(model, x)
            with EnsembleOracle(CellSpace(model, x), shortcuts=bool(seed % 2)) as oracle:
                _same(truth, oracle_robustness(oracle), model)


@pytest.mark.parametrize("kinds", [["boolean"], None])
def test_decision_lists_agree_with_the_graph_route(kinds: list[str] | None) -> None:
    rng = random.Random(21 if kinds else 22)
    for _ in range(40):
        feats = random_features(rng, rng.randint(1, 4), kinds)
        dl = random_decision_list(rng, feats, rng.randint(2, 3), rng.randint(1, 6))
        grid = grid_from_literals(feats, [lit for r in dl.rules for lit in r.conditions])
        x = random_instance(rng, feats, grid)
        truth = robustness(dl, x, radius=1.0)
        with Explainer(dl, route="sat").explain(x) as ex:
            found = oracle_robustness(ex.oracle, radius=1.0)
        _same(truth, found, dl)
        assert found.robust == truth.robust and found.route == "list-sat"


def test_a_constant_model_is_robust_everywhere() -> None:
    dl = DecisionList([Feature.real("x")], ["a", "b"], [Rule([Literal.gt("x", 1.0)], "a")], "a")
    with Explainer(dl, route="sat").explain({"x": 0.0}) as ex:
        found = oracle_robustness(ex.oracle, radius=5.0)
    assert found.distance == math.inf and found.counterexample is None and found.robust
    assert found.to_json()["distance"] is None


def test_cell_questions_against_brute_force() -> None:
    """``check_cells`` of the ensemble oracle (consecutive cells, solver and enumeration)
    against every combination of the allowed cells."""
    for seed in range(6):
        est, feats, X = random_small_ensemble(seed, "forest", n_features=3)
        model = ensemble_from_sklearn(est, feats)
        x = {f.name: int(v) for f, v in zip(feats, X[0].tolist())}
        space = CellSpace(model, x)
        rng = random.Random(seed)
        for shortcuts in (True, False):
            with EnsembleOracle(space, shortcuts=shortcuts) as oracle:
                for _ in range(6):
                    allowed = []
                    for k in space.n_cells:
                        a = rng.randrange(k)
                        allowed.append(list(range(a, rng.randrange(a, k) + 1)))
                    combos = np.array(list(itertools.product(*allowed)))
                    labels = model.predict_batch(space.rows(combos))
                    other = any(lab != oracle.prediction_label for lab in labels.tolist())
                    found = oracle.check_cells(allowed)
                    assert (found is not None) == other
                    if found is not None:
                        assert all(int(c) in a for c, a in zip(found, allowed))
        with EnsembleOracle(space) as oracle:
            if space.n_cells[0] > 2:
                with pytest.raises(InvalidQueryError, match="consecutive cells"):
                    oracle.check_cells([[0, 2], None, None])
            oracle.deadline = 0.0  # long past: a solver question stops at once
            oracle.exhaustive_limit = 0
            if any(k > 1 for k in space.n_cells):
                with pytest.raises(OracleTimeout):
                    oracle.check_cells([None] * len(space.n_cells))
