"""CN2 rule lists imported from Orange3's runner format, without Orange.

The import (:func:`xpg.learn.cn2.decision_list_from_rules`) is checked by brute force: every
point of a grid that holds every value of the discrete features and, for the numeric ones,
every threshold of the rules and values between and beyond them, classified by the compiled
decision graph (OBDD when every feature is boolean, MDD otherwise) and by the imported list,
against an ordered rule list evaluated by hand with Orange's own semantics (selectors on the
values' text and on numbers, the first rule that fires decides).  Rule lists come from a
seeded generator and from Orange3 itself (``data/cn2_recorded.json``, recorded from the
runner: the recorded predictions of Orange's model must be reproduced on every recorded row).
"""

from __future__ import annotations

import itertools
import json
import operator
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from xpg.core.features import Feature
from xpg.core.json_body import feature_from_dict
from xpg.errors import ExternalEnvError, InvalidModelError
from xpg.learn.cn2 import (
    decision_list_from_rules,
    learn_cn2,
    orange_features,
    orange_rows,
)
from xpg.learn.external_env import ExternalEnv
from xpg.models.decision_list import compile_decision_list

RECORDED = Path(__file__).with_name("data") / "cn2_recorded.json"
OPS = {"==": operator.eq, "!=": operator.ne, "<=": operator.le, ">=": operator.ge}


def object_rows(rows: list[list[Any]]) -> np.ndarray:
    """Rows of mixed values as one object array (what ``predict_batch`` takes)."""
    out = np.empty((len(rows), len(rows[0])), dtype=object)
    out[:] = rows
    return out


def hand_evaluate(rules: list[dict[str, Any]], features: list[Feature], point: list[Any]) -> int:
    """The class index Orange's ordered list gives ``point``: the first rule whose selectors
    all hold (discrete values compared by their text, numbers as numbers)."""
    index = {f.name: j for j, f in enumerate(features)}
    for rule in rules:
        fires = True
        for name, op, value in rule["selectors"]:
            f, v = features[index[name]], point[index[name]]
            left, right = (str(v), str(value)) if f.is_discrete else (float(v), float(value))
            fires = fires and OPS[op](left, right)
        if fires:
            return int(rule["label"])
    raise AssertionError("no rule fired: the list has no default rule")


def grid(rules: list[dict[str, Any]], features: list[Feature]) -> list[list[Any]]:
    """Every combination of: each discrete feature's values; each integer feature's domain;
    each real feature's thresholds, midpoints between them and points beyond."""
    axes = []
    for f in features:
        if f.is_discrete:
            axes.append(list(f.values))
            continue
        if f.kind == "integer":
            axes.append(list(range(int(f.low), int(f.high) + 1)))
            continue
        cuts = sorted({float(s[2]) for r in rules for s in r["selectors"] if s[0] == f.name})
        points = set(cuts)
        points.update((a + b) / 2 for a, b in itertools.pairwise(cuts))
        points.update([cuts[0] - 1, cuts[-1] + 1] if cuts else [0.0])
        axes.append(sorted(points))
    return [list(p) for p in itertools.product(*axes)]


def check_import(
    rules: list[dict[str, Any]],
    features: list[Feature],
    classes: list[Any],
    methods: tuple[str, ...] = ("auto",),
) -> int:
    """The imported list and its compiled graphs agree with the hand evaluation everywhere;
    the number of points checked."""
    dl = decision_list_from_rules(rules, features, classes)
    points = object_rows(grid(rules, features))
    expected = [classes[hand_evaluate(rules, features, p)] for p in points]
    assert dl.predict_batch(points).tolist() == expected
    for method in methods:
        dg = compile_decision_list(dl, method=method)  # type: ignore[arg-type]
        dg.validate()
        assert dg.predict_batch(points).tolist() == expected, method
    return len(points)


def random_rules(rng: random.Random, features: list[Feature], n_classes: int) -> list[dict]:
    """An ordered rule list in the runner's format: 1-6 rules of 1-3 selectors on distinct
    features (every operator that fits each kind), then the default rule."""
    rules = []
    for _ in range(rng.randint(1, 6)):
        selectors: list[list[Any]] = []
        for f in rng.sample(features, rng.randint(1, min(3, len(features)))):
            if f.is_discrete:
                selectors.append([f.name, rng.choice(["==", "!="]), str(rng.choice(f.values))])
            elif f.kind == "integer":
                selectors.append([f.name, rng.choice(["<=", ">="]), float(rng.randint(0, 4))])
            else:
                selectors.append([f.name, rng.choice(["<=", ">="]), rng.choice([-1.5, 0.0, 2.25])])
        rules.append({"selectors": selectors, "label": rng.randrange(n_classes)})
    rules.append({"selectors": [], "label": rng.randrange(n_classes)})
    return rules


