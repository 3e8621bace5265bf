"""``xpg axp``, ``xpg cxp`` and ``xpg enum``: one explanation, or all of them (MARCO).

FILE names one decision (:func:`~xpg.cli.common.load_args_target`): a model file's,
explained by the one explainer whatever its kind, or a ``.xpg`` file's; its route other
than the graph is named in the answer (``"route"``).  ``xpg axp --inflate`` also widens the
AXp found (:mod:`xpg.explain.inflate`): one ``inflated: CONDITION`` line per feature, in the
sorted order of ``"features"``, and ``"inflated"`` in the JSON, within what ``--timeout``
leaves.

Examples
--------
>>> import argparse
>>> parser = argparse.ArgumentParser(prog="xpg")
>>> register(parser.add_subparsers(dest="command"))
>>> args = parser.parse_args(["enum", "g.xpg", "--limit", "3"])
>>> args.func is cmd_enum, args.limit, args.timeout
(True, 3, None)

References
----------
Huang, Izza, Ignatiev, Marques-Silva. On Efficiently Explaining Graph-Based Classifiers.
KR 2021, Algs. 2-4.
"""

from __future__ import annotations

import argparse
import time
from typing import TYPE_CHECKING, Any

from xpg.cli.common import (
    FEATURES_HELP,
    Terminated,
    add_command,
    braces,
    describable,
    emit,
    explanation_statement,
    load_args_target,
    parse_feature_list,
    positive_float,
    positive_int,
    shown_route,
    sigterm_raises,
    stated_prediction,
    within_time,
)

if TYPE_CHECKING:
    from xpg.explain.decision import Decision


def _seed(args: argparse.Namespace, names: list[str]) -> list[str] | None:
    return parse_feature_list(args.seed, names) if args.seed else None


def _one(args: argparse.Namespace, kind: str) -> tuple[dict[str, Any], str]:
    """One explanation of ``kind`` for FILE within ``--timeout`` (as ``xpg member``,
    :func:`~xpg.cli.common.within_time`; by default
    :data:`~xpg.cli.common.ORACLE_TIMEOUT` seconds on a route other than the graph): the
    JSON document and the text."""
    given = args.timeout
    try:
        decision = load_args_target(args)  # sets the default on the oracle routes
        timeout, default = args.timeout, given is None and args.timeout is not None
    finally:
        args.timeout = given  # each --row starts from the option as given
    with decision:
        seed = _seed(args, decision.features)
        query = decision.axp if kind == "axp" else decision.cxp
        start = time.perf_counter()
        found, timed_out, _ = within_time(lambda t: query(seed, timeout=t), timeout)
        seconds = time.perf_counter() - start
        if timed_out:
            return _out_of_time(decision, kind, seconds, timeout, default)
        doc, text = _answer(decision, kind, found, seconds)
        if kind == "axp" and getattr(args, "inflate", False):
            left = None if timeout is None else max(0.0, timeout - seconds)
            return _inflated(decision, found, doc, text, (left, timeout, default))
        return doc, text


def _inflated(
    decision: Decision,
    found: Any,
    doc: dict[str, Any],
    text: str,
    budget: tuple[float | None, float | None, bool],
) -> tuple[dict[str, Any], str]:
    """The answer of ``xpg axp --inflate``: the AXp's features widened, in the sorted order
    of ``"features"``, within the time ``--timeout`` leaves (``budget``: that time, the
    budget, whether it was the default)."""
    from xpg.explain.inflate import inflate_decision

    left, timeout, default = budget
    names = sorted(found)
    inflated, timed_out, _ = within_time(
        lambda t: inflate_decision(decision, names, timeout=t), left
    )
    if timed_out or inflated is None:
        note = _budget_note("the AXp was not inflated", timeout, default)
        doc.update(inflated=None, timed_out=True, note=note)
        return doc, f"{text}\n{note}"
    doc["inflated"] = [f.as_dict() for f in inflated.features]
    lines = [f"inflated: {f.condition}" for f in inflated.features]
    return doc, "\n".join([text, *lines])


def _budget_note(what: str, timeout: float | None, default: bool) -> str:
    """The one-line note of a query cut by its time budget (``default``: the budget was
    :data:`~xpg.cli.common.ORACLE_TIMEOUT`, not given)."""
    budget = "the default time budget" if default else "the time budget"
    return f"{what}: {budget} of {timeout:g} s was reached (raise it with --timeout S)"


