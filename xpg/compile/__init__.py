"""Compilers: adapters from models into :class:`~xpg.core.graph.DecisionGraph`.

scikit-learn trees (:mod:`~xpg.compile.sklearn_tree`), dd's BDD managers
(:mod:`~xpg.compile.bdd`), hash-consed reduced ordered MDDs (:mod:`~xpg.compile.mdd`) and
decision lists to OBDDs or MDDs (:mod:`~xpg.compile.decision_list`).
"""

from xpg.compile.bdd import bdd_manager, cofactors
from xpg.compile.decision_list import compile_decision_list, decision_list_to_obdd
from xpg.compile.mdd import MDDBuilder
from xpg.compile.sklearn_tree import float32_cut, from_sklearn_tree, tree_from_sklearn

__all__ = [
    "MDDBuilder",
    "bdd_manager",
    "cofactors",
    "compile_decision_list",
    "decision_list_to_obdd",
    "float32_cut",
    "from_sklearn_tree",
    "tree_from_sklearn",
]
