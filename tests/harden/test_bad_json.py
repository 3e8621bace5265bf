"""Bad JSON models and JSON instances: one line naming what was expected, what was found
and where; exit status 2 on the command line, never a traceback."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path
from typing import Any

import pytest

from xpg.cli.main import main
from xpg.errors import InvalidModelError, ParseError, XpgError
from xpg.io.json_text import parse_json
from xpg.io.model_json import load_model, model_from_dict

MODEL: dict[str, Any] = {
    "format": "xpg-model",
    "version": 1,
    "features": [
        {"name": "x", "type": "real", "low": 0, "high": 10},
        {"name": "c", "type": "categorical", "values": ["a", "b"]},
        {"name": "n", "type": "integer", "low": 0, "high": 3},
    ],
    "classes": [0, 1],
    "model": {
        "type": "decision-tree",
        "root": {
            "feature": "x",
            "branches": [
                {"le": 5, "node": {"class": 0}},
                {
                    "gt": 5,
                    "node": {
                        "feature": "c",
                        "branches": [
                            {"in": ["a"], "node": {"class": 1}},
                            {"in": ["b"], "node": {"class": 0}},
                        ],
                    },
                },
            ],
        },
    },
}

OMDD: dict[str, Any] = {
    "format": "xpg-model",
    "version": 1,
    "features": [{"name": "c", "type": "categorical", "values": ["a", "b"]}],
    "classes": [0, 1],
    "model": {
        "type": "omdd",
        "order": ["c"],
        "root": "r",
        "nodes": [
            {
                "id": "r",
                "feature": "c",
                "children": [{"in": ["a"], "to": 0}, {"in": ["b"], "to": 1}],
            },
            {"id": 0, "class": 0},
            {"id": 1, "class": 1},
        ],
    },
}


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def _write(tmp_path: Path, text: str, name: str = "m.json") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


TEXT_CASES = {
    # name: (text edit, expected words in the message)
    "309 digits": (lambda t: t.replace('"high": 10', '"high": 2' + "0" * 308), "float range"),
    "5000 digits": (lambda t: t.replace('"high": 10', '"high": ' + "9" * 5000), "digits"),
    "NaN bound": (lambda t: t.replace('"high": 10', '"high": NaN'), "found NaN"),
    "Infinity bound": (lambda t: t.replace('"high": 10', '"high": Infinity'), "Infinity"),
    "1e999": (lambda t: t.replace('"le": 5', '"le": 1e999'), "float range"),
    "deep nesting": (
        lambda t: t.replace('"classes": [0, 1]', '"classes": ' + "[" * 1000 + "]" * 1000),
        "classes",
    ),
}


@pytest.mark.parametrize("case", sorted(TEXT_CASES))
def test_bad_model_text_is_one_line_and_status_2(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    edit, words = TEXT_CASES[case]
    path = _write(tmp_path, edit(json.dumps(MODEL)))
    status, out, err = _cli(capsys, "validate", str(path))
    assert status == 2 and out == "", err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert str(path) in err and words in err, err


def test_a_parse_error_gives_line_and_column(tmp_path: Path) -> None:
    path = _write(tmp_path, '{\n "a": [1,\n  NaN]}')
    with pytest.raises(ParseError, match=r"m.json:3: expected a JSON value, found NaN .*column 3"):
        load_model(path)


def _edit(doc: dict[str, Any], path: list[Any], value: Any) -> dict[str, Any]:
    doc = copy.deepcopy(doc)
    node = doc
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return doc


BRANCH = ["model", "root", "branches", 1, "node", "branches", 0]
DOC_CASES = [
    (MODEL, ["version"], True, "version: expected 1, found True"),
    (
        MODEL,
        [*BRANCH, "in"],
        [["a"]],
        "model.root.branches[1].node.branches[0].in[0]: "
        "expected a string or a finite number, found a JSON array",
    ),
    (
        MODEL,
        [*BRANCH, "in"],
        [True],
        "branches[0].in[0]: expected a string or a finite number, found true",
    ),
    (
        MODEL,
        [*BRANCH, "in"],
        [{"a": 1}],
        "in[0]: expected a string or a finite number, found a JSON object",
    ),
    (
        MODEL,
        ["features", 0, "high"],
        math.nan,
        "features[0].high: expected a finite number or null, found nan",
    ),
    (MODEL, ["features", 0, "high"], 10**400, "an integer of 401 digits"),
    (
        MODEL,
        ["features", 1, "values"],
        ["a", True],
        "features[1].values[1]: expected a string or a finite number, found true",
    ),
    (
        MODEL,
        ["model", "root", "branches", 0, "le"],
        math.nan,
        "expected a finite number or null, found nan",
    ),
    (
        MODEL,
        ["model", "root", "feature"],
        ["x"],
        "model.root: expected a feature name (a string), found a JSON array",
    ),
    (
        OMDD,
        ["model", "nodes", 0, "feature"],
        ["c"],
        "model.nodes[0].feature: expected a feature name (a string), found a JSON array",
    ),
    (
        OMDD,
        ["model", "nodes", 0, "children", 0, "in"],
        [["a"]],
        "children[0].in[0]: expected a string or a finite number",
    ),
    (OMDD, ["model", "root"], ["r"], "model.root: a node id must be a string or an integer"),
    (MODEL, ["classes"], [0, [1]], "classes[1]"),
]


@pytest.mark.parametrize(("doc", "path", "value", "message"), DOC_CASES)
def test_bad_model_documents_name_expected_found_and_where(
    doc: dict[str, Any], path: list[Any], value: Any, message: str
) -> None:
    assert model_from_dict(doc) is not None  # the document is valid before the edit
    with pytest.raises(InvalidModelError) as info:
        model_from_dict(_edit(doc, path, value))
    assert message in str(info.value)


def test_nan_interval_bounds_are_no_longer_valid(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = _edit(
        MODEL, ["model", "root", "branches", 0], {"interval": [None, 5], "node": {"class": 0}}
    )
    assert model_from_dict(doc) is not None
    text = json.dumps(doc).replace('"interval": [null, 5]', '"interval": [NaN, 5]')
    status, _, err = _cli(capsys, "validate", str(_write(tmp_path, text)))
    assert status == 2 and "found NaN" in err


INSTANCE_CASES = [
    ('{"x": true, "c": "a", "n": 1}', "feature 'x': expected a real value, found true"),
    ('{"x": 6, "c": "a", "n": false}', "feature 'n': expected a integer value, found false"),
    ('{"x": 6, "c": ["a"], "n": 1}', "feature 'c': expected one of"),
    ('{"x": NaN, "c": "a", "n": 1}', "found NaN"),
    ('{"x": 2' + "0" * 308 + ', "c": "a", "n": 1}', "float range"),
    ('{"x": 6, "c": "a", "n": ' + "9" * 5000 + "}", "digits"),
    ("{" * 1000 + "}" * 1000, "--instance"),
]


@pytest.mark.parametrize(("instance", "words"), INSTANCE_CASES)
@pytest.mark.parametrize("via_file", [False, True])
def test_bad_json_instances(
    instance: str, words: str, via_file: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = _write(tmp_path, json.dumps(MODEL))
    given = instance
    if via_file:
        given = "@" + str(_write(tmp_path, instance, "inst.json"))
    status, out, err = _cli(capsys, "axp", str(model), "--instance", given)
    assert status == 2 and out == "", err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert words in err, err


def test_a_good_json_instance_still_works(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = _write(tmp_path, json.dumps(MODEL))
    status, out, _ = _cli(
        capsys, "axp", str(model), "--instance", '{"x": 6, "c": "a", "n": 1}', "--json"
    )
    assert status == 0 and json.loads(out)["features"] == ["c", "x"]


def test_booleans_stay_accepted_for_boolean_features() -> None:
    doc = {
        "format": "xpg-model",
        "version": 1,
        "features": [{"name": "b", "type": "boolean"}],
        "classes": [0, 1],
        "model": {
            "type": "decision-list",
            "rules": [{"if": [{"feature": "b", "in": [1]}], "then": 1}],
            "default": 0,
        },
    }
    dg = model_from_dict(doc)
    from xpg.cli.common import parse_instance

    assert parse_instance(dg, '{"b": true}') == {"b": True}
    assert dg.predict(parse_instance(dg, '{"b": true}')) == 1


@pytest.mark.parametrize(
    "text",
    ['[1, 2.5, -3e2, "\\u00e9", null, true, false, {}, []]', '{"a": {"b": [{"c": 1}]}}', "0", '""'],
)
def test_the_reader_agrees_with_json(text: str) -> None:
    assert parse_json(text) == json.loads(text)
    deep = "[" * 3000 + text + "]" * 3000
    value = parse_json(deep)
    for _ in range(3000):
        assert isinstance(value, list) and len(value) == 1
        value = value[0]
    assert value == json.loads(text)


def test_every_error_is_a_project_error() -> None:
    for bad in ("[1,]", '{"a" 1}', "[1 2]", "[", '{"a":1', "1 2", '"\\x"', ""):
        with pytest.raises(XpgError):
            parse_json(bad)
        if bad:  # (an empty list is fine)
            with pytest.raises(XpgError):
                parse_json("[" * 2000 + bad + "]" * 2000)


@pytest.mark.parametrize("bad", [math.nan, 10**400, True, "3", None])
def test_literal_ends_must_be_numbers(bad: Any) -> None:
    from xpg.core.features import Literal
    from xpg.errors import InvalidFeatureError

    with pytest.raises(InvalidFeatureError, match="literal on 'x': expected a number"):
        Literal.interval("x", bad, 5)
    with pytest.raises(InvalidFeatureError, match="literal on 'x': expected a number"):
        Literal.le("x", bad)
    assert str(Literal.interval("x", -math.inf, 5)) == "x <= 5"
