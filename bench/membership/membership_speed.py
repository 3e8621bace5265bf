"""Membership of every feature: dispatched route against "enumerate everything, then look".

For each explained instance the script asks, for every feature, whether it is in some AXp:

* dispatched: :class:`xpg.explain.membership.MembershipQueries` (tree XpGs: the polynomial CXp list
  of Prop. 6; other XpGs: one SAT call per feature on one incremental solver), and
  :func:`xpg.explain.relevance.classify_features` (all features at once, necessary/relevant/
  irrelevant);
* enumeration: :func:`xpg.enumerate_explanations` (MARCO) under a time budget, then the
  union of the AXps.  When the budget runs out the enumeration time is a lower bound, and so
  is the ratio.

It also times a smallest AXp (:func:`xpg.explain.smallest.smallest_axp`) and counts its
hitting-set iterations; on trees also with the implicit hitting-set loop forced.

Graphs:

* ``tree-data``: scikit-learn decision trees of depth 6 to 12 on PMLB datasets read from the
  data directory (``--data-dir``, default :func:`xpg.learn.datasets.default_data_dir`:
  ``$XPG_SHARED_DIR/datasets``, else ``<repo>/../shared/datasets``);
* ``tree-random``: random decision trees of depth 6 to 12 over 60 boolean features;
* ``obdd``: reduced OBDDs (dd) of random decision lists and of random CNFs with local
  clauses, 50 to 500 boolean features.

Writes ``membership_speed.csv`` (one row per instance) and, when matplotlib is installed,
``membership_speed.png`` into ``--out``; prints one line per graph.

Scaling of the tree route (``--part scaling``; ``--part all``, the default, runs both): on
trees only, every feature's membership (:class:`~xpg.explain.membership.MembershipQueries`,
one query per feature on one object) and :func:`~xpg.explain.relevance.classify_features`,
each with the tree route forced, the SAT route forced, and the dispatcher, best of
``--repeat`` runs interleaved (route after route, run after run).  Trees:

* ``antichain``: :func:`xpg.testing.antichain_xpg` at depth 14, 16, 18: a complete tree whose
  0-terminals are the leaves at Hamming distance depth/2 from the instance, so the
  ``C(depth, depth/2)`` CXps form an antichain (the worst case of the old quadratic
  superset filter);
* ``tree-random``: random decision trees of depth 12, 14, 16 over 60 and over 200 boolean
  features (:func:`random_boolean_tree`).

Answers must agree across routes (else the script fails).  Writes
``membership_scaling.csv`` and prints one line per tree with the ratios to the SAT route.

``--part classify`` runs :mod:`bench.membership.classify_routes` (issue 27):
:func:`~xpg.explain.relevance.classify_features` on cold tree XpGs of several shapes, the
dispatcher against each route forced; writes ``classify_routes.csv``.

Usage::

    python bench/membership/membership_speed.py --quick
    python bench/membership/membership_speed.py --instances 3 --timeout 60
    python bench/membership/membership_speed.py --part scaling --repeat 3
    python -m bench.membership.membership_speed --part classify --repeat 3

References
----------
Huang, Izza, Ignatiev, Marques-Silva. On Efficiently Explaining Graph-Based Classifiers.
KR 2021, Prop. 6, Props. 8-9, Alg. 4 (MARCO).
"""

from __future__ import annotations

import argparse
import csv
import gzip
import io
import itertools
import os
import random
import sys
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
from dd.autoref import BDD
from sklearn.tree import DecisionTreeClassifier

from xpg import DecisionGraph, ExplanationGraph, Feature, Literal, from_sklearn_tree
from xpg.core.features import real_features
from xpg.explain.marco import enumerate_explanations
from xpg.explain.membership import MembershipQueries
from xpg.explain.relevance import classify_features
from xpg.explain.smallest import smallest_axp
from xpg.io.atomic import write_text_atomic
from xpg.learn.datasets import default_data_dir
from xpg.testing import antichain_xpg

