"""Review of the foundation issue: proofs that were missing or weak.

* ``validate()`` is exactly Def. 2 on hundreds of random (often invalid) DAGs, judged by
  enumerating every root-to-terminal path (not by the library's own set algebra);
* every invalid decision graph and every graph-level ``.xpg`` violation reaches the CLI as
  exit status 2 with one line;
* regressions: infinite instance values, tab-separated VarDef lines, deep graphs (no
  recursion anywhere), streaming and budgets, output files whole or not at all.
"""

from __future__ import annotations

import itertools
import json
import math
import random
from pathlib import Path
from typing import Any

import pytest
from test_validate import CASES as INVALID_DG_CASES
from test_validate import base
from test_xpg_format import GOOD, INVALID_GRAPHS

import xpg.io.atomic
from xpg import (
    DecisionGraph,
    Enumerator,
    ExplanationGraph,
    Feature,
    InvalidGraphError,
    InvalidInstanceError,
    Literal,
    enumerate_explanations,
    find_axp,
    find_cxp,
    read_xpg,
    read_xpg_text,
    write_xpg,
)
from xpg.cli.main import main
from xpg.explain.reach import path_to_zero
from xpg.io import model_to_dict

# -- validate() against path enumeration --------------------------------------------------------
CUTS = [1.0, 2.0, 3.0]
REAL_REPS = [0.0, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0]  # one value in every cell the cuts make


def _features(rng: random.Random) -> list[Feature]:
    out = []
    for i in range(rng.choice([1, 1, 2, 3])):
        kind = rng.choice(["boolean", "categorical", "integer", "real"])
        if kind == "boolean":
            out.append(Feature.boolean(f"f{i}"))
        elif kind == "categorical":
            out.append(Feature.categorical(f"f{i}", ["a", "b", "c"]))
        elif kind == "integer":
            out.append(Feature.integer(f"f{i}", 0, 3))
        else:
            out.append(Feature.real(f"f{i}"))
    return out


def _reps(f: Feature) -> list[Any]:
    if f.is_discrete:
        return list(f.values)
    return [0, 1, 2, 3] if f.kind == "integer" else REAL_REPS


def _literals(rng: random.Random, f: Feature) -> list[Literal]:
    """Two or three literals partitioning the domain, then (often) one mutation that may make
    them overlap, leave a gap, or admit nothing on some path."""
    if f.kind == "real":
        cuts = sorted(rng.sample(CUTS, rng.randint(1, 2)))
        ends = [-math.inf, *cuts, math.inf]
        spans = [[lo, hi, "right"] for lo, hi in zip(ends, ends[1:])]
        if rng.random() < 0.25:
            k = rng.randrange(len(spans))
            if rng.random() < 0.5:
                spans[k][2] = rng.choice(["left", "both", "neither"])
            else:
                end = 0 if spans[k][0] != -math.inf and rng.random() < 0.5 else 1
                if spans[k][end] != math.inf and spans[k][end] != -math.inf:
                    spans[k][end] = rng.choice(CUTS)
        out = []
        for lo, hi, closed in spans:
            if hi == math.inf and closed in ("both", "right"):
                closed = "neither" if closed == "right" else "left"
            if lo == -math.inf and closed in ("both", "left"):
                closed = "neither" if closed == "left" else "right"
            if lo < hi:
                out.append(Literal.interval(f.name, lo, hi, closed=closed))  # type: ignore[arg-type]
        return out or [Literal.interval(f.name, -math.inf, math.inf, closed="neither")]
    values = _reps(f)
    rng.shuffle(values)
    k = rng.randint(2, min(3, len(values)))
    parts = [[v] for v in values[:k]]
    for v in values[k:]:
        rng.choice(parts).append(v)
    roll = rng.random()
    if roll < 0.2:
        v = rng.choice(values)
        part = rng.choice(parts)
        if v in part and len(part) > 1:
            part.remove(v)  # a gap
        elif v not in part:
            part.append(v)  # an overlap
    elif roll < 0.6:  # path-restricted literals: valid only where v is impossible
        v = rng.choice(values)
        parts = [[u for u in p if u != v] for p in parts]
    return [Literal.isin(f.name, p) for p in parts if p]


