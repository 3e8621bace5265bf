"""``xpg.Explainer(model).explain(instance)``: one explainer for every model kind.

On every kind (the project's trees, decision lists within and beyond their compile budget,
OMDDs, OBDDs, risk scores, decision graphs; scikit-learn trees, forests and gradient
boosting), 30 seeded cases each: every AXp and CXp listed (``enumerate()``), and the one
``axp()`` and ``cxp()``, are those of brute force through the model's own ``predict`` on every
point of a grid that meets every cell of its conditions.  Then the route policy (``route``,
``supports()``), ``explain_many`` on every form of table, ``QueryTimeout`` at ``timeout=0`` on
the oracle routes, and the errors for a bad route, budget or model.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pandas as pd
import pytest

import xpg
from xpg.core.features import Feature
from xpg.core.graph import DecisionGraph
from xpg.core.xpgraph import ExplanationGraph
from xpg.errors import (
    GraphTooLargeError,
    InvalidModelError,
    InvalidParameterError,
    InvalidQueryError,
)
from xpg.examples import and_graph
from xpg.explain.decision import Decision, QueryTimeout
from xpg.explain.engine import Explainer
from xpg.explain.graph_oracle import GraphOracle
from xpg.models.obdd import OBDD
from xpg.testing import (
    GRID,
    ClassTable,
    Oracle,
    dnf_obdd,
    domain_values,
    float32_representatives,
    long_decision_list,
    random_decision_graph,
    random_decision_list,
    random_decision_tree,
    random_features,
    random_instance,
    random_omdd,
    random_risk_score,
    random_sklearn_tree,
    sklearn_thresholds,
)
from xpg.testing.ensembles import ensemble_oracle, random_small_ensemble
from xpg.testing.oracle import numeric_representatives

CASES = 30

#: one case: the model given to the Explainer, its options, the instance, the brute-force
#: oracle of the instance's prediction, the model's own class for it, and the route expected
Case = tuple[Any, dict[str, Any], Any, Oracle, Any, str]


def _family(items: Any) -> set[frozenset[str]]:
    return {frozenset(x) for x in items}


def _grid(features: list[Feature]) -> dict[str, list[Any]]:
    """Every value of a finite feature; on a real one, each threshold of :data:`GRID` (the
    only ones the random models use), a point between and one beyond each end."""
    return {
        f.name: domain_values(f) if f.is_discrete else numeric_representatives(f, GRID)
        for f in features
    }


def _by_predict(model: Any, rng: random.Random) -> tuple[dict[str, Any], Oracle, Any]:
    """A random instance of ``model`` and the brute-force oracle of its prediction."""
    grid = _grid(model.features)
    x = random_instance(rng, model.features, grid)
    return x, Oracle.of_model(model.predict, model.features, grid, x), model.predict(x)


def _project_cases(kind: str) -> Iterator[Case]:
    rng = random.Random(kind)
    for _ in range(CASES):
        finite = kind in ("omdd", "obdd")
        feats = random_features(
            rng, rng.randint(2, 4), ["boolean", "categorical", "integer"] if finite else None
        )
        options: dict[str, Any] = {}
        route = "graph"
        if kind == "tree":
            model: Any = random_decision_tree(rng, feats, rng.randint(2, 3), rng.randint(2, 4))
        elif kind == "list":
            model = random_decision_list(rng, feats, rng.randint(2, 3), rng.randint(1, 5))
        elif kind == "list-over-budget":
            model = random_decision_list(rng, feats, rng.randint(2, 3), rng.randint(2, 6))
            options = {"budget": 2}
            try:
                model.to_decision_graph(budget=2)
            except GraphTooLargeError:
                route = "list-sat"
        elif kind == "omdd":
            model = random_omdd(rng, feats, rng.randint(2, 3))
        elif kind == "obdd":
            names = [f"b{i}" for i in range(rng.randint(2, 5))]
            terms = [
                [(n, rng.random() < 0.5) for n in rng.sample(names, rng.randint(1, len(names)))]
                for _ in range(rng.randint(1, 4))
            ]
            model = OBDD(dnf_obdd(terms, names)[1], classes=["no", "yes"])
        else:
            model = random_risk_score(rng, feats, rng.randint(2, 5))
        x, truth, label = _by_predict(model, rng)
        yield model, options, x, truth, label, route


def _graph_cases() -> Iterator[Case]:
    rng = random.Random(7)
    for seed in range(CASES):
        dg = random_decision_graph(seed, ("tree", "dag", "ordered")[seed % 3])
        table = ClassTable.of_graph(dg)  # dg.predict on every cell of its edges
        x = rng.choice(table.points())
        yield dg, {}, x, table.oracle(x), dg.predict(x), "graph"


def _sklearn_tree_cases() -> Iterator[Case]:
    rng = random.Random(11)
    for seed in range(CASES):
        clf, feats, X = random_sklearn_tree(seed, rng.randint(3, 4), rng.randint(2, 3), 4)
        cuts = sklearn_thresholds(clf)
        grid = {  # float32(x) <= t: one value in every cell of the thresholds
            f.name: float32_representatives(cuts.get(j, [])) or [0.0]
            if f.kind == "real"
            else domain_values(f)
            for j, f in enumerate(feats)
        }
        row = X[rng.randrange(len(X))].tolist()
        x = {f.name: float(v) if f.kind == "real" else int(v) for f, v in zip(feats, row)}
        names = [f.name for f in feats]

        def predict_many(rows: list[dict[str, Any]], clf: Any = clf, names: list = names) -> Any:
            return clf.predict(np.asarray([[r[n] for n in names] for r in rows], float)).tolist()

        truth = Oracle.of_model(
            lambda r, many=predict_many: many([r])[0], feats, grid, x, predict_many=predict_many
        )
        label = predict_many([x])[0]
        yield clf, {"features": feats}, x, truth, label, "graph"


def _sklearn_ensemble_cases(kind: str) -> Iterator[Case]:
    for seed in range(CASES):
        est, feats, X = random_small_ensemble(seed, kind, n_features=3 + seed % 2)
        row = X[seed % len(X)].tolist()
        x = {f.name: int(v) for f, v in zip(feats, row, strict=True)}
        label = est.predict(np.asarray([row]))[0].item()
        yield est, {"features": feats}, x, ensemble_oracle(est, feats, x), label, "sat-pb"


KINDS: dict[str, Callable[[], Iterator[Case]]] = {
    "tree": lambda: _project_cases("tree"),
    "list": lambda: _project_cases("list"),
    "list-over-budget": lambda: _project_cases("list-over-budget"),
    "omdd": lambda: _project_cases("omdd"),
    "obdd": lambda: _project_cases("obdd"),
    "risk-score": lambda: _project_cases("risk-score"),
    "decision-graph": _graph_cases,
    "sklearn-tree": _sklearn_tree_cases,
    "sklearn-forest": lambda: _sklearn_ensemble_cases("forest"),
    "sklearn-boosting": lambda: _sklearn_ensemble_cases("boosted"),
}


@pytest.mark.parametrize("kind", KINDS)
def test_every_kind_gives_the_explanations_of_brute_force(kind: str) -> None:
    routes = []
    for model, options, x, truth, label, route in KINDS[kind]():
        features = options.pop("features", None)
        explainer = Explainer(model, features, **options)
        assert explainer.route == route, kind
        with explainer.explain(x) as decision:
            assert decision.route == route and decision.prediction == label
            result = decision.enumerate()
            assert result.complete
            assert _family(result.axps) == truth.axps, (kind, x)
            assert _family(result.cxps) == truth.cxps, (kind, x)
            assert len(result.axps) == len(truth.axps) and len(result.cxps) == len(truth.cxps)
            assert frozenset(decision.axp()) in truth.axps
            cxp = decision.cxp()
            assert (cxp is None) == (not truth.cxps)
            assert cxp is None or frozenset(cxp) in truth.cxps
        routes.append(route)
    assert len(routes) == CASES
    if kind == "list-over-budget":
        assert routes.count("list-sat") >= 20  # most lists do not compile in 2 nodes


# -- the route policy ------------------------------------------------------------------------------
class _OwnOracleKind:
    """A model kind that brings its own oracle (``explanation_oracle``): a decision graph's
    function, never compiled by the explainer."""

    def __init__(self, dg: DecisionGraph) -> None:
        self.dg = dg
        self.features = dg.features

    def predict(self, instance: Any) -> Any:
        return self.dg.predict(instance)

    def explanation_oracle(self, instance: Any) -> GraphOracle:
        return GraphOracle(ExplanationGraph.from_decision_graph(self.dg, instance))


def _small_forest() -> tuple[Any, list[Feature], np.ndarray]:
    return random_small_ensemble(3, "forest")


def test_the_route_of_every_kind() -> None:
    from xpg.examples import paper_figure2

    est, feats, X = _small_forest()
    forest = xpg.ensemble_from_sklearn(est, feats)
    dl = random_decision_list(3, random_features(3, 3, ["boolean"]), 2, 5)
    cases = [
        (Explainer(paper_figure2()), "graph"),
        (Explainer(dl), "graph"),  # within its compile budget
        (Explainer(dl, route="sat"), "list-sat"),
        (Explainer(long_decision_list(60)), "list-sat"),  # beyond the default budget
        (Explainer(forest), "sat-pb"),
        (Explainer(est, feats), "sat-pb"),
        (Explainer(forest, route="sat"), "sat-pb"),
        (Explainer(forest, route="smt"), "smt-lra"),
        (Explainer(forest, route="graph"), "graph"),
        (Explainer(forest, many=True), "graph"),  # many rows share the compilation
        (Explainer(forest, many=True, budget=1), "sat-pb"),
        (Explainer(_OwnOracleKind(paper_figure2())), "oracle"),
    ]
    for explainer, route in cases:
        assert explainer.route == route, explainer
        assert (explainer.graph is not None) == (route == "graph")
        assert explainer.graph is None or isinstance(explainer.graph, DecisionGraph)
        assert explainer.features == list(explainer.model.features)
    with Explainer(forest).explain(X[0].tolist()) as decision:
        assert decision.route == "sat-pb" and decision.features == [f.name for f in feats]
        with pytest.raises(InvalidQueryError, match="the sat-pb route has no explanation graph"):
            decision.explanation_graph  # noqa: B018
    with Explainer(forest, route="graph").explain(X[0].tolist()) as decision:
        assert isinstance(decision.explanation_graph, ExplanationGraph)


def test_supports_says_what_each_route_answers() -> None:
    from xpg.examples import paper_figure2

    est, feats, X = _small_forest()
    graph = Explainer(paper_figure2())
    ensemble = Explainer(est, feats)
    listed = Explainer(long_decision_list(20), route="sat")
    own = Explainer(_OwnOracleKind(paper_figure2()))
    assert graph.supports("compile") and graph.supports("robustness")
    assert not ensemble.supports("compile") and ensemble.supports("robustness")
    assert not listed.supports("compile") and listed.supports("robustness")
    assert not own.supports("compile") and not own.supports("robustness")
    instances = {
        graph: [0, 1, 2],
        ensemble: X[0].tolist(),
        listed: {f.name: 0 for f in listed.features},
        own: [0, 1, 2],
    }
    for explainer, x in instances.items():
        assert explainer.supports("axp") and explainer.supports("enumerate")
        with explainer.explain(x) as decision:
            assert decision.supports("axp") and decision.supports("smallest_cxp")
            assert decision.supports("robustness") == explainer.supports("robustness")
            if decision.supports("robustness"):
                found = decision.robustness()
                assert found.prediction == decision.prediction
            else:
                with pytest.raises(InvalidQueryError, match="robustness is not defined"):
                    decision.robustness()


def test_explain_many_takes_every_form_of_table() -> None:
    """A DataFrame, a numpy array, a list of dicts and a list of lists give the same
    records; and ``xpg.explain_many`` those of ``Explainer(model, many=True)``."""
    est, feats, X = _small_forest()
    names = [f.name for f in feats]
    rng = random.Random(1)
    tree_features = random_features(rng, 3, ["integer", "boolean"])
    tree = random_decision_tree(rng, tree_features, 2, 3)
    tree_rows = np.asarray(
        [[rng.choice(domain_values(f)) for f in tree_features] for _ in range(6)]
    )
    dl = long_decision_list(20)
    cases = [  # explainer, rows, route
        (Explainer(est, feats, many=True), X[:6], "graph"),  # many rows share the compilation
        (Explainer(est, feats, many=True, budget=1), X[:6], "sat-pb"),
        (Explainer(dl, route="sat"), np.zeros((4, len(dl.features)), dtype=int), "list-sat"),
        (Explainer(tree), tree_rows, "graph"),
    ]
    for explainer, table, route in cases:
        assert explainer.route == route
        columns = [f.name for f in explainer.features]
        forms = [
            pd.DataFrame(table, columns=columns),
            np.asarray(table),
            pd.DataFrame(table, columns=columns).to_dict("records"),
            np.asarray(table).tolist(),
        ]
        records = [
            [{k: v for k, v in r.items() if k != "seconds"} for r in explainer.explain_many(f)]
            for f in forms
        ]
        assert len(records[0]) == len(table) and all(r == records[0] for r in records)
        assert all("error" not in r and r["axps"] for r in records[0])
    frame = pd.DataFrame(X[:6], columns=names)
    model = xpg.ensemble_from_sklearn(est, feats)
    by_function = list(xpg.explain_many(model, frame, kinds="axp,features"))
    by_method = list(Explainer(model, many=True).explain_many(frame, kinds="axp,features"))
    for a, b in zip(by_function, by_method, strict=True):
        a.pop("seconds"), b.pop("seconds")
        assert a == b and "error" not in a


def test_oracle_routes_time_out_at_zero() -> None:
    """``timeout=0``: every query of an oracle route stops at its first question with
    :class:`QueryTimeout` (an ensemble's shortcuts off, so that every question is one), and
    the oracle's deadline does not outlive the query."""
    est, feats, X = _small_forest()
    dl = long_decision_list(20)
    decisions = [
        Explainer(est, feats, shortcuts=False).explain(X[0].tolist()),
        Explainer(est, feats, route="smt", shortcuts=False).explain(X[0].tolist()),
        Explainer(dl, route="sat").explain({f.name: 0 for f in dl.features}),
    ]
    for decision in decisions:
        with decision:
            name = decision.features[0]
            queries: list[Callable[[], Any]] = [
                lambda d=decision: d.axp(timeout=0),
                lambda d=decision: d.cxp(timeout=0),
                lambda d=decision, n=name: d.is_member(n, timeout=0),
                lambda d=decision: d.classify_features(timeout=0),
                lambda d=decision: d.smallest_axp(timeout=0),
                lambda d=decision: d.smallest_cxp(timeout=0),
            ]
            for query in queries:
                with pytest.raises(QueryTimeout, match=r"\b0 s\b") as info:
                    query()
                assert info.value.seconds == 0.0
                assert decision.oracle.deadline is None
            assert decision.enumerate(timeout=0).complete is False
            assert decision.enumerate().complete


def test_oracle_routes_start_with_the_cheap_side() -> None:
    """A decision list's enumeration prefers fixing features (its first explanation is an
    AXp, as ``DecisionListExplainer`` did); an ensemble's starts with CXps, which cost a
    fraction of an AXp there, so that a budget that ends early still returns some (issue 32:
    ``enumerate(timeout=60)`` returned nothing, or AXps only, where one CXp took 0.5 s)."""
    dl = long_decision_list(20)
    est, feats, X = _small_forest()
    decisions = {
        "axp": [Explainer(dl, route="sat").explain({f.name: 0 for f in dl.features})],
        "cxp": [
            Explainer(est, feats).explain(X[0].tolist()),
            Explainer(est, feats, route="smt").explain(X[0].tolist()),
        ],
    }
    for kind, explained in decisions.items():
        for decision in explained:
            with decision:
                assert decision.cxp() is not None  # both kinds exist
                first = decision.enumerate(limit=1)
                assert (len(first.axps), len(first.cxps)) == (
                    (1, 0) if kind == "axp" else (0, 1)
                ), decision.route
                # asked for, either kind comes first (xpg explain --kinds axp --limit 1)
                for asked, counts in (("axp", (1, 0)), ("cxp", (0, 1))):
                    found = decision.enumerate(limit=1, first=asked)  # type: ignore[arg-type]
                    assert (len(found.axps), len(found.cxps)) == counts, (asked, decision.route)
    with pytest.raises(InvalidParameterError, match="first: expected one of 'axp', 'cxp'"):
        Explainer(and_graph()).explain({"a": 1, "b": 1}).enumerate(
            first="AXp"  # type: ignore[arg-type]
        )


def test_bad_routes_budgets_and_models_are_refused() -> None:
    from xpg.examples import paper_figure2

    est, feats, _ = _small_forest()
    dg = paper_figure2()
    for route in ("fast", "SAT", None):
        with pytest.raises(InvalidQueryError, match="route: expected one of"):
            Explainer(dg, route=route)  # type: ignore[arg-type]
    for budget in (0, -1, 2.5, "10", True):
        with pytest.raises(
            InvalidQueryError, match=f"budget: expected an integer >= 1 or None, found {budget!r}"
        ):
            Explainer(dg, budget=budget)  # type: ignore[arg-type]
    for route in ("sat", "smt"):
        with pytest.raises(InvalidQueryError, match=f"route '{route}': a DecisionGraph has no"):
            Explainer(dg, route=route)  # type: ignore[arg-type]
    with pytest.raises(InvalidQueryError, match="groups: only a tree ensemble"):
        Explainer(dg, groups=[Feature.boolean("a")])
    with pytest.raises(InvalidQueryError, match="feature groups need the sat or smt route"):
        Explainer(est, feats, route="graph", groups=feats)
    with pytest.raises(InvalidQueryError, match="explained by its own oracle, never compiled"):
        Explainer(_OwnOracleKind(dg), route="graph")
    for value, found in (("model.json", "str"), (object(), "object"), (None, "NoneType")):
        with pytest.raises(InvalidModelError, match=f"expected an xpg model .*, found {found}$"):
            Explainer(value)
    with pytest.raises(InvalidModelError, match="features: only a scikit-learn estimator"):
        Explainer(dg, dg.features)
    from sklearn.linear_model import LogisticRegression

    X = np.asarray([[0.0], [1.0], [2.0], [3.0]])
    with pytest.raises(InvalidModelError, match="found sklearn.linear_model"):
        Explainer(LogisticRegression().fit(X, [0, 0, 1, 1]))


def test_a_decision_is_closed_after_its_block() -> None:
    from xpg.errors import SolverClosedError

    est, feats, X = _small_forest()
    with Explainer(est, feats).explain(X[0].tolist()) as decision:
        assert isinstance(decision, Decision) and decision.axp()
    with pytest.raises(SolverClosedError, match="this explained decision is closed"):
        decision.axp()
