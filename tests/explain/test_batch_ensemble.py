"""Batches of rows on tree ensembles: the compiled-graph route and the per-row oracle route
(``sat-pb``, the ensemble's SAT oracle) against brute force, and against each other.

Small random forests, extra trees and boosted ensembles (binary and multi-class) over small
discrete domains are explained both ways (a compile budget of 1 forces the oracle route);
every record's AXps, CXps and feature classes equal exhaustive evaluation through
scikit-learn's ``predict``, and its robustness is the oracle's (the graph route's distance).
A breast-cancer forest too large to compile goes through the oracle route by itself and the
verifier accepts its AXps.
"""

from __future__ import annotations

import pickle
from typing import Any

import numpy as np
import pandas as pd
import pytest

from xpg.errors import InvalidQueryError
from xpg.explain.batch import BatchExplainer
from xpg.explain.decision import Decision
from xpg.explain.engine import Explainer
from xpg.explain.exact_robustness import robustness
from xpg.explain.oracle_robustness import oracle_robustness
from xpg.models.ensemble_import import ensemble_from_sklearn
from xpg.testing.ensembles import SMALL_ENSEMBLE_KINDS, ensemble_oracle, random_small_ensemble

KINDS = "axp,cxp,features"


def _batch(model, budget=None, **options) -> BatchExplainer:
    """The batch of ``model``'s rows with the compile budget ``budget`` (1: never compiled)."""
    return BatchExplainer(Explainer(model, budget=budget, many=True), **options)


def _family(lists):
    return {frozenset(x) for x in lists}


def _frame(feats, X, target=None):
    frame = pd.DataFrame(X, columns=[f.name for f in feats])
    if target is not None:
        frame["y"] = target
    return frame


@pytest.mark.parametrize("kind", SMALL_ENSEMBLE_KINDS)
def test_both_routes_equal_brute_force(kind: str) -> None:
    for seed in range(8):
        est, feats, X = random_small_ensemble(seed, kind)
        model = ensemble_from_sklearn(est, feats)
        rows = X[np.random.default_rng(seed).choice(len(X), size=min(6, len(X)), replace=False)]
        labels = est.predict(rows)
        graph = _batch(model, kinds=KINDS, target="y")
        solver = _batch(model, 1, kinds=KINDS, target="y")
        assert (graph.route, solver.route) == ("graph", "sat-pb")
        frame = _frame(feats, rows, labels)
        by_graph = list(graph.explain_frame(frame))
        by_solver = list(solver.explain_frame(frame))
        for x, label, a, b in zip(rows, labels, by_graph, by_solver, strict=True):
            oracle = ensemble_oracle(est, feats, dict(zip([f.name for f in feats], x.tolist())))
            for record in (a, b):
                assert record["prediction"] == str(label)
                assert record["label"] == str(label)
                assert record["complete"] is True
                assert _family(record["axps"]) == oracle.axps, (seed, kind)
                assert _family(record["cxps"]) == oracle.cxps, (seed, kind)
                assert all(e == sorted(e) for e in record["axps"] + record["cxps"])
                assert set(record["necessary"]) == oracle.necessary()
                assert set(record["relevant"]) == oracle.members() - oracle.necessary()
                assert set(record["irrelevant"]) == {f.name for f in feats} - oracle.members()
            # the same record apart from the time and the order the enumerations found them in
            assert a.keys() == b.keys()
            for key in a.keys() - {"seconds", "axps", "cxps"}:
                assert a[key] == b[key], (seed, kind, key)


def test_bad_rows_give_the_same_error_records() -> None:
    est, feats, X = random_small_ensemble(5, "boosted")
    model = ensemble_from_sklearn(est, feats)
    names = [f.name for f in feats]
    bad = [
        {**dict(zip(names, X[0].tolist())), names[0]: 99},
        {**dict(zip(names, X[0].tolist())), names[1]: float("nan")},
        {n: v for n, v in zip(names[1:], X[0].tolist()[1:], strict=True)},
    ]
    graph = _batch(model)
    solver = _batch(model, 1)
    for i, row in enumerate(bad):
        expected = graph.explain_row(i, row)
        assert set(expected) == {"row", "error"}
        assert solver.explain_row(i, row) == expected
    frame = pd.DataFrame(bad)
    assert list(solver.explain_frame(frame)) == list(graph.explain_frame(frame))


