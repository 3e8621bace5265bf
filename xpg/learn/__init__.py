"""Learners for the models xpg explains: decision lists (RIPPER), trees (scikit-learn), risk
scores (BBM-RS), datasets."""

from xpg.learn.datasets import Dataset, default_data_dir, load_dataset
from xpg.learn.decision_list import learn_decision_list
from xpg.learn.risk_score import bbm_rs
from xpg.learn.trees import learn_tree

__all__ = [
    "Dataset",
    "bbm_rs",
    "default_data_dir",
    "learn_decision_list",
    "learn_tree",
    "load_dataset",
]
