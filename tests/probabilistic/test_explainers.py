"""All explainers through one entry point, one result type, JSON-ready."""

from __future__ import annotations

import importlib.util
import json

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier

from xpg.core.features import Feature
from xpg.errors import InvalidParameterError
from xpg.probabilistic import (
    BlackBox,
    ProbabilisticExplanation,
    explain_probabilistically,
    precision_error,
)

METHODS = ["certificate", "cop", "sat", "probabilistic-axp"]
if importlib.util.find_spec("anchor") is not None:
    METHODS.append("anchors")


@pytest.fixture(scope="module")
def tree_model() -> tuple[BlackBox, np.ndarray]:
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, (600, 10))
    y = (X[:, 0] & X[:, 3]) | (X[:, 5] & X[:, 7] & X[:, 8])
    tree = DecisionTreeClassifier(max_depth=5, random_state=0).fit(X, y)
    model = BlackBox.from_sklearn_tree(tree, [Feature.boolean(f"x{i}") for i in range(10)])
    return model, X


@pytest.mark.parametrize("method", METHODS)
def test_every_explainer_returns_the_same_kind_of_result(method: str, tree_model) -> None:
    model, X = tree_model
    x = X[1]
    r = explain_probabilistically(model, x, method, seed=0)
    assert isinstance(r, ProbabilisticExplanation)
    assert r.prediction == model.predict_one(x)
    assert r.precision is not None
    # explainers that only sample report sampled checks; the others exact ones
    truth = precision_error(model, x, r.features, method="enumerate").error
    if r.precision.exact:
        assert r.precision.error == pytest.approx(truth, abs=1e-12)
    else:
        assert r.precision.low - 0.05 <= truth <= r.precision.high + 0.05
    doc = json.loads(json.dumps(r.to_json()))
    assert doc["features"] == sorted(r.features) and doc["method"] == r.method


def test_unknown_method_is_named(tree_model) -> None:
    model, X = tree_model
    names = "'anchors', 'certificate', 'cop', 'probabilistic-axp', 'sat', found 'lime'"
    with pytest.raises(InvalidParameterError, match=f"method: expected one of {names}"):
        explain_probabilistically(model, X[0], "lime")  # type: ignore[arg-type]
