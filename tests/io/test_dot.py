"""The DOT writer (``xpg/io/dot.py``), read back by a parser written here: every node and edge
of the graph appears with its label, the instance's path is the one found by walking the
literals (independently of the explanation graph's labels), the edges it does not satisfy are
marked, and the nodes of the explanation are filled.  With Graphviz's ``dot`` on PATH, the
rendering is checked too (what ``dot`` draws, and the SVG); the committed README picture is
checked against its model without ``dot``."""

from __future__ import annotations

import json
import math
import random
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO_ROOT

from xpg.core.features import Feature, Literal
from xpg.core.graph import DecisionGraph
from xpg.core.xpgraph import ExplanationGraph
from xpg.errors import MissingExtraError, OutputError
from xpg.explain.axp_cxp import find_axp
from xpg.io import dot as dot_module
from xpg.io import load_model
from xpg.io.dot import to_dot, write_dot
from xpg.testing import domain_values, random_decision_graph, random_row, random_xpg

HAS_DOT = shutil.which("dot") is not None
needs_dot = pytest.mark.skipif(not HAS_DOT, reason="Graphviz's dot is not on PATH")

STATEMENT = re.compile(r"^\s*(n\d+)(?: -> (n\d+))? \[(.*)\];$")
ATTRIBUTE = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"')


def unquote(text: str) -> str:
    return re.sub(r"\\(.)", lambda m: "\n" if m[1] == "n" else m[1], text)


def parse_dot(text: str) -> tuple[dict[int, dict[str, str]], list[tuple[int, int, dict[str, str]]]]:
    """Nodes (by index) and edges of the DOT text, each with its attributes, unescaped."""
    lines = text.strip().splitlines()
    assert lines[0] == "digraph xpg {" and lines[-1] == "}"
    nodes: dict[int, dict[str, str]] = {}
    edges: list[tuple[int, int, dict[str, str]]] = []
    for line in lines[1:-1]:
        if line.lstrip().startswith(("graph ", "node ", "edge ")):
            continue
        m = STATEMENT.match(line)
        assert m is not None, line
        attrs = {k: unquote(v) for k, v in ATTRIBUTE.findall(m[3])}
        assert ", ".join(f'{k}="{v}"' for k, v in ATTRIBUTE.findall(m[3])) == m[3], line
        if m[2] is None:
            assert int(m[1][1:]) not in nodes
            nodes[int(m[1][1:])] = attrs
        else:
            edges.append((int(m[1][1:]), int(m[2][1:]), attrs))
    return nodes, edges


def classes(attrs: dict[str, str]) -> set[str]:
    return set(attrs.get("class", "").split())


def label_admits(label: str, value: Any) -> bool:
    """Evaluate an edge label (``= v``, ``in {a, b}``, ``<= t``, ``in (a, b]``, ... joined by
    ``or``) at ``value``, by reading the text."""
    for part in label.split(" or "):
        if part == "any":
            return True
        if part.startswith("in {"):
            if str(value) in part[4:-1].split(", "):
                return True
            continue
        if part.startswith("in ") and part[3] in "([":
            lo_text, hi_text = part[4:-1].split(", ")
            lo, hi = float(lo_text), float(hi_text)
            x = float(value)
            if (lo < x or (part[3] == "[" and x == lo)) and (
                x < hi or (part[-1] == "]" and x == hi)
            ):
                return True
            continue
        op, operand = part.split(" ", 1)
        if op == "=":
            if str(value) == operand or (
                not isinstance(value, str) and _number(operand) == float(value)
            ):
                return True
            continue
        x, t = float(value), float(operand)
        if {"<=": x <= t, "<": x < t, ">=": x >= t, ">": x > t}[op]:
            return True
    return False


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return math.nan


def probe_values(dg: DecisionGraph, feature: Feature) -> list[Any]:
    if feature.kind != "real":
        return domain_values(feature)
    points = {0.0, 10.0, -3.0}
    for _, _, lit in dg.edges:
        if lit.feature == feature.name and not lit.is_value_set:
            for lo, hi, _, _ in lit.intervals():
                points |= {p + d for p in (lo, hi) if math.isfinite(p) for d in (-0.5, 0, 0.5)}
    return sorted(points)