@pytest.mark.parametrize("seed", range(40))
def test_random_rule_lists_import_exactly(seed: int) -> None:
    rng = random.Random(seed)
    if seed % 2:  # mixed kinds: compiled to an MDD
        features = [
            Feature.categorical("c", ["a", "b", "c"]),
            Feature.integer("n", 0, 4),
            Feature.boolean("b"),
            Feature.real("r"),
        ]
        classes: list[Any] = ["x", "y", "z"]
    else:  # all boolean, the paper's Table 1 setting: compiled to a reduced OBDD with dd
        features = [Feature.boolean(f"x{i}") for i in range(5)]
        classes = [0, 1]
    rules = random_rules(rng, features, len(classes))
    methods = ("mdd",) if seed % 2 else ("bdd", "mdd")
    assert check_import(rules, features, classes, methods) >= 30


def recorded_cases() -> list[dict[str, Any]]:
    return json.loads(RECORDED.read_text(encoding="utf-8"))["cases"]


@pytest.mark.parametrize("case", recorded_cases(), ids=lambda c: c["name"])
def test_lists_orange_learned_reproduce_orange_on_every_row(case: dict[str, Any]) -> None:
    features = [feature_from_dict(f, "recorded") for f in case["features"]]
    classes = case["classes"]
    rules = case["answer"]["rules"]
    dl = decision_list_from_rules(rules, features, classes)
    dg = compile_decision_list(dl)
    orange = [classes[i] for i in case["answer"]["predictions"]]
    assert len(orange) == len(case["rows"]) > 50
    rows = object_rows(case["rows"])
    assert dl.predict_batch(rows).tolist() == orange
    assert dg.predict_batch(rows).tolist() == orange
    assert len(dl.rules) == len(rules) - 1 and rules[-1]["selectors"] == []
    assert check_import(rules, features, classes) > len(case["rows"]) // 10
    # the request the runner was given is what learn_cn2 sends for those rows
    assert case["request"]["features"] == orange_features(features)
    assert case["request"]["predict"] == orange_rows(features, case["rows"])


def test_the_recorded_lists_test_every_kind_of_feature() -> None:
    ops = {
        (f["type"], s[1])
        for case in recorded_cases()
        for r in case["answer"]["rules"]
        for s in r["selectors"]
        for f in case["features"]
        if f["name"] == s[0]
    }
    assert {("categorical", "=="), ("boolean", "=="), ("integer", ">="), ("real", "<=")} <= ops


def test_a_discrete_inequality_is_the_set_of_the_other_values() -> None:
    features = [Feature.categorical("c", ["a", "b", "c"])]
    dl = decision_list_from_rules(
        [{"selectors": [["c", "!=", "b"]], "label": 1}, {"selectors": [], "label": 0}],
        features,
        ["no", "yes"],
    )
    assert str(dl).splitlines()[0] == "IF c in {'a', 'c'} THEN yes"
    assert [dl.predict([v]) for v in "abc"] == ["yes", "no", "yes"]


def test_rules_after_the_default_rule_are_dropped() -> None:
    features = [Feature.boolean("b")]
    rules = [
        {"selectors": [["b", "==", "1"]], "label": 1},
        {"selectors": [], "label": 0},
        {"selectors": [["b", "==", "0"]], "label": 1},
    ]
    dl = decision_list_from_rules(rules, features, [0, 1])
    assert len(dl.rules) == 1 and dl.default == 0


@pytest.mark.parametrize(
    ("rules", "message"),
    [
        ([{"selectors": [["b", "==", "1"]], "label": 1}], "no default rule"),
        ([{"selectors": [["z", "==", "1"]], "label": 1}], "unknown feature 'z'"),
        ([{"selectors": [["b", "<=", 0.5]], "label": 1}], "expected == or !="),
        ([{"selectors": [["b", "==", "2"]], "label": 1}], "expected == or !="),
        ([{"selectors": [["r", "==", "1"]], "label": 1}], "expected <= or >="),
        ([{"selectors": [], "label": 2}], "expected a class index below 2"),
        (
            [{"selectors": [["r", "<=", 0.0], ["r", ">=", 1.0]], "label": 1}],
            "can never fire",
        ),
    ],
)
def test_bad_rule_lists_are_refused(rules: list[dict[str, Any]], message: str) -> None:
    features = [Feature.boolean("b"), Feature.real("r")]
    with pytest.raises(InvalidModelError, match=message):
        decision_list_from_rules(
            [*rules, {"selectors": [], "label": 0}] if "default" not in message else rules,
            features,
            [0, 1],
        )


@pytest.mark.slow
def test_without_the_environment_learn_cn2_says_why(tmp_path: Path) -> None:
    """The default run is offline (pip has no index): creating Orange3's environment fails
    with one message, and nothing that looks ready is left behind."""
    env = ExternalEnv("orange3", ("Orange3==3.40.0",), "import Orange", root=tmp_path)
    log = tmp_path / "log.txt"
    with log.open("w") as fh, pytest.raises(ExternalEnvError) as err:
        learn_cn2([[0], [1]], [0, 1], [Feature.boolean("b")], env=env, log=fh)
    text = str(err.value)
    assert "could not create the orange3 environment" in text and "\n" not in text
    assert "creating the orange3 environment" in log.read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == [".orange3.lock", "log.txt"]
