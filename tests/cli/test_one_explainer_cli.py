"""Issue 29, item 4: every command explains FILE through the one explainer, whatever the model
kind, and asks it what it supports.  A kind that is never compiled (the ``LinearScore`` of
docs/model-kinds.md) is explained by every query command over its own oracle and refused in
one plain line by the commands that need a graph; the time budget is one helper on every
route (:func:`xpg.cli.common.within_time`)."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import xpg
from xpg.cli.common import within_time
from xpg.cli.main import main
from xpg.core.features import Feature
from xpg.models import register_model_kind, unregister_model_kind

PAGE = Path(__file__).resolve().parents[2] / "docs" / "model-kinds.md"
INSTANCE = ["--instance", "a=1,b=0,c=1,d=0"]


@pytest.fixture
def linear_model(tmp_path: Path) -> Iterator[str]:
    """The page's ``LinearScore`` kind, registered, and a model file of it: class "yes" when
    3a - 2b + c + 2d >= 3 (at the instance, AXp {a, b}, CXps {a} and {b})."""
    blocks = re.findall(r"```python\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.S)
    namespace: dict[str, Any] = {"__name__": "linear_score"}
    exec(next(b for b in blocks if "class LinearScore" in b), namespace)
    kind = namespace["LinearScore"]
    register_model_kind(kind)
    try:
        path = tmp_path / "m.json"
        features = [Feature.boolean(n) for n in "abcd"]
        xpg.save_model(kind(features, [3, -2, 1, 2], 3, ["no", "yes"]), path)
        yield str(path)
    finally:
        unregister_model_kind("linear-score")


def _json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> Any:
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_a_kind_never_compiled_is_explained_by_every_query_command(
    linear_model: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Was: refused by every command ("cannot compile a linear-score model")."""
    axp = _json(capsys, ["axp", linear_model, *INSTANCE])
    assert axp["features"] == ["a", "b"] and axp["route"] == "linear-bound"
    assert axp["prediction"] == "yes" and axp["conditions"] == ["a = 1", "b = 0"]  # no cells
    cxp = _json(capsys, ["cxp", linear_model, *INSTANCE, "--seed", "b"])
    assert cxp["features"] == ["b"] and cxp["counterexample"] == {"b": 1}
    assert cxp["counterexample_class"] == "no"  # the model's own prediction there
    doc = _json(capsys, ["enum", linear_model, *INSTANCE])
    assert doc["axps"] == [["a", "b"]] and sorted(doc["cxps"]) == [["a"], ["b"]]
    assert doc["complete"] and doc["route"] == "linear-bound"
    assert doc["conditions"] == [["a = 1", "b = 0"]]
    for feature, member in (("a", True), ("c", False)):
        doc = _json(capsys, ["member", linear_model, feature, *INSTANCE])
        assert doc["member"] is member and doc["route"] == "linear-bound"
    doc = _json(capsys, ["features", linear_model, *INSTANCE])
    assert doc["necessary"] == ["a", "b"] and doc["irrelevant"] == ["c", "d"]
    doc = _json(capsys, ["smallest", linear_model, *INSTANCE, "--kind", "cxp"])
    assert doc["features"] in (["a"], ["b"]) and doc["optimal"] and doc["route"] == "linear-bound"
    assert main(["enum", linear_model, *INSTANCE]) == 0
    out = capsys.readouterr().out
    assert out.startswith("prediction: yes\n") and "AXP {a, b}: a = 1; b = 0\n" in out
    assert out.rstrip().endswith("(route: linear-bound)")
    assert main(["validate", linear_model]) == 0
    assert "valid (linear-score; a linear-score model is never compiled" in capsys.readouterr().out


def test_the_commands_that_need_a_graph_ask_and_say_plainly(
    linear_model: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for argv in (
        ["draw", linear_model, "-o", str(tmp_path / "g.dot")],
        ["draw", linear_model, *INSTANCE, "--explain", "-o", str(tmp_path / "g.dot")],
        ["export", linear_model, *INSTANCE, "-o", str(tmp_path / "g.xpg")],
    ):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "Traceback" not in err
        assert "a linear-score model is never compiled into a decision graph" in err
        assert err.rstrip().endswith("use xpg axp, cxp or enum, which explain it without compiling")
    assert main(["robustness", linear_model, *INSTANCE]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "robustness: not defined on the oracle route" in err
    assert not list(tmp_path.glob("g.*"))


def test_one_time_budget_on_every_route() -> None:
    """A query that watches no clock is stopped by the timer signal (the loop ends on the
    signal, not on a clock; the generous guard only keeps a broken timer from hanging the
    test); one that watches its own deadline says what it decided; none: the answer."""
    from xpg.explain.decision import QueryTimeout

    guard = time.monotonic() + 120

    def spins(timeout: float | None) -> str:
        while time.monotonic() < guard:
            pass
        return "never"

    def gives_up(timeout: float | None) -> str:
        raise QueryTimeout("undecided", timeout or 0.0, partial={"decided": ["a"]})

    assert within_time(spins, 0.01) == (None, True, None)
    assert within_time(gives_up, 5.0) == (None, True, {"decided": ["a"]})
    assert within_time(lambda timeout: ("answer", timeout), 5.0) == (("answer", 5.0), False, None)