def _out_of_time(
    decision: Decision,
    kind: str,
    seconds: float,
    timeout: float | None,
    default: bool,
) -> tuple[dict[str, Any], str]:
    """The document and text of an explanation not found within the time budget: the fields
    of an answer, null, with ``"timed_out": true`` and a ``"note"``."""
    doc, lines = _head(decision, kind, None, seconds)
    route = doc.get("route")
    if describable(decision):
        if kind == "axp":
            doc["conditions"] = None
        else:
            doc.update(counterexample=None, counterexample_class=None)
    note = _budget_note(f"no {'AXp' if kind == 'axp' else 'CXp'} found", timeout, default)
    doc["timed_out"] = True
    doc["note"] = note
    lines.append(note if route is None else f"{note} (route: {route})")
    return doc, "\n".join(lines)


def _head(
    decision: Decision, kind: str, found: tuple[str, ...] | None, seconds: float
) -> tuple[dict[str, Any], list[str]]:
    """The fields every ``axp``/``cxp`` document starts with (the route where it is shown,
    the prediction of a model file), and the text's first line."""
    doc: dict[str, Any] = {
        "kind": kind,
        "features": sorted(found) if found is not None else None,
        "seconds": seconds,
    }
    route = shown_route(decision)
    if route is not None:
        doc["route"] = route
    prediction = stated_prediction(decision)
    if prediction is not None:
        doc["prediction"] = prediction
    return doc, [] if prediction is None else [f"prediction: {prediction}"]


def _answer(
    decision: Decision, kind: str, found: tuple[str, ...] | None, seconds: float
) -> tuple[dict[str, Any], str]:
    """The document and text of one explanation: the set, and for a model file the
    prediction and what the explanation means (:func:`explanation_statement`)."""
    doc, lines = _head(decision, kind, found, seconds)
    if found is None:
        lines.append("no CXp: the prediction cannot change")
        if describable(decision):
            doc.update(counterexample=None, counterexample_class=None)
        return doc, "\n".join(lines)
    fields, meaning = explanation_statement(decision, kind, found)
    doc.update(fields)
    lines.append(f"{'AXp' if kind == 'axp' else 'CXp'} {braces(found)}{meaning}")
    return doc, "\n".join(lines)


def cmd_axp(args: argparse.Namespace) -> int:
    """Handler of ``xpg axp`` (a route other than the graph adds ``"route"`` to the JSON)."""
    return emit(args, *_one(args, "axp"))


def cmd_cxp(args: argparse.Namespace) -> int:
    """Handler of ``xpg cxp`` (a route other than the graph adds ``"route"`` to the JSON)."""
    return emit(args, *_one(args, "cxp"))


def _is_solver_interrupt(err: Exception) -> bool:
    """The error python-sat raises when Ctrl-C arrives during a SAT call."""
    return type(err).__module__ == "pysolvers" and "keyboard interrupt" in str(err).lower()


