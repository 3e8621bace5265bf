"""What explanations mean (issue 28): conditions and counterexamples, on decision graphs and on
tree ensembles explained without a graph, checked by brute force; names and numbers as text.

The conditions are read back by a small evaluator of their grammar (``name op value``,
``lo < name <= hi``, ``name in {...}``, joined by `` or ``), so the tests check what the text
says, not only the value sets behind it."""

from __future__ import annotations

import ast
import itertools
import json
import math
import random
import re
from typing import Any

import numpy as np
import portion as P
import pytest

from xpg.core.features import Feature, Literal
from xpg.core.graph import DecisionGraph
from xpg.core.names import NUMBER_TOLERANCE, braces, needs_quotes, quote_name, short_number
from xpg.core.xpgraph import ExplanationGraph
from xpg.errors import InvalidFeatureError, InvalidSeedError, XpgError
from xpg.explain.describe import (
    axp_conditions,
    condition_text,
    explanation_conditions,
    explanation_counterexample,
    feature_cell,
)
from xpg.explain.engine import Explainer
from xpg.explain.marco import enumerate_explanations
from xpg.models.ensemble_import import ensemble_from_sklearn
from xpg.testing import random_decision_graph, random_row
from xpg.testing.ensembles import random_small_ensemble
from xpg.testing.features import domain_values
from xpg.testing.oracle import representatives

_COMPARE = {
    "=": lambda a, b: a == b,
    "<=": lambda a, b: a <= b,
    "<": lambda a, b: a < b,
    ">=": lambda a, b: a >= b,
    ">": lambda a, b: a > b,
}


def _value(text: str) -> Any:
    return ast.literal_eval(text)


def holds(condition: str, name: str, value: Any) -> bool:
    """Does ``value`` of feature ``name`` meet ``condition``, as its text reads?"""
    shown = re.escape(quote_name(name))
    for part in condition.split(" or "):
        if part == f"{quote_name(name)} is any value":
            return True
        m = re.fullmatch(rf"{shown} in \{{(.*)\}}", part)
        if m is not None:
            if value in _value(f"[{m[1]}]"):
                return True
            continue
        m = re.fullmatch(rf"{shown} (=|<=|<|>=|>) (.+)", part)
        if m is not None:
            if _COMPARE[m[1]](value, _value(m[2])):
                return True
            continue
        m = re.fullmatch(rf"(\S+) (<=|<) {shown} (<=|<) (\S+)", part)
        assert m is not None, f"unreadable condition {part!r}"
        if _COMPARE[m[2]](_value(m[1]), value) and _COMPARE[m[3]](value, _value(m[4])):
            return True
    return False


# -- decision graphs -----------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["tree", "dag", "ordered"])
def test_conditions_say_the_cells_and_suffice_on_random_graphs(kind: str) -> None:
    """Every AXp's conditions contain the instance, say exactly its features' cells (on a
    representative of every class of values), and every input meeting them gets the
    prediction (brute force over the representatives of all features)."""
    checked = 0
    for seed in range(40):
        dg = random_decision_graph(seed, kind, max_features=4)
        reps = representatives(dg)
        if math.prod(len(r) for r in reps) > 3000:
            continue
        row = random_row(seed, dg.features)
        xg = ExplanationGraph.from_decision_graph(dg, row)
        names = [f.name for f in dg.features]
        for axp in enumerate_explanations(xg).axps:
            conditions = explanation_conditions(xg, axp)
            assert axp_conditions(xg, axp) == conditions
            meets = {}
            for name, text in zip(axp, conditions, strict=True):
                i = names.index(name)
                cell = feature_cell(dg, name, row[i])
                assert holds(text, name, row[i]), (text, row[i])
                meets[i] = {v for v in reps[i] if holds(text, name, v)}
                assert meets[i] == {v for v in reps[i] if v in cell}, (text, cell)
            for point in itertools.product(*reps):
                if all(point[i] in ok for i, ok in meets.items()):
                    assert dg.predict(list(point)) == xg.prediction
                    checked += 1
    assert checked > 100


@pytest.mark.parametrize("kind", ["tree", "dag", "ordered"])
def test_counterexamples_change_the_prediction_on_random_graphs(kind: str) -> None:
    """Every CXp's counterexample changes only its features and is classified as it says,
    otherwise than the instance."""
    seen = 0
    for seed in range(40):
        dg = random_decision_graph(seed, kind, max_features=4)
        row = random_row(seed, dg.features)
        xg = ExplanationGraph.from_decision_graph(dg, row)
        names = [f.name for f in dg.features]
        for cxp in enumerate_explanations(xg).cxps:
            changes, label = explanation_counterexample(xg, cxp)
            assert set(changes) <= set(cxp) and changes
            moved = list(row)
            for name, v in changes.items():
                assert v != row[names.index(name)]
                moved[names.index(name)] = v
            assert dg.predict(moved) == label != xg.prediction
            assert list(changes) == [n for n in names if n in changes]  # feature order
            seen += 1
    assert seen > 20