def walk(dg: DecisionGraph, instance: dict[str, Any]) -> tuple[list[int], list[int]]:
    """The instance's path by the literals: node indices and edge indices."""
    out: dict[int, list[int]] = {}
    for e, (p, _, _) in enumerate(dg.edges):
        out.setdefault(p, []).append(e)
    node, nodes, edges = dg.index_of(dg.root), [dg.index_of(dg.root)], []
    while node in out:
        (e,) = [
            e for e in out[node] if dg.edges[e][2].satisfied_by(instance[dg.edges[e][2].feature])
        ]
        edges.append(e)
        node = dg.edges[e][1]
        nodes.append(node)
    return nodes, edges


@pytest.mark.parametrize("seed", range(40))
def test_decision_graph_with_instance(seed: int) -> None:
    rng = random.Random(seed)
    dg = random_decision_graph(rng, rng.choice(["tree", "dag", "ordered"]))
    names = list(dg.feature_index)
    instance = dict(zip(names, random_row(rng.randrange(10**6), dg.features)))
    xg = ExplanationGraph.from_decision_graph(dg, instance)
    chosen = rng.sample(names, rng.randint(0, len(names)))
    nodes, edges = parse_dot(to_dot(xg, chosen, title=f"seed {seed}"))
    # every node, with its label
    assert sorted(nodes) == list(range(len(dg)))
    for i, node in enumerate(dg.nodes):
        feature = dg.feature_of(node)
        expected = feature if feature is not None else str(dg.class_of(node))
        assert nodes[i]["label"] == expected
        assert ("explanation" in classes(nodes[i])) == (feature in chosen)
        assert nodes[i]["tooltip"] == f"node {node}"
    # every edge, its label admitting exactly the literal's values
    assert Counter((s, d) for s, d, _ in edges) == Counter((p, c) for p, c, _ in dg.edges)
    by_pair: dict[tuple[int, int], list[dict[str, str]]] = {}
    for s, d, attrs in edges:
        by_pair.setdefault((s, d), []).append(attrs)
    path_nodes, path_edges = walk(dg, instance)
    for e, (p, c, lit) in enumerate(dg.edges):
        feature = dg.features[dg.feature_index[lit.feature]]
        values = probe_values(dg, feature)
        admitted = [v for v in values if lit.satisfied_by(v)]
        matching = [
            a
            for a in by_pair[(p, c)]
            if [v for v in values if label_admits(a["label"], v)] == admitted
        ]
        assert matching, (lit, by_pair[(p, c)])
        satisfied = lit.satisfied_by(instance[lit.feature])
        kind = "path" if e in path_edges else "consistent" if satisfied else "inconsistent"
        assert any(classes(a) == {kind} for a in matching), (kind, matching)
    assert Counter(a["class"] for _, _, a in edges)["path"] == len(path_edges)
    # the path, and the terminal reached: the prediction
    assert {i for i, a in nodes.items() if "path" in classes(a)} == set(path_nodes)
    (reached,) = [i for i, a in nodes.items() if "reached" in classes(a)]
    assert reached == path_nodes[-1] and nodes[reached]["label"] == str(dg.predict(instance))


@pytest.mark.parametrize("seed", range(20))
def test_decision_graph_alone(seed: int) -> None:
    dg = random_decision_graph(seed, "dag")
    nodes, edges = parse_dot(to_dot(dg))
    assert sorted(nodes) == list(range(len(dg))) and len(edges) == dg.n_edges
    assert all(classes(a) <= {"terminal"} for a in nodes.values())
    assert all("class" not in a and "style" not in a for _, _, a in edges)


