"""Tree ensembles explained exactly: xpg's ``xpg.Explainer(model).explain(instance)``
against PyXAI 2.0.1 on scikit-learn random forests; xpg alone on extra trees and boosting.

Usage: ``xpg bench ensembles [--quick] [--runs R] [--datasets a,b] [--models m,n]
[--instances N] [--limit L] [--timeout S] [--verify N] [--no-peer] [--out DIR]``
(or ``python -m bench.ensembles``).

Models (:data:`MODELS`, ``--models``): scikit-learn ``RandomForestClassifier`` of 10, 50 and
100 trees of depth 3 to 8, ``ExtraTreesClassifier`` of 50 trees of depth 6 and
``GradientBoostingClassifier`` of 50 and 200 stages of depth 3 (one tree per class and stage
with more than two classes), fitted on an 80/20 split (seeded) of each dataset
(:data:`bench.pyxai_compare.NUMERIC_TABLE2`: ten Table 2 datasets with numeric features, four
binary and six multi-class, read by :mod:`bench.data`), every feature a real number for both
tools.  Per dataset, model and tested instance, xpg's three tasks, each started from the
instance (the explainer and its solver built in each call):

* one AXp: ``axp()``; PyXAI: ``sufficient_reason()`` (one subset-minimal set of
  binarised conditions, a MUS);
* one CXp: ``cxp()``; PyXAI: ``minimal_contrastive_reason(n=1)`` (a contrastive reason
  of *smallest* size, by MaxSAT: a harder query; two classes only);
* all AXps with a budget: ``enumerate(limit=L, timeout=S)`` (MARCO, AXps and CXps; the
  number of AXps and whether the list is complete), xpg alone: PyXAI has no enumeration of
  sufficient reasons for forests.  Its nearest, ``majoritary_reason(n=K)`` (implicants of the
  vote, not necessarily minimal), is made once per instance; its reasons are checked below.

Timing: the protocol of :mod:`bench.pyxai_compare` and :mod:`bench.runners.timing` (PyXAI
in a long-lived runner in its own environment, :mod:`bench.runners.pyxai_forest_runner`;
both sides measured in turn on each instance, ``--rounds`` rounds, rotating order, best kept;
per dataset the median over instances of PyXAI's time over xpg's, min and median over
``--runs`` whole runs), with one difference: the clock is
:func:`~bench.runners.timing.cpu_clock_with_children` on both sides, because PyXAI's forest
explainer runs its MUS and MaxSAT solvers as separate programs, whose CPU time
``process_time`` would not see.  A call whose first run takes a second or more is measured
once (that first run).

How PyXAI models a forest: each tree votes for the class of largest count at its leaf and
the forest predicts the most voted class (hard voting), where scikit-learn averages the
leaves' class distributions (soft voting).  The benchmark counts, on the test split, the
rows where the two disagree (computed here from the trees, and checked against PyXAI's own
``predict_instance`` on up to 2,000 rows), and compares the tools only on the tested
instances where PyXAI's class is scikit-learn's: elsewhere PyXAI explains another function.

Exactness (first run): every distinct feature set PyXAI gives (its sufficient reason, its
contrastive reason, its majoritary reasons, each mapped to the features its conditions use)
is classified with xpg's exact queries on scikit-learn's function: a seed that is not
sufficient (not contrastive) is *invalid*; deletion from it gives back the set itself
(*exact*: an AXp, or a CXp) or a strict subset (*non-minimal*); *duplicates* are reasons of
one instance mapping to a feature set already given.  Up to ``--verify`` AXps that xpg
reports per dataset and model (its one AXp of each instance first, then enumerated ones)
are checked by the SMT verifier (:class:`xpg.verify.verifier.Verifier`, z3) on the model.

Writes ``ensembles.csv`` (per dataset and model), ``ensembles_instances.csv`` (per run and
instance) and ``ensembles.md`` (the table and the target line: one AXp on the 100-tree
depth-6 forest at or below PyXAI's time for one sufficient reason on at least 8 of 10
datasets).

References
----------
Izza, Marques-Silva. On Explaining Random Forests with SAT. IJCAI 2021; Audemard, Bellart,
Bounia, Koriche, Lagniez, Marquis. Trading complexity for sparsity in random forest
explanations. AAAI 2022 (PyXAI's sufficient and majoritary reasons).
"""

