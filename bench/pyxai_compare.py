"""xpg against PyXAI on depth-6 scikit-learn trees: speed, and exactness at the feature level.

Usage: ``python -m bench.pyxai_compare [--quick] [--runs R] [--datasets a,b]
[--max-instances N] [--verify N] [--data-dir D] [--out DIR]``.

Datasets: breast cancer and digits (bundled with scikit-learn) and the Table 2 datasets with
numeric (real or many-valued ordinal) features, every column seen as a real number.  The same
``DecisionTreeClassifier(max_depth=6)`` (80/20 split, seeded)
is explained by both tools, instance by instance, three tasks:

* one AXp: xpg ``find_axp``; PyXAI ``sufficient_reason(n=1)``;
* all AXps: xpg ``enumerate_explanations`` (every AXp *and* CXp, MARCO); PyXAI
  ``sufficient_reason(n=ALL)``;
* all CXps: xpg :func:`xpg.explain.tree_xpg.tree_cxps` (polynomial on trees); PyXAI
  ``contrastive_reason(n=ALL)``.

xpg's calls start from the instance (explanation graph built in each call); PyXAI's
per-instance explainer set-up (``Explaining.initialize``) is *not* counted.  PyXAI reasons
are sets of binarised threshold conditions; each is mapped to the set of features its
conditions use.

Timing (:mod:`bench.runners.timing`, the same for every peer comparison): CPU time of each
process (``time.process_time``) on both sides, PyXAI in a long-lived runner in its own
environment (:class:`bench.peers.RunnerSession`) and xpg in this process, taking turns on each
instance: a first call of each side (not measured), then for each task three rounds, each
measuring xpg and PyXAI once (a loop of about 5 ms, collector off), in an order that rotates
between rounds and instances; each side keeps its best.  Per instance the speed-up is PyXAI's
time over xpg's (1 or more: xpg at or below PyXAI's time); per dataset, its median over
instances; the whole comparison is run ``--runs`` times (default 3), and the minimum (the
least favourable run for xpg) and the median over runs of that median are reported.

Exactness (first run): PyXAI's feature sets are checked against xpg's exact lists: how many
reasons map to a feature set already produced (duplicates), how many distinct sets are exact
AXps/CXps, how many are supersets of one (not minimal at the feature level), how many are
neither, and which exact explanations PyXAI misses.  Up to ``--verify`` distinct PyXAI
feature sets per dataset are also checked with the SMT verifier on the original scikit-learn
tree (:mod:`xpg.verify.verifier`).

Writes ``pyxai.csv`` (per dataset), ``pyxai_instances.csv`` (per run and instance) and
``pyxai.md``.

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
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.datasets import load_breast_cancer, load_digits
from sklearn.tree import DecisionTreeClassifier

from bench.data import TABLE2, Dataset, load_dataset
from bench.models import split_rows
from bench.peers import PEERS, RunnerSession, ensure_venv, is_ready
from bench.runners.timing import (
    ROUNDS,
    calibrate,
    interleave,
    measure,
    median_ratio,
    over_runs,
    ratio,
)
from bench.tables import base_parser, csv_text, out_dir, pick_rows, progress, write_outputs
from xpg.compile.sklearn_tree import from_sklearn_tree
from xpg.core.features import Feature
from xpg.core.xpgraph import ExplanationGraph
from xpg.explain.axp_cxp import find_axp
from xpg.explain.marco import enumerate_explanations
from xpg.explain.tree_xpg import tree_cxps
from xpg.verify.verifier import Verifier

SKLEARN_DATASETS = ("breast_cancer", "digits")
#: xpg's task -> PyXAI's task it is compared with, and the column stem
TASKS = {"one": ("one", "one_axp"), "all": ("axps", "all_axps"), "cxps": ("cxps", "all_cxps")}
ROW_COLUMNS = [
    "dataset",
    "instances",
    "features",
    "nodes",
    "runs",
    "ours_one_axp_ms",
    "pyxai_one_axp_ms",
    "one_axp_speedup_min",
    "one_axp_speedup_median",
    "ours_all_ms",
    "pyxai_all_axps_ms",
    "all_axps_speedup_min",
    "all_axps_speedup_median",
    "ours_all_cxps_ms",
    "pyxai_all_cxps_ms",
    "all_cxps_speedup_min",
    "all_cxps_speedup_median",
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


def our_calls(dg: Any, x: list[Any]) -> dict[str, Callable[[], Any]]:
    """xpg's three tasks on one instance, each from the instance (explanation graph built)."""

    def xg() -> ExplanationGraph:
        return ExplanationGraph.from_decision_graph(dg, x)

    return {
        "one": lambda: find_axp(xg()),
        "all": lambda: enumerate_explanations(xg()),
        "cxps": lambda: list(tree_cxps(xg())),
    }


