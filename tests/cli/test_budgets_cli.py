"""Issue 28, "never unbounded, never out of memory": a decision list too large to compile is
explained without compiling by every command (route ``list-sat``); ``--timeout`` on axp, cxp,
member, features, smallest, verify, enum and robustness, with a default on the models
explained without a graph, and an answer that says when it was reached; robustness, draw and
export on a forest that does not compile: done (robustness) or refused in one plain line."""

from __future__ import annotations

import argparse
import itertools
import json
import math
import time
from pathlib import Path
from typing import Any

import pytest

from xpg.cli.common import ORACLE_TIMEOUT, load_args_target
from xpg.cli.main import build_parser, main
from xpg.core.features import Feature, Literal
from xpg.io.model_json import save_model
from xpg.models.decision_list import GRAPH_BUDGET, DecisionList, Rule
from xpg.models.ensemble_import import ensemble_from_sklearn
from xpg.testing import long_decision_list
from xpg.verify.verifier import Verifier

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, DecisionList, dict, str]:
    dl = long_decision_list()
    path = tmp_path_factory.mktemp("big") / "list.json"
    save_model(dl, path)
    x = {f.name: 0 for f in dl.features}
    return str(path), dl, x, ",".join(f"{k}={v}" for k, v in x.items())


def _json(capsys: pytest.CaptureFixture[str], argv: list[str], status: int = 0) -> Any:
    assert main(argv) == status
    return json.loads(capsys.readouterr().out)


def _hitting_sets(family: set[frozenset[str]]) -> set[frozenset[str]]:
    """The subset-minimal sets meeting every set of ``family`` (brute force)."""
    universe = sorted(set().union(*family))
    found: set[frozenset[str]] = set()
    for r in range(len(universe) + 1):
        for combo in itertools.combinations(universe, r):
            s = frozenset(combo)
            if all(s & f for f in family) and not any(h <= s for h in found):
                found.add(s)
    return found


def test_a_list_too_large_to_compile_is_explained_by_every_command(
    big: tuple[str, DecisionList, dict, str], capsys: pytest.CaptureFixture[str]
) -> None:
    path, dl, x, inst = big
    with pytest.raises(Exception, match=f"budget of {GRAPH_BUDGET} diagram nodes"):
        dl.to_decision_graph()
    at = ["--instance", inst, "--json"]
    axp = _json(capsys, ["axp", path, *at])
    assert axp["route"] == "list-sat" and axp["prediction"] == str(dl.predict(x))
    cxp = _json(capsys, ["cxp", path, *at])
    assert cxp["route"] == "list-sat"
    doc = _json(capsys, ["enum", path, *at])
    assert doc["complete"] and doc["route"] == "list-sat"
    axps = {frozenset(a) for a in doc["axps"]}
    cxps = {frozenset(c) for c in doc["cxps"]}
    assert frozenset(axp["features"]) in axps and frozenset(cxp["features"]) in cxps
    assert axps == _hitting_sets(cxps)  # complete lists: each family is the other's dual
    with Verifier(dl) as v:  # an independent check of each, on the SMT encoding of the list
        for a in axps:
            assert v.verify_axp(x, a).holds
        for c in cxps:
            assert v.verify_cxp(x, c).holds
    members = set().union(*axps)
    for name in ("b0", sorted(members)[0]):
        doc = _json(capsys, ["member", path, name, *at])
        assert doc["member"] == (name in members) and doc["route"] == "list-sat"
    doc = _json(capsys, ["features", path, *at])
    assert set(doc["necessary"]) == set(frozenset.intersection(*axps))
    assert set(doc["necessary"]) | set(doc["relevant"]) == members
    doc = _json(capsys, ["smallest", path, *at])
    assert len(doc["features"]) == min(map(len, axps)) and doc["optimal"]
    claim = ",".join(sorted(axp["features"]))
    assert _json(capsys, ["verify", path, "--instance", inst, "--axp", claim, "--json"])["holds"]
    doc = _json(capsys, ["robustness", path, *at])
    assert doc["route"] == "list-sat" and doc["distance"] == 1.0
    assert dl.predict(doc["counterexample"]) != dl.predict(x)
    assert main(["validate", path]) == 0
    assert "too large to compile" in capsys.readouterr().out


