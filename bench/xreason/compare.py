"""xpg against XReason on the AAAI-22 boosted-tree benchmark, side by side in one run.

Usage: ``xpg bench xreason [--datasets a,b] [--instances K] [--repeat R] [--verify N]
[--commands N] [--out DIR]`` (or ``python -m bench.xreason.compare``).

On ``../shared/benchmarks/xreason-aaai22/`` (``--bench-dir``), for each dataset and each
instance of ``instances/NAME.csv`` (the first ``K``), one AXp by each tool:

* xpg: the model ``models/NAME.json`` read by ``xpg.import_model`` and
  ``xpg.Explainer(model)`` made once per dataset (not timed, like XReason's loading and
  encoding); timed, ``explainer.explain(row).axp()``: CPU time (``time.process_time``) and
  wall time.
* XReason (``../shared/peers/xreason``, ``--xreason-dir``), its MaxSAT route
  ``-s g3 -z -X abd -R lin -u -N 1 -e mx -v`` on ``xreason-models/NAME_*.mod.pkl``, in its own
  environment (``bench/.venvs/xreason``, made once from its README's recipe,
  :data:`xpg.learn.external_env.XREASON_ENV`), one process per dataset
  (:mod:`bench.xreason.runner`: a fresh explainer per instance, as a new process would
  have); timed, its ``rtime`` (user CPU time, model loading excluded; unrounded), and the
  wall time of the call.

The two take turns on each instance, XReason first on even instances, xpg first on odd ones;
with ``--repeat R`` each explains the instance R times, still in turns, and each tool's least
time is kept (both sides timed the same way: on a loaded machine one timing is mostly noise).
On the first ``--commands`` instances, the whole commands are timed too (wall clock of the
process, loading included): ``xpg axp MODEL.json --instance ... --json`` on the model as
xpg's JSON (written to ``DIR/xreason-models/``) and XReason's own ``xreason.py ... -x
VALUES`` (whose ``-v`` output is parsed, :mod:`bench.xreason.parse`, and whose AXp must be
the runner's).

Checks: every AXp of both tools is checked by xpg's oracle for the model (sufficient: the
class cannot change with the AXp's features fixed; subset-minimal: it can once any one of
them is freed), on a fresh decision of the instance; XReason's class must be xpg's. The
first ``--verify`` AXps of xpg per dataset are also checked by ``xpg verify`` (z3, against the
model). The paper's own times (``xreason-logs/mx/NAME.log``, the same instances in the same
order) are shown beside, as context only: another machine, 2021.

Writes ``xreason.csv`` (per dataset), ``xreason_instances.csv`` (per instance) and
``xreason.md`` (the table, printed).

References
----------
Ignatiev, Izza, Stuckey, Marques-Silva. Using MaxSAT for Efficient Explanations of Tree
Ensembles. AAAI 2022.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from bench.data import DataError
from bench.peers import Peer, PeerError, RunnerSession, ensure_venv
from bench.tables import REPO_ROOT, RESULTS_DIR, csv_text, out_dir, progress, write_outputs
from bench.xreason.parse import LogEntry, feature_indices, parse_log, parse_verbose
from xpg.learn.datasets import SHARED_ENV
from xpg.learn.external_env import XREASON_ENV, clean_environ

#: XReason's MaxSAT route as the paper ran it (``mx``), one subset-minimal AXp, verbose
XREASON_OPTIONS = ("-s", "g3", "-z", "-X", "abd", "-R", "lin", "-u", "-N", "1", "-e", "mx", "-v")
#: XReason in its own environment, served by this folder's runner
PEER = Peer(
    "xreason",
    XREASON_ENV.requirements,
    XREASON_ENV.probe,
    Path(__file__).resolve().parent / "runner.py",
)
#: the target: xpg's median and max time per AXp at most this fraction of XReason's
TARGET = 0.1

INSTANCE_COLUMNS = [
    "dataset",
    "row",
    "first",
    "prediction",
    "xpg_axp",
    "xpg_size",
    "xpg_cpu_s",
    "xpg_wall_s",
    "xpg_sufficient",
    "xpg_minimal",
    "xpg_verify",
    "xpg_command_s",
    "xreason_prediction",
    "xreason_axp",
    "xreason_size",
    "xreason_rtime_s",
    "xreason_calls",
    "xreason_wall_s",
    "xreason_sufficient",
    "xreason_minimal",
    "xreason_command_s",
    "xreason_command_rtime_s",
    "xreason_command_same",
    "paper_s",
    "paper_size",
    "error",
]

SUMMARY_COLUMNS = [
    "dataset",
    "instances",
    "xpg_mean_s",
    "xpg_median_s",
    "xpg_p90_s",
    "xpg_max_s",
    "xpg_wall_median_s",
    "xreason_mean_s",
    "xreason_median_s",
    "xreason_p90_s",
    "xreason_max_s",
    "xreason_wall_median_s",
    "median_ratio",
    "max_ratio",
    "xpg_size_mean",
    "xreason_size_mean",
    "xpg_command_mean_s",
    "xreason_command_mean_s",
    "paper_mean_s",
    "paper_max_s",
    "xpg_checked",
    "xpg_wrong",
    "xpg_verified",
    "xpg_verified_ok",
    "xreason_checked",
    "xreason_wrong",
    "prediction_mismatch",
    "errors",
]


class XReasonBenchError(DataError):
    """The benchmark folder or XReason's folder is missing something the bench needs."""


