"""Risk scores: the score card, its JSON and SMT forms, and its compiled decision graph.

The compiled graph is compared with the score card on every input of hundreds of seeded
random risk scores (one value of every cell of each feature: every combination of interval
representatives); its size is checked against the O(conditions x score range) bound; and
every explanation query on it is compared with the brute-force oracle of the score card,
the explanations confirmed by the SMT verifier on the score card itself.
"""

from __future__ import annotations

import itertools
import json
import random
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import REPO_ROOT

from xpg.cli.main import main
from xpg.core.features import Feature, Literal
from xpg.core.xpgraph import ExplanationGraph
from xpg.errors import InvalidModelError
from xpg.explain.axp_cxp import find_axp, find_cxp
from xpg.explain.marco import enumerate_explanations
from xpg.explain.membership import is_member
from xpg.explain.relevance import classify_features
from xpg.explain.smallest import smallest_axp, smallest_cxp
from xpg.io.model_json import load_model, read_model, read_model_dict, save_model
from xpg.models.risk_score import RiskScore, at_least, compile_risk_score, risk_score_to_mdd
from xpg.testing import (
    Oracle,
    grid_from_literals,
    random_features,
    random_instance,
    random_risk_score,
)
from xpg.verify.verifier import Verifier


def _grid(rs: RiskScore) -> dict[str, list[Any]]:
    return grid_from_literals(rs.features, [c.literal for c in rs.conditions])


def _points(rs: RiskScore) -> list[list[Any]]:
    grid = _grid(rs)
    return [list(p) for p in itertools.product(*(grid[f.name] for f in rs.features))]


def _brute_score(rs: RiskScore, point: list[Any]) -> int:
    """The score card read by hand: bias plus the points of every condition that holds."""
    values = dict(zip([f.name for f in rs.features], point, strict=True))
    return rs.bias + sum(
        c.points for c in rs.conditions if c.literal.satisfied_by(values[c.literal.feature])
    )


def _example() -> RiskScore:
    feats = [Feature.real("age"), Feature.boolean("smoker"), Feature.integer("visits", 0, 9)]
    return RiskScore(
        feats,
        ["low", "high"],
        [
            (at_least("age", 60), 2),
            (Literal.eq("smoker", 1), 1),
            (at_least("visits", 3), 1),
            (at_least("visits", 6), 1),
        ],
        bias=-3,
    )


# -- the score card ------------------------------------------------------------------------------
def test_prediction_is_the_sign_with_ties_positive() -> None:
    rs = _example()
    assert rs.score([59.0, 0, 9]) == -1 and rs.predict([59.0, 0, 9]) == "low"
    assert rs.score([60.0, 1, 0]) == 0 and rs.predict([60.0, 1, 0]) == "high"  # tie: positive
    assert rs.score({"age": 61.0, "smoker": 1, "visits": 6}) == 2
    assert (rs.negative, rs.positive, rs.complexity, len(rs)) == ("low", "high", 4, 4)


def test_batch_prediction_and_scores_agree_with_one_by_one() -> None:
    rng = random.Random(3)
    for _ in range(60):
        feats = random_features(rng, rng.randint(1, 4))
        rs = random_risk_score(rng, feats, rng.randint(0, 6))
        points = _points(rs)
        by_hand = [_brute_score(rs, p) for p in points]
        assert rs.scores(np.array(points, dtype=object)).tolist() == by_hand
        expected = [rs.classes[int(s >= 0)] for s in by_hand]
        assert [rs.predict(p) for p in points] == expected
        assert rs.predict_batch(np.array(points, dtype=object)).tolist() == expected


