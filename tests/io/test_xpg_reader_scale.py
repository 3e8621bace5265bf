"""The linear readers agree with the line-by-line semantics (no timing here: see
``xpg bench reading``).

* The fast paths of the ``.xpg`` reader (numpy, and pure Python for small files) read every
  file the writer makes, into the same parts as the line reader; on hundreds of mutated files
  they never accept what the line reader refuses, and where both accept they agree.
* The vectorised checks of Def. 3 (``violations``, ``_has_cycle``) give the messages of a
  node-by-node reference on random, often broken, graphs.
* A decision graph is checked once until it changes.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from xpg import InvalidGraphError, ParseError, format_xpg, read_xpg_text
from xpg.core.cycles import has_cycle as _has_cycle
from xpg.core.features import Feature, Literal
from xpg.core.graph import DecisionGraph
from xpg.core.traversal import follow_ones as _follow_ones
from xpg.core.xpgraph import ExplanationGraph, _light_violations
from xpg.io.xpg_format import _Parts, _read_fast, _read_light, _read_lines
from xpg.testing import described, random_xpg
from xpg.testing.xpgs import random_dg_xpgs


def _same_parts(a: _Parts, b: _Parts) -> None:
    assert a.ids == b.ids and a.root == b.root and a.names == b.names
    for field in ("node_var", "terminal_value", "src", "dst", "label"):
        x, y = getattr(a, field), getattr(b, field)  # numpy arrays or lists
        assert [int(v) for v in x] == [int(v) for v in y], field


def _graphs() -> list[ExplanationGraph]:
    out = [random_xpg(seed, tree=seed % 2 == 0, max_vars=8, max_internal=30) for seed in range(300)]
    for kind in ("tree", "dag", "ordered"):
        out += random_dg_xpgs(7, kind, 20)
    return out


GRAPHS = _graphs()


def test_round_trip_takes_the_fast_path_and_agrees() -> None:
    for xg in GRAPHS:
        text = format_xpg(xg)
        fast, light = _read_fast(text), _read_light(text)
        assert fast is not None and light is not None, text
        _same_parts(fast, _read_lines(text, None))
        _same_parts(light, _read_lines(text, None))
        again = read_xpg_text(text)
        if not all(isinstance(i, int) for i in xg.node_ids):  # the writer numbers them 1, 2, ...
            xg = ExplanationGraph(
                xg.var_names,
                list(range(1, xg.n_nodes + 1)),
                xg.root,
                xg.node_var,
                xg.terminal_value,
                xg.edge_src,
                xg.edge_dst,
                xg.edge_label,
            )
        assert described(again) == described(xg)
        assert format_xpg(again) == format_xpg(read_xpg_text(format_xpg(again)))


TOKENS = ["0", "1", "2", "-1", "+1", "x", "00", "01", "1_0", "10" * 10, "٣", "a:b", "#", "NV:"]


def _mutate(text: str, rng: random.Random) -> str:
    """One random change of the kind a hand-edited or damaged file has."""
    lines = text.split("\n")
    k = rng.randrange(len(lines))
    change = rng.randrange(10)
    if change == 0:
        del lines[k]
    elif change == 1:
        lines.insert(k, lines[rng.randrange(len(lines))])
    elif change == 2:
        tokens = lines[k].split(" ")
        tokens[rng.randrange(len(tokens))] = rng.choice(TOKENS)
        lines[k] = " ".join(tokens)
    elif change == 3:
        lines.insert(k, rng.choice(["# a comment", "", "   ", "\t# indented", " \t "]))
    elif change == 4:
        lines[k] = rng.choice(["  ", "\t"]) + lines[k] + rng.choice(["", " ", "\t"])
    elif change == 5:
        j = rng.randrange(len(lines))
        lines[k], lines[j] = lines[j], lines[k]
    elif change == 6:
        return "\r\n".join(lines)
    elif change == 7:
        lines[k] = lines[k].replace(" ", rng.choice(["  ", "\t", "\xa0"]), 1)
    elif change == 8:
        lines[k] += rng.choice([" 1", " x", " # note"])
    else:
        lines.insert(k, rng.choice(["NN: 3", "VarDef:", "T: 1", "Root : 0", "x: y"]))
    return "\n".join(lines)


@pytest.mark.parametrize("seed", range(4))
def test_mutated_files_fast_path_never_disagrees(seed: int) -> None:
    rng = random.Random(seed)
    taken = refused = light_taken = 0
    for xg in GRAPHS[seed::4]:
        text = format_xpg(xg)
        for _ in range(rng.randint(1, 3)):
            text = _mutate(text, rng)
        try:
            expected = _read_lines(text, "f.xpg")
        except ParseError as err:
            assert _read_fast(text) is None, (text, str(err))
            assert _read_light(text) is None, (text, str(err))
            with pytest.raises(ParseError) as again:
                read_xpg_text(text, "f.xpg")
            assert str(again.value) == str(err) and again.value.line == err.line
            refused += 1
            continue
        fast = _read_fast(text)
        if fast is not None:
            _same_parts(fast, expected)
            taken += 1
        light = _read_light(text)
        if light is not None:
            _same_parts(light, expected)
            light_taken += 1
    assert taken > 10 and refused > 10 and light_taken > 10  # each kind of input was exercised


def test_errors_still_name_their_line_in_large_files() -> None:
    xg = GRAPHS[0]
    text = format_xpg(xg)
    lines = text.split("\n")
    k = lines.index("NTDef:") + 1
    lines[k] = lines[k].rsplit(" ", 1)[0] + " 7"
    with pytest.raises(ParseError) as err:
        read_xpg_text("\n".join(lines), "big.xpg")
    assert err.value.line == k + 1 and "expected an edge label 0 or 1, found '7'" in str(err.value)


SMALL = (
    "NN: 3\nRoot: 1\nT: 2 3\nTDef:\n2 1\n3 0\nNT: 1\nNTDef:\n1 2 1\n1 3 0\nNV: 1\nVarDef:\n1 a\n"
)


@pytest.mark.parametrize(
    ("old", "new", "message", "line"),
    [
        ("Root: 1", "Root: " + "9" * 30, "the root 999", 7),  # beyond int64: not parsed
        ("Root: 1", "Root: -1", "the root -1 is not listed", 7),
        ("NN: 3", "NN: " + "1" * 30, "list 3 nodes", 7),
        ("T: 2", "T: " + "1" * 19 + " 2", "have no TDef line", 3),
    ],
)
def test_numbers_beyond_int64_are_left_to_the_line_reader(
    old: str, new: str, message: str, line: int
) -> None:
    assert _read_fast(SMALL) is not None
    text = SMALL.replace(old, new, 1)
    assert _read_fast(text) is None
    with pytest.raises(ParseError, match=message) as err:
        read_xpg_text(text)
    assert err.value.line == line


# -- Def. 3: the vectorised checks against a node-by-node reference ------------------------------
def _reference_cycle(src: np.ndarray, dst: np.ndarray, n: int) -> bool:
    children: list[list[int]] = [[] for _ in range(n)]
    indeg = [0] * n
    for s, d in zip(src.tolist(), dst.tolist(), strict=True):
        children[s].append(d)
        indeg[d] += 1
    stack = [i for i in range(n) if indeg[i] == 0]
    seen = 0
    while stack:
        x = stack.pop()
        seen += 1
        for c in children[x]:
            indeg[c] -= 1
            if indeg[c] == 0:
                stack.append(c)
    return seen != n


def _reference_violations(xg: ExplanationGraph) -> list[str]:
    """The node-by-node check of Def. 3 the vectorised one replaced."""
    ids, n = xg.node_ids, xg.n_nodes
    problems: list[str] = []
    out_deg = np.bincount(xg.edge_src, minlength=n)
    in_deg = np.bincount(xg.edge_dst, minlength=n)
    sources = np.flatnonzero(in_deg == 0).tolist()
    if sources != [xg.root]:
        extra = [ids[s] for s in sources if s != xg.root]
        if in_deg[xg.root]:
            problems.append(f"the root {ids[xg.root]!r} has incoming edges")
        if extra:
            problems.append(f"several roots: nodes {extra[:10]!r} have no incoming edge")
    for i in range(n):
        if out_deg[i] and xg.node_var[i] < 0:
            problems.append(f"non-terminal {ids[i]!r} has no variable")
        if not out_deg[i] and xg.terminal_value[i] not in (0, 1):
            problems.append(f"terminal {ids[i]!r} has no 0/1 label")
        if out_deg[i] and xg.terminal_value[i] in (0, 1):
            problems.append(f"node {ids[i]!r} is labelled as a terminal but has children")
    ones = np.bincount(xg.edge_src[xg.edge_label], minlength=n)
    for i in np.flatnonzero(ones > 1).tolist():
        problems.append(f"node {ids[i]!r} has {ones[i]} outgoing edges labelled 1 (at most 1)")
    if _reference_cycle(xg.edge_src, xg.edge_dst, n):
        problems.append("the graph has a cycle")
    if problems:
        return problems
    end = _follow_ones(xg.root, xg.edge_src, xg.edge_dst, xg.edge_label, n)
    if out_deg[end]:
        problems.append(f"the path of edges labelled 1 stops at non-terminal {ids[end]!r}")
    elif xg.terminal_value[end] != 1:
        problems.append(
            f"the path of edges labelled 1 ends at terminal {ids[end]!r}, labelled 0 "
            "(expected the terminal labelled 1)"
        )
    return problems


def _broken(seed: int) -> ExplanationGraph:
    """A random XpG with random damage: extra or redirected edges (cycles, several roots),
    labels and variables changed."""
    rng = np.random.default_rng(seed)
    xg = GRAPHS[seed % len(GRAPHS)]
    src, dst, label = xg.edge_src.copy(), xg.edge_dst.copy(), xg.edge_label.copy()
    node_var, value = xg.node_var.copy(), xg.terminal_value.copy()
    n = xg.n_nodes
    for _ in range(rng.integers(0, 4)):
        kind = rng.integers(0, 5)
        if kind == 0 and len(src):  # redirect an edge: cycles, loops, orphans
            src[rng.integers(len(src))] = rng.integers(n)
        elif kind == 1:
            src, dst = np.append(src, rng.integers(n)), np.append(dst, rng.integers(n))
            label = np.append(label, bool(rng.integers(2)))
        elif kind == 2 and len(label):
            label[rng.integers(len(label))] ^= True
        elif kind == 3:
            node_var[rng.integers(n)] = rng.integers(-1, xg.n_vars)
        else:
            value[rng.integers(n)] = rng.integers(-1, 3)
    ids = [f"n{i}" for i in range(n)] if seed % 3 == 0 else xg.node_ids
    return ExplanationGraph(
        xg.var_names, ids, xg.root, node_var, value, src, dst, label, check=False
    )


def _as_light(xg: ExplanationGraph) -> ExplanationGraph:
    """The same graph given as lists: a light graph, checked by loops over its lists."""
    columns = [xg.node_var, xg.terminal_value, xg.edge_src, xg.edge_dst, xg.edge_label]
    light = ExplanationGraph(
        xg.var_names, xg.node_ids, xg.root, *[c.tolist() for c in columns], check=False
    )
    assert light.light and not xg.light
    return light


@pytest.mark.parametrize("block", range(4))
def test_violations_match_the_node_by_node_reference(block: int) -> None:
    found = 0
    for seed in range(block * 100, block * 100 + 100):
        xg = _broken(seed)
        try:
            expected: list[str] | type[Exception] = _reference_violations(xg)
        except InvalidGraphError:  # a cycle of 1-edges met while following the path
            expected = InvalidGraphError
        if expected is InvalidGraphError:
            with pytest.raises(InvalidGraphError):
                xg.violations()
            with pytest.raises(InvalidGraphError):
                _light_violations(_as_light(xg))
            continue
        assert xg.violations() == expected
        assert _light_violations(_as_light(xg)) == expected  # the pure-Python check
        found += bool(expected)
    assert found > 20


def test_has_cycle_by_levels_and_by_components() -> None:
    rng = np.random.default_rng(5)
    for _ in range(300):
        n = int(rng.integers(1, 40))
        m = int(rng.integers(0, 2 * n))
        src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
        if rng.random() < 0.5:  # mostly acyclic: edges go from lower to higher ids
            src, dst = np.minimum(src, dst), np.maximum(src, dst)
            keep = src != dst
            src, dst = src[keep], dst[keep]
        expected = _reference_cycle(src, dst, n)
        assert _has_cycle(src, dst, n) == expected
        assert _has_cycle(src, dst, n, max_rounds=2) == expected  # scipy past two levels
    chain = np.arange(5000)
    assert not _has_cycle(chain[:-1], chain[1:], 5000)  # deeper than max_rounds
    assert _has_cycle(np.append(chain[:-1], 4999), np.append(chain[1:], 0), 5000)


def test_decision_graph_checked_once_until_it_changes() -> None:
    dg = DecisionGraph([Feature.boolean("a")], classes=[0, 1])
    dg.add_node("r", "a")
    dg.add_terminal("t0", 0)
    dg.add_terminal("t1", 1)
    dg.add_edge("r", "t0", Literal.eq("a", 0))
    problems = dg.violations()
    assert problems and dg.violations() == problems
    problems.clear()  # the caller's copy, not the kept answer
    assert dg.violations()
    dg.add_edge("r", "t1", Literal.eq("a", 1))
    assert dg.violations() == []
    dg.validate()