class PyxaiPeer:
    """PyXAI's side: its runner, kept alive, serving one instance at a time."""

    def __init__(self, session: RunnerSession) -> None:
        self.session = session

    def load(self, model: Path, feature_names: list[str]) -> None:
        """Import the pickled tree into PyXAI (not timed)."""
        self.session.request("load", wait=600, model=str(model), feature_names=feature_names)

    def prepare(self, x: list[float]) -> dict[str, Any]:
        """Set up the explainer on ``x`` and make each task's first call (its reasons)."""
        return self.session.request("prepare", wait=600, instance=x)

    def measure(self, task: str) -> float:
        """One measurement of ``task`` on the prepared instance (seconds per call)."""
        return float(self.session.request("measure", wait=600, task=task)["seconds"])


@dataclass
class Timed:
    """One instance in one run: both sides' best seconds per task, and both sides' answers."""

    ours: dict[str, float]
    theirs: dict[str, float]
    mine: dict[str, Any]
    peer: dict[str, Any]


def time_instance(
    calls: dict[str, Callable[[], Any]], peer: Any, x: list[float], index: int, rounds: int
) -> Timed:
    """First calls of both sides, then per task ``rounds`` interleaved measurements.

    ``peer`` has ``prepare(x)`` and ``measure(task)`` (:class:`PyxaiPeer`, or a fake);
    ``index`` shifts the order in which the sides take turns.
    """
    loops, mine = {}, {}
    for task, call in calls.items():
        _, loops[task], mine[task] = calibrate(call)
    peer_out = peer.prepare(x)
    ours, theirs = {}, {}
    for task, (their_task, _) in TASKS.items():
        sides = [partial(measure, calls[task], loops[task]), partial(peer.measure, their_task)]
        ours[task], theirs[task] = interleave(sides, rounds, start=index)
    return Timed(ours, theirs, mine, peer_out)


def exact_sets(mine: dict[str, Any]) -> tuple[set[frozenset[str]], set[frozenset[str]]]:
    """xpg's exact AXps and CXps of one instance (checking its two CXp routes agree)."""
    result = mine["all"]
    cxps = {frozenset(c) for c in result.cxps}
    if {frozenset(c) for c in mine["cxps"]} != cxps:
        raise RuntimeError("tree_cxps and MARCO disagree on the CXps")  # pragma: no cover
    return {frozenset(a) for a in result.axps}, cxps


@dataclass
class Prepared:
    """A dataset ready to compare: the tree, its compiled graph, the tested instances."""

    ds: Dataset
    clf: DecisionTreeClassifier
    dg: Any
    features: list[Feature]
    rows: list[int]
    xs: list[list[float]]
    model_path: Path


def prepare_dataset(name: str, args: Any, folder: Path) -> Prepared:
    """Load and train once (the same tree in every run), and pickle it for PyXAI."""
    if name in SKLEARN_DATASETS:
        ds = sklearn_dataset(name, args.seed)
    else:
        ds = load_dataset(name, args.data_dir, seed=args.seed)
    limit = args.max_instances if args.max_instances is not None else (5 if args.quick else 100)
    rows = pick_rows(ds, limit, args.seed)
    clf, dg, features = train(ds, args.seed)
    model_path = folder / f"{ds.name}.pkl"
    model_path.write_bytes(pickle.dumps(clf))
    xs = [[float(v) for v in ds.X[r]] for r in rows]
    return Prepared(ds, clf, dg, features, rows, xs, model_path)