def test_draw_and_export_refuse_a_list_too_large_in_one_plain_line(
    big: tuple[str, DecisionList, dict, str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path, dl, x, inst = big
    for argv in (
        ["draw", path, "-o", str(tmp_path / "g.dot")],
        ["draw", path, "--instance", inst, "-o", str(tmp_path / "g.dot")],
        ["export", path, "--instance", inst, "-o", str(tmp_path / "g.xpg")],
    ):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "Traceback" not in err
        assert (
            f"this 60-rule decision list does not compile within the budget of {GRAPH_BUDGET} "
            in err
        )
        assert "(raise it with --budget N): use xpg axp, cxp or enum" in err
        what = "draws compiled decision graphs" if argv[0] == "draw" else "writes the expl"
        assert err.startswith(f"xpg {argv[0]}: error: xpg {argv[0]} {what}")
    assert not list(tmp_path.iterdir())


@pytest.fixture(scope="module")
def forest(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Any, list[float], str]:
    """The issue's model: a 10-tree depth-3 random forest on wine."""
    from sklearn.datasets import load_wine
    from sklearn.ensemble import RandomForestClassifier

    X, y = load_wine(return_X_y=True)
    rf = RandomForestClassifier(n_estimators=10, max_depth=3, random_state=0).fit(X, y)
    model = ensemble_from_sklearn(rf)
    path = tmp_path_factory.mktemp("wine") / "forest.json"
    save_model(model, path)
    x = [float(v) for v in X[0]]
    inst = ",".join(f"{f.name}={v!r}" for f, v in zip(model.features, x))
    return str(path), model, x, inst


def test_draw_and_export_of_a_forest_say_plainly_what_to_use(
    forest: tuple[str, Any, list[float], str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path, model, x, inst = forest
    out = str(tmp_path / "f.dot")
    assert main(["draw", path, "--instance", inst, "-o", out]) == 2
    err = capsys.readouterr().err
    assert err == (
        "xpg draw: error: xpg draw draws compiled decision graphs; this 10-tree forest does not "
        "compile within the budget of 1000000 diagram edges made (raise it with --budget N): "
        "use xpg axp, cxp or enum, which explain it without compiling\n"
    )
    assert main(["export", path, "--instance", inst, "-o", str(tmp_path / "f.xpg")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(
        "xpg export: error: xpg export writes the explanation graph of a compiled decision "
        "graph; this 10-tree forest does not compile within the budget of 1000000"
    )
    assert "SAT/SMT route is used instead" not in err
    assert not list(tmp_path.iterdir())


def _iris_forest(tmp_path: Path) -> tuple[str, Any, list[float]]:
    from sklearn.datasets import load_iris
    from sklearn.ensemble import RandomForestClassifier

    X, y = load_iris(return_X_y=True)
    rf = RandomForestClassifier(n_estimators=3, max_depth=2, random_state=1).fit(X, y)
    model = ensemble_from_sklearn(rf)
    path = tmp_path / "iris.json"
    save_model(model, path)
    return str(path), model, [float(v) for v in X[70]]


def test_budget_raised_draws_a_forest_and_lowered_takes_the_oracle(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, model, x = _iris_forest(tmp_path)
    inst = ",".join(f"{f.name}={v!r}" for f, v in zip(model.features, x))
    doc = _json(capsys, ["draw", path, "--instance", inst, "-o", str(tmp_path / "i.dot"), "--json"])
    assert doc["nodes"] > 1 and (tmp_path / "i.dot").exists()
    assert main(["draw", path, "--budget", "1", "-o", str(tmp_path / "j.dot")]) == 2
    assert "does not compile within the budget of 1 diagram edges" in capsys.readouterr().err
    # robustness: the graph route and the oracle's (a budget of 1 compiles nothing) agree
    at = ["--instance", inst, "--radius", "0.2", "--json"]
    graph = _json(capsys, ["robustness", path, *at])
    oracle = _json(capsys, ["robustness", path, *at, "--budget", "1"])
    assert graph["route"] == "read-once" and oracle["route"] == "sat-pb"
    for key in ("distance", "robust", "radius"):
        assert oracle[key] == graph[key]
    assert model.predict(oracle["counterexample"]) == int(oracle["counterexample_class"])
    assert main(["robustness", path, *at, "--budget", "1", "--route", "read-once"]) == 2
    err = capsys.readouterr().err
    assert "searches a compiled decision graph; this 3-tree forest does not compile" in err
    assert "use --route auto, which decides it with the SAT oracle, without compiling" in err


def test_robustness_of_the_forest_is_decided_without_compiling(
    forest: tuple[str, Any, list[float], str], capsys: pytest.CaptureFixture[str]
) -> None:
    path, model, x, inst = forest
    doc = _json(capsys, ["robustness", path, "--instance", inst, "--json"])
    assert doc["route"] == "sat-pb" and 0 < doc["distance"] < math.inf
    cex = doc["counterexample"]
    assert model.predict(cex) == int(doc["counterexample_class"]) != model.predict(x)
    moved = max(abs(cex[f.name] - v) for f, v in zip(model.features, x))
    assert moved <= doc["distance"] + 1e-6
    d = doc["distance"]
    at = ["robustness", path, "--instance", inst, "--json", "--radius"]
    robust = _json(capsys, [*at, f"{d * 0.999}"])
    fragile = _json(capsys, [*at, f"{d * 1.001}"])
    assert robust["robust"] is True and fragile["robust"] is False


def _args(argv: list[str]) -> argparse.Namespace:
    return build_parser().parse_args(argv)


def test_default_timeouts_on_the_routes_without_a_graph(
    big: tuple[str, DecisionList, dict, str],
    forest: tuple[str, Any, list[float], str],
    tmp_path: Path,
) -> None:
    path, _, _, inst = big
    for command in (["member", path, "b0"], ["features", path], ["smallest", path]):
        args = _args([*command, "--instance", inst])
        assert args.timeout is None
        with load_args_target(args):
            assert args.timeout == ORACLE_TIMEOUT
        args = _args([*command, "--instance", inst, "--timeout", "7"])
        with load_args_target(args):
            assert args.timeout == 7
    args = _args(["enum", forest[0], "--instance", forest[3]])
    with load_args_target(args):
        assert args.timeout == ORACLE_TIMEOUT
    small = DecisionList([Feature.boolean("a")], [0, 1], [Rule([Literal.eq("a", 1)], 1)], 0)
    save_model(small, tmp_path / "small.json")
    args = _args(["features", str(tmp_path / "small.json"), "--instance", "a=1"])
    load_args_target(args)  # a compiled graph: no default limit
    assert args.timeout is None
    assert _args(["verify", path, "--instance", inst, "--axp", "b0"]).timeout == ORACLE_TIMEOUT


#: a time budget that has passed before the first question: the answers are deterministic
PAST = "1e-9"


def test_each_command_says_when_its_time_budget_was_reached(
    big: tuple[str, DecisionList, dict, str], capsys: pytest.CaptureFixture[str]
) -> None:
    path, dl, x, inst = big
    at = ["--instance", inst, "--timeout", PAST]
    doc = _json(capsys, ["member", path, "b5", *at, "--json"])
    assert doc["member"] is None and doc["timed_out"] is True and doc["route"] == "list-sat"
    assert "time budget of 1e-09 s was reached (raise it with --timeout S)" in doc["note"]
    assert main(["member", path, "b5", *at]) == 0
    assert capsys.readouterr().out.startswith("undecided whether b5 is in some AXp: the time")
    doc = _json(capsys, ["features", path, *at, "--json"])
    assert doc["complete"] is False and doc["timed_out"] is True
    assert set(doc["undecided"]) == set(dl.tested_features())
    assert set(doc["irrelevant"]) == {f.name for f in dl.features} - set(dl.tested_features())
    assert main(["features", path, *at]) == 0
    assert "INCOMPLETE: 25 features undecided: the time budget" in capsys.readouterr().out
    doc = _json(capsys, ["smallest", path, *at, "--json"])
    assert doc["features"] is None and doc["optimal"] is False and doc["timed_out"] is True
    doc = _json(capsys, ["enum", path, *at, "--json"])
    assert doc["complete"] is False
    axp = ",".join(sorted(_json(capsys, ["axp", path, "--instance", inst, "--json"])["features"]))
    doc = _json(capsys, ["verify", path, *at, "--axp", axp, "--json"], status=3)
    assert doc["holds"] is None and doc["timed_out"] is True and "--timeout S" in doc["note"]
    assert main(["verify", path, *at, "--axp", axp]) == 3
    assert "UNDECIDED: the time budget of 1e-09 s was reached" in capsys.readouterr().out
    doc = _json(capsys, ["robustness", path, *at, "--json"])
    assert doc["distance"] is None and doc["timed_out"] is True and doc["route"] == "list-sat"


def test_a_time_budget_on_a_graph_interrupts_the_query() -> None:
    """On an explanation graph the budget is a timer signal: a query still running when it
    rings stops (the loop below ends on the signal, not on a clock; the generous guard only
    keeps a broken timer from hanging the test)."""
    from xpg.cli.common import OutOfTime, time_limit

    guard = time.monotonic() + 120
    with pytest.raises(OutOfTime):
        with time_limit(0.05):
            while time.monotonic() < guard:
                pass
    with time_limit(None):  # no budget: nothing rings
        pass


def test_axp_and_cxp_say_when_their_time_budget_was_reached(
    big: tuple[str, DecisionList, dict, str], capsys: pytest.CaptureFixture[str]
) -> None:
    path, dl, x, inst = big
    at = ["--instance", inst, "--timeout", PAST]
    note = "the time budget of 1e-09 s was reached (raise it with --timeout S)"
    for kind, fields in (
        ("axp", ("conditions",)),
        ("cxp", ("counterexample", "counterexample_class")),
    ):
        doc = _json(capsys, [kind, path, *at, "--json"])
        name = "AXp" if kind == "axp" else "CXp"
        assert doc["timed_out"] is True and doc["note"] == f"no {name} found: {note}"
        assert doc["kind"] == kind and doc["features"] is None and doc["route"] == "list-sat"
        assert doc["prediction"] == str(dl.predict(x)) and doc["seconds"] >= 0
        assert all(doc[f] is None for f in fields)
        assert main([kind, path, *at]) == 0
        assert capsys.readouterr().out == (
            f"prediction: {dl.predict(x)}\nno {name} found: {note} (route: list-sat)\n"
        )
        # a generous budget: the answer of no budget, without "timed_out"
        plain = _json(capsys, [kind, path, "--instance", inst, "--json"])
        roomy = _json(capsys, [kind, path, "--instance", inst, "--timeout", "600", "--json"])
        assert "timed_out" not in plain and "timed_out" not in roomy
        assert {k: v for k, v in roomy.items() if k != "seconds"} == {
            k: v for k, v in plain.items() if k != "seconds"
        }


def test_axp_and_cxp_with_a_generous_budget_on_a_forest_and_a_graph(
    forest: tuple[str, Any, list[float], str], capsys: pytest.CaptureFixture[str]
) -> None:
    path, model, x, inst = forest
    mux = "../shared/xpg-examples/mux6/mux6_0.xpg"
    for argv in (
        ["axp", path, "--instance", inst],
        ["cxp", path, "--instance", inst],
        ["axp", mux],
        ["cxp", mux],
    ):
        plain = _json(capsys, [*argv, "--json"])
        roomy = _json(capsys, [*argv, "--timeout", "600", "--json"])
        assert "timed_out" not in roomy and roomy["features"] == plain["features"]
        assert roomy.get("route") == plain.get("route")


def test_the_default_budget_is_named_when_it_was_reached(
    big: tuple[str, DecisionList, dict, str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A default already spent when the first question is asked (``ORACLE_TIMEOUT``
    lowered): the answers say it was the default, and how to raise it."""
    import xpg.cli.common

    monkeypatch.setattr(xpg.cli.common, "ORACLE_TIMEOUT", float(PAST))
    path, dl, x, inst = big
    doc = _json(capsys, ["axp", path, "--instance", inst, "--json"])
    assert doc["timed_out"] is True
    assert doc["note"] == (
        "no AXp found: the default time budget of 1e-09 s was reached (raise it with --timeout S)"
    )
    assert main(["enum", path, "--instance", inst]) == 0
    out = capsys.readouterr().out
    assert "INCOMPLETE (budget reached: the default --timeout of 1e-09 s; raise it with " in out
    assert main(["enum", path, "--instance", inst, "--timeout", PAST]) == 0
    assert "INCOMPLETE (budget reached)," in capsys.readouterr().out  # a budget given: as before
