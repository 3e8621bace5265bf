"""Both sides of every tuned threshold of :mod:`xpg.core.costs` give the brute-force answers.

Each threshold chooses between two implementations of one answer (issue 29: the cost table,
each alternative path covered by one agreement test).  Its probe patches it in
``xpg.core.costs`` alone, to its low extreme and then to its high one (``Probe.sides``, the
order of ``costs.COSTS[name].paths``), runs the queries it routes on seeded random cases
(AXp, CXp, enumeration, membership, feature classes, reading a ``.xpg`` file, a tree
ensemble's explanations), and checks that both sides answer alike and as brute force does
(:class:`xpg.testing.Oracle`).  Each side must also have taken its own path on some case
(spies on the implementations tell which ran), so that a probe whose cases never reach one
side fails instead of passing unchecked.
"""

from __future__ import annotations

import importlib
import random
from collections import Counter
from collections.abc import Callable, Iterable
from functools import cache
from typing import Any, NamedTuple

import numpy as np
import pytest

import xpg.core.costs as costs
import xpg.core.lazy
import xpg.core.xpgraph
import xpg.explain.ensemble.leaf_search as leaf_search
import xpg.explain.graph_oracle
import xpg.explain.marco
import xpg.explain.mask_families as mask_families
import xpg.explain.reach
import xpg.explain.relevance
import xpg.io.xpg_format
from xpg import (
    Explainer,
    ExplanationGraph,
    classify_features,
    enumerate_explanations,
    find_axp,
    find_cxp,
    format_xpg,
    is_member,
    membership_route,
    read_xpg_text,
)
from xpg.explain.axp_cxp import axp_from_fixed
from xpg.explain.ensemble.oracle import EnsembleOracle
from xpg.testing import (
    Oracle,
    described,
    domain_values,
    fresh_copy,
    random_cases,
    random_dg_xpgs,
    random_xpg,
)
from xpg.testing.ensembles import ensemble_oracle, random_small_ensemble

HUGE = 10**9
Calls = Counter[Any]


class Case(NamedTuple):
    """An explanation graph and its brute-force answers."""

    xg: ExplanationGraph
    truth: Oracle


class Probe(NamedTuple):
    """How to force, run and check one threshold.

    ``sides``: the patches of ``xpg.core.costs`` that take the threshold's first path, then
    its second (other thresholds may be patched alike on both sides, to reach the code it
    guards); ``run(case, calls)``: the answers and the path taken (0, 1, or None when the
    case reached neither), under one side; ``check(answers, case)``: against brute force;
    ``instrument(monkeypatch, calls)``: the spies (and any other setting) of one side.
    """

    sides: tuple[dict[str, float], dict[str, float]]
    cases: Callable[[], list[Any]]
    run: Callable[[Any, Calls], tuple[Any, int | None]]
    check: Callable[[Any, Any], None]
    instrument: Callable[[pytest.MonkeyPatch, Calls], None] = lambda m, calls: None


def _spy(
    m: pytest.MonkeyPatch,
    owner: Any,
    name: str,
    calls: Calls,
    key: Callable[[Any], Any] | None = None,
) -> None:
    """Count the calls of ``owner.name`` in ``calls[name]`` (and ``calls[name, key(result)]``)."""
    original = getattr(owner, name)

    def spied(*args: Any, **kwargs: Any) -> Any:
        result = original(*args, **kwargs)
        calls[name] += 1
        if key is not None:
            calls[name, key(result)] += 1
        return result

    m.setattr(owner, name, spied)


def _spies(*targets: tuple[Any, str] | tuple[Any, str, Callable[[Any], Any]]) -> Any:
    def instrument(m: pytest.MonkeyPatch, calls: Calls) -> None:
        for target in targets:
            _spy(m, target[0], target[1], calls, *target[2:])

    return instrument


def _either(calls: Calls, first: Any, second: Any) -> int | None:
    """1 when ``second`` was called, else 0 when ``first`` was, else None."""
    return 1 if calls[second] else 0 if calls[first] else None


# -- cases ------------------------------------------------------------------------------------
def _family(sets: Iterable[Iterable[str]]) -> frozenset[frozenset[str]]:
    return frozenset(frozenset(s) for s in sets)