def test_describe_prints_the_score_card() -> None:
    text = _example().describe()
    assert text.splitlines() == [
        "condition    points",
        "bias term        -3",
        "age >= 60         2",
        "smoker = 1        1",
        "visits >= 3       1",
        "visits >= 6       1",
        "predict 'high' (positive) if the total score >= 0, else 'low'",
    ]
    assert str(_example()) == text


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda f: RiskScore(f, [0, 1, 2], [], 0), "two classes"),
        (lambda f: RiskScore(f, [0, 1], [(at_least("zz", 1), 1)]), "unknown feature 'zz'"),
        (lambda f: RiskScore(f, [0, 1], [(at_least("b", 0.5), 1)]), "expected a value set"),
        (lambda f: RiskScore(f, [0, 1], [(at_least("n", 5), 1)]), "no value of 'n'"),
        (lambda f: RiskScore(f, [0, 1], [(at_least("x", 1), 1.5)]), "expected an integer"),
        (lambda f: RiskScore(f, [0, 1], [(at_least("x", 1), True)]), "expected an integer"),
        (lambda f: RiskScore(f, [0, 1], [], bias=0.5), "bias: expected an integer"),
        (lambda f: RiskScore(f, [0, 1], [at_least("x", 1)]), "(literal, points) pair"),
    ],
)
def test_bad_score_cards_are_refused(make: Any, message: str) -> None:
    feats = [Feature.real("x"), Feature.boolean("b"), Feature.integer("n", 0, 3)]
    with pytest.raises(InvalidModelError, match=re.escape(message)):
        make(feats)


# -- compilation ------------------------------------------------------------------------------
@pytest.mark.slow
def test_compiled_graph_is_the_score_card_on_every_input() -> None:
    """Hundreds of random risk scores: the graph predicts what the card does on every point of
    the product of each feature's cell representatives, and its size is in the bound."""
    rng = random.Random(20260)
    not_constant = 0
    for _ in range(400):
        feats = random_features(rng, rng.randint(1, 5))
        rs = random_risk_score(rng, feats, rng.randint(1, 7), max_points=rng.randint(1, 4))
        dg = compile_risk_score(rs)
        dg.validate()
        points = _points(rs)
        expected = [rs.classes[int(_brute_score(rs, p) >= 0)] for p in points]
        assert [dg.predict(p) for p in points] == expected
        assert dg.predict_batch(np.array(points, dtype=object)).tolist() == expected
        least, most = rs.score_range()
        by_hand = [_brute_score(rs, p) - rs.bias for p in points]
        assert (min(by_hand), max(by_hand)) == (least, most)
        assert (len(set(expected)) > 1) == (most > least)  # the generator's bias
        not_constant += most > least
        # size: per level at most one node per partial score in [least, greatest]
        spread = sum(abs(c.points) for c in rs.conditions) + 1
        assert len(dg) <= len(rs.tested_features()) * spread + 2
        assert dg.tested_features() == [
            n for n in rs.tested_features() if n in set(dg.tested_features())
        ]
    assert not_constant > 350


def test_compiled_graph_is_reduced_and_ordered() -> None:
    rng = random.Random(7)
    for _ in range(100):
        feats = random_features(rng, rng.randint(2, 5))
        rs = random_risk_score(rng, feats, rng.randint(2, 8))
        mdd, root, names, _ = risk_score_to_mdd(rs)
        nodes = mdd.reachable(root)
        inner = [n for n in nodes if mdd.level[n] < mdd.n_levels]
        for n in inner:
            assert len(set(mdd.children[n])) > 1  # no redundant test
            assert all(mdd.level[c] > mdd.level[n] for c in mdd.children[n])  # ordered
        keys = [(mdd.level[n], mdd.children[n]) for n in inner]
        assert len(keys) == len(set(keys))  # no two equal nodes
        assert len(names) == len(rs.tested_features())


