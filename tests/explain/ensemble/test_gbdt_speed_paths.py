"""The AXp fast path of tree ensembles (:mod:`xpg.explain.ensemble.quick`, the vote's cached
part) against brute force and the full oracle, path by path."""

from __future__ import annotations

import itertools
from collections import Counter
from typing import Any

import numpy as np
import pytest

import xpg.core.costs as costs
from xpg.core.features import Feature
from xpg.errors import InvalidSeedError
from xpg.explain.engine import Explainer
from xpg.explain.ensemble import quick
from xpg.explain.ensemble.oracle import EnsembleOracle
from xpg.explain.ensemble.quick import QuickOracle
from xpg.explain.ensemble.space import CellSpace
from xpg.explain.ensemble.vote import Vote, vote_part
from xpg.models.gbdt import GBDT
from xpg.testing import domain_values
from xpg.testing.ensembles import (
    ensemble_oracle,
    one_hot_forest,
    random_small_ensemble,
    random_tree,
)
from xpg.testing.oracle import Oracle


def _tree(rng: np.random.Generator, sizes: list[int], n_scores: int, column: int, dyadic: bool):
    def leaf(rng: np.random.Generator) -> list[float]:
        row = [0.0] * n_scores
        v = rng.integers(-8, 9) / 8 if dyadic else rng.normal()
        row[column] = float(np.float32(v))
        return row

    return random_tree(rng, sizes, leaf)


def _gbdt(seed: int, decision: str) -> GBDT:
    """A random XGBoost-like model: 3-4 integer features, one score per tree (float32)."""
    rng = np.random.default_rng(seed)
    sizes = [int(s) for s in rng.integers(2, 5, int(rng.integers(3, 5)))]
    feats = [Feature.integer(f"f{j}", 0, s - 1) for j, s in enumerate(sizes)]
    k = 2 if decision == "threshold" else 3
    n_scores = 1 if k == 2 else k
    trees = [
        _tree(rng, sizes, n_scores, t % n_scores, seed % 2 == 0)
        for t in range(n_scores * int(rng.integers(2, 6)))
    ]
    base = [float(np.float32(b)) for b in rng.normal(0, 0.5, n_scores)]
    options: dict[str, Any] = {}
    if decision == "threshold":
        options = {"cut": float(np.float32(rng.normal(0, 0.5))), "strict": bool(seed % 3)}
    return GBDT(feats, list(range(k)), trees, base, decision=decision, **options)  # type: ignore[arg-type]


def _instances(model: Any, seed: int, n: int = 3) -> list[dict[str, Any]]:
    rng = np.random.default_rng(seed)
    return [
        {f.name: domain_values(f)[int(rng.integers(len(domain_values(f))))] for f in model.features}
        for _ in range(n)
    ]


def _truth(model: Any, x: dict[str, Any]) -> Oracle:
    grid = {f.name: domain_values(f) for f in model.features}
    return Oracle.of_model(model.predict, model.features, grid, x)


def _spy(monkeypatch: pytest.MonkeyPatch, calls: Counter[str]) -> None:
    """Count each fast path's decisions (``name:answer``) and the full oracle's questions."""
    for name in ("point_witness", "exhaustive", "branch_and_bound"):
        real = getattr(QuickOracle, name)

        def spy(self: Any, *a: Any, _real: Any = real, _name: str = name) -> Any:
            got = _real(self, *a)
            calls[f"{_name}:{'none' if got is None else bool(got is not False)}"] += 1
            return got

        monkeypatch.setattr(QuickOracle, name, spy)
    real_check = EnsembleOracle.check

    def check(self: Any, *a: Any, **k: Any) -> Any:
        calls["full"] += 1
        return real_check(self, *a, **k)

    monkeypatch.setattr(EnsembleOracle, "check", check)


SETTINGS = {
    "default": {},
    "branch-and-bound": {"EXHAUSTIVE_LIMIT": 0},
    "full-oracle": {"EXHAUSTIVE_LIMIT": 0, "BNB_NODES": 0},
}
#: the decisions each setting must reach on some question (else the test proves nothing)
REACHED = {
    "default": ["point_witness:True", "exhaustive:True", "exhaustive:False"],
    "branch-and-bound": ["branch_and_bound:True", "branch_and_bound:False"],
    "full-oracle": ["branch_and_bound:none", "full"],
}