def _threshold_graph(threshold: float, kind: str = "real") -> ExplanationGraph:
    f = Feature.real("x") if kind == "real" else Feature.integer("x", 0, 100)
    dg = DecisionGraph([f], classes=["lo", "hi"])
    dg.add_node(0, "x")
    dg.add_terminal(1, "lo")
    dg.add_terminal(2, "hi")
    dg.add_edge(0, 1, Literal.le("x", threshold))
    dg.add_edge(0, 2, Literal.gt("x", threshold))
    value = math.floor(threshold) + 1
    return ExplanationGraph.from_decision_graph(dg, {"x": value if kind != "real" else value})


def test_conditions_keep_every_digit_that_matters() -> None:
    """Regression: thresholds were printed with 6 significant digits (``x > 1234.57`` for
    1234.567, ``x > 152346`` for 152345.5), a condition other than the model's."""
    assert axp_conditions(_threshold_graph(1234.567), ["x"]) == ["x > 1234.567"]
    assert axp_conditions(_threshold_graph(152345.5), ["x"]) == ["x > 152345.5"]
    assert axp_conditions(_threshold_graph(16.795001029968258), ["x"]) == ["x > 16.795"]
    assert axp_conditions(_threshold_graph(5.5, "integer"), ["x"]) == ["x >= 6"]


def test_conditions_of_a_categorical_and_a_bounded_feature() -> None:
    colour = Feature.categorical("colour, main", ["red", "green", "blue"])
    assert (
        condition_text(colour, frozenset(["blue", "red"])) == "\"colour, main\" in {'red', 'blue'}"
    )
    assert condition_text(colour, frozenset(["green"])) == "\"colour, main\" = 'green'"
    assert condition_text(colour, frozenset(colour.values)) == '"colour, main" is any value'
    score = Feature.integer("score", 1, 10)
    assert condition_text(score, P.closed(1, 3.5)) == "score <= 3"
    assert condition_text(score, P.open(9.5, P.inf)) == "score = 10"
    assert condition_text(score, P.closed(1, 2) | P.closed(7, 10)) == "score <= 2 or score >= 7"
    real = Feature.real("r", 0.0, 1.0)
    assert condition_text(real, P.openclosed(0.25, 0.5)) == "0.25 < r <= 0.5"


def test_bad_targets_and_names() -> None:
    from xpg.examples import and_graph, and_xpg

    with pytest.raises(XpgError, match="feature values are unknown"):
        explanation_conditions(and_xpg(), ["a"])
    xg = ExplanationGraph.from_decision_graph(and_graph(), {"a": 1, "b": 1})
    with pytest.raises(InvalidFeatureError, match="unknown feature 'c'"):
        explanation_conditions(xg, ["c"])
    with pytest.raises(InvalidSeedError, match="not a weak CXp"):
        explanation_counterexample(
            ExplanationGraph.from_decision_graph(and_graph(), {"a": 0, "b": 0}), ["b"]
        )
    with pytest.raises(XpgError, match="expected an ExplanationGraph or an explained decision"):
        explanation_conditions(and_graph(), ["a"])  # type: ignore[arg-type]


# -- tree ensembles --------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["forest", "boosted"])
def test_ensemble_conditions_and_counterexamples_by_brute_force(kind: str) -> None:
    """On the oracle route, every AXp's conditions hold at the instance and every point of the
    finite domain meeting them gets the prediction (scikit-learn's own predict); the
    conditions are the cells between the trees' thresholds; every CXp's counterexample is
    classified otherwise by the estimator."""
    checked = 0
    for seed in range(6):
        est, feats, X = random_small_ensemble(seed, kind)
        model = ensemble_from_sklearn(est, feats)
        grid = [domain_values(f) for f in feats]
        names = [f.name for f in feats]
        points = np.asarray(list(itertools.product(*grid)), dtype=float)
        predicted = est.predict(points)
        for r in (0, 5):
            x = {f.name: int(v) for f, v in zip(feats, X[r].tolist())}
            with Explainer(model, route="sat").explain(x) as ex:
                result = ex.enumerate()
                for axp in result.axps:
                    conditions = explanation_conditions(ex, axp)
                    ok = np.ones(len(points), dtype=bool)
                    for name, text in zip(axp, conditions, strict=True):
                        j = names.index(name)
                        assert holds(text, name, x[name]), (text, x[name])
                        ok &= np.asarray([holds(text, name, v) for v in points[:, j]])
                    assert (predicted[ok] == ex.prediction).all()
                    checked += int(ok.sum())
                for cxp in result.cxps:
                    changes, label = explanation_counterexample(ex, cxp)
                    assert changes and set(changes) <= set(cxp)
                    moved = [float(changes.get(n, x[n])) for n in names]
                    assert est.predict(np.asarray([moved]))[0] == label != ex.prediction
    assert checked > 50


