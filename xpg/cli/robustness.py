"""``xpg robustness``: the exact l-infinity robustness of a decision, with a counterexample.

Examples
--------
>>> import argparse
>>> parser = argparse.ArgumentParser(prog="xpg")
>>> register(parser.add_subparsers(dest="command"))
>>> args = parser.parse_args(["robustness", "m.json", "--instance", "x=1", "--radius", "0.5"])
>>> args.func is cmd_robustness, args.radius, args.route
(True, 0.5, 'auto')

References
----------
Moshkovitz, Yang, Chaudhuri. Connecting Interpretability and Robustness in Decision Trees
through Separation. ICML 2021, Sec. 6.2.1.
"""

from __future__ import annotations

import argparse
import math
from typing import Any

from xpg.cli.common import (
    INSTANCE_HELP,
    add_command,
    add_json_argument,
    is_model_file,
    parse_instance,
)
from xpg.errors import InvalidInstanceError, InvalidModelError


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


def cmd_robustness(args: argparse.Namespace) -> int:
    """Handler of ``xpg robustness``."""
    import json

    from xpg.errors import InvalidGraphError
    from xpg.explain.exact_robustness import robustness
    from xpg.io import read_model

    if not is_model_file(args.file):
        raise InvalidModelError(
            f"{args.file}: expected a JSON model file (an explanation graph fixes the instance "
            "and has no feature values to move)"
        )
    model = read_model(args.file)
    try:
        dg = model.to_decision_graph()
        dg.validate()
    except InvalidGraphError as err:
        raise InvalidModelError(f"{args.file}: model: {err}") from None
    if args.instance is None:
        raise InvalidInstanceError(
            f"{args.file} is a model file: give the instance with --instance name=value,..."
        )
    instance = parse_instance(dg, args.instance)
    result = robustness(model, instance, radius=args.radius, route=args.route)
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


def register(subparsers: Any) -> None:
    """Add ``robustness`` to the ``xpg`` sub-commands."""
    p = add_command(
        subparsers,
        "robustness",
        cmd_robustness,
        help="exact l-infinity distance to the nearest input of another class",
        file_arguments=False,
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
        help="min-max programme on read-once graphs, best-first search on any (default: auto)",
    )
    add_json_argument(p)
