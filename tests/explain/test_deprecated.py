"""The names kept from before the one explainer (:mod:`xpg.explain.deprecated`): each warns
(``DeprecationWarning``, naming what to call instead) and answers as the engine does."""

from __future__ import annotations

from typing import Any

import pytest

import xpg
from xpg.errors import SolverClosedError
from xpg.explain.decision import Decision
from xpg.explain.deprecated import DecisionListExplainer, EnsembleExplainer, OracleExplainer
from xpg.explain.engine import Explainer
from xpg.testing import long_decision_list
from xpg.testing.ensembles import random_small_ensemble


def _answers(decision: Decision) -> tuple[Any, ...]:
    result = decision.enumerate()
    return (
        decision.route,
        decision.prediction,
        decision.features,
        decision.axp(),
        decision.cxp(),
        sorted(result.axps),
        sorted(result.cxps),
        result.complete,
        decision.classify_features().classes,
    )


@pytest.mark.parametrize("route", ["auto", "sat", "smt", "graph"])
def test_ensemble_explainer_warns_and_answers_as_the_engine(route: str) -> None:
    est, feats, X = random_small_ensemble(4, "forest")
    model = xpg.ensemble_from_sklearn(est, feats)
    x = X[1].tolist()
    with pytest.warns(DeprecationWarning, match=r"use xpg\.Explainer\(model\)\.explain\(instance"):
        old = EnsembleExplainer(model, x, route)  # type: ignore[arg-type]
    engine = "sat" if route == "auto" else route  # the old "auto" was the SAT oracle
    with old, Explainer(model, route=engine).explain(x) as new:  # type: ignore[arg-type]
        assert isinstance(old, Decision)
        assert old.route == {"auto": "sat-pb", "sat": "sat-pb", "smt": "smt-lra"}.get(route, route)
        assert _answers(old) == _answers(new)
        assert old.find_axp() == new.axp() and old.find_cxp() == new.cxp()
    with pytest.raises(SolverClosedError, match="this EnsembleExplainer is closed"):
        old.axp()


def test_decision_list_explainer_warns_and_answers_as_the_engine() -> None:
    dl = long_decision_list(20)
    x = {f.name: 0 for f in dl.features}
    with pytest.warns(DeprecationWarning, match=r'Explainer\(model, route="sat"\)'):
        old = DecisionListExplainer(dl, x)
    with old, Explainer(dl, route="sat").explain(x) as new:
        assert old.route == "list-sat"
        assert _answers(old) == _answers(new)
    with pytest.raises(SolverClosedError, match="this DecisionListExplainer is closed"):
        old.axp()


def test_the_old_names_still_import() -> None:
    from xpg.explain.ensemble import EnsembleExplainer as from_ensemble
    from xpg.explain.ensemble import OracleExplainer as oracle_explainer

    assert xpg.EnsembleExplainer is from_ensemble is EnsembleExplainer
    assert oracle_explainer is OracleExplainer is Decision