from __future__ import annotations

import dataclasses
import math
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

from bench.data import Dataset, load_dataset
from bench.models import split_rows
from bench.peers import PEERS, RUNNERS_DIR, Peer, RunnerSession, ensure_venv, is_ready
from bench.pyxai_compare import NUMERIC_TABLE2
from bench.runners.timing import (
    ROUNDS,
    calibrate,
    cpu_clock_with_children,
    interleave,
    measure,
    median_ratio,
    over_runs,
    ratio,
)
from bench.tables import base_parser, csv_text, out_dir, pick_rows, progress, write_outputs
from xpg.core.features import Feature
from xpg.errors import InvalidSeedError
from xpg.explain.decision import Decision
from xpg.explain.engine import Explainer
from xpg.models.ensemble import TreeEnsemble
from xpg.models.ensemble_import import ensemble_from_sklearn
from xpg.verify.verifier import Verifier

CLOCK = cpu_clock_with_children
#: a first call at least this long (CPU seconds) is the measurement (as ``timing.cpu_time``)
LONG = 1.0
#: PyXAI's runner for forests: PyXAI's environment, another script
FOREST_PEER: Peer = dataclasses.replace(
    PEERS["pyxai"], runner=RUNNERS_DIR / "pyxai_forest_runner.py"
)
TARGET_MODEL = "rf100-d6"
QUICK_DATASETS = ("iris", "cancer")
QUICK_MODELS = ("rf10-d3", "rf100-d6", "gb50-d3")
#: rows of the test split on which PyXAI's own predictions are asked for
PREDICT_ROWS = 2000


@dataclass(frozen=True)
class ModelSpec:
    """A scikit-learn ensemble to fit: ``kind`` is ``rf``, ``et`` or ``gb``."""

    kind: str
    trees: int
    depth: int

    def estimator(self, seed: int) -> Any:
        """The unfitted scikit-learn estimator."""
        from sklearn.ensemble import (
            ExtraTreesClassifier,
            GradientBoostingClassifier,
            RandomForestClassifier,
        )

        if self.kind == "rf":
            return RandomForestClassifier(self.trees, max_depth=self.depth, random_state=seed)
        if self.kind == "et":
            return ExtraTreesClassifier(self.trees, max_depth=self.depth, random_state=seed)
        return GradientBoostingClassifier(
            n_estimators=self.trees, max_depth=self.depth, random_state=seed
        )


MODELS: dict[str, ModelSpec] = {
    "rf10-d3": ModelSpec("rf", 10, 3),
    "rf50-d5": ModelSpec("rf", 50, 5),
    "rf100-d6": ModelSpec("rf", 100, 6),
    "rf100-d8": ModelSpec("rf", 100, 8),
    "et50-d6": ModelSpec("et", 50, 6),
    "gb50-d3": ModelSpec("gb", 50, 3),
    "gb200-d3": ModelSpec("gb", 200, 3),
}

ROW_COLUMNS = [
    "dataset",
    "model",
    "trees",
    "depth",
    "features",
    "classes",
    "accuracy",
    "route",
    "instances",
    "runs",
    "hard_soft_disagree",
    "test_rows",
    "pyxai_predict_mismatch",
    "compared",
    "ours_one_axp_ms",
    "pyxai_one_sr_ms",
    "one_axp_speedup_min",
    "one_axp_speedup_median",
    "ours_one_cxp_ms",
    "pyxai_min_cxp_ms",
    "cxp_speedup_min",
    "cxp_speedup_median",
    "pyxai_cxp_timeouts",
    "ours_all_ms",
    "ours_axps_median",
    "ours_axps_max",
    "complete",
    "pyxai_majoritary_ms",
    "sr_reasons",
    "sr_exact",
    "sr_nonminimal",
    "sr_invalid",
    "sr_literals_median",
    "axp_size_median",
    "sr_size_median",
    "maj_reasons",
    "maj_duplicates",
    "maj_exact",
    "maj_nonminimal",
    "maj_invalid",
    "cxp_reasons",
    "cxp_exact",
    "cxp_nonminimal",
    "cxp_invalid",
    "verified",
    "verified_ok",
    "verified_unknown",
]