def _with_truth(graphs: Iterable[ExplanationGraph]) -> list[Case]:
    return [Case(xg, Oracle.of_xpg(xg)) for xg in graphs]


@cache
def _mixed() -> list[Case]:
    """Trees and DAGs: random XpGs, and the XpGs of random decision graphs."""
    rng = random.Random(29)
    cases = [Case(*c) for c in random_cases(rng, True, 8) + random_cases(rng, False, 8)]
    for kind in ("tree", "dag", "ordered"):
        cases += _with_truth(random_dg_xpgs(rng, kind, 3))
    return cases


@cache
def _dags() -> list[Case]:
    rng = random.Random(30)
    cases = [Case(*c) for c in random_cases(rng, False, 16)]
    return cases + _with_truth(random_dg_xpgs(rng, "dag", 4) + random_dg_xpgs(rng, "ordered", 4))


def _bushy_tree(rng: random.Random, n_vars: int = 10, depth: int = 7) -> ExplanationGraph:
    """A tree XpG whose 0-terminals lie 4 levels deep or more: many CXps, of several sizes
    (the families that the subset tests of ``minimal_masks`` are tuned on)."""
    node_var: list[int] = []
    value: list[int] = []
    edges: list[tuple[int, int, bool]] = []

    def grow(level: int, on_path: bool, used: frozenset[int]) -> int:
        n = len(node_var)
        if level == depth or (level >= 2 and rng.random() < 0.15):
            node_var.append(-1)  # the instance's path ends at a 1-terminal (Def. 3)
            value.append(1 if on_path or level < 4 else int(rng.random() < 0.6))
            return n
        v = rng.choice([u for u in range(n_vars) if u not in used] or [0])
        node_var.append(v)
        value.append(-1)
        for label in (True, False):
            edges.append((n, grow(level + 1, on_path and label, used | {v}), label))
        return n

    grow(0, True, frozenset())
    src, dst, label = (list(column) for column in zip(*edges))
    ids = list(range(len(node_var)))
    names = [f"v{i}" for i in range(n_vars)]
    return ExplanationGraph(names, ids, 0, node_var, value, src, dst, label)


@cache
def _trees(min_edges: int = 0) -> list[Case]:
    """Random trees (from ``min_edges`` edges on): 12 random XpGs of up to 9 variables, and 12
    with many CXps (:func:`_bushy_tree`)."""
    rng = random.Random(31 + min_edges)
    graphs: list[ExplanationGraph] = []
    while len(graphs) < 12:
        xg = random_xpg(rng, tree=True, max_vars=9, max_internal=80)
        if xg.n_edges >= min_edges:
            graphs.append(xg)
    while len(graphs) < 24:
        xg = _bushy_tree(rng)
        if xg.n_edges >= min_edges and xg.has_zero_terminal():
            graphs.append(xg)
    return _with_truth(graphs)


@cache
def _ensembles() -> list[Any]:
    """Small fitted scikit-learn ensembles, an instance each, and their brute-force answers."""
    cases = []
    for seed in range(12):
        est, feats, _ = random_small_ensemble(seed, ("forest", "extra-trees", "boosted")[seed % 3])
        rng = np.random.default_rng(seed)
        x = {f.name: rng.choice(domain_values(f)).item() for f in feats}
        cases.append((est, feats, x, ensemble_oracle(est, feats, x)))
    return cases


# -- answers ----------------------------------------------------------------------------------
def _answers(xg: ExplanationGraph) -> dict[str, Any]:
    """Every query of one explanation graph."""
    result = enumerate_explanations(xg)
    return {
        "axp": find_axp(xg),
        "cxp": find_cxp(xg),
        "axps": _family(result.axps),
        "cxps": _family(result.cxps),
        "complete": result.complete,
        "classes": classify_features(xg).classes,
        "members": {
            (name, kind): is_member(xg, name, kind).member
            for name in xg.var_names
            for kind in ("axp", "cxp")
        },
    }


