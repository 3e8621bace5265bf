"""Smallest explanations are of minimum cardinality, not merely minimal, on graphs where the
two differ.

The random graphs of ``test_membership_random.py`` are small, and on them a merely minimal
hitting set (python-sat's ``lbx``) is nearly always a minimum one too, so a hitting-set
loop that lost optimality would go unnoticed there.  Here each graph is the reduced OBDD
of a random monotone DNF over up to 10 features, explained at the all-ones instance: its
AXps are exactly the DNF's minimal terms and its CXps their minimal hitting sets, both known
without the library, and the families are drawn so that minimal and minimum hitting sets
differ.  The dispatcher's method (tree or implicit hitting sets) is checked too.
"""

from __future__ import annotations

import random

import pytest

from xpg import ExplanationGraph
from xpg.explain.smallest import smallest_axp, smallest_cxp
from xpg.testing import brute_minimal_hitting_sets

Family = frozenset[frozenset[int]]


def _minimal(family: set[frozenset[int]]) -> Family:
    return frozenset(s for s in family if not any(t < s for t in family))


def _obdd_xpg(terms: Family, n: int, tree: bool) -> ExplanationGraph:
    """The XpG at x = (1, ..., 1) of the OBDD (reduced, or unfolded into a tree) of the
    monotone DNF ``terms``, variables in order 0..n-1."""
    node_var: list[int] = []
    value: list[int] = []
    src: list[int] = []
    dst: list[int] = []
    label: list[bool] = []
    memo: dict[tuple[int, Family], int] = {}

    def terminal(v: int) -> int:
        node_var.append(-1)
        value.append(v)
        return len(node_var) - 1

    shared = {True: terminal(1), False: terminal(0)} if not tree else {}

    def build(rest: Family) -> int:
        if frozenset() in rest or not rest:
            truth = frozenset() in rest
            return shared[truth] if not tree else terminal(int(truth))
        v = min(min(t) for t in rest)  # reduced: skip variables no term mentions
        key = (v, rest)
        if not tree and key in memo:
            return memo[key]
        node = len(node_var)
        node_var.append(v)
        value.append(-1)
        hi = build(_minimal({t - {v} for t in rest}))
        lo = build(frozenset(t for t in rest if v not in t))
        for child, lab in ((hi, True), (lo, False)):
            src.append(node)
            dst.append(child)
            label.append(lab)
        memo[key] = node
        return node

    root = build(terms)
    return ExplanationGraph(
        [f"x{i}" for i in range(n)], range(len(node_var)), root, node_var, value, src, dst, label
    )


def _families(seed: int, count: int) -> list[tuple[Family, int]]:
    """Random term families whose CXp family (and AXp family) has a minimal hitting set
    larger than the minimum, so that only an exact method finds the smallest explanation."""
    rng = random.Random(seed)
    out: list[tuple[Family, int]] = []
    while len(out) < count:
        n = rng.randint(6, 10)
        terms = _minimal(
            {
                frozenset(rng.sample(range(n), rng.randint(1, min(5, n))))
                for _ in range(rng.randint(2, 7))
            }
        )
        cxps = brute_minimal_hitting_sets(terms, n)
        if len({len(t) for t in terms}) > 1 and len({len(c) for c in cxps}) > 1:
            out.append((terms, n))
    return out


@pytest.mark.parametrize("seed", range(4))
def test_smallest_is_minimum_on_monotone_dnf_obdds(seed: int) -> None:
    for terms, n in _families(seed, 40):  # 160 families, each as a DAG and as a tree
        cxps = brute_minimal_hitting_sets(terms, n)
        min_axp, min_cxp = min(map(len, terms)), min(map(len, cxps))
        for tree in (False, True):
            xg = _obdd_xpg(terms, n, tree)
            assert xg.is_tree() == tree
            methods = [None, "implicit-hitting-set"] if tree else [None]
            for method in methods:
                ax = smallest_axp(xg, method=method)  # type: ignore[arg-type]
                cx = smallest_cxp(xg, method=method)  # type: ignore[arg-type]
                expected = method or ("tree-cxps" if tree else "implicit-hitting-set")
                assert ax.method == cx.method == expected, "the dispatcher's choice"
                assert ax.features is not None and cx.features is not None
                got_ax = frozenset(xg.indices(ax.features))
                got_cx = frozenset(xg.indices(cx.features))
                assert got_ax in terms, "not an AXp"
                assert got_cx in cxps, "not a CXp"
                assert ax.optimal and len(got_ax) == min_axp == ax.lower_bound, (terms, method)
                assert cx.optimal and len(got_cx) == min_cxp == cx.lower_bound, (terms, method)
