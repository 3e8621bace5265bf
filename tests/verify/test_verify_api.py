"""The SMT verifier: float32 semantics, the breast-cancer tree, bad claims, the CLI."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.tree import DecisionTreeClassifier

from xpg import FeatureGroup, from_sklearn_tree
from xpg.cli.verify import register
from xpg.core.features import Feature, Literal, real_features
from xpg.core.xpgraph import ExplanationGraph
from xpg.errors import InvalidInstanceError, SolverClosedError
from xpg.explain.marco import enumerate_explanations
from xpg.io.model_json import save_model
from xpg.models.decision_list import DecisionList, Rule
from xpg.solvers.smt import float32_midpoint
from xpg.verify.verifier import Verifier, encode_model, verify_axp, verify_cxp


def test_float32_midpoint_matches_numpy_rounding() -> None:
    """float32(x) <= t iff x < m (or x == m when inclusive), checked at m and its float64
    neighbours for thresholds of every magnitude and sign, float32 values included."""
    rng = np.random.default_rng(0)
    ts = rng.normal(size=300) * 10.0 ** rng.integers(-8, 8, size=300)
    ts = np.concatenate([ts, np.float32(ts).astype(np.float64), [0.0, -0.0, 0.5, 1.5, -2.5]])
    for t in ts:
        m, inclusive = float32_midpoint(float(t))
        mf = float(m)
        assert Fraction(mf) == m  # the midpoint of two float32 is a float64
        for x in (mf, np.nextafter(mf, np.inf), np.nextafter(mf, -np.inf), float(t)):
            expected = bool(np.float32(x) <= t)
            got = Fraction(float(x)) < m or (inclusive and Fraction(float(x)) == m)
            assert got == expected, (t, x)


@pytest.mark.slow
def test_breast_cancer_depth6_explanations_confirmed_by_smt() -> None:
    """Feature-level, minimal as features, none repeated nor inside another, each confirmed
    on the estimator itself; the verifier's counterexamples are classified by sklearn."""
    data = load_breast_cancer()
    clf = DecisionTreeClassifier(max_depth=6, random_state=0).fit(data.data, data.target)
    feats = real_features(data.feature_names)
    dg = from_sklearn_tree(clf, feats)
    repeated = {f for f in clf.tree_.feature if f >= 0 and (clf.tree_.feature == f).sum() > 1}
    assert repeated
    names = set(data.feature_names)
    n = 0
    with Verifier(clf, feats) as v:
        for row in range(0, len(data.data), 38):
            x = list(data.data[row])
            xg = ExplanationGraph.from_decision_graph(dg, x)
            result = enumerate_explanations(xg)
            assert result.complete
            for lists in (result.axps, result.cxps):
                sets = [frozenset(e) for e in lists]
                assert len(sets) == len(set(sets))
                assert not any(a < b for a in sets for b in sets)
                assert all(s <= names for s in sets)
            for a in result.axps:
                verdict = v.verify_axp(x, a)
                assert verdict.holds, verdict
                n += 1
            for c in result.cxps:
                verdict = v.verify_cxp(x, c)
                assert verdict.holds, verdict
                witness = verdict.witnesses[""]
                row_w = np.asarray([[witness[f] for f in data.feature_names]])
                assert clf.predict(row_w)[0] != clf.predict(np.asarray([x]))[0]
                n += 1
    assert n > 50


def test_one_hot_group_counterexamples_are_possible_inputs() -> None:
    """Freeing a one-hot attribute moves it to another value: the columns stay one-hot."""
    rng = np.random.default_rng(1)
    g = FeatureGroup.one_hot("c", ["a", "b", "c"])
    X = np.eye(3)[rng.integers(0, 3, 200)]
    # a column-level tree would happily set c=a and c=b to 0 at once: "none" is not a value
    y = (X[:, 0] == 0) & (X[:, 1] == 0)
    clf = DecisionTreeClassifier(random_state=0).fit(X, y)
    inst = {"c": "a"}
    verdict = verify_cxp(clf, inst, ["c"], model_features=[g])
    assert verdict.holds
    assert verdict.witnesses[""] == {"c": "c"}
    assert verify_axp(clf, inst, [], model_features=[g]).failure == "not-sufficient"


