"""Feature classes on trees: the dispatcher against the tree route and the SAT route (issue 27).

:func:`xpg.explain.relevance.classify_features` on tree XpGs of several shapes, each XpG
timed **cold** (a fresh copy, no traversal structure built, as a single call on a new XpG
meets it) with the route left to the dispatcher, forced to ``"tree-polynomial"`` and forced
to ``"sat"``; best of ``--repeat`` runs interleaved (route after route, run after run), summed
over the XpGs of a shape.  The dispatcher should cost at most about twice the faster forced
route on every shape.  Answers must agree across routes (else the script fails).

Shapes (seeded):

* ``antichain``: :func:`xpg.testing.antichain_xpg` at depth 14, 16, 18 (the ``C(d, d/2)``
  CXps form an antichain) and at depth 16 with 2, 12 and 15 0-edges per 0-path;
* ``random``: random boolean trees (:func:`bench.membership.membership_speed.random_boolean_tree`)
  of depth 8 to 16 over 60 and 200 features, three instances each;
* ``small``: 200 small random tree XpGs (:func:`xpg.testing.random_xpg`, at most 7
  variables and 14 inner nodes);
* ``sklearn``: scikit-learn trees of depth 6 and 12 on random mixed columns
  (:func:`xpg.testing.random_sklearn_tree`, 20 features), five instances each;
* ``deep``: a spine of 300 and 1,000 boolean tests, each with a random subtree of depth at
  most 3 on its other branch, three instances each;
* ``wide``: complete trees of fan-out 8 (categorical features of 8 values) and depth 4 and
  5 over 30 features, three instances each;
* ``few-xps``: :func:`irrelevant_subtree_xpg` at depth 16 and 19: ``x0 or x1`` with a
  complete subtree of irrelevant tests below ``x1 = 0``, so two AXps and one CXp but
  ``2**depth`` paths to 0-terminals (enumeration decides after three explanations, while
  the listing passes over every node).

Writes ``classify_routes.csv`` into ``--out`` and prints one line per shape.

Usage::

    python -m bench.membership.classify_routes --repeat 3
    python -m bench.membership.classify_routes --quick

References
----------
Huang, Izza, Ignatiev, Marques-Silva. On Efficiently Explaining Graph-Based Classifiers.
KR 2021, Prop. 6 (tree CXps), Props. 8-9 (membership), Alg. 4 (MARCO).
"""

from __future__ import annotations

import argparse
import csv
import io
import itertools
import random
import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from xpg import DecisionGraph, ExplanationGraph, Feature, Literal, from_sklearn_tree
from xpg.explain.relevance import classify_features
from xpg.io.atomic import write_text_atomic
from xpg.testing import (
    antichain_xpg,
    fresh_copy,
    irrelevant_subtree_xpg,
    random_sklearn_tree,
    random_xpg,
)

REPO_ROOT = Path(__file__).resolve().parents[2]
ROUTES = (None, "tree-polynomial", "sat")  # the dispatcher, then each route forced


@dataclass
class ShapeRow:
    family: str
    shape: str
    graphs: int
    nodes: int  # largest XpG of the shape
    features: int
    zero_paths: int  # largest number of paths to 0-terminals
    dispatch_routes: str  # the dispatcher's routes, e.g. "T3" or "T2 S1"
    decided: str  # what decided on the dispatcher's route, e.g. "del3" or "list2 enum1"
    dispatch_ms: float
    tree_ms: float
    sat_ms: float
    ratio: float  # dispatcher / the faster forced route
    repeat: int


# -- shapes -----------------------------------------------------------------------------------
def _boolean_tree(rng: random.Random, n_features: int, depth: int) -> DecisionGraph:
    from bench.membership.membership_speed import random_boolean_tree

    return random_boolean_tree(rng, n_features, depth)


