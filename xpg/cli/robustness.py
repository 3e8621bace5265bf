"""``xpg robustness``: the exact l-infinity robustness of a decision, with a counterexample.

The model's explainer (:func:`~xpg.cli.common.model_explainer`) compiles it when it fits
``--budget``, and its decision graph is searched
(:func:`~xpg.explain.exact_robustness.robustness`, ``--route``); a model it explains without
a graph (a tree ensemble or a decision list that does not compile within the budget) is
searched through its oracle when the explainer ``supports("robustness")``
(:meth:`~xpg.explain.decision.Decision.robustness`, route ``sat-pb`` or ``list-sat``), within
``--timeout`` seconds (default :data:`~xpg.cli.common.ORACLE_TIMEOUT`): past them the answer
says so (``"timed_out": true`` and a ``"note"``, ``"distance": null``).

Examples
--------
>>> import argparse
>>> parser = argparse.ArgumentParser(prog="xpg")
>>> register(parser.add_subparsers(dest="command"))
>>> args = parser.parse_args(["robustness", "m.json", "--instance", "x=1", "--radius", "0.5"])
>>> args.func is cmd_robustness, args.radius, args.route, args.budget, args.timeout
(True, 0.5, 'auto', None, None)

References
----------
Moshkovitz, Yang, Chaudhuri. Connecting Interpretability and Robustness in Decision Trees
through Separation. ICML 2021, Sec. 6.2.1.
"""

from __future__ import annotations

import argparse
import math
from typing import TYPE_CHECKING, Any

from xpg.cli.common import (
    BUDGET_HELP,
    INSTANCE_HELP,
    ORACLE_TIMEOUT,
    add_command,
    add_json_argument,
    is_model_file,
    model_explainer,
    model_instance,
    not_compiled_error,
    positive_float,
    positive_int,
    read_input_text,
    read_model_file,
    within_time,
)
from xpg.errors import InvalidInstanceError, InvalidModelError, InvalidQueryError

if TYPE_CHECKING:
    from xpg.explain.decision import Decision
    from xpg.explain.exact_robustness import Robustness


