"""Learners for the models xpg explains: decision lists (RIPPER), trees (scikit-learn), datasets;
separation statistics of labelled data."""

from xpg.learn.datasets import Dataset, default_data_dir, load_dataset
from xpg.learn.decision_list import learn_decision_list
from xpg.learn.separation import linear_separateness, r_separation, separation_distance
from xpg.learn.trees import learn_tree

__all__ = [
    "Dataset",
    "default_data_dir",
    "learn_decision_list",
    "learn_tree",
    "linear_separateness",
    "load_dataset",
    "r_separation",
    "separation_distance",
]