@pytest.mark.parametrize("seed", range(20))
def test_explanation_graph_of_a_xpg_file(seed: int) -> None:
    xg = random_xpg(seed, tree=seed % 2 == 0)
    nodes, edges = parse_dot(to_dot(xg, xg.var_names[:1]))
    assert sorted(nodes) == list(range(xg.n_nodes))
    src, dst, lab = xg.edge_src.tolist(), xg.edge_dst.tolist(), xg.edge_label.tolist()
    assert Counter((s, d, a["label"]) for s, d, a in edges) == Counter(
        (s, d, "1" if b else "0") for s, d, b in zip(src, dst, lab)
    )
    # the path of 1-edges from the root, followed here
    node, path = xg.root, [xg.root]
    while node in {s for s, b in zip(src, lab) if b}:
        node = next(d for s, d, b in zip(src, dst, lab) if s == node and b)
        path.append(node)
    assert {i for i, a in nodes.items() if "path" in classes(a)} == set(path)
    assert nodes[path[-1]]["label"] == "1" and "reached" in classes(nodes[path[-1]])
    for n, value in enumerate(xg.terminal_value.tolist()):
        if value >= 0:
            assert nodes[n]["label"] == str(value)
        else:
            name = xg.var_names[xg.node_var_list[n]]
            assert nodes[n]["label"] == name
            assert ("explanation" in classes(nodes[n])) == (name == xg.var_names[0])


AWKWARD = ["priors:=0", 'say "hi"', "back\\slash", "two\nlines", "<b>&{x}", "\\N \\G"]


def awkward_graph() -> DecisionGraph:
    features = [Feature.boolean(n) for n in AWKWARD]
    features.append(Feature.categorical("c", ['a"b', "c\\d", "e, f"]))
    dg = DecisionGraph(features, classes=['yes "1"', "no\\0"])
    for i, name in enumerate(AWKWARD):
        dg.add_node(i, name)
    dg.add_node("c", "c")
    dg.add_terminal("y", 'yes "1"')
    dg.add_terminal("n", "no\\0")
    for i, name in enumerate(AWKWARD):
        dg.add_edge(i, i + 1 if i + 1 < len(AWKWARD) else "c", Literal.eq(name, 1))
        dg.add_edge(i, "n", Literal.eq(name, 0))
    dg.add_edge("c", "y", Literal.isin("c", ['a"b', "c\\d"]))
    dg.add_edge("c", "n", Literal.eq("c", "e, f"))
    dg.validate()
    return dg


def test_labels_are_escaped() -> None:
    dg = awkward_graph()
    instance = {**{n: 1 for n in AWKWARD}, "c": "c\\d"}
    xg = ExplanationGraph.from_decision_graph(dg, instance)
    title = 'AXp {say "hi"}\nsecond line \\'
    text = to_dot(xg, AWKWARD[:2], title=title)
    nodes, edges = parse_dot(text)
    assert [nodes[i]["label"] for i in range(len(AWKWARD) + 1)] == [*AWKWARD, "c"]
    assert {a["label"] for s, d, a in edges if s == len(AWKWARD)} == {'in {a"b, c\\d}', "= e, f"}
    assert {nodes[i]["label"] for i in range(len(AWKWARD) + 1, len(dg))} == {'yes "1"', "no\\0"}
    assert re.search(r'graph \[label="(.*)"\];', text)[1] == 'AXp {say \\"hi\\"}\\nsecond line \\\\'


@needs_dot
def test_dot_draws_the_labels_as_written(tmp_path: Path) -> None:
    """What ``dot`` draws (its JSON output's text operations) is the intended labels."""
    dg = awkward_graph()
    xg = ExplanationGraph.from_decision_graph(dg, {**{n: 1 for n in AWKWARD}, "c": 'a"b'})
    proc = subprocess.run(
        ["dot", "-Tjson"], input=to_dot(xg, ["c"]), capture_output=True, text=True, check=True
    )
    drawn = json.loads(proc.stdout)
    texts = {
        o["name"]: "\n".join(op["text"] for op in o.get("_ldraw_", []) if op["op"] == "T")
        for o in drawn["objects"]
    }
    assert [texts[f"n{i}"] for i in range(len(AWKWARD))] == AWKWARD
    edge_texts = {
        "\n".join(op["text"] for op in e.get("_ldraw_", []) if op["op"] == "T")
        for e in drawn["edges"]
    }
    assert {"= 1", "= 0", 'in {a"b, c\\d}', "= e, f"} <= edge_texts


