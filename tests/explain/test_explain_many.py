"""``xpg.explain_many``: one record per row, checked against the brute-force oracle and the
one-instance enumeration; value conversion, bad rows, laziness, the record contract."""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
import pandas as pd
import pytest

import xpg
from xpg.core.features import Feature
from xpg.errors import InvalidInstanceError, InvalidModelError, InvalidQueryError
from xpg.examples import and_graph
from xpg.explain.batch import BatchExplainer, parse_kinds
from xpg.explain.engine import Explainer
from xpg.explain.records import convert_value
from xpg.testing import ClassTable, random_decision_graph

KEYS = ["row", "prediction", "axps", "cxps", "complete", "seconds"]


@pytest.mark.parametrize("seed", range(12))
def test_records_match_the_oracle(seed: int) -> None:
    """Every point of a random graph's grid: the record's AXps, CXps and feature classes are the
    oracle's (exhaustive evaluation), and the prediction is the graph's."""
    dg = random_decision_graph(seed, ("tree", "dag", "ordered")[seed % 3])
    table = ClassTable.of_graph(dg)
    points = table.points()[:40]
    names = [f.name for f in dg.features]
    rows = [dict(zip(names, x, strict=True)) for x in points]
    records = list(xpg.explain_many(dg, rows, kinds="axp,cxp,features", start=10))
    assert [r["row"] for r in records] == list(range(10, 10 + len(points)))
    for x, record in zip(points, records, strict=True):
        oracle = table.oracle(x)
        assert record["prediction"] == str(dg.predict(x))
        assert {frozenset(a) for a in record["axps"]} == oracle.axps
        assert {frozenset(c) for c in record["cxps"]} == oracle.cxps
        assert all(list(e) == sorted(e) for e in record["axps"] + record["cxps"])
        assert record["complete"] is True
        assert set(record["necessary"]) == oracle.necessary()
        assert set(record["relevant"]) == oracle.members() - oracle.necessary()
        assert set(record["irrelevant"]) == set(names) - oracle.members()


@pytest.mark.parametrize("seed", range(4))
def test_lists_in_the_order_of_enumeration(seed: int) -> None:
    """The lists are ``xpg enum --json``'s for the same instance, in the same order."""
    dg = random_decision_graph(100 + seed, "dag")
    for x in ClassTable.of_graph(dg).points()[:20]:
        (record,) = xpg.explain_many(dg, [x])
        doc = xpg.enumerate_explanations(xpg.ExplanationGraph.from_decision_graph(dg, x))
        expected = doc.to_json()
        assert list(record) == KEYS
        assert record["axps"] == expected["axps"] and record["cxps"] == expected["cxps"]


def test_a_frame_is_numbered_by_its_index_and_keeps_going_after_bad_rows() -> None:
    frame = pd.DataFrame(
        {
            "b": [1, 1, np.nan, 1, 0],
            "a": [1.0, 3.0, 1.0, 1.0, 1.0],
            "unused": ["x"] * 5,
            "y": [1, 0, 1, None, 0],
        },
        index=pd.RangeIndex(100, 105),
    )
    records = list(xpg.explain_many(and_graph(), frame, kinds="axp", target="y"))
    assert [r["row"] for r in records] == [100, 101, 102, 103, 104]
    assert records[0] == {
        "row": 100,
        "prediction": "1",
        "label": "1",
        "axps": [["a", "b"]],
        "complete": True,
        "seconds": records[0]["seconds"],
    }
    assert records[1] == {"row": 101, "error": "feature 'a': expected one of [0, 1], found 3"}
    assert records[2] == {"row": 102, "error": "feature 'b': missing value (NaN or empty)"}
    assert records[3]["label"] is None and "error" not in records[3]
    assert records[4]["axps"] == [["b"]]


def test_a_missing_column_or_key_is_an_error_record() -> None:
    frame = pd.DataFrame({"a": [1, 0]})
    assert [r["error"] for r in xpg.explain_many(and_graph(), frame)] == [
        "the data has no column for feature(s) 'b'"
    ] * 2
    (record,) = xpg.explain_many(and_graph(), [{"a": 1}])
    assert record == {"row": 0, "error": "the row has no value for feature(s) 'b'"}
    (record,) = xpg.explain_many(and_graph(), [[1, 1, 1]])
    assert record["error"] == "expected 2 values (one per feature), found 3"


