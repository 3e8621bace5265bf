"""Command-line handlers for membership, feature classification and smallest explanations.

``register(subparsers)`` adds three commands to the ``xpg`` parser:

* ``xpg member FILE FEATURE [--kind axp|cxp] [--timeout S] [--json]``
* ``xpg features FILE [--timeout S] [--json]``
* ``xpg smallest FILE [--kind axp|cxp] [--max-iterations N] [--timeout S] [--json]``

FILE is a ``.xpg`` file, or a JSON model file with ``--instance``.  The report functions
(:func:`member_report`, :func:`features_report`, :func:`smallest_report`) take an
:class:`~xpg.core.xpgraph.ExplanationGraph` (or the explainer of a model explained without a
graph) and return the JSON document and the text.

``--timeout S`` bounds the query: by default :data:`~xpg.cli.common.ORACLE_TIMEOUT` seconds on
a model explained without a compiled graph (a tree ensemble, a decision list too large to
compile), no limit on a graph.  When it is reached the answer says so: the JSON document has
``"timed_out": true`` and a one-line ``"note"`` (``xpg member``: ``"member": null``;
``xpg features``: the features decided, the others under ``"undecided"``,
``"complete": false``; ``xpg smallest``: the best explanation found, ``"optimal": false``),
and the text says what was reached and how to raise it.

Examples
--------
>>> from xpg.examples import and_xpg
>>> xg = and_xpg()  # a and b, for a = b = 1
>>> doc, text = member_report(xg, "a", "axp")
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
import contextlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from xpg.cli.common import (
    OutOfTime,
    add_command,
    braces,
    emit,
    load_args_target,
    positive_float,
    positive_int,
    time_limit,
)

if TYPE_CHECKING:
    from xpg.core.xpgraph import ExplanationGraph
    from xpg.explain.ensemble.explainer import OracleExplainer
    from xpg.explain.marco import ExplanationKind

_NAME = {"axp": "AXp", "cxp": "CXp"}
_T = TypeVar("_T")


def _is_graph(target: ExplanationGraph | OracleExplainer) -> bool:
    from xpg.core.xpgraph import ExplanationGraph

    return isinstance(target, ExplanationGraph)


def _run(
    target: ExplanationGraph | OracleExplainer,
    timeout: float | None,
    on_graph: Callable[[Any], _T],
    on_oracle: Callable[[Any], _T],
) -> tuple[_T | None, Any]:
    """``on_graph(target)`` or ``on_oracle(target)`` within ``timeout`` seconds: (the answer,
    None), or (None, what was decided) when the time ran out."""
    from xpg.explain.ensemble.explainer import QueryTimeout

    if _is_graph(target):
        try:
            with time_limit(timeout):
                return on_graph(target), None
        except OutOfTime:
            return None, None
    try:
        return on_oracle(target), None
    except QueryTimeout as err:
        return None, err.partial


def _timed_out(doc: dict[str, Any], what: str, timeout: float | None) -> str:
    """Mark ``doc`` as cut by the time budget; the one-line note, also returned."""
    budget = "the time budget" if timeout is None else f"the time budget of {timeout:g} s"
    note = f"{what}: {budget} was reached (raise it with --timeout S)"
    doc["timed_out"] = True
    doc["note"] = note
    return note


def _route(target: Any) -> str:
    from xpg.explain.membership import membership_route

    return str(target.route) if not _is_graph(target) else membership_route(target).route


def member_report(
    xg: ExplanationGraph | OracleExplainer,
    feature: str,
    kind: ExplanationKind,
    timeout: float | None = None,
) -> tuple[dict[str, Any], str]:
    """``xpg member``: the JSON document and the text for one membership query (on an
    explanation graph, or the explainer of a model explained without a graph), within
    ``timeout`` seconds."""
    from xpg.explain.membership import is_member

    answer, _ = _run(
        xg,
        timeout,
        lambda g: is_member(g, feature, kind),
        lambda ex: ex.is_member(feature, kind, timeout=timeout),
    )
    name = _NAME[kind]
    if answer is None:
        doc = {
            "feature": feature,
            "kind": kind,
            "member": None,
            "route": _route(xg),
            "witness": None,
        }
        note = _timed_out(doc, f"undecided whether {feature} is in some {name}", timeout)
        return doc, f"{note} (route: {doc['route']})"
    if answer.witness is not None:
        text = f"{answer.feature}: in some {name}, e.g. {braces(answer.witness)}"
    else:
        text = f"{answer.feature}: in no {name}"
    return answer.to_json(), f"{text} (route: {answer.route})"


def features_report(
    xg: ExplanationGraph | OracleExplainer, timeout: float | None = None
) -> tuple[dict[str, Any], str]:
    """``xpg features``: every feature classified as necessary, relevant or irrelevant, within
    ``timeout`` seconds (past it, the features decided and the others, undecided)."""
    from xpg.explain.relevance import classify_features

    result, partial = _run(
        xg, timeout, classify_features, lambda ex: ex.classify_features(timeout=timeout)
    )
    if result is None:
        names = list(xg.var_names if _is_graph(xg) else xg.features)  # type: ignore[union-attr]
        found = partial or {"necessary": [], "relevant": [], "irrelevant": [], "undecided": names}
        doc: dict[str, Any] = {k: sorted(found[k]) for k in ("necessary", "relevant", "irrelevant")}
        doc["route"] = _route(xg)
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
    xg: ExplanationGraph | OracleExplainer,
    kind: ExplanationKind,
    max_iterations: int | None = None,
    timeout: float | None = None,
) -> tuple[dict[str, Any], str]:
    """``xpg smallest``: a minimum-cardinality AXp or CXp (an explainer adds its ``"route"``
    to the JSON), within ``timeout`` seconds (past it, the best one found, if any)."""
    from xpg.explain.smallest import smallest_axp, smallest_cxp

    find = smallest_axp if kind == "axp" else smallest_cxp
    result, partial = _run(
        xg,
        timeout,
        lambda g: find(g, max_iterations=max_iterations),
        lambda ex: (ex.smallest_axp if kind == "axp" else ex.smallest_cxp)(
            max_iterations=max_iterations, timeout=timeout
        ),
    )
    route = None if _is_graph(xg) else _route(xg)
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
        if result is None:
            text += "\n" + _timed_out(doc, "the smallest found so far", timeout)
    if route is not None:
        doc["route"] = route
        text += f" (route: {route})"
    return doc, text


def _closing(target: Any) -> Any:
    """A context that closes an explainer (a graph needs none)."""
    return contextlib.nullcontext() if _is_graph(target) else target


def cmd_member(args: argparse.Namespace) -> int:
    """Handler of ``xpg member``."""
    target = load_args_target(args)
    with _closing(target):
        return emit(args, *member_report(target, args.feature, args.kind, args.timeout))


def cmd_features(args: argparse.Namespace) -> int:
    """Handler of ``xpg features``."""
    target = load_args_target(args)
    with _closing(target):
        return emit(args, *features_report(target, args.timeout))


def cmd_smallest(args: argparse.Namespace) -> int:
    """Handler of ``xpg smallest``."""
    target = load_args_target(args)
    with _closing(target):
        report = smallest_report(target, args.kind, args.max_iterations, args.timeout)
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
