"""Compilers: models -> :class:`~xpg.graph.DecisionGraph`, same classification function."""

from xpg.compile.sklearn_tree import float32_cut, from_sklearn_tree

__all__ = ["float32_cut", "from_sklearn_tree"]
