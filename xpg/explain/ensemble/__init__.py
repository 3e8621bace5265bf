"""Exact explanations of tree ensembles (random forests, extra trees, gradient boosting).

:mod:`~xpg.explain.ensemble.space` (the cells between the thresholds, feature groups) and
:mod:`~xpg.explain.ensemble.oracle` (the incremental SAT/SMT oracle "can another class be
predicted with these features fixed?", an :class:`~xpg.explain.oracle_abc.Oracle`, with its
parts in the other modules here).  The queries are those of every model
(:class:`~xpg.Explainer`); ``EnsembleExplainer`` is kept as a deprecated alias.
"""

from typing import TYPE_CHECKING

from xpg.core import lazy as _lazy

if TYPE_CHECKING:
    from xpg.explain.decision import QueryTimeout
    from xpg.explain.deprecated import EnsembleExplainer, OracleExplainer
    from xpg.explain.ensemble.oracle import EnsembleOracle
    from xpg.explain.ensemble.space import CellSpace

_LAZY = {
    "CellSpace": "xpg.explain.ensemble.space",
    "EnsembleExplainer": "xpg.explain.deprecated",
    "EnsembleOracle": "xpg.explain.ensemble.oracle",
    "OracleExplainer": "xpg.explain.deprecated",
    "QueryTimeout": "xpg.explain.decision",
}

__all__ = ["CellSpace", "EnsembleExplainer", "EnsembleOracle", "OracleExplainer", "QueryTimeout"]

__getattr__, __dir__ = _lazy.reexports(__name__, _LAZY, globals())
