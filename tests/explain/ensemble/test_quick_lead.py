"""The AXp deletion's shortcuts in xpg.explain.ensemble.quick: the lead of the deletion order
freed at once (the same features as one at a time), the per-cell leaf table, and the
per-feature excluded leaves."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from xpg.explain.ensemble import quick
from xpg.explain.ensemble.leaf_table import leaf_table
from xpg.explain.ensemble.quick import QuickDeletion, QuickOracle, cell_allowed
from xpg.explain.ensemble.space import CellSpace
from xpg.models.ensemble_import import ensemble_from_sklearn
from xpg.testing.ensembles import random_sklearn_ensemble


def _spaces(kind: Any, seeds: range) -> list[CellSpace]:
    out = []
    for seed in seeds:
        est, features, points = random_sklearn_ensemble(seed, kind, n_trees=12)
        model = ensemble_from_sklearn(est, features)
        out += [CellSpace(model, list(p)) for p in points[:3]]
    return out


@pytest.mark.parametrize("kind", ["forest", "boosted"])
def test_the_lead_freed_at_once_is_what_one_at_a_time_frees(
    kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    leads: list[int] = []
    real = QuickDeletion._free_lead

    def spy(self: Any, order: list[int], most: int) -> int:
        got = real(self, order, most)
        leads.append(got)
        return got

    monkeypatch.setattr(QuickDeletion, "_free_lead", spy)
    compared = 0
    for space in _spaces(kind, range(8)):
        with QuickOracle(space) as fast, QuickOracle(space) as slow:
            session = fast.deletion(fast.tested())
            assert isinstance(session, QuickDeletion)
            order = fast.deletion_order(session.fixed)
            session.free_each(order)
            one = slow.deletion(slow.tested())
            assert isinstance(one, QuickDeletion)
            for v in slow.deletion_order(one.fixed):
                one.free_one(v)  # never the lead: one question a feature
            assert session.fixed == one.fixed, (kind, order)
            assert np.array_equal(session._count, one._count)
            assert np.array_equal(session._bounds, one._bounds)
            assert fast.calls == slow.calls
            compared += 1
    assert compared == 24
    assert any(k > 1 for k in leads), leads  # the lead freed several at once


def test_the_cell_table_is_the_leaf_boxes() -> None:
    for space in _spaces("forest", range(3)):
        allowed, first = cell_allowed(space.layout)
        table = leaf_table(space.layout)
        for i, n in enumerate(space.n_cells):
            for c in range(n):
                inside = (table.lo[:, i] <= c) & (table.hi[:, i] > c)
                assert np.array_equal(allowed[first[i] + c], inside)
        assert first[-1] == sum(space.n_cells) == len(allowed)


def test_excluded_leaves_and_the_witness_point_read_the_cell_table() -> None:
    for space in _spaces("boosted", range(3)):
        with QuickOracle(space) as oracle:
            inst = np.asarray(space.instance_cell)
            expected = quick.excluding(leaf_table(space.layout), inst)
            assert np.array_equal(oracle._dis, expected)
            for v in range(len(space.features)):
                assert oracle.excluded(v).tolist() == np.flatnonzero(expected[:, v]).tolist()
            # the instance's own cells: the model's own class
            assert not oracle.others(inst.copy())


@pytest.mark.parametrize("kind", ["forest", "boosted", "extra-trees"])
def test_the_first_bound_reads_the_instances_own_leaves(kind: str) -> None:
    checked = 0
    for space in _spaces(kind, range(5)):
        with QuickOracle(space) as oracle:
            session = oracle.deletion(oracle.tested())
            assert isinstance(session, QuickDeletion)
            assert np.array_equal(session._top, oracle.tops(session._count == 0))
            assert len(oracle._own) == len(space.model.trees)
            checked += 1
    assert checked == 15
