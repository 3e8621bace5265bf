"""``xpg.explain_many`` at its edges (issue 31, item 11): a row that is no row is an error
record and the rows after it are explained; a DataFrame's index that is not unique integers
(strings, dates, floats, repeated values) numbers rows by position, keeping the index value
as ``"index"``; bad arguments raise at the call, not at the first ``next()``."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest

import xpg
from xpg.errors import InvalidParameterError, InvalidQueryError
from xpg.examples import and_graph
from xpg.explain.engine import Explainer

GOOD = [{"a": 1, "b": 1}, {"a": 0, "b": 1}, {"a": 1, "b": 0}]


def _strip(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in r.items() if k != "seconds"} for r in records]


@pytest.mark.parametrize(
    "bad", [7, None, 2.5, "ab", b"ab", {1, 0}, np.int64(3), np.zeros((2, 2)), object()]
)
def test_a_row_that_is_no_row_is_an_error_record_and_the_generator_goes_on(bad: Any) -> None:
    rows = [GOOD[0], bad, GOOD[1], [1, 0], bad, GOOD[2]]
    records = list(xpg.explain_many(and_graph(), rows, start=5))
    assert [r["row"] for r in records] == [5, 6, 7, 8, 9, 10]
    for r in (records[1], records[4]):
        assert set(r) == {"row", "error"}
        assert r["error"].startswith("expected a mapping (feature -> value) or a sequence")
    want = _strip(list(xpg.explain_many(and_graph(), [GOOD[0], GOOD[1], [1, 0], GOOD[2]])))
    got = _strip([records[i] for i in (0, 2, 3, 5)])
    assert [{k: v for k, v in r.items() if k != "row"} for r in got] == [
        {k: v for k, v in r.items() if k != "row"} for r in want
    ]


def test_a_series_row_is_read_by_its_labels() -> None:
    series = pd.Series({"b": 0, "a": 1})  # labels, not feature order
    (record,) = xpg.explain_many(and_graph(), [series])
    (by_dict,) = xpg.explain_many(and_graph(), [{"a": 1, "b": 0}])
    assert _strip([record]) == _strip([by_dict])


INDEXES = {
    "strings": pd.Index(["p", "q", "r", "s"]),
    "dates": pd.date_range("2024-01-01", periods=4, freq="D"),
    "floats": pd.Index([0.5, 1.5, 2.0, 7.25]),
    "repeated": pd.Index([3, 3, 1, 1]),
    "multi": pd.MultiIndex.from_tuples([("x", 1), ("x", 2), ("y", 1), ("y", 2)]),
}


@pytest.mark.parametrize("name", sorted(INDEXES))
@pytest.mark.parametrize("start", [0, 40])
def test_a_frame_with_another_index_is_numbered_by_position(name: str, start: int) -> None:
    index = INDEXES[name]
    frame = pd.DataFrame({"a": [1, 0, 1, 3], "b": [1, 1, 0, 1]}, index=index)
    records = list(xpg.explain_many(and_graph(), frame, start=start))
    assert [r["row"] for r in records] == list(range(start, start + 4))
    assert [list(r)[:2] for r in records] == [["row", "index"]] * 4
    want: list[Any] = []
    for value in index:
        if isinstance(value, tuple):
            want.append([v.item() if hasattr(v, "item") else v for v in value])
        elif isinstance(value, pd.Timestamp):
            want.append(str(value))
        else:
            want.append(value.item() if hasattr(value, "item") else value)
    assert [r["index"] for r in records] == want
    import json

    json.dumps(records)  # every record is JSON
    by_rows = list(xpg.explain_many(and_graph(), frame.to_dict("records"), start=start))
    assert [{k: v for k, v in r.items() if k != "index"} for r in _strip(records)] == _strip(
        by_rows
    )
    assert records[3]["error"] == "feature 'a': expected one of [0, 1], found 3"


def test_a_frame_with_unique_integers_is_numbered_by_them() -> None:
    for index in (pd.RangeIndex(100, 103), pd.Index([7, 2, 9]), pd.RangeIndex(0, 6, 2)):
        frame = pd.DataFrame({"a": [1, 0, 1], "b": [1, 1, 0]}, index=index)
        records = list(xpg.explain_many(and_graph(), frame))
        assert [r["row"] for r in records] == list(index)
        assert all("index" not in r for r in records)


def test_a_frame_missing_a_feature_keeps_the_index() -> None:
    frame = pd.DataFrame({"a": [1, 0]}, index=["u", "v"])
    records = list(xpg.explain_many(and_graph(), frame))
    assert records == [
        {"row": 0, "index": "u", "error": "the data has no column for feature(s) 'b'"},
        {"row": 1, "index": "v", "error": "the data has no column for feature(s) 'b'"},
    ]


@pytest.mark.parametrize(
    "options, error",
    [
        ({"kinds": "axp,nope"}, InvalidQueryError),
        ({"kinds": ""}, InvalidQueryError),
        ({"limit": 0}, InvalidParameterError),
        ({"limit": -3}, InvalidParameterError),
        ({"timeout": -1.0}, InvalidParameterError),
        ({"timeout": "soon"}, InvalidParameterError),
        ({"start": -1}, InvalidParameterError),
        ({"start": "3"}, InvalidParameterError),
    ],
)
def test_bad_arguments_raise_at_the_call(options: dict[str, Any], error: type) -> None:
    with pytest.raises(error):
        xpg.explain_many(and_graph(), GOOD, **options)
    with pytest.raises(error):
        Explainer(and_graph(), many=True).explain_many(GOOD, **options)


@pytest.mark.parametrize("rows", [5, None, 3.5])
def test_rows_that_are_not_a_table_raise_at_the_call(rows: Any) -> None:
    with pytest.raises(InvalidParameterError, match="rows: expected"):
        xpg.explain_many(and_graph(), rows)


def test_good_arguments_stay_lazy() -> None:
    consumed: list[int] = []

    def rows() -> Any:
        for k, row in enumerate(GOOD):
            consumed.append(k)
            yield row

    records = xpg.explain_many(and_graph(), rows(), kinds="axp")
    assert consumed == []
    assert next(records)["row"] == 0 and consumed == [0]
