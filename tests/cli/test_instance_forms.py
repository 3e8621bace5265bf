"""``--instance`` in its three forms (``NAME=VALUE,...``, a JSON object, ``@FILE``) with feature
names holding ``=``, ``,`` and spaces: COMPAS's binarised columns (``priors:=0``) end to end,
random awkward names against a brute-force reading of the text, and every bad input as one
line with exit status 2."""

from __future__ import annotations

import json
import random
import re
from itertools import product
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO_ROOT, shared_path

from xpg.cli.common import parse_feature_list, parse_instance, split_assignments
from xpg.cli.main import main
from xpg.core.features import Feature, Literal
from xpg.core.graph import DecisionGraph
from xpg.core.xpgraph import ExplanationGraph
from xpg.errors import InvalidInstanceError
from xpg.explain.marco import enumerate_explanations
from xpg.io import load_model, model_to_dict
from xpg.testing import random_decision_graph, random_row

COMPAS_MODEL = REPO_ROOT / "docs" / "img" / "compas-tree.json"
COMPAS_DATA = ("datasets", "interpretable-robust-trees", "compasbin_data.csv.gz")


def compas_rows(n: int, seed: int = 0) -> list[dict[str, int]]:
    """``n`` random rows of the binarised COMPAS data (the target column left out)."""
    import pandas as pd

    df = pd.read_csv(shared_path(*COMPAS_DATA))
    rows = df.iloc[:, 1:].sample(n=n, random_state=seed)
    return [{k: int(v) for k, v in row.items()} for _, row in rows.iterrows()]


def escaped(text: str, special: str) -> str:
    return "".join("\\" + c if c in special or c == "\\" else c for c in text)


def name_text(name: str) -> str:
    text = escaped(name, "")
    return "\\" + text if text.startswith(",") else text


def assignment_text(instance: dict[str, Any]) -> str:
    """The ``NAME=VALUE,...`` form: backslashes escaped, a comma starting a name, and commas
    and ``=`` in values."""
    items = [f"{name_text(k)}={escaped(str(v), ',=')}" for k, v in instance.items()]
    text = ",".join(items)
    return "\\" + text if text[:1] in ("@", "{") else text


def run_json(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, Any, str]:
    status = main(args)
    out, err = capsys.readouterr()
    return status, (json.loads(out) if status == 0 else None), err


