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
    compiled_graph,
    emit,
    is_model_file,
    load_args_graph,
    load_input,
    parse_instance,
    positive_int,
    read_model_file,
)


def cmd_export(args: argparse.Namespace) -> int:
    """Handler of ``xpg export``: a model that does not compile within ``--budget`` is refused
    with one line saying what to use instead."""
    from xpg.io import write_xpg

    if is_model_file(args.file) and args.instance is not None:
        from xpg.core.xpgraph import ExplanationGraph

        dg = compiled_graph(
            read_model_file(args.file),
            args.budget,
            "xpg export writes the explanation graph of a compiled decision graph",
            "use xpg axp, cxp or enum, which explain it without compiling",
            args.file,
        )
        xg = ExplanationGraph.from_decision_graph(dg, parse_instance(dg, args.instance))
    else:
        xg = load_args_graph(args)
    write_xpg(xg, args.output)
    return emit(
        args,
        {"output": args.output, "nodes": xg.n_nodes, "edges": xg.n_edges},
        f"wrote {args.output} ({xg.n_nodes} nodes, {xg.n_edges} edges)",
    )


def cmd_validate(args: argparse.Namespace) -> int:
    """Handler of ``xpg validate``: a model file is validated as it is read, a ``.xpg`` too."""
    from xpg.core.xpgraph import ExplanationGraph  # light: a .xpg file loads no numpy
    from xpg.errors import GraphTooLargeError

    try:
        graph = load_input(args.file)  # a model is validated as it is read
    except GraphTooLargeError as err:  # valid, but explained by SAT/SMT rather than a graph
        from xpg.io import read_model

        model = read_model(args.file)
        model.validate()
        doc = {
            "file": args.file,
            "valid": True,
            "model": model.json_type,
            "nodes": None,
            "edges": None,
            "note": str(err),
        }
        return emit(args, doc, f"{args.file}: valid ({model.json_type}; {err})")
    if isinstance(graph, ExplanationGraph):
        doc = {"file": args.file, "valid": True, "nodes": graph.n_nodes, "edges": graph.n_edges}
    else:
        doc = {"file": args.file, "valid": True, "nodes": len(graph), "edges": graph.n_edges}
    return emit(args, doc, f"{args.file}: valid ({doc['nodes']} nodes, {doc['edges']} edges)")


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
