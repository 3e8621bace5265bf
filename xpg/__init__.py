"""xpg: explain classifier decisions with proofs.

Compile a model into a :class:`DecisionGraph`, build the :class:`ExplanationGraph` of an
instance, then ask for one abductive explanation (AXp: a minimal set of features that
suffices for the prediction), one contrastive explanation (CXp: a minimal set of features
whose change can change it), or all of them.

Examples
--------
>>> from sklearn.datasets import load_breast_cancer
>>> from sklearn.tree import DecisionTreeClassifier
>>> import xpg
>>> data = load_breast_cancer()
>>> clf = DecisionTreeClassifier(max_depth=4, random_state=0).fit(data.data, data.target)
>>> dg = xpg.from_sklearn_tree(clf, xpg.real_features(data.feature_names))
>>> xg = xpg.ExplanationGraph.from_decision_graph(dg, list(data.data[0]))
>>> axp = xpg.find_axp(xg)
>>> result = xpg.enumerate_explanations(xg)
>>> axp in result.axps and result.complete
True
"""

from xpg.compile import from_sklearn_tree
from xpg.describe import axp_conditions, counterexample
from xpg.errors import (
    InvalidFeatureError,
    InvalidGraphError,
    InvalidInstanceError,
    InvalidModelError,
    InvalidSeedError,
    ParseError,
    SolverClosedError,
    XpgError,
)
from xpg.explain import find_axp, find_cxp, is_weak_axp, is_weak_cxp
from xpg.features import Feature, Literal, real_features
from xpg.graph import DecisionGraph
from xpg.io import format_xpg, load_model, read_xpg, read_xpg_text, save_model, write_xpg
from xpg.marco import EnumerationResult, Enumerator, Explanation, enumerate_explanations
from xpg.reach import path_to_zero
from xpg.xpgraph import ExplanationGraph

__version__ = "0.1.0"

__all__ = [
    "DecisionGraph",
    "EnumerationResult",
    "Enumerator",
    "Explanation",
    "ExplanationGraph",
    "Feature",
    "InvalidFeatureError",
    "InvalidGraphError",
    "InvalidInstanceError",
    "InvalidModelError",
    "InvalidSeedError",
    "Literal",
    "ParseError",
    "SolverClosedError",
    "XpgError",
    "axp_conditions",
    "counterexample",
    "enumerate_explanations",
    "find_axp",
    "find_cxp",
    "format_xpg",
    "from_sklearn_tree",
    "is_weak_axp",
    "is_weak_cxp",
    "load_model",
    "path_to_zero",
    "read_xpg",
    "read_xpg_text",
    "real_features",
    "save_model",
    "write_xpg",
]
