"""Helpers shared by every ``xpg`` command: reading FILE, option types, output, errors.

FILE is a ``.xpg`` explanation graph, or a JSON model file together with ``--instance``.
Every command that prints results takes ``--json`` (:func:`add_json_argument`,
:func:`emit`); bad input ends with a one-line message on standard error and exit status 2
(:func:`run_command`, :class:`OneLineErrorParser`).  Nothing heavy is imported here: the
library modules a command needs are imported when it runs.

Examples
--------
>>> positive_int("3")
3
>>> braces(["a", "b"])
'{a, b}'
>>> parser = OneLineErrorParser(prog="xpg")
>>> sub = parser.add_subparsers(dest="command")
>>> add_file_arguments(sub.add_parser("axp"))
>>> args = parser.parse_args(["axp", "g.xpg", "--json"])
>>> args.file, args.instance, args.json
('g.xpg', None, True)
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

from xpg.errors import InvalidInstanceError, XpgError

if TYPE_CHECKING:
    from xpg.core.graph import DecisionGraph
    from xpg.core.xpgraph import ExplanationGraph

#: A command handler: the parsed arguments in, the exit status out.
Handler = Callable[[argparse.Namespace], int]


# -- reading FILE ----------------------------------------------------------------------------------
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
    """``name=value,name=value`` (or a JSON object) -> a checked instance.

    Raises
    ------
    InvalidInstanceError
        For malformed text, an unknown feature, or a value outside its feature's domain.
    """
    text = text.strip()
    if text.startswith("{"):
        import json

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
    """The XpG named on the command line: a ``.xpg`` file, or a JSON model with an instance.

    Raises
    ------
    InvalidInstanceError
        When a model file comes without ``--instance``, or a ``.xpg`` file with one.
    """
    if is_model_file(path):
        from xpg.core.xpgraph import ExplanationGraph
        from xpg.io import load_model

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
    from xpg.io import read_xpg

    return read_xpg(path)


def load_args_graph(args: argparse.Namespace) -> ExplanationGraph:
    """:func:`load_explanation_graph` of the ``file`` and ``--instance`` arguments."""
    return load_explanation_graph(args.file, args.instance)


# -- arguments -------------------------------------------------------------------------------------
def add_json_argument(p: argparse.ArgumentParser) -> None:
    """The ``--json`` flag of every command that prints results."""
    p.add_argument("--json", action="store_true", help="print one JSON document")


def add_file_arguments(p: argparse.ArgumentParser) -> None:
    """FILE, ``--instance`` and ``--json``: the arguments of a command that explains."""
    p.add_argument("file", help="a .xpg explanation graph, or a JSON model file with --instance")
    p.add_argument(
        "--instance",
        metavar="NAME=VALUE,...",
        help="the instance to explain (for a model file); also a JSON object",
    )
    add_json_argument(p)


def add_command(
    subparsers: Any,
    name: str,
    handler: Handler,
    *,
    help: str,
    description: str | None = None,
    file_arguments: bool = True,
) -> argparse.ArgumentParser:
    """A sub-command run by ``handler``; FILE, ``--instance`` and ``--json`` come first unless
    ``file_arguments`` is false (:func:`add_file_arguments`)."""
    p: argparse.ArgumentParser = subparsers.add_parser(name, help=help, description=description)
    if file_arguments:
        add_file_arguments(p)
    p.set_defaults(func=handler)
    return p


_Number = TypeVar("_Number", int, float)


def _positive(text: str, convert: Callable[[str], _Number], what: str) -> _Number:
    """``text`` converted, when it is a positive finite number.

    Raises
    ------
    argparse.ArgumentTypeError
        For anything else (argparse turns it into a usage error).
    """
    try:
        value: _Number | None = convert(text)
    except ValueError:
        value = None
    if value is None or not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive {what}, found {text!r}")
    return value


def positive_int(text: str) -> int:
    """An option value that must be a positive integer (else a usage error)."""
    return _positive(text, int, "integer")


def positive_float(text: str) -> float:
    """An option value that must be a positive (finite) number of seconds (else a usage error)."""
    return _positive(text, float, "number")


def terminal_columns() -> int:
    """``shutil.get_terminal_size().columns``, without importing shutil (which imports zlib,
    bz2 and lzma: a millisecond of the start-up of every command, for a number).

    >>> terminal_columns() > 0
    True
    """
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, as wide as the terminal (:func:`terminal_columns`)."""

    def __init__(
        self,
        prog: str,
        indent_increment: int = 2,
        max_help_position: int = 24,
        width: int | None = None,
    ) -> None:
        if width is None:
            width = terminal_columns() - 2  # as argparse does
        super().__init__(prog, indent_increment, max_help_position, width)


class OneLineErrorParser(argparse.ArgumentParser):
    """Usage errors as one line on standard error and exit status 2 (no usage block)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


# -- output and errors -----------------------------------------------------------------------------
def braces(features: Sequence[str]) -> str:
    """A set of feature names as text: ``{a, b}``."""
    return "{" + ", ".join(features) + "}"


def emit(args: argparse.Namespace, doc: dict[str, Any], text: str) -> int:
    """Print ``doc`` as one JSON document under ``--json``, else ``text``; exit status 0."""
    if args.json:
        import json  # here: most commands print text

        print(json.dumps(doc))
    else:
        print(text)
    return 0


def run_command(args: argparse.Namespace) -> int:
    """Run the handler chosen by the parser; an :class:`~xpg.errors.XpgError` becomes one line
    on standard error and exit status 2, an interrupt status 130, a closed pipe status 0."""
    handler: Handler = args.func
    try:
        return int(handler(args))
    except XpgError as err:
        message = " ".join(str(err).split())
        print(f"xpg {args.command}: error: {message}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        print("xpg: interrupted", file=sys.stderr)
        return 130
