"""The model kinds xpg explains, each a class in its own module.

:mod:`~xpg.models.tree` (decision trees), :mod:`~xpg.models.decision_list` (decision lists),
:mod:`~xpg.models.obdd` (OBDDs built with dd), :mod:`~xpg.models.omdd` (OMDDs given node by
node) and :mod:`~xpg.models.feature_space` (several columns declared as one feature).
"""

from xpg.models.decision_list import DecisionList, Rule
from xpg.models.feature_space import FeatureGroup, FeatureSpace
from xpg.models.obdd import OBDD, from_bdd
from xpg.models.omdd import OMDD
from xpg.models.tree import DecisionTree, Leaf, Split, compile_tree

__all__ = [
    "OBDD",
    "OMDD",
    "DecisionList",
    "DecisionTree",
    "FeatureGroup",
    "FeatureSpace",
    "Leaf",
    "Rule",
    "Split",
    "compile_tree",
    "from_bdd",
]