def run_dataset(p: Prepared, peer: Any, rounds: int, show: bool, desc: str) -> list[Timed]:
    """One run over a dataset's instances."""
    peer.load(p.model_path, p.ds.feature_names)
    return [
        time_instance(our_calls(p.dg, x), peer, x, i, rounds)
        for i, x in enumerate(progress(p.xs, desc, show))
    ]


def instance_rows(name: str, run: int, rows: list[int], timed: list[Timed]) -> list[dict]:
    """``pyxai_instances.csv`` rows of one run."""
    out = []
    for row, t in zip(rows, timed):
        r: dict[str, Any] = {"dataset": name, "run": run, "row": row}
        for task, (_, stem) in TASKS.items():
            r[f"ours_{stem}_s"] = round(t.ours[task], 7)
            r[f"pyxai_{stem}_s"] = round(t.theirs[task], 7)
            r[f"{stem}_speedup"] = round(ratio(t.theirs[task], t.ours[task]), 4)
        r["pyxai_setup_s"] = round(t.peer["setup_s"], 7)
        out.append(r)
    return out


def timing_summary(runs: Sequence[list[Timed]]) -> dict[str, Any]:
    """Per task: median ms per instance (median over runs), and the speed-up (PyXAI's time
    over xpg's, per instance; its median over instances) as min and median over runs."""
    out: dict[str, Any] = {"runs": len(runs)}
    for task, (_, stem) in TASKS.items():
        ours_key = "ours_all_ms" if task == "all" else f"ours_{stem}_ms"
        ours = [[t.ours[task] for t in run] for run in runs]
        theirs = [[t.theirs[task] for t in run] for run in runs]
        out[ours_key] = round(1000 * statistics.median(map(statistics.median, ours)), 4)
        out[f"pyxai_{stem}_ms"] = round(1000 * statistics.median(map(statistics.median, theirs)), 4)
        spread = over_runs([median_ratio(b, a) for a, b in zip(ours, theirs)])
        out[f"{stem}_speedup_min"] = round(spread["min"], 3)
        out[f"{stem}_speedup_median"] = round(spread["median"], 3)
    return out


