"""A property-based fuzzer over every input xpg reads: ``.xpg`` text, JSON models of every
kind, instances, the Python constructors, and the command line.

The property: a project error (:class:`xpg.errors.XpgError`) or a correct answer (checked by
brute force with :class:`xpg.testing.Oracle` on small graphs), never another exception.
Inputs are mutations of valid ones, so most of them get far into the readers.

The default run is short and derandomized (the same examples every time, for CI).  To search
longer, choose the ``long`` profile (or set ``XPG_FUZZ_EXAMPLES``)::

    XPG_FUZZ_PROFILE=long pytest tests/harden/test_fuzz.py            # 2,000 per test, random
    XPG_FUZZ_PROFILE=long XPG_FUZZ_EXAMPLES=20000 pytest tests/harden/test_fuzz.py
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import tempfile
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from xpg.cli.common import parse_instance
from xpg.cli.main import main
from xpg.core.features import Feature, Literal
from xpg.core.graph import DecisionGraph
from xpg.core.xpgraph import ExplanationGraph
from xpg.errors import XpgError
from xpg.explain.marco import enumerate_explanations
from xpg.io.json_text import dump_json, parse_json
from xpg.io.model_json import model_from_dict, model_to_dict
from xpg.io.xpg_format import format_xpg, read_xpg_text
from xpg.testing import (
    ClassTable,
    Oracle,
    random_decision_graph,
    random_decision_list,
    random_decision_tree,
    random_features,
    random_obdd,
    random_omdd,
    random_risk_score,
    random_xpg,
)

settings.register_profile(
    "ci",
    max_examples=25,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    database=None,
)
settings.register_profile(
    "long",
    max_examples=int(os.environ.get("XPG_FUZZ_EXAMPLES", "2000")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    database=None,
)
PROFILE = settings.get_profile(os.environ.get("XPG_FUZZ_PROFILE", "ci"))

#: Values a mutation writes where another value was: wrong types, huge, nested, not finite.
WEIRD: list[Any] = [
    True,
    False,
    None,
    0,
    -1,
    1,
    2.5,
    "",
    "x",
    "v0",
    [],
    {},
    [1, 2],
    [[0]],
    {"a": 1},
    [True],
    ["x"],
    10**309,
    -(10**400),
    1e308,
]
#: Tokens a mutation writes into text.
TOKENS = ["", "0", "1", "-1", "2", "x", "NaN", "1e999", "9" * 400, "NN:", "T:", "Root:", "{", "]"]


# -- valid inputs ----------------------------------------------------------------------------------
@cache
def xpg_texts() -> tuple[str, ...]:
    return tuple(
        format_xpg(random_xpg(seed, tree=seed % 2 == 0, max_vars=4, max_internal=6))
        for seed in range(12)
    )


@cache
def model_docs() -> tuple[str, ...]:
    """Valid JSON documents of every model kind (as text, so each test mutates a copy)."""
    docs = []
    for seed in range(4):
        feats = random_features(seed, 3)
        discrete = random_features(seed + 100, 3, kinds=["boolean", "categorical"])
        models: list[Any] = [
            random_decision_tree(seed, feats, 2, 3),
            random_decision_list(seed, feats, 2, 3),
            random_decision_graph(seed, "dag"),
            random_omdd(seed, discrete, 2),
            random_obdd(seed, 3),
            random_risk_score(seed, feats, 3),
        ]
        docs += [json.dumps(model_to_dict(m)) for m in models]
    return tuple(docs)


# -- mutations -------------------------------------------------------------------------------------
def _paths(doc: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out, stack = [], [(doc, path)]
    while stack:
        d, p = stack.pop()
        out.append(p)
        if isinstance(d, dict):
            stack += [(v, (*p, k)) for k, v in d.items()]
        elif isinstance(d, list):
            stack += [(v, (*p, i)) for i, v in enumerate(d)]
    return out


@st.composite
def mutated_doc(draw: st.DrawFn) -> Any:
    doc = json.loads(draw(st.sampled_from(model_docs())))
    for _ in range(draw(st.integers(1, 3))):
        paths = _paths(doc)[1:]
        path = draw(st.sampled_from(paths))
        parent = doc
        for key in path[:-1]:
            parent = parent[key]
        action = draw(st.sampled_from(["replace", "replace", "delete", "duplicate"]))
        if action == "replace":
            parent[path[-1]] = json.loads(json.dumps(draw(st.sampled_from(WEIRD))))
        elif action == "delete":
            if isinstance(parent, dict):
                del parent[path[-1]]
            else:
                parent.pop(path[-1])
        elif isinstance(parent, list):
            parent.append(json.loads(json.dumps(parent[path[-1]])))
    return doc


@st.composite
def mutated_text(draw: st.DrawFn, texts: tuple[str, ...]) -> str:
    lines = draw(st.sampled_from(texts)).splitlines()
    for _ in range(draw(st.integers(1, 3))):
        k = draw(st.integers(0, max(len(lines) - 1, 0)))
        action = draw(st.sampled_from(["token", "token", "delete", "duplicate", "swap", "chars"]))
        if not lines:
            lines = [""]
        if action == "token":
            words = lines[k].split(" ")
            i = draw(st.integers(0, len(words) - 1))
            words[i] = draw(st.sampled_from(TOKENS))
            lines[k] = " ".join(words)
        elif action == "delete":
            lines.pop(k)
        elif action == "duplicate":
            lines.insert(k, lines[k])
        elif action == "swap":
            j = draw(st.integers(0, len(lines) - 1))
            lines[k], lines[j] = lines[j], lines[k]
        else:
            lines[k] += draw(st.text(max_size=4))
    return "\n".join(lines) + "\n"


# -- checks ----------------------------------------------------------------------------------------
def check_explanations(xg: ExplanationGraph) -> None:
    """Every AXp and CXp of a small XpG, against the brute-force oracle."""
    if xg.n_vars > 6:
        return
    result = enumerate_explanations(xg)
    oracle = Oracle.of_xpg(xg)
    assert result.complete
    assert {frozenset(a) for a in result.axps} == oracle.axps
    assert {frozenset(c) for c in result.cxps} == oracle.cxps


def check_graph(dg: DecisionGraph) -> None:
    """The explanations at one point of a small compiled model, against the class table."""
    if len(dg.features) > 4 or any(
        # the class table needs a finite grid: an unbounded integer feature that no literal
        # tests has none (a limit of the oracle, not of the model)
        f.kind == "integer" and not math.isfinite(f.high - f.low)
        for f in dg.features
    ):
        return
    table = ClassTable.of_graph(dg)
    x = table.points()[0]
    result = enumerate_explanations(ExplanationGraph.from_decision_graph(dg, x))
    oracle = table.oracle(x)
    assert {frozenset(a) for a in result.axps} == oracle.axps
    assert {frozenset(c) for c in result.cxps} == oracle.cxps


# -- the properties --------------------------------------------------------------------------------
@PROFILE
@given(mutated_text(xpg_texts()))
def test_xpg_text(text: str) -> None:
    try:
        xg = read_xpg_text(text)
    except XpgError:
        return
    check_explanations(xg)


@PROFILE
@given(mutated_doc())
def test_json_models(doc: Any) -> None:
    try:
        dg = model_from_dict(doc)
    except XpgError:
        return
    check_graph(dg)


@PROFILE
@given(st.sampled_from(model_docs()), st.data())
def test_json_model_text(text: str, data: st.DataObject) -> None:
    """Character-level damage to a model file's text: a parse error or a valid model."""
    k = data.draw(st.integers(0, len(text)))
    cut = data.draw(st.integers(0, 3))
    insert = data.draw(st.sampled_from(TOKENS + ["[", "}", ",", '"', "true"]))
    try:
        dg = model_from_dict(parse_json(text[:k] + insert + text[k + cut :]))
    except XpgError:
        return
    check_graph(dg)


