"""The ``xpg`` command line.

Every command that prints results takes ``--json``.  Bad input ends with a one-line
message on standard error and exit status 2, never a traceback.

Examples
--------
>>> main(["--version"])  # doctest: +ELLIPSIS
xpg ...
0
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

from xpg import __version__
from xpg.core.graph import DecisionGraph
from xpg.core.xpgraph import ExplanationGraph
from xpg.errors import InvalidInstanceError, XpgError
from xpg.explain.axp_cxp import find_axp, find_cxp
from xpg.explain.marco import Enumerator
from xpg.io import load_model, read_xpg, write_xpg


# -- loading ---------------------------------------------------------------------------------------
def is_model_file(path: str) -> bool:
    """A JSON model file (by extension, or by content starting with ``{``)."""
    if path.endswith(".json"):
        return True
    if path.endswith(".xpg"):
        return False
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read(1024).lstrip().startswith("{")
    except (OSError, UnicodeDecodeError):
        return False


def parse_instance(dg: DecisionGraph, text: str) -> dict[str, Any]:
    """``name=value,name=value`` (or a JSON object) -> a checked instance."""
    text = text.strip()
    if text.startswith("{"):
        try:
            raw = json.loads(text)
        except json.JSONDecodeError as err:
            raise InvalidInstanceError(f"--instance: malformed JSON object: {err.msg}") from None
        if not isinstance(raw, dict):
            raise InvalidInstanceError("--instance: expected a JSON object of feature values")
        values = dict(raw)
    else:
        values = {}
        for part in filter(None, (p.strip() for p in text.split(","))):
            name, sep, value = part.partition("=")
            if not sep:
                raise InvalidInstanceError(f"--instance: expected name=value, found {part!r}")
            name = name.strip()
            if name not in dg.feature_index:
                raise InvalidInstanceError(
                    f"--instance: unknown feature {name!r} "
                    f"(expected: {', '.join(dg.feature_index)})"
                )
            values[name] = dg.features[dg.feature_index[name]].parse_value(value)
    dg.instance_values(values)  # every feature present and in its domain
    return values


def load_explanation_graph(path: str, instance: str | None) -> ExplanationGraph:
    """The XpG named on the command line: a ``.xpg`` file, or a JSON model with an instance."""
    if is_model_file(path):
        dg = load_model(path)
        if instance is None:
            raise InvalidInstanceError(
                f"{path} is a model file: give the instance with --instance name=value,..."
            )
        return ExplanationGraph.from_decision_graph(dg, parse_instance(dg, instance))
    if instance is not None:
        raise InvalidInstanceError(
            f"{path} is an explanation graph (.xpg) for one instance already: drop --instance"
        )
    return read_xpg(path)


def _emit(args: argparse.Namespace, doc: dict[str, Any], text: str) -> None:
    print(json.dumps(doc) if args.json else text)


def _fmt(features: Sequence[str] | None) -> str:
    return "{" + ", ".join(features) + "}" if features is not None else "none"


# -- commands --------------------------------------------------------------------------------------
def cmd_axp(args: argparse.Namespace) -> int:
    xg = load_explanation_graph(args.file, args.instance)
    start = time.perf_counter()
    axp = find_axp(xg, seed=args.seed.split(",") if args.seed else None)
    seconds = time.perf_counter() - start
    _emit(args, {"kind": "axp", "features": sorted(axp), "seconds": seconds}, f"AXp {_fmt(axp)}")
    return 0


def cmd_cxp(args: argparse.Namespace) -> int:
    xg = load_explanation_graph(args.file, args.instance)
    start = time.perf_counter()
    cxp = find_cxp(xg, seed=args.seed.split(",") if args.seed else None)
    seconds = time.perf_counter() - start
    text = f"CXp {_fmt(cxp)}" if cxp is not None else "no CXp: the prediction cannot change"
    doc = {"kind": "cxp", "features": sorted(cxp) if cxp is not None else None, "seconds": seconds}
    _emit(args, doc, text)
    return 0


def cmd_enum(args: argparse.Namespace) -> int:
    xg = load_explanation_graph(args.file, args.instance)
    with Enumerator(xg, limit=args.limit, timeout=args.timeout) as en:
        for found in en:
            if not args.json:
                print(f"{found.kind.upper()} {_fmt(found.features)}", flush=True)
        doc = {
            "axps": [sorted(x) for x in en.axps],
            "cxps": [sorted(x) for x in en.cxps],
            "complete": en.complete,
            "seconds": en.seconds,
        }
        summary = (
            f"{len(en.axps)} AXps, {len(en.cxps)} CXps, "
            f"{'complete' if en.complete else 'INCOMPLETE (budget reached)'}, {en.seconds:.4f} s"
        )
    _emit(args, doc, summary)
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    xg = load_explanation_graph(args.file, args.instance)
    write_xpg(xg, args.output)
    _emit(
        args,
        {"output": args.output, "nodes": xg.n_nodes, "edges": len(xg.edge_src)},
        f"wrote {args.output} ({xg.n_nodes} nodes, {len(xg.edge_src)} edges)",
    )
    return 0


def cmd_validate(args: argparse.Namespace) -> int:
    if is_model_file(args.file):
        dg = load_model(args.file)  # validates
        doc = {"file": args.file, "valid": True, "nodes": len(dg), "edges": dg.n_edges}
    else:
        xg = read_xpg(args.file)
        doc = {"file": args.file, "valid": True, "nodes": xg.n_nodes, "edges": len(xg.edge_src)}
    _emit(args, doc, f"{args.file}: valid ({doc['nodes']} nodes, {doc['edges']} edges)")
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from xpg.cli.demo import format_report, report_to_json, run_demo

    report = run_demo(args.dataset, args.instances, args.depth, args.seed)
    _emit(args, report_to_json(report), format_report(report))
    return 0


# -- parser ----------------------------------------------------------------------------------------
def _file_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help="a .xpg explanation graph, or a JSON model file with --instance")
    p.add_argument(
        "--instance",
        metavar="NAME=VALUE,...",
        help="the instance to explain (for a model file); also a JSON object",
    )
    p.add_argument("--json", action="store_true", help="print one JSON document")


def positive_int(text: str) -> int:
    """An option value that must be a positive integer."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, found {text!r}")
    return value


