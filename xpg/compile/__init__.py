"""Compilers' building blocks and adapters from foreign models into decision graphs.

dd's BDD managers behind one interface (:mod:`~xpg.compile.bdd`), hash-consed reduced
ordered MDDs (:mod:`~xpg.compile.mdd`) and scikit-learn trees read from their ``tree_``
arrays (:mod:`~xpg.compile.sklearn_tree`).  They depend on :mod:`xpg.core` only; each model
kind of :mod:`xpg.models` compiles itself with them (``to_decision_graph``).
"""

from xpg.compile.bdd import bdd_manager, cofactors
from xpg.compile.mdd import MDDBuilder
from xpg.compile.sklearn_tree import float32_cut, from_sklearn_tree

__all__ = ["MDDBuilder", "bdd_manager", "cofactors", "float32_cut", "from_sklearn_tree"]
