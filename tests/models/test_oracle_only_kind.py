"""The worked example of docs/model-kinds.md, "Adding a kind that is never compiled": the
``LinearScore`` kind and its oracle, taken from the page as written, registered with one line,
pass the oracle battery against brute force, are explained by ``xpg.Explainer`` and on the
command line, survive a JSON round trip and are verified by their SMT encoding.
"""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import xpg
from xpg.core.features import Feature
from xpg.io.model_json import compile_model
from xpg.models import register_model_kind, unregister_model_kind
from xpg.testing import Oracle as Truth
from xpg.testing import domain_values

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "oracles"))
from battery import CHECKS, Case  # noqa: E402

PAGE = Path(__file__).resolve().parents[2] / "docs" / "model-kinds.md"


def _page_namespace() -> dict[str, Any]:
    """The code block of the page that defines ``LinearScore``, executed once."""
    blocks = re.findall(r"```python\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.S)
    source = next(b for b in blocks if "class LinearScore" in b)
    namespace: dict[str, Any] = {"__name__": "linear_score"}
    exec(source, namespace)
    return namespace


NAMESPACE = _page_namespace()
LinearScore = NAMESPACE["LinearScore"]


@pytest.fixture
def registered() -> Iterator[type]:
    register_model_kind(LinearScore)
    yield LinearScore
    unregister_model_kind("linear-score")


def _random_case(rng: random.Random) -> tuple[Any, dict[str, Any]]:
    features = [
        Feature.boolean(f"b{i}") if rng.random() < 0.5 else Feature.integer(f"n{i}", 0, 3)
        for i in range(rng.randint(2, 5))
    ]
    weights = [rng.randint(-3, 3) for _ in features]
    model = LinearScore(features, weights, rng.randint(-3, 4), ["no", "yes"])
    x = {f.name: rng.choice(domain_values(f)) for f in features}
    return model, x


def test_the_page_kind_passes_the_oracle_battery() -> None:
    rng = random.Random(29)
    for n in range(40):
        model, x = _random_case(rng)
        grid = {f.name: domain_values(f) for f in model.features}
        truth = Truth.of_model(model.predict, model.features, grid, x)
        case = Case(f"linear-{n}", lambda m=model, x=x: m.explanation_oracle(x), truth)
        for check in CHECKS:
            check(case)


def test_the_explainer_asks_the_model_for_its_oracle_and_never_compiles(registered: type) -> None:
    features = [Feature.boolean(n) for n in "abcd"]
    model = LinearScore(features, [3, -2, 1, 2], 3, ["no", "yes"])
    x = {"a": 1, "b": 0, "c": 1, "d": 0}
    explainer = xpg.Explainer(model)
    assert explainer.route == "oracle" and explainer.graph is None
    assert not explainer.supports("compile") and not explainer.supports("robustness")
    with explainer.explain(x) as decision:
        assert decision.route == "linear-bound" and decision.prediction == "yes"
        result = decision.enumerate()
        assert result.complete
        assert sorted(result.axps) == [("a", "b")]  # 3 - 0 + (c = 0) + (d = 0) >= 3
        assert sorted(result.cxps) == [("a",), ("b",)]
        assert decision.classify_features().necessary == ("a", "b")
    with pytest.raises(xpg.InvalidModelError, match="never compiled"):
        compile_model(model)


def test_json_round_trip_verification_and_command_line(registered: type, tmp_path: Path) -> None:
    features = [Feature.boolean(n) for n in "abcd"]
    model = LinearScore(features, [3, -2, 1, 2], 3, ["no", "yes"])
    path = tmp_path / "m.json"
    xpg.save_model(model, path)
    again = xpg.read_model(path)
    assert type(again) is LinearScore and again.weights == [3, -2, 1, 2]
    x = {"a": 1, "b": 0, "c": 1, "d": 0}
    assert xpg.verify_axp(again, x, ["a", "b"]).holds
    assert not xpg.verify_axp(again, x, ["a", "c"]).holds  # b = 1, d = 0: 3 - 2 + 1 < 3
    # the command line, in a process of its own: the kind is registered by a startup module
    script = (
        "import runpy, sys\n"
        "from xpg.models import register_model_kind\n"
        f"namespace = runpy.run_path({str(tmp_path / 'kind.py')!r})\n"
        "register_model_kind(namespace['LinearScore'])\n"
        "from xpg.cli.main import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    block = next(
        b
        for b in re.findall(r"```python\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.S)
        if "class LinearScore" in b
    )
    (tmp_path / "kind.py").write_text(block, encoding="utf-8")
    (tmp_path / "run.py").write_text(script, encoding="utf-8")
    out = subprocess.run(
        [
            sys.executable,
            str(tmp_path / "run.py"),
            "enum",
            str(path),
            "--instance",
            "a=1,b=0,c=1,d=0",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["axps"] == [["a", "b"]] and sorted(doc["cxps"]) == [["a"], ["b"]]
    assert doc["route"] == "linear-bound"
