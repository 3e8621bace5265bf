"""Compilers: models -> :class:`~xpg.graph.DecisionGraph`, same classification function.

Decision trees (the project's own :class:`DecisionTree` and scikit-learn's), decision lists
(to reduced OBDDs with dd, or reduced ordered MDDs), OBDDs built with dd, OMDDs given node by
node, and feature groups (several columns declared as one feature).
"""

from xpg.compile.bdd import OBDD, BackendUnavailableError, bdd_manager, cofactors, from_bdd
from xpg.compile.decision_list import (
    DecisionList,
    Rule,
    compile_decision_list,
    decision_list_to_obdd,
)
from xpg.compile.groups import FeatureGroup, FeatureSpace
from xpg.compile.mdd import OMDD, MDDBuilder, feature_cells
from xpg.compile.sklearn_tree import float32_cut, from_sklearn_tree
from xpg.compile.tree import DecisionTree, Leaf, Split, compile_tree, tree_from_sklearn

__all__ = [
    "OBDD",
    "OMDD",
    "BackendUnavailableError",
    "DecisionList",
    "DecisionTree",
    "FeatureGroup",
    "FeatureSpace",
    "Leaf",
    "MDDBuilder",
    "Rule",
    "Split",
    "bdd_manager",
    "cofactors",
    "compile_decision_list",
    "compile_tree",
    "decision_list_to_obdd",
    "feature_cells",
    "float32_cut",
    "from_bdd",
    "from_sklearn_tree",
    "tree_from_sklearn",
]
