"""CN2 lists learned by Orange3 itself: the compiled graphs predict Orange's own class on every
row, train and test, of every dataset of Table 1 and of tables with integer, real and
categorical columns.

Marked ``peers``: ``pytest -m peers`` runs them, creating Orange3's environment
(``$XPG_ENVS_DIR/orange3``, by default ``~/.cache/xpg/envs/orange3``; pip, about 470 MB, a
minute or two) when it is missing; where it cannot be created (no network) they are skipped
with the reason.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import REPO_ROOT, shared_path

from xpg.errors import ExternalEnvError
from xpg.learn.cn2 import ORANGE_ENV, RUNNER, learn_cn2
from xpg.learn.external_env import ensure, run_json
from xpg.learn.table_data import prepare_table
from xpg.models.decision_list import compile_decision_list

sys.path.insert(0, str(REPO_ROOT))  # bench/ is a folder of the checkout, not a package
from bench.data import TABLE1, instance, load_dataset  # noqa: E402
from bench.models import split_rows  # noqa: E402

pytestmark = pytest.mark.peers
RECORDED = Path(__file__).with_name("data") / "cn2_recorded.json"


@pytest.fixture(scope="module")
def orange() -> None:
    try:
        ensure(ORANGE_ENV)
    except ExternalEnvError as err:
        pytest.skip(f"Orange3's environment is not available: {err}")


def check_every_row(X: list[list[Any]], y: list[Any], features: Any, train: Any) -> int:
    """Learn on ``train``; the compiled graph predicts Orange's class on every row."""
    result = learn_cn2([X[i] for i in train], [y[i] for i in train], features, predict=X)
    dg = compile_decision_list(result.model)
    dg.validate()
    table = np.empty((len(X), len(features)), dtype=object)
    table[:] = X
    compiled = dg.predict_batch(table).tolist()
    assert compiled == result.orange_predictions
    assert result.orange_version == "3.40.0"
    return len(X)


@pytest.mark.parametrize("name", list(TABLE1))
def test_table1_lists_compile_to_obdds_that_predict_what_orange_predicts(
    orange: None, name: str
) -> None:
    ds = load_dataset(name, shared_path("datasets"), seed=0)
    rows = [instance(ds, i) for i in range(len(ds.X))]
    labels = [v.item() if isinstance(v, np.generic) else v for v in ds.y.tolist()]
    train, _ = split_rows(len(rows), seed=0)
    assert check_every_row(rows, labels, ds.features, train) == len(ds.X)


@pytest.mark.parametrize("stem", ["iris", "car", "hayes_roth", "new_thyroid"])
def test_lists_on_integer_and_real_columns_predict_what_orange_predicts(
    orange: None, stem: str
) -> None:
    data = prepare_table(shared_path("datasets", "pmlb", f"{stem}.tsv.gz"), "target")
    assert {f.kind for f in data.features} & {"integer", "real"}
    rows = [list(v) for v in data.values]
    train = list(range(0, len(rows), 3)) + list(range(1, len(rows), 3))
    assert check_every_row(rows, data.y.tolist(), data.features, sorted(train)) == len(rows)


def test_the_recorded_answers_are_what_orange_answers(orange: None) -> None:
    """``data/cn2_recorded.json`` (the offline tests' Orange lists, whose compiled graphs
    reproduce the recorded predictions there) is Orange's answer today; its mixed case has
    categorical, integer, boolean and real columns."""
    cases = json.loads(RECORDED.read_text(encoding="utf-8"))["cases"]
    for case in cases:
        assert run_json(ORANGE_ENV, RUNNER, case["request"]) == case["answer"], case["name"]
