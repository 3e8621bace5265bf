"""Explanations of decisions: one explainer (:mod:`~xpg.explain.engine`, ``Explainer``) over
one question (:mod:`~xpg.explain.oracle_abc`, the ``Oracle`` interface), its algorithms
written once and callable as plain functions over an explanation graph or any oracle.

:mod:`~xpg.explain.reach` (Alg. 1, pathToZero), :mod:`~xpg.explain.axp_cxp` (Algs. 2-3,
findAXp and findCXp), :mod:`~xpg.explain.marco` (Alg. 4, enumeration), :mod:`~xpg.explain.tree_xpg`
(polynomial algorithms on tree XpGs, Prop. 6), :mod:`~xpg.explain.membership` (Props. 7-9),
:mod:`~xpg.explain.relevance` (necessary, relevant, irrelevant features),
:mod:`~xpg.explain.smallest` (minimum explanations), :mod:`~xpg.explain.describe` (conditions
and counterexamples in the words of the model), :mod:`~xpg.explain.exact_robustness` (exact
l-infinity robustness of a decision graph), :mod:`~xpg.explain.batch` (many rows, one record
each) and :mod:`~xpg.explain.parallel` (those rows on processes or a Dask cluster).

Each name is imported on first use (:mod:`xpg.core.lazy`): enumeration loads neither
membership nor the smallest-explanation solvers.
"""

from typing import TYPE_CHECKING

from xpg.core import lazy as _lazy

if TYPE_CHECKING:
    from xpg.explain.axp_cxp import find_axp, find_cxp, is_weak_axp, is_weak_cxp
    from xpg.explain.decision import Decision, QueryTimeout
    from xpg.explain.describe import axp_conditions, counterexample
    from xpg.explain.engine import Explainer, explain_many
    from xpg.explain.exact_robustness import Robustness, robustness
    from xpg.explain.marco import EnumerationResult, Enumerator, Explanation, enumerate_explanations
    from xpg.explain.membership import (
        Membership,
        MembershipQueries,
        RouteChoice,
        is_member,
        membership_route,
    )
    from xpg.explain.oracle_abc import Oracle
    from xpg.explain.reach import path_to_zero
    from xpg.explain.relevance import FeatureClassification, classify_features
    from xpg.explain.smallest import SmallestExplanation, smallest_axp, smallest_cxp
    from xpg.explain.tree_xpg import tree_axps, tree_cxps

_LAZY = {
    "FeatureAttribution": "xpg.explain.attribution",
    "feature_attribution": "xpg.explain.attribution",
    "InflatedExplanation": "xpg.explain.inflate",
    "find_axp": "xpg.explain.axp_cxp",
    "find_cxp": "xpg.explain.axp_cxp",
    "is_weak_axp": "xpg.explain.axp_cxp",
    "is_weak_cxp": "xpg.explain.axp_cxp",
    "explain_many": "xpg.explain.engine",
    "axp_conditions": "xpg.explain.describe",
    "counterexample": "xpg.explain.describe",
    "Decision": "xpg.explain.decision",
    "Explainer": "xpg.explain.engine",
    "QueryTimeout": "xpg.explain.decision",
    "Oracle": "xpg.explain.oracle_abc",
    "EnumerationResult": "xpg.explain.marco",
    "Enumerator": "xpg.explain.marco",
    "Explanation": "xpg.explain.marco",
    "enumerate_explanations": "xpg.explain.marco",
    "Membership": "xpg.explain.membership",
    "MembershipQueries": "xpg.explain.membership",
    "RouteChoice": "xpg.explain.membership",
    "is_member": "xpg.explain.membership",
    "membership_route": "xpg.explain.membership",
    "path_to_zero": "xpg.explain.reach",
    "FeatureClassification": "xpg.explain.relevance",
    "classify_features": "xpg.explain.relevance",
    "Robustness": "xpg.explain.exact_robustness",
    "robustness": "xpg.explain.exact_robustness",
    "SmallestExplanation": "xpg.explain.smallest",
    "smallest_axp": "xpg.explain.smallest",
    "smallest_cxp": "xpg.explain.smallest",
    "tree_axps": "xpg.explain.tree_xpg",
    "tree_cxps": "xpg.explain.tree_xpg",
}

__all__ = [
    "Decision",
    "FeatureAttribution",
    "InflatedExplanation",
    "feature_attribution",
    "EnumerationResult",
    "Enumerator",
    "Explainer",
    "Explanation",
    "FeatureClassification",
    "Membership",
    "MembershipQueries",
    "Oracle",
    "QueryTimeout",
    "RouteChoice",
    "Robustness",
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
    "robustness",
    "smallest_axp",
    "smallest_cxp",
    "tree_axps",
    "tree_cxps",
]

__getattr__, __dir__ = _lazy.reexports(__name__, _LAZY, globals())
