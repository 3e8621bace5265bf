"""xpg against PyXAI on depth-6 scikit-learn trees: speed, and exactness at the feature level.

Usage: ``python -m bench.pyxai_compare [--quick] [--datasets a,b] [--max-instances N]
[--verify N] [--data-dir D] [--out DIR]``.

Datasets: breast cancer and digits (bundled with scikit-learn) and the Table 2 datasets with
numeric (real or many-valued ordinal) features, every column seen as a real number.  The same
``DecisionTreeClassifier(max_depth=6)`` (80/20 split, seeded)
is explained by both tools, instance by instance:

* PyXAI (its own environment, :mod:`bench.peers`): ``sufficient_reason(n=1)``,
  ``sufficient_reason(n=ALL)``, ``contrastive_reason(n=ALL)``, timed in-process; its
  per-instance explainer set-up is *not* counted.  PyXAI reasons are sets of binarised
  threshold conditions; each is mapped to the set of features its conditions use.
* xpg, timed from the instance (explanation graph included): ``find_axp`` (one AXp),
  :func:`xpg.explain.tree_xpg.tree_cxps` (every CXp, polynomial on trees) and
  ``enumerate_explanations`` (every AXp *and* CXp, MARCO), whose time is compared with
  PyXAI's time for all AXps and, separately, with its time for all CXps.

Both sides: CPU time of one call (``time.process_time``), in-process.

Exactness: PyXAI's feature sets are checked against xpg's exact lists: how many reasons map
to a feature set already produced (duplicates), how many distinct sets are exact AXps/CXps,
how many are supersets of one (not minimal at the feature level), how many are neither, and
which exact explanations PyXAI misses.  Up to ``--verify`` distinct PyXAI feature sets per
dataset are also checked with the SMT verifier on the original scikit-learn tree
(:mod:`xpg.verify.verifier`).

Writes ``pyxai.csv`` (per dataset), ``pyxai_instances.csv`` and ``pyxai.md``.

References
----------
Huang et al. KR 2021, remark on binarization; Audemard et al. PyXAI (2.0.1), explainers of
decision trees.
"""

from __future__ import annotations

import pickle
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.datasets import load_breast_cancer, load_digits
from sklearn.tree import DecisionTreeClassifier

from bench.data import TABLE2, Dataset, load_dataset
from bench.models import split_rows
from bench.peers import PEERS, ensure_venv, is_ready, run_runner
from bench.tables import base_parser, csv_text, out_dir, pick_rows, progress, write_outputs
from xpg.compile.sklearn_tree import from_sklearn_tree
from xpg.core.features import Feature
from xpg.core.xpgraph import ExplanationGraph
from xpg.explain.axp_cxp import find_axp
from xpg.explain.marco import enumerate_explanations
from xpg.explain.tree_xpg import tree_cxps
from xpg.verify.verifier import Verifier

SKLEARN_DATASETS = ("breast_cancer", "digits")
ROW_COLUMNS = [
    "dataset",
    "instances",
    "features",
    "nodes",
    "ours_one_axp_ms",
    "pyxai_one_axp_ms",
    "ours_all_ms",
    "pyxai_all_axps_ms",
    "ours_all_cxps_ms",
    "pyxai_all_cxps_ms",
    "xpg_axps",
    "pyxai_axp_reasons",
    "axp_duplicates",
    "axp_exact",
    "axp_nonminimal",
    "axp_invalid",
    "axp_missed",
    "xpg_cxps",
    "pyxai_cxp_reasons",
    "cxp_duplicates",
    "cxp_exact",
    "cxp_nonminimal",
    "cxp_invalid",
    "cxp_missed",
    "verified",
    "verified_ok",
    "verified_failures",
]


#: Table 2 datasets with real-valued or many-valued ordinal features (thresholds matter).
NUMERIC_TABLE2 = (
    "adult",
    "anneal",
    "cancer",
    "churn",
    "collins",
    "iris",
    "new-thyroid",
    "pendigits",
    "shuttle",
    "spambase",
)


