"""``xpg draw``: DOT text always (structure read back here), SVG when Graphviz's ``dot`` is on
PATH; a claimed ``--axp``/``--cxp`` is drawn only when it is one (checked against the
brute-force oracle); every bad input is one line with exit status 2 and writes nothing."""

from __future__ import annotations

import json
import random
import re
import shutil
from collections import Counter
from pathlib import Path

import pytest
from conftest import REPO_ROOT

from xpg.cli.draw import check_explanation
from xpg.cli.main import main
from xpg.core.xpgraph import ExplanationGraph
from xpg.errors import InvalidQueryError
from xpg.explain.axp_cxp import find_axp
from xpg.io import dot as dot_module
from xpg.io import load_model, model_to_dict, write_xpg
from xpg.testing import Oracle, random_xpg

IMG = REPO_ROOT / "docs" / "img"
MODEL = str(IMG / "compas-tree.json")
INSTANCE = f"@{IMG / 'compas-row0.json'}"

NODE = re.compile(r"^  n(\d+) \[.*\];$", re.M)
EDGE = re.compile(r"^  n(\d+) -> n(\d+) \[.*\];$", re.M)
CLASS = re.compile(r'class="([^"]*)"')


def structure(text: str) -> tuple[dict[int, set[str]], Counter[tuple[int, int, str]]]:
    """Node classes by index, and the edges with their class, from DOT text."""
    nodes = {}
    for m in NODE.finditer(text):
        found = CLASS.search(m[0])
        nodes[int(m[1])] = set(found[1].split()) if found else set()
    edges: Counter[tuple[int, int, str]] = Counter()
    for m in EDGE.finditer(text):
        found = CLASS.search(m[0])
        edges[int(m[1]), int(m[2]), found[1] if found else ""] += 1
    return nodes, edges


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = main(args)
    out, err = capsys.readouterr()
    return status, out, err


def test_draw_compas_to_dot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dg = load_model(MODEL)
    instance = json.loads((IMG / "compas-row0.json").read_text(encoding="utf-8"))
    xg = ExplanationGraph.from_decision_graph(dg, instance)
    axp = find_axp(xg)
    out = tmp_path / "g.dot"
    status, text, err = run(
        ["draw", MODEL, "--instance", INSTANCE, "--explain", "-o", str(out), "--json"], capsys
    )
    assert status == 0, err
    assert json.loads(text) == {
        "output": str(out),
        "format": "dot",
        "nodes": len(dg),
        "edges": dg.n_edges,
        "kind": "axp",
        "features": sorted(axp),
    }
    nodes, edges = structure(out.read_text(encoding="utf-8"))
    assert sorted(nodes) == list(range(len(dg))) and sum(edges.values()) == dg.n_edges
    # the nodes testing the AXp's features, and only those, are highlighted
    testing = {dg.index_of(n) for n in dg.nodes if dg.feature_of(n) in axp}
    assert {i for i, c in nodes.items() if "explanation" in c} == testing
    # the path: from the root to the terminal predicting the instance's class
    path = {i for i, c in nodes.items() if "path" in c}
    (reached,) = [i for i, c in nodes.items() if "reached" in c]
    assert dg.class_of(dg.nodes[reached]) == dg.predict(instance)
    assert dg.index_of(dg.root) in path and reached in path
    assert {(s, d) for s, d, c in edges if c == "path"} == {
        (dg.edges[e][0], dg.edges[e][1])
        for e in range(dg.n_edges)
        if dg.edges[e][0] in path and dg.edges[e][1] in path
    }
    # the same with the instance in the other forms, and a given AXp or CXp
    for form in (",".join(f"{k}={v}" for k, v in instance.items()), json.dumps(instance)):
        status, _, err = run(
            ["draw", MODEL, "--instance", form, "--explain", "-o", str(out)], capsys
        )
        assert status == 0, err
        assert structure(out.read_text(encoding="utf-8")) == (nodes, edges)
    result_cxp = "priors:>3"
    status, text, err = run(
        ["draw", MODEL, "--instance", INSTANCE, "--cxp", result_cxp, "-o", str(out)], capsys
    )
    assert status == 0 and "CXp {priors:>3} highlighted" in text, err
    nodes, _ = structure(out.read_text(encoding="utf-8"))
    assert {i for i, c in nodes.items() if "explanation" in c} == {
        dg.index_of(n) for n in dg.nodes if dg.feature_of(n) == result_cxp
    }


