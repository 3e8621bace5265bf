"""xpg: explain classifier decisions with proofs.

Compile a model into a :class:`DecisionGraph`, build the :class:`ExplanationGraph` of an
instance, then ask for one abductive explanation (AXp: a minimal set of features that
suffices for the prediction), one contrastive explanation (CXp: a minimal set of features
whose change can change it), or all of them.  Membership ("is feature i in some
explanation?"), feature classification and smallest explanations are exact too, and
:class:`Verifier` checks any claim against the original model with an SMT solver.

Subpackages, imported on first use as attributes (``xpg.learn.load_dataset`` after ``import
xpg``) or by ``import xpg.learn``: :mod:`xpg.learn` (decision lists, trees and BBM-RS risk
scores from data, datasets, separation statistics),
:mod:`xpg.probabilistic` (certificates, optimal k-feature rules, Anchors, exact precision) and
:mod:`xpg.fourier` (Harmonica and relatives, removal games, Shapley-style baselines).
``import xpg`` itself loads only the exceptions: every other public name is imported on first
use (``xpg.ExplanationGraph``, ``xpg.find_axp``, ``from xpg import Verifier``), numpy and portion
by the first graph, and pysmt, z3, networkx, dd and scikit-learn only by the features that
need them (:mod:`xpg.core.lazy`).

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

import importlib as _importlib
from typing import TYPE_CHECKING, Any

from xpg.core import lazy as _lazy
from xpg.errors import (
    InvalidFeatureError,
    InvalidGraphError,
    InvalidInstanceError,
    InvalidModelError,
    InvalidQueryError,
    InvalidSeedError,
    MissingExtraError,
    NotAnExplanationGraphError,
    NotATreeError,
    ParseError,
    SolverClosedError,
    UnsupportedModelError,
    XpgError,
)

if TYPE_CHECKING:  # the lazily re-exported names, for type checkers
    from xpg.compile import bdd_manager, from_sklearn_tree
    from xpg.core import (
        DecisionGraph,
        ExplanationGraph,
        Feature,
        FeatureGroup,
        FeatureSpace,
        Literal,
        real_features,
    )
    from xpg.explain import (
        Decision,
        EnumerationResult,
        Enumerator,
        Explainer,
        Explanation,
        FeatureClassification,
        Membership,
        MembershipQueries,
        Oracle,
        QueryTimeout,
        RouteChoice,
        SmallestExplanation,
        axp_conditions,
        classify_features,
        counterexample,
        enumerate_explanations,
        explain_many,
        find_axp,
        find_cxp,
        is_member,
        is_weak_axp,
        is_weak_cxp,
        membership_route,
        path_to_zero,
        robustness,
        smallest_axp,
        smallest_cxp,
        tree_axps,
        tree_cxps,
    )
    from xpg.explain.attribution import FeatureAttribution, feature_attribution
    from xpg.explain.ensemble import EnsembleExplainer
    from xpg.explain.inflate import InflatedExplanation, inflate
    from xpg.io import (
        format_xpg,
        load_model,
        read_model,
        read_xpg,
        read_xpg_text,
        save_model,
        write_xpg,
    )
    from xpg.learn import (
        LearnReport,
        bbm_rs,
        import_model,
        import_sklearn_tree,
        learn_ensemble_from_table,
        learn_list_from_table,
        learn_optimal_tree,
        learn_tree_from_table,
        linear_separateness,
        r_separation,
        separation_distance,
    )
    from xpg.models import (
        OBDD,
        OMDD,
        BoostedTrees,
        DecisionList,
        DecisionTree,
        Forest,
        Leaf,
        RiskScore,
        Rule,
        Split,
        compile_decision_list,
        compile_tree,
        decision_list_to_obdd,
        ensemble_from_sklearn,
        from_bdd,
        tree_from_sklearn,
    )
    from xpg.verify import (
        Verdict,
        Verifier,
        verify_axp,
        verify_cxp,
    )

#: public name -> the module it is re-exported from, imported on first use (PEP 562)
_LAZY: dict[str, str] = {
    "DecisionGraph": "xpg.core",
    "ExplanationGraph": "xpg.core",
    "Feature": "xpg.core",
    "FeatureGroup": "xpg.core",
    "FeatureSpace": "xpg.core",
    "Literal": "xpg.core",
    "real_features": "xpg.core",
    "bdd_manager": "xpg.compile",
    "compile_decision_list": "xpg.models",
    "decision_list_to_obdd": "xpg.models",
    "from_sklearn_tree": "xpg.compile",
    "tree_from_sklearn": "xpg.models",
    "EnsembleExplainer": "xpg.explain.ensemble",
    "FeatureAttribution": "xpg.explain.attribution",
    "feature_attribution": "xpg.explain.attribution",
    "InflatedExplanation": "xpg.explain.inflate",
    "inflate": "xpg.explain.inflate",
    "write_report": "xpg.report",
    "Decision": "xpg.explain",
    "Explainer": "xpg.explain",
    "Oracle": "xpg.explain",
    "QueryTimeout": "xpg.explain",
    "EnumerationResult": "xpg.explain",
    "Enumerator": "xpg.explain",
    "Explanation": "xpg.explain",
    "FeatureClassification": "xpg.explain",
    "Membership": "xpg.explain",
    "MembershipQueries": "xpg.explain",
    "RouteChoice": "xpg.explain",
    "SmallestExplanation": "xpg.explain",
    "axp_conditions": "xpg.explain",
    "classify_features": "xpg.explain",
    "counterexample": "xpg.explain",
    "enumerate_explanations": "xpg.explain",
    "explain_many": "xpg.explain",
    "find_axp": "xpg.explain",
    "find_cxp": "xpg.explain",
    "is_member": "xpg.explain",
    "is_weak_axp": "xpg.explain",
    "is_weak_cxp": "xpg.explain",
    "membership_route": "xpg.explain",
    "path_to_zero": "xpg.explain",
    "robustness": "xpg.explain",
    "smallest_axp": "xpg.explain",
    "smallest_cxp": "xpg.explain",
    "tree_axps": "xpg.explain",
    "tree_cxps": "xpg.explain",
    "format_xpg": "xpg.io",
    "load_model": "xpg.io",
    "read_model": "xpg.io",
    "read_xpg": "xpg.io",
    "read_xpg_text": "xpg.io",
    "save_model": "xpg.io",
    "write_xpg": "xpg.io",
    "import_model": "xpg.learn",
    "import_sklearn_tree": "xpg.learn",
    "learn_ensemble_from_table": "xpg.learn",
    "learn_list_from_table": "xpg.learn",
    "learn_optimal_tree": "xpg.learn",
    "learn_tree_from_table": "xpg.learn",
    "LearnReport": "xpg.learn",
    "linear_separateness": "xpg.learn",
    "r_separation": "xpg.learn",
    "separation_distance": "xpg.learn",
    "OBDD": "xpg.models",
    "OMDD": "xpg.models",
    "DecisionList": "xpg.models",
    "DecisionTree": "xpg.models",
    "Leaf": "xpg.models",
    "RiskScore": "xpg.models",
    "Forest": "xpg.models",
    "BoostedTrees": "xpg.models",
    "ensemble_from_sklearn": "xpg.models",
    "bbm_rs": "xpg.learn",
    "Rule": "xpg.models",
    "Split": "xpg.models",
    "compile_tree": "xpg.models",
    "from_bdd": "xpg.models",
    "Verdict": "xpg.verify",
    "Verifier": "xpg.verify",
    "verify_axp": "xpg.verify",
    "verify_cxp": "xpg.verify",
}

__version__ = "0.1.0"

__all__ = [
    "Decision",
    "DecisionGraph",
    "DecisionList",
    "BoostedTrees",
    "DecisionTree",
    "EnsembleExplainer",
    "EnumerationResult",
    "Enumerator",
    "Explainer",
    "Explanation",
    "ExplanationGraph",
    "Feature",
    "FeatureAttribution",
    "FeatureClassification",
    "FeatureGroup",
    "Oracle",
    "QueryTimeout",
    "FeatureSpace",
    "InflatedExplanation",
    "InvalidFeatureError",
    "InvalidGraphError",
    "InvalidInstanceError",
    "InvalidModelError",
    "UnsupportedModelError",
    "InvalidQueryError",
    "InvalidSeedError",
    "Leaf",
    "LearnReport",
    "Literal",
    "Membership",
    "MembershipQueries",
    "MissingExtraError",
    "NotAnExplanationGraphError",
    "NotATreeError",
    "OBDD",
    "OMDD",
    "ParseError",
    "RiskScore",
    "Forest",
    "RouteChoice",
    "Rule",
    "SmallestExplanation",
    "SolverClosedError",
    "Split",
    "Verdict",
    "Verifier",
    "XpgError",
    "axp_conditions",
    "bbm_rs",
    "bdd_manager",
    "classify_features",
    "compile_decision_list",
    "compile_tree",
    "counterexample",
    "decision_list_to_obdd",
    "ensemble_from_sklearn",
    "enumerate_explanations",
    "explain_many",
    "feature_attribution",
    "find_axp",
    "find_cxp",
    "format_xpg",
    "from_bdd",
    "from_sklearn_tree",
    "import_model",
    "import_sklearn_tree",
    "inflate",
    "write_report",
    "is_member",
    "is_weak_axp",
    "is_weak_cxp",
    "learn_ensemble_from_table",
    "learn_list_from_table",
    "learn_optimal_tree",
    "learn_tree_from_table",
    "linear_separateness",
    "load_model",
    "membership_route",
    "path_to_zero",
    "r_separation",
    "read_model",
    "read_xpg",
    "read_xpg_text",
    "real_features",
    "robustness",
    "save_model",
    "separation_distance",
    "smallest_axp",
    "smallest_cxp",
    "tree_axps",
    "tree_cxps",
    "tree_from_sklearn",
    "verify_axp",
    "verify_cxp",
    "write_xpg",
]


#: subpackages reachable as attributes of ``xpg`` (``xpg.learn.load_dataset`` after ``import
#: xpg``), each imported on first use
_SUBPACKAGES = frozenset(
    {
        "compile",
        "core",
        "examples",
        "explain",
        "fourier",
        "io",
        "learn",
        "models",
        "probabilistic",
        "solvers",
        "testing",
        "verify",
    }
)

_reexported, _names = _lazy.reexports(__name__, _LAZY, globals())


def __getattr__(name: str) -> Any:
    """A public name (imported from its module on first use) or a subpackage (``xpg.learn``)."""
    if name in _SUBPACKAGES:
        return _importlib.import_module(f"{__name__}.{name}")
    return _reexported(name)


def __dir__() -> list[str]:
    return sorted(set(_names()) | _SUBPACKAGES)
