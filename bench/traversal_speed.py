"""One AXp on a million edges against one numpy pass over the same edges.

Usage: ``python -m bench.traversal_speed [--quick] [--edges N] [--features K] [--repeat R]
[--seed S] [--label TEXT] [--out DIR]`` (or ``xpg bench traversal ...``).

For a random tree and a random layered OBDD of about ``--edges`` edges (default 1,000,000;
:func:`bench.randgen.random_tree_xpg`, :func:`bench.randgen.random_layered_xpg`, over
``--features`` boolean features), built directly as explanation graphs:

* ``pass_s`` (a): one numpy pass over the edge arrays, ``np.bincount(node_var[edge_src])``
  (a gather and a count);
* ``build_s`` (b): building the traversal structures of a fresh graph object (CSR arrays,
  their views, the 1-path shortcut, the tested variables; for code before the traversal
  arrays, the adjacency lists and the 1-children);
* ``axp_s`` (c): one AXp (``find_axp``), structures built; ``axp_cold_s``: the same on a
  fresh graph object, structures included;
* ``cxp_s`` (d): one CXp (``find_cxp``), structures built;
* ``axp_ratio`` = (c)/(a) (the target: at most 5), ``cold_ratio`` = ``axp_cold_s``/(a).

CPU time of the process (``time.process_time``), garbage collector off; every quantity is
the best of ``--repeat`` rounds, and the rounds interleave the quantities, so that load from
other programs on the machine hits them alike.  ``--label`` names the code measured (run the
script against an older checkout to compare).  Writes ``traversal_speed.csv`` and
``traversal_speed.md``.

Examples
--------
>>> row = measure("tree", 2_000, 20, seed=0, repeat=1)
>>> row["edges"], row["axp_size"] > 0
(2000, True)
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from bench.randgen import random_layered_xpg, random_tree_xpg
from bench.tables import RESULTS_DIR, csv_text, out_dir, write_outputs
from xpg.core.xpgraph import ExplanationGraph
from xpg.explain.axp_cxp import find_axp, find_cxp
from xpg.testing import fresh_copy

COLUMNS = [
    "label",
    "kind",
    "nodes",
    "edges",
    "features",
    "pass_s",
    "build_s",
    "axp_s",
    "axp_cold_s",
    "cxp_s",
    "axp_ratio",
    "cold_ratio",
    "axp_size",
    "cxp_size",
]


def graph(kind: str, edges: int, features: int, seed: int) -> ExplanationGraph:
    """A tree (``edges + 1`` nodes) or a layered OBDD (two edges per non-terminal)."""
    if kind == "tree":
        return random_tree_xpg(edges + 1, features, seed=seed)
    return random_layered_xpg(edges // 2, features, seed=seed)


def build(xg: ExplanationGraph) -> None:
    """Every structure one AXp and one CXp use (whichever version of xpg is measured)."""
    if hasattr(xg, "csr"):
        xg.csr()
        xg.views()
        xg.ends_at_zero()
    else:  # the code before the traversal arrays
        xg.adjacency()
        xg.one_child()
    xg.tested_vars()


def one_pass(xg: ExplanationGraph) -> np.ndarray:
    """(a): a gather over the edges and a count."""
    return np.bincount(xg.node_var[xg.edge_src] + 1, minlength=xg.n_vars + 1)


def clock(fn: Callable[[], Any]) -> float:
    """CPU seconds of one call, garbage collector off."""
    gc.disable()
    try:
        start = time.process_time()
        fn()
        return time.process_time() - start
    finally:
        gc.enable()


def measure(kind: str, edges: int, features: int, seed: int, repeat: int) -> dict[str, Any]:
    """Every timing of one graph: best of ``repeat`` interleaved rounds."""
    xg = graph(kind, edges, features, seed)
    build(xg)
    axp, cxp = find_axp(xg), find_cxp(xg)
    best: dict[str, float] = {}
    for _ in range(repeat):
        built, cold = fresh_copy(xg), fresh_copy(xg)
        round_ = {
            "pass_s": clock(lambda: one_pass(xg)),
            "build_s": clock(lambda: build(built)),  # noqa: B023 (called at once)
            "axp_s": clock(lambda: find_axp(xg)),
            "axp_cold_s": clock(lambda: find_axp(cold)),  # noqa: B023
            "cxp_s": clock(lambda: find_cxp(xg)),
        }
        best = {k: min(v, best.get(k, v)) for k, v in round_.items()}
        if find_axp(cold) != axp or find_cxp(built) != cxp:
            raise AssertionError("explanations differ between runs")
    return {
        "kind": kind,
        "nodes": xg.n_nodes,
        "edges": len(xg.edge_src),
        "features": features,
        **{k: round(v, 6) for k, v in best.items()},
        "axp_ratio": round(best["axp_s"] / best["pass_s"], 2),
        "cold_ratio": round(best["axp_cold_s"] / best["pass_s"], 2),
        "axp_size": len(axp),
        "cxp_size": len(cxp or ()),
    }


def markdown(rows: Sequence[dict[str, Any]]) -> str:
    """The table printed and written as ``traversal_speed.md``."""
    lines = [
        "### One AXp against one numpy pass over the edges (ms, best of the rounds)",
        "",
        "| code | kind | nodes | edges | (a) pass | (b) build | (c) AXp | AXp cold | (d) CXp "
        "| (c)/(a) | cold/(a) | AXp size |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        ms = [f"{1000 * r[k]:.2f}" for k in ("pass_s", "build_s", "axp_s", "axp_cold_s", "cxp_s")]
        lines.append(
            f"| {r['label']} | {r['kind']} | {r['nodes']:,} | {r['edges']:,} | "
            + " | ".join(ms)
            + f" | {r['axp_ratio']} | {r['cold_ratio']} | {r['axp_size']} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark (``argv`` as on the command line)."""
    parser = argparse.ArgumentParser(prog="python -m bench.traversal_speed", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="100,000 edges, 3 rounds")
    parser.add_argument("--edges", type=int, default=1_000_000)
    parser.add_argument("--features", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5, help="rounds (default %(default)s)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--label", default="this checkout", help="names the code measured")
    parser.add_argument(
        "--out", default=str(RESULTS_DIR), help="output folder (default %(default)s)"
    )
    args = parser.parse_args(argv)
    edges = 100_000 if args.quick else args.edges
    repeat = min(args.repeat, 3) if args.quick else args.repeat
    rows = []
    for kind in ("tree", "obdd"):
        rows.append({"label": args.label, **measure(kind, edges, args.features, args.seed, repeat)})
        print(f"{kind}: done", file=sys.stderr)
    md = markdown(rows)
    paths = write_outputs(
        out_dir(args.out),
        "traversal_speed",
        {".csv": csv_text(rows, COLUMNS), ".md": md},
    )
    print(md)
    for p in paths:
        print(f"wrote {p}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
