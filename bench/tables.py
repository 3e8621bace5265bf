"""What Tables 1 and 2 share: explain every tested instance, summarise, write CSV and Markdown.

For each tested instance the time measured is the paper's "time to list all the
explanations": building the instance's explanation graph and enumerating every AXp and
CXp (:func:`xpg.enumerate_explanations`): CPU time of the process (as the paper's reference
implementation reports it), with the garbage collector off (as ``timeit``).
The per-dataset row has the paper's columns; ``%L`` is the average explanation length over
all listed explanations, as a percentage of the dataset's features.

Outputs (in ``--out``, default ``bench/results/``; each written whole or not at all):
``<table>.csv`` (one row per dataset), ``<table>_instances.csv`` (one row per tested
instance, with the explanations as JSON lists) and ``<table>.md`` (ours beside the paper's
published figures, "ours (paper)").

Examples
--------
>>> r = [InstanceResult(0, 1, [("a",), ("b", "c")], [("a", "b")], 0.002, True)]
>>> row = summary_row("toy", 4, r, size=5, accuracy=100.0, depth=None)
>>> row["xps_avg"], row["axp_len_pct"], row["cxp_len_pct"]
(3.0, 37.5, 50.0)

References
----------
Huang, Izza, Ignatiev, Marques-Silva. On Efficiently Explaining Graph-Based Classifiers.
KR 2021, Sec. 7, Tables 1 and 2.
"""

from __future__ import annotations

import argparse
import csv
import gc
import io
import json
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from bench.data import REPO_ROOT, Dataset, instance, load_dataset
from bench.models import TrainedModel
from bench.paper_tables import PaperRow
from xpg.core.graph import DecisionGraph
from xpg.core.xpgraph import ExplanationGraph
from xpg.errors import XpgError
from xpg.explain.marco import enumerate_explanations
from xpg.io import write_text_atomic

RESULTS_DIR = REPO_ROOT / "bench" / "results"
T = TypeVar("T")

SUMMARY_COLUMNS = [
    "dataset",
    "n_features",
    "n_tested",
    "depth",
    "nodes",
    "accuracy",
    "xps_avg",
    "axp_max",
    "axp_min",
    "axp_avg",
    "axp_len_pct",
    "cxp_max",
    "cxp_min",
    "cxp_avg",
    "cxp_len_pct",
    "runtime_total",
    "runtime_max",
    "runtime_min",
    "runtime_avg",
    "complete",
]
INSTANCE_COLUMNS = [
    "dataset",
    "row",
    "prediction",
    "n_axps",
    "n_cxps",
    "seconds",
    "complete",
    "axps",
    "cxps",
]


@dataclass
class InstanceResult:
    """Every explanation of one tested instance and the time it took."""

    row: int
    prediction: Any
    axps: list[tuple[str, ...]]
    cxps: list[tuple[str, ...]]
    seconds: float
    complete: bool


#: the explanation statistics of a table row (key and format), the same in both tables
EXPLANATION_COLUMNS = (
    ("xps_avg", "{:.1f}"),
    ("axp_max", "{}"),
    ("axp_min", "{}"),
    ("axp_avg", "{:.1f}"),
    ("axp_len_pct", "{:.0f}"),
    ("cxp_max", "{}"),
    ("cxp_min", "{}"),
    ("cxp_avg", "{:.1f}"),
    ("cxp_len_pct", "{:.0f}"),
)


def progress(items: Sequence[T], desc: str, enabled: bool) -> Iterator[T]:
    """A tqdm progress bar on standard error when enabled and tqdm is installed."""
    if enabled:
        try:
            from tqdm import tqdm
        except ImportError:
            print(f"{desc}: {len(items)} instances", file=sys.stderr)
        else:
            yield from tqdm(items, desc=desc, leave=False, file=sys.stderr, unit="inst")
            return
    yield from items


