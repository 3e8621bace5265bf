"""``xpg report``: one static HTML page from the records of ``xpg explain --data``.

``xpg report RECORDS [--model MODEL.json] -o report.html [--max-rows N] [--json]`` reads the
records (JSON Lines, or Parquet by its extension or content) and writes a self-contained
page (:func:`xpg.report.write_report`): the summary, the attribution over the table, the
feature classes, the distributions of explanation sizes and robustness, and a sortable,
filterable table of rows with a link to each row's explanations.  Nothing is fetched when
the page opens.  Needs matplotlib (the ``plot`` extra) for the pictures.

Examples
--------
>>> import argparse
>>> parser = argparse.ArgumentParser(prog="xpg")
>>> register(parser.add_subparsers(dest="command"))
>>> args = parser.parse_args(["report", "out.jsonl", "-o", "r.html", "--max-rows", "50"])
>>> args.func is cmd_report, args.file, args.output, args.max_rows, args.model
(True, 'out.jsonl', 'r.html', 50, None)
"""

from __future__ import annotations

import argparse
from typing import Any

from xpg.cli.common import add_command, add_json_argument, emit, positive_int


def cmd_report(args: argparse.Namespace) -> int:
    """Handler of ``xpg report``."""
    from xpg.report import write_report

    info = write_report(args.file, args.output, args.model, max_rows=args.max_rows)
    doc = {
        "output": info.output,
        "bytes": info.bytes,
        "rows": info.rows,
        "shown": info.shown,
        "errors": info.errors,
    }
    shown = "all rows" if info.shown == info.rows else f"{info.shown:,} of {info.rows:,} rows"
    text = f"wrote {info.output} ({info.bytes:,} bytes, {info.rows:,} rows, table: {shown})"
    return emit(args, doc, text)


def register(subparsers: Any) -> None:
    """Add ``report`` to the ``xpg`` sub-commands."""
    p = add_command(
        subparsers,
        "report",
        cmd_report,
        help="write a static HTML report of the records of xpg explain --data",
        description="Write one self-contained HTML page from the records of xpg explain "
        "--data (JSON Lines or Parquet): the summary (rows, errors, incomplete rows, time), "
        "the formal feature attribution over the table, the feature classes, the "
        "distributions of explanation sizes and robustness distances, and a sortable, "
        "filterable table of rows, each linked to its explanations. Nothing is fetched "
        "when it opens. The pictures need matplotlib (the plot extra).",
        file_arguments=False,
        example="xpg report records.jsonl --model model.json -o report.html",
    )
    p.add_argument(
        "file",
        metavar="RECORDS",
        help="the records of xpg explain --data: .jsonl, or .parquet",
    )
    p.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="OUT.html",
        help="the HTML file to write (whole or not at all)",
    )
    p.add_argument(
        "--model",
        metavar="MODEL.json",
        help="the model that wrote the records: its name, kind and features in the "
        "header, its feature order in the tables",
    )
    p.add_argument(
        "--max-rows",
        type=positive_int,
        default=2000,
        metavar="N",
        help="the most rows in the row table (default 2000; every error row first, then "
        "the first rows; the page says how many it shows)",
    )
    add_json_argument(p)