def shared_dir() -> Path:
    """``$XPG_SHARED_DIR``, else ``../shared`` beside the checkout."""
    shared = os.environ.get(SHARED_ENV)
    return Path(shared) if shared else REPO_ROOT.parent / "shared"


@dataclass(frozen=True)
class BenchFiles:
    """The files of one dataset of the benchmark folder."""

    name: str
    model: Path
    instances: Path
    pickle: Path
    log: Path

    @classmethod
    def find(cls, folder: Path, name: str) -> BenchFiles:
        """The files of ``name`` in ``folder``.

        Raises
        ------
        XReasonBenchError
            One is missing (the message names it).
        """
        pickles = sorted((folder / "xreason-models").glob(f"{name}_nbestim_*.mod.pkl"))
        files = cls(
            name,
            folder / "models" / f"{name}.json",
            folder / "instances" / f"{name}.csv",
            pickles[0] if pickles else folder / "xreason-models" / f"{name}_*.mod.pkl",
            folder / "xreason-logs" / "mx" / f"{name}.log",
        )
        for path in (files.model, files.instances, files.pickle, files.log):
            if not path.is_file():
                raise XReasonBenchError(f"{name}: expected {path} in the benchmark folder")
        return files


def dataset_names(folder: Path) -> list[str]:
    """The datasets of the benchmark folder: ``models/*.json``, sorted."""
    if not (folder / "models").is_dir():
        raise XReasonBenchError(
            f"no benchmark folder at {folder}: expected models/, instances/, xreason-models/ "
            f"and xreason-logs/ (pass --bench-dir or set {SHARED_ENV})"
        )
    return sorted(p.stem for p in (folder / "models").glob("*.json"))


def read_instances(path: Path, limit: int | None = None) -> tuple[list[str], list[list[float]]]:
    """The header and the first ``limit`` rows (floats) of an instances file."""
    with open(path, newline="", encoding="utf-8") as fh:
        reader = csv.reader(fh)
        header = next(reader)
        rows: list[list[float]] = []
        for line in reader:
            if limit is not None and len(rows) >= limit:
                break
            rows.append([float(v) for v in line])
    return header, rows


@dataclass
class Check:
    """What xpg's oracle says of a feature set for one instance."""

    sufficient: bool
    minimal: bool

    @property
    def ok(self) -> bool:
        """Sufficient and subset-minimal: an AXp."""
        return self.sufficient and self.minimal