def explain_rows(
    dg: DecisionGraph,
    ds: Dataset,
    rows: Sequence[int],
    *,
    timeout: float | None = None,
    show_progress: bool = False,
) -> list[InstanceResult]:
    """Enumerate every AXp and CXp of each row; time = XpG construction + enumeration."""
    out = []
    for row in progress(list(rows), ds.name, show_progress):
        x = instance(ds, int(row))
        gc.disable()  # as timeit does: a collection triggered by earlier work is not ours
        start = time.process_time()
        xg = ExplanationGraph.from_decision_graph(dg, x)
        result = enumerate_explanations(xg, timeout=timeout)
        seconds = time.process_time() - start
        gc.enable()
        out.append(
            InstanceResult(
                int(row), xg.prediction, result.axps, result.cxps, seconds, result.complete
            )
        )
    return out


def _mean(xs: Sequence[float]) -> float:
    return sum(xs) / len(xs) if xs else 0.0


def summary_row(
    name: str,
    n_features: int,
    results: Sequence[InstanceResult],
    *,
    size: int,
    accuracy: float,
    depth: int | None,
) -> dict[str, Any]:
    """The paper's columns for one dataset."""
    n_axp = [len(r.axps) for r in results]
    n_cxp = [len(r.cxps) for r in results]
    axp_len = [len(a) for r in results for a in r.axps]
    cxp_len = [len(c) for r in results for c in r.cxps]
    secs = [r.seconds for r in results]
    return {
        "dataset": name,
        "n_features": n_features,
        "n_tested": len(results),
        "depth": "" if depth is None else depth,
        "nodes": size,
        "accuracy": round(accuracy, 1),
        "xps_avg": round(_mean([a + c for a, c in zip(n_axp, n_cxp)]), 2),
        "axp_max": max(n_axp, default=0),
        "axp_min": min(n_axp, default=0),
        "axp_avg": round(_mean(n_axp), 2),
        "axp_len_pct": round(100.0 * _mean(axp_len) / n_features, 1) if n_features else 0.0,
        "cxp_max": max(n_cxp, default=0),
        "cxp_min": min(n_cxp, default=0),
        "cxp_avg": round(_mean(n_cxp), 2),
        "cxp_len_pct": round(100.0 * _mean(cxp_len) / n_features, 1) if n_features else 0.0,
        "runtime_total": round(sum(secs), 4),
        "runtime_max": round(max(secs, default=0.0), 5),
        "runtime_min": round(min(secs, default=0.0), 5),
        "runtime_avg": round(_mean(secs), 5),
        "complete": all(r.complete for r in results),
    }


def instance_rows(name: str, results: Iterable[InstanceResult]) -> list[dict[str, Any]]:
    """One CSV row per tested instance, explanations as JSON lists of feature names."""
    return [
        {
            "dataset": name,
            "row": r.row,
            "prediction": r.prediction,
            "n_axps": len(r.axps),
            "n_cxps": len(r.cxps),
            "seconds": round(r.seconds, 6),
            "complete": r.complete,
            "axps": json.dumps([list(a) for a in r.axps]),
            "cxps": json.dumps([list(c) for c in r.cxps]),
        }
        for r in results
    ]


def csv_text(rows: Sequence[dict[str, Any]], columns: Sequence[str]) -> str:
    """CSV text with a header line."""
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(columns), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buf.getvalue()


def _cell(ours: Any, paper: Any | None, fmt: str = "{}") -> str:
    text = fmt.format(ours) if ours != "" else "-"
    if paper is None:
        return text
    return f"{text} ({fmt.format(paper)})"


