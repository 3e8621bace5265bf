"""Queries on an explanation graph: algorithms are plain functions over the graph.

:mod:`~xpg.explain.reach` (Alg. 1, pathToZero), :mod:`~xpg.explain.axp_cxp` (Algs. 2-3,
findAXp and findCXp), :mod:`~xpg.explain.marco` (Alg. 4, enumeration), :mod:`~xpg.explain.tree_xpg`
(polynomial algorithms on tree XpGs, Prop. 6), :mod:`~xpg.explain.membership` (Props. 7-9),
:mod:`~xpg.explain.relevance` (necessary, relevant, irrelevant features),
:mod:`~xpg.explain.smallest` (minimum explanations), :mod:`~xpg.explain.describe` (conditions
and counterexamples in the words of the model), :mod:`~xpg.explain.batch` (many rows, one
record each) and :mod:`~xpg.explain.parallel` (those rows on processes or a Dask cluster).
"""

from xpg.explain.axp_cxp import find_axp, find_cxp, is_weak_axp, is_weak_cxp
from xpg.explain.batch import explain_many
from xpg.explain.describe import axp_conditions, counterexample
from xpg.explain.marco import EnumerationResult, Enumerator, Explanation, enumerate_explanations
from xpg.explain.membership import (
    Membership,
    MembershipQueries,
    RouteChoice,
    is_member,
    membership_route,
)
from xpg.explain.reach import path_to_zero
from xpg.explain.relevance import FeatureClassification, classify_features
from xpg.explain.smallest import SmallestExplanation, smallest_axp, smallest_cxp
from xpg.explain.tree_xpg import tree_axps, tree_cxps

__all__ = [
    "EnumerationResult",
    "Enumerator",
    "Explanation",
    "FeatureClassification",
    "Membership",
    "MembershipQueries",
    "RouteChoice",
    "SmallestExplanation",
    "axp_conditions",
    "classify_features",
    "counterexample",
    "enumerate_explanations",
    "explain_many",
    "find_axp",
    "find_cxp",
    "is_member",
    "is_weak_axp",
    "is_weak_cxp",
    "membership_route",
    "path_to_zero",
    "smallest_axp",
    "smallest_cxp",
    "tree_axps",
    "tree_cxps",
]
