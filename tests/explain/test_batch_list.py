"""Batches of rows on decision lists too large to compile: the per-row SAT oracle route
(``list-sat``; a compile budget of 2 forces it on small random lists) against the
compiled-graph route and brute force, record by record; and ``xpg explain`` on a list over the
default budget."""

from __future__ import annotations

import json
import pickle
import random
from pathlib import Path
from typing import Any

import pytest

from xpg.cli.main import main
from xpg.errors import GraphTooLargeError
from xpg.explain.batch import DEFAULT_ORACLE_TIMEOUT, BatchExplainer
from xpg.explain.engine import Explainer, explain_many
from xpg.io.model_json import save_model
from xpg.models.decision_list import DecisionList
from xpg.testing import (
    Oracle,
    grid_from_literals,
    long_decision_list,
    random_decision_list,
    random_features,
    random_instance,
)

KINDS = "axp,cxp,features,conditions,robustness"


def _family(lists: list[list[str]]) -> set[frozenset[str]]:
    return {frozenset(x) for x in lists}


def _cases(seed: int, n: int) -> list[tuple[DecisionList, list[dict[str, Any]]]]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        feats = random_features(rng, rng.randint(2, 5), None)
        dl = random_decision_list(rng, feats, rng.randint(2, 3), rng.randint(2, 7))
        grid = grid_from_literals(feats, [lit for r in dl.rules for lit in r.conditions])
        out.append((dl, [random_instance(rng, feats, grid) for _ in range(4)]))
    return out


def test_list_route_equals_the_graph_route_and_brute_force() -> None:
    """Same fields, same AXps, CXps and feature classes, same robustness distance, as the
    compiled graph's records and as exhaustive evaluation of the list."""
    refused = 0
    for dl, rows in _cases(11, 30):
        try:
            dl.to_decision_graph(budget=2)
        except GraphTooLargeError:
            refused += 1
        else:
            continue  # a constant list: nothing to force
        listed = BatchExplainer(Explainer(dl, budget=2, many=True), kinds=KINDS, limit=None)
        assert (listed.route, listed.explainer.graph, listed.timeout) == (
            "list-sat",
            None,
            DEFAULT_ORACLE_TIMEOUT,
        )
        graph = BatchExplainer(Explainer(dl, many=True), kinds=KINDS, limit=None)
        assert (graph.route, graph.timeout) == ("graph", None)
        grid = grid_from_literals(dl.features, [lit for r in dl.rules for lit in r.conditions])
        for i, x in enumerate(rows):
            a, b = listed.explain_row(i, x), graph.explain_row(i, x)
            assert list(a) == list(b)  # the same fields, in the same order
            truth = Oracle.of_model(dl.predict, dl.features, grid, x, dl.tested_features())
            assert a["prediction"] == b["prediction"] == str(dl.predict(x))
            assert a["complete"] and b["complete"]
            assert _family(a["axps"]) == _family(b["axps"]) == truth.axps
            assert _family(a["cxps"]) == _family(b["cxps"]) == truth.cxps
            assert len(a["axps"]) == len(truth.axps) and len(a["cxps"]) == len(truth.cxps)
            for k in ("necessary", "relevant", "irrelevant"):
                assert a[k] == b[k]
            # one condition per feature of each AXp (a graph's cells can be coarser: its
            # edges merge the list's cells that no path tells apart)
            assert [len(c) for c in a["conditions"]] == [len(x) for x in a["axps"]]
            for cex, cls in zip(a["counterexamples"], a["counterexample_classes"], strict=True):
                assert str(dl.predict({**x, **cex})) == cls != a["prediction"]
            ra, rb = a["robustness"], b["robustness"]
            assert list(ra) == list(rb) and ra["distance"] == rb["distance"]
            if ra["counterexample"] is not None:
                assert str(dl.predict(ra["counterexample"])) == ra["counterexample_class"]
                assert ra["counterexample_class"] != a["prediction"]
    assert refused >= 20


def test_explain_many_falls_back_per_row_and_pickles(monkeypatch: pytest.MonkeyPatch) -> None:
    """``explain_many`` (no budget parameter) on a list over the budget: records, not
    GraphTooLargeError; the explainer pickles without a solver."""
    dl, rows = next((dl, rows) for dl, rows in _cases(12, 20) if len(dl.rules) > 3)
    want = [
        {k: v for k, v in r.items() if k != "seconds"} for r in explain_many(dl, rows, limit=None)
    ]
    # the default compile budget, 2 diagram nodes
    monkeypatch.setattr(DecisionList.to_decision_graph, "__defaults__", (2,))
    with pytest.raises(GraphTooLargeError):
        dl.to_decision_graph()
    got = list(explain_many(dl, rows, limit=None))
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert list(g) == [*w, "seconds"]
        assert (g["row"], g["prediction"]) == (w["row"], w["prediction"])
        assert _family(g["axps"]) == _family(w["axps"]) and _family(g["cxps"]) == _family(w["cxps"])
    copy = pickle.loads(pickle.dumps(BatchExplainer(Explainer(dl, many=True), kinds="axp")))
    assert copy.route == "list-sat" and copy.explainer.graph is None
    assert _family(copy.explain_row(0, rows[0])["axps"]) == _family(got[0]["axps"])


def test_cli_explain_on_a_list_over_the_budget(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dl = long_decision_list(60)
    with pytest.raises(GraphTooLargeError):
        dl.to_decision_graph()  # the default budget
    model = tmp_path / "list.json"
    save_model(dl, model)
    rng = random.Random(4)
    rows = [
        {f.name: rng.choice([0, 1]) if f.is_discrete else rng.randint(0, 16) for f in dl.features}
        for _ in range(3)
    ]
    data = tmp_path / "rows.csv"
    names = [f.name for f in dl.features]
    data.write_text(
        ",".join(names) + "\n" + "".join(",".join(str(r[n]) for n in names) + "\n" for r in rows)
    )
    out = tmp_path / "out.jsonl"
    code = main(["explain", str(model), "--data", str(data), "--limit", "6", "-o", str(out)])
    assert code == 0, capsys.readouterr().err
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["row"] for r in records] == [0, 1, 2]
    for r, x in zip(records, rows, strict=True):
        assert "error" not in r and r["prediction"] == str(dl.predict(x))
        assert len(r["axps"]) + len(r["cxps"]) <= 6
        for axp in r["axps"]:  # each AXp keeps the class whatever the free features are
            fixed = {n: x[n] for n in axp}
            for y in (dict(x), {**x, **{n: 1 - x[n] for n in names if n != "n"}}):
                assert dl.predict({**y, **fixed}) == dl.predict(x)