# --- models --------------------------------------------------------------------------------------


def hard_vote(clf: Any, X: np.ndarray) -> np.ndarray:
    """PyXAI's reading of a scikit-learn forest: each tree votes for the first class of
    largest count at its leaf, the forest for the first most voted class (class indices)."""
    X32 = np.asarray(X, dtype=np.float32)
    votes = np.zeros((len(X), len(clf.classes_)), dtype=np.int64)
    for est in clf.estimators_:
        leaves = est.apply(X32)
        votes[np.arange(len(X)), np.argmax(est.tree_.value[leaves, 0, :], axis=1)] += 1
    return np.argmax(votes, axis=1)


@dataclass
class Prepared:
    """One dataset and one model, fitted once for every run."""

    ds: Dataset
    name: str
    spec: ModelSpec
    clf: Any
    model: TreeEnsemble
    accuracy: float
    rows: list[int]
    xs: list[list[float]]
    sk_class: list[int]  # scikit-learn's class index of each tested instance
    test_X: np.ndarray
    model_path: Path | None  # the pickled forest for PyXAI (random forests only)

    @property
    def with_peer(self) -> bool:
        return self.model_path is not None


def prepare(ds: Dataset, name: str, args: Any, folder: Path) -> Prepared:
    """Fit ``MODELS[name]`` on the training split; pick the tested instances."""
    spec = MODELS[name]
    train_rows, test_rows = split_rows(len(ds.X), args.seed)
    y = np.asarray([v.item() if isinstance(v, np.generic) else v for v in ds.y.tolist()])
    clf = spec.estimator(args.seed).fit(ds.X[train_rows], y[train_rows])
    features = [Feature.real(f.name) for f in ds.features]
    model = ensemble_from_sklearn(clf, features)
    test_X = ds.X[test_rows]
    accuracy = 100.0 * float(np.mean(clf.predict(test_X) == y[test_rows]))
    if not (model.predict_batch(test_X) == clf.predict(test_X)).all():  # pragma: no cover
        raise RuntimeError(f"{ds.name} {name}: the ensemble does not predict as scikit-learn")
    limit = args.max_instances if args.max_instances is not None else (3 if args.quick else 20)
    rows = pick_rows(ds, limit, args.seed)
    xs = [[float(v) for v in ds.X[r]] for r in rows]
    classes = list(clf.classes_)
    sk_class = [classes.index(c) for c in clf.predict(ds.X[rows])]
    model_path = None
    if spec.kind == "rf" and not args.no_peer:
        model_path = folder / f"{ds.name}-{name}.pkl"
        model_path.write_bytes(pickle.dumps(clf))
    return Prepared(ds, name, spec, clf, model, accuracy, rows, xs, sk_class, test_X, model_path)


# --- xpg's side ----------------------------------------------------------------------------------


def our_calls(model: TreeEnsemble, x: list[float]) -> dict[str, Callable[[], Any]]:
    """xpg's one AXp and one CXp, each from the instance (explainer built in the call)."""

    def one() -> tuple[str, ...]:
        with Explainer(model).explain(x) as ex:
            return ex.axp()

    def cxp() -> tuple[str, ...] | None:
        with Explainer(model).explain(x) as ex:
            return ex.cxp()

    return {"one": one, "cxp": cxp}


def enumerate_all(model: TreeEnsemble, x: list[float], limit: int, timeout: float) -> Any:
    """All AXps (and CXps) within the budget, with its CPU time (explainer included); AXps
    looked for first, as before issue 32 (an ensemble's enumeration starts with CXps)."""

    def run() -> Any:
        with Explainer(model).explain(x) as ex:
            return ex.route, ex.enumerate(limit=limit, timeout=timeout, first="axp")

    seconds, _, (route, result) = calibrate(run, clock=CLOCK)
    return route, result, seconds