def sklearn_dataset(name: str, seed: int) -> Dataset:
    """Breast cancer or digits as a :class:`bench.data.Dataset` (real features)."""
    bunch = load_breast_cancer() if name == "breast_cancer" else load_digits()
    X = np.asarray(bunch.data, dtype=np.float64)
    names = [str(n) for n in bunch.feature_names]
    feats = [Feature.real(n) for n in names]
    return Dataset(name, X, np.asarray(bunch.target), feats, np.arange(len(X)), len(X))


def train(ds: Dataset, seed: int) -> tuple[DecisionTreeClassifier, Any, list[Feature]]:
    """The depth-6 tree (as Table 2's), compiled over real features: both tools then see a
    tree of thresholds on unbounded numbers, and differences come from binarisation only."""
    train_rows, _ = split_rows(len(ds.X), seed)
    clf = DecisionTreeClassifier(max_depth=6, random_state=seed)
    y = np.asarray([v.item() if isinstance(v, np.generic) else v for v in ds.y.tolist()])
    clf.fit(ds.X[train_rows], y[train_rows])
    features = [Feature.real(f.name) for f in ds.features]
    return clf, from_sklearn_tree(clf, features), features


def classify_sets(found: Sequence[Sequence[str]], exact: set[frozenset[str]]) -> dict[str, int]:
    """PyXAI's feature sets against the exact ones."""
    sets = [frozenset(s) for s in found]
    distinct = set(sets)
    return {
        "reasons": len(sets),
        "duplicates": len(sets) - len(distinct),
        "exact": sum(s in exact for s in distinct),
        "nonminimal": sum(s not in exact and any(e < s for e in exact) for s in distinct),
        "invalid": sum(s not in exact and not any(e < s for e in exact) for s in distinct),
        "missed": sum(e not in distinct for e in exact),
    }


def ours(dg: Any, x: list[Any]) -> dict[str, Any]:
    """xpg's timings and exact lists for one instance."""
    start = time.process_time()
    axp = find_axp(ExplanationGraph.from_decision_graph(dg, x))
    one_s = time.process_time() - start
    start = time.process_time()
    cxps = list(tree_cxps(ExplanationGraph.from_decision_graph(dg, x)))
    cxps_s = time.process_time() - start
    start = time.process_time()
    xg = ExplanationGraph.from_decision_graph(dg, x)
    result = enumerate_explanations(xg)
    all_s = time.process_time() - start
    if {frozenset(c) for c in cxps} != {frozenset(c) for c in result.cxps}:
        raise RuntimeError("tree_cxps and MARCO disagree on the CXps")  # pragma: no cover
    return {
        "one_s": one_s,
        "cxps_s": cxps_s,
        "all_s": all_s,
        "axp": axp,
        "axps": {frozenset(a) for a in result.axps},
        "cxps": {frozenset(c) for c in result.cxps},
        "prediction": xg.prediction,
    }