@pytest.mark.parametrize("setting", sorted(SETTINGS))
@pytest.mark.parametrize("decision", ["threshold", "argmax", "softmax-argmax"])
def test_the_axp_is_one_of_brute_force_on_every_path(
    decision: str, setting: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in SETTINGS[setting].items():
        monkeypatch.setattr(costs, name, value)
    calls: Counter[str] = Counter()
    _spy(monkeypatch, calls)
    checked = 0
    for seed in range(12):
        model = _gbdt(seed, decision)
        explainer = Explainer(model)
        for x in _instances(model, seed):
            truth = _truth(model, x)
            with explainer.explain(x) as decision_:
                assert isinstance(decision_.oracle, QuickOracle)
                axp = frozenset(decision_.axp())
                assert decision_.prediction == model.predict(x)
            assert axp in truth.axps, (seed, x, axp, truth.axps)
            checked += 1
    assert checked == 36
    missing = [path for path in REACHED[setting] if not calls[path]]
    assert not missing, (missing, calls)


@pytest.mark.parametrize("kind", ["forest", "extra-trees", "boosted", "tied-forest"])
def test_the_axp_is_one_of_brute_force_on_scikit_learn_ensembles(kind: str) -> None:
    for seed in range(10):
        est, feats, _ = random_small_ensemble(seed, kind)
        explainer = Explainer(est, feats)
        for x in _instances(explainer.model, seed, 2):
            truth = ensemble_oracle(est, feats, x)
            with explainer.explain(x) as decision:
                assert frozenset(decision.axp()) in truth.axps, (kind, seed, x)


def test_the_prediction_is_the_models_on_every_point() -> None:
    checked = 0
    for seed in range(6):
        for decision in ("threshold", "softmax-argmax"):
            model = _gbdt(seed, decision)
            grid = itertools.product(*[domain_values(f) for f in model.features])
            for values in grid:
                x = dict(zip([f.name for f in model.features], values, strict=True))
                with QuickOracle(CellSpace(model, x)) as oracle:
                    assert oracle.prediction_label == model.predict(x)
                checked += 1
    assert checked > 200


def test_the_deletion_order_is_the_leaf_searchs() -> None:
    """On dyadic leaves (exact sums) the incremental order equals the one computed feature
    by feature."""
    compared = 0
    for seed in range(0, 20, 2):
        for decision in ("threshold", "argmax"):
            model = _gbdt(seed, decision)
            for x in _instances(model, seed, 2):
                space = CellSpace(model, x)
                with QuickOracle(space) as fast, EnsembleOracle(space) as full:
                    tested = fast.tested()
                    for r in range(2, len(tested) + 1):
                        for fixed in itertools.combinations(tested, r):
                            got = fast.deletion_order(list(fixed))
                            assert got == full.deletion_order(list(fixed)), (seed, fixed)
                            compared += 1
    assert compared > 100


def test_groups_give_an_axp_the_solver_confirms() -> None:
    """One-hot groups (unordered cells): the AXp is sufficient and subset-minimal by the
    solver alone (no shortcut)."""
    checked = 0
    for seed in range(8):
        model, groups, _ = one_hot_forest(seed)
        for x in ({"colour": "grey", "size": "m", "a": 1}, {"colour": "red", "size": "s", "a": 0}):
            with Explainer(model, groups=groups).explain(x) as decision:
                axp = [decision.oracle.index(n) for n in decision.axp()]
            with EnsembleOracle(CellSpace(model, x, groups), shortcuts=False) as solver:
                assert solver.check(axp) is None
                assert all(solver.check([u for u in axp if u != v]) is not None for v in axp)
            checked += 1
    assert checked == 16


def test_seeds_and_the_other_queries() -> None:
    """A seed is checked and shrunk; CXps and enumerations go to the full oracle, which
    takes the deadline and whose counts the oracle reports."""
    seen = 0
    for seed in range(8):
        model = _gbdt(seed, "softmax-argmax")
        for x in _instances(model, seed, 2):
            truth = _truth(model, x)
            with Explainer(model).explain(x) as decision:
                oracle = decision.oracle
                for axp in truth.axps:
                    assert frozenset(decision.axp(seed=sorted(axp))) == axp
                if frozenset() not in truth.axps:
                    with pytest.raises(InvalidSeedError):
                        decision.axp(seed=[])
                    seen += 1
                result = decision.enumerate()
                assert {frozenset(a) for a in result.axps} == truth.axps
                assert {frozenset(c) for c in result.cxps} == truth.cxps
                assert oracle.full_made and oracle.calls >= oracle.full.calls > 0
                oracle.deadline = 12.5
                assert oracle.full.deadline == 12.5
                oracle.deadline = None
    assert seen > 5


def test_the_vote_part_is_shared_and_stacks_the_pairs() -> None:
    model = _gbdt(1, "softmax-argmax")
    a, b = (CellSpace(model, x) for x in _instances(model, 1, 2))
    for p in range(3):
        part = vote_part(a.layout, p)
        va, vb = Vote(a, p), Vote(b, p)
        assert va.pairs is vb.pairs is part.pairs and va.space is a and vb.space is b
        assert [pair.cls for pair in part.pairs] == [c for c in range(3) if c != p]
        for q, pair in enumerate(part.pairs):
            assert np.array_equal(part.u[q], pair.u) and part.const[q] == float(pair.const)
            assert part.strict[q] == pair.strict == (pair.cls > p)


def test_padded_rows_hold_each_trees_leaves() -> None:
    model = _gbdt(3, "argmax")
    layout = CellSpace(model, _instances(model, 3, 1)[0]).layout
    pad, u = quick.padded(layout, 0)
    table = vote_part(layout, 0).table
    for t in range(len(model.trees)):
        leaves = pad[:, t][pad[:, t] < table.start[-1]]
        assert leaves.tolist() == list(range(table.start[t], table.start[t + 1]))
        assert np.isneginf(u[:, len(leaves) :, t]).all()
