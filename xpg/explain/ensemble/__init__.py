"""Exact explanations of tree ensembles (random forests, extra trees, gradient boosting).

:mod:`~xpg.explain.ensemble.space` (the cells between the thresholds, feature groups),
:mod:`~xpg.explain.ensemble.oracle` (the incremental SAT/SMT oracle "can another class be
predicted with these features fixed?"), :mod:`~xpg.explain.ensemble.queries` (AXps, CXps,
MARCO, membership, smallest over the oracle) and :mod:`~xpg.explain.ensemble.explainer`
(:class:`EnsembleExplainer`, one instance, every query, one of three routes; its queries live
in :class:`OracleExplainer`, which :class:`~xpg.explain.list_oracle.DecisionListExplainer`
shares).
"""

from typing import TYPE_CHECKING

from xpg.core import lazy as _lazy

if TYPE_CHECKING:
    from xpg.explain.ensemble.explainer import EnsembleExplainer, OracleExplainer, QueryTimeout
    from xpg.explain.ensemble.oracle import EnsembleOracle
    from xpg.explain.ensemble.space import CellSpace

_LAZY = {
    "CellSpace": "xpg.explain.ensemble.space",
    "EnsembleExplainer": "xpg.explain.ensemble.explainer",
    "EnsembleOracle": "xpg.explain.ensemble.oracle",
    "OracleExplainer": "xpg.explain.ensemble.explainer",
    "QueryTimeout": "xpg.explain.ensemble.explainer",
}

__all__ = ["CellSpace", "EnsembleExplainer", "EnsembleOracle", "OracleExplainer", "QueryTimeout"]

__getattr__, __dir__ = _lazy.reexports(__name__, _LAZY, globals())