class PyxaiForest:
    """PyXAI's side: the forest runner, kept alive, one instance at a time."""

    def __init__(self, session: RunnerSession, time_limit: float, majoritary: int) -> None:
        self.session, self.time_limit, self.majoritary = session, time_limit, majoritary
        self.first: dict[str, float] = {}

    def load(self, model: Path, feature_names: list[str]) -> dict[str, Any]:
        return self.session.request("load", wait=600, model=str(model), feature_names=feature_names)

    def predict(self, rows: np.ndarray) -> list[int]:
        out = self.session.request("predict", wait=1200, rows=np.asarray(rows).tolist())
        return [int(c) for c in out["predictions"]]

    def prepare(self, x: list[float]) -> dict[str, Any]:
        wait = 3 * self.time_limit + 600
        out = self.session.request(
            "prepare",
            wait=wait,
            instance=x,
            time_limit=self.time_limit,
            majoritary=self.majoritary,
        )
        self.first = dict(out["first_s"])
        return out

    def measure(self, task: str) -> float:
        if self.first[task] >= LONG:
            return self.first[task]
        return float(self.session.request("measure", wait=600, task=task)["seconds"])


@dataclass
class Timed:
    """One instance in one run."""

    ours: dict[str, float]
    theirs: dict[str, float]
    mine: dict[str, Any]
    peer: dict[str, Any] | None


def _our_side(call: Callable[[], Any], first: float, loops: int) -> Callable[[], float]:
    if first >= LONG:
        return lambda: first
    return partial(measure, call, loops, clock=CLOCK)


def time_instance(
    calls: dict[str, Callable[[], Any]],
    peer: Any,
    peer_out: dict[str, Any] | None,
    index: int,
    rounds: int,
) -> Timed:
    """First calls, then per task ``rounds`` interleaved measurements with the peer (already
    prepared on the instance: ``peer_out``); xpg alone without a peer, or for a task the peer
    does not have."""
    firsts, loops, mine = {}, {}, {}
    for task, call in calls.items():
        firsts[task], loops[task], mine[task] = calibrate(call, clock=CLOCK)
    ours, theirs = {}, {}
    for task, call in calls.items():
        side = _our_side(call, firsts[task], loops[task])
        if peer is not None and peer_out is not None and task in peer_out["tasks"]:
            ours[task], theirs[task] = interleave(
                [side, partial(peer.measure, task)], rounds, start=index
            )
        else:
            ours[task] = min(side() for _ in range(rounds))
    return Timed(ours, theirs, mine, peer_out)


# --- exactness -----------------------------------------------------------------------------------


def classify_seed(ex: Decision, names: Sequence[str], kind: str) -> str:
    """``exact``, ``nonminimal`` or ``invalid``: a feature set against the model's function."""
    try:
        found = ex.axp(seed=list(names)) if kind == "axp" else ex.cxp(seed=list(names))
    except InvalidSeedError:
        return "invalid"
    return "exact" if set(found or ()) == set(names) else "nonminimal"


def classify_peer(model: TreeEnsemble, x: list[float], peer: dict[str, Any]) -> dict[str, int]:
    """PyXAI's reasons of one instance, classified (see the module's docstring)."""
    counts: dict[str, int] = {}

    def add(key: str, n: int = 1) -> None:
        counts[key] = counts.get(key, 0) + n

    with Explainer(model).explain(x) as ex:
        groups = [
            ("sr", "axp", [peer["one"]] if peer.get("one") is not None else []),
            ("maj", "axp", peer.get("majoritary") or []),
            ("cxp", "cxp", [peer["cxp"]] if peer.get("cxp") is not None else []),
        ]
        for stem, kind, sets in groups:
            distinct = {frozenset(s) for s in sets}
            add(f"{stem}_reasons", len(sets))
            add(f"{stem}_duplicates", len(sets) - len(distinct))
            for s in distinct:
                add(f"{stem}_{classify_seed(ex, sorted(s), kind)}")
    return counts


def verify_axps(
    model: TreeEnsemble,
    claims: list[tuple[list[float], tuple[str, ...]]],
    per_check: float,
    budget: float,
) -> dict[str, int]:
    """The SMT verifier on the claimed AXps, in order, until ``budget`` CPU seconds are
    spent: how many were checked, accepted, and left undecided (z3 stopped after
    ``per_check`` seconds on one of its questions)."""
    import z3
    from pysmt.exceptions import SolverReturnedUnknownResultError

    out = {"verified": 0, "verified_ok": 0, "verified_unknown": 0}
    if not claims:
        return out
    saved = z3.get_param("timeout")
    # z3's global timeout, set only while the verifier's own solver lives
    z3.set_param("timeout", max(1, int(1000 * per_check)))
    try:
        with Verifier(model) as v:
            start = CLOCK()
            for x, names in claims:
                if CLOCK() - start > budget:
                    break
                out["verified"] += 1
                try:
                    out["verified_ok"] += bool(v.verify_axp(x, list(names)).holds)
                except SolverReturnedUnknownResultError:
                    out["verified_unknown"] += 1
    finally:
        z3.set_param("timeout", saved)
    return out