def test_draw_a_model_alone_and_a_xpg_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "plain.dot"
    status, text, err = run(["draw", MODEL, "-o", str(out)], capsys)
    assert status == 0 and text.startswith(f"wrote {out} (dot, 15 nodes, 14 edges)"), err
    nodes, edges = structure(out.read_text(encoding="utf-8"))
    assert not any(c - {"terminal"} for c in nodes.values()) and set(edges) == {
        (s, d, "") for s, d, _ in edges
    }
    xg = random_xpg(3, tree=False)
    write_xpg(xg, tmp_path / "g.xpg")
    status, text, err = run(["draw", str(tmp_path / "g.xpg"), "--explain", "-o", str(out)], capsys)
    assert status == 0, err
    nodes, edges = structure(out.read_text(encoding="utf-8"))
    assert len(nodes) == xg.n_nodes and sum(edges.values()) == len(xg.edge_src)
    labels = Counter(c for _, _, c in edges.elements())
    assert labels["inconsistent"] == int((~xg.edge_label).sum())


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not on PATH")
def test_draw_svg(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "g.svg"
    status, _, err = run(
        ["draw", MODEL, "--instance", INSTANCE, "--explain", "-o", str(out)], capsys
    )
    assert status == 0, err
    svg = out.read_text(encoding="utf-8")
    assert svg.lstrip().startswith("<?xml") and svg.count('class="node') == 15
    assert svg.count('class="edge') == 14 and 'class="node explanation path"' in svg


def test_without_dot_svg_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(dot_module.shutil, "which", lambda name: None)
    out = tmp_path / "g.svg"
    status, _, err = run(["draw", MODEL, "--instance", INSTANCE, "-o", str(out)], capsys)
    assert status == 2 and err.count("\n") == 1 and not out.exists()
    assert "needs Graphviz's 'dot' program, which is not on PATH" in err
    assert "-o OUT.dot writes the DOT text without it" in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--axp", "priors:>3"], "--axp {priors:>3} is not an AXp: another prediction stays"),
        (
            ["--axp", "sex:Female,priors:2-3,priors:>3"],
            "is not an AXp: not minimal, 'sex:Female' can be left out",
        ),
        (["--cxp", "sex:Female"], "--cxp {sex:Female} is not a CXp: the prediction stays"),
        (["--cxp", "age:<26,priors:>3"], "not minimal, 'age:<26' can be left out"),
        (["--axp", "priors:=9"], "unknown feature 'priors:=9'"),
        (["--axp", "a", "--cxp", "b"], "not allowed with argument --axp"),
        (["--explain", "-o", "g.jpg"], "expected a file name ending in .dot, .gv, .svg"),
        (["--instance", "priors:=0"], "expected name=value"),
    ],
)
def test_bad_claims_and_options(
    args: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "g.dot"
    base = ["draw", MODEL, "--instance", INSTANCE, "-o", str(out)]
    status, _, err = run([*base, *args], capsys)
    assert status == 2 and err.count("\n") == 1 and message in err, err
    assert list(tmp_path.iterdir()) == []


def test_missing_instance_or_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(["draw", MODEL, "--explain", "-o", str(tmp_path / "g.dot")], capsys)
    assert status == 2 and "--axp, --cxp and --explain need the instance" in err
    status, _, err = run(["draw", MODEL, "--instance", INSTANCE], capsys)
    assert status == 2 and "the following arguments are required: -o/--output" in err
    xpg_file = tmp_path / "g.xpg"
    write_xpg(random_xpg(0, tree=True), xpg_file)
    status, _, err = run(["draw", str(xpg_file), "--instance", "a=1", "-o", "x.dot"], capsys)
    assert status == 2 and "drop --instance" in err
    model = tmp_path / "m.json"
    model.write_text(json.dumps(model_to_dict(load_model(MODEL)))[:-5], encoding="utf-8")
    status, _, err = run(["draw", str(model), "-o", str(tmp_path / "g.dot")], capsys)
    assert status == 2 and err.count("\n") == 1 and "m.json" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.xpg", "m.json"]


@pytest.mark.parametrize("seed", range(30))
def test_claims_are_checked_like_the_oracle(seed: int) -> None:
    """Every subset of the variables: accepted as an AXp (a CXp) exactly when the brute-force
    oracle lists it."""
    xg = random_xpg(seed, tree=seed % 2 == 0, max_vars=4)
    oracle = Oracle.of_xpg(xg)
    rng = random.Random(seed)
    names = xg.var_names
    subsets = [
        frozenset(n for k, n in enumerate(names) if mask >> k & 1)
        for mask in range(1 << len(names))
    ]
    for kind, truth in (("axp", oracle.axps), ("cxp", oracle.cxps)):
        for subset in subsets:
            claim = rng.sample(sorted(subset), len(subset))
            if subset in truth:
                assert set(check_explanation(xg, kind, claim)) == subset
            else:
                with pytest.raises(InvalidQueryError):
                    check_explanation(xg, kind, claim)
