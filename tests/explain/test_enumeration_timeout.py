"""A timeout stops an enumeration cleanly (issue 13, item 5): one watchdog per enumeration,
``complete`` False, and every explanation returned before the stop is a true AXp or CXp."""

from __future__ import annotations

import random
import threading
from collections.abc import Iterator
from typing import Any

import pytest

import xpg.core.costs as costs
import xpg.explain.marco
from xpg import Enumerator, ExplanationGraph, enumerate_explanations, is_weak_axp, is_weak_cxp
from xpg.core.features import Feature
from xpg.models.obdd import from_bdd
from xpg.testing import dnf_obdd, random_cases

ROUTES = ["masks", "graph"]


def _route(monkeypatch: pytest.MonkeyPatch, route: str) -> None:
    monkeypatch.setattr(costs, "MASK_EDGES", 10**9 if route == "masks" else -1)


def _or_of_ands(terms: int, width: int) -> ExplanationGraph:
    """``OR`` of ``terms`` disjoint ``AND``s of ``width`` features, all features 0: the AXps
    pick one feature per term (``width ** terms`` of them), the CXps are the terms."""
    names = [f"t{i}v{j}" for i in range(terms) for j in range(width)]
    bdd, u = dnf_obdd([[(f"t{i}v{j}", True) for j in range(width)] for i in range(terms)], names)
    dg = from_bdd(u, [Feature.boolean(n) for n in names])
    return ExplanationGraph.from_decision_graph(dg, [0] * len(names))


def _is_axp(xg: ExplanationGraph, names: tuple[str, ...]) -> bool:
    """Sufficient, and no feature can be left out."""
    fixed = {xg.var_names.index(n) for n in names}
    return is_weak_axp(xg, fixed) and not any(is_weak_axp(xg, fixed - {v}) for v in fixed)


def _is_cxp(xg: ExplanationGraph, names: tuple[str, ...]) -> bool:
    """Changes the prediction when freed, and no feature can be left out."""
    free = {xg.var_names.index(n) for n in names}
    return is_weak_cxp(xg, free) and not any(is_weak_cxp(xg, free - {v}) for v in free)


@pytest.mark.parametrize("route", ROUTES)
def test_a_timeout_stops_a_long_enumeration(route: str, monkeypatch: pytest.MonkeyPatch) -> None:
    _route(monkeypatch, route)
    # 177,147 AXps, 11 CXps: 4 s to list them all on the faster route of a quiet machine, so a
    # second is short of the end on any machine, and long enough for some on a busy one
    xg = _or_of_ands(11, 3)
    result = enumerate_explanations(xg, timeout=1.0)
    found = len(result.axps) + len(result.cxps)
    assert result.complete is False
    assert 0 < found < 3**11 + 11
    terms = [{f"t{i}v{j}" for j in range(3)} for i in range(11)]
    for axp in result.axps:
        assert sorted(len(set(axp) & t) for t in terms) == [1] * 11
    for cxp in result.cxps:
        assert set(cxp) in terms
    assert len(set(result.axps)) == len(result.axps) and len(set(result.cxps)) == len(result.cxps)
    sample = random.Random(0).sample(result.axps, min(20, len(result.axps)))
    assert all(_is_axp(xg, a) for a in sample) and all(_is_cxp(xg, c) for c in result.cxps)


@pytest.mark.parametrize("route", ROUTES)
def test_a_zero_timeout_finds_nothing(route: str, monkeypatch: pytest.MonkeyPatch) -> None:
    _route(monkeypatch, route)
    result = enumerate_explanations(_or_of_ands(3, 2), timeout=0.0)
    assert (result.axps, result.cxps, result.complete) == ([], [], False)


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("tree", [True, False], ids=["tree", "dag"])
def test_whatever_a_timeout_leaves_is_exact(
    route: str, tree: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On 150 random XpGs per case, under timeouts that stop anywhere: every explanation is
    one of the oracle's, none twice, and ``complete`` means all of them."""
    _route(monkeypatch, route)
    rng = random.Random(f"timeout-{route}-{tree}")
    stopped = 0
    for xg, truth in random_cases(rng, tree, 150, max_vars=8, max_internal=20):
        result = enumerate_explanations(xg, timeout=rng.choice([0.0, 1e-5, 1e-4, 1e-3, 10.0]))
        axps = {frozenset(a) for a in result.axps}
        cxps = {frozenset(c) for c in result.cxps}
        assert len(axps) == len(result.axps) and len(cxps) == len(result.cxps)
        assert axps <= truth.axps and cxps <= truth.cxps
        if result.complete:
            assert (axps, cxps) == (truth.axps, truth.cxps)
        else:
            stopped += 1
    assert stopped > 0


class _StuckSolver:
    """A solver whose ``solve_limited`` runs until it is interrupted (a SAT call that would
    never end), wrapped around a real one for everything else."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.interrupted = threading.Event()
        self.calls = 0

    def solve_limited(self, expect_interrupt: bool = False) -> bool | None:
        assert expect_interrupt
        self.calls += 1
        if self.calls == 1:
            return bool(self.inner.solve())
        assert self.interrupted.wait(timeout=30)
        return None

    def interrupt(self) -> None:
        self.interrupted.set()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


@pytest.mark.slow
def test_the_watchdog_interrupts_a_sat_call_and_stops(monkeypatch: pytest.MonkeyPatch) -> None:
    _route(monkeypatch, "graph")
    new_solver = xpg.explain.marco._new_solver
    solvers: list[_StuckSolver] = []

    def stuck(name: str) -> _StuckSolver:
        solvers.append(_StuckSolver(new_solver(name)))
        return solvers[-1]

    monkeypatch.setattr(xpg.explain.marco, "_new_solver", stuck)
    xg = _or_of_ands(3, 2)
    # long enough for the first SAT call on a busy machine; the second never ends by itself
    with Enumerator(xg, timeout=3.0) as en:
        found = list(en)
    assert solvers[0].interrupted.is_set() and solvers[0].calls == 2
    assert len(found) == 1 and en.complete is False
    (first,) = found
    assert (_is_axp if first.kind == "axp" else _is_cxp)(xg, first.features)


def _new_threads(before: set[threading.Thread]) -> Iterator[threading.Thread]:
    for t in set(threading.enumerate()) - before:
        t.join(timeout=5)
        yield t


def test_the_watchdog_ends_with_the_enumeration() -> None:
    """Finished, stopped by a limit, or abandoned half-way: no watchdog thread is left."""
    before = set(threading.enumerate())
    xg = _or_of_ands(4, 3)
    assert enumerate_explanations(xg, timeout=60).complete
    assert not enumerate_explanations(xg, timeout=60, limit=5).complete
    with Enumerator(xg, timeout=60) as en:
        it = iter(en)
        next(it)
    assert en.closed
    assert not any(t.is_alive() for t in _new_threads(before))