# --- one run and the summaries -------------------------------------------------------------------


def run_model(p: Prepared, peer: Any, args: Any, show: bool) -> list[Timed]:
    """One run over a dataset and model's tested instances."""
    use_peer = peer if p.with_peer else None
    if use_peer is not None:
        use_peer.load(p.model_path, p.ds.feature_names)
    out = []
    for i, x in enumerate(progress(p.xs, f"{p.ds.name} {p.name}", show)):
        peer_out = None
        if use_peer is not None:
            # PyXAI explains its own (hard-vote) class: compared only where it is sklearn's
            peer_out = {**use_peer.prepare(x)}
            peer_out["agree"] = peer_out["prediction"] == p.sk_class[i]
        compare = peer_out is not None and peer_out["agree"]
        out.append(
            time_instance(
                our_calls(p.model, x), use_peer if compare else None, peer_out, i, args.rounds
            )
        )
    return out


def _ms(values: Sequence[float]) -> float | str:
    values = [v for v in values if math.isfinite(v)]
    return round(1000 * statistics.median(values), 3) if values else ""


def timing_summary(runs: Sequence[list[Timed]]) -> dict[str, Any]:
    """Median times (ms) and the speed-ups over the instances where both sides ran."""
    out: dict[str, Any] = {"runs": len(runs)}
    for task, ours_key, theirs_key, stem in (
        ("one", "ours_one_axp_ms", "pyxai_one_sr_ms", "one_axp"),
        ("cxp", "ours_one_cxp_ms", "pyxai_min_cxp_ms", "cxp"),
    ):
        out[ours_key] = _ms([t.ours[task] for run in runs for t in run])
        pairs = [[(t.ours[task], t.theirs[task]) for t in run if task in t.theirs] for run in runs]
        out[theirs_key] = _ms([b for run in pairs for _, b in run])
        if pairs and all(pairs):
            spread = over_runs([median_ratio([b for _, b in r], [a for a, _ in r]) for r in pairs])
            out[f"{stem}_speedup_min"] = round(spread["min"], 3)
            out[f"{stem}_speedup_median"] = round(spread["median"], 3)
        else:
            out[f"{stem}_speedup_min"] = out[f"{stem}_speedup_median"] = ""
    return out


