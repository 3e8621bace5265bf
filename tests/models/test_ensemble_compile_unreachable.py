"""Trees with leaves no value of the declared domains reaches (XGBoost and LightGBM split an
integer feature twice between the same two integers; a categorical split grafted with a cut
beyond the codes) compile into exact decision graphs: the unreachable leaves are left out."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from xpg.core.features import Feature
from xpg.explain.engine import Explainer
from xpg.models import BoostedTrees, Forest
from xpg.models.ensemble import TreeEnsemble
from xpg.models.ensemble_tree import EnsembleTree
from xpg.models.gbdt import GBDT
from xpg.testing import domain_values
from xpg.testing.oracle import Oracle

FEATURES = [Feature.integer("x", 0, 3), Feature.boolean("b"), Feature.categorical("c", [0, 1, 2])]


def _twice_between(n_scores: int, flip: bool) -> EnsembleTree:
    """x <= 1.5, then x <= 1.25 and x <= 1.75 on either side: only one side of each inner
    cut holds an integer, so two of the six leaves are unreachable; b and c below."""
    #        0: x<=1.5
    #   1: x<=1.25         6: x<=1.75
    #  2: b<=0.5  5:leaf*  7:leaf*  8: c<=2.0 (every code left)
    # 3 4                         9  10*
    feature = [0, 0, 1, -1, -1, -1, 0, -1, 2, -1, -1]
    threshold = [1.5, 1.25, 0.5, 0, 0, 0, 1.75, 0, 2.0, 0, 0]
    left = [1, 2, 3, -1, -1, -1, 7, -1, 9, -1, -1]
    right = [6, 5, 4, -1, -1, -1, 8, -1, 10, -1, -1]
    leaf_rows = {3: 0, 4: 1, 5: 3, 7: 3, 9: 2, 10: 3}
    value = np.zeros((11, n_scores))
    for node, k in leaf_rows.items():
        c = (k + 1) // 2 if flip else k  # the second tree's classes differ from the first's
        if n_scores == 1:
            value[node] = [(-1.0) ** c * (k + 1) * (0.375 if flip else 0.25)]
        else:  # one class per leaf (a pure leaf for a forest)
            value[node, c % n_scores] = 1.0 if n_scores == 2 else (k + 1) * 0.25
    return EnsembleTree(
        np.array(feature), np.array(threshold), np.array(left), np.array(right), value
    )


def _models() -> list[TreeEnsemble]:
    forest = Forest(
        FEATURES, ["n", "y"], [_twice_between(2, False), _twice_between(2, True)], [0, 0], 0.5
    )
    boosted = BoostedTrees(
        FEATURES, ["n", "y"], [_twice_between(1, False), _twice_between(1, True)], [0.125], 0.5
    )
    multi = BoostedTrees(
        FEATURES, [0, 1, 2], [_twice_between(3, False), _twice_between(3, True)], [0, 0, 0], 1.0
    )
    gbdt = GBDT(
        FEATURES,
        [0, 1, 2],
        [_twice_between(3, False), _twice_between(3, True)],
        [0.0] * 3,
        precision="float64",
        decision="softmax-argmax",
    )
    return [forest, boosted, multi, gbdt]


POINTS = list(itertools.product(*[domain_values(f) for f in FEATURES]))


@pytest.mark.parametrize("model", _models(), ids=lambda m: type(m).__name__)
def test_unreachable_leaves_compile_exactly(model: TreeEnsemble) -> None:
    dg = model.to_decision_graph()
    dg.validate()
    assert [dg.predict(list(p)) for p in POINTS] == [model.predict(list(p)) for p in POINTS]
    # every class is predicted somewhere: the graph is not trivially constant
    assert len({model.predict(list(p)) for p in POINTS}) > 1


@pytest.mark.parametrize("model", _models(), ids=lambda m: type(m).__name__)
def test_graph_explanations_equal_brute_force(model: TreeEnsemble) -> None:
    grid = {f.name: domain_values(f) for f in FEATURES}
    for p in POINTS[::5]:
        x = dict(zip(grid, p))
        oracle = Oracle.of_model(model.predict, FEATURES, grid, x)
        with Explainer(model, route="graph", shortcuts=False).explain(x) as ex:
            result = ex.enumerate()
        assert {frozenset(a) for a in result.axps} == oracle.axps, x
        assert {frozenset(c) for c in result.cxps} == oracle.cxps, x
