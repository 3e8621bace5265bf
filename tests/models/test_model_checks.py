"""The model classes refuse ill-formed parts when they are built, each with its own message."""

from __future__ import annotations

import pytest

from xpg import FeatureGroup, decision_list_to_obdd
from xpg.core.features import Feature, Literal
from xpg.errors import InvalidModelError
from xpg.models.decision_list import DecisionList, Rule
from xpg.models.omdd import OMDD
from xpg.models.tree import DecisionTree, Leaf, Split


def test_programmatic_models_refuse_bad_parts() -> None:
    feats = [Feature.boolean("a"), Feature.integer("n", 0, 2)]
    with pytest.raises(InvalidModelError, match="unknown feature 'z'"):
        DecisionList(feats, [0, 1], [Rule([Literal.eq("z", 1)], 1)], 0)
    with pytest.raises(InvalidModelError, match="outside the domain"):
        DecisionList(feats, [0, 1], [Rule([Literal.eq("a", 2)], 1)], 0)
    with pytest.raises(InvalidModelError, match="expected a value set"):
        DecisionList(feats, [0, 1], [Rule([Literal.le("a", 0)], 1)], 0)
    with pytest.raises(InvalidModelError, match="unknown feature 'z'"):
        DecisionTree(feats, [0, 1], Split("z", [(Literal.eq("z", 1), Leaf(1))]))
    with pytest.raises(InvalidModelError, match="class 5 is not declared"):
        DecisionTree(feats, [0, 1], Leaf(5))
    with pytest.raises(InvalidModelError, match="finite domain"):
        OMDD([Feature.real("x")], [0])
    om = OMDD(feats, [0, 1], order=["n", "a"])
    om.add_terminal("t", 0)
    with pytest.raises(InvalidModelError, match="two children"):
        om.add_node("r", "a", [([0, 1], "t"), ([1], "t")])
    with pytest.raises(InvalidModelError, match="declared twice"):
        om.add_terminal("t", 1)
    with pytest.raises(InvalidModelError, match="boolean features"):
        decision_list_to_obdd(DecisionList(feats, [0, 1], [Rule([Literal.eq("n", 1)], 1)], 0))
    with pytest.raises(InvalidModelError, match="order"):
        from xpg.models.decision_list import compile_decision_list

        compile_decision_list(
            DecisionList(feats, [0, 1], [Rule([Literal.eq("n", 1)], 1)], 0), order=["a"]
        )
    with pytest.raises(InvalidModelError, match="impossible combination"):
        FeatureGroup.one_hot("c", ["p", "q"]).decode([1, 1])
    with pytest.raises(InvalidModelError, match="overlap"):
        FeatureGroup(
            Feature.categorical("c", ["p", "q"]),
            ("c1",),
            ((frozenset(["p", "q"]), (0.0,)), (frozenset(["q"]), (1.0,))),
        )
    with pytest.raises(InvalidModelError, match="no cell holds"):
        FeatureGroup(Feature.categorical("c", ["p", "q"]), ("c1",), ((frozenset(["p"]), (0.0,)),))
