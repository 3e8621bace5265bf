"""Command-line handlers for membership, feature classification and smallest explanations.

``register(subparsers)`` adds three commands to the ``xpg`` parser:

* ``xpg member FILE FEATURE [--kind axp|cxp] [--timeout S] [--json]``
* ``xpg features FILE [--timeout S] [--json]``
* ``xpg smallest FILE [--kind axp|cxp] [--max-iterations N] [--timeout S] [--json]``

FILE is a ``.xpg`` file, or a JSON model file with ``--instance``: one decision, explained
by the one explainer (:func:`~xpg.cli.common.load_args_target`).  The report functions
(:func:`member_report`, :func:`features_report`, :func:`smallest_report`) take that
:class:`~xpg.explain.decision.Decision` and return the JSON document and the text.

``--timeout S`` bounds the query (:func:`~xpg.cli.common.within_time`): by default
:data:`~xpg.cli.common.ORACLE_TIMEOUT` seconds on a model explained without a compiled graph
(a tree ensemble, a decision list too large to compile), no limit on a graph.  When it is
reached the answer says so: the JSON document has
``"timed_out": true`` and a one-line ``"note"`` (``xpg member``: ``"member": null``;
``xpg features``: the features decided, the others under ``"undecided"``,
``"complete": false``; ``xpg smallest``: the best explanation found, ``"optimal": false``),
and the text says what was reached and how to raise it.

Examples
--------
>>> from xpg.examples import and_xpg
>>> from xpg.explain.decision import Decision
>>> from xpg.explain.graph_oracle import GraphOracle
>>> decision = Decision(GraphOracle(and_xpg()))  # a and b, for a = b = 1
>>> doc, text = member_report(decision, "a", "axp")
>>> doc
{'feature': 'a', 'kind': 'axp', 'member': True, 'route': 'tree-polynomial', 'witness': ['a', 'b']}
>>> print(text)
a: in some AXp, e.g. {a, b} (route: tree-polynomial)

References
----------
Huang, Izza, Ignatiev, Marques-Silva. On Efficiently Explaining Graph-Based Classifiers.
KR 2021, Sect. 5 (deciding explanation membership).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from xpg.cli.common import (
    add_command,
    braces,
    emit,
    load_args_target,
    positive_float,
    positive_int,
    shown_route,
    within_time,
)

if TYPE_CHECKING:
    from xpg.explain.decision import Decision
    from xpg.explain.marco import ExplanationKind

_NAME = {"axp": "AXp", "cxp": "CXp"}


def _timed_out(doc: dict[str, Any], what: str, timeout: float | None) -> str:
    """Mark ``doc`` as cut by the time budget; the one-line note, also returned."""
    budget = "the time budget" if timeout is None else f"the time budget of {timeout:g} s"
    note = f"{what}: {budget} was reached (raise it with --timeout S)"
    doc["timed_out"] = True
    doc["note"] = note
    return note


def _membership_route(decision: Decision, kind: ExplanationKind = "axp") -> str:
    """The route a membership query (or the feature classes) takes on ``decision``: the
    graph route's own choice (``"tree-polynomial"`` or ``"sat"``), else the decision's."""
    if decision.route != "graph":
        return decision.route
    from xpg.explain.membership import membership_route

    return membership_route(decision.explanation_graph, kind).route


def member_report(
    decision: Decision,
    feature: str,
    kind: ExplanationKind,
    timeout: float | None = None,
) -> tuple[dict[str, Any], str]:
    """``xpg member``: the JSON document and the text for one membership query, within
    ``timeout`` seconds."""
    answer, timed_out, _ = within_time(
        lambda t: decision.is_member(feature, kind, timeout=t), timeout
    )
    name = _NAME[kind]
    if timed_out:
        doc = {
            "feature": feature,
            "kind": kind,
            "member": None,
            "route": _membership_route(decision, kind),
            "witness": None,
        }
        note = _timed_out(doc, f"undecided whether {feature} is in some {name}", timeout)
        return doc, f"{note} (route: {doc['route']})"
    assert answer is not None
    if answer.witness is not None:
        text = f"{answer.feature}: in some {name}, e.g. {braces(answer.witness)}"
    else:
        text = f"{answer.feature}: in no {name}"
    return answer.to_json(), f"{text} (route: {answer.route})"


def features_report(decision: Decision, timeout: float | None = None) -> tuple[dict[str, Any], str]:
    """``xpg features``: every feature classified as necessary, relevant or irrelevant, within
    ``timeout`` seconds (past it, the features decided and the others, undecided)."""
    result, timed_out, partial = within_time(
        lambda t: decision.classify_features(timeout=t), timeout
    )
    if timed_out:
        names = list(decision.features)
        found = partial or {"necessary": [], "relevant": [], "irrelevant": [], "undecided": names}
        doc: dict[str, Any] = {k: sorted(found[k]) for k in ("necessary", "relevant", "irrelevant")}
        doc["route"] = _membership_route(decision)
        doc["undecided"] = sorted(found["undecided"])
        doc["complete"] = False
        note = _timed_out(doc, f"{len(found['undecided'])} features undecided", timeout)
        lines = [
            f"necessary:  {', '.join(found['necessary']) or '-'}",
            f"relevant:   {', '.join(found['relevant']) or '-'}",
            f"irrelevant: {', '.join(found['irrelevant']) or '-'}",
            f"undecided:  {', '.join(found['undecided']) or '-'}",
            f"route: {doc['route']}",
            f"INCOMPLETE: {note}",
        ]
        return doc, "\n".join(lines)
    assert result is not None
    lines = [
        f"necessary:  {', '.join(result.necessary) or '-'}",
        f"relevant:   {', '.join(result.relevant) or '-'}",
        f"irrelevant: {', '.join(result.irrelevant) or '-'}",
        f"route: {result.route}"
        + (
            f" ({result.sat_calls} membership SAT call{'s' * (result.sat_calls != 1)}, "
            f"{result.enumerated} explanations enumerated alongside)"
            if result.route == "sat"
            else ""
        ),
    ]
    return result.to_json(), "\n".join(lines)


def smallest_report(
    decision: Decision,
    kind: ExplanationKind,
    max_iterations: int | None = None,
    timeout: float | None = None,
) -> tuple[dict[str, Any], str]:
    """``xpg smallest``: a minimum-cardinality AXp or CXp (a route other than the graph is
    added to the JSON as ``"route"``), within ``timeout`` seconds (past it, the best one
    found, if any)."""
    find = decision.smallest_axp if kind == "axp" else decision.smallest_cxp
    result, timed_out, partial = within_time(
        lambda t: find(max_iterations=max_iterations, timeout=t), timeout
    )
    route = shown_route(decision)
    if result is None and partial is None:
        doc: dict[str, Any] = {
            "kind": kind,
            "features": None,
            "optimal": False,
            "lower_bound": 0,
            "iterations": 0,
            "method": "implicit-hitting-set",
            "seconds": timeout,
        }
        text = _timed_out(doc, f"no {_NAME[kind]} found", timeout)
    else:
        found = result if result is not None else partial
        doc = found.to_json()
        if found.features is None:
            text = "no CXp: the prediction cannot change"
        else:
            status = "optimal" if found.optimal else f"not proved optimal (>= {found.lower_bound})"
            text = (
                f"smallest {_NAME[kind]} {braces(found.features)}: size {len(found.features)}, "
                f"{status}, {found.iterations} hitting-set iterations ({found.method}), "
                f"{found.seconds:.4f} s"
            )
        if timed_out:
            text += "\n" + _timed_out(doc, "the smallest found so far", timeout)
    if route is not None:
        doc["route"] = route
        text += f" (route: {route})"
    return doc, text


def cmd_member(args: argparse.Namespace) -> int:
    """Handler of ``xpg member``."""
    with load_args_target(args) as decision:
        return emit(args, *member_report(decision, args.feature, args.kind, args.timeout))


def cmd_features(args: argparse.Namespace) -> int:
    """Handler of ``xpg features``."""
    with load_args_target(args) as decision:
        return emit(args, *features_report(decision, args.timeout))


def cmd_smallest(args: argparse.Namespace) -> int:
    """Handler of ``xpg smallest``."""
    with load_args_target(args) as decision:
        report = smallest_report(decision, args.kind, args.max_iterations, args.timeout)
        return emit(args, *report)


def _timeout_argument(p: argparse.ArgumentParser) -> None:
    from xpg.cli.common import ORACLE_TIMEOUT

    p.add_argument(
        "--timeout",
        type=positive_float,
        metavar="S",
        help=f"stop after S seconds and say what was decided (default: {ORACLE_TIMEOUT:g} on a "
        "model explained without a compiled graph, a tree ensemble or a decision list too "
        "large to compile; none on a graph)",
    )


def _kind_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument("--kind", choices=["axp", "cxp"], default="axp", help="default: axp")


def register(subparsers: Any) -> None:
    """Add ``member``, ``features`` and ``smallest`` to the ``xpg`` sub-command parsers."""
    p = add_command(
        subparsers,
        "member",
        cmd_member,
        help="is a feature in some AXp/CXp? (route taken and a witness)",
        description="Decide whether FEATURE belongs to some AXp (equivalently some CXp): "
        "in polynomial time on tree explanation graphs, with one SAT call otherwise.",
        example='xpg member ../shared/xpg-examples/mux6/mux6_0.xpg "Bit 0" --json',
    )
    p.add_argument("feature", help="a feature name")
    _kind_argument(p)
    _timeout_argument(p)
    p = add_command(
        subparsers,
        "features",
        cmd_features,
        help="classify every feature: necessary, relevant or irrelevant",
        description="necessary: in every AXp; relevant: in some AXp but not all; "
        "irrelevant: in none.",
        example="xpg features model.json --instance x1=1,x2=0,age=70",
    )
    _timeout_argument(p)
    p = add_command(
        subparsers,
        "smallest",
        cmd_smallest,
        help="a smallest (minimum-cardinality) AXp or CXp, exactly",
        description="Implicit hitting sets with a MaxSAT solver; reports optimality and the "
        "number of hitting-set iterations.",
        example="xpg smallest model.json --instance x1=1,x2=0,age=70 --kind cxp",
    )
    _kind_argument(p)
    p.add_argument(
        "--max-iterations",
        type=positive_int,
        metavar="N",
        help="stop after N hitting sets (the answer then says whether it is optimal)",
    )
    _timeout_argument(p)