def test_bad_claims_and_instances_are_refused() -> None:
    feats = [Feature.boolean("a"), Feature.real("x", 0, 10)]
    dl = DecisionList(feats, ["n", "y"], [Rule([Literal.gt("x", 5.0)], "y")], "n")
    with pytest.raises(InvalidInstanceError, match="unknown feature"):
        verify_axp(dl, {"a": 1, "x": 7.0}, ["nope"])
    with pytest.raises(InvalidInstanceError, match="no value for feature"):
        verify_axp(dl, {"a": 1}, ["x"])
    with pytest.raises(InvalidInstanceError, match="expected a value in"):
        verify_cxp(dl, {"a": 1, "x": 70.0}, ["x"])
    v = Verifier(dl)
    v.close()
    with pytest.raises(SolverClosedError):
        v.verify_axp({"a": 1, "x": 7.0}, ["x"])
    # a strict bound: the counterexample is a float on the right side of 5
    verdict = verify_axp(dl, {"a": 1, "x": 7.0}, ["a"])
    assert verdict.failure == "not-sufficient"
    assert verdict.counterexample is not None
    assert isinstance(verdict.counterexample["x"], float) and verdict.counterexample["x"] <= 5.0


def test_encoding_exposes_inputs_without_a_class() -> None:
    """A DG with a gap (refused by validate) is encoded faithfully: class -1 is reachable."""
    from xpg.core.graph import DecisionGraph

    dg = DecisionGraph([Feature.real("x")], ["a", "b"])
    dg.add_node(0, "x")
    dg.add_terminal(1, "a")
    dg.add_terminal(2, "b")
    dg.add_edge(0, 1, Literal.le("x", 1.0))
    dg.add_edge(0, 2, Literal.gt("x", 2.0))
    enc = encode_model(dg)
    with enc.solver() as s:
        s.add_assertion(enc.mgr.Equals(enc.class_term, enc.mgr.Int(-1)))
        assert s.solve()
        assert 1.0 < enc.decode(s)["x"] <= 2.0


def _model_file(tmp_path: Path) -> Path:
    feats = [Feature.boolean("a"), Feature.boolean("b"), Feature.integer("n", 0, 3)]
    dl = DecisionList(
        feats,
        ["no", "yes"],
        [Rule([Literal.eq("a", 1), Literal.le("n", 1)], "yes"), Rule([Literal.eq("b", 1)], "yes")],
        "no",
    )
    path = tmp_path / "dl.json"
    save_model(dl, path)
    return path


def main(argv: list[str]) -> int:
    """``xpg verify`` as the lead's CLI runs it: XpgError -> one line, exit status 2."""
    import argparse
    import sys

    from xpg.errors import XpgError

    parser = argparse.ArgumentParser(prog="xpg")
    register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except XpgError as err:
        print(f"xpg verify: error: {' '.join(str(err).split())}", file=sys.stderr)
        return 2


def test_cli_verify(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = str(_model_file(tmp_path))
    assert main(["verify", path, "--instance", "a=1,b=0,n=0", "--axp", "a,b,n"]) == 1
    out = capsys.readouterr().out
    assert "not-minimal" in out
    assert main(["verify", path, "--instance", "a=1,b=0,n=0", "--axp", "a,b,n", "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["holds"] is False and doc["redundant_feature"] in ("a", "b", "n")
    status = main(["verify", path, "--instance", "a=1,b=0,n=0", "--cxp", "a", "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert status == 0 and doc["holds"] and doc["prediction"] == "yes"
    assert main(["verify", path, "--instance", "a=0,b=0,n=0", "--axp", "a"]) == 1
    out = capsys.readouterr().out
    assert "counterexample: a=0, b=1" in out
    # bad input: exit status 2 and one line
    assert main(["verify", path, "--instance", "a=1,b=0", "--axp", "a"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "'n'" in err
    assert main(["verify", str(tmp_path / "missing.json"), "--instance", "a=1", "--axp", "a"]) == 2


def test_register_adds_the_command() -> None:
    import argparse

    parser = argparse.ArgumentParser()
    register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["verify", "m.json", "--instance", "a=1", "--cxp", "a,b"])
    assert args.cxp == "a,b" and args.axp is None
