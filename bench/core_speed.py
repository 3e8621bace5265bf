"""Speed of the core (issue 2): linear reachability, full enumeration, one AXp, vs the reference.

Usage: ``python -m bench.core_speed [--quick] [--timeout S] [--ours-only] [--out DIR]``.

1. **Reachability is linear.**  The parity ladder (:func:`xpg.testing.ladder`) has 2n
   nodes and 2^n root-to-terminal paths.  xpg's ``path_to_zero`` with every feature free
   for n = 20, 40, 80, 1,000 (and more), against the reference's ``path_to_zero``, a
   breadth-first search without a visited set, which doubles with every feature.
2. **Full enumeration** of every AXp and CXp on the six reference graphs of
   ``../shared/xpg-examples`` and on random trees and reduced OBDDs of 100 to 10,000 nodes
   over 10 to 200 features, by xpg and by the reference (its best of two AXp modes), with
   identical explanation sets required.  A reference run stopped by the per-run timeout
   gives a lower bound on the ratio.
3. **One AXp on a reduced OBDD of about 1,000 nodes over 200 features** (dd, random DNF):
   xpg's ``find_axp`` on a fresh explanation graph (adjacency lists included) against the
   reference's ``find_axp``.

Both sides are timed in-process the same way (:func:`bench.runners.timing.cpu_time`: CPU
time, best of 3 loops), without interpreter start-up or file loading. Writes
``core_speed.csv`` and ``core_speed.md`` (``--out``, default ``bench/results``).

References
----------
Huang, Izza, Ignatiev, Marques-Silva. On Efficiently Explaining Graph-Based Classifiers.
KR 2021, Alg. 1 (pathToZero), Algs. 2-4; reference implementation PyPI XpGraph 0.0.1.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from bench.data import REPO_ROOT
from bench.peers import PEERS, ensure_venv, is_ready, run_runner
from bench.peers_compare import as_sets
from bench.randgen import random_tree
from bench.runners.timing import cpu_time
from bench.tables import RESULTS_DIR, csv_text, out_dir, write_outputs
from xpg.core.graph import DecisionGraph
from xpg.core.xpgraph import ExplanationGraph
from xpg.explain.axp_cxp import find_axp
from xpg.explain.marco import enumerate_explanations
from xpg.explain.reach import path_to_zero
from xpg.io import read_xpg, write_xpg
from xpg.testing import ladder, random_reduced_obdd

EXAMPLES = REPO_ROOT.parent / "shared" / "xpg-examples"
COLUMNS = [
    "section",
    "graph",
    "nodes",
    "edges",
    "features",
    "n_axps",
    "n_cxps",
    "ours_s",
    "ref_s",
    "ref_status",
    "ratio",
    "identical",
    "ref_modes",
]


def best_time(fn: Callable[[], Any], repeat: int = 3) -> tuple[float, Any]:
    """CPU time per call of ``fn()`` and its result, as the reference's runner measures it."""
    return cpu_time(fn, repeat=repeat)


def instance_of(dg: DecisionGraph, seed: int) -> list[int]:
    rng = random.Random(seed)
    return [rng.randrange(2) for _ in dg.features]


def reference(task: str, files: Sequence[Path], timeout: float, modes: Sequence[str]) -> Any:
    """``{file: {mode: result}}`` from the reference runner."""
    job = {
        "task": task,
        "files": [str(f) for f in files],
        "modes": list(modes),
        "timeout": timeout,
    }
    budget = len(files) * len(modes) * (3 * timeout + 5) + 60
    out: dict[str, dict[str, Any]] = {}
    for res in run_runner(PEERS["xpgraph"], job, timeout=budget)["results"]:
        out.setdefault(res["file"], {})[res["mode"]] = res
    return out


def _modes(results: dict[str, Any]) -> str:
    """Each reference mode's time or status, e.g. ``traverse 0.35 s, horn 0.011 s``."""
    return ", ".join(
        f"{m} {r['seconds']:.4g} s" if r["status"] == "ok" else f"{m} {r['status']}"
        for m, r in results.items()
    )


def _ref_summary(results: dict[str, Any]) -> tuple[float, str, list[Any]]:
    """Best time over the reference's modes, its status, and the OK results."""
    ok = [r for r in results.values() if r["status"] == "ok"]
    if ok:
        return min(r["seconds"] for r in ok), "ok", ok
    statuses = {r["status"] for r in results.values()}
    status = "timeout" if statuses == {"timeout"} else "error"
    return min(r["seconds"] for r in results.values()), status, []


