"""The cell cache of a batch (:mod:`xpg.explain.cell_cache`): the records of rows answered
from their cell are byte for byte those of rows explained one by one (but for "seconds"), on
random trees and graphs and on adult's depth-6 tree, over rows with duplicates, values on the
thresholds, missing values, values outside the domains and text."""

from __future__ import annotations

import json
import math
import pickle
import random
import re
import sys
from typing import Any

import numpy as np
import pandas as pd
import pytest
from conftest import REPO_ROOT, shared_path

from xpg.core.features import Feature
from xpg.explain.batch import BatchExplainer
from xpg.explain.cell_cache import applies, cache_of
from xpg.explain.engine import Explainer
from xpg.explain.records import encode_records
from xpg.io.tables import ERROR_COLUMN
from xpg.testing import random_decision_graph

SECONDS = re.compile(r'"seconds": [0-9.e+-]+')


def _value(rng: random.Random, f: Feature, dirty: bool) -> Any:
    """A value of ``f``: mostly in the domain, often on a threshold of the random graphs
    (integers 1..9), with ``dirty`` sometimes missing, outside the domain or text."""
    if dirty and rng.random() < 0.12:
        return rng.choice([None, math.nan, "zz", -7, 2.5, math.inf])
    if f.is_discrete:
        return rng.choice(list(f.values))
    if f.kind == "integer":
        return rng.randint(int(f.low), int(f.high))
    return rng.choice([rng.randint(-1, 10), rng.randint(0, 19) / 2, rng.uniform(-2, 11)])