def _random_dag(rng: random.Random) -> DecisionGraph:
    feats = _features(rng)
    n = rng.randint(1, 6)
    tests = [rng.choice(feats) for _ in range(n)]
    kids: dict[int, list[tuple[Any, Literal]]] = {}
    for i in range(n):
        kids[i] = [
            (rng.choice([*range(i + 1, n), "t0", "t1"]), lit) for lit in _literals(rng, tests[i])
        ]
    seen, stack = {0}, [0]
    while stack:
        for c, _ in kids.get(stack.pop(), []):  # type: ignore[call-overload]
            if c not in seen:
                seen.add(c)
                stack.append(c)
    dg = DecisionGraph(feats, classes=[0, 1])
    for node in sorted(seen, key=str):
        if node in ("t0", "t1"):
            dg.add_terminal(node, int(node[1]))
        else:
            dg.add_node(node, tests[node].name)
    for i in sorted(x for x in seen if isinstance(x, int)):
        for c, lit in kids[i]:
            dg.add_edge(i, c, lit)
    return dg


def _def2_by_paths(dg: DecisionGraph) -> bool:
    """Every root-to-terminal path is consistent, and at the end of every path prefix the
    outgoing literals admit each value still possible there exactly once."""
    feats = {f.name: f for f in dg.features}
    start = {name: frozenset(range(len(_reps(f)))) for name, f in feats.items()}
    stack = [(dg.root, start)]
    while stack:
        node, possible = stack.pop()
        if any(not s for s in possible.values()):
            return False  # an inconsistent path
        if dg.is_terminal(node):
            continue
        name = dg.feature_of(node)
        assert name is not None
        reps = _reps(feats[name])
        for k in possible[name]:
            if sum(lit.satisfied_by(reps[k]) for _, lit in dg.children(node)) != 1:
                return False  # a gap or an overlap on a value this path allows
        for child, lit in dg.children(node):
            here = frozenset(k for k in possible[name] if lit.satisfied_by(reps[k]))
            stack.append((child, {**possible, name: here}))
    return True


def test_validate_is_def2_on_random_dags() -> None:
    rng = random.Random(2024)
    outcomes = {True: 0, False: 0}
    for _ in range(500):
        dg = _random_dag(rng)
        expected = _def2_by_paths(dg)
        problems = dg.violations()
        assert (not problems) == expected, (problems, dg.edges)
        outcomes[expected] += 1
        if expected and not dg.is_tree():
            # a valid DAG: each representative input reaches exactly one terminal
            grid = itertools.product(*[_reps(f) for f in dg.features])
            for x in itertools.islice(grid, 50):
                dg.predict(list(x))
    assert outcomes[True] >= 100 and outcomes[False] >= 100, outcomes


# -- CLI: every invalid graph is one line and exit status 2 -------------------------------------
def _dump(dg: DecisionGraph) -> dict[str, Any]:
    """The JSON model document of a (possibly invalid) graph."""
    try:
        root = dg.root
    except InvalidGraphError:  # several roots: write no root, as a user would
        root = None
        dg._cache["root"] = "r"
    doc = model_to_dict(dg)
    doc["model"]["root"] = root
    for node in doc["model"]["nodes"]:
        if node.get("class", 0) is None and node.get("feature") is None:
            node.pop("class")  # a terminal without class: neither key
            node.pop("feature", None)
    return doc


def _cycle_without_terminal_edges(dg: DecisionGraph) -> None:
    """A cycle r -> m -> r between tests (the library's ``_cycle`` case also gives a terminal
    children, which the JSON reader refuses first, with its own message)."""
    dg.add_node("m", "x")
    dg.edges[1] = (dg.edges[1][0], dg._index["m"], dg.edges[1][2])
    dg._in_degree[dg._index["n"]] -= 1
    dg._in_degree[dg._index["m"]] += 1
    dg.add_edge("m", "r", Literal.le("x", 5))
    dg.add_edge("m", "n", Literal.gt("x", 5))


#: ``_wrong_feature`` cannot be written: a JSON edge's literal is read over its node's feature.
CLI_CASES = [
    (_cycle_without_terminal_edges, "the graph has a cycle through node(s)"),
    *[(m, msg) for m, msg in INVALID_DG_CASES if m.__name__ not in ("_wrong_feature", "_cycle")],
]


