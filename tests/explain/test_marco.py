"""MARCO enumeration as a stream: one result at a time, and budgets that stop it cleanly."""

from __future__ import annotations

from xpg import Enumerator, ExplanationGraph, enumerate_explanations
from xpg.testing import ladder


def _parity(n: int) -> ExplanationGraph:
    """Parity of n bits: one AXp (all bits), n CXps (each bit)."""
    return ExplanationGraph.from_decision_graph(ladder(n, "p"), [0] * n)


def test_enumeration_streams_and_stops_cleanly() -> None:
    xg = _parity(12)
    with Enumerator(xg) as en:
        it = iter(en)
        first = next(it)
        # streamed: one result out, the rest not computed yet
        assert len(en.axps) + len(en.cxps) == 1 and not en.complete
        assert first.features in en.axps + en.cxps
        rest = list(it)
    assert en.complete and len(rest) == 12
    full = enumerate_explanations(xg)
    assert sorted(full.cxps) == sorted((f"p{i}",) for i in range(12)) and len(full.axps) == 1
    for limit in (1, 5, 12, 13):
        part = enumerate_explanations(xg, limit=limit)
        assert len(part.axps) + len(part.cxps) == limit
        assert part.complete is False  # stopped by the budget
        assert set(part.cxps) <= set(full.cxps) and set(part.axps) <= set(full.axps)
    assert enumerate_explanations(xg, limit=14).complete  # the budget was not reached