def test_order_parameter_and_majority_vote_sizes() -> None:
    # a majority of n boolean votes: level i holds the undecided partial scores only
    for n in range(2, 9):
        feats = [Feature.boolean(f"v{i}") for i in range(n)]
        vote = RiskScore(feats, [0, 1], [(Literal.eq(f.name, 1), 1) for f in feats], -(n // 2))
        dg = compile_risk_score(vote, order=[f.name for f in reversed(feats)])
        assert dg.feature_of(dg.root) == f"v{n - 1}"
        for bits in itertools.product((0, 1), repeat=n):
            assert dg.predict(list(bits)) == int(sum(bits) >= n // 2)
        # the number of reachable (level, undecided score) pairs of a threshold function
        need, expected_inner = n // 2, 0
        for i in range(n):
            expected_inner += sum(1 for k in range(i + 1) if k < need <= k + n - i)
        assert len(dg) == expected_inner + (2 if need > 0 else 1)
    with pytest.raises(InvalidModelError, match="missing"):
        compile_risk_score(_example(), order=["age"])


def test_constant_scores_compile_to_one_terminal() -> None:
    feats = [Feature.real("x")]
    always = RiskScore(feats, ["n", "p"], [(at_least("x", 1.0), 2)], bias=0)
    never = RiskScore(feats, ["n", "p"], [(at_least("x", 1.0), 2)], bias=-3)
    empty = RiskScore(feats, ["n", "p"], [], bias=-1)
    for rs, label in ((always, "p"), (never, "n"), (empty, "n")):
        dg = compile_risk_score(rs)
        dg.validate()
        assert len(dg) == 1 and dg.class_of(dg.root) == label
        assert dg.predict([0.0]) == dg.predict([5.0]) == label


# -- explanations on the compiled graph against brute force, verified on the score card ---------
@pytest.mark.slow
def test_explanations_are_the_oracles_and_verified_by_smt() -> None:
    rng = random.Random(15)
    checked = members_checked = 0
    for _ in range(40):
        feats = random_features(rng, rng.randint(2, 4))
        rs = random_risk_score(rng, feats, rng.randint(2, 6))
        dg = rs.to_decision_graph()
        grid = _grid(rs)
        tested = dg.tested_features()
        with Verifier(rs) as verifier:
            for _ in range(2):
                x = random_instance(rng, feats, grid)
                assert dg.predict(x) == rs.predict(x)
                truth = Oracle.of_model(rs.predict, feats, grid, x, tested)
                xg = ExplanationGraph.from_decision_graph(dg, x)
                result = enumerate_explanations(xg)
                assert result.complete
                assert {frozenset(a) for a in result.axps} == truth.axps
                assert {frozenset(c) for c in result.cxps} == truth.cxps
                for a in result.axps[:3]:
                    assert verifier.verify_axp(x, a).holds
                for c in result.cxps[:3]:
                    verdict = verifier.verify_cxp(x, c)
                    assert verdict.holds
                    assert rs.predict(verdict.witnesses[""]) != rs.predict(x)
                checked += len(result.axps) + len(result.cxps)
                assert frozenset(find_axp(xg)) in truth.axps
                one_cxp = find_cxp(xg)
                assert (one_cxp is None) == (not truth.cxps)
                assert one_cxp is None or frozenset(one_cxp) in truth.cxps
                members = truth.members()
                for f in feats:
                    for kind, family in (("axp", truth.axps), ("cxp", truth.cxps)):
                        answer = is_member(xg, f.name, kind)  # type: ignore[arg-type]
                        assert answer.member == (f.name in members)
                        if answer.member:
                            assert frozenset(answer.witness or ()) in family
                    members_checked += 1
                classes = classify_features(xg)
                necessary = truth.necessary() if truth.axps else set()
                assert set(classes.necessary) == necessary
                assert set(classes.relevant) == members - necessary
                ax, cx = smallest_axp(xg), smallest_cxp(xg)
                assert ax.optimal and len(ax.features or ()) == truth.smallest("axp")
                if truth.cxps:
                    assert cx.optimal and len(cx.features or ()) == truth.smallest("cxp")
    assert checked > 100 and members_checked > 150


def test_smt_encoding_is_the_score_card() -> None:
    rng = random.Random(4)
    for _ in range(15):
        feats = random_features(rng, rng.randint(1, 3))
        rs = random_risk_score(rng, feats, rng.randint(1, 5))
        enc = rs.smt_encoding()
        names = [f.name for f in feats]
        for p in _points(rs)[:40]:
            with enc.solver() as s:
                assert s.solve([enc.is_value(n, v) for n, v in zip(names, p, strict=True)])
                label = enc.label(s.get_value(enc.class_term).constant_value())
            assert label == rs.predict(p)


# -- JSON ------------------------------------------------------------------------------------
def _documented() -> dict[str, Any]:
    text = (REPO_ROOT / "docs" / "model-format.md").read_text()
    blocks = [json.loads(b) for b in re.findall(r"```json\n(.*?)```", text, flags=re.S)]
    return next(b for b in blocks if b.get("model", {}).get("type") == "risk-score")


def test_documented_example_reads_as_described(tmp_path: Path) -> None:
    doc = _documented()
    rs = read_model_dict(doc)
    assert isinstance(rs, RiskScore)
    assert rs.predict({"age": 70.0, "smoker": 0, "visits": 2}) == "no"
    assert rs.predict({"age": 70.0, "smoker": 0, "visits": 4}) == "yes"
    assert rs.describe().splitlines()[1:6] == _example().describe().splitlines()[1:6]
    path = tmp_path / "rs.json"
    path.write_text(json.dumps(doc))
    assert isinstance(read_model(path), RiskScore)
    dg = load_model(path)
    for age, smoker, visits in itertools.product((0.0, 59.5, 60.0, 120.0), (0, 1), range(21)):
        x = {"age": age, "smoker": smoker, "visits": visits}
        assert dg.predict(x) == rs.predict(x)


def test_json_round_trip_of_random_scores(tmp_path: Path) -> None:
    rng = random.Random(9)
    for i in range(30):
        feats = random_features(rng, rng.randint(1, 4))
        rs = random_risk_score(rng, feats, rng.randint(0, 5), classes=["neg", "pos"])
        path = tmp_path / f"m{i}.json"
        save_model(rs, path)
        again = read_model(path)
        assert isinstance(again, RiskScore)
        assert again.to_json_body() == rs.to_json_body() and again.classes == ["neg", "pos"]
        for p in _points(rs):
            assert again.predict(p) == rs.predict(p)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda m: m.update(bias=1.5), "model.bias: expected an integer, found 1.5"),
        (lambda m: m.update(conditions={}), "model.conditions: expected a list of conditions"),
        (
            lambda m: m["conditions"][1].update(points="1"),
            "model.conditions[1].points: expected an integer, found '1'",
        ),
        (
            lambda m: m["conditions"][0].update(feature="agee"),
            "model.conditions[0]: unknown feature 'agee'",
        ),
        (lambda m: m["conditions"][2].pop("points"), "model.conditions[2]: expected an object"),
        (
            lambda m: m["conditions"][1].update({"le": 3}),
            "model.conditions[1]: expected exactly one of",
        ),
        (
            lambda m: m["conditions"][1].update({"in": [2]}),
            "value(s) [2] outside the domain of 'smoker'",
        ),
    ],
)
def test_bad_documents_name_the_location(change: Any, message: str) -> None:
    doc = _documented()
    change(doc["model"])
    with pytest.raises(InvalidModelError, match=re.escape(message)):
        read_model_dict(doc)


def test_command_line_explains_and_verifies_a_risk_score(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "rs.json"
    path.write_text(json.dumps(_documented()))
    inst = "age=70,smoker=0,visits=4"
    assert main(["enum", str(path), "--instance", inst, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["complete"] and sorted(map(tuple, out["axps"])) == [("age", "visits")]
    assert sorted(map(tuple, out["cxps"])) == [("age",), ("visits",)]
    assert main(["verify", str(path), "--instance", inst, "--axp", "age,visits"]) == 0
    capsys.readouterr()
    doc = _documented()
    doc["classes"] = ["a", "b", "c"]
    path.write_text(json.dumps(doc))
    assert main(["axp", str(path), "--instance", inst]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "two classes" in err[0]