# -- COMPAS: names with '=' in every form ---------------------------------------------------------
def test_compas_names_with_equals_in_every_form(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Regression: ``--instance priors:=0=1,...`` failed (the name was cut at the first '=')."""
    model = str(COMPAS_MODEL)
    dg = load_model(model)
    assert any("=" in name for name in dg.feature_index)
    for k, row in enumerate(compas_rows(12)):
        expected = enumerate_explanations(ExplanationGraph.from_decision_graph(dg, row))
        path = tmp_path / f"row{k}.json"
        path.write_text(json.dumps(row), encoding="utf-8")
        spaced = ", ".join(f"{name} = {value}" for name, value in row.items())
        for form in (assignment_text(row), spaced, json.dumps(row), f"@{path}"):
            status, doc, err = run_json(["enum", model, "--instance", form, "--json"], capsys)
            assert status == 0, (form, err)
            assert doc["axps"] == [sorted(a) for a in expected.axps]
            assert doc["cxps"] == [sorted(c) for c in expected.cxps]


def test_compas_feature_lists_with_equals(capsys: pytest.CaptureFixture[str]) -> None:
    """``--axp``/``--seed`` name features holding '=' too; ``verify`` confirms with z3."""
    model = str(COMPAS_MODEL)
    dg = load_model(model)
    row = compas_rows(1, seed=3)[0]
    xg = ExplanationGraph.from_decision_graph(dg, row)
    axp = enumerate_explanations(xg).axps[0]
    instance = assignment_text(row)
    status, doc, err = run_json(
        ["verify", model, "--instance", instance, "--axp", ",".join(axp), "--json"], capsys
    )
    assert status == 0 and doc["holds"] is True, err
    seed = ",".join(dg.feature_index)
    status, doc, err = run_json(
        ["axp", model, "--instance", instance, "--seed", seed, "--json"], capsys
    )
    assert status == 0, err
    assert doc["features"] in [sorted(a) for a in enumerate_explanations(xg).axps]


def test_the_readme_model_is_the_compas_tree() -> None:
    """``docs/img/compas-tree.json`` (the README picture's model) is what it says: a depth-3
    scikit-learn tree on all of compasbin, seed 0."""
    import pandas as pd
    from sklearn.tree import DecisionTreeClassifier

    from xpg.compile.sklearn_tree import from_sklearn_tree

    df = pd.read_csv(shared_path(*COMPAS_DATA))
    X, y = df.iloc[:, 1:], df.iloc[:, 0]
    clf = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X.values, y.values)
    dg = from_sklearn_tree(clf, [Feature.boolean(c) for c in X.columns], ["no", "yes"])
    assert model_to_dict(dg) == json.loads(COMPAS_MODEL.read_text(encoding="utf-8"))


# -- random awkward names against every reading of the text --------------------------------------
ALPHABET = "ab:=, @{\\\"'<x"


def awkward_names(rng: random.Random, n: int) -> list[str]:
    names: list[str] = []
    while len(names) < n:
        name = "".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 6))).strip()
        if name and name not in names:
            names.append(name)
    return names


def renamed(dg: DecisionGraph, names: list[str], rng: random.Random) -> DecisionGraph:
    """``dg`` with awkward feature names, and awkward values for categorical features."""
    new_name = dict(zip(dg.feature_index, names))
    features, new_value = [], {}
    for f in dg.features:
        if f.kind == "categorical":
            values = awkward_names(rng, len(f.values))
            new_value[f.name] = dict(zip(f.values, values))
            features.append(Feature.categorical(new_name[f.name], values))
        elif f.kind == "boolean":
            features.append(Feature.boolean(new_name[f.name]))
        else:
            features.append(Feature(new_name[f.name], f.kind, (), f.low, f.high))
    out = DecisionGraph(features, dg.classes)
    for node in dg.nodes:
        feature = dg.feature_of(node)
        if feature is None:
            out.add_terminal(node, dg.class_of(node))
        else:
            out.add_node(node, new_name[feature])
    for node in dg.nodes:
        for child, lit in dg.children(node):
            values = lit.allowed
            if lit.feature in new_value:
                values = frozenset(new_value[lit.feature][v] for v in values)
            out.add_edge(node, child, Literal(new_name[lit.feature], values))
    out.validate()
    return out


def every_reading(text: str, names: list[str]) -> list[tuple[tuple[str, str], ...]]:
    """Every way to read ``text`` as distinct known names, each followed by '=' and a value
    running to the next comma (a brute force over all names at every item)."""
    chars = [(m[1], True) if m[1] else (m[2], False) for m in re.finditer(r"\\(.)|(.)", text, re.S)]

    def items(i: int, used: frozenset[str]) -> list[tuple[tuple[str, str], ...]]:
        while i < len(chars) and not chars[i][1] and chars[i][0] in " ,":
            i += 1
        if i == len(chars):
            return [()]
        out = []
        for name in names:
            if name in used or [c for c, _ in chars[i : i + len(name)]] != list(name):
                continue
            k = i + len(name)
            while k < len(chars) and chars[k] == (" ", False):
                k += 1
            if k == len(chars) or chars[k] != ("=", False):
                continue
            end = k + 1
            while end < len(chars) and chars[end] != (",", False):
                end += 1
            value = "".join(c for c, _ in chars[k + 1 : end]).strip()
            out += [((name, value), *rest) for rest in items(end, used | {name})]
        return out

    return items(0, frozenset())


@pytest.mark.parametrize("seed", range(60))
def test_awkward_names_read_back(seed: int) -> None:
    rng = random.Random(seed)
    dg = random_decision_graph(rng, rng.choice(["tree", "dag"]), max_features=5)
    dg = renamed(dg, awkward_names(rng, len(dg.features)), rng)
    names = list(dg.feature_index)
    instance = dict(zip(names, random_row(rng.randrange(10**6), dg.features)))
    text = assignment_text(instance)
    readings = every_reading(text, names)
    original = tuple((k, str(v)) for k, v in instance.items())
    assert original in readings, (text, readings)
    read = tuple(split_assignments(text, names))
    assert read in readings
    # the documented rule: the first reading when names are tried longest first
    assert read == max(readings, key=lambda r: [len(n) for n, _ in r])
    if len(readings) == 1:
        assert parse_instance(dg, text) == instance
    # the JSON forms read anything
    assert parse_instance(dg, json.dumps(instance)) == instance
    if not any("," in n for n in names):
        chosen = rng.sample(names, rng.randint(1, len(names)))
        assert parse_feature_list(", ".join(name_text(n) for n in chosen), names) == chosen


def test_most_random_texts_have_one_reading() -> None:
    """The property test above is not vacuous: ambiguous texts are the exception."""
    unique = 0
    for seed in range(60):
        rng = random.Random(seed)
        dg = random_decision_graph(rng, rng.choice(["tree", "dag"]), max_features=5)
        dg = renamed(dg, awkward_names(rng, len(dg.features)), rng)
        names = list(dg.feature_index)
        instance = dict(zip(names, random_row(rng.randrange(10**6), dg.features)))
        unique += len(every_reading(assignment_text(instance), names)) == 1
    assert unique >= 45


def test_longest_name_first_and_escapes() -> None:
    names = ["a", "a=b", "age group", "x,y", "@home"]
    assert split_assignments("a=b=1", names) == [("a=b", "1")]
    assert split_assignments("a=b\\=1", names) == [("a", "b=1")]
    assert split_assignments("age group = 3 , x,y=v\\,w", names) == [
        ("age group", "3"),
        ("x,y", "v,w"),
    ]
    assert split_assignments("@home=1", names) == [("@home", "1")]
    assert split_assignments("a=1,b=2,a=1,b=3", ["a", "b", "a=1,b"]) == [
        ("a=1,b", "2"),
        ("a", "1"),
        ("b", "3"),
    ]
    with pytest.raises(InvalidInstanceError, match="'x,y' is given twice"):
        split_assignments("x,y=1,x,y=2", ["x", "y", "x,y"])
    for features in product(["x", "x,y"], repeat=1):
        assert parse_feature_list(",".join(features), ["x", "y", "x,y"]) == list(features)
    assert parse_feature_list("x\\,y", ["x", "y"]) == ["x,y"]
    with pytest.raises(InvalidInstanceError, match="given twice"):
        split_assignments("a=1,a=2", names)


# -- bad input: one line, exit status 2 -----------------------------------------------------------
def test_bad_instance_files_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = str(COMPAS_MODEL)
    row = compas_rows(1)[0]
    cases = {
        "missing.json": None,
        "bad.json": '{"priors:=0": 1,',
        "list.json": "[1, 2]",
        "null.json": "null",
        "unknown.json": json.dumps({**row, "priors:=9": 1}),
        "missing-feature.json": json.dumps({k: v for k, v in row.items() if k != "priors:=0"}),
        "out-of-domain.json": json.dumps({**row, "priors:=0": 7}),
    }
    expected = {
        "missing.json": "cannot read the file",
        "bad.json": ":1: --instance @FILE: malformed JSON",
        "list.json": "expected a JSON object of feature values, found a list",
        "null.json": "found a null",
        "unknown.json": "unknown feature(s) 'priors:=9'",
        "missing-feature.json": "no value for feature(s) 'priors:=0'",
        "out-of-domain.json": "feature 'priors:=0': expected one of [0, 1], found 7",
    }
    for name, content in cases.items():
        path = tmp_path / name
        if content is not None:
            path.write_text(content, encoding="utf-8")
        for command in (["axp", model], ["verify", model, "--axp", "priors:>3"]):
            status = main([*command, "--instance", f"@{path}"])
            err = capsys.readouterr().err
            assert status == 2, (name, err)
            assert err.count("\n") == 1 and str(path) in err and expected[name] in err, err
    tmp_path.joinpath("latin1.json").write_bytes(b'{"\xe9": 1}')
    assert main(["axp", model, "--instance", f"@{tmp_path / 'latin1.json'}"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "latin1.json" in err and "UTF-8" in err
    assert main(["axp", model, "--instance", "@"]) == 2
    assert "expected a file name after '@'" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("priors:=0=1,priors:=0=0", "feature 'priors:=0' is given twice"),
        ("priors:=9=1", "'priors:=9=1' does not start with a feature name and '='"),
        ("prior=1", "unknown feature 'prior' (expected: 'sex:Female', 'age:<21'"),
        ("priors:=0", "expected name=value, found 'priors:=0'"),
        ("priors:=0=2", "feature 'priors:=0': expected one of ['0', '1'], found '2'"),
        ('{"priors:=0": 1', "malformed JSON object"),
        ("priors:=0=1", "the instance has no value for feature(s) 'sex:Female'"),
    ],
)
def test_bad_assignments_are_one_line(
    text: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    for command in ("axp", "features", "smallest", "enum"):
        assert main([command, str(COMPAS_MODEL), "--instance", text]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and message in err, err


def test_every_instance_option_documents_the_forms() -> None:
    from xpg.cli.main import build_parser

    parser = build_parser()
    (sub,) = [a for a in parser._actions if a.dest == "command"]
    with_instance = []
    for name, p in sub.choices.items():
        for action in p._actions:
            if "--instance" in action.option_strings:
                with_instance.append(name)
                assert "@FILE" in (action.help or "") and "longest" in (action.help or "")
    expected = {"axp", "cxp", "enum", "export", "member", "features", "smallest", "verify"}
    assert expected <= set(with_instance)
