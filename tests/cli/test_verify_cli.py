"""``xpg verify`` through the real command line: every explanation ``xpg enum`` prints for a
model file is confirmed, perturbed claims are refuted (exit 1), bad input is exit 2."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest

from xpg.cli.main import main
from xpg.io.model_json import read_model_dict

REPO = Path(__file__).resolve().parents[2]


def _doc_examples() -> list[dict[str, Any]]:
    text = (REPO / "docs" / "model-format.md").read_text()
    blocks = re.findall(r"```json\n(.*?)```", text, flags=re.S)
    return [json.loads(b) for b in blocks if '"format": "xpg-model"' in b]


@pytest.mark.slow
def test_cli_enum_then_verify_every_explanation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rng = random.Random(5)
    checked = 0
    for i, doc in enumerate(_doc_examples()):
        path = tmp_path / f"m{i}.json"
        path.write_text(json.dumps(doc))
        features = read_model_dict(doc).features
        for _ in range(3):
            inst = ",".join(
                f"{f.name}="
                + str(
                    rng.choice(f.values)
                    if f.is_discrete
                    else rng.choice([v for v in (0, 1, 2, 5, 30, 70, 100) if f.low <= v <= f.high])
                )
                for f in features
            )
            assert main(["enum", str(path), "--instance", inst, "--json"]) == 0
            found = json.loads(capsys.readouterr().out)
            assert found["complete"] is True
            for kind in ("axp", "cxp"):
                for e in found[kind + "s"]:
                    status = main(
                        [
                            "verify",
                            str(path),
                            "--instance",
                            inst,
                            f"--{kind}",
                            ",".join(e),
                            "--json",
                        ]
                    )
                    verdict = json.loads(capsys.readouterr().out)
                    assert status == 0 and verdict["holds"] is True, (doc["model"]["type"], e)
                    assert verdict["kind"] == kind and sorted(verdict["features"]) == e
                    checked += 1
            for e in found["cxps"]:  # a CXp with every other tested feature added
                bigger = sorted({n for x in found["axps"] + found["cxps"] for n in x})
                if bigger != e:
                    assert (
                        main(["verify", str(path), "--instance", inst, "--cxp", ",".join(bigger)])
                        == 1
                    )
                    assert "does NOT hold, not-minimal" in capsys.readouterr().out
    assert checked >= 20
    path = tmp_path / "m0.json"
    for argv, message in (
        (["--instance", "nope=1", "--axp", "x"], "unknown feature 'nope'"),
        (["--instance", "{", "--axp", "x"], "malformed JSON"),
    ):
        assert main(["verify", str(path), *argv]) == 2
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1
    assert main(["verify", str(path), "--instance", "x=1"]) == 2  # no claim: a usage error
    capsys.readouterr()