def deep_tree(rng: random.Random, n_features: int, spine: int) -> DecisionGraph:
    """A spine of ``spine`` tests of features ``x0, x1, ...`` (in order); at each, one branch
    continues the spine and the other holds a random subtree of depth at most 3 over the
    later features."""
    names = [f"x{i}" for i in range(n_features)]
    dg = DecisionGraph([Feature.boolean(n) for n in names], [0, 1])
    ids = itertools.count()
    edges: list[tuple[int, int, Literal]] = []
    # (node, feature index of the spine or -1, depth left of a side subtree, next feature)
    stack = [(next(ids), 0, 0, 0)]
    while stack:
        node, level, left, after = stack.pop()
        if level >= 0:  # on the spine
            if level == spine:
                dg.add_terminal(node, rng.randint(0, 1))
                continue
            dg.add_node(node, names[level])
            side = rng.randint(0, 1)
            for value in (0, 1):
                child = next(ids)
                edges.append((node, child, Literal.eq(names[level], value)))
                if value == side:
                    stack.append((child, -1, rng.randint(0, 3), level + 1))
                else:
                    stack.append((child, level + 1, 0, 0))
            continue
        if left == 0 or after >= n_features:
            dg.add_terminal(node, rng.randint(0, 1))
            continue
        i = rng.randrange(after, n_features)
        dg.add_node(node, names[i])
        for value in (0, 1):
            child = next(ids)
            edges.append((node, child, Literal.eq(names[i], value)))
            stack.append((child, -1, left - 1, i + 1))
    for edge in edges:
        dg.add_edge(*edge)
    return dg


def wide_tree(rng: random.Random, n_features: int, fanout: int, depth: int) -> DecisionGraph:
    """A complete tree of fan-out ``fanout`` and depth ``depth``: each node tests a random
    categorical feature (values ``0 .. fanout - 1``) not tested above it, one edge per
    value; leaves predict 0 or 1 at random."""
    names = [f"c{i}" for i in range(n_features)]
    dg = DecisionGraph([Feature.categorical(n, range(fanout)) for n in names], [0, 1])
    ids = itertools.count()
    edges: list[tuple[int, int, Literal]] = []
    stack = [(next(ids), depth, frozenset[int]())]
    while stack:
        node, d, used = stack.pop()
        if d == 0:
            dg.add_terminal(node, rng.randint(0, 1))
            continue
        i = rng.choice([j for j in range(n_features) if j not in used])
        dg.add_node(node, names[i])
        for value in range(fanout):
            child = next(ids)
            edges.append((node, child, Literal.eq(names[i], value)))
            stack.append((child, d - 1, used | {i}))
    for edge in edges:
        dg.add_edge(*edge)
    return dg


def _instances(
    rng: random.Random, dg: DecisionGraph, count: int, values: int = 2
) -> list[ExplanationGraph]:
    n = len(dg.features)
    return [
        ExplanationGraph.from_decision_graph(dg, [rng.randrange(values) for _ in range(n)])
        for _ in range(count)
    ]


def shapes(seed: int, quick: bool) -> Iterator[tuple[str, str, list[ExplanationGraph]]]:
    """(family, shape, its XpGs), seeded."""
    rng = random.Random(seed)
    for depth in [8, 10] if quick else [14, 16, 18]:
        yield "antichain", f"complete-{depth}", [antichain_xpg(depth)]
    for distance in [2, 6] if quick else [2, 12, 15]:
        depth = 10 if quick else 16
        yield "antichain", f"complete-{depth}/{distance}", [antichain_xpg(depth, distance)]
    for n_features, depth in (
        [(60, 8), (60, 10)] if quick else [(60, 8), (60, 12), (60, 16), (200, 12), (200, 16)]
    ):
        dg = _boolean_tree(rng, n_features, depth)
        yield "random", f"boolean-{n_features}-d{depth}", _instances(rng, dg, 3)
    small = [random_xpg(rng, True, max_vars=7, max_internal=14) for _ in range(200)]
    yield "small", "random-xpg x200", small
    for depth in (6, 12):
        clf, feats, x = random_sklearn_tree(rng, 20, 2, depth, n_samples=2000)
        dg = from_sklearn_tree(clf, feats)
        rows = [list(x[rng.randrange(len(x))]) for _ in range(5)]
        xgs = [ExplanationGraph.from_decision_graph(dg, r) for r in rows]
        yield "sklearn", f"mixed-20-d{depth}", xgs
    for spine in [100] if quick else [300, 1000]:
        dg = deep_tree(rng, spine + 20, spine)
        yield "deep", f"spine-{spine}", _instances(rng, dg, 3)
    for depth in [3] if quick else [4, 5]:
        dg = wide_tree(rng, 30, 8, depth)
        yield "wide", f"fanout-8-d{depth}", _instances(rng, dg, 3, values=8)
    for depth in [12] if quick else [16, 19]:
        yield "few-xps", f"or-subtree-{depth}", [irrelevant_subtree_xpg(depth)]