@pytest.mark.parametrize(("mutate", "message"), CLI_CASES, ids=[c[0].__name__ for c in CLI_CASES])
def test_invalid_graph_files_exit_2_with_one_line(
    tmp_path: Path, mutate: Any, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    dg = base()
    mutate(dg)
    dg._cache.clear()
    path = tmp_path / "model.json"
    path.write_text(json.dumps(_dump(dg)))
    for argv in (["validate", str(path)], ["enum", str(path), "--instance", "x=3,c=b"]):
        assert main(argv) == 2
        out = capsys.readouterr()
        assert out.out == "" and len(out.err.strip().splitlines()) == 1, out.err
        assert "model.json" in out.err and message in out.err, out.err


@pytest.mark.parametrize(("text", "message"), INVALID_GRAPHS)
def test_invalid_xpg_graphs_exit_2_with_one_line(
    tmp_path: Path, text: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.xpg"
    path.write_text(text)
    for command in ("validate", "axp", "cxp", "enum"):
        assert main([command, str(path)]) == 2
        out = capsys.readouterr()
        assert out.out == "" and len(out.err.strip().splitlines()) == 1
        assert message in out.err and "bad.xpg" in out.err


def test_missing_or_unreadable_input_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("missing.xpg", "missing.json"):
        assert main(["validate", str(tmp_path / name)]) == 2
        err = capsys.readouterr().err
        assert "cannot read the file" in err and len(err.strip().splitlines()) == 1
    assert main(["axp", str(tmp_path)]) == 2  # a folder
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


# -- regressions --------------------------------------------------------------------------------
def _threshold_graph(kind: str) -> DecisionGraph:
    f = Feature.real("x") if kind == "real" else Feature.integer("x")
    dg = DecisionGraph([f, Feature.boolean("b")], classes=[0, 1])
    dg.add_node("r", "x")
    dg.add_terminal("lo", 0)
    dg.add_terminal("hi", 1)
    dg.add_edge("r", "lo", Literal.le("x", 3))
    dg.add_edge("r", "hi", Literal.gt("x", 3))
    dg.validate()
    return dg


@pytest.mark.parametrize("kind", ["real", "integer"])
def test_infinite_values_are_refused(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Regression: +-inf passed the domain check of an unbounded feature (then no edge admitted
    it: a misleading graph error), and int(inf) crashed the CLI with a traceback."""
    dg = _threshold_graph(kind)
    for bad in (math.inf, -math.inf, "inf", "1e400"):
        with pytest.raises(InvalidInstanceError, match="expected a finite number"):
            dg.predict({"x": bad, "b": 0})
        with pytest.raises(InvalidInstanceError, match="expected a finite number"):
            ExplanationGraph.from_decision_graph(dg, {"x": bad, "b": 0})
        assert not dg.features[0].contains(bad)
    assert dg.predict({"x": 1e300, "b": 0}) == 1 and dg.predict({"x": -1e300, "b": 0}) == 0
    path = tmp_path / "m.json"
    path.write_text(json.dumps(model_to_dict(dg)))
    assert main(["enum", str(path), "--instance", "x=-inf,b=1"]) == 2
    err = capsys.readouterr().err
    assert "expected a finite number" in err and len(err.strip().splitlines()) == 1


def test_vardef_accepts_tabs_like_the_other_sections() -> None:
    """Regression: '<node>\\t<name>' was refused in VarDef though tabs separate ids elsewhere."""
    text = GOOD.replace("1 3 0\n", "1\t3\t0\n").replace("1 first feature", "1\tfirst feature")
    xg = read_xpg_text(text)
    assert xg.var_names == ["first feature", "b"]
    assert read_xpg_text(GOOD).var_names == xg.var_names


def test_deep_graphs_need_no_recursion(tmp_path: Path) -> None:
    """A chain of 3,000 tests (deeper than Python's recursion limit) through every step:
    validate, XpG, reachability, AXp, CXp, enumeration, .xpg write and read."""
    n = 3000
    feats = [Feature.boolean(f"b{i}") for i in range(n)]
    dg = DecisionGraph(feats, classes=[0, 1])
    for i in range(n):
        dg.add_node(i, f"b{i}")
    dg.add_terminal("no", 0)
    dg.add_terminal("yes", 1)
    for i in range(n):
        dg.add_edge(i, i + 1 if i + 1 < n else "yes", Literal.eq(f"b{i}", 1))
        dg.add_edge(i, "no", Literal.eq(f"b{i}", 0))
    dg.validate()
    xg = ExplanationGraph.from_decision_graph(dg, [1] * n)
    assert xg.prediction == 1
    assert path_to_zero(xg, [n - 1]) and not path_to_zero(xg, [])
    assert len(find_axp(xg)) == n  # every test is needed
    assert find_cxp(xg) is not None and len(find_cxp(xg) or ()) == 1
    part = enumerate_explanations(xg, limit=5)
    assert not part.complete and all(len(c) == 1 for c in part.cxps)
    write_xpg(xg, tmp_path / "deep.xpg")
    again = read_xpg(tmp_path / "deep.xpg")
    assert again.n_nodes == n + 2 and len(find_axp(again)) == n


def _parity(n: int) -> ExplanationGraph:
    """Parity of n bits: one AXp (all bits), n CXps (each bit)."""
    feats = [Feature.boolean(f"p{i}") for i in range(n)]
    dg = DecisionGraph(feats, classes=[0, 1])
    for i in range(n):
        for q in (0, 1):
            if i or not q:
                dg.add_node((i, q), f"p{i}")
    dg.add_terminal("t0", 0)
    dg.add_terminal("t1", 1)
    for i in range(n):
        for q in (0, 1):
            if i or not q:
                for bit in (0, 1):
                    r = q ^ bit
                    dg.add_edge(
                        (i, q), (i + 1, r) if i + 1 < n else f"t{r}", Literal.eq(f"p{i}", bit)
                    )
    return ExplanationGraph.from_decision_graph(dg, [0] * n)


def test_enumeration_streams_and_stops_cleanly() -> None:
    xg = _parity(12)
    with Enumerator(xg) as en:
        it = iter(en)
        first = next(it)
        # streamed: one result out, the rest not computed yet
        assert len(en.axps) + len(en.cxps) == 1 and not en.complete
        assert first.features in en.axps + en.cxps
        rest = list(it)
    assert en.complete and len(rest) == 12
    full = enumerate_explanations(xg)
    assert sorted(full.cxps) == sorted((f"p{i}",) for i in range(12)) and len(full.axps) == 1
    for limit in (1, 5, 12, 13):
        part = enumerate_explanations(xg, limit=limit)
        assert len(part.axps) + len(part.cxps) == limit
        assert part.complete is False  # stopped by the budget
        assert set(part.cxps) <= set(full.cxps) and set(part.axps) <= set(full.axps)
    assert enumerate_explanations(xg, limit=14).complete  # the budget was not reached


def test_cli_timeout_and_limit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    xg = _parity(10)
    path = tmp_path / "parity.xpg"
    write_xpg(xg, path)
    assert main(["enum", str(path), "--timeout", "60", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["complete"] is True and len(doc["cxps"]) == 10 and len(doc["axps"]) == 1
    assert main(["enum", str(path), "--timeout", "1e-9", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["complete"] is False and len(doc["axps"]) + len(doc["cxps"]) < 11
    assert main(["enum", str(path), "--limit", "3"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 4 and "INCOMPLETE" in lines[-1]
    for bad in ("0", "-1", "abc"):
        assert main(["enum", str(path), "--timeout", bad]) == 2
        assert "--timeout" in capsys.readouterr().err


# -- output files: whole or not at all ----------------------------------------------------------
def test_failed_writes_keep_the_old_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    xg = read_xpg_text(GOOD)
    target = tmp_path / "out.xpg"
    target.write_text("previous content\n")

    def refuse(*args: Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(xpg.io.atomic.os, "replace", refuse)
    with pytest.raises(OSError, match="No space left"):
        write_xpg(xg, target)
    assert target.read_text() == "previous content\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.xpg"]  # no temporary file left
    # the CLI: one line, exit 2, the old file intact
    model = tmp_path / "m.json"
    model.write_text(json.dumps(model_to_dict(base())))
    assert main(["export", str(model), "--instance", "x=3,c=b", "-o", str(target)]) == 2
    err = capsys.readouterr().err
    assert "No space left" in err and len(err.strip().splitlines()) == 1
    assert target.read_text() == "previous content\n"
    monkeypatch.undo()

    def interrupted(*args: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(xpg.io.atomic.os, "chmod", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_xpg(xg, target)
    assert target.read_text() == "previous content\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.json", "out.xpg"]


def test_export_of_bad_input_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = tmp_path / "m.json"
    model.write_text(json.dumps(model_to_dict(base())))
    out = tmp_path / "out.xpg"
    assert main(["export", str(model), "--instance", "x=3,c=zz", "-o", str(out)]) == 2
    assert not out.exists()
    assert main(["export", str(model), "--instance", "x=3,c=b", "-o", str(tmp_path)]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 2
    assert main(["export", str(model), "--instance", "x=3,c=b", "-o", str(out), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc == {"output": str(out), "nodes": 4, "edges": 4}
    result = enumerate_explanations(read_xpg(out))
    assert [set(a) for a in result.axps] == [{"x", "c"}]
    assert sorted(result.cxps) == [("c",), ("x",)]


def test_invalid_graph_error_lists_every_violation() -> None:
    dg = base()
    dg.add_node("lonely", "x")  # unreachable and without children
    with pytest.raises(InvalidGraphError) as err:
        dg.validate()
    assert err.value.violations == [
        "expected exactly one node without parents (the root), found 2: ['r', 'lonely']",
        "node 'lonely' cannot be reached from the root 'r'",
        "non-terminal 'lonely' (feature 'x') has no children",
    ]
    assert str(err.value).endswith("(and 2 more)")


@pytest.mark.parametrize("first", ["narrow", "wide"])
def test_values_possible_at_a_shared_node_are_the_union_over_its_paths(first: str) -> None:
    """A node reached by a path allowing c in {a} and one allowing c in {a, b, d}: literals
    covering only {a} leave a gap on the second path (whichever parent comes first);
    literals covering {a, b, d} there are fine, and {a} alone is fine when every path into
    the node allows only a."""

    def graph(below_wide: bool, literals: list[list[str]]) -> DecisionGraph:
        feats = [Feature.boolean(n) for n in "sz"] + [Feature.categorical("c", ["a", "b", "d"])]
        dg = DecisionGraph(feats, classes=[0, 1])
        dg.add_node("r", "s")
        dg.add_node("p", "c")  # restricts c to {a} on the way to the shared node
        dg.add_node("q", "z")  # leaves c free on the way to the shared node
        dg.add_node("n", "c")  # the shared node
        dg.add_terminal("t0", 0)
        dg.add_terminal("t1", 1)
        top = [("r", "p", Literal.eq("s", 0)), ("r", "q", Literal.eq("s", 1))]
        for e in top if first == "narrow" else top[::-1]:  # either parent may come first
            dg.add_edge(*e)
        dg.add_edge("p", "n", Literal.isin("c", ["a"]))
        dg.add_edge("p", "t1", Literal.isin("c", ["b", "d"]))
        dg.add_edge("q", "n" if below_wide else "t0", Literal.eq("z", 0))
        dg.add_edge("q", "t1", Literal.eq("z", 1))
        for k, lit in enumerate(literals):
            dg.add_edge("n", ("t0", "t1")[k % 2], Literal.isin("c", lit))
        return dg

    for narrow_gap in ([["a"]], [["a", "b"]]):
        with pytest.raises(InvalidGraphError) as err:
            graph(True, narrow_gap).validate()
        assert err.value.violations[0].startswith("node 'n': the outgoing literals leave c ")
        assert "'d'" in err.value.violations[0] and "uncovered" in err.value.violations[0]
    graph(True, [["a", "b", "d"]]).validate()
    with pytest.raises(InvalidGraphError, match="'n' -> 't1': some path through it is incons"):
        graph(True, [["a"], ["b", "d"]]).validate()  # the narrow path cannot take {b, d}
    graph(False, [["a"]]).validate()  # only the narrow path reaches n
    with pytest.raises(InvalidGraphError, match="overlap on c = 'a'"):
        graph(False, [["a"], ["a", "b"]]).validate()
