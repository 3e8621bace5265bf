"""The JSON model format: every model type round-trips, the documented examples load, the CLI
explains a model file, and invalid models are refused with specific errors."""

from __future__ import annotations

import itertools
import json
import random
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier

from xpg import (
    FeatureGroup,
    bdd_manager,
    compile_tree,
    decision_list_to_obdd,
    tree_from_sklearn,
)
from xpg.cli.main import main
from xpg.core.features import Feature, Literal
from xpg.errors import InvalidInstanceError, InvalidModelError, ParseError
from xpg.io.model_json import (
    load_model,
    model_from_dict,
    model_to_dict,
    read_model,
    read_model_dict,
    save_model,
)
from xpg.models.decision_list import DecisionList, Rule
from xpg.models.obdd import OBDD
from xpg.models.omdd import OMDD
from xpg.models.tree import DecisionTree, Leaf, Split
from xpg.testing import (
    domain_values,
    random_decision_list,
    random_decision_tree,
    random_features,
    random_omdd,
)

REPO = Path(__file__).resolve().parents[2]


def _all_inputs(features: list[Feature], rng: random.Random) -> list[list[Any]]:
    axes = []
    for f in features:
        if f.kind != "real":
            axes.append(domain_values(f))
        else:
            axes.append(
                [v for v in (-1.0, 1.0, 1.5, 2.5, 3.0, 4.0, 5.5, 7.0, 9.0) if f.low <= v <= f.high]
            )
    return [list(x) for x in itertools.product(*axes)]


def _roundtrip(model: Any, tmp_path: Path, rng: random.Random) -> None:
    path = tmp_path / "m.json"
    save_model(model, path)
    again = read_model(path)
    assert type(again) is type(model) or isinstance(model, OBDD)
    dg = load_model(path)
    doc = json.loads(path.read_text())
    assert model_to_dict(again) == doc  # the format is a fixed point
    for x in _all_inputs(model.features, rng):
        assert again.predict(x) == model.predict(x) == dg.predict(x)


def test_every_model_type_round_trips(tmp_path: Path) -> None:
    rng = random.Random(0)
    for _ in range(15):
        feats = random_features(rng, rng.randint(1, 3))
        _roundtrip(random_decision_tree(rng, feats, 3, 3), tmp_path, rng)
        _roundtrip(random_decision_list(rng, feats, 3, 4), tmp_path, rng)
        _roundtrip(compile_tree(random_decision_tree(rng, feats, 2, 3)), tmp_path, rng)
        disc = random_features(rng, 3, ["boolean", "categorical", "integer"])
        _roundtrip(random_omdd(rng, disc, 3), tmp_path, rng)
        bools = random_features(rng, 3, ["boolean"])
        _roundtrip(decision_list_to_obdd(random_decision_list(rng, bools, 2, 3)), tmp_path, rng)
        doc = model_to_dict(decision_list_to_obdd(random_decision_list(rng, bools, 2, 3)))
        assert doc["model"]["type"] == "obdd"


