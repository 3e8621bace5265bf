"""``xpg.plots`` on the records of every model kind: the artists drawn are the numbers computed
independently from the records (bar widths = shares recounted from the AXps, bar heights =
sizes counted here, legend = classes recomputed here, the instance inside its inflated bar),
and bad input is a named error."""

from __future__ import annotations

import random
import sys
from collections import Counter
from typing import Any

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import xpg  # noqa: E402
from xpg.errors import InvalidParameterError, MissingExtraError  # noqa: E402
from xpg.models.obdd import OBDD  # noqa: E402
from xpg.plots import (  # noqa: E402
    plot_attribution,
    plot_explanation,
    plot_explanation_sizes,
    plot_robustness,
    plot_table_attribution,
)
from xpg.summary import TableSummary  # noqa: E402
from xpg.testing import (  # noqa: E402
    GRID,
    ClassTable,
    dnf_obdd,
    domain_values,
    random_decision_graph,
    random_decision_list,
    random_decision_tree,
    random_features,
    random_instance,
    random_omdd,
    random_risk_score,
)
from xpg.testing.ensembles import random_small_ensemble  # noqa: E402
from xpg.testing.oracle import numeric_representatives  # noqa: E402

KINDS = ("tree", "list", "obdd", "omdd", "graph", "risk-score", "forest", "boosted")
ALL = "axp,cxp,features,robustness,attribution,inflated"


def _rows(model: Any, rng: random.Random, n: int) -> list[dict[str, Any]]:
    grid = {
        f.name: domain_values(f) if f.is_discrete else numeric_representatives(f, GRID)
        for f in model.features
    }
    return [random_instance(rng, model.features, grid) for _ in range(n)]


def _case(kind: str) -> tuple[Any, list[dict[str, Any]]]:
    """A seeded small model of ``kind`` (an Explainer for the ensembles) and rows of it."""
    rng = random.Random(kind)
    feats = random_features(rng, 4)
    if kind == "tree":
        model: Any = random_decision_tree(rng, feats, 2, 3)
    elif kind == "list":
        model = random_decision_list(rng, feats, 2, 4)
    elif kind == "omdd":
        model = random_omdd(rng, random_features(rng, 3, ["boolean", "categorical", "integer"]), 2)
    elif kind == "obdd":
        names = ["b0", "b1", "b2", "b3"]
        model = OBDD(dnf_obdd([[("b0", True), ("b1", False)], [("b2", True)]], names)[1],
                     classes=["no", "yes"])  # fmt: skip
    elif kind == "graph":
        model = random_decision_graph(3, "dag")
        names = [f.name for f in model.features]
        return model, [dict(zip(names, p)) for p in ClassTable.of_graph(model).points()[:12]]
    elif kind == "risk-score":
        model = random_risk_score(rng, feats, 3)
    else:
        est, efeats, X = random_small_ensemble(1, kind, n_features=4)
        explainer = xpg.Explainer(est, efeats, many=True)
        rows = [dict(zip([f.name for f in efeats], map(int, x))) for x in X[:12]]
        return explainer, rows
    return model, _rows(model, rng, 12)


_CACHE: dict[str, tuple[list[dict[str, Any]], list[dict[str, Any]], list[str]]] = {}


def records_of(kind: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[str]]:
    """The records of every kind of field (no budget: exact shares), the rows, the features."""
    if kind not in _CACHE:
        model, rows = _case(kind)
        explainer = model if isinstance(model, xpg.Explainer) else xpg.Explainer(model, many=True)
        records = list(explainer.explain_many(rows, kinds=ALL, limit=None, timeout=None))
        assert all("error" not in r for r in records)
        _CACHE[kind] = (records, rows, [f.name for f in explainer.features])
    return _CACHE[kind]


def _widths(ax: Any) -> list[float]:
    return [float(p.get_width()) for p in ax.patches]


def _labels(ax: Any) -> list[str]:
    return [t.get_text() for t in ax.get_yticklabels()]


def _shares(record: dict[str, Any], features: list[str]) -> dict[str, float]:
    """A feature's share of the record's AXps, counted here."""
    axps = record["axps"]
    return {f: sum(f in a for a in axps) / len(axps) for f in features}


@pytest.fixture(autouse=True)
def _close_figures() -> Any:
    yield
    plt.close("all")