def test_values_are_converted_to_each_domain() -> None:
    n = Feature.integer("n", 0, 9)
    r = Feature.real("r", 0.0, 1.0)
    c = Feature.categorical("c", ["lo", "hi"])
    k = Feature.categorical("k", [1, 2])
    b = Feature.boolean("b")
    assert convert_value(n, np.int64(4)) == 4 and type(convert_value(n, np.int64(4))) is int
    assert convert_value(n, " 7 ") == 7 and convert_value(n, 7.0) == 7
    assert convert_value(r, np.float32(0.5)) == 0.5
    assert convert_value(c, "hi") == "hi" and convert_value(k, 2.0) == 2
    assert convert_value(k, "1") == 1 and convert_value(b, np.bool_(True)) == 1
    assert convert_value(b, "true") == 1
    for feature, bad, message in [
        (n, 3.5, "expected an integer"),
        (n, 12, "expected a value in [0.0, 9.0]"),
        (r, "abc", "expected a number"),
        (r, math.inf, "expected a finite number"),
        (c, "mid", "expected one of"),
        (k, 3, "expected one of [1, 2], found 3"),
        (b, None, "missing value"),
        (r, pd.NA, "missing value"),
        (r, np.float64("nan"), "missing value"),
    ]:
        with pytest.raises(InvalidInstanceError, match=message.replace("[", r"\[")):
            convert_value(feature, bad)


def test_explain_many_is_lazy() -> None:
    endless = itertools.cycle([{"a": 1, "b": 1}, {"a": 0, "b": 0}])
    first = list(itertools.islice(xpg.explain_many(and_graph(), endless), 3))
    assert [r["prediction"] for r in first] == ["1", "0", "1"]


def test_limit_and_timeout_are_per_row() -> None:
    dg = and_graph()
    points = [[1, 1], [0, 0], [0, 1], [1, 0]]
    full = list(xpg.explain_many(dg, points))
    cut = list(xpg.explain_many(dg, points, limit=1))
    assert any(len(r["axps"]) + len(r["cxps"]) > 1 for r in full)
    for whole, part in zip(full, cut, strict=True):
        found = len(part["axps"]) + len(part["cxps"])
        assert found == 1
        assert part["complete"] == (len(whole["axps"]) + len(whole["cxps"]) == 1)
    (record,) = xpg.explain_many(dg, points[:1], timeout=30.0)
    assert record["complete"] is True


def test_models_of_every_form() -> None:
    from sklearn.tree import DecisionTreeClassifier

    X = np.array([[0.0, 1.0], [1.0, 0.0], [1.0, 1.0], [0.0, 0.0]])
    clf = DecisionTreeClassifier(random_state=0).fit(X, [0, 1, 1, 0])
    tree = xpg.tree_from_sklearn(clf)
    by_tree = list(xpg.explain_many(tree, X.tolist()))
    by_sklearn = list(xpg.explain_many(clf, X.tolist()))
    strip = [{k: v for k, v in r.items() if k != "seconds"} for r in by_tree]
    assert strip == [{k: v for k, v in r.items() if k != "seconds"} for r in by_sklearn]
    assert [r["prediction"] for r in by_tree] == ["0", "1", "1", "0"]
    with pytest.raises(InvalidModelError, match="expected an xpg model .*found str"):
        list(xpg.explain_many("model.json", []))


def test_kinds() -> None:
    assert parse_kinds(["cxp", "axp"]) == ("axp", "cxp")
    (record,) = xpg.explain_many(and_graph(), [[1, 0]], kinds="features")
    assert list(record) == ["row", "prediction", "necessary", "relevant", "irrelevant", "seconds"]
    assert record["necessary"] == ["b"] and record["irrelevant"] == ["a"]
    for bad, message in [("axp,shap", "unknown kind 'shap'"), (" , ", "no kind")]:
        with pytest.raises(InvalidQueryError, match=message):
            parse_kinds(bad)