def test_sklearn_tree_saved_as_decision_tree(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    X = np.column_stack([np.eye(3)[rng.integers(0, 3, 300)], rng.normal(size=300)])
    y = (X[:, 0] + X[:, 3] > 0.3).astype(int)
    clf = DecisionTreeClassifier(max_depth=4, random_state=0).fit(X, y)
    entries = [FeatureGroup.one_hot("c", ["a", "b", "d"]), Feature.real("r")]
    save_model(clf, tmp_path / "plain.json")
    assert read_model(tmp_path / "plain.json").__class__ is DecisionTree
    tree = tree_from_sklearn(clf, entries)
    save_model(tree, tmp_path / "t.json")
    dg = load_model(tmp_path / "t.json")
    for c, col in (("a", 0), ("b", 1), ("d", 2)):
        for r in (-2.0, 0.0, 0.3, 1.0, 2.0):
            row = np.zeros((1, 4))
            row[0, col], row[0, 3] = 1.0, r
            assert dg.predict({"c": c, "r": r}) == clf.predict(row)[0]


def _doc_examples() -> list[dict[str, Any]]:
    text = (REPO / "docs" / "model-format.md").read_text()
    blocks = re.findall(r"```json\n(.*?)```", text, flags=re.S)
    return [json.loads(b) for b in blocks if '"format": "xpg-model"' in b]


def test_documented_examples_load_and_agree() -> None:
    examples = _doc_examples()
    assert {e["model"]["type"] for e in examples} == {
        "decision-graph",
        "decision-tree",
        "decision-list",
        "obdd",
        "omdd",
        "risk-score",
        "forest",
        "boosted-trees",
        "gbdt",
    }
    rng = random.Random(0)
    for doc in examples:
        model = read_model_dict(doc)
        dg = model_from_dict(doc)
        dg.validate()
        for x in _all_inputs(model.features, rng):
            assert dg.predict(x) == model.predict(x)
    omdd = next(read_model_dict(d) for d in examples if d["model"]["type"] == "omdd")
    assert omdd.predict({"x1": 0, "x2": 1, "x3": 2}) == "R"  # the paper's Fig. 2 instance


def test_cli_explains_each_model_type(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for i, doc in enumerate(_doc_examples()):
        path = tmp_path / f"m{i}.json"
        path.write_text(json.dumps(doc))
        model = read_model_dict(doc)
        f = model.features
        inst = ",".join(
            f"{x.name}={x.values[0] if x.is_discrete else (x.low if x.low > -1e300 else 2)}"
            for x in f
        )
        assert main(["enum", str(path), "--instance", inst, "--json"]) == 0
        out = json.loads(capsys.readouterr().out)
        assert out["complete"] is True
        named = {n for e in out["axps"] + out["cxps"] for n in e}
        assert named <= {x.name for x in f}
    # the paper's OMDD (Fig. 2): one AXp {x1} for v = (0, 1, 2)
    path = next(
        tmp_path / f"m{i}.json"
        for i, d in enumerate(_doc_examples())
        if d["model"]["type"] == "omdd"
    )
    assert main(["axp", str(path), "--instance", "x1=0,x2=1,x3=2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["features"] == ["x1"]


# -- invalid models -----------------------------------------------------------------------------
def _doc(model: dict[str, Any], features: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {
        "format": "xpg-model",
        "version": 1,
        "features": features
        or [
            {"name": "x", "type": "real"},
            {"name": "c", "type": "categorical", "values": ["a", "b", "d"]},
            {"name": "n", "type": "integer", "low": 0, "high": 3},
        ],
        "classes": [0, 1],
        "model": model,
    }


def _tree(root: dict[str, Any]) -> dict[str, Any]:
    return _doc({"type": "decision-tree", "root": root})


INVALID = {
    "inconsistent path": (
        _tree(
            {
                "feature": "x",
                "branches": [
                    {
                        "le": 1,
                        "node": {
                            "feature": "x",
                            "branches": [
                                {"le": 5, "node": {"class": 0}},
                                {"gt": 5, "node": {"class": 1}},
                            ],
                        },
                    },
                    {"gt": 1, "node": {"class": 1}},
                ],
            }
        ),
        r"no input can take it",
    ),
    "overlapping literals": (
        _tree(
            {
                "feature": "c",
                "branches": [
                    {"in": ["a", "b"], "node": {"class": 0}},
                    {"in": ["b", "d"], "node": {"class": 1}},
                ],
            }
        ),
        r"overlap on c = 'b'",
    ),
    "a gap": (
        _tree(
            {
                "feature": "x",
                "branches": [{"le": 1, "node": {"class": 0}}, {"gt": 2, "node": {"class": 1}}],
            }
        ),
        r"leave 1 < x <= 2 uncovered",
    ),
    "a rule over an unknown feature": (
        _doc(
            {
                "type": "decision-list",
                "default": 0,
                "rules": [{"if": [{"feature": "agee", "gt": 3}], "then": 1}],
            }
        ),
        r"model.rules\[0\].if\[0\]: unknown feature 'agee'",
    ),
    "a value outside the domain": (
        _doc(
            {
                "type": "decision-list",
                "default": 0,
                "rules": [{"if": [{"feature": "c", "in": ["zz"]}], "then": 1}],
            }
        ),
        r"rule 0: condition .* value\(s\) \['zz'\] outside the domain of 'c'",
    ),
    "an integer value outside the domain": (
        _doc(
            {
                "type": "omdd",
                "root": "r",
                "nodes": [
                    {"id": "r", "feature": "n", "children": [{"in": [0, 1, 2, 3, 4], "to": "t"}]},
                    {"id": "t", "class": 0},
                ],
            },
            [{"name": "n", "type": "integer", "low": 0, "high": 3}],
        ),
        r"value 4 is outside the domain of 'n'",
    ),
    "a rule that can never fire": (
        _doc(
            {
                "type": "decision-list",
                "default": 0,
                "rules": [
                    {"if": [{"feature": "x", "gt": 3}, {"feature": "x", "le": 2}], "then": 1}
                ],
            }
        ),
        r"rule 0: no input satisfies its conditions on 'x'",
    ),
    "an undeclared class": (
        _doc({"type": "decision-list", "default": 7, "rules": []}),
        r"default rule: class 7 is not declared",
    ),
    "an OMDD value without a child": (
        _doc(
            {
                "type": "omdd",
                "root": "r",
                "nodes": [
                    {"id": "r", "feature": "c", "children": [{"in": ["a", "b"], "to": "t"}]},
                    {"id": "t", "class": 0},
                ],
            },
            [{"name": "c", "type": "categorical", "values": ["a", "b", "d"]}],
        ),
        r"no child for value\(s\) \['d'\] of 'c'",
    ),
    "an OBDD against its order": (
        _doc(
            {
                "type": "obdd",
                "order": ["p", "q"],
                "root": "r",
                "nodes": [
                    {"id": "r", "feature": "q", "low": "s", "high": "t"},
                    {"id": "s", "feature": "p", "low": "t", "high": "u"},
                    {"id": "t", "class": 0},
                    {"id": "u", "class": 1},
                ],
            },
            [{"name": "p", "type": "boolean"}, {"name": "q", "type": "boolean"}],
        ),
        r"'p' is tested after 'q', against the order",
    ),
    "an OBDD on a non-boolean feature": (
        _doc({"type": "obdd", "root": "t", "nodes": [{"id": "t", "class": 0}]}),
        r"an OBDD has boolean features only",
    ),
    "an unknown model type": (_doc({"type": "neural-net"}), r"model.type: expected one of"),
    "an edge from a terminal": (
        _doc(
            {
                "type": "decision-graph",
                "root": 0,
                "nodes": [{"id": 0, "class": 0}, {"id": 1, "class": 1}],
                "edges": [{"from": 0, "to": 1, "le": 1}],
            }
        ),
        r"node 0 tests no feature but has an edge",
    ),
    "a branch literal of the wrong kind": (
        _tree({"feature": "c", "branches": [{"le": 1, "node": {"class": 0}}]}),
        r"expected a value set for the categorical feature 'c'",
    ),
}


@pytest.mark.parametrize("case", sorted(INVALID))
def test_invalid_models_are_refused(case: str) -> None:
    doc, message = INVALID[case]
    with pytest.raises(InvalidModelError, match=message):
        model_from_dict(doc)


def test_malformed_json_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"format": "xpg-model",\n "version": 1,\n "features": [}\n')
    with pytest.raises(ParseError, match=r"bad.json:3: malformed JSON"):
        load_model(path)
    with pytest.raises(ParseError, match=r"bad.json:3: malformed JSON"):
        read_model(path)


def test_instance_missing_a_feature_is_refused() -> None:
    feats = [Feature.boolean("a"), Feature.real("x")]
    models: list[Any] = [
        DecisionList(feats, [0, 1], [Rule([Literal.eq("a", 1)], 1)], 0),
        DecisionTree(
            feats,
            [0, 1],
            Split("a", [(Literal.eq("a", 0), Leaf(0)), (Literal.eq("a", 1), Leaf(1))]),
        ),
        OMDD([Feature.boolean("a")], [0, 1]),
    ]
    models[2].add_terminal("t", 0)
    models.append(OBDD(bdd_manager(["a"]).var("a")))
    for m in models:
        with pytest.raises(InvalidInstanceError, match="no value for feature"):
            m.predict({})
        with pytest.raises(InvalidInstanceError):
            m.predict({"a": 3, "x": 1.0})