# -- measurement ------------------------------------------------------------------------------
DECIDED = (  # words of the reason -> what decided
    ("holds only necessary features", "1axp"),  # the necessary features are the only AXp
    ("hold every tested feature", "del"),  # AXps found by deletion
    ("enumeration (MARCO) found all", "enum"),  # enumeration raced and completed
    ("needs more than the budget", "sat"),  # the CXp filter's budget ran out
    ("filtered to", "list"),  # the CXps listed (Prop. 6)
)


def _answer(xg: ExplanationGraph, route: Any) -> tuple[str, str, tuple[Any, ...]]:
    result = classify_features(xg, route=route)
    decided = next((tag for words, tag in DECIDED if words in result.reason), "other")
    return result.route, decided, (result.necessary, result.relevant, result.irrelevant)


def measure(
    xgs: list[ExplanationGraph], repeat: int
) -> tuple[dict[Any, float], Counter[str], Counter[str]]:
    """Per route, the summed best-of-``repeat`` cold time (seconds); the dispatcher's routes
    and what decided on them (first run)."""
    total = dict.fromkeys(ROUTES, 0.0)
    chosen: Counter[str] = Counter()
    decided: Counter[str] = Counter()
    for xg in xgs:
        best = dict.fromkeys(ROUTES, float("inf"))
        answers = set()
        for _ in range(repeat):
            for route in ROUTES:
                copy = fresh_copy(xg)
                start = time.perf_counter()
                taken, how, answer = _answer(copy, route)
                best[route] = min(best[route], time.perf_counter() - start)
                answers.add(answer)
                if route is None and _ == 0:
                    chosen[taken] += 1
                    decided[how] += 1
        if len(answers) != 1:
            raise RuntimeError("classify_features: the routes disagree")
        for route in ROUTES:
            total[route] += best[route]
    return total, chosen, decided


def run(args: argparse.Namespace) -> list[ShapeRow]:
    for route in ROUTES:  # imports and first calls (python-sat, the enumerator) out of the timings
        _answer(antichain_xpg(8), route)
        _answer(irrelevant_subtree_xpg(15), route)
    header = (
        f"{'family':<10}{'shape':<22}{'XpGs':>5}{'nodes':>9}{'0-paths':>9}{'route':>8}"
        f"{'decided':>12}{'dispatch ms':>13}{'tree ms':>10}{'sat ms':>10}{'d/best':>8}"
    )
    print(header)
    print("-" * len(header))
    rows = []
    for family, name, xgs in shapes(args.seed, args.quick):
        times, chosen, decided = measure(xgs, args.repeat)
        short = {"tree-polynomial": "T", "sat": "S"}
        routes = " ".join(f"{short[r]}{k}" for r, k in sorted(chosen.items()))
        how = " ".join(f"{tag}{k}" for tag, k in sorted(decided.items()))
        faster = min(times["tree-polynomial"], times["sat"])
        row = ShapeRow(
            family,
            name,
            len(xgs),
            max(xg.n_nodes for xg in xgs),
            max(xg.n_vars for xg in xgs),
            max(int((xg.terminal_value == 0).sum()) for xg in xgs),
            routes,
            how,
            1000 * times[None],
            1000 * times["tree-polynomial"],
            1000 * times["sat"],
            times[None] / faster,
            args.repeat,
        )
        rows.append(row)
        print(
            f"{family:<10}{name:<22}{row.graphs:>5}{row.nodes:>9}{row.zero_paths:>9}"
            f"{routes:>8}{how:>12}{row.dispatch_ms:>13.1f}{row.tree_ms:>10.1f}{row.sat_ms:>10.1f}"
            f"{row.ratio:>8.2f}",
            flush=True,
        )
    print(
        f"\ncold runs (a fresh copy of each XpG), best of {args.repeat} interleaved, summed "
        "over the XpGs of a shape; route: the dispatcher's (T tree-polynomial, S sat, with "
        "counts); decided: what decided it (1axp: the necessary features are the only AXp, "
        "del: AXps found by deletion, enum: enumeration raced and completed, list: the CXps "
        "listed, sat: SAT calls beyond the filter's budget); d/best: dispatcher over the "
        "faster forced route"
    )
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(asdict(rows[0])))
    writer.writeheader()
    for row in rows:
        writer.writerow(asdict(row))
    path = args.out / "classify_routes.csv"
    write_text_atomic(path, buf.getvalue())
    print(f"wrote {path}")
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=REPO_ROOT / "bench" / "results" / "membership")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=3, help="runs per timing")
    parser.add_argument("--quick", action="store_true", help="small shapes")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    run(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