def _check(answers: dict[str, Any], case: Case) -> None:
    truth = case.truth
    members, necessary = truth.members(), truth.necessary()
    # a .xpg file lists only the variables some node tests: the others are in no explanation
    names = [n for n in truth.names if n in answers.get("classes", truth.names)]
    assert members <= set(names)
    if "axp" in answers:
        assert frozenset(answers["axp"]) in truth.axps
    if "cxp" in answers:
        cxp = answers["cxp"]
        assert (cxp is None and not truth.cxps) or frozenset(cxp or ()) in truth.cxps
    if "axps" in answers:
        assert answers["complete"]
        assert (answers["axps"], answers["cxps"]) == (truth.axps, truth.cxps)
    if "cxps" in answers:
        assert answers["cxps"] == truth.cxps
    if "classes" in answers:
        assert answers["classes"] == {
            n: "necessary" if n in necessary else "relevant" if n in members else "irrelevant"
            for n in names
        }
    if "members" in answers:
        assert answers["members"] == {(n, k): n in members for n in names for k in ("axp", "cxp")}
    if "graph" in answers and all(isinstance(i, int) for i in case.xg.node_ids):
        assert answers["graph"] == described(case.xg)  # other ids are renumbered


def _everything(took: Callable[[ExplanationGraph, Calls], int | None]) -> Any:
    """Run every query on a fresh copy of the case's graph; ``took`` names the path."""

    def run(case: Case, calls: Calls) -> tuple[Any, int | None]:
        xg = fresh_copy(case.xg)
        return _answers(xg), took(xg, calls)

    return run


def _cxps_by_masks(case: Case, calls: Calls) -> tuple[Any, int | None]:
    """The CXps of a tree as the minimal sets of its 0-path sets (``minimal_masks``)."""
    xg = fresh_copy(case.xg)
    found = mask_families.minimal_masks(mask_families.tree_zero_masks(xg) or set())
    cxps = _family({xg.var_names[v] for v in range(xg.n_vars) if m >> v & 1} for m in found)
    return {"cxps": cxps}, None


def _mask_path(took: Callable[[Calls], int | None]) -> Any:
    def run(case: Case, calls: Calls) -> tuple[Any, int | None]:
        answers, _ = _cxps_by_masks(case, calls)
        return answers, took(calls)

    return run


def _methods(first: set[str], second: set[str]) -> Any:
    """The path of a subset-test method choice: 1 when one of ``second`` ran, else 0 when one
    of ``first`` did."""

    def took(calls: Calls) -> int | None:
        ran = {method for method in ("scan", "pairwise", "bitsets") if calls["_method", method]}
        return 1 if ran & second else 0 if ran & first else None

    return _mask_path(took)


def _light_graph(case: Case, calls: Calls) -> tuple[Any, int | None]:
    """The graph given as Python lists, as the ``.xpg`` reader gives small files."""
    xg = case.xg
    columns = [xg.node_var, xg.terminal_value, xg.edge_src, xg.edge_dst, xg.edge_label]
    given = ExplanationGraph(xg.var_names, xg.node_ids, xg.root, *[c.tolist() for c in columns])
    return _answers(given), int(given.light)


def _read_back(case: Case, calls: Calls) -> tuple[Any, int | None]:
    read = read_xpg_text(format_xpg(case.xg))
    return {"graph": described(read), **_answers(read)}, _either(calls, "_read_fast", "_read_light")


def _first_axp(case: Case, calls: Calls) -> tuple[Any, int | None]:
    return {"axp": find_axp(fresh_copy(case.xg))}, 1 if calls["tested"] else 0


def _deletions(built: int) -> Any:
    """AXps by deletion in several orders on one graph; the path is ``built`` when the 1-path
    shortcut was built on the way."""

    def run(case: Case, calls: Calls) -> tuple[Any, int | None]:
        xg = fresh_copy(case.xg)
        rng = random.Random(len(case.truth.axps))
        tested = xg.tested_vars()
        orders = [rng.sample(tested, len(tested)) for _ in range(4)]
        axps = [xg.names(axp_from_fixed(xg, order)) for order in orders]
        return {"axps": axps}, built if xg.has_ends_at_zero() else 1 - built

    return run