def first_run_summary(p: Prepared, timed: list[Timed], args: Any, peer: Any) -> dict[str, Any]:
    """Enumeration, PyXAI's reasons, hard/soft voting, SMT checks (first run only)."""
    out: dict[str, Any] = {}
    routes, all_s, n_axps, complete = set(), [], [], 0
    claims: list[tuple[list[float], tuple[str, ...]]] = []
    for x, t in zip(p.xs, timed):
        claims.append((x, tuple(t.mine["one"])))
    extra: list[tuple[list[float], tuple[str, ...]]] = []
    for x in p.xs:
        route, result, seconds = enumerate_all(p.model, x, args.limit, args.timeout)
        routes.add(route)
        all_s.append(seconds)
        n_axps.append(len(result.axps))
        complete += bool(result.complete)
        extra += [(x, tuple(a)) for a in result.axps]
    claims = (claims + extra)[: args.verify]
    out.update(
        route=",".join(sorted(routes)),
        ours_all_ms=_ms(all_s),
        ours_axps_median=statistics.median(n_axps) if n_axps else "",
        ours_axps_max=max(n_axps) if n_axps else "",
        complete=f"{complete}/{len(p.xs)}",
        **verify_axps(p.model, claims, args.verify_timeout, args.verify_budget),
        axp_size_median=statistics.median(len(t.mine["one"]) for t in timed) if timed else "",
    )
    if p.spec.kind in ("rf", "et"):
        test_X = p.test_X
        hard = hard_vote(p.clf, test_X)
        soft = np.asarray([list(p.clf.classes_).index(c) for c in p.clf.predict(test_X)])
        out["hard_soft_disagree"] = int((hard != soft).sum())
        out["test_rows"] = len(test_X)
        if p.with_peer and peer is not None:
            theirs = peer.predict(test_X[:PREDICT_ROWS])
            out["pyxai_predict_mismatch"] = int((np.asarray(theirs) != hard[:PREDICT_ROWS]).sum())
    peers = [(x, t.peer) for x, t in zip(p.xs, timed) if t.peer is not None]
    if peers:
        compared = [(x, q) for x, q in peers if q["agree"]]
        out["compared"] = f"{len(compared)}/{len(peers)}"
        totals: dict[str, int] = {}
        for x, q in compared:
            for k, v in classify_peer(p.model, x, q).items():
                totals[k] = totals.get(k, 0) + v
        for col in ROW_COLUMNS:
            if col.startswith(("sr_", "maj_", "cxp_")) and col not in ("sr_literals_median",):
                if col.split("_", 1)[1] in (
                    "reasons",
                    "duplicates",
                    "exact",
                    "nonminimal",
                    "invalid",
                ):
                    out[col] = totals.get(col, 0)
        lits = [q["one_literals"] for _, q in compared if q.get("one_literals") is not None]
        sizes = [len(q["one"]) for _, q in compared if q.get("one") is not None]
        out["sr_literals_median"] = statistics.median(lits) if lits else ""
        out["sr_size_median"] = statistics.median(sizes) if sizes else ""
        maj = [q["majoritary_s"] for _, q in compared if q.get("majoritary_s") is not None]
        out["pyxai_majoritary_ms"] = _ms(maj)
        out["pyxai_cxp_timeouts"] = sum(
            1 for _, q in compared if "cxp" in q["tasks"] and q.get("cxp") is None
        )
    return out


def instance_rows(p: Prepared, run: int, timed: list[Timed]) -> list[dict[str, Any]]:
    """``ensembles_instances.csv`` rows of one run."""
    out = []
    for row, t in zip(p.rows, timed):
        r: dict[str, Any] = {"dataset": p.ds.name, "model": p.name, "run": run, "row": row}
        for task, stem in (("one", "one_axp"), ("cxp", "one_cxp")):
            r[f"ours_{stem}_s"] = round(t.ours[task], 7)
            theirs = t.theirs.get(task)
            r[f"pyxai_{stem}_s"] = "" if theirs is None else round(theirs, 7)
            r[f"{stem}_speedup"] = "" if theirs is None else round(ratio(theirs, t.ours[task]), 4)
        r["axp"] = " ".join(t.mine["one"])
        r["pyxai_agrees"] = "" if t.peer is None else t.peer["agree"]
        r["pyxai_sr"] = (
            "" if t.peer is None or t.peer.get("one") is None else " ".join(t.peer["one"])
        )
        out.append(r)
    return out


def target_line(rows: Sequence[dict[str, Any]]) -> str:
    """The issue's target on the 100-tree depth-6 forests."""
    target = [r for r in rows if r["model"] == TARGET_MODEL and r["one_axp_speedup_min"] != ""]
    if not target:
        return f"Target ({TARGET_MODEL}): not measured against PyXAI in this run."
    met = [r for r in target if float(r["one_axp_speedup_min"]) >= 1.0]
    ours = statistics.median(float(r["ours_one_axp_ms"]) for r in target)
    theirs = statistics.median(float(r["pyxai_one_sr_ms"]) for r in target)
    return (
        f"Target ({TARGET_MODEL}, one AXp at or below PyXAI's one sufficient reason, least "
        f"favourable run): met on {len(met)} of {len(target)} datasets "
        f"({', '.join(r['dataset'] for r in met) or 'none'}); medians over datasets of the "
        f"per-dataset medians: xpg {ours:.2f} ms, PyXAI {theirs:.2f} ms; median speed-up "
        f"{statistics.median(float(r['one_axp_speedup_min']) for r in target):.2f}."
    )


def _cell(r: dict[str, Any], *keys: str) -> str:
    return " / ".join("-" if r.get(k, "") == "" else str(r[k]) for k in keys)