@pytest.mark.parametrize("kind", ["forest", "boosted"])
def test_robustness_of_an_ensemble_that_does_not_compile_is_the_oracles(kind: str) -> None:
    """Robustness on the oracle route (was refused up front): each record's robustness is
    :func:`~xpg.explain.oracle_robustness.oracle_robustness` of the row's oracle, and its
    distance the graph route's."""
    keys = ("distance", "counterexample", "counterexample_class")
    for seed in range(4):
        est, feats, X = random_small_ensemble(seed, kind)
        model = ensemble_from_sklearn(est, feats)
        graph = _batch(model, kinds="axp,robustness")
        solver = _batch(model, 1, kinds="axp,robustness")
        assert (graph.route, solver.route) == ("graph", "sat-pb")
        for n, row in enumerate(X[:4].tolist()):
            a, b = graph.explain_row(n, row), solver.explain_row(n, row)
            with Explainer(model, route="sat").explain(row) as decision:
                want = oracle_robustness(decision.oracle).to_json()
            assert b["robustness"] == {k: want[k] for k in keys}, (seed, kind)
            assert a["robustness"]["distance"] == b["robustness"]["distance"]
            assert b["robustness"]["distance"] == robustness(model, row).to_json()["distance"]
            cex = b["robustness"]["counterexample"]
            if cex is not None:
                moved = [[cex[f.name] for f in feats]]
                assert str(est.predict(moved)[0]) == b["robustness"]["counterexample_class"]
                assert b["robustness"]["counterexample_class"] != b["prediction"]


def test_the_explainer_route_pickles_without_a_solver() -> None:
    est, feats, X = random_small_ensemble(2, "forest")
    model = ensemble_from_sklearn(est, feats)
    explainer = _batch(model, 1)
    copy = pickle.loads(pickle.dumps(explainer))
    assert copy.route == "sat-pb" and copy.explainer.graph is None
    row = X[0].tolist()
    a, b = explainer.explain_row(0, row), copy.explain_row(0, row)
    a.pop("seconds"), b.pop("seconds")
    assert a == b


@pytest.mark.slow
def test_a_forest_too_large_to_compile_is_explained_and_verified() -> None:
    from sklearn.datasets import load_breast_cancer
    from sklearn.ensemble import RandomForestClassifier

    from xpg.verify.verifier import Verifier

    X, y = load_breast_cancer(return_X_y=True)
    rf = RandomForestClassifier(n_estimators=30, max_depth=4, random_state=0).fit(X, y)
    model = ensemble_from_sklearn(rf)
    explainer = _batch(model, kinds="axp,cxp", limit=2)  # the default budget
    assert explainer.route == "sat-pb"
    rows = X[[0, 20, 100]]
    records = list(explainer.explain_frame(_frame(model.features, rows)))
    with Verifier(model) as v:
        for x, record in zip(rows, records, strict=True):
            instance = x.tolist()
            assert record["prediction"] == str(rf.predict([x])[0])
            assert record["axps"] or record["cxps"]
            for axp in record["axps"]:
                assert v.verify_axp(instance, axp).holds
            for cxp in record["cxps"]:
                assert v.verify_cxp(instance, cxp).holds


def test_ctrl_c_in_a_solver_call_stops_the_batch(monkeypatch: pytest.MonkeyPatch) -> None:
    """z3 catches SIGINT during a check and answers "unknown" (the oracle then raises an
    InvalidQueryError saying so): that is Ctrl-C, not an error of the row.  Was: an error
    record, and the run went on."""
    est, feats, X = random_small_ensemble(4, "forest")
    explainer = _batch(ensemble_from_sklearn(est, feats), 1)
    row = X[0].tolist()

    def interrupted(self: Any, limit: Any = None, timeout: Any = None, **_: Any) -> Any:
        raise InvalidQueryError("the z3 solver answered unknown: interrupted from keyboard")

    monkeypatch.setattr(Decision, "enumerate", interrupted)
    with pytest.raises(KeyboardInterrupt):
        explainer.explain_row(0, row)

    class error(Exception):  # python-sat's own error, raised instead of KeyboardInterrupt
        pass

    error.__module__ = "pysolvers"

    def sat_interrupted(self: Any, limit: Any = None, timeout: Any = None, **_: Any) -> Any:
        raise error("Caught keyboard interrupt")

    monkeypatch.setattr(Decision, "enumerate", sat_interrupted)
    with pytest.raises(KeyboardInterrupt):
        explainer.explain_row(0, row)

    def failed(self: Any, limit: Any = None, timeout: Any = None, **_: Any) -> Any:
        raise InvalidQueryError("the z3 solver answered unknown: max. memory exceeded")

    monkeypatch.setattr(Decision, "enumerate", failed)
    record = explainer.explain_row(0, row)  # any other failure stays the row's error
    assert record == {"row": 0, "error": "the z3 solver answered unknown: max. memory exceeded"}
