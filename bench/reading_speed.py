"""How fast explanation graphs and models are read: ``.xpg`` files and JSON model files.

Usage: ``python -m bench.reading_speed [--quick] [--depths 13,16,19] [--sizes 10000,...]
[--json-sizes 10000,100000] [--repeat 3] [--out DIR]`` (or ``xpg bench reading ...``).

* ``.xpg``: complete binary trees of depth 13, 16 and 19 (16,383 to 1,048,575 nodes, one
  feature per level) and random trees of 10,000 to 1,000,000 nodes over 200 to 1,000 features
  (:func:`bench.randgen.random_tree_xpg`), each the explanation graph of a random instance,
  written with :func:`xpg.io.write_xpg` and read back with :func:`xpg.io.read_xpg`, which
  parses and validates (Def. 3).  ``lines_per_s`` is the number of lines of the file over the
  time of one ``read_xpg`` call; ``write_s`` is the time of one ``write_xpg`` call.
* JSON: random trees of 10,000 and 100,000 nodes (:func:`bench.randgen.random_tree`) saved as
  ``decision-graph`` and as ``decision-tree`` models (:func:`xpg.io.save_model`) and loaded
  with :func:`xpg.io.load_model` (parse, compile, validate Def. 2).

Times are CPU times of the process (other programs on the machine do not inflate them), the
best of ``--repeat`` calls, with the garbage collector left on, as a user runs them.  Files are
written to a temporary folder; the tables go to ``reading_speed.csv``,
``reading_speed_json.csv`` and ``reading_speed.md`` in ``--out``.

References
----------
Huang, Izza, Ignatiev, Marques-Silva. On Efficiently Explaining Graph-Based Classifiers.
KR 2021 (the ``.xpg`` format of its reference implementation).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bench.growth import features_for
from bench.randgen import _xpg_from_arrays, random_tree, random_tree_xpg
from bench.tables import RESULTS_DIR, csv_text, out_dir, write_outputs
from xpg.core.xpgraph import ExplanationGraph
from xpg.io import load_model, read_xpg, save_model, write_xpg
from xpg.models.tree import DecisionTree
from xpg.testing import described

XPG_COLUMNS = ["kind", "nodes", "edges", "features", "lines", "mb", "write_s", "read_s"]
XPG_COLUMNS += ["lines_per_s"]
JSON_COLUMNS = ["kind", "nodes", "edges", "mb", "load_s", "nodes_per_s"]


def complete_tree_xpg(depth: int, seed: int = 0) -> ExplanationGraph:
    """The XpG of a complete binary tree testing ``x_k`` at level ``k``, random leaf classes,
    for a random instance (node ``i`` has children ``2i + 1`` by 0 and ``2i + 2`` by 1).

    Examples
    --------
    >>> xg = complete_tree_xpg(3)
    >>> xg.n_nodes, xg.n_vars, int((xg.node_var < 0).sum())
    (15, 3, 8)
    """
    rng = np.random.default_rng(seed)
    n = 2 ** (depth + 1) - 1
    inner = 2**depth - 1
    node_var = np.full(n, -1, dtype=np.int64)
    node_var[:inner] = np.floor(np.log2(np.arange(1, inner + 1))).astype(np.int64)
    src = np.repeat(np.arange(inner, dtype=np.int64), 2)
    dst = np.arange(1, n, dtype=np.int64)
    branch = (dst + 1) % 2  # 2i + 1: branch 0, 2i + 2: branch 1
    leaf_class = np.where(node_var < 0, rng.integers(0, 2, n), -1)
    x = rng.integers(0, 2, depth)
    return _xpg_from_arrays(src, dst, branch, node_var, leaf_class, x, depth)


def best_of(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    """The least CPU time of ``repeat`` calls (one call when the first takes over 10 s)."""
    times, out = [], None
    for _ in range(repeat):
        start = time.process_time()
        out = fn()
        times.append(time.process_time() - start)
        if times[-1] > 10:
            break
    return min(times), out


def measure_xpg(kind: str, xg: ExplanationGraph, folder: Path, repeat: int) -> dict[str, Any]:
    """Write one XpG as ``.xpg``, read it back (checked equal), and time both."""
    path = folder / f"{kind}_{xg.n_nodes}.xpg"
    write_s, _ = best_of(lambda: write_xpg(xg, path), 1)
    read_s, again = best_of(lambda: read_xpg(path), repeat)
    assert described(again) == described(xg), "the graph read back differs"
    with path.open("rb") as f:
        lines = sum(1 for _ in f)
    return {
        "kind": kind,
        "nodes": xg.n_nodes,
        "edges": len(xg.edge_src),
        "features": xg.n_vars,
        "lines": lines,
        "mb": round(path.stat().st_size / 1e6, 2),
        "write_s": round(write_s, 4),
        "read_s": round(read_s, 4),
        "lines_per_s": int(lines / read_s) if read_s > 0 else "",
    }


def measure_json(n_nodes: int, folder: Path, repeat: int, seed: int) -> list[dict[str, Any]]:
    """A random tree saved as a ``decision-graph`` and as a ``decision-tree`` model, loaded."""
    dg = random_tree(n_nodes, features_for(n_nodes), seed=seed)
    rows = []
    for kind, model in (
        ("decision-graph", dg),
        ("decision-tree", DecisionTree.from_decision_graph(dg)),
    ):
        path = folder / f"{kind}_{n_nodes}.json"
        save_model(model, path)
        load_s, loaded = best_of(lambda path=path: load_model(path), repeat)
        assert len(loaded) == len(dg)
        rows.append(
            {
                "kind": kind,
                "nodes": len(dg),
                "edges": dg.n_edges,
                "mb": round(path.stat().st_size / 1e6, 2),
                "load_s": round(load_s, 4),
                "nodes_per_s": int(len(dg) / load_s) if load_s > 0 else "",
            }
        )
    return rows


def markdown(xpg_rows: Sequence[dict[str, Any]], json_rows: Sequence[dict[str, Any]]) -> str:
    lines = [
        "### Reading `.xpg` files (read_xpg: parse + validate)",
        "",
        "| kind | nodes | features | lines | MB | write (s) | read (s) | lines/s |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in xpg_rows:
        lines.append(
            f"| {r['kind']} | {r['nodes']:,} | {r['features']} | {r['lines']:,} | {r['mb']} | "
            f"{r['write_s']:.3f} | {r['read_s']:.3f} | {r['lines_per_s']:,} |"
        )
    if json_rows:
        lines += [
            "",
            "### Loading JSON models (load_model: parse + compile + validate)",
            "",
            "| kind | nodes | MB | load (s) | nodes/s |",
            "|---|---|---|---|---|",
        ]
        for r in json_rows:
            lines.append(
                f"| {r['kind']} | {r['nodes']:,} | {r['mb']} | {r['load_s']:.3f} | "
                f"{r['nodes_per_s']:,} |"
            )
    return "\n".join(lines) + "\n"


def _ints(option: str) -> list[int]:
    return [int(s) for s in option.split(",") if s.strip()]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the reading benchmark (``argv`` as on the command line)."""
    parser = argparse.ArgumentParser(prog="python -m bench.reading_speed", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="only the smallest sizes")
    parser.add_argument("--depths", help="complete-tree depths (default 13,16,19)")
    parser.add_argument("--sizes", help="random-tree node counts (default 10000,100000,1000000)")
    parser.add_argument("--json-sizes", help="JSON model node counts (default 10000,100000)")
    parser.add_argument("--repeat", type=int, default=3, help="best of this many reads")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--out", default=str(RESULTS_DIR), help="output folder (default %(default)s)"
    )
    args = parser.parse_args(argv)
    depths = _ints(args.depths or ("13" if args.quick else "13,16,19"))
    sizes = _ints(args.sizes or ("10000" if args.quick else "10000,100000,1000000"))
    json_sizes = _ints(args.json_sizes or ("10000" if args.quick else "10000,100000"))
    xpg_rows: list[dict[str, Any]] = []
    json_rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        graphs = [("complete", lambda d=d: complete_tree_xpg(d, args.seed)) for d in depths]
        graphs += [
            ("random", lambda n=n: random_tree_xpg(n, features_for(n), seed=args.seed))
            for n in sizes
        ]
        for kind, build in graphs:
            xpg_rows.append(measure_xpg(kind, build(), folder, args.repeat))
            r = xpg_rows[-1]
            print(
                f"{kind} tree, {r['nodes']} nodes: read {r['read_s']:.3f} s "
                f"({r['lines_per_s']} lines/s), write {r['write_s']:.3f} s",
                file=sys.stderr,
            )
        for n in json_sizes:
            json_rows += measure_json(n, folder, args.repeat, args.seed)
            for r in json_rows[-2:]:
                print(f"{r['kind']}, {r['nodes']} nodes: load {r['load_s']:.3f} s", file=sys.stderr)
    md = markdown(xpg_rows, json_rows)
    paths = write_outputs(
        out_dir(args.out),
        "reading_speed",
        {
            ".csv": csv_text(xpg_rows, XPG_COLUMNS),
            "_json.csv": csv_text(json_rows, JSON_COLUMNS),
            ".md": md,
        },
    )
    print(md)
    for p in paths:
        print(f"wrote {p}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