def markdown(rows: Sequence[dict[str, Any]]) -> str:
    """The per-dataset-and-model table and the target line."""
    runs = rows[0]["runs"] if rows else 0
    head = [
        "dataset",
        "model",
        "#T",
        "#F",
        "#C",
        "acc %",
        "inst.",
        "hard≠soft (test)",
        "compared",
        "1 AXp xpg / PyXAI SR (ms)",
        "speed-up min, med",
        "1 CXp xpg / PyXAI min-CXp (ms)",
        "speed-up min, med",
        "all AXps xpg (ms)",
        "#AXps med, max",
        "complete",
        "PyXAI SR: exact, non-min, invalid",
        "|AXp| / |SR| features (SR literals)",
        "PyXAI majoritary: reasons, dup, exact, non-min, invalid",
        "PyXAI CXp: exact, non-min, invalid",
        "SMT ok / checked",
    ]
    lines = [
        "### Tree ensembles: xpg vs PyXAI 2.0.1",
        "",
        "| " + " | ".join(head) + " |",
        "|" + "---|" * len(head),
    ]
    for r in rows:
        cells = [
            r["dataset"],
            r["model"],
            r["trees"],
            r["features"],
            r["classes"],
            r["accuracy"],
            r["instances"],
            _cell(r, "hard_soft_disagree", "test_rows"),
            _cell(r, "compared"),
            _cell(r, "ours_one_axp_ms", "pyxai_one_sr_ms"),
            _cell(r, "one_axp_speedup_min", "one_axp_speedup_median").replace(" / ", ", "),
            _cell(r, "ours_one_cxp_ms", "pyxai_min_cxp_ms"),
            _cell(r, "cxp_speedup_min", "cxp_speedup_median").replace(" / ", ", "),
            _cell(r, "ours_all_ms"),
            _cell(r, "ours_axps_median", "ours_axps_max"),
            _cell(r, "complete"),
            _cell(r, "sr_exact", "sr_nonminimal", "sr_invalid").replace(" / ", ", "),
            _cell(r, "axp_size_median", "sr_size_median") + f" ({_cell(r, 'sr_literals_median')})",
            _cell(
                r, "maj_reasons", "maj_duplicates", "maj_exact", "maj_nonminimal", "maj_invalid"
            ).replace(" / ", ", "),
            _cell(r, "cxp_exact", "cxp_nonminimal", "cxp_invalid").replace(" / ", ", "),
            _cell(r, "verified_ok", "verified")
            + (
                f" ({r['verified_unknown']} undecided)"
                if str(r.get("verified_unknown", "")) not in ("", "0")
                else ""
            ),
        ]
        lines.append("| " + " | ".join(str(c) for c in cells) + " |")
    lines += [
        "",
        f"Times: CPU time per call (process and finished child processes, both sides), median "
        f"over instances and {runs} run(s) of the best of the rounds, xpg and PyXAI measured in "
        "turn on each instance; xpg's calls build the explainer, PyXAI's set-up is not counted. "
        "Speed-up: PyXAI's time over xpg's per instance, median over the compared instances; "
        "min and median over runs. PyXAI's contrastive reason is one of minimum size "
        "(MaxSAT), two classes only. hard≠soft: test rows where PyXAI's majority vote differs "
        "from scikit-learn's soft vote; only tested instances where PyXAI's class is "
        "scikit-learn's are compared. PyXAI's reasons are mapped to the features their "
        "conditions use and checked with xpg's exact queries on scikit-learn's function.",
        "",
        target_line(rows),
    ]
    return "\n".join(lines) + "\n"


