"""Command-line handlers for membership, feature classification and smallest explanations.

``register(subparsers)`` adds three commands to the ``xpg`` parser:

* ``xpg member FILE FEATURE [--kind axp|cxp] [--json]``
* ``xpg features FILE [--json]``
* ``xpg smallest FILE [--kind axp|cxp] [--max-iterations N] [--json]``

FILE is a ``.xpg`` file, or a JSON model file with ``--instance``.  The report functions
(:func:`member_report`, :func:`features_report`, :func:`smallest_report`) take an
:class:`~xpg.core.xpgraph.ExplanationGraph` and return the JSON document and the text.

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
from typing import TYPE_CHECKING, Any

from xpg.cli.common import add_command, braces, emit, load_args_target, positive_int

if TYPE_CHECKING:
    from xpg.core.xpgraph import ExplanationGraph
    from xpg.explain.ensemble import EnsembleExplainer
    from xpg.explain.marco import ExplanationKind
    from xpg.explain.membership import Membership
    from xpg.explain.relevance import FeatureClassification
    from xpg.explain.smallest import SmallestExplanation

_NAME = {"axp": "AXp", "cxp": "CXp"}


def _is_graph(target: ExplanationGraph | EnsembleExplainer) -> bool:
    from xpg.core.xpgraph import ExplanationGraph

    return isinstance(target, ExplanationGraph)


def member_report(
    xg: ExplanationGraph | EnsembleExplainer, feature: str, kind: ExplanationKind
) -> tuple[dict[str, Any], str]:
    """``xpg member``: the JSON document and the text for one membership query (on an
    explanation graph, or a tree ensemble's :class:`~xpg.explain.ensemble.EnsembleExplainer`)."""
    from xpg.explain.membership import is_member

    target: Any = xg
    answer: Membership = (
        is_member(target, feature, kind) if _is_graph(xg) else target.is_member(feature, kind)
    )
    name = _NAME[kind]
    if answer.witness is not None:
        text = f"{answer.feature}: in some {name}, e.g. {braces(answer.witness)}"
    else:
        text = f"{answer.feature}: in no {name}"
    return answer.to_json(), f"{text} (route: {answer.route})"


def features_report(xg: ExplanationGraph | EnsembleExplainer) -> tuple[dict[str, Any], str]:
    """``xpg features``: every feature classified as necessary, relevant or irrelevant."""
    from xpg.explain.relevance import classify_features

    result: FeatureClassification = (
        classify_features(xg) if _is_graph(xg) else xg.classify_features()  # type: ignore[arg-type,union-attr]
    )
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
    xg: ExplanationGraph | EnsembleExplainer,
    kind: ExplanationKind,
    max_iterations: int | None = None,
) -> tuple[dict[str, Any], str]:
    """``xpg smallest``: a minimum-cardinality AXp or CXp (a tree ensemble adds the
    ``"route"`` of its explainer to the JSON)."""
    from xpg.explain.smallest import smallest_axp, smallest_cxp

    result: SmallestExplanation
    route = None
    if _is_graph(xg):
        find = smallest_axp if kind == "axp" else smallest_cxp
        result = find(xg, max_iterations=max_iterations)  # type: ignore[arg-type]
    else:
        ex: Any = xg
        find_e = ex.smallest_axp if kind == "axp" else ex.smallest_cxp
        result, route = find_e(max_iterations=max_iterations), ex.route
    if result.features is None:
        text = "no CXp: the prediction cannot change"
    else:
        status = "optimal" if result.optimal else f"not proved optimal (>= {result.lower_bound})"
        text = (
            f"smallest {_NAME[kind]} {braces(result.features)}: size {len(result.features)}, "
            f"{status}, {result.iterations} hitting-set iterations ({result.method}), "
            f"{result.seconds:.4f} s"
        )
    doc = result.to_json()
    if route is not None:
        doc["route"] = route
        text += f" (route: {route})"
    return doc, text


def _closing(target: Any) -> Any:
    """A context that closes an ensemble explainer (a graph needs none)."""
    import contextlib

    return contextlib.nullcontext() if _is_graph(target) else target


def cmd_member(args: argparse.Namespace) -> int:
    """Handler of ``xpg member``."""
    target = load_args_target(args)
    with _closing(target):
        return emit(args, *member_report(target, args.feature, args.kind))


def cmd_features(args: argparse.Namespace) -> int:
    """Handler of ``xpg features``."""
    target = load_args_target(args)
    with _closing(target):
        return emit(args, *features_report(target))


def cmd_smallest(args: argparse.Namespace) -> int:
    """Handler of ``xpg smallest``."""
    target = load_args_target(args)
    with _closing(target):
        return emit(args, *smallest_report(target, args.kind, args.max_iterations))


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
    )
    p.add_argument("feature", help="a feature name")
    _kind_argument(p)
    add_command(
        subparsers,
        "features",
        cmd_features,
        help="classify every feature: necessary, relevant or irrelevant",
        description="necessary: in every AXp; relevant: in some AXp but not all; "
        "irrelevant: in none.",
    )
    p = add_command(
        subparsers,
        "smallest",
        cmd_smallest,
        help="a smallest (minimum-cardinality) AXp or CXp, exactly",
        description="Implicit hitting sets with a MaxSAT solver; reports optimality and the "
        "number of hitting-set iterations.",
    )
    _kind_argument(p)
    p.add_argument(
        "--max-iterations",
        type=positive_int,
        metavar="N",
        help="stop after N hitting sets (the answer then says whether it is optimal)",
    )