def ladder_section(
    sizes: Sequence[int], ref_sizes: Sequence[int], timeout: float, tmp: Path, ref: bool
) -> list[dict[str, Any]]:
    rows, gave_up = [], False
    for n in sizes:
        dg = ladder(n)
        x = [0] * n
        xg = ExplanationGraph.from_decision_graph(dg, x)
        every = list(range(n))

        def fresh(xg: ExplanationGraph = xg, every: list[int] = every) -> bool:
            xg._adjacency = None  # time the adjacency lists too
            return path_to_zero(xg, every)

        seconds, reachable = best_time(fresh, 5)
        row = {
            "section": "ladder path_to_zero",
            "graph": f"ladder n={n}",
            "nodes": xg.n_nodes,
            "edges": len(xg.edge_src),
            "features": n,
            "ours_s": round(seconds, 7),
            "ref_s": "",
            "ref_status": "not run",
            "ratio": "",
            "identical": "",
        }
        if ref and n in ref_sizes and gave_up:
            row["ref_status"] = "skipped (timed out on a smaller ladder)"
        elif ref and n in ref_sizes:
            path = tmp / f"ladder_{n}.xpg"
            write_xpg(xg, path)
            res = reference("path_to_zero", [path], timeout, ["traverse"])[str(path)]["traverse"]
            row["ref_status"] = res["status"]
            row["ref_s"] = round(res["seconds"], 6)
            row["ratio"] = round(res["seconds"] / seconds, 1)
            if res["status"] == "ok":
                row["identical"] = res["reachable"] == reachable
            gave_up = res["status"] != "ok"
        rows.append(row)
        print(f"ladder n={n}: {seconds * 1e6:.0f} us, reference {row['ref_s']}", file=sys.stderr)
    return rows


def enumeration_section(
    graphs: list[tuple[str, Path]], timeout: float, ref: bool
) -> list[dict[str, Any]]:
    refs = reference("enum", [p for _, p in graphs], timeout, ["traverse", "horn"]) if ref else {}
    rows = []
    for name, path in graphs:
        xg = read_xpg(path)
        xg.adjacency()
        seconds, result = best_time(partial(enumerate_explanations, xg))
        row: dict[str, Any] = {
            "section": "full enumeration",
            "graph": name,
            "nodes": xg.n_nodes,
            "edges": len(xg.edge_src),
            "features": len(xg.tested_vars()),
            "n_axps": len(result.axps),
            "n_cxps": len(result.cxps),
            "ours_s": round(seconds, 7),
            "ref_s": "",
            "ref_status": "not run",
            "ratio": "",
            "identical": "",
        }
        if ref:
            ref_s, status, ok = _ref_summary(refs[str(path)])
            row.update(ref_s=round(ref_s, 6), ref_status=status, ratio=round(ref_s / seconds, 1))
            row["ref_modes"] = _modes(refs[str(path)])
            if ok:
                row["identical"] = all(
                    as_sets(r["axps"]) == as_sets(result.axps)
                    and as_sets(r["cxps"]) == as_sets(result.cxps)
                    for r in ok
                )
        rows.append(row)
        print(
            f"{name}: {seconds * 1e3:.2f} ms, reference {row['ref_status']} "
            f"{row['ref_s']} s, ratio {row['ratio']}",
            file=sys.stderr,
        )
    return rows


def axp_section(seeds: Sequence[int], timeout: float, tmp: Path, ref: bool) -> list[dict[str, Any]]:
    rows, files = [], []
    for seed in seeds:
        dg = random_reduced_obdd(200, 1000, seed=seed)
        xg = ExplanationGraph.from_decision_graph(dg, instance_of(dg, seed))
        path = tmp / f"obdd1000_{seed}.xpg"
        write_xpg(xg, path)
        files.append((seed, path, xg))
    refs = reference("axp", [p for _, p, _ in files], timeout, ["traverse", "horn"]) if ref else {}
    for seed, path, _ in files:
        xg = read_xpg(path)  # the file's variable order, which the reference deletes in

        def fresh(xg: ExplanationGraph = xg) -> tuple[str, ...]:
            xg._adjacency = None
            return find_axp(xg)

        seconds, axp = best_time(fresh, 5)
        row: dict[str, Any] = {
            "section": "one AXp, reduced OBDD",
            "graph": f"dnf obdd seed={seed}",
            "nodes": xg.n_nodes,
            "edges": len(xg.edge_src),
            "features": 200,
            "n_axps": 1,
            "n_cxps": "",
            "ours_s": round(seconds, 7),
            "ref_s": "",
            "ref_status": "not run",
            "ratio": "",
            "identical": "",
        }
        if ref:
            ref_s, status, ok = _ref_summary(refs[str(path)])
            row.update(ref_s=round(ref_s, 6), ref_status=status, ratio=round(ref_s / seconds, 1))
            row["ref_modes"] = _modes(refs[str(path)])
            if ok:
                row["identical"] = all(sorted(r["axp"]) == sorted(axp) for r in ok)
        rows.append(row)
        print(
            f"AXp on {xg.n_nodes}-node OBDD: {seconds * 1e3:.2f} ms, reference "
            f"{row['ref_status']} {row['ref_s']} s",
            file=sys.stderr,
        )
    return rows


