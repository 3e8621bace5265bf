"""Review of the compilers-and-verification issue: proofs that were missing or weak.

* the verifier refuses ill-defined models instead of answering for them;
* the SMT check really is against the ORIGINAL model: explanations of a wrongly compiled
  graph are refuted;
* the decision-list compilers give *reduced* diagrams (no redundant test, no duplicate node)
  that test features in the order, for multi-valued features too;
* ``xpg verify`` through the real command line: every explanation ``xpg enum`` prints for a
  model file is confirmed, perturbed claims are refuted (exit 1), bad input is exit 2.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
from random_models import random_decision_list, random_features

from xpg.cli.main import main
from xpg.compile import compile_decision_list
from xpg.core.features import Feature, Literal
from xpg.core.graph import DecisionGraph
from xpg.core.xpgraph import ExplanationGraph
from xpg.errors import InvalidGraphError, InvalidModelError
from xpg.explain.marco import enumerate_explanations
from xpg.io.model_json import model_to_dict, read_model_dict
from xpg.models.decision_list import DecisionList, Rule
from xpg.models.tree import DecisionTree, Leaf, Split
from xpg.verify.verifier import Verifier, verify_axp, verify_cxp

REPO = Path(__file__).resolve().parents[2]


# -- ill-defined models are refused -------------------------------------------------------------
def _gap_tree() -> DecisionTree:
    feats = [Feature.real("x"), Feature.boolean("b")]
    return DecisionTree(
        feats,
        [0, 1],
        Split("x", [(Literal.le("x", 1.0), Leaf(0)), (Literal.gt("x", 2.0), Leaf(1))]),
    )


def _overlap_graph() -> DecisionGraph:
    dg = DecisionGraph([Feature.real("x"), Feature.boolean("b")], classes=[0, 1])
    dg.add_node(0, "x")
    dg.add_terminal(1, 0)
    dg.add_terminal(2, 1)
    dg.add_edge(0, 1, Literal.le("x", 2.0))
    dg.add_edge(0, 2, Literal.gt("x", 1.0))
    return dg


def test_verifier_refuses_ill_defined_models(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Regression: a tree with a gap or a graph with overlapping edges got verdicts ("holds")
    although it has no classification function; now refused, as everywhere else."""
    inst = {"x": 0.0, "b": 1}
    with pytest.raises(InvalidModelError, match="leave 1 < x <= 2 uncovered"):
        verify_cxp(_gap_tree(), inst, ["x"])
    with pytest.raises(InvalidGraphError, match="overlap on 1 < x <= 2"):
        verify_axp(_overlap_graph(), inst, ["x"])
    with pytest.raises(InvalidGraphError, match="overlap"):
        Verifier(_overlap_graph())
    for name, model, message in (
        ("gap.json", _gap_tree(), "leave 1 < x <= 2 uncovered"),
        ("overlap.json", _overlap_graph(), "overlap on 1 < x <= 2"),
    ):
        path = tmp_path / name
        path.write_text(json.dumps(model_to_dict(model)))
        for claim in (["--axp", "x"], ["--cxp", "x"]):
            assert main(["verify", str(path), "--instance", "x=0,b=1", *claim]) == 2
            out = capsys.readouterr()
            assert out.out == "" and message in out.err and f"{path}: " in out.err
            assert len(out.err.strip().splitlines()) == 1


# -- the check is against the original model ----------------------------------------------------
def _flip_one_terminal(dg: DecisionGraph, rng: random.Random) -> DecisionGraph:
    """The same graph with one reachable terminal labelled with another class: a compiler bug."""
    out = DecisionGraph(dg.features, dg.classes)
    terminals = [n for n in dg.nodes if dg.is_terminal(n)]
    victim = rng.choice(terminals)
    for n in dg.nodes:
        if dg.is_terminal(n):
            c = dg.class_of(n)
            if n == victim:
                c = next(k for k in dg.classes if k != c)
            out.add_terminal(n, c)
        else:
            out.add_node(n, dg.feature_of(n))
    for p, c, lit in dg.edges:
        out.add_edge(dg.nodes[p], dg.nodes[c], lit)
    return out


def test_explanations_of_a_wrong_graph_are_refuted_on_the_original() -> None:
    """A verifier that looked at the compiled graph would confirm these; the original model
    refutes some explanation of most wrongly compiled lists, with a counterexample the
    original model itself classifies differently."""
    rng = random.Random(31)
    refuted = tried = 0
    for _ in range(40):
        feats = random_features(rng, 3, ["boolean", "categorical", "integer"])
        dl = random_decision_list(rng, feats, 2, rng.randint(2, 5))
        good = compile_decision_list(dl)
        if sum(good.is_terminal(n) for n in good.nodes) < 2:
            continue
        bad = _flip_one_terminal(good, rng)
        with Verifier(dl) as v:
            for _ in range(3):
                inst = {
                    f.name: rng.choice(
                        list(f.values) if f.is_discrete else range(int(f.low), int(f.high) + 1)
                    )
                    for f in feats
                }
                if bad.predict(inst) != dl.predict(inst):
                    continue  # the wrong graph mispredicts: caught by the agreement tests
                tried += 1
                result = enumerate_explanations(ExplanationGraph.from_decision_graph(bad, inst))
                verdicts = [v.verify_axp(inst, a) for a in result.axps]
                verdicts += [v.verify_cxp(inst, c) for c in result.cxps]
                failed = [x for x in verdicts if not x.holds]
                if failed:
                    refuted += 1
                    for x in failed:
                        if x.counterexample is not None:
                            assert dl.predict(x.counterexample) != dl.predict(inst)
    assert tried >= 40 and 4 * refuted >= 3 * tried, (tried, refuted)


