"""The light path (issue 13, start-up): small graphs kept as lists, AXps by dualization.

* A light graph (lists) answers every query as the same graph held in numpy arrays, and both
  agree with exhaustive evaluation (:class:`xpg.testing.Oracle`).
* :func:`minimal_hitting_masks` (Berge's dualization) gives the minimal hitting sets found by
  trying every subset, and gives up beyond its budget.
* Enumeration by dualization (no SAT call) and by the MARCO loop give the same explanations.
* The level-wise minimal tree CXps are the minimal sets of all 0-paths.

Def. 3 checks of light graphs are compared with the numpy ones in
``tests/io/test_xpg_reader_scale.py``, the light reader with the line reader there too.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

import xpg.core.costs as costs
from xpg import (
    ExplanationGraph,
    enumerate_explanations,
    find_axp,
    find_cxp,
    read_xpg,
    read_xpg_text,
    write_xpg,
)
from xpg.explain.mask_families import (
    minimal_hitting_masks,
    minimal_masks,
    tree_minimal_zero_masks,
    tree_zero_masks,
)
from xpg.explain.reach import zero_path_masks
from xpg.io import format_xpg
from xpg.testing import Oracle, brute_minimal_hitting_sets, random_reduced_obdd, random_xpg
from xpg.testing.xpgs import random_dg_xpgs


def _as_light(xg: ExplanationGraph) -> ExplanationGraph:
    columns = [xg.node_var, xg.terminal_value, xg.edge_src, xg.edge_dst, xg.edge_label]
    return ExplanationGraph(xg.var_names, xg.node_ids, xg.root, *[c.tolist() for c in columns])


def _graphs() -> list[ExplanationGraph]:
    out = [random_xpg(seed, tree=seed % 2 == 0, max_vars=7, max_internal=24) for seed in range(200)]
    for kind in ("tree", "dag", "ordered"):
        out += random_dg_xpgs(11, kind, 20)
    return out


GRAPHS = _graphs()


def _sets(family: list[tuple[str, ...]]) -> set[frozenset[str]]:
    return {frozenset(x) for x in family}


def test_light_graphs_answer_as_array_graphs_and_as_the_oracle() -> None:
    for xg in GRAPHS:
        light = _as_light(xg)
        assert light.light and not xg.light
        assert light.is_tree() == xg.is_tree()
        assert light.tested_vars() == xg.tested_vars()
        assert light.has_zero_terminal() == xg.has_zero_terminal()
        assert light.views() == xg.views()
        assert [list(a) for a in light.adjacency()] == [list(a) for a in xg.adjacency()]
        assert find_axp(light) == find_axp(xg) and find_cxp(light) == find_cxp(xg)
        assert zero_path_masks(light) == zero_path_masks(xg)
        ours, theirs = enumerate_explanations(light), enumerate_explanations(xg)
        assert ours.axps == theirs.axps and ours.cxps == theirs.cxps and ours.complete
        truth = Oracle.of_xpg(xg)
        assert _sets(ours.axps) == truth.axps and _sets(ours.cxps) == truth.cxps
        # the arrays of a light graph, built on demand, are the graph's and cannot drift
        assert light.edge_label.tolist() == xg.edge_label.tolist()
        assert not light.node_var.flags.writeable


def test_the_reader_makes_light_graphs_of_small_files() -> None:
    xg = GRAPHS[0]
    again = read_xpg_text(format_xpg(xg))
    assert again.light and again.n_edges == xg.n_edges


def test_minimal_hitting_masks_match_brute_force() -> None:
    rng = random.Random(13)
    checked = 0
    for _ in range(400):
        n = rng.randint(1, 8)
        family = [rng.getrandbits(n) for _ in range(rng.randint(0, 7))]
        got = minimal_hitting_masks(family)
        assert got is not None
        sets = [frozenset(v for v in range(n) if m >> v & 1) for m in family]
        expected = brute_minimal_hitting_sets(sets, n)
        assert {frozenset(v for v in range(n) if h >> v & 1) for h in got} == expected
        assert len(got) == len(set(got))
        assert got == sorted(got, key=lambda m: (m.bit_count(), m))
        checked += bool(got) and len(family) > 2
    assert checked > 150  # most families are not degenerate


def test_minimal_hitting_masks_give_up_beyond_the_budget() -> None:
    family = [0b11 << (2 * i) for i in range(10)]  # 2**10 minimal hitting sets
    assert len(minimal_hitting_masks(family) or []) == 1024
    assert minimal_hitting_masks(family, max_work=1000) is None
    assert minimal_hitting_masks([0b1, 0b10], max_work=0) is None


@pytest.mark.parametrize("route", ["dual", "sat"])
def test_dualization_and_marco_give_the_same_explanations(
    route: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(costs, "DUAL_WORK", 10**9 if route == "dual" else -1)
    for xg in GRAPHS[::3]:
        result = enumerate_explanations(_as_light(xg))
        truth = Oracle.of_xpg(xg)
        assert result.complete
        assert _sets(result.axps) == truth.axps and _sets(result.cxps) == truth.cxps
        assert len(result.axps) == len(truth.axps)  # each once
        assert (result.sat_calls == 0) == (route == "dual" or not result.cxps)


def test_tree_minimal_zero_masks_are_the_minimal_zero_path_sets() -> None:
    trees = [xg for xg in GRAPHS if xg.is_tree()]
    assert len(trees) > 100
    for xg in trees:
        expected = minimal_masks(tree_zero_masks(xg) or set())
        for graph in (xg, _as_light(xg)):
            assert tree_minimal_zero_masks(graph) == expected
            assert tree_minimal_zero_masks(graph, max_masks=len(expected)) == expected
            if expected:
                assert tree_minimal_zero_masks(graph, max_masks=len(expected) - 1) is None


def test_mid_sized_files_are_explained_without_numpy(tmp_path: Path) -> None:
    """A fresh ``xpg enum`` on OBDD and tree files of thousands of edges: the pure-Python
    route end to end (reading, Def. 3, CXps, dualization), the answers of the numpy route."""
    cases = []
    for seed in range(2):
        dg = random_reduced_obdd(30, 600, seed=seed)
        rng = random.Random(seed)
        cases.append(
            ExplanationGraph.from_decision_graph(dg, [rng.randrange(2) for _ in range(30)])
        )
        cases.append(random_xpg(seed, tree=True, max_vars=40, max_internal=3000))
    for k, xg in enumerate(cases):
        assert 512 <= xg.n_edges < costs.LIGHT_EDGES
        path = tmp_path / f"g{k}.xpg"
        write_xpg(xg, path)
        code = (
            "import json, sys\n"
            "from xpg.cli.main import main\n"
            "main(['enum', '--json', sys.argv[1]])\n"
            "print(json.dumps(sorted(m for m in ('numpy', 'pysat') if m in sys.modules)))\n"
        )
        proc = subprocess.run(
            [sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True
        )
        doc, loaded = (json.loads(line) for line in proc.stdout.splitlines())
        assert loaded == []
        expected = enumerate_explanations(read_xpg(path))  # numpy is loaded here: arrays
        assert _sets([tuple(a) for a in doc["axps"]]) == _sets(expected.axps)
        assert _sets([tuple(c) for c in doc["cxps"]]) == _sets(expected.cxps)
        assert doc["complete"] and expected.complete