def run_dataset(
    ds: Dataset, rows: list[int], seed: int, verify: int, folder: Path, show: bool
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    clf, dg, features = train(ds, seed)
    xs = [[float(v) for v in ds.X[r]] for r in rows]
    model_path = folder / f"{ds.name}.pkl"
    model_path.write_bytes(pickle.dumps(clf))
    job = {"model": str(model_path), "feature_names": ds.feature_names, "instances": xs}
    peer = run_runner(PEERS["pyxai"], job, timeout=600 + 10 * len(xs))["results"]
    per_instance = []
    agg: dict[str, list[Any]] = {}
    to_verify: list[tuple[list[Any], str, frozenset[str]]] = []
    for row, x, px in progress(list(zip(rows, xs, peer)), ds.name, show):
        me = ours(dg, x)
        a = classify_sets(px["axps"], me["axps"])
        c = classify_sets(px["cxps"], me["cxps"])
        per_instance.append(
            {
                "dataset": ds.name,
                "row": row,
                "ours_one_axp_s": round(me["one_s"], 6),
                "pyxai_one_axp_s": round(px["one_axp_s"], 6),
                "ours_all_s": round(me["all_s"], 6),
                "pyxai_all_axps_s": round(px["all_axps_s"], 6),
                "ours_all_cxps_s": round(me["cxps_s"], 6),
                "pyxai_all_cxps_s": round(px["all_cxps_s"], 6),
                "xpg_axps": len(me["axps"]),
                "pyxai_axp_reasons": a["reasons"],
                "axp_exact": a["exact"],
                "axp_nonminimal": a["nonminimal"],
                "xpg_cxps": len(me["cxps"]),
                "pyxai_cxp_reasons": c["reasons"],
                "cxp_exact": c["exact"],
                "cxp_nonminimal": c["nonminimal"],
            }
        )
        for key, value in [
            ("ours_one", me["one_s"]),
            ("px_one", px["one_axp_s"]),
            ("ours_all", me["all_s"]),
            ("px_axps", px["all_axps_s"]),
            ("ours_cxps", me["cxps_s"]),
            ("px_cxps", px["all_cxps_s"]),
        ]:
            agg.setdefault(key, []).append(value)
        for kind, counts, n_exact in (("axp", a, len(me["axps"])), ("cxp", c, len(me["cxps"]))):
            agg.setdefault(f"xpg_{kind}s", []).append(n_exact)
            for k, v in counts.items():
                agg.setdefault(f"{kind}_{k}", []).append(v)
        for kind in ("axp", "cxp"):
            for s in {frozenset(s) for s in px[f"{kind}s"]}:
                to_verify.append((x, kind, s))
    verified, failures = verify_sets(clf, features, to_verify[:verify])

    def med_ms(key: str) -> float:
        return round(1000 * statistics.median(agg[key]), 4)

    summary = {
        "dataset": ds.name,
        "instances": len(rows),
        "features": len(ds.features),
        "nodes": len(dg),
        "ours_one_axp_ms": med_ms("ours_one"),
        "pyxai_one_axp_ms": med_ms("px_one"),
        "ours_all_ms": med_ms("ours_all"),
        "pyxai_all_axps_ms": med_ms("px_axps"),
        "ours_all_cxps_ms": med_ms("ours_cxps"),
        "pyxai_all_cxps_ms": med_ms("px_cxps"),
        "verified": verified,
        "verified_ok": verified - sum(failures.values()),
        "verified_failures": " ".join(f"{k}:{v}" for k, v in sorted(failures.items())),
    }
    for kind in ("axp", "cxp"):
        summary[f"xpg_{kind}s"] = sum(agg[f"xpg_{kind}s"])
        summary[f"pyxai_{kind}_reasons"] = sum(agg[f"{kind}_reasons"])
        for k in ("duplicates", "exact", "nonminimal", "invalid", "missed"):
            summary[f"{kind}_{k}"] = sum(agg[f"{kind}_{k}"])
    return summary, per_instance


def verify_sets(
    clf: DecisionTreeClassifier,
    features: list[Feature],
    claims: list[tuple[list[Any], str, frozenset[str]]],
) -> tuple[int, dict[str, int]]:
    """SMT-check PyXAI's feature sets on the original tree: how many, and the failures."""
    failures: dict[str, int] = {}
    if not claims:
        return 0, failures
    with Verifier(clf, features) as v:
        for x, kind, names in claims:
            check = v.verify_axp if kind == "axp" else v.verify_cxp
            verdict = check(x, sorted(names))
            if not verdict.holds:
                key = f"{kind}-{verdict.failure}"
                failures[key] = failures.get(key, 0) + 1
    return len(claims), failures


def markdown(rows: Sequence[dict[str, Any]]) -> str:
    lines = [
        "### xpg vs PyXAI 2.0.1 on depth-6 scikit-learn trees (median ms per instance)",
        "",
        "| dataset | inst. | #F | #N | 1 AXp xpg / PyXAI | all AXps+CXps xpg / all AXps "
        "PyXAI | all CXps xpg / PyXAI | AXps: xpg, PyXAI reasons (dup, exact, non-min, "
        "invalid, missed) | CXps: xpg, PyXAI reasons (dup, exact, non-min, invalid, missed) | "
        "SMT-checked (ok) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['dataset']} | {r['instances']} | {r['features']} | {r['nodes']} | "
            f"{r['ours_one_axp_ms']:.3f} / {r['pyxai_one_axp_ms']:.3f} | "
            f"{r['ours_all_ms']:.3f} / {r['pyxai_all_axps_ms']:.3f} | "
            f"{r['ours_all_cxps_ms']:.3f} / {r['pyxai_all_cxps_ms']:.3f} | "
            f"{r['xpg_axps']}, {r['pyxai_axp_reasons']} ({r['axp_duplicates']}, "
            f"{r['axp_exact']}, {r['axp_nonminimal']}, {r['axp_invalid']}, {r['axp_missed']}) | "
            f"{r['xpg_cxps']}, {r['pyxai_cxp_reasons']} ({r['cxp_duplicates']}, "
            f"{r['cxp_exact']}, {r['cxp_nonminimal']}, {r['cxp_invalid']}, {r['cxp_missed']}) | "
            f"{r['verified']} ({r['verified_ok']}) |"
        )
    lines += [
        "",
        "Duplicates: PyXAI reasons whose feature set another reason of the same instance "
        "already gave; exact: distinct feature sets that are AXps/CXps; non-min: strict "
        "supersets of one; invalid: neither; missed: exact explanations PyXAI does not give. "
        "PyXAI's explainer set-up per instance is not counted; xpg's times include building "
        "the explanation graph.",
    ]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the comparison (``argv`` as on the command line)."""
    parser = base_parser("python -m bench.pyxai_compare", "xpg vs PyXAI on depth-6 trees.")
    parser.add_argument("--verify", type=int, default=300, help="SMT checks per dataset")
    args = parser.parse_args(argv)
    known = [*SKLEARN_DATASETS, *NUMERIC_TABLE2]
    names = known if not args.datasets else [n.strip() for n in args.datasets.split(",")]
    unknown = [n for n in names if n not in known and n not in TABLE2]
    if unknown:
        raise SystemExit(f"--datasets: unknown {', '.join(unknown)}")
    limit = args.max_instances if args.max_instances is not None else (5 if args.quick else 100)
    if not is_ready(PEERS["pyxai"]):
        ensure_venv(PEERS["pyxai"])
    summary, per_instance = [], []
    with tempfile.TemporaryDirectory(prefix="xpg-pyxai-") as tmp:
        for name in names:
            if name in SKLEARN_DATASETS:
                ds = sklearn_dataset(name, args.seed)
            else:
                ds = load_dataset(name, args.data_dir, seed=args.seed)
            rows = pick_rows(ds, limit, args.seed)
            s, inst = run_dataset(ds, rows, args.seed, args.verify, Path(tmp), not args.no_progress)
            summary.append(s)
            per_instance += inst
            print(
                f"{name}: all AXps {s['ours_all_ms']:.3f} ms (xpg) vs {s['pyxai_all_axps_ms']:.3f}"
                f" ms (PyXAI); all CXps {s['ours_all_cxps_ms']:.3f} vs "
                f"{s['pyxai_all_cxps_ms']:.3f} ms",
                file=sys.stderr,
            )
    md = markdown(summary)
    paths = write_outputs(
        out_dir(args.out),
        "pyxai",
        {
            ".csv": csv_text(summary, ROW_COLUMNS),
            "_instances.csv": csv_text(per_instance, list(per_instance[0]) if per_instance else []),
            ".md": md,
        },
    )
    print(md)
    for p in paths:
        print(f"wrote {p}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