SCALARS = st.one_of(
    st.sampled_from(WEIRD),
    st.integers(-3, 12),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=3),
)


@PROFILE
@given(st.sampled_from(model_docs()), st.data())
def test_instances(text: str, data: st.DataObject) -> None:
    dg = model_from_dict(json.loads(text))
    names = [f.name for f in dg.features]
    form = data.draw(st.sampled_from(["json", "pairs", "raw"]))
    if form == "json":
        values = {n: data.draw(SCALARS) for n in names if data.draw(st.booleans()) or True}
        if data.draw(st.booleans()):
            values[data.draw(st.sampled_from(names))] = data.draw(SCALARS)
        try:
            given_text = json.dumps(values)
        except (TypeError, ValueError):
            return
    elif form == "pairs":
        given_text = ",".join(f"{n}={data.draw(st.text(max_size=4))}" for n in names)
    else:
        given_text = data.draw(st.text(max_size=20))
    try:
        instance = parse_instance(dg, given_text)
    except XpgError:
        return
    for f in dg.features:  # a value accepted is in its feature's domain
        assert f.contains(instance[f.name])
    dg.predict(instance)


NUMBERS = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(-(10**400), 10**400),
    st.sampled_from(WEIRD),
)


@PROFILE
@given(
    st.sampled_from(["boolean", "categorical", "integer", "real"]),
    NUMBERS,
    NUMBERS,
    st.one_of(st.text(max_size=3), st.sampled_from(WEIRD)),
    st.lists(st.one_of(st.text(max_size=2), st.integers(), st.sampled_from(WEIRD)), max_size=4),
)
def test_feature_and_literal_constructors(
    kind: str, low: Any, high: Any, name: Any, values: list[Any]
) -> None:
    try:
        if kind == "boolean":
            f = Feature.boolean(name)
        elif kind == "categorical":
            f = Feature.categorical(name, values)
        elif kind == "integer":
            f = Feature.integer(name, low, high)
        else:
            f = Feature.real(name, low, high)
        lit = (
            Literal.interval(f.name, low, high)
            if not f.is_discrete
            else Literal.isin(f.name, values)
        )
        dg = DecisionGraph([f], classes=[0, 1], root=0)
        dg.add_node(0, f.name)
        dg.add_terminal(1, 0)
        dg.add_edge(0, 1, lit)
        dg.validate()
    except XpgError:
        return
    assert f.name == name


