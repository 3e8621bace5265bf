"""The six reference explanation graphs: exactly the explanations of their README."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from xpg import enumerate_explanations, find_axp, find_cxp, read_xpg
from xpg.cli.main import main

A = [f"Attribute {i}" for i in range(10)]
EXPECTED = {
    "corral/corral_0.xpg": (
        [{"A0", "B0"}, {"A0", "B1"}, {"A1", "B0"}],
        [{"A0", "A1"}, {"A0", "B0"}, {"B0", "B1"}],
    ),
    "corral/corral_1.xpg": (
        [{"A0", "B0"}, {"A0", "B1"}, {"A1", "B0"}],
        [{"A0", "A1"}, {"A0", "B0"}, {"B0", "B1"}],
    ),
    "mux6/mux6_0.xpg": (
        [{"Address bit 1", "Address bit 2", "Bit 1"}, {"Address bit 1", "Bit 0", "Bit 1"}],
        [{"Address bit 1"}, {"Address bit 2", "Bit 0"}, {"Bit 1"}],
    ),
    "mux6/mux6_1.xpg": (
        [
            {"Address bit 1", "Address bit 2", "Bit 0"},
            {"Address bit 1", "Bit 0", "Bit 1"},
            {"Address bit 2", "Bit 0", "Bit 3"},
            {"Bit 0", "Bit 1", "Bit 3"},
        ],
        [{"Address bit 1", "Bit 3"}, {"Address bit 2", "Bit 1"}, {"Bit 0"}],
    ),
    "xd6/xd6_0.xpg": (
        [set(t) for t in itertools.product(A[1:3], A[4:7], A[8:10])],
        [set(A[1:3]), set(A[4:7]), set(A[8:10])],
    ),
    "xd6/xd6_1.xpg": (
        [{A[3], A[4], A[9]}, {A[3], A[5], A[9]}, {A[3], A[6], A[9]}],
        [{A[3]}, set(A[4:7]), {A[9]}],
    ),
}


def _as_sets(lists) -> list[frozenset[str]]:
    return sorted((frozenset(x) for x in lists), key=sorted)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_python_api(examples_dir: Path, name: str) -> None:
    xg = read_xpg(examples_dir / name)
    axps, cxps = EXPECTED[name]
    result = enumerate_explanations(xg)
    assert result.complete
    assert len(result.axps) == len(axps) and len(result.cxps) == len(cxps)
    assert _as_sets(result.axps) == _as_sets(axps)
    assert _as_sets(result.cxps) == _as_sets(cxps)
    assert set(find_axp(xg)) in axps
    assert set(find_cxp(xg) or ()) in cxps


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_cli_json(examples_dir: Path, name: str, capsys: pytest.CaptureFixture[str]) -> None:
    path = str(examples_dir / name)
    axps, cxps = EXPECTED[name]
    assert main(["enum", path, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert set(doc) == {"axps", "cxps", "complete", "seconds"}
    assert doc["complete"] is True and isinstance(doc["seconds"], float)
    assert all(x == sorted(x) for x in doc["axps"] + doc["cxps"])
    assert _as_sets(doc["axps"]) == _as_sets(axps) and _as_sets(doc["cxps"]) == _as_sets(cxps)
    for kind, expected in (("axp", axps), ("cxp", cxps)):
        assert main([kind, path, "--json"]) == 0
        one = json.loads(capsys.readouterr().out)
        assert set(one) == {"kind", "features", "seconds"} and one["kind"] == kind
        assert set(one["features"]) in expected and one["features"] == sorted(one["features"])


def test_cli_enum_budget(examples_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = str(examples_dir / "xd6/xd6_0.xpg")
    assert main(["enum", path, "--limit", "4", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert len(doc["axps"]) + len(doc["cxps"]) == 4 and doc["complete"] is False
    assert main(["enum", path]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 16 and lines[-1].startswith("12 AXps, 3 CXps, complete")