def test_ensemble_cells_are_between_the_thresholds() -> None:
    est, feats, X = random_small_ensemble(3, "forest", n_features=3)
    model = ensemble_from_sklearn(est, feats)
    x = {f.name: int(v) for f, v in zip(feats, X[0].tolist())}
    with Explainer(model, route="sat").explain(x) as ex:
        layout = ex.oracle.space.layout
        for i, f in enumerate(feats):
            cell = layout.cell_values(i, ex.oracle.space.instance_cell[i])
            cuts = sorted(
                {c for t in model.trees for j, c in zip(t.feature, t.threshold) if j == i}
            )
            for v in domain_values(f):
                same = all((float(v) <= c) == (float(x[f.name]) <= c) for c in cuts)
                assert (v in cell) == same, (f, v, cell)


def test_ensemble_counterexample_ignores_the_enumeration_deadline() -> None:
    est, feats, X = random_small_ensemble(5, "forest")
    model = ensemble_from_sklearn(est, feats)
    x = {f.name: int(v) for f, v in zip(feats, X[1].tolist())}
    with Explainer(model, route="sat").explain(x) as ex:
        cxp = ex.cxp()
        if cxp is None:
            pytest.skip("this decision cannot change")
        ex.oracle.deadline = 0.0  # long past
        changes, label = explanation_counterexample(ex, cxp)
        assert ex.oracle.deadline == 0.0 and label != ex.prediction and changes


def test_decision_list_oracle_conditions_and_counterexamples_by_brute_force() -> None:
    """The same on a decision list explained by its SAT oracle (no graph): conditions that
    suffice on every point of the finite domain, counterexamples the list classifies so."""
    from xpg.testing import random_features
    from xpg.testing.models import random_decision_list

    checked = 0
    for seed in range(12):
        feats = random_features(seed, 3, kinds=["boolean", "categorical", "integer"])
        dl = random_decision_list(seed, feats, 2, 4)
        grid = [domain_values(f) for f in feats]
        names = [f.name for f in feats]
        x = dict(zip(names, random_row(seed, feats), strict=True))
        with Explainer(dl, route="sat").explain(x) as ex:
            result = ex.enumerate()
            for axp in result.axps:
                conditions = explanation_conditions(ex, axp)
                for point in itertools.product(*grid):
                    row = dict(zip(names, point, strict=True))
                    if all(holds(t, n, row[n]) for n, t in zip(axp, conditions, strict=True)):
                        assert dl.predict(row) == ex.prediction
                        checked += 1
            for cxp in result.cxps:
                changes, label = explanation_counterexample(ex, cxp)
                assert changes and set(changes) <= set(cxp)
                assert dl.predict({**x, **changes}) == label != ex.prediction
    assert checked > 50


# -- names and numbers -----------------------------------------------------------------------------
AWKWARD = ["a, b", "a,b", " x", "x ", "", 'say "hi"', "back\\slash", "x = 1", "cost in eur",
           "a;b", "{a}", "zero\u200bwidth", "non\u00a0breaking", "tab\there", "é", "température",
           "priors:=0", "age:<26", "worst radius", "a or b", "x gives y", "\U0001f600"]  # fmt: skip


def _read_braces(text: str) -> list[str]:
    """The names of a set written by :func:`braces`, read back: JSON strings or plain names,
    separated by ``, ``."""
    assert text[0] == "{" and text[-1] == "}"
    body, names, i = text[1:-1], [], 0
    decoder = json.JSONDecoder()
    while i < len(body):
        if body[i] == '"':
            name, i = decoder.raw_decode(body, i)
        else:
            end = body.find(", ", i)
            end = len(body) if end < 0 else end
            name, i = body[i:end], end
        names.append(name)
        if i < len(body):
            assert body[i : i + 2] == ", "
            i += 2
    return names


@pytest.mark.parametrize("name", AWKWARD)
def test_a_quoted_name_reads_back_as_json(name: str) -> None:
    shown = quote_name(name)
    if needs_quotes(name):
        assert json.loads(shown) == name and shown.isprintable()
    else:
        assert shown == name


def test_sets_of_awkward_names_read_back() -> None:
    """Regression: ``{a, b}`` was printed for the one feature named ``a, b``."""
    assert braces(["a, b"]) == '{"a, b"}' and braces(["a", "b"]) == "{a, b}"
    rng = random.Random(0)
    for _ in range(300):
        names = rng.sample(AWKWARD, rng.randint(0, 5))
        assert _read_braces(braces(names)) == names if names else braces(names) == "{}"


def test_plain_names_stay_plain() -> None:
    for name in ("priors:=0", "age:<26", "worst radius", "température", "Address bit 1"):
        assert quote_name(name) == name


def test_short_numbers_are_within_the_tolerance() -> None:
    rng = np.random.default_rng(0)
    values = np.concatenate(
        [
            rng.normal(0, 1e3, 500),
            rng.uniform(-1, 1, 500),
            10.0 ** rng.integers(-8, 12, 200) * rng.uniform(0.1, 10, 200),
        ]
    )
    for x in values.tolist():
        text = short_number(x)
        assert abs(float(text) - x) <= abs(x) * NUMBER_TOLERANCE, (x, text)
    assert short_number(3) == "3" and short_number(-2.0) == "-2" and short_number(0.5) == "0.5"
    assert short_number(math.inf) == "inf"
