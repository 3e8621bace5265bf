"""``xpg draw``: a decision or explanation graph as a picture, with an explanation highlighted.

``xpg draw MODEL.json --instance ... [--axp F1,F2 | --cxp F1,F2 | --explain] -o OUT`` writes
the model's decision graph (feature names on the nodes, literals on the edges) with the
instance's path marked and the nodes testing the explanation's features filled; a ``.xpg``
file in place of the model and instance gives its explanation graph (edges labelled 1/0).
A model without ``--instance`` is drawn plain.  ``OUT`` ending in ``.dot`` (or ``.gv``) is
Graphviz DOT text, which needs nothing installed; ``.svg``, ``.png`` and ``.pdf`` are rendered
by Graphviz's ``dot`` program through the ``graphviz`` package (the ``plot`` extra).  A claimed
``--axp``/``--cxp`` is checked to be one (subset-minimal), else exit status 2.

Examples
--------
>>> import argparse
>>> parser = argparse.ArgumentParser(prog="xpg")
>>> register(parser.add_subparsers(dest="command"))
>>> args = parser.parse_args(["draw", "m.json", "--instance", "a=1", "--explain", "-o", "g.svg"])
>>> args.func is cmd_draw, args.explain, args.output
(True, True, 'g.svg')
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from xpg.cli.common import (
    BUDGET_HELP,
    FEATURES_HELP,
    add_command,
    braces,
    compiled_explainer,
    emit,
    is_model_file,
    load_explanation_graph,
    model_instance,
    parse_feature_list,
    positive_int,
    read_model_file,
)
from xpg.errors import InvalidInstanceError, InvalidQueryError

if TYPE_CHECKING:
    from xpg.core.xpgraph import ExplanationGraph

_NAME = {"axp": "AXp", "cxp": "CXp"}


def check_explanation(xg: ExplanationGraph, kind: str, names: list[str]) -> tuple[str, ...]:
    """``names`` when they form an AXp (``kind == "axp"``) or a CXp of ``xg``: sufficient
    (an AXp keeps the prediction, a CXp allows another) and subset-minimal.

    Raises
    ------
    InvalidQueryError
        Saying which of the two properties fails (and for minimality, which feature is
        not needed).

    Examples
    --------
    >>> from xpg.examples import and_xpg
    >>> xg = and_xpg()  # a and b, for a = b = 1
    >>> check_explanation(xg, "axp", ["b", "a"])
    ('a', 'b')
    >>> check_explanation(xg, "cxp", ["a", "b"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    xpg.errors.InvalidQueryError: --cxp {a, b} is not a CXp: not minimal, 'a' can be left out ...
    """
    from xpg.explain.axp_cxp import is_weak_axp, is_weak_cxp

    chosen = xg.indices(names)
    name = _NAME[kind]
    head = f"--{kind} {braces(xg.names(chosen))} is not a{'n' * (kind == 'axp')} {name}"
    holds = is_weak_axp if kind == "axp" else is_weak_cxp
    if not holds(xg, chosen):
        why = "another prediction stays possible" if kind == "axp" else "the prediction stays"
        raise InvalidQueryError(f"{head}: {why} (not even a weak {name})")
    for v in sorted(chosen):
        if holds(xg, chosen - {v}):
            raise InvalidQueryError(
                f"{head}: not minimal, {xg.var_names[v]!r} can be left out (weak {name} without it)"
            )
    return xg.names(chosen)


def cmd_draw(args: argparse.Namespace) -> int:
    """Handler of ``xpg draw``."""
    from xpg.io.dot import LEGEND, output_format, write_dot

    output_format(args.output)  # a bad extension fails before any work
    claim = "axp" if args.axp is not None else "cxp" if args.cxp is not None else None
    if args.explain:
        claim = "axp"
    graph: Any
    features: tuple[str, ...] = ()
    model_file = is_model_file(args.file)
    if model_file and args.instance is None and claim is not None:
        raise InvalidInstanceError(
            f"{args.file} is a model file: --axp, --cxp and --explain need the instance "
            "(--instance name=value,...)"
        )
    explainer = (
        compiled_explainer(
            read_model_file(args.file),
            args.budget,
            "xpg draw draws compiled decision graphs",
            "use xpg axp, cxp or enum, which explain it without compiling",
            args.file,
        )
        if model_file
        else None
    )
    if explainer is not None and args.instance is None:
        graph = explainer.graph
        title = f"{args.file}: {len(graph)} nodes, {graph.n_edges} edges"
    else:
        if explainer is not None:
            instance = model_instance(explainer.features, args.file, args.instance)
            with explainer.explain(instance) as decision:
                graph = decision.explanation_graph
        else:
            graph = load_explanation_graph(args.file, args.instance)
        prediction = "1" if graph.source is None else repr(graph.prediction)
        title = f"prediction {prediction}"
        if args.explain:
            from xpg.explain.axp_cxp import find_axp

            features = find_axp(graph)
        elif claim is not None:
            text = args.axp if claim == "axp" else args.cxp
            features = check_explanation(graph, claim, parse_feature_list(text, graph.var_names))
        if claim is not None:
            title = f"{_NAME[claim]} {braces(features)} of the {title}"
        title += f"\n{LEGEND}"
    fmt = write_dot(graph, args.output, features, title=title)
    plain = model_file and args.instance is None
    doc = {
        "output": args.output,
        "format": fmt,
        "nodes": len(graph) if plain else graph.n_nodes,
        "edges": graph.n_edges if plain else len(graph.edge_src),
        "kind": claim,
        "features": sorted(features) if claim is not None else None,
    }
    shown = f", {_NAME[claim]} {braces(features)} highlighted" if claim else ""
    text = f"wrote {args.output} ({fmt}, {doc['nodes']} nodes, {doc['edges']} edges{shown})"
    return emit(args, doc, text)


def register(subparsers: Any) -> None:
    """Add ``draw`` to the ``xpg`` sub-commands."""
    p = add_command(
        subparsers,
        "draw",
        cmd_draw,
        help="draw the graph with the instance's path and an explanation highlighted",
        description="Write the decision graph of a model (with --instance: its path marked) "
        "or the explanation graph of a .xpg file, as Graphviz DOT text (-o OUT.dot, needs "
        "nothing installed) or rendered by Graphviz's 'dot' program (-o OUT.svg, .png, .pdf; "
        "needs dot on PATH and the plot extra). The nodes testing the features of the "
        "explanation are filled in orange.",
        example="xpg draw model.json --instance x1=1,x2=0,age=70 --explain -o m.svg",
    )
    claim = p.add_mutually_exclusive_group()
    claim.add_argument("--axp", metavar="F1,F2,...", help="highlight this AXp: " + FEATURES_HELP)
    claim.add_argument("--cxp", metavar="F1,F2,...", help="highlight this CXp: " + FEATURES_HELP)
    claim.add_argument(
        "--explain", action="store_true", help="highlight the first AXp found (findAXp)"
    )
    p.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="OUT",
        help="the file to write: .dot or .gv (DOT text), .svg, .png or .pdf (rendered)",
    )
    p.add_argument("--budget", type=positive_int, metavar="N", help=BUDGET_HELP)