@pytest.mark.parametrize("kind", KINDS)
def test_attribution_of_one_row(kind: str) -> None:
    records, _, features = records_of(kind)
    for record in records[:4]:
        ax = plot_attribution(record)
        shares = _shares(record, features)
        expected = sorted(shares.items(), key=lambda item: -item[1])
        assert len(ax.patches) == len(features)
        assert _widths(ax) == pytest.approx([v for _, v in expected])
        assert sorted(_labels(ax)) == sorted(features)
        got = dict(zip(_labels(ax), _widths(ax)))
        assert got == pytest.approx(shares)
        assert f"row {record['row']}" in ax.get_title()


@pytest.mark.parametrize("kind", KINDS)
def test_attribution_over_the_table(kind: str) -> None:
    records, _, features = records_of(kind)
    ax = plot_table_attribution(records)
    means = {f: float(np.mean([_shares(r, features)[f] for r in records])) for f in features}
    assert len(ax.patches) == len(features)
    assert dict(zip(_labels(ax), _widths(ax))) == pytest.approx(means)
    assert _widths(ax) == sorted(_widths(ax), reverse=True)
    # the classes over the table, from the records' own lists
    classes = {}
    for f in features:
        if all(f in r["necessary"] for r in records):
            classes[f] = "necessary in every row"
        elif all(f in r["irrelevant"] for r in records):
            classes[f] = "irrelevant in every row"
        else:
            classes[f] = "relevant"
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert sorted(legend) == sorted(set(classes.values()))
    colour = {h.get_label(): h.get_facecolor() for h in ax.get_legend().legend_handles}
    for name, patch in zip(_labels(ax), ax.patches):
        assert patch.get_facecolor() == colour[classes[name]], name


@pytest.mark.parametrize("kind", KINDS)
def test_explanation_sizes(kind: str) -> None:
    records, _, _ = records_of(kind)
    ax = plot_explanation_sizes(records)
    axps = Counter(len(a) for r in records for a in r["axps"])
    cxps = Counter(len(c) for r in records for c in r["cxps"])
    first, second = ax.containers
    assert [float(p.get_height()) for p in first] == [axps[s] for s in sorted(axps)]
    assert [float(p.get_height()) for p in second] == [cxps[s] for s in sorted(cxps)]
    assert [round(p.get_x() + p.get_width() / 2) for p in first] == sorted(axps)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == [
        f"AXps ({sum(axps.values())})",
        f"CXps ({sum(cxps.values())})",
    ]


@pytest.mark.parametrize("kind", KINDS)
def test_robustness(kind: str) -> None:
    records, _, _ = records_of(kind)
    ax = plot_robustness(records)
    distances = [r["robustness"]["distance"] for r in records]
    found = [d for d in distances if d is not None]
    heights = [float(p.get_height()) for p in ax.patches]
    assert sum(heights) == len(found)
    none = len(distances) - len(found)
    assert (f"{none} with none" in ax.get_title()) == (none > 0)
    if found and len(set(found)) <= 30 and all(d == round(d) for d in found):
        at = {round(p.get_x() + p.get_width() / 2): p.get_height() for p in ax.patches}
        assert at == Counter(round(d) for d in found)


@pytest.mark.parametrize("kind", KINDS)
def test_one_explanation_with_its_inflated_ranges(kind: str) -> None:
    records, rows, _ = records_of(kind)
    for record in records[:6]:
        instance = rows[record["row"]]
        ax = plot_explanation(record, instance)
        k = min(range(len(record["axps"])), key=lambda i: len(record["axps"][i]))
        inflated = record["inflated"][k]
        assert _labels(ax) == [item["feature"] for item in inflated]
        assert [item["feature"] for item in inflated] == record["axps"][k] or sorted(
            item["feature"] for item in inflated
        ) == sorted(record["axps"][k])
        assert len(ax.patches) == len(inflated)
        markers = [line for line in ax.lines if line.get_marker() == "D"]
        assert len(markers) == len(inflated)
        for patch, marker in zip(ax.patches, markers):
            x = float(marker.get_xdata()[0])  # the instance lies in its inflated range
            assert patch.get_x() - 1e-9 <= x <= patch.get_x() + patch.get_width() + 1e-9
            assert patch.get_y() <= marker.get_ydata()[0] <= patch.get_y() + patch.get_height()