REPO_ROOT = Path(__file__).resolve().parents[2]
DATASETS = ("spambase", "adult", "dna")  # files pmlb/<name>.tsv.gz, target column last


@dataclass
class Row:
    family: str
    graph: str
    size: int  # depth for trees, number of features for OBDDs
    nodes: int
    edges: int
    features: int
    instance: int
    route: str
    member_s: float
    sat_calls: int
    members: int
    classify_s: float
    enum_s: float
    enum_complete: bool
    axps: int
    cxps: int
    ratio: float
    smallest_s: float
    smallest_size: int
    smallest_iterations: int
    smallest_method: str
    ihs_s: float
    ihs_iterations: int


# -- graphs ----------------------------------------------------------------------------------------
def load_dataset(data_dir: Path, name: str) -> tuple[list[str], np.ndarray, np.ndarray]:
    path = data_dir / "pmlb" / f"{name}.tsv.gz"
    if not path.exists():
        sys.exit(
            f"membership_speed: missing dataset {path} (give --data-dir or set XPG_SHARED_DIR "
            "to the shared folder holding datasets/pmlb/)"
        )
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        header = fh.readline().rstrip("\n").split("\t")
        data = np.loadtxt(io.StringIO(fh.read()), delimiter="\t", ndmin=2)
    return header[:-1], data[:, :-1], data[:, -1]


def random_boolean_tree(rng: random.Random, n_features: int, depth: int) -> DecisionGraph:
    """A random decision tree over boolean features; no feature repeats along a path, and
    leaves appear from level 3 on (probability 0.1 per node above the last level)."""
    names = [f"x{i}" for i in range(n_features)]
    dg = DecisionGraph([Feature.boolean(n) for n in names], [0, 1])
    ids = itertools.count()
    edges: list[tuple[int, int, Literal]] = []
    stack = [(next(ids), depth, frozenset[int]())]
    while stack:
        node, d, used = stack.pop()
        free = [i for i in range(n_features) if i not in used]
        if d == 0 or not free or (depth - d >= 3 and rng.random() < 0.1):
            dg.add_terminal(node, rng.randint(0, 1))
            continue
        i = rng.choice(free)
        dg.add_node(node, names[i])
        for value in (0, 1):
            child = next(ids)
            edges.append((node, child, Literal.eq(names[i], value)))
            stack.append((child, d - 1, used | {i}))
    for edge in edges:
        dg.add_edge(*edge)
    return dg


def random_decision_list_obdd(rng: random.Random, n_features: int) -> DecisionGraph:
    """The reduced OBDD (natural order) of a random decision list with ``n/2`` rules of three
    literals over nearby features."""
    names = [f"x{i}" for i in range(n_features)]
    bdd = BDD()
    bdd.declare(*names)
    bdd.configure(reordering=False)
    # the BDD functions live only inside these calls, so they are freed before the manager
    return bdd_to_graph(bdd, names, random_decision_list(bdd, rng, names))


