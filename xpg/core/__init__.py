"""The data structures every explanation is computed on.

:mod:`~xpg.core.features` (features, their domains, literals), :mod:`~xpg.core.valuesets`
(value sets and cells), :mod:`~xpg.core.graph` (:class:`DecisionGraph`, instance-independent,
validated against Def. 2 of the core paper), :mod:`~xpg.core.xpgraph`
(:class:`ExplanationGraph`, one instance, built in one vectorised pass) and
:mod:`~xpg.core.instances` (an instance checked against a model's features) and
:mod:`~xpg.core.feature_space` (several columns of a data set declared as one feature).
"""

from xpg.core.feature_space import FeatureGroup, FeatureSpace
from xpg.core.features import Feature, Literal, ValueSet, real_features
from xpg.core.graph import DecisionGraph
from xpg.core.instances import instance_dict
from xpg.core.xpgraph import ExplanationGraph

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
