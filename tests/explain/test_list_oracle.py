"""Decision lists too large to compile: the compile budget, and the SAT route that explains
them without compiling (:mod:`xpg.explain.list_oracle`), checked against brute force on small
lists whose compilation is refused by a tiny budget."""

from __future__ import annotations

import random
from typing import Any

import pytest

from xpg.compile.bdd import bdd_manager, check_size
from xpg.compile.mdd import MDDBuilder
from xpg.core.features import Feature, Literal
from xpg.errors import GraphTooLargeError
from xpg.explain.decision import Decision, QueryTimeout
from xpg.explain.engine import Explainer
from xpg.explain.list_oracle import ROUTE, DecisionListOracle, ListSpace
from xpg.models.decision_list import (
    DecisionList,
    Rule,
    compile_decision_list,
    decision_list_to_mdd,
    decision_list_to_obdd,
)
from xpg.testing import (
    Oracle,
    grid_from_literals,
    long_decision_list,
    random_decision_list,
    random_features,
    random_instance,
)


def _explained(dl: DecisionList, instance: dict[str, Any]) -> Decision:
    """The decision of ``dl`` on ``instance``, over its SAT oracle (never compiled)."""
    return Explainer(dl, route="sat").explain(instance)


def _truth(dl: DecisionList, instance: dict[str, Any]) -> Oracle:
    grid = grid_from_literals(dl.features, [lit for r in dl.rules for lit in r.conditions])
    return Oracle.of_model(dl.predict, dl.features, grid, instance, dl.tested_features())


def _cases(seed: int, n: int, kinds: list[str] | None) -> list[tuple[DecisionList, dict]]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        feats = random_features(rng, rng.randint(2, 5), kinds)
        dl = random_decision_list(rng, feats, rng.randint(2, 3), rng.randint(1, 7))
        grid = grid_from_literals(feats, [lit for r in dl.rules for lit in r.conditions])
        out.append((dl, random_instance(rng, feats, grid)))
    return out


@pytest.mark.parametrize("kinds", [["boolean"], None])
def test_every_query_is_exact(kinds: list[str] | None) -> None:
    """AXps, CXps, enumeration, membership, feature classes and smallest explanations of the
    SAT route are those of brute force, on lists whose compilation a budget of 2 refuses."""
    refused = 0
    for dl, x in _cases(5 if kinds else 6, 40, kinds):
        try:
            compile_decision_list(dl, budget=2)  # compiles only a constant list
        except GraphTooLargeError as err:
            assert "too large to compile" in str(err)
            refused += 1
        truth = _truth(dl, x)
        with _explained(dl, x) as ex:
            assert ex.route == ROUTE == "list-sat"
            assert ex.prediction == dl.predict(x)
            result = ex.enumerate()
            assert result.complete
            assert {frozenset(a) for a in result.axps} == truth.axps
            assert {frozenset(c) for c in result.cxps} == truth.cxps
            assert len(result.axps) == len(truth.axps) and len(result.cxps) == len(truth.cxps)
            assert frozenset(ex.axp()) in truth.axps
            cxp = ex.cxp()
            assert (cxp is None) == (not truth.cxps)
            assert cxp is None or frozenset(cxp) in truth.cxps
            members = truth.members()
            for name in ex.features:
                for kind in ("axp", "cxp"):
                    answer = ex.is_member(name, kind)  # type: ignore[arg-type]
                    assert answer.member == (name in members) and answer.route == "list-sat"
                    if answer.member:
                        assert name in answer.witness
                        assert frozenset(answer.witness) in truth.of_kind(kind)
            classes = ex.classify_features()
            assert set(classes.necessary) == truth.necessary()
            assert set(classes.relevant) == members - truth.necessary()
            assert ex.smallest_axp().lower_bound == truth.smallest("axp")
            small = ex.smallest_cxp()
            if truth.cxps:
                assert small.optimal and frozenset(small.features) in truth.cxps
                assert len(small.features) == truth.smallest("cxp")
            else:
                assert small.features is None
    assert refused >= 30


def test_explanations_from_seeds() -> None:
    """From a weak AXp (CXp), an AXp (CXp) inside it; a seed that is none is refused."""
    from xpg.errors import InvalidSeedError

    for dl, x in _cases(9, 20, None):
        truth = _truth(dl, x)
        with _explained(dl, x) as ex:
            for axp in truth.axps:
                seed = sorted(axp | {ex.features[0]})
                found = frozenset(ex.axp(seed))
                assert found in truth.axps and found <= set(seed)
            for cxp in truth.cxps:
                seed = sorted(cxp | {ex.features[-1]})
                found = frozenset(ex.cxp(seed))
                assert found in truth.cxps and found <= set(seed)
            if truth.cxps and frozenset() not in truth.axps:
                with pytest.raises(InvalidSeedError, match="not a weak AXp"):
                    ex.axp([])


