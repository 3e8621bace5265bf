"""Ensembles learned from tables: the written model predicts what the fitted estimator
predicts on every row, text columns read through their codes, bad parameters named."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import shared_path

from xpg.errors import InvalidDataError, InvalidModelError
from xpg.learn import learn_ensemble_from_table


@pytest.mark.parametrize("kind", ["forest", "extra-trees", "boosted"])
@pytest.mark.parametrize("name", ["pmlb/new_thyroid.tsv.gz", "riskslim/mushroom_data.csv.gz"])
@pytest.mark.slow
def test_every_row_as_the_estimator(kind: str, name: str) -> None:
    path = shared_path("datasets", name)
    target = "target" if name.startswith("pmlb") else None
    if target is None:
        target = str(pd.read_csv(path, nrows=0).columns[0])  # risk-slim: the first column
    learned = learn_ensemble_from_table(path, target, kind, n_trees=15, max_depth=4, seed=1)
    data = learned.data
    X = np.empty((len(data.values), len(data.features)), dtype=object)
    X[:] = data.values
    assert learned.model.predict_batch(X).tolist() == learned.estimator.predict(data.X).tolist()
    report = learned.report
    assert report.size["trees"] == len(learned.model.trees) and report.size["depth"] <= 4
    assert report.train_rows + report.test_rows == len(data.values)


def test_text_columns_are_codes() -> None:
    frame = pd.DataFrame({"colour": ["red", "green", "blue", "red"] * 20, "y": [1, 0, 0, 1] * 20})
    learned = learn_ensemble_from_table(frame, "y", "forest", n_trees=3, test_size=0)
    (colour,) = learned.model.features
    assert colour.kind == "categorical" and colour.values == ("blue", "green", "red")
    assert [learned.model.predict([c]) for c in colour.values] == [0, 0, 1]


def test_bad_parameters() -> None:
    frame = pd.DataFrame({"a": [0, 1] * 10, "y": [0, 1] * 10})
    with pytest.raises(
        InvalidDataError,
        match="expected one of forest, extra-trees, boosted, hist, xgboost, lightgbm",
    ):
        learn_ensemble_from_table(frame, "y", "bagging")
    with pytest.raises(InvalidDataError, match="trees: expected a positive integer"):
        learn_ensemble_from_table(frame, "y", n_trees=0)
    with pytest.raises(InvalidModelError, match="GradientBoostingClassifier: .*learning_rate"):
        learn_ensemble_from_table(frame, "y", "boosted", learning_rate=-1.0)
    with pytest.raises(InvalidModelError, match="RandomForestClassifier: .*unexpected keyword"):
        learn_ensemble_from_table(frame, "y", colour="red")
