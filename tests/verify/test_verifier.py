"""The verifier answers for the original model only: ill-defined models are refused instead
of answered for, and explanations of a wrongly compiled graph are refuted on the original."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from xpg.cli.main import main
from xpg.core.features import Feature, Literal
from xpg.core.graph import DecisionGraph
from xpg.core.xpgraph import ExplanationGraph
from xpg.errors import InvalidGraphError, InvalidModelError
from xpg.explain.marco import enumerate_explanations
from xpg.io.model_json import model_to_dict
from xpg.models.decision_list import compile_decision_list
from xpg.models.tree import DecisionTree, Leaf, Split
from xpg.testing import random_decision_list, random_features
from xpg.verify.verifier import Verifier, verify_axp, verify_cxp


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


@pytest.mark.slow
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