def test_robustness_records_match_the_query() -> None:
    """Each record's robustness is what :func:`xpg.robustness` says of that row, and its
    counterexample is classified otherwise by the graph."""
    for seed in range(30):
        dg = random_decision_graph(seed, ("tree", "dag", "ordered")[seed % 3])
        names = [f.name for f in dg.features]
        rows = [dict(zip(names, x, strict=True)) for x in ClassTable.of_graph(dg).points()[:5]]
        records = list(xpg.explain_many(dg, rows, kinds="robustness"))
        for record, row in zip(records, rows, strict=True):
            assert list(record) == ["row", "prediction", "robustness", "seconds"]
            want = xpg.robustness(dg, row).to_json()
            assert record["robustness"] == {
                k: want[k] for k in ("distance", "counterexample", "counterexample_class")
            }
            cex = record["robustness"]["counterexample"]
            if cex is not None:
                assert str(dg.predict(cex)) != record["prediction"]


def test_the_explainer_pickles() -> None:
    import pickle

    explainer = BatchExplainer(Explainer(and_graph()), kinds="axp,cxp", target="y")
    copy = pickle.loads(pickle.dumps(explainer))
    row = {"a": 1, "b": 1, "y": 1}
    first, second = explainer.explain_row(0, row), copy.explain_row(0, row)
    first.pop("seconds"), second.pop("seconds")
    assert first == second


@pytest.mark.parametrize("seed", range(6))
def test_the_column_path_agrees_with_the_value_path(seed: int) -> None:
    """A frame's numeric columns are checked with numpy; each row's record must be the one
    the per-value path (a mapping per row) gives, good values and bad ones alike."""
    rng = np.random.default_rng(seed)
    dg = random_decision_graph(seed, "tree", max_features=5)
    points = ClassTable.of_graph(dg).points()
    columns: dict[str, list[Any]] = {}
    for j, f in enumerate(dg.features):
        good = [x[j] for x in points]
        if f.is_discrete:
            bad = [99, -1, float("nan")]
        else:
            bad = [f.low - 1 if math.isfinite(f.low) else 0.5, float("nan"), math.inf]
            if f.kind == "integer":
                bad.append(0.5)
        columns[f.name] = [
            bad[rng.integers(len(bad))] if rng.random() < 0.1 else good[i]
            for i in range(len(points))
        ]
    frame = pd.DataFrame(columns)
    by_frame = list(xpg.explain_many(dg, frame))
    by_rows = list(xpg.explain_many(dg, frame.to_dict("records")))
    strip = [{k: v for k, v in r.items() if k != "seconds"} for r in by_frame]
    assert strip == [{k: v for k, v in r.items() if k != "seconds"} for r in by_rows]
    assert any("error" in r for r in by_frame) or len(points) < 5


@pytest.mark.parametrize("kind", ["forest", "boosted"])
def test_conditions_say_what_each_explanation_means(kind: str) -> None:
    """``kinds`` with ``conditions`` (issue 28): each AXp's conditions are those of
    :func:`~xpg.explain.describe.explanation_conditions`; each counterexample changes only its
    CXp's features and gets, by the model's own ``predict``, the class it names; compiled and
    on the ensemble route alike."""
    from xpg.explain.describe import explanation_conditions
    from xpg.testing import random_sklearn_ensemble

    for seed in range(3):
        estimator, features, points = random_sklearn_ensemble(seed, kind)  # type: ignore[arg-type]
        model = xpg.ensemble_from_sklearn(estimator, features)
        names = [f.name for f in model.features]
        rows = [points[i].tolist() for i in range(0, len(points), max(1, len(points) // 5))]
        for budget in (None, 1):  # compiled; the ensemble route
            explainer = BatchExplainer(
                Explainer(model, budget=budget, many=True), kinds="axp,cxp,conditions"
            )
            for n, row in enumerate(rows):
                record = explainer.explain_row(n, row)
                if budget is None:
                    target = xpg.ExplanationGraph.from_decision_graph(
                        model.to_decision_graph(), row
                    )
                    assert record["conditions"] == [
                        explanation_conditions(target, a) for a in record["axps"]
                    ]
                else:
                    with xpg.Explainer(model, route="sat").explain(row) as target:
                        assert record["conditions"] == [
                            explanation_conditions(target, a) for a in record["axps"]
                        ]
                triples = zip(
                    record["cxps"],
                    record["counterexamples"],
                    record["counterexample_classes"],
                    strict=True,
                )
                for cxp, changed, cls in triples:
                    assert set(changed) <= set(cxp)
                    moved = [changed.get(n_, v) for n_, v in zip(names, row, strict=True)]
                    assert str(estimator.predict([moved])[0]) == cls != record["prediction"]