def _check_deletions(answers: dict[str, Any], case: Case) -> None:
    assert all(frozenset(a) in case.truth.axps for a in answers["axps"])


def _enumerated(timeout: float | None = None) -> Any:
    def run(case: Case, calls: Calls) -> tuple[Any, int | None]:
        result = enumerate_explanations(fresh_copy(case.xg), timeout=timeout)
        answers = {"axps": _family(result.axps), "cxps": _family(result.cxps)}
        answers["complete"] = result.complete
        dualized = calls["minimal_hitting_masks", True]
        return answers, 1 if dualized else 0 if calls["minimal_hitting_masks"] else None

    return run


def _classes(took: Callable[[Calls], int | None]) -> Any:
    def run(case: Case, calls: Calls) -> tuple[Any, int | None]:
        return {"classes": classify_features(fresh_copy(case.xg)).classes}, took(calls)

    return run


def _members(case: Case, calls: Calls) -> tuple[Any, int | None]:
    xg = fresh_copy(case.xg)
    answers = {
        "classes": classify_features(xg).classes,
        "members": {
            (n, k): is_member(xg, n, k).member for n in xg.var_names for k in ("axp", "cxp")
        },
    }
    return answers, 0 if membership_route(xg).route == "sat" else 1


def _ensemble(many: bool, took: Callable[[Explainer, Any, Calls], int | None]) -> Any:
    """The explanations of a scikit-learn ensemble's decision, through the one explainer
    (``many``: as for a table of rows); ``took(explainer, decision, calls)`` names the path."""

    def run(case: Any, calls: Calls) -> tuple[Any, int | None]:
        est, feats, x, truth = case
        explainer = Explainer(est, feats, many=many)
        with explainer.explain(x) as decision:
            result = decision.enumerate()
            axp, cxp = decision.axp(), decision.cxp()
            cxp_is_one = (cxp is None and not truth.cxps) or frozenset(cxp or ()) in truth.cxps
            answers = {
                "prediction": decision.prediction,
                "axps": _family(result.axps),
                "cxps": _family(result.cxps),
                "complete": result.complete,
                "axp_is_one": frozenset(axp) in truth.axps,
                "cxp_is_one": cxp_is_one,
            }
            return answers, took(explainer, decision, calls)

    return run


def _check_ensemble(answers: dict[str, Any], case: Any) -> None:
    est, feats, x, truth = case
    row = np.array([[float(x[f.name]) for f in feats]])
    assert answers["prediction"] == est.predict(row)[0]
    assert answers["complete"] and answers["axp_is_one"] and answers["cxp_is_one"]
    assert (answers["axps"], answers["cxps"]) == (truth.axps, truth.cxps)


def _numpy_unloaded(m: pytest.MonkeyPatch, calls: Calls) -> None:
    """As in a process that has not imported numpy (``xpg enum`` on a small file)."""
    loaded = xpg.core.lazy.loaded
    m.setattr(xpg.core.lazy, "loaded", lambda name: name != "numpy" and loaded(name))
    _spies((xpg.io.xpg_format, "_read_light"), (xpg.io.xpg_format, "_read_fast"))(m, calls)


# -- the probes -------------------------------------------------------------------------------
xpgraph, reach, relevance = xpg.core.xpgraph, xpg.explain.reach, xpg.explain.relevance
_views = (xpgraph, "array_views", lambda views: type(views.one).__name__)
_by_size = _spies((mask_families, "_minimal_by_size"))
_method = _spies((mask_families, "_method", lambda method: method))
# the subset tests of minimal_masks run on the size groups (no sorted scan, one peeling pass)
_SIZE_GROUPS = {"SMALL_FAMILY": 0, "PEEL_PASSES": 0}
_AMPLE = {"LIST_SECONDS_PER_EDGE": 1.0, "DFS_LIST_SECONDS_PER_EDGE": 1.0}


def _sides(name: str, low: float, high: float, **both: float) -> tuple[dict[str, float], ...]:
    return {name: low, **both}, {name: high, **both}


