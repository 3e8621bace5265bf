"""Bad arguments to the Python API (``ExplanationGraph``'s arrays, ``Enumerator``'s budget):
each raises a project error, and the good ones still work."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from xpg.core.xpgraph import ExplanationGraph
from xpg.errors import XpgError
from xpg.explain.marco import Enumerator
from xpg.testing import random_xpg


@pytest.mark.parametrize(
    "kwargs",
    [
        {"limit": -1},
        {"limit": 2.5},
        {"limit": True},
        {"timeout": math.nan},
        {"timeout": -1.0},
    ],
    ids=["limit=-1", "limit=2.5", "limit=True", "timeout=nan", "timeout=-1"],
)
def test_enumerator_budget_is_checked(kwargs: dict[str, Any]) -> None:
    xg = random_xpg(1, tree=True)
    with pytest.raises(XpgError):
        with Enumerator(xg, **kwargs) as en:
            list(en)


BASE: dict[str, Any] = {
    "var_names": ["a"],
    "node_ids": [0, 1, 2],
    "root": 0,
    "node_var": np.array([0, -1, -1]),
    "terminal_value": np.array([-1, 1, 0]),
    "edge_src": np.array([0, 0]),
    "edge_dst": np.array([1, 2]),
    "edge_label": np.array([1, 0]),
}


def test_budgets_of_every_number_type_are_taken() -> None:
    xg = random_xpg(1, tree=True)
    with Enumerator(xg, limit=np.int64(1), timeout=np.float32(5.0)) as en:
        assert len(list(en)) == 1 and en.limit == 1


def test_the_base_graph_is_valid() -> None:
    xg = ExplanationGraph(**BASE)
    assert xg.n_nodes == 3


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("edge_dst", np.array([1, 5])),
        ("edge_src", np.array([0, -7])),
        ("edge_dst", np.array([1, -1])),
        ("root", 9),
        ("node_var", np.array([3, -1, -1])),
        ("node_ids", [0, 1]),
        ("edge_label", np.array([1])),
    ],
    ids=["dst-5", "src-negative", "dst-negative", "root-9", "var-3", "ids-short", "labels-short"],
)
def test_out_of_range_arrays_are_refused(key: str, value: Any) -> None:
    with pytest.raises(XpgError):
        ExplanationGraph(**{**BASE, key: value})


# -- issue 28: a graph query given something else than an ExplanationGraph ------------------------
def _sklearn_tree_and_forest() -> tuple[Any, Any, np.ndarray]:
    from sklearn.datasets import load_iris
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.tree import DecisionTreeClassifier

    X, y = load_iris(return_X_y=True)
    tree = DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, y)
    forest = RandomForestClassifier(n_estimators=3, max_depth=2, random_state=0).fit(X, y)
    return tree, forest, X


def test_a_scikit_learn_tree_is_refused_with_what_to_do() -> None:
    """``find_axp(clf, row)`` was a bare AttributeError ('... has no attribute names')."""
    import xpg

    tree, forest, X = _sklearn_tree_and_forest()
    with pytest.raises(xpg.NotAnExplanationGraphError) as err:
        xpg.find_axp(tree, X[0])
    assert str(err.value) == (
        "find_axp takes an ExplanationGraph (the graph of one instance), found a scikit-learn "
        "DecisionTreeClassifier: for a scikit-learn model use xpg.explain_many(model, rows), or "
        "build the graph with xg = xpg.ExplanationGraph.from_decision_graph("
        "xpg.from_sklearn_tree(model, features), instance)"
    )
    assert isinstance(err.value, XpgError) and isinstance(err.value, TypeError)
    with pytest.raises(xpg.NotAnExplanationGraphError, match="RandomForestClassifier: convert"):
        xpg.find_cxp(forest)


def test_an_ensemble_explainer_is_sent_to_its_own_methods() -> None:
    """``find_axp(EnsembleExplainer)`` was a bare AttributeError ('... has no attribute n_vars')."""
    import xpg

    _, forest, X = _sklearn_tree_and_forest()
    model = xpg.ensemble_from_sklearn(forest)
    with xpg.EnsembleExplainer(model, list(X[0])) as ex:
        calls = {
            "find_axp": lambda: xpg.find_axp(ex),
            "find_cxp": lambda: xpg.find_cxp(ex),
            "enumerate_explanations": lambda: xpg.enumerate_explanations(ex),
            "Enumerator": lambda: xpg.Enumerator(ex),
        }
        for name, call in calls.items():
            with pytest.raises(xpg.NotAnExplanationGraphError) as err:
                call()
            method = {"enumerate_explanations": "enumerate()", "Enumerator": "iter_explanations()"}
            expected = method.get(name, f"{name}()")
            assert str(err.value) == (
                f"{name} takes an ExplanationGraph (the graph of one instance), found an "
                f"EnsembleExplainer: call its method, explainer.{expected}"
            )
            assert getattr(ex, expected.split("(")[0])  # the method named exists
    with pytest.raises(xpg.NotAnExplanationGraphError, match="Forest model: use xpg.Ensemble"):
        xpg.find_axp(model)


def test_models_decision_graphs_and_other_values_are_refused() -> None:
    import xpg
    from xpg.examples import and_xpg

    a = xpg.Feature.boolean("a")
    split = xpg.Split(
        "a", [(xpg.Literal.eq("a", 0), xpg.Leaf(0)), (xpg.Literal.eq("a", 1), xpg.Leaf(1))]
    )
    tree = xpg.DecisionTree([a], [0, 1], split)
    cases = [
        (tree, "found a DecisionTree model: build the instance's graph with xg = "),
        (tree.to_decision_graph(), "found a DecisionGraph (the model's graph, for every"),
        ([1, 0], "found a list: build it with xpg.ExplanationGraph.from_decision_graph("),
        (None, "found a NoneType: build it with"),
    ]
    for value, message in cases:
        for query in (xpg.find_axp, xpg.find_cxp, xpg.enumerate_explanations):
            with pytest.raises(xpg.NotAnExplanationGraphError, match=message.replace("(", r"\(")):
                query(value)
        with pytest.raises(xpg.NotAnExplanationGraphError, match="is_weak_axp takes"):
            xpg.is_weak_axp(value, [0])
    assert xpg.find_axp(and_xpg()) == ("a", "b")  # a graph still works


def test_every_graph_query_refuses_what_is_not_a_graph() -> None:
    """is_member, classify_features, smallest_*, tree_* and membership_route on an
    EnsembleExplainer or a scikit-learn tree were bare AttributeErrors (issue 28)."""
    import xpg
    from xpg.examples import and_xpg

    tree, forest, X = _sklearn_tree_and_forest()
    queries = {
        "is_member": lambda g: xpg.is_member(g, "a"),
        "classify_features": xpg.classify_features,
        "smallest_axp": xpg.smallest_axp,
        "smallest_cxp": xpg.smallest_cxp,
        "membership_route": xpg.membership_route,
        "tree_axps": lambda g: list(xpg.tree_axps(g)),
        "tree_cxps": lambda g: list(xpg.tree_cxps(g)),
    }
    with xpg.EnsembleExplainer(xpg.ensemble_from_sklearn(forest), list(X[0])) as ex:
        for name, query in queries.items():
            for value, found in ((ex, "an EnsembleExplainer"), (tree, "a scikit-learn")):
                with pytest.raises(xpg.NotAnExplanationGraphError, match=f"{name} takes.*{found}"):
                    query(value)
            query(and_xpg())  # a graph still works


def test_a_seed_must_be_a_collection_of_features() -> None:
    """A string seed was read letter by letter (``seed="ab"`` meant features a and b)."""
    import xpg
    from xpg.errors import InvalidSeedError
    from xpg.examples import and_xpg

    xg = and_xpg()
    with pytest.raises(InvalidSeedError, match=r"found 'ab' \(one feature: \['ab'\]\)"):
        xpg.find_axp(xg, seed="ab")
    with pytest.raises(InvalidSeedError, match="found 3"):
        xpg.find_cxp(xg, seed=3)  # type: ignore[arg-type]
    assert xpg.find_cxp(xg, seed=["b"]) == ("b",)
