"""Bad arguments to the Python API (``ExplanationGraph``'s arrays, ``Enumerator``'s budget):
each raises a project error, and the good ones still work."""

from __future__ import annotations

import math
import re
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
        "DecisionTreeClassifier: explain it with xpg.Explainer(model).explain(instance).axp() "
        "(decision trees and tree ensembles; for another model, see xpg.probabilistic), or "
        "xpg.explain_many(model, rows) for many rows"
    )
    assert isinstance(err.value, XpgError) and isinstance(err.value, TypeError)
    instruction = (
        "RandomForestClassifier: explain it with xpg.Explainer(model).explain(instance).cxp()"
    )
    with pytest.raises(xpg.NotAnExplanationGraphError, match=re.escape(instruction)):
        xpg.find_cxp(forest)
    with xpg.Explainer(tree).explain(X[0]) as decision:  # the instruction works
        assert decision.axp() == (f"x{tree.tree_.feature[0]}",)  # the root's test decides


def test_an_explained_decision_is_sent_to_its_own_methods() -> None:
    """``find_axp(EnsembleExplainer)`` was a bare AttributeError ('... has no attribute n_vars');
    an explained decision (``xpg.Explainer(model).explain(instance)``) is sent to its method."""
    import xpg

    _, forest, X = _sklearn_tree_and_forest()
    model = xpg.ensemble_from_sklearn(forest)
    with xpg.Explainer(model).explain(list(X[0])) as decision:
        calls = {
            "find_axp": lambda: xpg.find_axp(decision),
            "find_cxp": lambda: xpg.find_cxp(decision),
            "enumerate_explanations": lambda: xpg.enumerate_explanations(decision),
            "Enumerator": lambda: xpg.Enumerator(decision),
        }
        method = {
            "find_axp": "axp()",
            "find_cxp": "cxp()",
            "enumerate_explanations": "enumerate()",
            "Enumerator": "iter_explanations()",
        }
        for name, call in calls.items():
            with pytest.raises(xpg.NotAnExplanationGraphError) as err:
                call()
            assert str(err.value) == (
                f"{name} takes an ExplanationGraph (the graph of one instance), found a "
                f"Decision: call its own method, .{method[name]}"
            )
            assert callable(getattr(decision, method[name].split("(")[0]))  # it exists
    with pytest.raises(
        xpg.NotAnExplanationGraphError,
        match=re.escape("found a Forest: use xpg.Explainer(model).explain(instance).axp()"),
    ):
        xpg.find_axp(model)


def test_models_decision_graphs_and_other_values_are_refused() -> None:
    import xpg
    from xpg.examples import and_xpg

    a = xpg.Feature.boolean("a")
    split = xpg.Split(
        "a", [(xpg.Literal.eq("a", 0), xpg.Leaf(0)), (xpg.Literal.eq("a", 1), xpg.Leaf(1))]
    )
    tree = xpg.DecisionTree([a], [0, 1], split)
    explainer = "xpg.Explainer(model).explain(instance)."
    cases = [
        (tree, f"found a DecisionTree: use {explainer}"),
        (tree.to_decision_graph(), f"found a DecisionGraph: use {explainer}"),
        ([1, 0], "found a list: build it with xpg.ExplanationGraph.from_decision_graph("),
        (None, "found a NoneType: build it with"),
    ]
    methods = {"find_axp": "axp()", "find_cxp": "cxp()", "enumerate_explanations": "enumerate()"}
    for value, message in cases:
        for query in (xpg.find_axp, xpg.find_cxp, xpg.enumerate_explanations):
            with pytest.raises(xpg.NotAnExplanationGraphError, match=re.escape(message)) as err:
                query(value)
            name = query.__name__
            assert str(err.value).startswith(f"{name} takes an ExplanationGraph")
            assert str(err.value).endswith(f"{explainer}{methods[name]}")
        with pytest.raises(xpg.NotAnExplanationGraphError, match="is_weak_axp takes"):
            xpg.is_weak_axp(value, [0])
    assert xpg.find_axp(and_xpg()) == ("a", "b")  # a graph still works


def test_every_graph_query_refuses_what_is_not_a_graph() -> None:
    """is_member, classify_features, smallest_*, tree_* and membership_route on an
    explained decision or a scikit-learn tree were bare AttributeErrors (issue 28)."""
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
    with xpg.Explainer(forest).explain(list(X[0])) as decision:
        for name, query in queries.items():
            for value, found in ((decision, "a Decision"), (tree, "a scikit-learn")):
                with pytest.raises(
                    xpg.NotAnExplanationGraphError, match=f"{name} takes.*{found}"
                ) as err:
                    query(value)
                # the instruction names a method of the decision
                method = re.search(r"\.(\w+)\([^()]*\)(?: \(|$)", str(err.value))
                assert method and callable(getattr(decision, method.group(1))), str(err.value)
            query(and_xpg())  # a graph still works


def test_a_seed_must_be_a_collection_of_features() -> None:
    """A string seed was read letter by letter (``seed="ab"`` meant features a and b); it is
    one feature's name (issue 32; tests/models/test_issue32_defects.py)."""
    import xpg
    from xpg.errors import InvalidFeatureError, InvalidSeedError
    from xpg.examples import and_xpg

    xg = and_xpg()
    with pytest.raises(InvalidFeatureError, match="unknown feature 'ab'"):
        xpg.find_axp(xg, seed="ab")
    with pytest.raises(InvalidSeedError, match="found 3"):
        xpg.find_cxp(xg, seed=3)  # type: ignore[arg-type]
    assert xpg.find_cxp(xg, seed=["b"]) == ("b",)