def markdown_table(rows: Sequence[dict[str, Any]], paper: dict[str, PaperRow], title: str) -> str:
    """The paper's table layout, every cell "ours (paper)" where the paper has the dataset;
    a Learner column when the rows name their learner (several per dataset)."""
    with_depth = any(r["depth"] != "" for r in rows)
    with_learner = any(r.get("learner") for r in rows)
    head = ["Dataset"] + (["Learner"] if with_learner else []) + ["#F", "#TI"]
    head += (["D"] if with_depth else []) + ["#N", "%A", "XPs"]
    head += ["AXp Mx", "m", "avg", "%L", "CXp Mx", "m", "avg", "%L", "Tot (s)", "Mx", "m", "avg"]
    lines = [f"### {title}", "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        p = paper.get(r["dataset"])

        def cell(key: str, attr: str, fmt: str = "{}", r: dict[str, Any] = r, p: Any = p) -> str:
            return _cell(r[key], getattr(p, attr) if p is not None else None, fmt)

        cells = [r["dataset"]] + ([r.get("learner", "")] if with_learner else [])
        cells += [cell("n_features", "n_features"), cell("n_tested", "n_tested")]
        if with_depth:
            cells.append(cell("depth", "depth"))
        cells += [
            cell("nodes", "size"),
            cell("accuracy", "accuracy", "{:.0f}"),
            *(cell(key, key, fmt) for key, fmt in EXPLANATION_COLUMNS),
            cell("runtime_total", "runtime_total", "{:.3f}"),
            cell("runtime_max", "runtime_max", "{:.4f}"),
            cell("runtime_min", "runtime_min", "{:.4f}"),
            cell("runtime_avg", "runtime_avg", "{:.4f}"),
        ]
        lines.append("| " + " | ".join(str(c) for c in cells) + " |")
    return "\n".join(lines) + "\n"


def base_parser(
    prog: str, description: str, parents: Sequence[argparse.ArgumentParser] = ()
) -> argparse.ArgumentParser:
    """Options every table script takes (and those of ``parents``)."""
    parser = argparse.ArgumentParser(prog=prog, description=description, parents=list(parents))
    parser.add_argument("--quick", action="store_true", help="few instances per dataset (CI)")
    parser.add_argument(
        "--data-dir", help="datasets folder (default $XPG_SHARED_DIR/datasets or ../shared)"
    )
    parser.add_argument(
        "--out", default=str(RESULTS_DIR), help="output folder (default %(default)s)"
    )
    parser.add_argument("--datasets", help="comma-separated dataset names (default: all)")
    parser.add_argument("--seed", type=int, default=0, help="seed of splits and draws")
    parser.add_argument(
        "--max-instances", type=int, help="at most this many tested instances per dataset"
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    return parser


def out_dir(option: str | None) -> Path:
    """The output folder, created if needed."""
    path = Path(option) if option else RESULTS_DIR
    path.mkdir(parents=True, exist_ok=True)
    return path


def chosen(option: str | None, known: dict[str, Any]) -> list[str]:
    """Dataset names from ``--datasets`` (checked), default all."""
    from bench.data import DataError

    if not option:
        return list(known)
    names = [n.strip() for n in option.split(",") if n.strip()]
    unknown = [n for n in names if n not in known]
    if unknown:
        raise DataError(
            f"--datasets: unknown {', '.join(unknown)}; expected some of {', '.join(known)}"
        )
    return names


def plain_table(rows: Sequence[dict[str, Any]], columns: Sequence[str]) -> str:
    """A Markdown table of ``rows``, one column per name in ``columns``.

    >>> print(plain_table([{"a": 1, "b": 2}], ["a", "b"]), end="")
    | a | b |
    |---|---|
    | 1 | 2 |
    """
    head = "| " + " | ".join(columns) + " |\n|" + "---|" * len(columns) + "\n"
    return head + "".join("| " + " | ".join(str(r[c]) for c in columns) + " |\n" for r in rows)


def write_outputs(folder: Path, stem: str, files: dict[str, str]) -> list[Path]:
    """Write ``{suffix: text}`` as ``<stem><suffix>`` files, each atomically."""
    paths = []
    for suffix, text in files.items():
        path = folder / f"{stem}{suffix}"
        write_text_atomic(path, text)
        paths.append(path)
    return paths


def pick_rows(ds: Dataset, limit: int | None, seed: int) -> list[int]:
    """The tested rows, or a seeded draw of ``limit`` of them."""
    rows = ds.tested.tolist()
    if limit is None or limit >= len(rows):
        return rows
    rng = np.random.default_rng(seed + 1)
    return sorted(rng.choice(rows, size=limit, replace=False).tolist())


Trainer = Callable[[Dataset, int], TrainedModel]


@dataclass
class Learners:
    """What ``--learner`` chose: the output stem, a title suffix, one trainer per label and a
    sentence that ends the Markdown (what the learners' columns mean)."""

    stem: str
    title: str
    trainers: dict[str, Trainer]
    note: str = ""


def run_table(
    argv: Sequence[str] | None,
    *,
    prog: str,
    stem: str,
    title: str,
    datasets: dict[str, Any],
    train: Trainer,
    paper: dict[str, PaperRow],
    quick_instances: int = 10,
    options: Callable[[argparse.ArgumentParser], None] | None = None,
    learners: Callable[[argparse.Namespace], Learners] | None = None,
) -> int:
    """Parse the options, explain every dataset, write ``<stem>.csv``, ``_instances.csv``,
    ``.md``; print the Markdown table and the paths.

    ``options`` adds a script's own options; ``learners`` maps the parsed options to the
    models to train (default: ``train`` alone).  With several learners every dataset is
    trained and explained with each, and each Markdown cell reads "a / b (paper)".
    """
    parser = base_parser(prog, f"Rebuild the core paper's {title}.")
    parser.add_argument("--timeout", type=float, help="per-instance enumeration budget (s)")
    if options is not None:
        options(parser)
    args = parser.parse_args(argv)
    chosen_learners = learners(args) if learners else Learners(stem, "", {"": train})
    names = chosen(args.datasets, datasets)
    limit = args.max_instances if args.max_instances is not None else None
    if args.quick and limit is None:
        limit = quick_instances
    folder = out_dir(args.out)
    labels = list(chosen_learners.trainers)
    several = len(labels) > 1
    summary: dict[str, list[dict[str, Any]]] = {label: [] for label in labels}
    per_instance: list[dict[str, Any]] = []
    stopped: list[str] = []  # optimal searches stopped by their time limit
    for name in names:
        ds = load_dataset(name, args.data_dir, seed=args.seed)
        for label, train_one in chosen_learners.trainers.items():
            model = train_one(ds, args.seed)
            rows_checked = check_all_rows(model, ds)
            results = explain_rows(
                model.dg,
                ds,
                pick_rows(ds, limit, args.seed),
                timeout=args.timeout,
                show_progress=not args.no_progress,
            )
            check_predictions(model, ds, results)
            row = summary_row(
                name,
                len(ds.features),
                results,
                size=len(model.dg),
                accuracy=model.accuracy,
                depth=model.depth,
            )
            if several:
                row = {"learner": label, **row, **model.notes, "rows_agreeing": rows_checked}
            summary[label].append(row)
            per_instance += [
                ({"learner": label, **r} if several else r) for r in instance_rows(name, results)
            ]
            said = f" ({label})" if several else ""
            extra = "".join(f", {k} {v}" for k, v in model.notes.items())
            if rows_checked is not None:
                extra += f", graph = learner's predict on {rows_checked}/{len(ds.X)} rows"
            print(
                f"{name}{said}: {row['n_tested']} instances, {row['xps_avg']} XPs on average, "
                f"{row['runtime_total']:.2f} s{extra}",
                file=sys.stderr,
            )
            if model.notes.get("optimal") is False:
                stopped.append(f"{name} ({label})")
    quick = f"Quick run: {limit} instances per dataset. " if args.quick else ""
    if several:
        md = (
            markdown_table_learners(summary, paper, title + chosen_learners.title, labels)
            + "\n"
            + (
                f"{quick}Cells: {' / '.join(labels)} (paper). Runtimes in seconds. "
                f"{chosen_learners.note}\n"
            )
        )
        if any("optimal" in r for label in labels for r in summary[label]):
            md += f"\nSearches stopped at the time limit: {', '.join(stopped) or 'none'}.\n"
        columns = ["learner", *SUMMARY_COLUMNS, *NOTE_COLUMNS, "rows_agreeing"]
        rows = [r for label in labels for r in summary[label]]
        instance_columns = ["learner", *INSTANCE_COLUMNS]
    else:
        rows = summary[labels[0]]
        md = (
            markdown_table(rows, paper, title)
            + "\n"
            + (f"{quick}Cells: ours (paper). Runtimes in seconds.\n")
        )
        columns, instance_columns = SUMMARY_COLUMNS, INSTANCE_COLUMNS
    paths = write_outputs(
        folder,
        chosen_learners.stem,
        {
            ".csv": csv_text(rows, columns),
            "_instances.csv": csv_text(per_instance, instance_columns),
            ".md": md,
        },
    )
    print(md)
    for p in paths:
        print(f"wrote {p}")
    return 0


#: the learner-specific columns of a several-learner table (``TrainedModel.notes``)
NOTE_COLUMNS = ["optimal", "search_seconds", "binary_features"]


def markdown_table_learners(
    summary: dict[str, list[dict[str, Any]]],
    paper: dict[str, PaperRow],
    title: str,
    labels: Sequence[str],
) -> str:
    """The paper's layout with every cell "a / b (paper)", one value per learner, and, when a
    learner searches for an optimal model, a column saying whether each search finished."""
    by_name = [dict(zip(labels, group)) for group in zip(*(summary[x] for x in labels))]
    searches = any("optimal" in r for x in labels for r in summary[x])
    head = ["Dataset", "#F", "#TI", "D", "#N", "%A", *(["Opt"] if searches else []), "XPs"]
    head += ["AXp Mx", "m", "avg", "%L", "CXp Mx", "m", "avg", "%L", "Tot (s)", "avg"]
    lines = [f"### {title}", "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for group in by_name:
        first = group[labels[0]]
        p = paper.get(first["dataset"])

        def cell(key: str, attr: str, fmt: str = "{}", g: Any = group, p: Any = p) -> str:
            ours = " / ".join(fmt.format(g[x][key]) if g[x][key] != "" else "-" for x in labels)
            theirs = None if p is None else getattr(p, attr)
            return ours if theirs is None else f"{ours} ({fmt.format(theirs)})"

        searched = [
            ("yes" if group[x]["optimal"] else "no") for x in labels if "optimal" in group[x]
        ]
        cells = [
            first["dataset"],
            _cell(first["n_features"], p.n_features if p else None),
            cell("n_tested", "n_tested"),
            cell("depth", "depth"),
            cell("nodes", "size"),
            cell("accuracy", "accuracy", "{:.0f}"),
            *([" / ".join(searched) or "-"] if searches else []),
            *(cell(key, key, fmt) for key, fmt in EXPLANATION_COLUMNS),
            cell("runtime_total", "runtime_total", "{:.3f}"),
            cell("runtime_avg", "runtime_avg", "{:.4f}"),
        ]
        lines.append("| " + " | ".join(str(c) for c in cells) + " |")
    return "\n".join(lines) + "\n"


def check_all_rows(model: TrainedModel, ds: Dataset) -> int | None:
    """For a tree: the compiled graph must predict what its learner (scikit-learn, pystreed)
    predicts on every row of the dataset, train and test; returns the number of rows
    checked (None for an OBDD, whose tested rows :func:`check_predictions` checks)."""
    if model.kind == "tree":
        theirs = [
            v.item() if isinstance(v, np.generic) else v for v in model.original.predict(ds.X)
        ]
        learner = "scikit-learn"
    elif model.kind == "optimal-tree":
        theirs = model.original.streed_predict(ds.X).tolist()
        learner = "pystreed"
    else:
        return None
    values = np.empty((len(ds.X), len(ds.features)), dtype=object)
    values[:] = [instance(ds, i) for i in range(len(ds.X))]
    ours = model.dg.predict_batch(values).tolist()
    wrong = [i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b]
    if wrong:
        i = wrong[0]
        raise ModelMismatchError(
            f"{ds.name}: the decision graph disagrees with {learner} on {len(wrong)} of "
            f"{len(ds.X)} rows; first, row {i}: graph {ours[i]!r}, {learner} {theirs[i]!r}"
        )
    return len(ds.X)


def check_predictions(model: TrainedModel, ds: Dataset, results: Sequence[InstanceResult]) -> None:
    """The compiled graph must predict what the original model predicts on every instance."""
    for r in results:
        x = instance(ds, r.row)
        if model.kind == "tree":
            expected = model.original.predict(ds.X[r.row : r.row + 1])[0]
            expected = expected.item() if isinstance(expected, np.generic) else expected
        elif model.kind == "optimal-tree":
            expected = model.original.streed_predict(ds.X[r.row : r.row + 1])[0]
        else:
            expected = model.original.predict(x)
        if expected != r.prediction:
            raise ModelMismatchError(
                f"{ds.name}, row {r.row}: the decision graph predicts {r.prediction!r}, "
                f"the original model {expected!r}"
            )


class ModelMismatchError(XpgError, RuntimeError):
    """A compiled decision graph disagrees with the model it was compiled from."""
