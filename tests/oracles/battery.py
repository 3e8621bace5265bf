"""One test battery for every implementation of :class:`xpg.explain.oracle_abc.Oracle`.

In the style of dd's ``tests/common.py``: the checks are written once, against the interface,
and ``test_battery.py`` runs them on every oracle.  A *case* is an oracle (made fresh by
``make()``) and the truth about its decision, a :class:`xpg.testing.Oracle` computed by
brute force through the model's own ``predict`` (or, for an explanation graph given as such,
by a breadth-first search written in the tests).  Every check fails when the oracle, or an
algorithm written over it, answers one question wrongly.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from xpg.explain.axp_cxp import find_axp, find_cxp
from xpg.explain.decision import Decision
from xpg.explain.marco import enumerate_explanations
from xpg.explain.oracle_abc import Oracle
from xpg.explain.smallest import smallest_axp, smallest_cxp
from xpg.testing import Oracle as Truth


@dataclass
class Case:
    """An oracle factory and the brute-force truth of its decision."""

    name: str
    make: Callable[[], Oracle]
    truth: Truth


def _named(oracle: Oracle, indices: Any) -> frozenset[str]:
    return frozenset(oracle.names[i] for i in indices)


def _weak_axp(truth: Truth, fixed: frozenset[str]) -> bool:
    return any(axp <= fixed for axp in truth.axps)


def check_questions(case: Case) -> None:
    """Every subset of the features: ``check`` answers None exactly for the weak AXps; a
    witness moves only free features, and what it moves is a weak CXp (meets every AXp)."""
    with case.make() as oracle:
        everything = range(oracle.n_features)
        tested = set(oracle.tested())
        assert set().union(*case.truth.axps, *case.truth.cxps) <= _named(oracle, tested)
        for r in range(oracle.n_features + 1):
            for fixed in itertools.combinations(everything, r):
                witness = oracle.check(list(fixed))
                expected_weak = _weak_axp(case.truth, _named(oracle, fixed))
                assert (witness is None) == expected_weak, (case.name, fixed)
                if witness is not None:
                    moved = oracle.changed(witness)
                    assert not moved & set(fixed), (case.name, fixed, moved)
                    assert all(axp & _named(oracle, moved) for axp in case.truth.axps), (
                        case.name,
                        fixed,
                        moved,
                    )
                free = [v for v in everything if v not in fixed]
                assert (oracle.check_free(free) is None) == expected_weak, (case.name, fixed)


def check_one_explanation(case: Case) -> None:
    """One AXp and one CXp, with and without seeds, are among the truth's."""
    truth = case.truth
    with case.make() as oracle:
        axp = frozenset(find_axp(oracle))
        assert axp in truth.axps, (case.name, axp)
        cxp = find_cxp(oracle)
        if truth.cxps:
            assert cxp is not None and frozenset(cxp) in truth.cxps, (case.name, cxp)
        else:
            assert cxp is None, (case.name, cxp)
        for axp_seed in truth.axps:  # deletion inside a wider weak AXp finds an AXp inside it
            wider = set(axp_seed) | set(oracle.names[:1])
            found = frozenset(find_axp(oracle, seed=sorted(wider)))
            assert found in truth.axps and found <= wider, (case.name, wider, found)
        for cxp_seed in truth.cxps:
            assert frozenset(find_cxp(oracle, seed=sorted(cxp_seed)) or ()) == cxp_seed


def check_enumeration(case: Case) -> None:
    """MARCO lists exactly the truth's AXps and CXps, and says it is complete."""
    with case.make() as oracle:
        result = enumerate_explanations(oracle)
    assert result.complete, case.name
    assert frozenset(map(frozenset, result.axps)) == case.truth.axps, case.name
    assert frozenset(map(frozenset, result.cxps)) == case.truth.cxps, case.name
    assert len(result.axps) == len(case.truth.axps), case.name  # no repeats


def check_membership_and_classes(case: Case) -> None:
    """Membership of every feature, for both kinds, with a witness of that kind holding it;
    and the feature classes, equal to the truth's."""
    truth = case.truth
    with Decision(case.make()) as decision:
        for name in decision.features:
            for kind in ("axp", "cxp"):
                answer = decision.is_member(name, kind)
                assert answer.member == (name in truth.members()), (case.name, name, kind)
                if answer.member:
                    assert answer.witness is not None and name in answer.witness
                    assert frozenset(answer.witness) in truth.of_kind(kind), (case.name, name)
        classes = decision.classify_features()
    assert set(classes.necessary) == truth.necessary(), case.name
    assert set(classes.relevant) == truth.members() - truth.necessary(), case.name


def check_smallest(case: Case) -> None:
    """Minimum-cardinality AXp and CXp: proved optimal, of the truth's smallest size."""
    truth = case.truth
    with case.make() as oracle:
        a = smallest_axp(oracle, method="implicit-hitting-set")
        c = smallest_cxp(oracle, method="implicit-hitting-set")
    assert a.optimal and c.optimal, case.name
    assert frozenset(a.features or ()) in truth.axps, case.name
    assert len(a.features or ()) == truth.smallest("axp"), case.name
    if truth.cxps:
        assert c.features is not None and frozenset(c.features) in truth.cxps, case.name
        assert len(c.features) == truth.smallest("cxp"), case.name
    else:
        assert c.features is None, case.name


#: every check of the battery, in the order they run
CHECKS = (
    check_questions,
    check_one_explanation,
    check_enumeration,
    check_membership_and_classes,
    check_smallest,
)