def open_peer(args: Any) -> tuple[PyxaiForest, RunnerSession]:
    """PyXAI's forest runner in its environment (created first if needed)."""
    if not is_ready(FOREST_PEER):
        ensure_venv(FOREST_PEER)
    session = RunnerSession(FOREST_PEER)
    return PyxaiForest(session, args.pyxai_time_limit, args.majoritary), session


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark (``argv`` as on the command line)."""
    parser = base_parser("python -m bench.ensembles", "Tree ensembles: xpg vs PyXAI.")
    parser.add_argument(
        "--instances",
        dest="max_instances",
        type=int,
        help="tested instances per dataset (default 20; 3 with --quick)",
    )
    parser.add_argument("--models", help=f"comma-separated, of {', '.join(MODELS)} (default all)")
    parser.add_argument("--runs", type=int, default=3, help="whole runs (default 3)")
    parser.add_argument("--rounds", type=int, default=ROUNDS, help="measurements per side")
    parser.add_argument("--limit", type=int, default=100, help="AXps+CXps per enumeration")
    parser.add_argument("--timeout", type=float, default=5.0, help="seconds per enumeration")
    parser.add_argument(
        "--verify", type=int, default=20, help="AXps SMT-checked per dataset and model (default 20)"
    )
    parser.add_argument(
        "--verify-timeout", type=float, default=10.0, help="z3's limit per question (s)"
    )
    parser.add_argument(
        "--verify-budget",
        type=float,
        default=60.0,
        help="CPU seconds of SMT checks per dataset and model (default 60)",
    )
    parser.add_argument(
        "--pyxai-time-limit", type=float, default=10.0, help="PyXAI's time limit per call (s)"
    )
    parser.add_argument(
        "--majoritary", type=int, default=10, help="majoritary reasons asked of PyXAI per instance"
    )
    parser.add_argument("--no-peer", action="store_true", help="xpg alone (no PyXAI)")
    args = parser.parse_args(argv)
    names = list(QUICK_DATASETS if args.quick else NUMERIC_TABLE2)
    if args.datasets:
        names = [n.strip() for n in args.datasets.split(",") if n.strip()]
    models = list(QUICK_MODELS if args.quick else MODELS)
    if args.models:
        models = [m.strip() for m in args.models.split(",") if m.strip()]
    unknown = [m for m in models if m not in MODELS]
    if unknown:
        parser.error(
            f"--models: unknown {', '.join(unknown)}; expected some of {', '.join(MODELS)}"
        )
    if args.quick and args.runs == 3:
        args.runs = 1
    summary, per_instance = [], []
    with tempfile.TemporaryDirectory(prefix="xpg-ensembles-") as tmp:
        prepared = []
        for name in names:
            ds = load_dataset(name, args.data_dir, seed=args.seed)
            prepared += [prepare(ds, m, args, Path(tmp)) for m in models]
        need_peer = any(p.with_peer for p in prepared)
        runs: list[list[list[Timed]]] = []  # [run][prepared][instance]
        firsts: list[dict[str, Any]] = []
        for run in range(args.runs):
            peer, session = open_peer(args) if need_peer else (None, None)
            if peer is not None and run > 0:
                peer.majoritary = 0  # PyXAI's majoritary reasons are checked in the first run
            try:
                this = []
                for p in prepared:
                    timed = run_model(p, peer, args, not args.no_progress)
                    this.append(timed)
                    s = timing_summary([timed])
                    # the times first: the exactness checks below can take long
                    print(
                        f"run {run + 1}/{args.runs} {p.ds.name} {p.name}: one AXp "
                        f"{s['ours_one_axp_ms']} ms (PyXAI {s['pyxai_one_sr_ms'] or '-'} ms), "
                        f"one CXp {s['ours_one_cxp_ms']} ms (PyXAI {s['pyxai_min_cxp_ms'] or '-'}"
                        " ms)",
                        file=sys.stderr,
                    )
                    if run == 0:
                        firsts.append(first_run_summary(p, timed, args, peer))
                    per_instance += instance_rows(p, run, timed)
                runs.append(this)
            finally:
                if session is not None:
                    session.close()
        for i, p in enumerate(prepared):
            summary.append(
                {
                    "dataset": p.ds.name,
                    "model": p.name,
                    "trees": len(p.model.trees),
                    "depth": p.spec.depth,
                    "features": len(p.model.features),
                    "classes": len(p.model.classes),
                    "accuracy": round(p.accuracy, 1),
                    "instances": len(p.rows),
                    **timing_summary([run[i] for run in runs]),
                    **firsts[i],
                }
            )
    md = markdown(summary)
    paths = write_outputs(
        out_dir(args.out),
        "ensembles",
        {
            ".csv": csv_text(
                [{c: r.get(c, "") for c in ROW_COLUMNS} for r in summary], ROW_COLUMNS
            ),
            "_instances.csv": csv_text(per_instance, list(per_instance[0]) if per_instance else []),
            ".md": md,
        },
    )
    print(md)
    for path in paths:
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
