"""The data structures every explanation is computed on.

:mod:`~xpg.core.features` (features, their domains, literals), :mod:`~xpg.core.valuesets`
(value sets and cells), :mod:`~xpg.core.graph` (:class:`DecisionGraph`, instance-independent,
validated against Def. 2 of the core paper), :mod:`~xpg.core.xpgraph`
(:class:`ExplanationGraph`, one instance, built in one vectorised pass over the graph's
:mod:`~xpg.core.edge_table`; its :mod:`~xpg.core.traversal` structures and
:mod:`~xpg.core.cycles` checks), :mod:`~xpg.core.instances` (an instance checked against a
model's features), :mod:`~xpg.core.feature_space` (several columns of a data set declared as
one feature), :mod:`~xpg.core.json_body` and :mod:`~xpg.core.model_checks` (what every model
kind reads and checks), :mod:`~xpg.core.float32` (scikit-learn's float32 thresholds),
:mod:`~xpg.core.costs` (every tuned threshold that chooses between two implementations),
:mod:`~xpg.core.validation` (one vocabulary for parameters, one seed normaliser) and
:mod:`~xpg.core.signals`.
The names below are imported on first use (:mod:`~xpg.core.lazy`), so that importing one module
of the package loads no other.
"""

from typing import TYPE_CHECKING

from xpg.core import lazy as _lazy

if TYPE_CHECKING:
    from xpg.core.feature_space import FeatureGroup, FeatureSpace
    from xpg.core.features import Feature, Literal, ValueSet, real_features
    from xpg.core.graph import DecisionGraph
    from xpg.core.instances import instance_dict
    from xpg.core.xpgraph import ExplanationGraph

_LAZY = {
    "DecisionGraph": "xpg.core.graph",
    "ExplanationGraph": "xpg.core.xpgraph",
    "Feature": "xpg.core.features",
    "FeatureGroup": "xpg.core.feature_space",
    "FeatureSpace": "xpg.core.feature_space",
    "Literal": "xpg.core.features",
    "ValueSet": "xpg.core.features",
    "instance_dict": "xpg.core.instances",
    "real_features": "xpg.core.features",
}

__all__ = [
    "DecisionGraph",
    "ExplanationGraph",
    "Feature",
    "FeatureGroup",
    "FeatureSpace",
    "Literal",
    "ValueSet",
    "instance_dict",
    "real_features",
]

__getattr__, __dir__ = _lazy.reexports(__name__, _LAZY, globals())