PROBES: dict[str, Probe] = {
    "LIGHT_EDGES": Probe(_sides("LIGHT_EDGES", 0, HUGE), _mixed, _light_graph, _check),
    "SMALL_EDGES": Probe(
        _sides("SMALL_EDGES", 0, HUGE),
        _mixed,
        _everything(lambda xg, calls: _either(calls, "array_views", "list_views")),
        _check,
        _spies((xpgraph, "list_views"), _views),
    ),
    "LIST_EDGES": Probe(
        _sides("LIST_EDGES", 0, HUGE, SMALL_EDGES=0),
        _mixed,
        _everything(
            lambda xg, calls: _either(calls, ("array_views", "memoryview"), ("array_views", "list"))
        ),
        _check,
        _spies(_views),
    ),
    "LIST_QUERY_EDGES": Probe(
        _sides("LIST_QUERY_EDGES", 0, HUGE),
        _mixed,
        _everything(lambda xg, calls: int(xg.runs_on_lists())),
        _check,
    ),
    "TESTED_VARS_LIST_EDGES": Probe(
        _sides("TESTED_VARS_LIST_EDGES", 0, HUGE),
        _mixed,
        _everything(lambda xg, calls: int(xg.runs_on_lists(costs.TESTED_VARS_LIST_EDGES))),
        _check,
    ),
    "ADJACENCY_LIST_EDGES": Probe(
        _sides("ADJACENCY_LIST_EDGES", 0, HUGE, SMALL_EDGES=0),
        _mixed,
        _everything(
            lambda xg, calls: _either(
                calls, ("_build_adjacency", "Groups"), ("_build_adjacency", "list")
            )
        ),
        _check,
        _spies((ExplanationGraph, "_build_adjacency", lambda adj: type(adj[0]).__name__)),
    ),
    "LEVEL_EDGES": Probe(
        _sides("LEVEL_EDGES", -1, HUGE, LIST_QUERY_EDGES=0),
        _trees,
        _everything(
            lambda xg, calls: _either(calls, "tree_zero_path_masks", "tree_minimal_zero_masks")
        ),
        _check,
        _spies((reach, "tree_zero_path_masks"), (mask_families, "tree_minimal_zero_masks")),
    ),
    "PYTHON_BUDGET": Probe(
        _sides("PYTHON_BUDGET", 1, HUGE),
        _mixed,
        _everything(lambda xg, calls: 0 if calls["_reaches_zero"] + calls["frontier_reach"] else 1),
        _check,
        _spies((reach, "_reaches_zero"), (reach, "frontier_reach")),
    ),
    "SHORTCUT_MIN": Probe(
        _sides("SHORTCUT_MIN", 0, HUGE, SMALL_EDGES=0, LIST_EDGES=0),
        _mixed,
        _deletions(built=0),
        _check_deletions,
    ),
    "SHORTCUT_FRACTION": Probe(
        _sides("SHORTCUT_FRACTION", 1, HUGE, SHORTCUT_MIN=0, SMALL_EDGES=0, LIST_EDGES=0),
        _mixed,
        _deletions(built=1),
        _check_deletions,
    ),
    "EVERY_FEATURE_NODES_PER_VAR": Probe(
        _sides("EVERY_FEATURE_NODES_PER_VAR", 0, HUGE),
        _mixed,
        _first_axp,
        _check,
        _spies((xpg.explain.graph_oracle.GraphOracle, "tested")),
    ),
    "DFS_EDGES": Probe(
        _sides("DFS_EDGES", 0, HUGE),
        _trees,
        _everything(lambda xg, calls: _either(calls, "_jump_zero_masks", "_dfs_zero_masks")),
        _check,
        _spies((mask_families, "_jump_zero_masks"), (mask_families, "_dfs_zero_masks")),
    ),
    "MASK_OP_COST": Probe(
        _sides("MASK_OP_COST", 0, HUGE, MASK_CALL_COST=0, **_SIZE_GROUPS),
        _trees,
        _methods({"bitsets"}, {"pairwise"}),
        _check,
        _method,
    ),
    "MASK_SCAN_COST": Probe(
        _sides("MASK_SCAN_COST", 0, HUGE, **_SIZE_GROUPS),
        _trees,
        _methods({"scan"}, {"pairwise", "bitsets"}),
        _check,
        _method,
    ),
    "MASK_PAIR_COST": Probe(
        _sides("MASK_PAIR_COST", 0, HUGE, MASK_CALL_COST=0, **_SIZE_GROUPS),
        _trees,
        _methods({"pairwise"}, {"bitsets"}),
        _check,
        _method,
    ),
    "MASK_CALL_COST": Probe(
        _sides("MASK_CALL_COST", 0, HUGE, **_SIZE_GROUPS),
        _trees,
        _methods({"pairwise", "bitsets"}, {"scan"}),
        _check,
        _method,
    ),
    "PEEL_PASSES": Probe(
        _sides("PEEL_PASSES", 0, HUGE, PEEL_GAIN=0, SMALL_FAMILY=0),
        _trees,
        _mask_path(lambda calls: 0 if calls["_minimal_by_size"] else 1),
        _check,
        _by_size,
    ),
    "PEEL_GAIN": Probe(
        _sides("PEEL_GAIN", 0, HUGE, PEEL_PASSES=HUGE, SMALL_FAMILY=0),
        _trees,
        _mask_path(lambda calls: 1 if calls["_minimal_by_size"] else 0),
        _check,
        _by_size,
    ),
    "SMALL_FAMILY": Probe(
        _sides("SMALL_FAMILY", 0, HUGE),
        _trees,
        _mask_path(lambda calls: _either(calls, "_peel", "_minimal_by_scan")),
        _check,
        _spies((mask_families, "_peel"), (mask_families, "_minimal_by_scan")),
    ),
    "MASK_EDGES": Probe(
        _sides("MASK_EDGES", -1, HUGE),
        _mixed,
        _everything(lambda xg, calls: 1 if calls["zero_path_masks"] else 0),
        _check,
        _spies((xpg.explain.graph_oracle, "zero_path_masks")),
    ),
    "DUAL_WORK": Probe(
        _sides("DUAL_WORK", -1, HUGE),
        _mixed,
        _enumerated(),
        _check,
        _spies((xpg.explain.marco, "minimal_hitting_masks", lambda found: found is not None)),
    ),
    "DUAL_WORK_PER_SECOND": Probe(
        _sides("DUAL_WORK_PER_SECOND", 0, HUGE),
        _mixed,
        _enumerated(timeout=600.0),  # a deadline, far enough never to be reached
        _check,
        _spies((xpg.explain.marco, "minimal_hitting_masks", lambda found: found is not None)),
    ),
    "BUILD_SECONDS_PER_EDGE": Probe(
        _sides("BUILD_SECONDS_PER_EDGE", -1.0, 1.0),
        _dags,
        _classes(lambda calls: 0 if calls["MembershipOracle"] else 1),
        _check,
        _spies((relevance, "MembershipOracle")),
    ),
    "LIST_SECONDS_PER_EDGE": Probe(
        _sides("LIST_SECONDS_PER_EDGE", -1.0, 1.0, DFS_EDGES=0),
        lambda: _trees(64),
        _classes(lambda calls: 1 if calls["_axp_before", True] else 0),
        _check,
        _spies((relevance, "_axp_before", lambda axp: axp is not None)),
    ),
    "DFS_LIST_SECONDS_PER_EDGE": Probe(
        _sides("DFS_LIST_SECONDS_PER_EDGE", -1.0, 1.0),
        lambda: _trees(64),
        _classes(lambda calls: 1 if calls["_axp_before", True] else 0),
        _check,
        _spies((relevance, "_axp_before", lambda axp: axp is not None)),
    ),
    "LIST_FIRST_EDGES": Probe(
        _sides("LIST_FIRST_EDGES", 0, HUGE),
        _trees,
        _classes(lambda calls: 0 if calls["listing_seconds"] else 1),
        _check,
        _spies((relevance, "listing_seconds")),
    ),
    "RACE_EDGES": Probe(
        _sides("RACE_EDGES", 0, HUGE, LIST_FIRST_EDGES=0, **_AMPLE),
        _trees,
        _classes(lambda calls: 0 if calls["_enumerated_members"] else 1),
        _check,
        _spies((relevance, "_enumerated_members")),
    ),
    "FILTER_WORK_PER_EDGE": Probe(
        _sides("FILTER_WORK_PER_EDGE", 0, HUGE, FILTER_WORK_BASE=0), _trees, _members, _check
    ),
    "FILTER_WORK_BASE": Probe(
        _sides("FILTER_WORK_BASE", 0, HUGE, FILTER_WORK_PER_EDGE=0), _trees, _members, _check
    ),
    "LIGHT_LINES": Probe(
        _sides("LIGHT_LINES", 0, HUGE, SMALL_LINES=0), _mixed, _read_back, _check, _numpy_unloaded
    ),
    "SMALL_LINES": Probe(
        _sides("SMALL_LINES", 0, HUGE),
        _mixed,
        _read_back,
        _check,
        _spies((xpg.io.xpg_format, "_read_light"), (xpg.io.xpg_format, "_read_fast")),
    ),
    "PRODUCT_EDGE_COST": Probe(
        _sides("PRODUCT_EDGE_COST", 0, HUGE),
        _ensembles,
        _ensemble(True, lambda explainer, decision, calls: int(explainer.route != "graph")),
        _check_ensemble,
    ),
    "EXHAUSTIVE_LIMIT": Probe(
        _sides("EXHAUSTIVE_LIMIT", 0, HUGE),
        _ensembles,
        _ensemble(False, lambda explainer, decision, calls: 1 if calls["_exhaustive"] else 0),
        _check_ensemble,
        _spies((EnsembleOracle, "_exhaustive")),
    ),
    "BNB_NODES": Probe(
        _sides("BNB_NODES", 0, HUGE, EXHAUSTIVE_LIMIT=0),
        _ensembles,
        _ensemble(False, lambda explainer, decision, calls: int(not decision.oracle.solver_calls)),
        _check_ensemble,
    ),
    "LP_AFTER_NODES": Probe(
        _sides("LP_AFTER_NODES", 0, HUGE, EXHAUSTIVE_LIMIT=0),
        _ensembles,
        _ensemble(False, lambda explainer, decision, calls: 0 if calls["bound"] else 1),
        _check_ensemble,
        _spies((leaf_search.Relaxation, "bound")),
    ),
}