def exactness(p: Prepared, timed: list[Timed], verify: int) -> dict[str, Any]:
    """PyXAI's feature sets against xpg's exact ones, summed over the dataset; SMT checks."""
    totals: dict[str, int] = {}
    to_verify: list[tuple[list[Any], str, frozenset[str]]] = []
    for x, t in zip(p.xs, timed):
        axps, cxps = exact_sets(t.mine)
        for kind, exact in (("axp", axps), ("cxp", cxps)):
            counts = classify_sets(t.peer[f"{kind}s"], exact)
            totals[f"xpg_{kind}s"] = totals.get(f"xpg_{kind}s", 0) + len(exact)
            for k, v in counts.items():
                key = f"pyxai_{kind}_reasons" if k == "reasons" else f"{kind}_{k}"
                totals[key] = totals.get(key, 0) + v
            to_verify += [(x, kind, s) for s in {frozenset(s) for s in t.peer[f"{kind}s"]}]
    verified, failures = verify_sets(p.clf, p.features, to_verify[:verify])
    return {
        **totals,
        "verified": verified,
        "verified_ok": verified - sum(failures.values()),
        "verified_failures": " ".join(f"{k}:{v}" for k, v in sorted(failures.items())),
    }


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
    """The per-dataset table: median times, time ratios over runs, exactness counts."""
    runs = rows[0]["runs"] if rows else 0
    lines = [
        "### xpg vs PyXAI 2.0.1 on depth-6 scikit-learn trees",
        "",
        "| dataset | inst. | #F | #N | 1 AXp xpg / PyXAI (ms) | speed-up min, med | all AXps+CXps "
        "xpg / all AXps PyXAI (ms) | speed-up min, med | all CXps xpg / PyXAI (ms) | speed-up "
        "min, med | AXps: xpg, PyXAI reasons (dup, exact, non-min, invalid, missed) | CXps: xpg, "
        "PyXAI reasons (dup, exact, non-min, invalid, missed) | SMT-checked (ok) |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        cells = [r["dataset"], r["instances"], r["features"], r["nodes"]]
        for ours, stem in (("ours_one_axp_ms", "one_axp"), ("ours_all_ms", "all_axps")) + (
            ("ours_all_cxps_ms", "all_cxps"),
        ):
            cells.append(f"{r[ours]:.3f} / {r[f'pyxai_{stem}_ms']:.3f}")
            cells.append(f"{r[f'{stem}_speedup_min']:.2f}, {r[f'{stem}_speedup_median']:.2f}")
        for kind in ("axp", "cxp"):
            counts = ", ".join(
                str(r[f"{kind}_{k}"]) for k in ("duplicates", "exact", "nonminimal", "invalid")
            )
            cells.append(
                f"{r[f'xpg_{kind}s']}, {r[f'pyxai_{kind}_reasons']} ({counts}, "
                f"{r[f'{kind}_missed']})"
            )
        cells.append(f"{r['verified']} ({r['verified_ok']})")
        lines.append("| " + " | ".join(str(c) for c in cells) + " |")
    lines += [
        "",
        f"Times: CPU time per call, median over instances (and over {runs} runs) of the best "
        "of 3 measurements, xpg and PyXAI measured in turn on each instance. Speed-up: PyXAI's "
        "time over xpg's per instance (1 or more: xpg at or below PyXAI's time), median over "
        f"instances; min and median over the {runs} runs. Duplicates: PyXAI reasons whose "
        "feature set another reason of the same instance already gave; exact: distinct "
        "feature sets that are AXps/CXps; non-min: strict supersets of one; invalid: "
        "neither; missed: exact explanations PyXAI does not give. PyXAI's explainer set-up "
        "per instance is not counted; xpg's times include building the explanation graph.",
    ]
    return "\n".join(lines) + "\n"


def open_peer() -> Any:
    """PyXAI's runner, started in its environment (created first if needed)."""
    if not is_ready(PEERS["pyxai"]):
        ensure_venv(PEERS["pyxai"])
    session = RunnerSession(PEERS["pyxai"])
    return PyxaiPeer(session), session


def main(argv: Sequence[str] | None = None) -> int:
    """Run the comparison (``argv`` as on the command line)."""
    parser = base_parser("python -m bench.pyxai_compare", "xpg vs PyXAI on depth-6 trees.")
    parser.add_argument("--verify", type=int, default=300, help="SMT checks per dataset")
    parser.add_argument("--runs", type=int, default=3, help="whole runs (default 3)")
    parser.add_argument("--rounds", type=int, default=ROUNDS, help="measurements per side")
    args = parser.parse_args(argv)
    known = [*SKLEARN_DATASETS, *NUMERIC_TABLE2]
    names = known if not args.datasets else [n.strip() for n in args.datasets.split(",")]
    unknown = [n for n in names if n not in known and n not in TABLE2]
    if unknown:
        raise SystemExit(f"--datasets: unknown {', '.join(unknown)}")
    summary, per_instance = [], []
    with tempfile.TemporaryDirectory(prefix="xpg-pyxai-") as tmp:
        prepared = [prepare_dataset(name, args, Path(tmp)) for name in names]
        runs: list[list[list[Timed]]] = []  # [run][dataset][instance]
        for run in range(args.runs):
            peer, session = open_peer()
            with session:
                runs.append(
                    [
                        run_dataset(p, peer, args.rounds, not args.no_progress, p.ds.name)
                        for p in prepared
                    ]
                )
            for p, timed in zip(prepared, runs[-1]):
                per_instance += instance_rows(p.ds.name, run, p.rows, timed)
                s = timing_summary([timed])
                print(
                    f"run {run + 1}/{args.runs} {p.ds.name}: median speed-up over PyXAI: "
                    f"one AXp {s['one_axp_speedup_median']:.2f}, all AXps "
                    f"{s['all_axps_speedup_median']:.2f}, "
                    f"all CXps {s['all_cxps_speedup_median']:.2f}",
                    file=sys.stderr,
                )
        for i, p in enumerate(prepared):
            summary.append(
                {
                    "dataset": p.ds.name,
                    "instances": len(p.rows),
                    "features": len(p.features),
                    "nodes": len(p.dg),
                    **timing_summary([run[i] for run in runs]),
                    **exactness(p, runs[0][i], args.verify),
                }
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