def random_graphs(quick: bool, tmp: Path) -> list[tuple[str, Path]]:
    """Example graphs and random trees / reduced OBDDs, written as ``.xpg`` files."""
    graphs = [(p.stem, p) for p in sorted(EXAMPLES.glob("*/*.xpg"))]
    sizes = [(100, 10), (1000, 50)] if quick else [(100, 10), (1000, 50), (3000, 100), (10000, 200)]
    seeds = range(1) if quick else range(3)
    for n, f in sizes:
        for seed in seeds:
            for kind, dg in (
                ("tree", random_tree(n, f, seed=seed, relevant=5)),
                ("obdd", random_reduced_obdd(f, n, seed=seed)),
            ):
                xg = ExplanationGraph.from_decision_graph(dg, instance_of(dg, seed))
                name = f"{kind} n={len(dg)} f={f} seed={seed}"
                path = tmp / f"{kind}_{n}_{f}_{seed}.xpg"
                write_xpg(xg, path)
                graphs.append((name, path))
    return graphs


def markdown(rows: Sequence[dict[str, Any]]) -> str:
    lines = ["### Core speed (issue 2) against the reference implementation (PyPI XpGraph)", ""]
    for section in dict.fromkeys(r["section"] for r in rows):
        part = [r for r in rows if r["section"] == section]
        lines += [
            f"#### {section}",
            "",
            "| graph | nodes | edges | AXps | CXps | xpg (ms) | reference (s) | ratio | same "
            "| reference by mode |",
            "|---|---|---|---|---|---|---|---|---|---|",
        ]
        for r in part:
            ref = r["ref_s"] if r["ref_status"] == "ok" else f"{r['ref_status']} {r['ref_s']}"
            lines.append(
                f"| {r['graph']} | {r['nodes']} | {r['edges']} | {r.get('n_axps', '')} | "
                f"{r.get('n_cxps', '')} | {1000 * r['ours_s']:.3f} | {ref} | "
                f"{'>' if r['ref_status'] == 'timeout' else ''}{r['ratio']} | {r['identical']} "
                f"| {r.get('ref_modes', '')} |"
            )
        ratios = [r["ratio"] for r in part if r["ratio"] != ""]
        if ratios:
            lines += [
                "",
                f"Median ratio: {statistics.median(ratios):.1f}x "
                "(a timeout counts as its lower bound).",
            ]
        lines.append("")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the core speed benchmark (``argv`` as on the command line)."""
    parser = argparse.ArgumentParser(prog="python -m bench.core_speed", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small sizes, short timeouts")
    parser.add_argument("--timeout", type=float, help="per-run limit for the reference (s)")
    parser.add_argument("--ours-only", action="store_true", help="skip the reference")
    parser.add_argument(
        "--out", default=str(RESULTS_DIR), help="output folder (default %(default)s)"
    )
    args = parser.parse_args(argv)
    timeout = args.timeout or (5.0 if args.quick else 20.0)
    ref = not args.ours_only
    if ref and not is_ready(PEERS["xpgraph"]):
        ensure_venv(PEERS["xpgraph"])
    sizes = [20, 40, 80, 1000] if args.quick else [10, 14, 16, 18, 20, 22, 40, 80, 1000, 10000]
    ref_sizes = [10, 14, 16, 18, 20] if args.quick else [10, 14, 16, 18, 20, 22, 40, 80, 1000]
    with tempfile.TemporaryDirectory(prefix="xpg-core-speed-") as name:
        tmp = Path(name)
        rows = ladder_section(sizes, ref_sizes, timeout, tmp, ref)
        rows += enumeration_section(random_graphs(args.quick, tmp), timeout, ref)
        rows += axp_section(range(2) if args.quick else range(5), timeout, tmp, ref)
    md = markdown(rows)
    paths = write_outputs(
        out_dir(args.out), "core_speed", {".csv": csv_text(rows, COLUMNS), ".md": md}
    )
    print(md)
    for p in paths:
        print(f"wrote {p}")
    return 1 if any(r["identical"] is False for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
