"""Learners for the models xpg explains: decision lists (RIPPER; CN2 through Orange3), trees
(scikit-learn's CART, optimal trees with pystreed) and tree ensembles (scikit-learn), risk
scores (BBM-RS), datasets, models from data tables, trained classifiers imported
from objects and files (scikit-learn, XGBoost, LightGBM: :func:`import_model`); separation
statistics of labelled data."""

from xpg.learn.datasets import Dataset, default_data_dir, load_dataset
from xpg.learn.decision_list import learn_decision_list
from xpg.learn.estimator_import import import_sklearn_tree, load_estimator
from xpg.learn.from_table import (
    Learned,
    LearnReport,
    learn_ensemble_from_table,
    learn_list_from_table,
    learn_risk_score_from_table,
    learn_tree_from_table,
)
from xpg.learn.importing import import_model
from xpg.learn.optimal_tree import OptimalTree, learn_optimal_tree
from xpg.learn.risk_score import bbm_rs
from xpg.learn.separation import linear_separateness, r_separation, separation_distance
from xpg.learn.table_data import TableData, prepare_table
from xpg.learn.trees import learn_tree

__all__ = [
    "Dataset",
    "bbm_rs",
    "default_data_dir",
    "import_model",
    "import_sklearn_tree",
    "learn_decision_list",
    "learn_ensemble_from_table",
    "learn_list_from_table",
    "learn_optimal_tree",
    "learn_risk_score_from_table",
    "learn_tree",
    "learn_tree_from_table",
    "Learned",
    "LearnReport",
    "linear_separateness",
    "load_dataset",
    "load_estimator",
    "OptimalTree",
    "prepare_table",
    "r_separation",
    "separation_distance",
    "TableData",
]