def random_decision_list(bdd: BDD, rng: random.Random, names: list[str]) -> Any:
    n = len(names)
    f = bdd.true if rng.random() < 0.5 else bdd.false
    for _ in range(n // 2):
        start = rng.randrange(n)
        term = bdd.true
        for v in sorted({min(n - 1, start + rng.randrange(12)) for _ in range(3)}):
            x = bdd.var(names[v])
            term = term & (x if rng.random() < 0.5 else ~x)
        f = bdd.ite(term, bdd.true if rng.random() < 0.5 else bdd.false, f)
    return f


def random_local_cnf_obdd(rng: random.Random, n_features: int) -> DecisionGraph:
    """The reduced OBDD (natural order) of a random satisfiable CNF with ``n/4`` clauses of
    three literals over nearby features (explanations are many: one literal per clause)."""
    names = [f"x{i}" for i in range(n_features)]
    bdd = BDD()
    bdd.declare(*names)
    bdd.configure(reordering=False)
    return bdd_to_graph(bdd, names, random_local_cnf(bdd, rng, names))


def random_local_cnf(bdd: BDD, rng: random.Random, names: list[str]) -> Any:
    n = len(names)
    f = bdd.false
    while f == bdd.false:  # draw again until satisfiable
        f = bdd.true
        for _ in range(n // 4):
            start = rng.randrange(n)
            clause = bdd.false
            for v in sorted({min(n - 1, start + rng.randrange(10)) for _ in range(3)}):
                x = bdd.var(names[v])
                clause = clause | (x if rng.random() < 0.5 else ~x)
            f = f & clause
    return f


def bdd_to_graph(bdd: BDD, names: list[str], f: Any) -> DecisionGraph:
    """A decision graph with one node per distinct function below ``f``: dd's complemented
    references are expanded (a negated node has the negated children as cofactors)."""
    dg = DecisionGraph([Feature.boolean(n) for n in names], [0, 1])
    seen: set[int] = set()
    inner: list[tuple[int, str, Any, Any]] = []
    stack = [f]
    while stack:
        u = stack.pop()
        if int(u) in seen:
            continue
        seen.add(int(u))
        if u == bdd.true or u == bdd.false:
            dg.add_terminal(int(u), int(u == bdd.true))
            continue
        low, high = (~u.low, ~u.high) if u.negated else (u.low, u.high)
        dg.add_node(int(u), u.var)
        inner.append((int(u), u.var, low, high))
        stack += [low, high]
    for node, var, low, high in inner:
        dg.add_edge(node, int(low), Literal.eq(var, 0))
        dg.add_edge(node, int(high), Literal.eq(var, 1))
    return dg


def graphs(
    data_dir: Path, depths: list[int], sizes: list[int], instances: int, seed: int
) -> Iterator[tuple[str, str, int, DecisionGraph, list[list[Any]]]]:
    rng = random.Random(seed)
    for name in DATASETS:
        names, x, y = load_dataset(data_dir, name)
        rows = np.random.default_rng(seed).choice(len(x), instances, replace=False)
        for depth in depths:
            clf = DecisionTreeClassifier(max_depth=depth, random_state=seed).fit(x, y)
            dg = from_sklearn_tree(clf, real_features(names))
            yield "tree-data", name, depth, dg, [list(x[r]) for r in rows]
    for depth in depths:
        dg = random_boolean_tree(rng, 60, depth)
        points = [[rng.randint(0, 1) for _ in range(60)] for _ in range(instances)]
        yield "tree-random", "boolean-60", depth, dg, points
    for build, name in (
        (random_decision_list_obdd, "decision-list"),
        (random_local_cnf_obdd, "local-cnf"),
    ):
        for n in sizes:
            dg = build(rng, n)
            points = [[rng.randint(0, 1) for _ in range(n)] for _ in range(instances)]
            yield "obdd", name, n, dg, points


# -- measurements ----------------------------------------------------------------------------------
def measure(xg: ExplanationGraph, timeout: float) -> dict[str, Any]:
    start = time.perf_counter()
    with MembershipQueries(xg) as queries:
        members = {n for n in xg.var_names if queries.is_member(n).member}
        route, sat_calls = queries.choice.route, queries.sat_calls
    member_s = time.perf_counter() - start
    start = time.perf_counter()
    classes = classify_features(xg)
    classify_s = time.perf_counter() - start
    if set(classes.necessary) | set(classes.relevant) != members:
        raise RuntimeError("classify_features and MembershipQueries disagree")
    result = enumerate_explanations(xg, timeout=timeout)
    if result.complete and set().union(*map(set, result.axps)) != members:
        raise RuntimeError("membership disagrees with complete enumeration")
    small = smallest_axp(xg)
    ihs = smallest_axp(xg, method="implicit-hitting-set")
    if small.features is None or ihs.features is None or len(small.features) != len(ihs.features):
        raise RuntimeError("the two smallest-AXp methods disagree")
    return dict(
        route=route,
        member_s=member_s,
        sat_calls=sat_calls,
        members=len(members),
        classify_s=classify_s,
        enum_s=result.seconds,
        enum_complete=result.complete,
        axps=len(result.axps),
        cxps=len(result.cxps),
        ratio=result.seconds / member_s,
        smallest_s=small.seconds,
        smallest_size=len(small.features),
        smallest_iterations=small.iterations,
        smallest_method=small.method,
        ihs_s=ihs.seconds,
        ihs_iterations=ihs.iterations,
    )


def write_csv(path: Path, rows: list[Any]) -> None:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(asdict(rows[0])))
    writer.writeheader()
    for row in rows:
        writer.writerow(asdict(row))
    write_text_atomic(path, buf.getvalue())


def write_plot(path: Path, rows: list[Row]) -> bool:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    fig, ax = plt.subplots(figsize=(6, 5))
    for family, marker in (("tree-data", "o"), ("tree-random", "s"), ("obdd", "^")):
        sel = [r for r in rows if r.family == family]
        if sel:
            ax.scatter(
                [r.member_s for r in sel],
                [r.enum_s for r in sel],
                marker=marker,
                label=family,
                facecolors=["none" if r.enum_complete else "C3" for r in sel],
                edgecolors=f"C{('tree-data', 'tree-random', 'obdd').index(family)}",
            )
    lo = min(min(r.member_s, r.enum_s) for r in rows)
    hi = max(max(r.member_s, r.enum_s) for r in rows)
    ax.plot([lo, hi], [lo, hi], "k--", lw=0.8, label="equal time")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("membership of every feature, dispatched (s)")
    ax.set_ylabel("enumerate all, then look (s; filled red: budget hit)")
    ax.legend()
    fig.tight_layout()
    tmp = path.with_name(f".{path.name}.tmp.png")
    fig.savefig(tmp, dpi=120)
    plt.close(fig)
    os.replace(tmp, path)
    return True


# -- scaling of the tree route ---------------------------------------------------------------
ROUTES = ("tree-polynomial", "sat", None)  # forced tree, forced SAT, the dispatcher


@dataclass
class ScalingRow:
    family: str
    graph: str
    size: int  # depth
    nodes: int
    features: int
    zero_paths: int  # paths to 0-terminals (one per 0-terminal on a tree)
    instance: int
    member_route: str  # the dispatcher's route
    classify_route: str
    member_tree_s: float
    member_sat_s: float
    member_auto_s: float
    classify_tree_s: float
    classify_sat_s: float
    classify_auto_s: float
    members: int
    repeat: int


def scaling_trees(
    depths: list[int], antichain_depths: list[int], instances: int, seed: int
) -> Iterator[tuple[str, str, int, int, ExplanationGraph]]:
    for depth in antichain_depths:
        yield "antichain", f"complete-{depth}", depth, 0, antichain_xpg(depth)
    rng = random.Random(seed)
    for n_features in (60, 200):
        for depth in depths:
            dg = random_boolean_tree(rng, n_features, depth)
            for k in range(instances):
                point = [rng.randint(0, 1) for _ in range(n_features)]
                yield (
                    "tree-random",
                    f"boolean-{n_features}",
                    depth,
                    k,
                    (ExplanationGraph.from_decision_graph(dg, point)),
                )


def _member_all(xg: ExplanationGraph, route: Any) -> tuple[str, frozenset[str]]:
    with MembershipQueries(xg, route=route) as queries:
        members = frozenset(n for n in xg.var_names if queries.is_member(n).member)
        return queries.choice.route, members


def _classify(xg: ExplanationGraph, route: Any) -> tuple[str, tuple[Any, ...]]:
    result = classify_features(xg, route=route)
    return result.route, (result.necessary, result.relevant, result.irrelevant)


def measure_scaling(xg: ExplanationGraph, repeat: int) -> dict[str, Any]:
    """Best of ``repeat`` interleaved runs of each (operation, route); answers must agree."""
    best: dict[tuple[str, Any], float] = {}
    answers: dict[str, set[Any]] = {"member": set(), "classify": set()}
    chosen: dict[str, str] = {}
    for _ in range(repeat):
        for op, run in (("member", _member_all), ("classify", _classify)):
            for route in ROUTES:
                start = time.perf_counter()
                taken, answer = run(xg, route)
                elapsed = time.perf_counter() - start
                best[op, route] = min(elapsed, best.get((op, route), float("inf")))
                answers[op].add(answer)
                if route is None:
                    chosen[op] = taken
    if len(answers["member"]) != 1 or len(answers["classify"]) != 1:
        raise RuntimeError("the routes disagree")
    (members,) = answers["member"]
    return dict(
        member_route=chosen["member"],
        classify_route=chosen["classify"],
        member_tree_s=best["member", "tree-polynomial"],
        member_sat_s=best["member", "sat"],
        member_auto_s=best["member", None],
        classify_tree_s=best["classify", "tree-polynomial"],
        classify_sat_s=best["classify", "sat"],
        classify_auto_s=best["classify", None],
        members=len(members),
        repeat=repeat,
    )


def run_scaling(args: argparse.Namespace) -> list[ScalingRow]:
    depths = [8, 10] if args.quick else [12, 14, 16]
    antichain = [6, 8, 10] if args.quick else [14, 16, 18]
    instances = 1 if args.quick else args.instances
    header = (
        f"{'family':<12}{'graph':<14}{'size':>5}{'nodes':>8}{'0-paths':>8}{'route m/c':>10}"
        f"{'member tree':>12}{'sat':>8}{'auto':>8}{'t/s':>6}{'a/s':>6}"
        f"{'classify tree':>14}{'sat':>8}{'auto':>8}{'t/s':>6}{'a/s':>6}"
    )
    print(header)
    print("-" * len(header))
    rows: list[ScalingRow] = []
    for family, name, size, k, xg in scaling_trees(depths, antichain, instances, args.seed):
        zero_paths = int((xg.terminal_value == 0).sum())
        m = measure_scaling(xg, args.repeat)
        row = ScalingRow(family, name, size, xg.n_nodes, xg.n_vars, zero_paths, k, **m)
        rows.append(row)
        short = {"tree-polynomial": "T", "sat": "S"}
        print(
            f"{family:<12}{name:<14}{size:>5}{xg.n_nodes:>8}{zero_paths:>8}"
            f"{short[row.member_route] + '/' + short[row.classify_route]:>10}"
            f"{row.member_tree_s:>12.4f}{row.member_sat_s:>8.4f}{row.member_auto_s:>8.4f}"
            f"{_ratio(row.member_tree_s, row.member_sat_s):>6}"
            f"{_ratio(row.member_auto_s, row.member_sat_s):>6}"
            f"{row.classify_tree_s:>14.4f}{row.classify_sat_s:>8.4f}{row.classify_auto_s:>8.4f}"
            f"{_ratio(row.classify_tree_s, row.classify_sat_s):>6}"
            f"{_ratio(row.classify_auto_s, row.classify_sat_s):>6}",
            flush=True,
        )
    print(
        f"\nbest of {args.repeat} interleaved runs (s); member: every feature's membership on "
        "one MembershipQueries; classify: classify_features; tree / sat: route forced, auto: "
        "the dispatcher (route m/c: its route for member / classify, T tree-polynomial, S "
        "sat); t/s, a/s: time of the forced tree route / dispatcher over the SAT route"
    )
    write_csv(args.out / "membership_scaling.csv", rows)
    print(f"wrote {args.out / 'membership_scaling.csv'}")
    return rows


def _ratio(a: float, b: float) -> str:
    r = a / b
    return f"{r:.1f}" if r >= 1 else f"{r:.2f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--data-dir",
        type=Path,
        help="folder holding pmlb/ (default: $XPG_SHARED_DIR/datasets or ../shared/datasets)",
    )
    parser.add_argument("--out", type=Path, default=REPO_ROOT / "bench" / "results" / "membership")
    parser.add_argument("--instances", type=int, default=3, help="instances per graph")
    parser.add_argument("--timeout", type=float, default=60.0, help="enumeration budget (s)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="small graphs, short budget")
    parser.add_argument(
        "--part",
        choices=("all", "speed", "scaling", "classify"),
        default="all",
        help="speed: membership against enumeration; scaling: routes on trees (default: both); "
        "classify: classify_features cold on tree shapes (bench/membership/classify_routes.py)",
    )
    parser.add_argument("--repeat", type=int, default=3, help="runs per timing (scaling)")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    if args.part == "classify":
        if str(REPO_ROOT) not in sys.path:  # run as a script: bench/ is not a package there
            sys.path.insert(0, str(REPO_ROOT))
        from bench.membership import classify_routes

        classify_routes.run(args)
        return 0
    if args.part in ("all", "speed"):
        run_speed(args)
    if args.part in ("all", "scaling"):
        print()
        run_scaling(args)
    return 0


def run_speed(args: argparse.Namespace) -> None:
    depths = [6, 8] if args.quick else [6, 8, 10, 12]
    sizes = [50, 100] if args.quick else [50, 100, 200, 500]
    instances = 1 if args.quick else args.instances
    timeout = min(args.timeout, 5.0) if args.quick else args.timeout

    rows: list[Row] = []
    header = (
        f"{'family':<12}{'graph':<14}{'size':>5}{'nodes':>7}{'route':>16}{'member s':>10}"
        f"{'classify s':>11}{'enum s':>10}{'XPs':>8}{'ratio':>9}{'ratio cls':>10}"
        f"{'smallest s':>11}{'iters':>6}{'IHS it':>7}"
    )
    print(header)
    print("-" * len(header))
    data_dir = args.data_dir if args.data_dir is not None else default_data_dir()
    for family, name, size, dg, points in graphs(data_dir, depths, sizes, instances, args.seed):
        batch = []
        for k, point in enumerate(points):
            xg = ExplanationGraph.from_decision_graph(dg, point)
            m = measure(xg, timeout)
            batch.append(Row(family, name, size, xg.n_nodes, len(xg.edge_src), xg.n_vars, k, **m))
        rows += batch
        member = sum(r.member_s for r in batch)
        classify = sum(r.classify_s for r in batch)
        enum = sum(r.enum_s for r in batch)
        bound = "" if all(r.enum_complete for r in batch) else ">="
        print(
            f"{family:<12}{name:<14}{size:>5}{batch[0].nodes:>7}{batch[0].route:>16}"
            f"{member:>10.4f}{classify:>11.4f}{enum:>10.3f}"
            f"{sum(r.axps + r.cxps for r in batch):>8}"
            f"{bound + _ratio(enum, member):>9}{bound + _ratio(enum, classify):>10}"
            f"{sum(r.smallest_s for r in batch):>11.4f}"
            f"{max(r.smallest_iterations for r in batch):>6}"
            f"{max(r.ihs_iterations for r in batch):>7}",
            flush=True,
        )
    write_csv(args.out / "membership_speed.csv", rows)
    plotted = write_plot(args.out / "membership_speed.png", rows)
    print(
        f"\ntimes summed over {instances} instance(s) per graph; XPs: AXps + CXps enumerated; "
        "ratio = enumeration time / membership queries for every feature, ratio cls = "
        "enumeration time / classify_features ('>=': the enumeration budget ran out); "
        "iters: hitting sets of smallest_axp, IHS it: with the implicit hitting-set loop forced"
    )
    print(f"wrote {args.out / 'membership_speed.csv'}" + (" and the PNG plot" if plotted else ""))


if __name__ == "__main__":
    sys.exit(main())