def check_axp(explainer: Any, row: Sequence[float], features: Sequence[str]) -> Check:
    """Is ``features`` an AXp of ``row``, by xpg's oracle on a fresh decision?

    Examples
    --------
    >>> import numpy as np, xpg
    >>> from xpg.core.features import Feature
    >>> from xpg.models.ensemble import BoostedTrees
    >>> from xpg.models.ensemble_tree import EnsembleTree
    >>> t = EnsembleTree(np.array([0, -1, -1]), np.array([0.5, 0, 0]), np.array([1, -1, -1]),
    ...                  np.array([2, -1, -1]), np.array([[0.0], [-1.0], [1.0]]))
    >>> model = BoostedTrees([Feature.real("x"), Feature.real("y")], [0, 1], [t], [0.0], 1.0)
    >>> e = xpg.Explainer(model)
    >>> check_axp(e, [1.0, 0.0], ["x"]).ok, check_axp(e, [1.0, 0.0], []).sufficient
    (True, False)
    """
    with explainer.explain(list(row)) as decision:
        oracle = decision.oracle
        fixed = [oracle.index(f) for f in features]
        sufficient = oracle.check(fixed) is None
        minimal = sufficient and all(
            oracle.check([v for v in fixed if v != u]) is not None for u in fixed
        )
    return Check(sufficient, minimal)


