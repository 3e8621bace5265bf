"""The model kinds xpg explains, each a class in its own module, all with one interface.

:mod:`~xpg.models.protocol` (the interface, :class:`Model`), :mod:`~xpg.models.registry`
(the kinds by JSON type name), :mod:`~xpg.models.tree` (decision trees),
:mod:`~xpg.models.decision_list` (decision lists), :mod:`~xpg.models.obdd` (OBDDs built with
dd), :mod:`~xpg.models.omdd` (OMDDs given node by node), :mod:`~xpg.models.risk_score`
(risk scores), :mod:`~xpg.models.ensemble` (random forests and boosted trees; with
:mod:`~xpg.models.ensemble_tree` (one tree's arrays), :mod:`~xpg.models.ensemble_import`
(from scikit-learn) and :mod:`~xpg.models.ensemble_compile` (to a decision graph)) and
:mod:`~xpg.models.gbdt` (boosted trees of XGBoost, LightGBM and HistGradientBoosting; with
:mod:`~xpg.models.import_xgboost`, XGBoost files and objects).  A kind
may instead be explained by an oracle of its own and never compiled (docs/model-kinds.md).
"""

from xpg.models.decision_list import (
    DecisionList,
    Rule,
    compile_decision_list,
    decision_list_to_obdd,
)
from xpg.models.ensemble import BoostedTrees, Forest, TreeEnsemble
from xpg.models.ensemble_import import ensemble_from_sklearn
from xpg.models.ensemble_tree import EnsembleTree
from xpg.models.gbdt import GBDT, set_split_subtree
from xpg.models.import_xgboost import looks_like_xgboost, read_xgboost
from xpg.models.obdd import OBDD, from_bdd
from xpg.models.omdd import OMDD
from xpg.models.protocol import Model
from xpg.models.registry import (
    model_kind,
    model_kinds,
    register_model_kind,
    unregister_model_kind,
)
from xpg.models.risk_score import RiskScore, compile_risk_score
from xpg.models.tree import DecisionTree, Leaf, Split, compile_tree, tree_from_sklearn

__all__ = [
    "BoostedTrees",
    "EnsembleTree",
    "GBDT",
    "Forest",
    "TreeEnsemble",
    "ensemble_from_sklearn",
    "OBDD",
    "OMDD",
    "DecisionList",
    "DecisionTree",
    "Leaf",
    "Model",
    "RiskScore",
    "Rule",
    "Split",
    "compile_decision_list",
    "compile_risk_score",
    "compile_tree",
    "decision_list_to_obdd",
    "from_bdd",
    "model_kind",
    "looks_like_xgboost",
    "model_kinds",
    "read_xgboost",
    "register_model_kind",
    "set_split_subtree",
    "tree_from_sklearn",
    "unregister_model_kind",
]
