"""Seeded random explanation graphs and their explanations by exhaustive evaluation.

The reference is independent of the library's traversals: the XpG function is evaluated
for every subset of fixed variables with a plain breadth-first search written here, and the
AXps / CXps are read off the 2^m values as subset-minimal sets.
"""

from __future__ import annotations

import itertools
import random
from collections import deque
from dataclasses import dataclass

from xpg import ExplanationGraph
from xpg.core.graph import DecisionGraph


def random_xpg(
    rng: random.Random, tree: bool, max_vars: int = 6, max_internal: int = 14
) -> ExplanationGraph:
    """A random XpG satisfying Def. 3: a tree, or a DAG with shared nodes.

    Variables may repeat along a path; some non-terminals have no edge labelled 1.
    """
    n_vars = rng.randint(1, max_vars)
    n_internal = rng.randint(1, max_internal)
    node_var: list[int] = []
    edges: list[tuple[int, int]] = []
    if tree:
        # grow a tree: each internal node gets 2-3 fresh children
        frontier = [0]
        node_var.append(-1)
        internal = 0
        while frontier:
            n = frontier.pop(rng.randrange(len(frontier)))
            if internal >= n_internal or (n != 0 and rng.random() < 0.3):
                continue
            internal += 1
            node_var[n] = rng.randrange(n_vars)
            for _ in range(rng.randint(2, 3)):
                c = len(node_var)
                node_var.append(-1)
                edges.append((n, c))
                frontier.append(c)
    else:
        n_terminals = rng.randint(3, 6)
        n = n_internal + n_terminals
        node_var = [rng.randrange(n_vars) for _ in range(n_internal)] + [-1] * n_terminals
        for p in range(n_internal):
            k = min(rng.randint(2, 3), n - p - 1)
            for c in rng.sample(range(p + 1, n), k):
                edges.append((p, c))
        has_parent = {c for _, c in edges}
        for c in range(1, n):
            if c not in has_parent:
                ps = [p for p in range(min(c, n_internal)) if (p, c) not in edges]
                edges.append((rng.choice(ps), c))
    n = len(node_var)
    children: list[list[int]] = [[] for _ in range(n)]
    for k, (p, _c) in enumerate(edges):
        children[p].append(k)
    label = [False] * len(edges)
    p_one = rng.uniform(0.3, 0.9)
    for p in range(n):
        if children[p] and rng.random() < p_one:
            label[rng.choice(children[p])] = True
    # the path of 1-edges must reach a terminal: give a 1-edge to nodes on it that lack one
    node = 0
    while children[node]:
        ones = [k for k in children[node] if label[k]]
        if not ones:
            k = rng.choice(children[node])
            label[k] = True
            ones = [k]
        node = edges[ones[0]][1]
    p_zero = rng.uniform(0.15, 0.6)
    value = [-1 if children[t] else int(rng.random() >= p_zero) for t in range(n)]
    value[node] = 1
    others = [t for t in range(n) if value[t] >= 0 and t != node]
    if others and not any(value[t] == 0 for t in others):
        value[rng.choice(others)] = 0
    return ExplanationGraph(
        [f"v{i}" for i in range(n_vars)],
        list(range(n)),
        0,
        node_var,
        value,
        [p for p, _ in edges],
        [c for _, c in edges],
        label,
    )


def prediction_kept(xg: ExplanationGraph, fixed: frozenset[int]) -> bool:
    """The XpG function: no 0-terminal reachable when only ``fixed`` variables are fixed."""
    out: list[list[tuple[int, bool]]] = [[] for _ in range(xg.n_nodes)]
    for s, d, lab in zip(
        xg.edge_src.tolist(), xg.edge_dst.tolist(), xg.edge_label.tolist(), strict=True
    ):
        out[s].append((d, lab))
    seen = {xg.root}
    todo = deque([xg.root])
    while todo:
        n = todo.popleft()
        if xg.terminal_value[n] == 0:
            return False
        for c, lab in out[n]:
            if (lab or int(xg.node_var[n]) not in fixed) and c not in seen:
                seen.add(c)
                todo.append(c)
    return True


@dataclass(frozen=True)
class Exhaustive:
    """Every AXp and CXp of an XpG, as frozensets of feature names."""

    axps: frozenset[frozenset[str]]
    cxps: frozenset[frozenset[str]]

    @classmethod
    def of(cls, xg: ExplanationGraph) -> Exhaustive:
        m = xg.n_vars
        subsets = [frozenset(c) for r in range(m + 1) for c in itertools.combinations(range(m), r)]
        kept = {s: prediction_kept(xg, s) for s in subsets}
        everything = frozenset(range(m))
        weak_axps = [s for s in subsets if kept[s]]
        weak_cxps = [s for s in subsets if not kept[everything - s]]

        def minimal(family: list[frozenset[int]]) -> frozenset[frozenset[str]]:
            return frozenset(
                frozenset(xg.var_names[i] for i in s)
                for s in family
                if not any(t < s for t in family)
            )

        return cls(minimal(weak_axps), minimal(weak_cxps))

    def members(self) -> set[str]:
        return set().union(*self.axps)

    def necessary(self) -> set[str]:
        return set(frozenset.intersection(*self.axps))

    def of_kind(self, kind: str) -> frozenset[frozenset[str]]:
        return self.axps if kind == "axp" else self.cxps


def random_dg_xpgs(rng: random.Random, kind: str, count: int) -> list[ExplanationGraph]:
    """XpGs of random decision graphs (from the core tests' generators) for random inputs."""
    from randgraphs import (
        merge_subtrees,
        random_features,
        random_ordered_dag,
        random_tree,
        representatives,
    )

    out: list[ExplanationGraph] = []
    while len(out) < count:
        feats = random_features(rng, rng.randint(1, 5))
        dg: DecisionGraph
        if kind == "tree":
            dg = random_tree(rng, feats, rng.randint(2, 3), rng.randint(1, 5))
        elif kind == "dag":
            dg = merge_subtrees(random_tree(rng, feats, rng.randint(2, 3), 5, restrict=False))
        else:
            dg = random_ordered_dag(rng, feats, rng.randint(2, 3))
        reps = representatives(dg)
        x = [rng.choice(r) for r in reps]
        out.append(ExplanationGraph.from_decision_graph(dg, x))
    return out


def random_cases(
    rng: random.Random, tree: bool, count: int, max_vars: int = 7, max_internal: int = 14
) -> list[tuple[ExplanationGraph, Exhaustive]]:
    """``count`` random XpGs with their exhaustive explanations; every other one is drawn
    again until it has several AXps (so that relevant, non-necessary features occur)."""
    out: list[tuple[ExplanationGraph, Exhaustive]] = []
    while len(out) < count:
        xg = random_xpg(rng, tree, max_vars, max_internal)
        truth = Exhaustive.of(xg)
        if len(out) % 2 == 0 or len(truth.axps) > 1:
            out.append((xg, truth))
    return out
