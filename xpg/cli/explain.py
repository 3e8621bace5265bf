"""``xpg axp``, ``xpg cxp`` and ``xpg enum``: one explanation, or all of them (MARCO).

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
import contextlib
import signal
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from xpg.cli.common import (
    FEATURES_HELP,
    add_command,
    braces,
    emit,
    load_args_target,
    parse_feature_list,
    positive_float,
    positive_int,
)

if TYPE_CHECKING:
    from xpg.core.xpgraph import ExplanationGraph
    from xpg.explain.ensemble import EnsembleExplainer


def _seed(args: argparse.Namespace, names: list[str]) -> list[str] | None:
    return parse_feature_list(args.seed, names) if args.seed else None


def _names(target: ExplanationGraph | EnsembleExplainer) -> list[str]:
    from xpg.core.xpgraph import ExplanationGraph

    return target.var_names if isinstance(target, ExplanationGraph) else target.features


def _one(args: argparse.Namespace, kind: str) -> tuple[tuple[str, ...] | None, float, str | None]:
    """One explanation of ``kind`` for FILE: the features, the seconds, the ensemble route."""
    from xpg.core.xpgraph import ExplanationGraph

    target = load_args_target(args)
    seed = _seed(args, _names(target))
    if isinstance(target, ExplanationGraph):
        from xpg.explain.axp_cxp import find_axp, find_cxp

        start = time.perf_counter()
        found = find_axp(target, seed=seed) if kind == "axp" else find_cxp(target, seed=seed)
        return found, time.perf_counter() - start, None
    with target:
        start = time.perf_counter()
        found = target.find_axp(seed) if kind == "axp" else target.find_cxp(seed)
        return found, time.perf_counter() - start, target.route


def cmd_axp(args: argparse.Namespace) -> int:
    """Handler of ``xpg axp`` (a tree-ensemble model adds ``"route"`` to the JSON)."""
    axp, seconds, route = _one(args, "axp")
    assert axp is not None
    doc: dict[str, Any] = {"kind": "axp", "features": sorted(axp), "seconds": seconds}
    if route is not None:
        doc["route"] = route
    return emit(args, doc, f"AXp {braces(axp)}")


def cmd_cxp(args: argparse.Namespace) -> int:
    """Handler of ``xpg cxp`` (a tree-ensemble model adds ``"route"`` to the JSON)."""
    cxp, seconds, route = _one(args, "cxp")
    text = f"CXp {braces(cxp)}" if cxp is not None else "no CXp: the prediction cannot change"
    doc = {"kind": "cxp", "features": sorted(cxp) if cxp is not None else None, "seconds": seconds}
    if route is not None:
        doc["route"] = route
    return emit(args, doc, text)


class Terminated(BaseException):
    """SIGTERM, raised in the main thread like :class:`KeyboardInterrupt` for SIGINT."""


@contextlib.contextmanager
def _sigterm_raises() -> Iterator[None]:
    """SIGTERM raises :class:`Terminated` inside the block (main thread only: elsewhere
    signal handlers cannot be set, and the default action stays)."""

    def handler(signum: int, frame: Any) -> None:
        raise Terminated

    try:
        previous = signal.signal(signal.SIGTERM, handler)
    except ValueError:  # not the main thread
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _is_solver_interrupt(err: Exception) -> bool:
    """The error python-sat raises when Ctrl-C arrives during a SAT call."""
    return type(err).__module__ == "pysolvers" and "keyboard interrupt" in str(err).lower()


def cmd_enum(args: argparse.Namespace) -> int:
    """Handler of ``xpg enum``: explanations streamed as found, then a summary.

    Ctrl-C (SIGINT) or SIGTERM stops the enumeration: what was found is printed (under
    ``--json``, the document with ``"complete": false``) and the exit status is 130 or 143.
    """
    from xpg.core.xpgraph import ExplanationGraph
    from xpg.explain.marco import Enumerator

    target = load_args_target(args)
    status = 0
    route = None
    en: Any
    if isinstance(target, ExplanationGraph):
        en = Enumerator(target, limit=args.limit, timeout=args.timeout)
        owner: Any = contextlib.nullcontext()
    else:
        en = target.iter_explanations(limit=args.limit, timeout=args.timeout)
        owner, route = target, target.route
    with owner, en:
        try:
            with _sigterm_raises():
                for found in en:
                    if not args.json:
                        print(f"{found.kind.upper()} {braces(found.features)}", flush=True)
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
    if status:
        result.complete = False
    state = "complete" if result.complete else "INCOMPLETE (budget reached)"
    if status:
        state = f"INCOMPLETE (interrupted by {'SIGINT' if status == 130 else 'SIGTERM'})"
    summary = f"{len(result.axps)} AXps, {len(result.cxps)} CXps, {state}, {result.seconds:.4f} s"
    doc = result.to_json()
    if route is not None:
        doc["route"] = route
        summary += f" (route: {route})"
    emit(args, doc, summary)
    return status


def _add_seed_argument(p: argparse.ArgumentParser, kind: str) -> None:
    p.add_argument("--seed", metavar="F1,F2,...", help=f"a weak {kind} to shrink: {FEATURES_HELP}")


def register(subparsers: Any) -> None:
    """Add ``axp``, ``cxp`` and ``enum`` to the ``xpg`` sub-commands."""
    p = add_command(
        subparsers, "axp", cmd_axp, help="one abductive explanation (why this prediction?)"
    )
    _add_seed_argument(p, "AXp")
    p = add_command(
        subparsers,
        "cxp",
        cmd_cxp,
        help="one contrastive explanation (what change could change it?)",
    )
    _add_seed_argument(p, "CXp")
    p = add_command(subparsers, "enum", cmd_enum, help="all AXps and CXps, streamed (MARCO)")
    p.add_argument("--limit", type=positive_int, help="stop after N explanations")
    p.add_argument("--timeout", type=positive_float, help="stop after S seconds")