# -- reduced diagrams -----------------------------------------------------------------------------
def _assert_reduced_and_ordered(dg: DecisionGraph, order: list[str]) -> None:
    level = {name: i for i, name in enumerate(order)}
    seen: dict[Any, Any] = {}
    for n in dg.nodes:
        if dg.is_terminal(n):
            key: Any = ("t", repr(dg.class_of(n)))
        else:
            kids = dg.children(n)
            assert len({c for c, _ in kids}) == len(kids) >= 2, f"node {n!r} is redundant"
            f = dg.feature_of(n)
            assert all(
                dg.is_terminal(c) or level[f] < level[str(dg.feature_of(c))] for c, _ in kids
            ), "a path tests against the order"
            key = (f, frozenset((c, lit) for c, lit in kids))
        assert key not in seen, f"nodes {seen.get(key)!r} and {n!r} are the same node"
        seen[key] = n


@pytest.mark.parametrize("kinds", [["boolean"], None])
def test_decision_list_diagrams_are_reduced(kinds: list[str] | None) -> None:
    rng = random.Random(41)
    for _ in range(60):
        feats = random_features(rng, rng.randint(1, 5), kinds)
        dl = random_decision_list(rng, feats, rng.randint(2, 4), rng.randint(0, 8))
        order = [f.name for f in feats]
        rng.shuffle(order)
        methods = ["auto", "mdd"] if kinds else ["auto"]
        for method in methods:
            dg = compile_decision_list(dl, order=order, method=method)  # type: ignore[arg-type]
            dg.validate()
            _assert_reduced_and_ordered(dg, order)


def test_reduction_merges_equivalent_rules() -> None:
    """Two lists with the same function, written differently, compile to the same size."""
    feats = [Feature.categorical("c", ["p", "q", "r"]), Feature.integer("n", 0, 4)]
    one = DecisionList(
        feats, [0, 1], [Rule([Literal.isin("c", ["p", "q"]), Literal.gt("n", 2)], 1)], 0
    )
    two = DecisionList(
        feats,
        [0, 1],
        [
            Rule([Literal.eq("c", "r")], 0),
            Rule([Literal.le("n", 2)], 0),
            Rule([Literal.eq("c", "p")], 1),
            Rule([Literal.isin("n", [3, 4])], 1),
        ],
        0,
    )
    a, b = compile_decision_list(one), compile_decision_list(two)
    assert len(a) == len(b) == 4 and a.n_edges == b.n_edges == 4


# -- xpg verify through the real command line ---------------------------------------------------
def _doc_examples() -> list[dict[str, Any]]:
    text = (REPO / "docs" / "model-format.md").read_text()
    blocks = re.findall(r"```json\n(.*?)```", text, flags=re.S)
    return [json.loads(b) for b in blocks if '"format": "xpg-model"' in b]


def test_cli_enum_then_verify_every_explanation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rng = random.Random(5)
    checked = 0
    for i, doc in enumerate(_doc_examples()):
        path = tmp_path / f"m{i}.json"
        path.write_text(json.dumps(doc))
        features = read_model_dict(doc).features
        for _ in range(3):
            inst = ",".join(
                f"{f.name}="
                + str(
                    rng.choice(f.values)
                    if f.is_discrete
                    else rng.choice([v for v in (0, 1, 2, 5, 30, 70, 100) if f.low <= v <= f.high])
                )
                for f in features
            )
            assert main(["enum", str(path), "--instance", inst, "--json"]) == 0
            found = json.loads(capsys.readouterr().out)
            assert found["complete"] is True
            for kind in ("axp", "cxp"):
                for e in found[kind + "s"]:
                    status = main(
                        [
                            "verify",
                            str(path),
                            "--instance",
                            inst,
                            f"--{kind}",
                            ",".join(e),
                            "--json",
                        ]
                    )
                    verdict = json.loads(capsys.readouterr().out)
                    assert status == 0 and verdict["holds"] is True, (doc["model"]["type"], e)
                    assert verdict["kind"] == kind and sorted(verdict["features"]) == e
                    checked += 1
            for e in found["cxps"]:  # a CXp with every other tested feature added
                bigger = sorted({n for x in found["axps"] + found["cxps"] for n in x})
                if bigger != e:
                    assert (
                        main(["verify", str(path), "--instance", inst, "--cxp", ",".join(bigger)])
                        == 1
                    )
                    assert "does NOT hold, not-minimal" in capsys.readouterr().out
    assert checked >= 20
    path = tmp_path / "m0.json"
    for argv, message in (
        (["--instance", "nope=1", "--axp", "x"], "unknown feature 'nope'"),
        (["--instance", "{", "--axp", "x"], "malformed JSON"),
    ):
        assert main(["verify", str(path), *argv]) == 2
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1
    assert main(["verify", str(path), "--instance", "x=1"]) == 2  # no claim: a usage error
    capsys.readouterr()
