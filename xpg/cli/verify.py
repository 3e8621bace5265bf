"""``xpg verify``: check a claimed AXp or CXp against the original model with an SMT solver.

``xpg verify MODEL.json --instance a=1,b=0 --axp a,b`` reads the model object from the
project's JSON format (a decision tree, list, OBDD, OMDD or graph: not its compiled graph),
and prints whether the claim holds, why, and a counterexample input when it fails.
Exit status: 0 when the claim holds, 1 when it does not, 2 for bad input.

Examples
--------
>>> import argparse
>>> parser = argparse.ArgumentParser(prog="xpg")
>>> register(parser.add_subparsers(dest="command"))
>>> args = parser.parse_args(["verify", "m.json", "--instance", "a=1", "--axp", "a"])
>>> args.func is cmd_verify, args.axp
(True, 'a')
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from xpg.cli.common import (
    FEATURES_HELP,
    INSTANCE_HELP,
    add_command,
    add_json_argument,
    braces,
    emit,
    parse_feature_list,
    parse_instance,
)
from xpg.errors import InvalidGraphError, InvalidInstanceError, InvalidModelError

if TYPE_CHECKING:
    from xpg.verify.verifier import Verdict


def _names(text: str, names: list[str]) -> list[str]:
    return [] if text.strip() in ("", "{}") else parse_feature_list(text, names)


def _format(verdict: Verdict) -> str:
    head = f"{verdict.kind.upper()} {braces(verdict.features)} for class {verdict.prediction!r}: "
    if verdict.holds:
        return head + f"holds ({verdict.reason})"
    lines = [head + f"does NOT hold, {verdict.failure}: {verdict.reason}"]
    if verdict.counterexample is not None:
        values = ", ".join(f"{k}={v}" for k, v in verdict.counterexample.items())
        lines.append(f"counterexample: {values} -> class {verdict.counterexample_prediction!r}")
    return "\n".join(lines)


def cmd_verify(args: argparse.Namespace) -> int:
    """Handler of ``xpg verify``: 0 when the claim holds, 1 when it does not."""
    from xpg.core.graph import DecisionGraph
    from xpg.io.model_json import read_model
    from xpg.verify.verifier import Verifier

    model: Any = read_model(args.model)
    if args.axp is None and args.cxp is None:
        raise InvalidInstanceError("give the claim with --axp F1,F2,... or --cxp F1,F2,...")
    dg = DecisionGraph(model.features)
    instance = parse_instance(dg, args.instance)
    names = list(dg.feature_index)
    try:
        verifier = Verifier(model)
    except (InvalidGraphError, InvalidModelError) as err:
        raise InvalidModelError(f"{args.model}: {err}") from None
    with verifier:
        if args.axp is not None:
            verdict = verifier.verify_axp(instance, _names(args.axp, names))
        else:
            verdict = verifier.verify_cxp(instance, _names(args.cxp, names))
    emit(args, verdict.to_json(), _format(verdict))
    return 0 if verdict.holds else 1


def register(subparsers: Any) -> None:
    """Add ``verify`` to the ``xpg`` sub-commands."""
    p = add_command(
        subparsers,
        "verify",
        cmd_verify,
        help="check a claimed AXp or CXp against the original model with an SMT solver",
        description="Check with an SMT solver (z3) whether a set of features is an AXp or a "
        "CXp of an instance for the original model of a JSON model file. Exit status 0: the "
        "claim holds; 1: it does not (a counterexample is printed when there is one).",
        file_arguments=False,
    )
    p.add_argument("model", help="a model file in the project's JSON format")
    p.add_argument(
        "--instance",
        required=True,
        metavar="NAME=VALUE,...|JSON|@FILE",
        help=INSTANCE_HELP,
    )
    claim = p.add_mutually_exclusive_group(required=True)
    claim.add_argument("--axp", metavar="F1,F2,...", help="the claimed AXp: " + FEATURES_HELP)
    claim.add_argument("--cxp", metavar="F1,F2,...", help="the claimed CXp: " + FEATURES_HELP)
    add_json_argument(p)
