"""Combine ``table2.py`` runs made one dataset at a time into one table.

Each input folder holds the ``table2.csv`` and ``table2_summary.csv`` of one run (one process
per dataset, so that a dataset's results survive when another's process dies).  The rows and
summary lines are concatenated in the order of the paper's datasets (``common.DATASETS``), and
``table2.md`` gives the summary as a Markdown table with, per dataset, a one-line answer to
"does Cop beat Anchors?" against each Anchors set-up: *yes* when Cop's mean precision error is
lower and the two-sided Wilcoxon signed-rank test on the paired errors gives p < 0.05, *no*
when it is higher with p < 0.05, *not significantly* otherwise.

Usage::

    python bench/probabilistic/merge_table2.py bench/results/probabilistic-100/* \\
        --out bench/probabilistic/results
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the checkout's ``bench`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench.probabilistic.common import DATASETS, REPO_ROOT, print_table, write_csv  # noqa: E402
from bench.probabilistic.table2 import ROW_HEADER, summarise  # noqa: E402
from xpg.io.atomic import write_text_atomic  # noqa: E402

SIGNIFICANCE = 0.05
#: summary columns the Markdown table reads ("-" when a run did not have the method)
KEYS = [
    f"{method} {what}"
    for method in ("cop", "sat", "anchors", "anchors-uniform")
    for what in ("err", "loss")
] + ["cop optimal", "cop vs anchors w/t/l", "cop vs anchors-uniform w/t/l"]


def read(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    """The header and rows of a CSV file."""
    with open(path, newline="") as handle:
        reader = csv.DictReader(handle)
        return list(reader.fieldnames or []), list(reader)


def verdict(cop: str, other: str, comparison: str, difference: float | None = None) -> str:
    """``yes`` / ``no`` / ``not significantly``, with the numbers behind it.

    ``cop`` and ``other`` are the summary's ``mean (std)`` cells; ``difference`` is Cop's mean
    error minus the other's, unrounded (default: from the rounded cells).

    Examples
    --------
    >>> verdict("0.21 (0.07)", "0.33 (0.11)", "32/1/5 p=1.3e-05")
    'yes (0.21 against 0.33; Cop lower on 32 of 38, higher on 5, p = 1.3e-05)'
    >>> verdict("0.30 (0.06)", "0.35 (0.23)", "21/0/17 p=0.36")
    'not significantly (0.30 against 0.35; Cop lower on 21 of 38, higher on 17, p = 0.36)'
    >>> verdict("0.01 (0.00)", "0.01 (0.00)", "3/0/19 p=0.0011", 0.0021)
    'no (0.01 against 0.01; Cop lower on 3 of 22, higher on 19, p = 0.0011)'
    """
    if comparison == "-" or cop == "-" or other == "-":
        return "not measured (no instance answered by both)"
    counts, p_text = comparison.split()
    wins, ties, losses = (int(c) for c in counts.split("/"))
    p = float(p_text.removeprefix("p="))
    if difference is None:
        difference = float(cop.split()[0]) - float(other.split()[0])
    if p < SIGNIFICANCE and difference != 0:
        word = "yes" if difference < 0 else "no"
    else:
        word = "not significantly"
    n = wins + ties + losses
    return (
        f"{word} ({cop.split()[0]} against {other.split()[0]}; Cop lower on {wins} of {n}, "
        f"higher on {losses}, p = {p_text.removeprefix('p=')})"
    )


def mean_errors(rows: list[dict[str, str]]) -> dict[tuple[str, str], float]:
    """Each dataset's and method's mean precision error, unrounded, over the instances every
    method answered (those the summary keeps).

    Examples
    --------
    >>> rows = [dict(dataset="t", instance=i, method=m, precision_error=e)
    ...         for i, m, e in [(0, "cop", "0.2"), (0, "sat", "0.1"), (1, "cop", "0.4"),
    ...                         (1, "sat", "")]]
    >>> mean_errors(rows)
    {('t', 'cop'): 0.2, ('t', 'sat'): 0.1}
    """
    by: dict[tuple[str, str], dict[str, str]] = {}
    for r in rows:
        by.setdefault((r["dataset"], r["instance"]), {})[r["method"]] = r["precision_error"]
    sums: dict[tuple[str, str], list[float]] = {}
    for (name, _), errors in by.items():
        if all(errors.values()):
            for method, e in errors.items():
                sums.setdefault((name, method), []).append(float(e))
    return {key: sum(v) / len(v) for key, v in sums.items()}


def markdown(summary: list[dict[str, str]], means: dict[tuple[str, str], float]) -> str:
    """The summary as the README's table, then the per-dataset answers (``means``: see
    :func:`mean_errors`)."""
    cols = [
        "dataset",
        "d",
        "MLP acc",
        "n",
        "Cop err",
        "Sat err",
        "Anchors err (training data)",
        "Anchors err (uniform)",
        "Cop loss",
        "Anchors loss (train / unif.)",
        "Cop optimal",
        "Cop vs Anchors-train w/t/l, p",
        "Cop vs Anchors-uniform w/t/l, p",
        "paper Cop / Sat / Anchors",
    ]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    answers = []
    for line in summary:
        s = {key: line.get(key) or "-" for key in KEYS} | line
        cells = [
            s["dataset"],
            s["d"],
            s["acc"],
            s["n"],
            s["cop err"],
            s["sat err"],
            s["anchors err"],
            s["anchors-uniform err"],
            s["cop loss"],
            f"{s['anchors loss']} / {s['anchors-uniform loss']}",
            s["cop optimal"],
            s["cop vs anchors w/t/l"],
            s["cop vs anchors-uniform w/t/l"],
            f"{s['paper cop']} / {s['paper sat']} / {s['paper anchors']}",
        ]
        lines.append("| " + " | ".join(cells) + " |")
        name = s["dataset"]
        diff = {
            other: means[(name, "cop")] - means[(name, other)]
            if (name, "cop") in means and (name, other) in means
            else None
            for other in ("anchors", "anchors-uniform")
        }
        skipped = int(s.get("budget exceeded") or 0)
        note = f" ({skipped} instance(s) left out: Anchors' query budget)" if skipped else ""
        answers.append(
            f"- {s['dataset']}{note}: against the paper's Anchors (training data), "
            f"{verdict(s['cop err'], s['anchors err'], s['cop vs anchors w/t/l'], diff['anchors'])}"
            "; against uniform Anchors, "
            + verdict(
                s["cop err"],
                s["anchors-uniform err"],
                s["cop vs anchors-uniform w/t/l"],
                diff["anchors-uniform"],
            )
            + "."
        )
    return (
        "\n".join(lines)
        + "\n\nDoes Cop beat Anchors (precision error)?\n\n"
        + "\n".join(answers)
        + "\n"
    )


def join_shards(summary: list[dict[str, str]], rows: list[dict[str, str]]) -> list[dict[str, str]]:
    """One summary line per dataset: a dataset run in shards (``table2.py --shard K/N``) gets
    its line recomputed from the rows of all its shards; one run's line is kept as written.
    Exits with an error if two runs measured the same instance."""
    lines: dict[str, list[dict[str, str]]] = {}
    for line in summary:
        lines.setdefault(line["dataset"], []).append(line)
    seen: set[tuple[str, str, str]] = set()
    for r in rows:
        key = (r["dataset"], r["instance"], r["method"])
        if key in seen:
            sys.exit(f"error: {key[0]} instance {key[1]} ({key[2]}) is in more than one run")
        seen.add(key)
    joined = []
    for name, parts in lines.items():
        if len(parts) == 1:
            joined.append(parts[0])
            continue
        methods = [h.removesuffix(" err") for h in parts[0] if h.endswith(" err")]
        outcomes: dict[str, dict[str, tuple | None]] = {m: {} for m in methods}
        for r in rows:
            if r["dataset"] == name and r["method"] in outcomes:
                outcomes[r["method"]][r["instance"]] = (
                    None
                    if r["precision_error"] == ""
                    else (
                        float(r["precision_error"]),
                        float(r["rule_loss"]),
                        float(r["seconds"]),
                        int(r["size"]),
                        r["optimal"] == "True",
                    )
                )
        instances = sorted(outcomes[methods[0]], key=int)
        line = summarise(
            name,
            int(parts[0]["d"]),
            float(parts[0]["acc"]),
            {m: [outcomes[m].get(i) for i in instances] for m in methods},
            methods,
        )
        joined.append(dict(zip(parts[0], map(str, line))))
    return joined


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="+", type=Path, help="folders of table2.py runs")
    parser.add_argument(
        "--out", type=Path, default=REPO_ROOT / "bench" / "results" / "probabilistic"
    )
    args = parser.parse_args(argv)
    order = {name: i for i, name in enumerate(DATASETS)}
    rows: list[dict[str, str]] = []
    summary: list[dict[str, str]] = []
    header: list[str] = []
    for folder in args.folders:
        if not (folder / "table2_summary.csv").is_file():
            print(f"skipped {folder}: no table2_summary.csv (run unfinished)", file=sys.stderr)
            continue
        fields, lines = read(folder / "table2_summary.csv")
        if len(fields) > len(header):
            header = fields  # runs before the "budget exceeded" column lack it
        summary += lines
        rows += read(folder / "table2.csv")[1]
    summary = join_shards(summary, rows)
    summary.sort(key=lambda s: order[s["dataset"]])
    rows.sort(key=lambda r: order[r["dataset"]])  # stable: instance order kept per dataset
    write_csv(args.out / "table2.csv", ROW_HEADER, [[r[h] for h in ROW_HEADER] for r in rows])
    table = [[s.get(h) or "0" for h in header] for s in summary]
    write_csv(args.out / "table2_summary.csv", header, table)
    write_text_atomic(args.out / "table2.md", markdown(summary, mean_errors(rows)))
    print_table(header, table)
    print(f"\nwrote table2.csv, table2_summary.csv and table2.md to {args.out}")


if __name__ == "__main__":
    main()