def cmd_enum(args: argparse.Namespace) -> int:
    """Handler of ``xpg enum``: explanations streamed as found, then a summary.

    Ctrl-C (SIGINT) or SIGTERM stops the enumeration: what was found is printed (under
    ``--json``, the document with ``"complete": false``) and the exit status is 130 or 143.
    """
    given = args.timeout
    try:
        decision = load_args_target(args)  # sets the default on the oracle routes
        default = given is None and args.timeout is not None
    finally:
        args.timeout, timeout = given, args.timeout  # each --row starts from the option given
    prediction = stated_prediction(decision)
    if describable(decision):  # loaded before the enumeration's clock starts
        import xpg.explain.describe  # noqa: F401
    status = 0
    route = shown_route(decision)
    described = 0.0  # seconds spent stating explanations, not enumerating them
    with decision, decision.iter_explanations(limit=args.limit, timeout=timeout) as en:
        if prediction is not None and not args.json:
            print(f"prediction: {prediction}", flush=True)
        try:
            with sigterm_raises():
                for found in en:
                    if not args.json:
                        start = time.perf_counter()
                        _, meaning = explanation_statement(decision, found.kind, found.features)
                        described += time.perf_counter() - start
                        print(f"{found.kind.upper()} {braces(found.features)}{meaning}", flush=True)
        except KeyboardInterrupt:
            status = 130
        except Exception as err:
            # python-sat catches SIGINT inside a SAT call and raises its own error instead
            if not _is_solver_interrupt(err):
                raise
            status = 130
        except Terminated:
            status = 143
        result = en.result()
        result.seconds = max(result.seconds - described, 0.0)
        doc = result.to_json()
        if prediction is not None:
            doc["prediction"] = prediction
            # interrupted: out at once, without the statements
            if args.json and not status and describable(decision):
                doc.update(_statements(decision, result))
    if status:
        result.complete = False
    state = "complete" if result.complete else "INCOMPLETE (budget reached)"
    listed = len(result.axps) + len(result.cxps)
    if not result.complete and default and (args.limit is None or listed < args.limit):
        state = (
            f"INCOMPLETE (budget reached: the default --timeout of {timeout:g} s; "
            "raise it with --timeout)"
        )
    if status:
        state = f"INCOMPLETE (interrupted by {'SIGINT' if status == 130 else 'SIGTERM'})"
    summary = f"{len(result.axps)} AXps, {len(result.cxps)} CXps, {state}, {result.seconds:.4f} s"
    doc["complete"] = result.complete
    if route is not None:
        doc["route"] = route
        summary += f" (route: {route})"
    emit(args, doc, summary)
    return status


def _statements(decision: Decision, result: Any) -> dict[str, Any]:
    """The fields ``xpg enum --json`` adds for a model file besides the prediction: the
    conditions of each AXp (aligned with ``"axps"``) and a counterexample of each CXp
    (aligned with ``"cxps"``)."""
    cxps = [explanation_statement(decision, "cxp", c)[0] for c in result.cxps]
    return {
        "conditions": [
            explanation_statement(decision, "axp", a)[0]["conditions"] for a in result.axps
        ],
        "counterexamples": [c["counterexample"] for c in cxps],
        "counterexample_classes": [c["counterexample_class"] for c in cxps],
    }


def _add_seed_argument(p: argparse.ArgumentParser, kind: str) -> None:
    p.add_argument("--seed", metavar="F1,F2,...", help=f"a weak {kind} to shrink: {FEATURES_HELP}")


def _add_timeout_argument(p: argparse.ArgumentParser, kind: str) -> None:
    from xpg.cli.common import ORACLE_TIMEOUT

    p.add_argument(
        "--timeout",
        type=positive_float,
        metavar="S",
        help=f"stop after S seconds and say the budget was reached, with no {kind} (default: "
        f"{ORACLE_TIMEOUT:g} on a model explained without a compiled graph, a tree ensemble or "
        "a decision list too large to compile; none on a graph)",
    )


def register(subparsers: Any) -> None:
    """Add ``axp``, ``cxp`` and ``enum`` to the ``xpg`` sub-commands."""
    one = (
        ("axp", cmd_axp, "one abductive explanation (why this prediction?)", ""),
        ("cxp", cmd_cxp, "one contrastive explanation (what change could change it?)", " --json"),
    )
    for name, handler, summary, extra in one:
        p = add_command(
            subparsers,
            name,
            handler,
            help=summary,
            example=f"xpg {name} model.json --instance x1=1,x2=0,age=70{extra}",
        )
        kind = name[:2].upper() + name[2:]  # AXp, CXp
        _add_seed_argument(p, kind)
        _add_timeout_argument(p, kind)
        if name == "axp":
            p.add_argument(
                "--inflate",
                action="store_true",
                help="also widen each feature of the AXp found to the largest interval (a "
                "number) or set of values (a category) that keeps it an explanation, each "
                "given the others: one line 'inflated: CONDITION' per feature; JSON: "
                '"inflated", [{"feature", "condition", "low", "high", "low_inclusive", '
                '"high_inclusive"} or {"feature", "condition", "values"}] (a model file; '
                "within --timeout)",
            )
    p = add_command(
        subparsers,
        "enum",
        cmd_enum,
        help="all AXps and CXps, streamed (MARCO)",
        example="xpg enum ../shared/xpg-examples/mux6/mux6_0.xpg --limit 10",
    )
    p.add_argument("--limit", type=positive_int, help="stop after N explanations")
    p.add_argument("--timeout", type=positive_float, help="stop after S seconds")
