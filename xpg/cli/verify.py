"""``xpg verify``: check a claimed AXp or CXp against the original model with an SMT solver.

``xpg verify MODEL.json --instance a=1,b=0 --axp a,b`` reads the model object from the
project's JSON format (a decision tree, list, OBDD, OMDD or graph: not its compiled graph),
and prints whether the claim holds, why, and a counterexample input when it fails.
``--timeout S`` (default :data:`~xpg.cli.common.ORACLE_TIMEOUT`) bounds the solver's time:
past it the claim is undecided, which the answer says (``"holds": null``,
``"timed_out": true`` and a ``"note"`` under ``--json``).
Exit status: 0 when the claim holds, 1 when it does not, 2 for bad input, 3 when the time
budget ran out first.

Examples
--------
>>> import argparse
>>> parser = argparse.ArgumentParser(prog="xpg")
>>> register(parser.add_subparsers(dest="command"))
>>> args = parser.parse_args(["verify", "m.json", "--instance", "a=1", "--axp", "a"])
>>> args.func is cmd_verify, args.axp, args.timeout
(True, 'a', 60.0)
"""

from __future__ import annotations

import argparse
import time
from typing import TYPE_CHECKING, Any

from xpg.cli.common import (
    FEATURES_HELP,
    INSTANCE_HELP,
    ORACLE_TIMEOUT,
    add_command,
    add_json_argument,
    braces,
    emit,
    parse_feature_list,
    parse_instance,
    positive_float,
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


#: exit status of ``xpg verify`` when the time budget ran out before the claim was decided
UNDECIDED = 3


class _OutOfTime(Exception):
    """The time budget of ``xpg verify`` was reached."""


def _timed_verifier(model: Any, seconds: float) -> Any:
    """A :class:`~xpg.verify.verifier.Verifier` whose solver calls together take at most
    ``seconds`` (each is given the time left, z3's own timeout); past it :class:`_OutOfTime`."""
    from pysmt.exceptions import SolverReturnedUnknownResultError

    from xpg.verify.verifier import Verifier

    class TimedVerifier(Verifier):
        deadline = time.perf_counter() + seconds

        def _other_class(self, *args: Any) -> dict[str, Any] | None:
            left = self.deadline - time.perf_counter()
            if left <= 0:
                raise _OutOfTime
            self._solver.z3.set("timeout", max(1, int(left * 1000)))
            try:
                return super()._other_class(*args)
            except SolverReturnedUnknownResultError:
                raise _OutOfTime from None

    return TimedVerifier(model)


def _undecided(args: argparse.Namespace, verifier: Any, instance: dict[str, Any]) -> int:
    """The answer when the time ran out: the claim, undecided, and what to do."""
    kind = "axp" if args.axp is not None else "cxp"
    names = [f.name for f in verifier.features]
    claim = _names(args.axp if kind == "axp" else args.cxp, names)
    prediction = verifier.predict(instance)
    note = (
        f"the time budget of {args.timeout:g} s was reached before the solver decided "
        "(raise it with --timeout S)"
    )
    doc = {
        "kind": kind,
        "features": [n for n in names if n in set(claim)],
        "holds": None,
        "failure": None,
        "reason": f"undecided: {note}",
        "prediction": prediction,
        "counterexample": None,
        "counterexample_prediction": None,
        "redundant_feature": None,
        "timed_out": True,
        "note": note,
    }
    head = f"{kind.upper()} {braces(doc['features'])} for class {prediction!r}: "
    emit(args, doc, f"{head}UNDECIDED: {note}")
    return UNDECIDED


def cmd_verify(args: argparse.Namespace) -> int:
    """Handler of ``xpg verify``: 0 when the claim holds, 1 when it does not, 3 when the time
    budget ran out first."""
    from xpg.core.graph import DecisionGraph
    from xpg.io.model_json import read_model

    model: Any = read_model(args.model)
    if args.axp is None and args.cxp is None:
        raise InvalidInstanceError("give the claim with --axp F1,F2,... or --cxp F1,F2,...")
    dg = DecisionGraph(model.features)
    instance = parse_instance(dg, args.instance)
    names = list(dg.feature_index)
    try:
        verifier = _timed_verifier(model, args.timeout)
    except (InvalidGraphError, InvalidModelError) as err:
        raise InvalidModelError(f"{args.model}: {err}") from None
    with verifier:
        try:
            if args.axp is not None:
                verdict = verifier.verify_axp(instance, _names(args.axp, names))
            else:
                verdict = verifier.verify_cxp(instance, _names(args.cxp, names))
        except _OutOfTime:
            return _undecided(args, verifier, instance)
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
        "claim holds; 1: it does not (a counterexample is printed when there is one); 3: "
        "the time budget (--timeout) ran out first.",
        file_arguments=False,
        example="xpg verify model.json --instance x1=1,x2=0,age=70 --axp age",
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
    p.add_argument(
        "--timeout",
        type=positive_float,
        metavar="S",
        default=ORACLE_TIMEOUT,
        help=f"give the solver at most S seconds in all (default {ORACLE_TIMEOUT:g}); past "
        f"them the claim is undecided: exit status {UNDECIDED}",
    )
    add_json_argument(p)