@pytest.mark.parametrize("name", sorted(costs.COSTS))
def test_both_sides_of_a_threshold_give_the_brute_force_answers(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    probe = PROBES[name]
    paths: tuple[set[int | None], set[int | None]] = (set(), set())
    cases = probe.cases()
    assert len(cases) >= 12
    for case in cases:
        answers = []
        for side, patches in enumerate(probe.sides):
            with monkeypatch.context() as m:
                for constant, value in patches.items():
                    m.setattr(costs, constant, value)  # raises for a name the table lacks
                calls: Calls = Counter()
                probe.instrument(m, calls)
                got, path = probe.run(case, calls)
            answers.append(got)
            paths[side].add(path)
        assert answers[0] == answers[1], name
        probe.check(answers[0], case)
    # each side took its own path on some case: the probe reaches both implementations
    assert 0 in paths[0] and 1 in paths[1], (name, costs.COSTS[name].paths, paths)


def test_every_threshold_has_a_probe() -> None:
    assert sorted(PROBES) == sorted(costs.COSTS)


def test_the_table_names_every_threshold() -> None:
    """Every number of the module is a threshold of the table, with two distinct paths."""
    numbers = {n for n, v in vars(costs).items() if n.isupper() and isinstance(v, (int, float))}
    assert numbers == set(costs.COSTS)
    assert all(len(set(cost.paths)) == 2 for cost in costs.COSTS.values())


@pytest.mark.parametrize("name", sorted(costs.COSTS))
def test_its_reader_reads_it_from_the_table_at_call_time(name: str) -> None:
    """The module named in the table reads ``costs.NAME`` (so that one patch moves every
    reader) and keeps no copy of its own."""
    module = importlib.import_module(costs.COSTS[name].reader)
    with open(module.__file__ or "", encoding="utf-8") as source:
        assert f"costs.{name}" in source.read()
    assert not hasattr(module, name) and not hasattr(module, f"_{name}")