def positive_float(text: str) -> float:
    """An option value that must be a positive (finite) number of seconds."""
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number, found {text!r}")
    return value


class OneLineErrorParser(argparse.ArgumentParser):
    """Usage errors as one line on standard error and exit status 2 (no usage block)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``xpg``."""
    parser = OneLineErrorParser(
        prog="xpg",
        description="Explain classifier decisions with proofs: abductive (AXp) and "
        "contrastive (CXp) explanations of decision trees, lists, diagrams and graphs.",
    )
    parser.add_argument("--version", action="version", version=f"xpg {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    p = sub.add_parser("demo", help="train a tree on bundled data and explain several decisions")
    p.add_argument("--dataset", choices=["breast_cancer", "wine", "iris"], default="breast_cancer")
    p.add_argument("--instances", type=positive_int, default=5, help="decisions to explain")
    p.add_argument("--depth", type=positive_int, default=6, help="maximum tree depth")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser("axp", help="one abductive explanation (why this prediction?)")
    _file_args(p)
    p.add_argument("--seed", metavar="F1,F2,...", help="a weak AXp to shrink (feature names)")
    p.set_defaults(func=cmd_axp)

    p = sub.add_parser("cxp", help="one contrastive explanation (what change could change it?)")
    _file_args(p)
    p.add_argument("--seed", metavar="F1,F2,...", help="a weak CXp to shrink (feature names)")
    p.set_defaults(func=cmd_cxp)

    p = sub.add_parser("enum", help="all AXps and CXps, streamed (MARCO)")
    _file_args(p)
    p.add_argument("--limit", type=positive_int, help="stop after N explanations")
    p.add_argument("--timeout", type=positive_float, help="stop after S seconds")
    p.set_defaults(func=cmd_enum)

    p = sub.add_parser("export", help="write the .xpg explanation graph of a model and instance")
    _file_args(p)
    p.add_argument("-o", "--output", required=True, help="the .xpg file to write")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("validate", help="check a model file or a .xpg file")
    p.add_argument("file")
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.set_defaults(func=cmd_validate)

    for register in _extra_registrations():
        register(sub)
    return parser


def _extra_registrations() -> list[Callable[[Any], None]]:
    """Sub-commands contributed by other modules of the package."""
    from xpg.cli import membership, verify

    return [membership.register, verify.register, _register_bench]


def _register_bench(sub: Any) -> None:
    p = sub.add_parser(
        "bench",
        help="run a benchmark of bench/ (from the repository root)",
        description="Run one of the benchmarks in the repository's bench/ folder, e.g. "
        "'xpg bench table2 --quick'; 'xpg bench NAME --help' lists its options. The benchmarks "
        "are not installed with the package: run from the root of a checkout.",
    )
    p.add_argument("name", help="table1, table2, peers, pyxai, growth, core-speed, membership, ...")
    p.add_argument("options", nargs=argparse.REMAINDER, help="options passed to the benchmark")
    p.set_defaults(func=cmd_bench)


def cmd_bench(args: argparse.Namespace) -> int:
    """``xpg bench NAME [options]``: run ``bench.cli.run`` from the checkout in the cwd."""
    root = Path.cwd()
    if not (root / "bench" / "cli.py").is_file():
        raise XpgError(
            f"no bench/cli.py in {root}: run 'xpg bench' from the root of an xpg checkout "
            "(the benchmarks are not installed with the package)"
        )
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    from bench.cli import run  # type: ignore[import-not-found]

    return run(args.name, args.options)


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``xpg``; returns the exit status (2 for bad input, with a one-line message)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return int(exit_.code or 0)
    try:
        return int(args.func(args))
    except XpgError as err:
        message = " ".join(str(err).split())
        print(f"xpg {args.command}: error: {message}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        print("xpg: interrupted", file=sys.stderr)
        return 130


def entry_point() -> None:
    """Console-script entry: exit with :func:`main`'s status."""
    sys.exit(main())


if __name__ == "__main__":
    entry_point()