def _run(argv: list[str]) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(argv)
    return status, err.getvalue()


@PROFILE
@given(st.one_of(mutated_text(xpg_texts()), mutated_doc().map(dump_json)), st.data())
def test_command_line(text: str, data: st.DataObject) -> None:
    command = data.draw(
        st.sampled_from([["validate"], ["axp"], ["cxp"], ["enum", "--limit", "5"], ["export"]])
    )
    with tempfile.TemporaryDirectory() as tmp:
        model = text.lstrip().startswith("{")
        path = Path(tmp) / ("in.json" if model else "in.xpg")
        path.write_text(text, encoding="utf-8")
        argv = [command[0], str(path), *command[1:]]
        if model and command != ["validate"]:
            argv += ["--instance", data.draw(st.sampled_from(["a=1", "{}", '{"x0": 1}']))]
        if command == ["export"]:
            argv += ["-o", str(Path(tmp) / "out.xpg")]
        status, err = _run(argv)
    assert status in (0, 1, 2), (argv, status, err)
    if status == 2:  # one line, no traceback
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err


def test_the_inputs_are_valid_before_mutation() -> None:
    """The fuzzer starts from valid inputs: each reads and explains correctly."""
    for text in xpg_texts():
        check_explanations(read_xpg_text(text))
    for text in model_docs():
        check_graph(model_from_dict(json.loads(text)))


@pytest.mark.parametrize("bad", [math.nan, math.inf, 10**400])
def test_a_weird_value_is_refused_where_a_bound_belongs(bad: Any) -> None:
    doc = json.loads(model_docs()[0])
    doc["features"][0] = {"name": doc["features"][0]["name"], "type": "real", "low": bad}
    with pytest.raises(XpgError):
        model_from_dict(doc)