def svg_classes(path: Path) -> tuple[dict[str, set[str]], Counter[str]]:
    """Node classes by DOT name, and how many edges carry each class, from an SVG file."""
    ns = {"svg": "http://www.w3.org/2000/svg"}
    root = ET.parse(path).getroot()
    nodes: dict[str, set[str]] = {}
    edge_classes: Counter[str] = Counter()
    for g in root.iter("{http://www.w3.org/2000/svg}g"):
        if not g.get("class"):
            continue  # the links around nodes and edges (tooltips)
        kind, *rest = g.get("class", "").split()
        title = g.find("svg:title", ns)
        if kind == "node":
            nodes[title.text] = set(rest)  # type: ignore[union-attr]
        elif kind == "edge":
            edge_classes[" ".join(rest)] += 1
    return nodes, edge_classes


def dot_classes(text: str) -> tuple[dict[str, set[str]], Counter[str]]:
    nodes, edges = parse_dot(text)
    return (
        {f"n{i}": classes(a) for i, a in nodes.items()},
        Counter(a.get("class", "") for _, _, a in edges),
    )


@needs_dot
@pytest.mark.parametrize("seed", range(5))
def test_svg_and_png_rendering(seed: int, tmp_path: Path) -> None:
    rng = random.Random(seed)
    dg = random_decision_graph(rng, "dag")
    xg = ExplanationGraph.from_decision_graph(dg, random_row(seed, dg.features))
    axp = find_axp(xg)
    assert write_dot(xg, tmp_path / "g.svg", axp) == "svg"
    assert svg_classes(tmp_path / "g.svg") == dot_classes(to_dot(xg, axp))
    assert write_dot(xg, tmp_path / "g.png", axp) == "png"
    assert (tmp_path / "g.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert write_dot(xg, tmp_path / "g.gv", axp) == "dot"
    assert (tmp_path / "g.gv").read_text(encoding="utf-8") == to_dot(xg, axp)


def test_the_readme_picture_shows_its_model() -> None:
    """``docs/img/compas-axp.svg`` is what ``xpg draw`` gives for its model and instance."""
    img = REPO_ROOT / "docs" / "img"
    dg = load_model(img / "compas-tree.json")
    instance = json.loads((img / "compas-row0.json").read_text(encoding="utf-8"))
    xg = ExplanationGraph.from_decision_graph(dg, instance)
    assert svg_classes(img / "compas-axp.svg") == dot_classes(to_dot(xg, find_axp(xg)))
    picture = (img / "compas-axp.svg").read_text(encoding="utf-8")
    axp = ", ".join(find_axp(xg)).replace("-", "&#45;").replace(">", "&gt;")
    assert f"AXp {{{axp}}} of the prediction &#39;{xg.prediction}&#39;" in picture


def test_without_dot_or_the_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    xg = random_xpg(0, tree=True)
    monkeypatch.setattr(dot_module.shutil, "which", lambda name: None)
    for suffix in (".svg", ".png", ".pdf"):
        with pytest.raises(MissingExtraError, match="'dot' program, which is not on PATH.*OUT.dot"):
            write_dot(xg, tmp_path / f"g{suffix}")
    assert write_dot(xg, tmp_path / "g.dot") == "dot"
    monkeypatch.setattr(dot_module.shutil, "which", lambda name: "/usr/bin/dot")
    monkeypatch.setitem(__import__("sys").modules, "graphviz", None)
    with pytest.raises(MissingExtraError, match=r"'\.\[plot\]' from a clone of xpg"):
        write_dot(xg, tmp_path / "g.svg")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.dot"]
    with pytest.raises(OutputError, match="expected a file name ending in .dot, .gv, .svg"):
        write_dot(xg, tmp_path / "g.jpg")
    with pytest.raises(OutputError, match="cannot highlight unknown feature"):
        to_dot(xg, ["no such feature"])
