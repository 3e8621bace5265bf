"""The oracle battery (``battery.py``) on every oracle: explanation graphs (random XpGs, and
the compiled graphs of trees, lists, risk scores and OMDDs), the exhaustive oracle, the
decision-list SAT oracle and the tree-ensemble oracle (both votes, with and without the
cheap decisions).  The truth is brute force through the model's own ``predict``
(scikit-learn's for the ensembles), or a breadth-first search for a bare XpG.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from battery import CHECKS, Case

from xpg.core.xpgraph import ExplanationGraph
from xpg.explain.ensemble.oracle import EnsembleOracle
from xpg.explain.ensemble.space import CellSpace
from xpg.explain.exhaustive_oracle import ExhaustiveOracle
from xpg.explain.graph_oracle import GraphOracle
from xpg.explain.list_oracle import DecisionListOracle, ListSpace
from xpg.models.ensemble_import import ensemble_from_sklearn
from xpg.testing import (
    Oracle as Truth,
)
from xpg.testing import (
    domain_values,
    random_cases,
    random_decision_list,
    random_decision_tree,
    random_features,
    random_instance,
    random_omdd,
    random_risk_score,
)
from xpg.testing.ensembles import SMALL_ENSEMBLE_KINDS, ensemble_oracle, random_small_ensemble

FINITE = ["boolean", "categorical", "integer"]
CASES_PER_KIND = 12


def _truth_of_model(model: Any, x: dict[str, Any]) -> Truth:
    """Every AXp and CXp of ``model`` at ``x``, from the model's own ``predict`` on every
    point of the finite domain."""
    grid = {f.name: domain_values(f) for f in model.features}
    return Truth.of_model(model.predict, model.features, grid, x)


def _random_model(rng: random.Random, kind: str) -> Any:
    features = random_features(rng, rng.randint(2, 4), kinds=FINITE)
    if kind == "tree":
        return random_decision_tree(rng, features, rng.choice([2, 3]), 3)
    if kind == "list":
        return random_decision_list(rng, features, rng.choice([2, 3]), rng.randint(1, 4))
    if kind == "risk-score":
        return random_risk_score(rng, features, rng.randint(1, 4))
    return random_omdd(rng, features, rng.choice([2, 3]))


MODEL_KINDS = ("tree", "list", "risk-score", "omdd")


def _model_cases(kind: str, seed: int) -> Iterator[tuple[Any, dict[str, Any], Truth]]:
    rng = random.Random(seed)
    for _ in range(CASES_PER_KIND):
        model = _random_model(rng, kind)
        x = random_instance(rng, model.features, {})
        yield model, x, _truth_of_model(model, x)


def graph_cases() -> Iterator[Case]:
    for tree in (True, False):
        for n, (xg, truth) in enumerate(random_cases(7, tree, CASES_PER_KIND)):
            yield Case(f"xpg-{'tree' if tree else 'dag'}-{n}", lambda xg=xg: GraphOracle(xg), truth)
    for k, kind in enumerate(MODEL_KINDS):
        for n, (model, x, truth) in enumerate(_model_cases(kind, 100 + k)):
            dg = model.to_decision_graph()

            def make(dg: Any = dg, x: Any = x) -> GraphOracle:
                return GraphOracle(ExplanationGraph.from_decision_graph(dg, x))

            yield Case(f"graph-{kind}-{n}", make, truth)


def exhaustive_cases() -> Iterator[Case]:
    for k, kind in enumerate(MODEL_KINDS):
        for n, (model, x, truth) in enumerate(_model_cases(kind, 200 + k)):
            yield Case(f"exhaustive-{kind}-{n}", lambda m=model, x=x: ExhaustiveOracle(m, x), truth)


def list_cases() -> Iterator[Case]:
    for n, (model, x, truth) in enumerate(_model_cases("list", 300)):
        yield Case(f"list-sat-{n}", lambda m=model, x=x: DecisionListOracle(ListSpace(m, x)), truth)


def ensemble_cases() -> Iterator[Case]:
    options: list[tuple[str, dict[str, Any]]] = [
        ("pb", {}),
        ("lra", {}),
        ("pb-no-shortcuts", {"shortcuts": False}),
    ]
    for k, kind in enumerate(SMALL_ENSEMBLE_KINDS):
        for n in range(CASES_PER_KIND // 2):
            est, feats, X = random_small_ensemble(400 + 50 * k + n, kind)
            model = ensemble_from_sklearn(est, feats)
            x = {f.name: f.check_value(v) for f, v in zip(feats, X[n % len(X)].tolist())}
            truth = ensemble_oracle(est, feats, x)
            label, extra = options[n % len(options)]
            backend = label.split("-")[0]

            def make(m: Any = model, x: Any = x, b: str = backend, e: Any = extra) -> Any:
                return EnsembleOracle(CellSpace(m, x), b, **e)  # type: ignore[arg-type]

            yield Case(f"ensemble-{kind}-{label}-{n}", make, truth)


FAMILIES: dict[str, Callable[[], Iterator[Case]]] = {
    "graph": graph_cases,
    "exhaustive": exhaustive_cases,
    "list-sat": list_cases,
    "ensemble": ensemble_cases,
}


@pytest.mark.parametrize("check", CHECKS, ids=[c.__name__ for c in CHECKS])
@pytest.mark.parametrize("family", list(FAMILIES))
def test_every_oracle_passes_the_battery(family: str, check: Callable[[Case], None]) -> None:
    cases = list(FAMILIES[family]())
    assert len(cases) >= CASES_PER_KIND
    for case in cases:
        check(case)


def test_the_battery_catches_a_wrong_oracle() -> None:
    """An oracle that answers one question wrongly (it says the prediction cannot change
    when a single named feature is free) fails the battery."""

    class Lying(GraphOracle):
        def check(self, fixed: Any, *, solver: bool = True) -> Any:
            fixed = list(fixed)
            if len(fixed) == self.n_features - 1:
                return None
            return super().check(fixed, solver=solver)

    failures = 0
    for n, (xg, truth) in enumerate(random_cases(3, False, 6)):
        if not truth.cxps or all(len(c) > 1 for c in truth.cxps):
            continue
        try:
            CHECKS[0](Case(f"lying-{n}", lambda xg=xg: Lying(xg), truth))
        except AssertionError:
            failures += 1
    assert failures >= 1
