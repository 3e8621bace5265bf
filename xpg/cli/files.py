"""``xpg validate`` and ``xpg export``: check a model or ``.xpg`` file, write a ``.xpg`` file.

Examples
--------
>>> import argparse
>>> parser = argparse.ArgumentParser(prog="xpg")
>>> register(parser.add_subparsers(dest="command"))
>>> args = parser.parse_args(["export", "m.json", "--instance", "a=1", "-o", "g.xpg"])
>>> args.func is cmd_export, args.output
(True, 'g.xpg')
"""

from __future__ import annotations

import argparse
from typing import Any

from xpg.cli.common import (
    BUDGET_HELP,
    add_command,
    add_json_argument,
    emit,
    is_model_text,
    load_explanation_graph,
    model_explainer,
    never_compiled,
    not_compiled_reason,
    positive_int,
    read_input_text,
    read_model_text,
)


def cmd_export(args: argparse.Namespace) -> int:
    """Handler of ``xpg export``: a model that does not compile within ``--budget`` is refused
    with one line saying what to use instead."""
    from xpg.io import write_xpg

    xg = load_explanation_graph(
        args.file,
        args.instance,
        args.budget,
        "xpg export writes the explanation graph of a compiled decision graph",
        "use xpg axp, cxp or enum, which explain it without compiling",
    )
    write_xpg(xg, args.output)
    return emit(
        args,
        {"output": args.output, "nodes": xg.n_nodes, "edges": xg.n_edges},
        f"wrote {args.output} ({xg.n_nodes} nodes, {xg.n_edges} edges)",
    )


def cmd_validate(args: argparse.Namespace) -> int:
    """Handler of ``xpg validate``: a model file is validated as it is read, its decision
    graph compiled and validated too (a kind never compiled has none); a ``.xpg`` too."""
    from xpg.errors import GraphTooLargeError

    text = read_input_text(args.file)
    if not is_model_text(args.file, text):
        from xpg.io.xpg_format import read_xpg_text  # light: a .xpg file loads no numpy

        xg = read_xpg_text(text, path=args.file)
        nodes, edges = xg.n_nodes, xg.n_edges
    else:
        model = read_model_text(text, args.file)
        if never_compiled(model):  # what the kind declares: valid, explained by its oracle
            model.validate()
            return _valid_without_graph(args, model, not_compiled_reason(model, None))
        try:
            graph = model_explainer(model, None, args.file, route="graph").graph
        except GraphTooLargeError as err:  # valid, but explained by an oracle, not a graph
            model.validate()
            return _valid_without_graph(args, model, str(err))
        assert graph is not None
        nodes, edges = len(graph), graph.n_edges
    doc = {"file": args.file, "valid": True, "nodes": nodes, "edges": edges}
    return emit(args, doc, f"{args.file}: valid ({nodes} nodes, {edges} edges)")


def _valid_without_graph(args: argparse.Namespace, model: Any, note: str) -> int:
    """``xpg validate``'s answer for a valid model without a decision graph, and why."""
    doc = {
        "file": args.file,
        "valid": True,
        "model": model.json_type,
        "nodes": None,
        "edges": None,
        "note": note,
    }
    return emit(args, doc, f"{args.file}: valid ({model.json_type}; {note})")


def register(subparsers: Any) -> None:
    """Add ``export`` and ``validate`` to the ``xpg`` sub-commands."""
    p = add_command(
        subparsers,
        "export",
        cmd_export,
        help="write the .xpg explanation graph of a model and instance",
        example="xpg export model.json --instance x1=1,x2=0,age=70 -o row.xpg",
    )
    p.add_argument("-o", "--output", required=True, help="the .xpg file to write")
    p.add_argument("--budget", type=positive_int, metavar="N", help=BUDGET_HELP)
    p = add_command(
        subparsers,
        "validate",
        cmd_validate,
        help="check a model file or a .xpg file",
        file_arguments=False,
        example="xpg validate ../shared/xpg-examples/mux6/mux6_0.xpg",
    )
    p.add_argument("file")
    add_json_argument(p)