def _radius(text: str) -> float:
    """A finite non-negative number (else a usage error)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0.0 <= value < math.inf:
        raise argparse.ArgumentTypeError(f"expected a non-negative number, found {text!r}")
    return value


def _fmt(values: dict[str, Any]) -> str:
    return (
        "{"
        + ", ".join(f"{k}={v!r}" if isinstance(v, str) else f"{k}={v}" for k, v in values.items())
        + "}"
    )


class _Compiled:
    """A model with its decision graph already compiled (within the command's budget), for
    :func:`~xpg.explain.exact_robustness.robustness`: the graph is searched, the model
    itself classifies the counterexample."""

    def __init__(self, model: Any, dg: Any) -> None:
        self.model, self.dg = model, dg

    def to_decision_graph(self) -> Any:
        return self.dg

    def predict(self, x: Any) -> Any:
        return self.model.predict(x)


def _oracle_robustness(decision: Decision, radius: float | None, timeout: float | None) -> Any:
    """``decision.robustness`` with its oracle stopped ``timeout`` seconds from now (the
    method takes no ``timeout=``: the deadline is set here, and restored)."""
    import time

    oracle = decision.oracle
    before = oracle.deadline
    if timeout is not None:
        oracle.deadline = time.perf_counter() + timeout
    try:
        return decision.robustness(radius=radius)
    finally:
        oracle.deadline = before


def cmd_robustness(args: argparse.Namespace) -> int:
    """Handler of ``xpg robustness``."""
    import json

    from xpg.explain.exact_robustness import robustness

    if not is_model_file(args.file):
        from xpg.io.xpg_format import refuse_table

        refuse_table(read_input_text(args.file), args.file)  # a data table given as the model
        raise InvalidModelError(
            f"{args.file}: expected a JSON model file (an explanation graph fixes the instance "
            "and has no feature values to move)"
        )
    model = read_model_file(args.file)
    if args.instance is None:
        raise InvalidInstanceError(
            f"{args.file} is a model file: give the instance with --instance name=value,..."
        )
    if args.timeout is None:
        args.timeout = ORACLE_TIMEOUT
    explainer = model_explainer(model, args.budget, args.file, compile_if_fits=True)
    result: Robustness | None
    if explainer.supports("compile"):  # its compiled graph, searched as --route says
        instance = model_instance(explainer.features, args.file, args.instance)
        searched = _Compiled(model, explainer.graph)
        result = robustness(searched, instance, radius=args.radius, route=args.route)
    elif args.route != "auto":
        raise not_compiled_error(
            model,
            args.budget,
            "xpg robustness --route read-once or best-first searches a compiled decision graph",
            "use --route auto, which decides it with the SAT oracle, without compiling",
        )
    elif not explainer.supports("robustness"):
        raise InvalidQueryError(
            f"robustness: not defined on the {explainer.route} route of this model (it "
            "needs a compiled decision graph, or an oracle over cells of values)"
        )
    else:
        instance = model_instance(explainer.features, args.file, args.instance)
        with explainer.explain(instance) as decision:
            result, timed_out, _ = within_time(
                lambda t: _oracle_robustness(decision, args.radius, t), args.timeout
            )
            if timed_out:
                return _timed_out(args, decision.route)
    assert result is not None
    doc = result.to_json()
    if args.json:
        print(json.dumps(doc))
        return 0
    if result.counterexample is None:
        text = f"prediction {result.prediction!r}: no input of the domain is classified otherwise"
    else:
        how = "" if result.attained else " (an infimum: the counterexample lies just past it)"
        text = (
            f"prediction {result.prediction!r}: exact robustness {result.distance:g}{how}\n"
            f"counterexample {_fmt(result.counterexample)} is classified "
            f"{result.counterexample_class!r}"
        )
    if result.radius is not None:
        verdict = "robust" if result.robust else "NOT robust"
        text += f"\n{verdict} at radius {result.radius:g}"
    print(f"{text}\n(route {result.route}, {result.seconds:.4f} s)")
    return 0


def _timed_out(args: argparse.Namespace, route: str) -> int:
    """The answer when the oracle's time budget ran out: no distance, and what to do."""
    import json

    note = (
        f"undecided: the time budget of {args.timeout:g} s was reached before the search "
        "ended (raise it with --timeout S)"
    )
    doc = {
        "distance": None,
        "counterexample": None,
        "counterexample_class": None,
        "seconds": args.timeout,
        "route": route,
        "timed_out": True,
        "note": note,
    }
    if args.radius is not None:
        doc.update(radius=args.radius, robust=None)
    print(json.dumps(doc) if args.json else f"robustness {note} (route {route})")
    return 0


def register(subparsers: Any) -> None:
    """Add ``robustness`` to the ``xpg`` sub-commands."""
    p = add_command(
        subparsers,
        "robustness",
        cmd_robustness,
        help="exact l-infinity distance to the nearest input of another class",
        file_arguments=False,
        example="xpg robustness model.json --instance x1=1,x2=0,age=70 --radius 5",
    )
    p.add_argument("file", help="a JSON model file")
    p.add_argument(
        "--instance",
        metavar="NAME=VALUE,...|JSON|@FILE",
        help=INSTANCE_HELP,
    )
    p.add_argument(
        "--radius", type=_radius, help="also say whether the decision is robust at radius R"
    )
    p.add_argument(
        "--route",
        choices=["auto", "read-once", "best-first"],
        default="auto",
        help="min-max programme on read-once graphs, best-first search on any; auto picks "
        "one, or the SAT oracle when the model does not compile within --budget (default)",
    )
    p.add_argument("--budget", type=positive_int, metavar="N", help=BUDGET_HELP)
    p.add_argument(
        "--timeout",
        type=positive_float,
        metavar="S",
        help=f"stop the SAT oracle's search after S seconds (default {ORACLE_TIMEOUT:g}) and "
        "say so",
    )
    add_json_argument(p)