def test_explanation_ranges_are_drawn_to_scale() -> None:
    axp = [
        {"feature": "x", "condition": "2 < x <= 6", "low": 2, "high": 6,
         "low_inclusive": False, "high_inclusive": True},
        {"feature": "y", "condition": "y > 1", "low": 1, "high": None,
         "low_inclusive": False, "high_inclusive": False},
        {"feature": "c", "condition": "c in {'r', 'g'}", "values": ["r", "g"]},
    ]  # fmt: skip
    ax = plot_explanation(axp, {"x": 3, "y": 5, "c": "r"})
    x_bar, y_bar, c_bar = ax.patches
    # x: the axis spans [2 - 1, 6 + 1], the bar [2, 6], the marker at 3
    assert (x_bar.get_x(), x_bar.get_width()) == pytest.approx((1 / 6, 4 / 6))
    assert float(ax.lines[0].get_xdata()[0]) == pytest.approx(2 / 6)
    # y: unbounded above, the bar runs to the edge
    assert y_bar.get_x() + y_bar.get_width() == pytest.approx(1.0)
    assert (c_bar.get_x(), c_bar.get_width()) == (0.0, 1.0)
    assert any("r, g" in t.get_text() for t in ax.texts)
    assert len(plot_explanation(axp).lines) == 0  # no instance, no marker


def test_a_record_with_an_empty_axp_draws_nothing() -> None:
    ax = plot_explanation({"row": 0, "prediction": "1", "axps": [[]], "inflated": [[]]})
    assert len(ax.patches) == 0 and "empty" in ax.get_title()


def test_own_axes_and_index() -> None:
    records, rows, _ = records_of("tree")
    fig, ax = plt.subplots()
    assert plot_table_attribution(records, ax=ax) is ax
    record = max(records, key=lambda r: len(r["axps"]))
    last = len(record["axps"]) - 1
    drawn = plot_explanation(record, rows[record["row"]], index=last)
    assert _labels(drawn) == [i["feature"] for i in record["inflated"][last]]
    summary = TableSummary.of(records)
    assert _widths(plot_table_attribution(summary)) == _widths(plot_table_attribution(records))


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: plot_table_attribution([]), "at least one record"),
        (lambda: plot_explanation_sizes([]), "at least one record"),
        (
            lambda: plot_table_attribution([{"row": 0, "prediction": "1", "axps": [["a"]]}]),
            "--kinds attribution",
        ),
        (
            lambda: plot_robustness([{"row": 0, "prediction": "1", "axps": [["a"]]}]),
            "--kinds robustness",
        ),
        (lambda: plot_explanation_sizes([{"row": 0, "prediction": "1"}]), "--kinds axp"),
        (
            lambda: plot_explanation({"row": 3, "prediction": "1", "axps": [["a"]]}),
            "row 3: no 'inflated'",
        ),
        (lambda: plot_explanation({"row": 3, "error": "bad value"}), "an error record"),
        (lambda: plot_attribution({"row": 3, "prediction": "1"}), "--kinds attribution"),
        (lambda: plot_attribution({"a": 1.5}), "share from 0 to 1"),
        (lambda: plot_attribution({}), "found none"),
        (lambda: plot_table_attribution("records.jsonl"), "expected an iterable of records"),
        (lambda: plot_table_attribution([{"prediction": "1"}]), "a mapping with a row number"),
        (lambda: plot_explanation([{"feature": "x", "low": "a", "high": 2}]), "'low' and 'high'"),
        (
            lambda: plot_explanation([{"feature": "x", "low": 1, "high": 2}], {"x": "big"}),
            "expected a number",
        ),
        (
            lambda: plot_explanation({"row": 1, "axps": [["x"]], "inflated": [[]]}, index=4),
            "expected an AXp from 0 to 0",
        ),
        (lambda: plot_attribution({"a": 0.5}, ax="axes"), "expected matplotlib Axes"),
    ],  # fmt: skip
)
def test_bad_input_is_a_named_error(call: Any, message: str) -> None:
    with pytest.raises(InvalidParameterError, match=message.replace("(", r"\(")):
        call()


def test_without_matplotlib_the_error_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(MissingExtraError, match=r"\[plot\]"):
        plot_attribution({"a": 0.5})