def xpg_axp(explainer: Any, row: Sequence[float]) -> tuple[tuple[str, ...], Any, float, float]:
    """xpg's one AXp of ``row``, timed: ``(AXp, class, CPU seconds, wall seconds)``."""
    cpu, wall = time.process_time(), time.perf_counter()
    with explainer.explain(list(row)) as decision:
        axp = decision.axp()
        prediction = decision.prediction
    return tuple(axp), prediction, time.process_time() - cpu, time.perf_counter() - wall


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (linear interpolation, numpy's default).

    >>> percentile([1.0, 2.0, 3.0, 4.0], 90)
    3.7
    """
    return float(np.percentile(np.asarray(values, dtype=float), q))


def _xpg_command() -> list[str]:
    script = Path(sys.executable).parent / "xpg"
    return [str(script)] if script.is_file() else [sys.executable, "-m", "xpg"]


def instance_json(features: Sequence[str], row: Sequence[float]) -> str:
    """A row as the JSON object ``xpg axp``/``xpg verify --instance`` take.

    >>> instance_json(["f0", "f1"], [1.0, 2.5])
    '{"f0": 1.0, "f1": 2.5}'
    """
    return json.dumps(dict(zip(features, (float(v) for v in row), strict=True)))


def xpg_verify(
    model_file: Path,
    features: Sequence[str],
    row: Sequence[float],
    axp: Sequence[str],
    timeout: float,
) -> str:
    """``xpg verify --axp`` from the shell: ``"ok"``, ``"fails"`` or ``"timeout"``."""
    proc = subprocess.run(
        [
            *_xpg_command(),
            "verify",
            str(model_file),
            "--instance",
            instance_json(features, row),
            "--axp",
            ",".join(axp),
            "--timeout",
            str(timeout),
            "--json",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    verdicts = {0: "ok", 1: "fails", 3: "timeout"}
    if proc.returncode not in verdicts:
        raise PeerError(f"xpg verify failed (exit {proc.returncode}): {proc.stderr.strip()[-300:]}")
    return verdicts[proc.returncode]


def xpg_command_seconds(
    model_file: Path, features: Sequence[str], row: Sequence[float]
) -> tuple[float, tuple[str, ...]]:
    """Wall seconds of ``xpg axp MODEL --instance ... --json`` (the whole command) and its AXp."""
    start = time.perf_counter()
    proc = subprocess.run(
        [
            *_xpg_command(),
            "axp",
            str(model_file),
            "--instance",
            instance_json(features, row),
            "--json",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        raise PeerError(f"xpg axp failed (exit {proc.returncode}): {proc.stderr.strip()[-300:]}")
    return seconds, tuple(json.loads(proc.stdout)["features"])


def xreason_command(
    src: Path, pickle: Path, row: Sequence[float], timeout: float
) -> tuple[float, str]:
    """Wall seconds and ``-v`` output of XReason's own command on one instance."""
    values = ",".join(repr(float(v)) for v in row)
    with tempfile.TemporaryDirectory(prefix="xpg-xreason-") as tmp:
        start = time.perf_counter()
        proc = subprocess.run(
            [
                str(PEER.python),
                str(src / "xreason.py"),
                *XREASON_OPTIONS,
                "-x",
                values,
                str(pickle),
            ],
            capture_output=True,
            text=True,
            check=False,
            cwd=tmp,
            env=clean_environ(),
            timeout=timeout,
        )
        seconds = time.perf_counter() - start
    if proc.returncode != 0:
        raise PeerError(f"xreason.py failed (exit {proc.returncode}): {proc.stderr.strip()[-300:]}")
    return seconds, proc.stdout


@dataclass
class Options:
    """What one run does (the parsed command line)."""

    bench_dir: Path
    xreason_dir: Path
    out: Path
    instances: int | None = None
    verify: int = 10
    commands: int = 3
    verify_timeout: float = 60.0
    timeout: float = 600.0
    repeat: int = 1
    show_progress: bool = True
    import_model: Callable[[Path], Any] | None = None
    log: Any = field(default=sys.stderr)


def run_dataset(files: BenchFiles, session: RunnerSession, opts: Options) -> list[dict[str, Any]]:
    """Both tools on every chosen instance of one dataset; one record per instance."""
    import xpg

    importer = opts.import_model or xpg.import_model
    model = importer(files.model)
    names = [f.name for f in model.features]
    model_file = opts.out / "xreason-models" / f"{files.name}.json"
    model_file.parent.mkdir(parents=True, exist_ok=True)
    xpg.save_model(model, model_file)
    explainer = xpg.Explainer(model)
    _, rows = read_instances(files.instances, opts.instances)
    log = parse_log(files.log.read_text(encoding="utf-8"), str(files.log))
    src = opts.xreason_dir / "src"
    loaded = session.request(
        "load",
        wait=opts.timeout,
        src=str(src),
        model=str(files.pickle),
        options=list(XREASON_OPTIONS),
    )
    their_names = loaded["features"]
    records = []
    for i, row in enumerate(progress(rows, files.name, opts.show_progress)):
        rec: dict[str, Any] = {"dataset": files.name, "row": i}
        rec["first"] = "xreason" if i % 2 == 0 else "xpg"
        answer: dict[str, Any] | None = None
        errors: list[str] = []
        # each tool opts.repeat times, in turns; the best (least) time of each is kept
        for rep in range(opts.repeat):
            turns = ("xreason", "xpg") if (i + rep) % 2 == 0 else ("xpg", "xreason")
            for side in turns:
                if any(e.startswith(side) for e in errors):
                    continue
                try:
                    if side == "xpg":
                        axp, prediction, cpu, wall = xpg_axp(explainer, row)
                        if rep and " ".join(axp) != rec["xpg_axp"]:
                            raise PeerError(f"another AXp on repeat {rep}: {axp}")
                        rec.update(
                            prediction=prediction,
                            xpg_axp=" ".join(axp),
                            xpg_size=len(axp),
                            xpg_cpu_s=min(cpu, rec.get("xpg_cpu_s", cpu)),
                            xpg_wall_s=min(wall, rec.get("xpg_wall_s", wall)),
                        )
                    else:
                        got = session.request("explain", wait=opts.timeout, x=row)
                        if answer is None or got["rtime"] < answer["rtime"]:
                            answer = got
                except Exception as err:  # reported with the instance; the run goes on
                    errors.append(f"{side}: {type(err).__name__}: {err}")
        if answer is not None:
            try:
                _xreason_fields(rec, answer, their_names, names, row)
            except Exception as err:
                errors.append(f"xreason: {type(err).__name__}: {err}")
                answer = None
        if "xpg_axp" in rec:
            got = check_axp(explainer, row, rec["xpg_axp"].split())
            rec.update(xpg_sufficient=got.sufficient, xpg_minimal=got.minimal)
            if i < opts.verify:
                rec["xpg_verify"] = xpg_verify(
                    model_file, names, row, rec["xpg_axp"].split(), opts.verify_timeout
                )
        if answer is not None and "prediction" in rec:
            if rec["xreason_prediction"] == str(rec["prediction"]):
                theirs = [names[j] for j in answer["axp"]]
                got = check_axp(explainer, row, theirs)
                rec.update(xreason_sufficient=got.sufficient, xreason_minimal=got.minimal)
        if i < opts.commands:
            try:
                _commands(rec, files, opts, model_file, names, row, their_names, answer)
            except Exception as err:
                errors.append(f"commands: {type(err).__name__}: {err}")
        if i < len(log):
            rec.update(_paper(log[i], row))
        rec["error"] = " | ".join(errors)
        records.append(rec)
    return records


def _xreason_fields(
    rec: dict[str, Any],
    answer: dict[str, Any],
    their_names: list[str],
    names: list[str],
    row: Sequence[float],
) -> None:
    parsed = parse_verbose(answer["text"])
    cols = feature_indices(parsed.features, their_names)
    if sorted(cols) != sorted(answer["axp"]):
        raise PeerError(f"XReason's text names columns {cols}, its explainer {answer['axp']}")
    for j, value in zip(cols, parsed.values, strict=True):
        if value is not None and value != row[j]:
            raise PeerError(f"XReason explained f{j} = {value}, the instance has {row[j]}")
    rec.update(
        xreason_prediction=answer["prediction"],
        xreason_axp=" ".join(names[j] for j in sorted(cols)),
        xreason_size=len(cols),
        xreason_rtime_s=answer["rtime"],
        xreason_calls=parsed.calls,
        xreason_wall_s=answer["wall"],
    )


def _commands(
    rec: dict[str, Any],
    files: BenchFiles,
    opts: Options,
    model_file: Path,
    names: list[str],
    row: Sequence[float],
    their_names: list[str],
    answer: dict[str, Any] | None,
) -> None:
    seconds, _ = xpg_command_seconds(model_file, names, row)
    rec["xpg_command_s"] = seconds
    seconds, text = xreason_command(opts.xreason_dir / "src", files.pickle, row, opts.timeout)
    parsed = parse_verbose(text)
    rec["xreason_command_s"] = seconds
    rec["xreason_command_rtime_s"] = parsed.rtime
    if answer is not None:
        rec["xreason_command_same"] = sorted(
            feature_indices(parsed.features, their_names)
        ) == sorted(answer["axp"])


def _paper(entry: LogEntry, row: Sequence[float]) -> dict[str, Any]:
    if not np.allclose(entry.instance, row, rtol=0, atol=1e-9):
        return {}
    return {"paper_s": entry.seconds, "paper_size": entry.size}


def _mean(xs: Sequence[float]) -> float | str:
    return statistics.fmean(xs) if xs else ""


def summarize(
    name: str, records: Sequence[dict[str, Any]], log: Sequence[LogEntry]
) -> dict[str, Any]:
    """The per-dataset line: times (s), ratios, sizes, checks."""

    def col(key: str, of: Sequence[dict[str, Any]] = records) -> list[float]:
        return [float(r[key]) for r in of if r.get(key, "") != ""]

    ours, theirs = col("xpg_cpu_s"), col("xreason_rtime_s")
    out: dict[str, Any] = {"dataset": name, "instances": len(records)}
    for who, xs in (("xpg", ours), ("xreason", theirs)):
        out[f"{who}_mean_s"] = _mean(xs)
        out[f"{who}_median_s"] = statistics.median(xs) if xs else ""
        out[f"{who}_p90_s"] = percentile(xs, 90) if xs else ""
        out[f"{who}_max_s"] = max(xs) if xs else ""
    out["xpg_wall_median_s"] = statistics.median(col("xpg_wall_s")) if ours else ""
    out["xreason_wall_median_s"] = statistics.median(col("xreason_wall_s")) if theirs else ""
    both = ours and theirs
    out["median_ratio"] = out["xreason_median_s"] / out["xpg_median_s"] if both else ""
    out["max_ratio"] = out["xreason_max_s"] / out["xpg_max_s"] if both else ""
    out["xpg_size_mean"] = _mean(col("xpg_size"))
    out["xreason_size_mean"] = _mean(col("xreason_size"))
    out["xpg_command_mean_s"] = _mean(col("xpg_command_s"))
    out["xreason_command_mean_s"] = _mean(col("xreason_command_s"))
    chosen = log[: len(records)]
    out["paper_mean_s"] = _mean([e.seconds for e in chosen])
    out["paper_max_s"] = max((e.seconds for e in chosen), default="")
    checked = [r for r in records if "xpg_sufficient" in r]
    out["xpg_checked"] = len(checked)
    out["xpg_wrong"] = sum(not (r["xpg_sufficient"] and r["xpg_minimal"]) for r in checked)
    verified = [r for r in records if r.get("xpg_verify")]
    out["xpg_verified"] = len(verified)
    out["xpg_verified_ok"] = sum(r["xpg_verify"] == "ok" for r in verified)
    theirs_checked = [r for r in records if "xreason_sufficient" in r]
    out["xreason_checked"] = len(theirs_checked)
    out["xreason_wrong"] = sum(
        not (r["xreason_sufficient"] and r["xreason_minimal"]) for r in theirs_checked
    )
    out["prediction_mismatch"] = sum(
        1
        for r in records
        if r.get("xreason_prediction", "") != ""
        and "prediction" in r
        and r["xreason_prediction"] != str(r["prediction"])
    )
    out["errors"] = sum(1 for r in records if r.get("error"))
    return out


def _fmt(value: Any, scale: float = 1.0, digits: int = 3) -> str:
    if value == "" or value is None:
        return "-"
    return f"{float(value) * scale:.{digits}f}"


def markdown(
    summary: Sequence[dict[str, Any]], records: Sequence[dict[str, Any]], command: str
) -> str:
    """The table, the target line and the wrong answers, if any."""
    head = [
        "dataset",
        "n",
        "xpg mean / med / p90 / max (ms)",
        "XReason mean / med / p90 / max (s)",
        "speed-up med / max",
        "AXp size xpg / XR",
        "command xpg / XR (s)",
        "paper mean / max (s)",
        "xpg checked / wrong / verified",
        "XR checked / wrong",
    ]
    lines = [f"`{command}`", "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    met = 0
    for s in summary:
        ours = " / ".join(_fmt(s[f"xpg_{k}_s"], 1000, 1) for k in ("mean", "median", "p90", "max"))
        theirs = " / ".join(_fmt(s[f"xreason_{k}_s"]) for k in ("mean", "median", "p90", "max"))
        ok = s["median_ratio"] != "" and min(s["median_ratio"], s["max_ratio"]) >= 1 / TARGET
        met += ok
        lines.append(
            "| "
            + " | ".join(
                [
                    s["dataset"],
                    str(s["instances"]),
                    ours,
                    theirs,
                    f"{_fmt(s['median_ratio'], digits=1)} / {_fmt(s['max_ratio'], digits=1)}",
                    f"{_fmt(s['xpg_size_mean'], digits=1)} / "
                    f"{_fmt(s['xreason_size_mean'], digits=1)}",
                    f"{_fmt(s['xpg_command_mean_s'], digits=2)} / "
                    f"{_fmt(s['xreason_command_mean_s'], digits=2)}",
                    f"{_fmt(s['paper_mean_s'], digits=2)} / {_fmt(s['paper_max_s'], digits=2)}",
                    f"{s['xpg_checked']} / {s['xpg_wrong']} / {s['xpg_verified_ok']} of "
                    f"{s['xpg_verified']}",
                    f"{s['xreason_checked']} / {s['xreason_wrong']}"
                    + (
                        f" ({s['prediction_mismatch']} other class)"
                        if s["prediction_mismatch"]
                        else ""
                    ),
                ]
            )
            + " |"
        )
    lines += [
        "",
        "Times per AXp, model loading excluded: xpg's CPU time of `explain(row).axp()`, "
        "XReason's `rtime` (user CPU time, unrounded), each the best of the run's `--repeat` "
        "turns; speed-up = XReason's / xpg's median (max). Commands: wall clock of the "
        "whole process on the first instances. Paper: the AAAI-22 logs, another machine "
        "(context only).",
        f"Target (xpg's median and max at most 1/10 of XReason's): met on {met} of "
        f"{len(summary)} datasets.",
    ]
    wrong = [
        r
        for r in records
        if r.get("xreason_sufficient") is False
        or r.get("xreason_minimal") is False
        or r.get("xpg_sufficient") is False
        or r.get("xpg_minimal") is False
        or r.get("error")
    ]
    if wrong:
        lines += ["", "Wrong answers and errors:", ""]
        for r in wrong:
            what = []
            for who in ("xpg", "xreason"):
                if r.get(f"{who}_sufficient") is False:
                    what.append(f"{who}'s AXp {{{r[f'{who}_axp']}}} is not sufficient")
                elif r.get(f"{who}_minimal") is False:
                    what.append(f"{who}'s AXp {{{r[f'{who}_axp']}}} is not subset-minimal")
            if r.get("error"):
                what.append(r["error"])
            lines.append(f"- {r['dataset']}, instance {r['row']}: {'; '.join(what)}")
    return "\n".join(lines) + "\n"


def parser() -> argparse.ArgumentParser:
    """The command line of ``xpg bench xreason``."""
    shared = shared_dir()
    p = argparse.ArgumentParser(
        prog="xpg bench xreason",
        description="xpg against XReason (MaxSAT route) on the AAAI-22 XGBoost benchmark: one "
        "AXp per instance by each, side by side, every AXp checked.",
    )
    p.add_argument("--datasets", help="comma-separated dataset names (default: all 11)")
    p.add_argument("--instances", type=int, metavar="K", help="the first K instances of each")
    p.add_argument(
        "--verify",
        type=int,
        default=10,
        metavar="N",
        help="check xpg's first N AXps per dataset with xpg verify (default 10)",
    )
    p.add_argument(
        "--commands",
        type=int,
        default=3,
        metavar="N",
        help="time the whole commands on the first N instances (default 3)",
    )
    p.add_argument(
        "--verify-timeout",
        type=float,
        default=60.0,
        metavar="S",
        help="xpg verify's budget per AXp (default 60)",
    )
    p.add_argument(
        "--timeout",
        type=float,
        default=600.0,
        metavar="S",
        help="XReason's wait per request (default 600)",
    )
    p.add_argument(
        "--bench-dir",
        default=str(shared / "benchmarks" / "xreason-aaai22"),
        help="the benchmark folder (default %(default)s)",
    )
    p.add_argument(
        "--xreason-dir",
        default=str(shared / "peers" / "xreason"),
        help="XReason's folder, holding src/ (default %(default)s)",
    )
    p.add_argument("--out", default=str(RESULTS_DIR), help="output folder (default %(default)s)")
    p.add_argument(
        "--repeat",
        type=int,
        default=1,
        metavar="R",
        help="explain each instance R times with each tool, in turns, and keep each tool's "
        "best time (default 1)",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark; print the table and the files written."""
    args = parser().parse_args(argv)
    bench_dir, xreason_dir = Path(args.bench_dir), Path(args.xreason_dir)
    known = dataset_names(bench_dir)
    names = known
    if args.datasets:
        names = [n.strip() for n in args.datasets.split(",") if n.strip()]
        unknown = [n for n in names if n not in known]
        if unknown:
            raise XReasonBenchError(
                f"--datasets: unknown {', '.join(unknown)}; expected some of {', '.join(known)}"
            )
    if not (xreason_dir / "src" / "xreason.py").is_file():
        raise XReasonBenchError(f"no XReason at {xreason_dir}: expected src/xreason.py there")
    all_files = [BenchFiles.find(bench_dir, n) for n in names]
    ensure_venv(PEER)
    opts = Options(
        bench_dir,
        xreason_dir,
        out_dir(args.out),
        args.instances,
        args.verify,
        args.commands,
        args.verify_timeout,
        args.timeout,
        args.repeat,
        not args.no_progress,
    )
    records, summary = [], []
    for files in all_files:
        with RunnerSession(PEER) as session:
            got = run_dataset(files, session, opts)
        log = parse_log(files.log.read_text(encoding="utf-8"), str(files.log))
        summary.append(summarize(files.name, got, log))
        records += got
        s = summary[-1]
        print(
            f"{files.name}: {s['instances']} instances, xpg median {_fmt(s['xpg_median_s'])} s, "
            f"XReason median {_fmt(s['xreason_median_s'])} s, xpg wrong {s['xpg_wrong']}, "
            f"XReason wrong {s['xreason_wrong']}, errors {s['errors']}",
            file=sys.stderr,
            flush=True,
        )
    given = sys.argv[1:] if argv is None else list(argv)
    md = markdown(summary, records, f"xpg bench xreason {shlex.join(given)}".strip())
    paths = write_outputs(
        opts.out,
        "xreason",
        {
            ".csv": csv_text(summary, SUMMARY_COLUMNS),
            "_instances.csv": csv_text(records, INSTANCE_COLUMNS),
            ".md": md,
        },
    )
    print(md)
    for path in paths:
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
