"""How the explanation algorithms grow with the graph: 100 to 1,000,000 nodes.

Usage: ``python -m bench.growth [--quick] [--sizes 100,1000,...] [--out DIR]``.

Random trees and random layered OBDDs (:mod:`bench.randgen`, built directly as explanation
graphs for a random instance) of 100 to 1,000,000 nodes over 10 to 1,000 features; times are
CPU times of the process.  For each graph:

* ``axp_cold_s``: one AXp (``find_axp``) on the fresh graph, adjacency lists included;
* ``axp_s``, ``cxp_s``: one AXp, one CXp, graph already loaded (best of 3);
* ``per_xp_s``: enumeration (MARCO) of the first ``--enum-limit`` explanations, time per
  explanation;
* ``member_s``: one membership query (``xpg.explain.membership.is_member``, the route it picks:
  polynomial on trees, one SAT call otherwise) for a feature in the middle of the order.

A second experiment enumerates ``--flat-limit`` explanations of one graph with many of them
and reports the time per explanation in consecutive blocks, which stays roughly flat.

Writes ``growth.csv``, ``growth_flat.csv``, ``growth.md`` and ``growth.png`` (log-log time
against size, and time per explanation against explanations found).

References
----------
Huang, Izza, Ignatiev, Marques-Silva. On Efficiently Explaining Graph-Based Classifiers.
KR 2021, Algs. 1-4 and Props. 6-9.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from bench.randgen import random_layered_xpg, random_tree_xpg
from bench.runners.timing import cpu_time
from bench.tables import RESULTS_DIR, csv_text, out_dir, write_outputs
from xpg.core.xpgraph import ExplanationGraph
from xpg.explain.axp_cxp import find_axp, find_cxp
from xpg.explain.marco import Enumerator
from xpg.explain.membership import is_member

GENERATORS: dict[str, Callable[..., ExplanationGraph]] = {
    "tree": random_tree_xpg,
    "obdd": random_layered_xpg,
}
COLUMNS = [
    "kind",
    "nodes",
    "edges",
    "features",
    "axp_cold_s",
    "axp_s",
    "cxp_s",
    "per_xp_s",
    "enumerated",
    "member_s",
    "member_route",
    "axp_size",
]


def features_for(n_nodes: int) -> int:
    """10 features at 100 nodes up to 1,000 at 1,000,000 (log-linear in between)."""
    table = {100: 10, 1_000: 50, 10_000: 200, 100_000: 500, 1_000_000: 1000}
    return table.get(n_nodes, max(10, min(1000, n_nodes // 1000 or 10)))


def best(fn: Callable[[], Any]) -> tuple[float, Any]:
    """CPU time per call (:func:`bench.runners.timing.cpu_time`)."""
    return cpu_time(fn)


def measure(kind: str, n_nodes: int, seed: int, enum_limit: int) -> dict[str, Any]:
    """Every timing of one graph."""
    n_features = features_for(n_nodes)
    xg = GENERATORS[kind](n_nodes, n_features, seed=seed)
    start = time.process_time()
    axp = find_axp(xg)
    cold = time.process_time() - start
    axp_s, _ = best(lambda: find_axp(xg))
    cxp_s, _ = best(lambda: find_cxp(xg))
    start = time.process_time()
    with Enumerator(xg, limit=enum_limit) as en:
        found = sum(1 for _ in en)
    per_xp = (time.process_time() - start) / max(1, found)
    tested = xg.tested_vars()
    start = time.process_time()
    answer = is_member(xg, tested[len(tested) // 2])
    member_s = time.process_time() - start
    return {
        "kind": kind,
        "nodes": xg.n_nodes,
        "edges": len(xg.edge_src),
        "features": n_features,
        "axp_cold_s": round(cold, 6),
        "axp_s": round(axp_s, 6),
        "cxp_s": round(cxp_s, 6),
        "per_xp_s": round(per_xp, 7),
        "enumerated": found,
        "member_s": round(member_s, 6),
        "member_route": answer.route,
        "axp_size": len(axp),
    }


def flatness(kind: str, n_nodes: int, limit: int, block: int, seed: int) -> list[dict[str, Any]]:
    """Time per explanation in consecutive blocks of one long enumeration.

    The first graph (seeds ``seed``, ``seed + 1``, ...) with at least ``limit`` explanations
    is used; times count from the first explanation, so set-up is left out.
    """
    for s in range(seed, seed + 20):
        xg = GENERATORS[kind](n_nodes, features_for(n_nodes), seed=s)
        xg.adjacency()
        stamps = []
        with Enumerator(xg, limit=limit) as en:
            for _ in en:
                stamps.append(time.process_time())
        if len(stamps) >= limit:
            break
    rows = []
    for b in range(0, len(stamps) - block, block):
        rows.append(
            {
                "kind": kind,
                "nodes": xg.n_nodes,
                "first": b + 2,
                "last": b + block + 1,
                "per_xp_s": round((stamps[b + block] - stamps[b]) / block, 7),
            }
        )
    return rows


def plot(rows: Sequence[dict[str, Any]], flat: Sequence[dict[str, Any]]) -> bytes:
    """The PNG: log-log time against nodes, and time per explanation against found."""
    import io

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.5))
    styles = {"tree": "-", "obdd": "--"}
    for kind in GENERATORS:
        part = [r for r in rows if r["kind"] == kind]
        if not part:
            continue
        xs = [r["nodes"] for r in part]
        for key, label, marker in (
            ("axp_cold_s", "AXp (incl. adjacency)", "o"),
            ("axp_s", "AXp", "s"),
            ("cxp_s", "CXp", "^"),
            ("per_xp_s", "per enumerated XP", "d"),
            ("member_s", "membership query", "x"),
        ):
            ax1.plot(
                xs, [r[key] for r in part], styles[kind], marker=marker, label=f"{kind}: {label}"
            )
    ax1.set_xscale("log")
    ax1.set_yscale("log")
    ax1.set_xlabel("nodes")
    ax1.set_ylabel("seconds")
    ax1.set_title("time against graph size")
    ax1.grid(True, which="both", alpha=0.3)
    ax1.legend(fontsize=7, ncol=2)
    for kind in GENERATORS:
        part = [r for r in flat if r["kind"] == kind]
        if part:
            ax2.plot(
                [r["last"] for r in part],
                [1000 * r["per_xp_s"] for r in part],
                styles[kind],
                marker="o",
                label=f"{kind}, {part[0]['nodes']} nodes",
            )
    ax2.set_xlabel("explanations found")
    ax2.set_ylabel("ms per explanation (block average)")
    ax2.set_ylim(bottom=0)
    ax2.set_title("enumeration: time per explanation")
    ax2.grid(True, alpha=0.3)
    ax2.legend(fontsize=8)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=120)
    plt.close(fig)
    return buf.getvalue()


def markdown(rows: Sequence[dict[str, Any]], flat: Sequence[dict[str, Any]]) -> str:
    lines = [
        "### Growth: time against graph size",
        "",
        "| kind | nodes | edges | features | AXp cold (s) | AXp (s) | CXp (s) | per XP (ms) "
        "| XPs | membership (s) | route |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['kind']} | {r['nodes']} | {r['edges']} | {r['features']} | "
            f"{r['axp_cold_s']:.4f} | {r['axp_s']:.4f} | {r['cxp_s']:.4f} | "
            f"{1000 * r['per_xp_s']:.3f} | {r['enumerated']} | {r['member_s']:.4f} | "
            f"{r['member_route']} |"
        )
    for kind in GENERATORS:
        part = [r for r in flat if r["kind"] == kind]
        if len(part) >= 2:
            times = [1000 * r["per_xp_s"] for r in part]
            mid = statistics.median(times)
            lines += [
                "",
                f"Flatness ({kind}, {part[0]['nodes']} nodes, explanations "
                f"{part[0]['first']}-{part[-1]['last']} in blocks of "
                f"{part[0]['last'] - part[0]['first'] + 1}): median {mid:.3f} ms per "
                f"explanation, first block {times[0]:.3f}, last block {times[-1]:.3f} "
                f"(last/median {times[-1] / mid:.2f}).",
            ]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the growth benchmark (``argv`` as on the command line)."""
    parser = argparse.ArgumentParser(prog="python -m bench.growth", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="sizes up to 10,000 nodes")
    parser.add_argument("--sizes", help="comma-separated node counts")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--enum-limit", type=int, default=100)
    parser.add_argument("--flat-limit", type=int, default=2000)
    parser.add_argument(
        "--out", default=str(RESULTS_DIR), help="output folder (default %(default)s)"
    )
    args = parser.parse_args(argv)
    if args.sizes:
        sizes = [int(s) for s in args.sizes.split(",")]
    else:
        sizes = [100, 1_000, 10_000] if args.quick else [100, 1_000, 10_000, 100_000, 1_000_000]
    rows = []
    for n in sizes:
        for kind in GENERATORS:
            rows.append(measure(kind, n, args.seed, args.enum_limit))
            r = rows[-1]
            print(
                f"{kind} {r['nodes']} nodes: AXp {r['axp_cold_s']:.4f} s cold, "
                f"{r['axp_s']:.4f} s warm, CXp {r['cxp_s']:.4f} s, "
                f"{1000 * r['per_xp_s']:.3f} ms/XP, membership {r['member_s']:.4f} s",
                file=sys.stderr,
            )
    flat_nodes = 1_000 if args.quick else 10_000
    flat_limit = min(args.flat_limit, 500) if args.quick else args.flat_limit
    flat = []
    for kind in GENERATORS:
        flat += flatness(kind, flat_nodes, flat_limit, max(1, flat_limit // 10), args.seed)
    md = markdown(rows, flat)
    folder = out_dir(args.out)
    paths = write_outputs(
        folder,
        "growth",
        {
            ".csv": csv_text(rows, COLUMNS),
            "_flat.csv": csv_text(flat, ["kind", "nodes", "first", "last", "per_xp_s"]),
            ".md": md,
        },
    )
    png = folder / "growth.png"
    tmp = folder / ".growth.png.tmp"
    tmp.write_bytes(plot(rows, flat))
    tmp.replace(png)
    print(md)
    for p in [*paths, png]:
        print(f"wrote {p}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