def test_the_rule_that_always_fires_and_constant_lists() -> None:
    feats = [Feature.boolean("a"), Feature.integer("n", 0, 5)]
    always = DecisionList(
        feats,
        ["x", "y", "z"],
        [Rule([Literal.eq("a", 1)], "y"), Rule([], "x"), Rule([Literal.gt("n", 2)], "z")],
        "z",
    )
    with _explained(always, {"a": 0, "n": 4}) as ex:
        # the empty rule decides whenever a = 0: class z is never reached
        assert ex.prediction == "x"
        assert ex.axp() == ("a",) and ex.cxp() == ("a",)
        assert ex.enumerate().axps == [("a",)]
    constant = DecisionList(feats, ["x", "y"], [Rule([Literal.eq("a", 1)], "x")], "x")
    with _explained(constant, {"a": 0, "n": 4}) as ex:
        assert ex.axp() == () and ex.cxp() is None
        result = ex.enumerate()
        assert result.complete and result.axps == [()] and result.cxps == []
        assert not ex.is_member("a").member


def test_oracle_cells_witnesses_and_cores() -> None:
    feats = [Feature.real("r"), Feature.categorical("c", ["p", "q", "s"]), Feature.boolean("b")]
    dl = DecisionList(
        feats,
        [0, 1],
        [
            Rule([Literal.gt("r", 2.5), Literal.isin("c", ["p", "q"])], 1),
            Rule([Literal.eq("b", 1)], 1),
        ],
        0,
    )
    space = ListSpace(dl, {"r": 3.0, "c": "q", "b": 0})
    assert space.n_cells == [2, 2, 2] and space.instance_cell == [1, 0, 0]
    with DecisionListOracle(space) as oracle:
        assert oracle.prediction_label == 1
        assert oracle.check([0, 1]) is None and oracle.last_core == [0, 1]
        witness = oracle.check([0, 2])
        assert witness is not None and witness.tolist() == [1, 1, 0]  # c moved only
        assert dl.predict(oracle.witness_values(witness)) == 0
        assert oracle.check_cells([[1], [0], None]) is None
        assert oracle.check_cells([[0, 1], [0], [0]]).tolist() == [0, 0, 0]
    with pytest.raises(Exception, match="closed"):
        oracle.check([])


def test_timeouts_say_what_was_decided() -> None:
    """A timeout of 0 stops each query at its first question: deterministic, whatever the
    machine's speed."""
    dl, x = next((d, x) for d, x in _cases(11, 40, None) if len(_truth(d, x).axps) > 1)
    with _explained(dl, x) as ex:
        name = ex.features[0]
        with pytest.raises(QueryTimeout, match="undecided after 0 s") as info:
            ex.is_member(name, timeout=0)
        assert info.value.partial is None
        with pytest.raises(QueryTimeout) as info:
            ex.classify_features(timeout=0)
        partial = info.value.partial
        assert sorted(sum(partial.values(), [])) == sorted(ex.features)
        assert partial["undecided"]
        with pytest.raises(QueryTimeout, match="no smallest AXP proved within 0 s"):
            ex.smallest_axp(timeout=0)
        result = ex.enumerate(timeout=0)
        assert not result.complete
        # the deadline does not outlive the query
        assert ex.oracle.deadline is None and ex.enumerate().complete


def test_budget_is_checked_while_building() -> None:
    """The builders stop at the budget: the node that would exceed it is never made."""
    mdd = MDDBuilder([3, 3], budget=4)
    leaves = [mdd.terminal(k) for k in range(3)]
    mdd.node(0, leaves)
    with pytest.raises(GraphTooLargeError, match="budget of 4 diagram nodes"):
        mdd.node(1, leaves[::-1])
    assert len(mdd.level) == 4
    bdd = bdd_manager([f"v{i}" for i in range(8)])
    u = bdd.false
    for i in range(0, 8, 2):
        u = u | (bdd.var(f"v{i}") & bdd.var(f"v{i + 1}"))
    check_size(bdd, 100)
    with pytest.raises(GraphTooLargeError):
        check_size(bdd, 5)


def test_a_long_list_is_refused_within_the_budget_and_explained_by_sat() -> None:
    dl = long_decision_list(60)
    with pytest.raises(GraphTooLargeError, match=r"\(60 rules\) is too large to compile"):
        dl.to_decision_graph()  # the default budget
    with pytest.raises(GraphTooLargeError, match="budget of 500 diagram nodes"):
        decision_list_to_mdd(dl, budget=500)
    boolean = DecisionList(
        dl.features,
        dl.classes,
        [Rule([c for c in r.conditions if c.feature != "n"], r.label) for r in dl.rules],
        0,
    )
    with pytest.raises(GraphTooLargeError, match="budget of 300 diagram nodes"):
        decision_list_to_obdd(boolean, budget=300)
    with pytest.raises(GraphTooLargeError):
        compile_decision_list(boolean, method="bdd", budget=300)
    x = {f.name: 0 for f in dl.features}
    with _explained(dl, x) as ex:
        axp = ex.axp()
        fixed = {n: x[n] for n in axp}
        rng = random.Random(3)
        for _ in range(200):  # an AXp keeps the class, whatever the other features are
            y = {
                f.name: fixed.get(f.name, rng.choice(f.values if f.is_discrete else [0, 16]))
                for f in dl.features
            }
            assert dl.predict(y) == ex.prediction
        result = ex.enumerate(limit=5)
        assert len(result.axps) + len(result.cxps) == 5 and not result.complete
        result = ex.enumerate()
        assert result.complete and frozenset(axp) in {frozenset(a) for a in result.axps}
