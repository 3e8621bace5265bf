"""Domains a learned model declares (issue 28): the features it tests keep their learned
domains; the others are widened (:func:`~xpg.learn.feature_types.declare_domains`), so that a
value beyond the table (``px1=12``) is accepted where no answer depends on it.  The model's
function and its explanations stay exactly those of the learned domains: checked by brute
force and, for an instance beyond the table, by the SMT verifier on the model itself."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from xpg.cli.main import main
from xpg.core.features import Feature, Literal
from xpg.core.xpgraph import ExplanationGraph
from xpg.errors import InvalidInstanceError
from xpg.explain.marco import enumerate_explanations
from xpg.io import model_to_dict, save_model
from xpg.learn.feature_types import declare_domains, infer_feature, widened_feature
from xpg.learn.from_table import (
    learn_ensemble_from_table,
    learn_risk_score_from_table,
    learn_tree_from_table,
)
from xpg.models.decision_list import DecisionList, Rule
from xpg.verify.verifier import Verifier


def table(seed: int = 0, rows: int = 200) -> pd.DataFrame:
    """``y`` depends on ``age`` and ``score`` only; ``px1`` (0 to 10) and ``flag`` (0/1) are
    noise no model should need, ``colour`` text."""
    rng = np.random.default_rng(seed)
    age = rng.integers(18, 90, rows)
    score = rng.integers(1, 11, rows)
    y = ((age > 50) & (score >= 4)).astype(int)
    return pd.DataFrame(
        {
            "age": age,
            "score": score,
            "px1": rng.integers(0, 11, rows),
            "flag": rng.integers(0, 2, rows),
            "colour": rng.choice(["red", "blue"], rows),
            "y": y,
        }
    )


def test_widened_features() -> None:
    assert widened_feature(Feature.integer("n", 0, 10)) == Feature.integer("n")
    assert widened_feature(Feature.boolean("b")) == Feature.integer("b")
    assert widened_feature(Feature.real("r", 0, 1)) == Feature.real("r")
    colour = Feature.categorical("c", ["a", "b"])
    assert widened_feature(colour) is colour
    assert infer_feature("n", np.array([3, 5])) == Feature.integer("n", 3, 5)  # learned: observed


@pytest.mark.parametrize("depth", [2, 3])
def test_a_tree_keeps_its_function_and_explanations(depth: int) -> None:
    learned = learn_tree_from_table(table(), "y", max_depth=depth, test_size=0)
    model = learned.model
    declared = declare_domains(model)
    tested = set(model.to_decision_graph().tested_features())
    assert tested and tested <= {"age", "score"}
    for old, new in zip(model.features, declared.features, strict=True):
        assert new == (
            old if old.name in tested or old.kind == "categorical" else widened_feature(old)
        )
    assert model_to_dict(declared)["model"] == model_to_dict(model)["model"]
    old_dg, new_dg = model.to_decision_graph(), declared.to_decision_graph()
    new_dg.validate()
    for row in learned.data.values[:40]:
        a = ExplanationGraph.from_decision_graph(old_dg, row)
        b = ExplanationGraph.from_decision_graph(new_dg, row)
        assert a.prediction == b.prediction
        ra, rb = enumerate_explanations(a), enumerate_explanations(b)
        assert set(ra.axps) == set(rb.axps) and set(ra.cxps) == set(rb.cxps)


def test_values_beyond_the_table_are_accepted_where_untested(tmp_path: Path) -> None:
    """``px1=12`` and ``flag=7``: refused by the learned domains, accepted once declared, with
    the same prediction as any in-table value, and explanations the verifier confirms on the
    model itself (the SMT encoding over the declared domains)."""
    model = learn_tree_from_table(table(), "y", max_depth=3, test_size=0).model
    declared = declare_domains(model)
    row = {"age": 60, "score": 7, "px1": 12, "flag": 7, "colour": "red"}
    with pytest.raises(InvalidInstanceError, match="px1"):
        model.predict(row)
    inside = {**row, "px1": 3, "flag": 0}
    assert declared.predict(row) == model.predict(inside)
    xg = ExplanationGraph.from_decision_graph(declared.to_decision_graph(), row)
    result = enumerate_explanations(xg)
    assert result.axps and all("px1" not in a and "flag" not in a for a in result.axps)
    with Verifier(declared) as verifier:
        for axp in result.axps:
            assert verifier.verify_axp(row, list(axp)).holds
        for cxp in result.cxps:
            assert verifier.verify_cxp(row, list(cxp)).holds
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    save_model(model, old)
    save_model(declared, new)
    instance = json.dumps(row)
    assert main(["axp", str(old), "--instance", instance]) == 2
    assert main(["axp", str(new), "--instance", instance]) == 0


def test_brute_force_on_a_risk_score_and_a_forest() -> None:
    """Every AXp and CXp of the declared models, for instances with untested values beyond
    the table, is what brute force over the tested features' values finds (the untested
    ones cannot matter: they are in no literal)."""
    frame = table(1).drop(columns=["colour"])
    for learned in (
        learn_risk_score_from_table(frame, "y", conditions=3, test_size=0),
        learn_ensemble_from_table(frame, "y", "forest", n_trees=3, max_depth=2, test_size=0),
    ):
        model = learned.model
        declared = declare_domains(model)
        tested = set(model.tested_features())
        widened = [f.name for f in declared.features if f.name not in tested]
        assert widened and declared.tested_features() == model.tested_features()
        for old, new in zip(model.features, declared.features, strict=True):
            assert new == (old if old.name in tested else widened_feature(old))
        for r, values in enumerate(learned.data.values[:5]):
            row = dict(zip([f.name for f in model.features], values, strict=True))
            row.update({n: 1000 + r for n in widened})
            _check_by_brute_force(declared, row, frame)


def _check_by_brute_force(model, row: dict, frame: pd.DataFrame) -> None:
    from xpg.explain.engine import Explainer
    from xpg.models.ensemble import TreeEnsemble

    names = [f.name for f in model.features]
    tested = model.tested_features()
    axis = {}  # every value of a tested feature's (learned, finite) domain
    for f in model.features:
        if f.name in tested:
            axis[f.name] = (
                [0, 1] if f.kind == "boolean" else list(range(int(f.low), int(f.high) + 1))
            )
    if isinstance(model, TreeEnsemble):
        with Explainer(model).explain(row) as ex:
            found = ex.enumerate()
    else:
        xg = ExplanationGraph.from_decision_graph(model.to_decision_graph(), row)
        found = enumerate_explanations(xg)
    target = model.predict(row)

    def sufficient(fixed: set[str]) -> bool:
        free = [n for n in tested if n not in fixed]
        points = np.asarray(list(itertools.product(*(axis[n] for n in free))), dtype=object)
        X = np.tile(np.asarray([row[n] for n in names], dtype=object), (len(points), 1))
        for k, n in enumerate(free):
            X[:, names.index(n)] = points[:, k]
        return bool((model.predict_batch(X) == target).all())

    subsets = [set(s) for k in range(len(tested) + 1) for s in itertools.combinations(tested, k)]
    weak = [s for s in subsets if sufficient(s)]
    axps = {frozenset(s) for s in weak if not any(t < s for t in weak)}
    assert {frozenset(a) for a in found.axps} == axps, (names, row)


def test_a_list_over_tested_features_only_and_a_model_with_nothing_to_widen() -> None:
    features = [Feature.integer("n", 0, 3), Feature.boolean("b"), Feature.integer("u", 0, 9)]
    dl = DecisionList(features, [0, 1], [Rule([Literal.eq("n", 2), Literal.eq("b", 1)], 1)], 0)
    declared = declare_domains(dl)
    assert declared.features == [*features[:2], Feature.integer("u")]
    assert declare_domains(declared) is declared  # nothing left to widen