def _frame(rng: random.Random, features: list[Feature], n: int, dirty: bool, start: int) -> Any:
    rows = [[_value(rng, f, dirty) for f in features] for _ in range(n)]
    rows += [list(rows[rng.randrange(n)]) for _ in range(n // 2)]  # duplicates
    rng.shuffle(rows)
    frame = pd.DataFrame(rows, columns=[f.name for f in features])
    frame.index = range(start, start + len(frame))
    frame["y"] = [rng.choice(["a", 1, 2.0, None]) for _ in range(len(frame))]
    return frame


def _plain(explainer: Explainer, **options: Any) -> BatchExplainer:
    batch = BatchExplainer(explainer, **options)
    batch.cell_cache_size = 0  # type: ignore[attr-defined]
    assert cache_of(batch) is None
    return batch


def _same(cached: BatchExplainer, plain: BatchExplainer, chunks: list[Any]) -> None:
    """Every chunk's text and counts with the cache equal those of explain_frame (seconds
    apart), and its records as dicts too."""
    for frame in chunks:
        got = cached.explain_lines(frame)
        plain_records = list(plain.explain_frame(frame))
        want = encode_records(plain_records)
        assert SECONDS.sub("", got.text) == SECONDS.sub("", want.text)
        assert (got.rows, got.errors, got.incomplete) == (want.rows, want.errors, want.incomplete)
        for line in got.text.splitlines():
            record = json.loads(line)
            assert "error" in record or record["seconds"] >= 0
        strip = [{k: v for k, v in r.items() if k != "seconds"} for r in plain_records]
        records = cached.explain_chunk(frame)
        assert [{k: v for k, v in r.items() if k != "seconds"} for r in records] == strip
        assert [list(r) for r in records] == [list(r) for r in plain_records]  # field order


@pytest.mark.parametrize("kind", ["tree", "dag", "ordered"])
def test_random_graphs_same_records_with_and_without_the_cache(kind: str) -> None:
    hits = rows = 0
    for seed in range(8):
        dg = random_decision_graph(seed, kind)
        rng = random.Random(seed)
        explainer = Explainer(dg)
        kinds = ["axp,cxp", "axp,cxp,features", "cxp", "features", "attribution,cxp"][seed % 5]
        options: dict[str, Any] = {"kinds": kinds, "target": "y", "model_id": "m1"}
        options["limit"] = rng.choice([None, 1, 3])
        cached = BatchExplainer(explainer, **options)
        assert cache_of(cached) is not None
        plain = _plain(explainer, **options)
        chunks = [_frame(rng, dg.features, 40, dirty=i % 2 == 1, start=100 * i) for i in range(3)]
        _same(cached, plain, chunks)
        rows += sum(len(c) for c in chunks)
        hits += sum(len(c) for c in chunks) - len(cache_of(cached))  # type: ignore[arg-type]
    assert hits > rows / 2  # the cache answered most rows


def test_a_tiny_cache_evicts_and_stays_exact() -> None:
    dg = random_decision_graph(3, "dag")
    rng = random.Random(1)
    cached = BatchExplainer(Explainer(dg))
    cached.cell_cache_size = 2  # type: ignore[attr-defined]
    chunks = [_frame(rng, dg.features, 30, dirty=True, start=30 * i) for i in range(4)]
    _same(cached, _plain(Explainer(dg)), chunks)
    assert len(cache_of(cached)) <= 2  # type: ignore[arg-type]


def test_gapped_index_bad_lines_and_text_categories() -> None:
    """Rows numbered by the index (a resumed run's chunk has gaps); a line the reader could
    not read keeps its error; categories read as text are coded."""
    f = [Feature.categorical("c", ["red", "blue"]), Feature.real("x"), Feature.integer("n", 0, 4)]
    from xpg.core.features import Literal
    from xpg.core.graph import DecisionGraph

    dg = DecisionGraph(f, classes=["no", "yes"])
    for node, feature in (("r", "c"), ("a", "x"), ("b", "n"), ("d", "x")):
        dg.add_node(node, feature)
    dg.add_terminal("t0", "no")
    dg.add_terminal("t1", "yes")
    dg.add_edge("r", "a", Literal.eq("c", "red"))
    dg.add_edge("r", "b", Literal.eq("c", "blue"))
    dg.add_edge("a", "t0", Literal.interval("x", -math.inf, 1.0, "neither"))
    dg.add_edge("a", "t1", Literal.interval("x", 1.0, 2.5, "left"))
    dg.add_edge("a", "t0", Literal.interval("x", 2.5, math.inf, "left"))
    dg.add_edge("b", "t0", Literal.isin("n", [0, 1]))
    dg.add_edge("b", "d", Literal.isin("n", [2, 3, 4]))
    dg.add_edge("d", "t1", Literal.le("x", 0.0))
    dg.add_edge("d", "t0", Literal.gt("x", 0.0))
    dg.validate()
    frame = pd.DataFrame(
        {
            "c": ["red", "blue", "red ", "green", None, "blue", "red", "red", "red", "red"]
            + ["red", "blue", "blue"],
            "x": [2.5, 0.0, 3.0, 1.0, 1.0, 9.0, 2.4, np.nan, 1.0, 0.99, 2.5, 0.0, -1.0],
            "n": [0, 2, 1, 1, 1, 4, 3, 1, 1, 2, 2, 3, 2],
        },
        index=[3, 5, 6, 9, 10, 11, 20, 21, 22, 23, 24, 25, 26],
    )
    frame[ERROR_COLUMN] = [None] * 5 + ["line 13: expected 3 fields"] + [None] * 7
    cached = BatchExplainer(Explainer(dg), kinds="axp,cxp,features")
    _same(cached, _plain(Explainer(dg), kinds="axp,cxp,features"), [frame, frame.iloc[::-1]])
    rows = [json.loads(line)["row"] for line in cached.explain_lines(frame).text.splitlines()]
    assert rows == frame.index.tolist()
    repeated = frame.set_axis([4, 4, *range(len(frame) - 2)])  # numbered by position
    text = cached.explain_lines(repeated).text
    assert json.loads(text.splitlines()[1])["index"] == 4
    _same(cached, _plain(Explainer(dg), kinds="axp,cxp,features"), [repeated])


def test_not_used_where_records_depend_on_the_values() -> None:
    dg = random_decision_graph(1, "tree")
    explainer = Explainer(dg)
    assert applies(BatchExplainer(explainer, kinds="axp,cxp,features"))
    refused = ({"kinds": "axp,robustness"}, {"kinds": "conditions"}, {"kinds": "inflated"})
    for options in (*refused, {"timeout": 5.0}):
        assert not applies(BatchExplainer(explainer, **options))  # type: ignore[arg-type]

    class Own(BatchExplainer):
        def _record(self, *args: Any, **kwargs: Any) -> Any:
            return super()._record(*args, **kwargs)

    assert not applies(Own(explainer))


def test_a_pickled_batch_leaves_its_cells_behind() -> None:
    dg = random_decision_graph(2, "dag")
    batch = BatchExplainer(Explainer(dg))
    batch.explain_lines(_frame(random.Random(0), dg.features, 50, dirty=False, start=0))
    assert len(cache_of(batch)) > 0  # type: ignore[arg-type]
    copy = pickle.loads(pickle.dumps(batch))
    assert len(cache_of(copy)) == 0  # type: ignore[arg-type]


def test_adult_depth_6_tree() -> None:
    """Resampled adult rows (many per cell), with missing and out-of-domain values."""
    sys.path.insert(0, str(REPO_ROOT))  # bench/ is a folder of the checkout, not a package
    from bench.data import load_dataset
    from bench.models import train_tree

    ds = load_dataset("adult", shared_path("datasets"))
    model = train_tree(ds)
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(ds.X[rng.integers(0, len(ds.X), 1500)], columns=ds.feature_names)
    frame["target"] = [str(v) for v in ds.y[rng.integers(0, len(ds.X), 1500)]]
    frame.loc[rng.integers(0, 1500, 20), "age"] = np.nan
    frame.loc[rng.integers(0, 1500, 20), "capital-gain"] = 1e7
    frame.loc[rng.integers(0, 1500, 20), "sex"] = 3
    explainer = Explainer(model.dg, many=True)
    options: dict[str, Any] = {"kinds": "axp,cxp", "target": "target", "model_id": "abc"}
    cached = BatchExplainer(explainer, **options)
    chunks = [frame.iloc[i : i + 256] for i in range(0, len(frame), 256)]
    _same(cached, _plain(explainer, **options), chunks)
    assert len(cache_of(cached)) < 1500  # type: ignore[arg-type]
