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
import stat
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

from xpg.errors import InvalidInstanceError, InvalidModelError, OutputError, ParseError, XpgError

if TYPE_CHECKING:
    from xpg.core.graph import DecisionGraph
    from xpg.core.xpgraph import ExplanationGraph
    from xpg.explain.ensemble import EnsembleExplainer

#: A command handler: the parsed arguments in, the exit status out.
Handler = Callable[[argparse.Namespace], int]


# -- reading FILE ----------------------------------------------------------------------------------
#: The most bytes an input file may hold (256 MiB), so that ``xpg validate /dev/zero`` stops
#: at once instead of reading until memory runs out; the environment variable
#: ``XPG_MAX_INPUT_BYTES`` sets another limit.
MAX_INPUT_BYTES = 1 << 28


def max_input_bytes() -> int:
    """The input size limit: ``XPG_MAX_INPUT_BYTES`` when set, else :data:`MAX_INPUT_BYTES`."""
    text = os.environ.get("XPG_MAX_INPUT_BYTES", "")
    try:
        return int(text) if text else MAX_INPUT_BYTES
    except ValueError:
        raise ParseError(
            f"XPG_MAX_INPUT_BYTES: expected a number of bytes, found {text!r}"
        ) from None


def read_input_text(path: str, what: str = "text", given: str = "") -> str:
    """The UTF-8 text of an input file, read up to :func:`max_input_bytes` (devices and pipes
    too: a larger input is refused without being read whole).

    ``what`` names what the file should hold, ``given`` how it was given (in messages).

    Raises
    ------
    ParseError
        When the file cannot be read, is larger than the limit or is not UTF-8.

    Examples
    --------
    >>> read_input_text("/dev/null")
    ''
    """
    limit = max_input_bytes()
    lead = given.replace(" given as ", "", 1) + ": " if given else ""
    try:
        with open(path, "rb") as fh:
            if stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                size = os.fstat(fh.fileno()).st_size
                if size > limit:
                    raise ParseError(lead + _too_large(size, limit), path=path)
            data = fh.read(limit + 1)
    except OSError as err:
        raise ParseError(f"cannot read the file{given}: {err.strerror}", path=path) from None
    if len(data) > limit:
        raise ParseError(lead + _too_large(None, limit), path=path)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ParseError(f"{lead}expected UTF-8 {what}, found binary data", path=path) from None


def _too_large(size: int | None, limit: int) -> str:
    found = f"{size} bytes" if size is not None else "more"
    return (
        f"expected at most {limit} bytes of input, found {found} "
        "(set XPG_MAX_INPUT_BYTES to read larger files)"
    )


def _is_model_text(path: str, text: str) -> bool:
    """:func:`is_model_file` of a file whose text is already read."""
    if path.endswith(".json"):
        return True
    return not path.endswith(".xpg") and text.lstrip().startswith("{")


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


#: The ``--instance`` help, shared by every command that takes an instance.
INSTANCE_HELP = (
    "the instance (with a model file), in one of three forms: NAME=VALUE,NAME=VALUE,... ; "
    "a JSON object of feature values; or @FILE, a file holding that JSON object. "
    "In the first form the names are matched against the model's feature names, longest "
    "first, so names with '=', ',' or spaces need no escape; a value runs to the next comma; "
    "a backslash makes the next character literal: '\\,' is a comma inside a value (or "
    "starting a name), '\\=' an '=' that ends no name, '\\@' and '\\{' a first character "
    "that starts no file name or JSON, '\\\\' a backslash (docs/cli.md)"
)

#: The help of an option naming a set of features.
FEATURES_HELP = (
    "feature names separated by commas, matched against the model's names longest first "
    "(names with ',' need no escape; a backslash makes the next character literal)"
)


def _marked(text: str) -> list[tuple[str, bool]]:
    """The characters of ``text`` with a flag: True when a backslash escaped it."""
    out: list[tuple[str, bool]] = []
    i = 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text):
            out.append((text[i + 1], True))
            i += 2
        else:
            out.append((text[i], False))
            i += 1
    return out


class _Names:
    """Known feature names, looked up by length: the names written at a position are found
    with one set lookup per distinct length, longest first (not one comparison per name)."""

    def __init__(self, names: Sequence[str]) -> None:
        self.all = list(names)
        self.known = set(names)
        self.lengths = sorted({len(n) for n in self.known}, reverse=True)


def _names_at(
    chars: list[tuple[str, bool]], plain: str, i: int, names: _Names, end: str
) -> list[tuple[str, int]]:
    """The known ``names`` written at ``i`` and followed, after blanks, by an unescaped ``end``
    character (or by the end of the text, when ``end`` is ``,``): each with the position after
    it and its blanks, longest first."""
    found = []
    for length in names.lengths:
        name = plain[i : i + length]
        if len(name) < length or name not in names.known:
            continue
        k = i + length
        while k < len(chars) and chars[k][0].isspace() and not chars[k][1]:
            k += 1
        if (k == len(chars) and end == ",") or (k < len(chars) and chars[k] == (end, False)):
            found.append((name, k))
    return found


def _next_unescaped(chars: list[tuple[str, bool]], i: int, char: str) -> int:
    """Position of the next unescaped ``char`` from ``i`` (``len(chars)`` when none)."""
    while i < len(chars) and chars[i] != (char, False):
        i += 1
    return i


def _skip_separators(chars: list[tuple[str, bool]], i: int) -> int:
    while i < len(chars) and not chars[i][1] and (chars[i][0].isspace() or chars[i][0] == ","):
        i += 1
    return i


def _shown(names: Sequence[str]) -> str:
    shown = ", ".join(map(repr, names[:12]))
    return shown + (f", ... ({len(names)} in all)" if len(names) > 12 else "")


def split_assignments(text: str, names: Sequence[str]) -> list[tuple[str, str]]:
    """``NAME=VALUE,NAME=VALUE,...`` -> ``[(name, value text), ...]``, matching the known
    feature ``names`` longest first (see :data:`INSTANCE_HELP` for the escapes).

    Raises
    ------
    InvalidInstanceError
        For an item that is not ``NAME=VALUE``, an unknown name, or a name given twice.

    Examples
    --------
    >>> names = ["priors:=0", "priors", "age group", "a,b"]
    >>> split_assignments("priors:=0=1, age group = 3,a,b=x", names)
    [('priors:=0', '1'), ('age group', '3'), ('a,b', 'x')]
    >>> split_assignments("priors=1\\\\,5", names)
    [('priors', '1,5')]
    """
    chars = _marked(text)
    plain = "".join(c for c, _ in chars)
    by_length = _Names(names)
    # Depth first over the names that fit at each item, longest first: the first complete
    # reading wins.  A name that fits but leaves the rest unreadable (a name given twice, say)
    # is given up for a shorter one; names rarely overlap, so this is one pass in practice.
    pairs: list[tuple[str, str]] = []
    seen: set[str] = set()
    stack: list[Iterator[tuple[str, int]]] = []
    i = _skip_separators(chars, 0)
    while i < len(chars):
        fits = _names_at(chars, plain, i, by_length, "=")
        stack.append(iter([(n, k) for n, k in fits if n not in seen]))
        while (choice := next(stack[-1], None)) is None:
            stack.pop()
            if not stack:
                _explain_failure(chars, plain, names, by_length)
            seen.discard(pairs.pop()[0])
        name, k = choice
        end = _next_unescaped(chars, k + 1, ",")
        pairs.append((name, "".join(c for c, _ in chars[k + 1 : end]).strip()))
        seen.add(name)
        i = _skip_separators(chars, end)
    return pairs


def _explain_failure(
    chars: list[tuple[str, bool]], plain: str, names: Sequence[str], by_length: _Names
) -> NoReturn:
    """Why ``NAME=VALUE,...`` has no reading: the first problem on the longest-first reading."""
    seen: set[str] = set()
    i = _skip_separators(chars, 0)
    while i < len(chars):
        fits = _names_at(chars, plain, i, by_length, "=")
        fresh = [(n, k) for n, k in fits if n not in seen]
        if fits and not fresh:
            raise InvalidInstanceError(f"--instance: feature {fits[0][0]!r} is given twice")
        if not fits:
            comma = _next_unescaped(chars, i, ",")
            item = plain[i:comma].strip()
            equals = [k for k in range(i, comma) if chars[k] == ("=", False)]
            if not equals or _names_at(chars, plain, i, by_length, ","):
                raise InvalidInstanceError(f"--instance: expected name=value, found {item!r}")
            if len(equals) == 1:
                name = plain[i : equals[0]].strip()
                raise InvalidInstanceError(
                    f"--instance: unknown feature {name!r} (expected: {_shown(names)})"
                )
            raise InvalidInstanceError(
                f"--instance: {item!r} does not start with a feature name and '=' "
                f"(expected: {_shown(names)})"
            )
        name, k = fresh[0]
        seen.add(name)
        i = _skip_separators(chars, _next_unescaped(chars, k + 1, ","))
    raise AssertionError("unreachable: the longest-first reading succeeded")


def parse_feature_list(text: str, names: Sequence[str]) -> list[str]:
    """``F1,F2,...`` -> the feature names, matching the known ``names`` longest first; an
    item that matches none is returned as written (the caller reports it as unknown).

    Examples
    --------
    >>> parse_feature_list("priors:=0, a,b ,c", ["a", "a,b", "priors:=0", "c"])
    ['priors:=0', 'a,b', 'c']
    >>> parse_feature_list("a\\\\,b,zz", ["a"])
    ['a,b', 'zz']
    """
    chars = _marked(text)
    plain = "".join(c for c, _ in chars)
    by_length = _Names(names)
    out: list[str] = []
    i = _skip_separators(chars, 0)
    while i < len(chars):
        fits = _names_at(chars, plain, i, by_length, ",")
        if fits:
            out.append(fits[0][0])
            end = fits[0][1]
        else:
            end = _next_unescaped(chars, i, ",")
            out.append(plain[i:end].strip())
        i = _skip_separators(chars, end)
    return out


def _read_instance_file(path: str) -> Any:
    """The JSON document of ``--instance @FILE``."""
    if not path:
        raise InvalidInstanceError("--instance @FILE: expected a file name after '@'")
    text = read_input_text(path, "JSON text", given=" given as --instance @FILE")
    from xpg.io.json_text import parse_json

    return parse_json(text, path=path, context="--instance @FILE: ")


def parse_instance(dg: DecisionGraph, text: str) -> dict[str, Any]:
    """An instance given on the command line -> a checked ``{name: value}``.

    ``text`` is ``NAME=VALUE,...`` (:func:`split_assignments`), a JSON object, or ``@FILE``
    naming a file that holds a JSON object (:data:`INSTANCE_HELP`).

    Raises
    ------
    InvalidInstanceError
        For malformed text, an unknown feature, or a value outside its feature's domain
        (from a file: the message starts with the file's name).
    ParseError
        When ``@FILE`` cannot be read or does not hold JSON.

    Examples
    --------
    >>> from xpg.core.features import Feature
    >>> from xpg.core.graph import DecisionGraph
    >>> dg = DecisionGraph([Feature.boolean("priors:=0"), Feature.real("age, years")])
    >>> parse_instance(dg, "priors:=0=1,age, years=31.5")
    {'priors:=0': 1, 'age, years': 31.5}
    >>> parse_instance(dg, '{"priors:=0": 0, "age, years": 40}')
    {'priors:=0': 0, 'age, years': 40}
    """
    text = text.strip()
    source = None
    if text.startswith("@"):
        source = text[1:].strip()
        raw: Any = _read_instance_file(source)
    elif text.startswith("{"):
        from xpg.io.json_text import parse_json

        try:
            raw = parse_json(text, what="JSON object")
        except ParseError as err:
            raise InvalidInstanceError(f"--instance: {err}") from None
    else:
        pairs = split_assignments(text, list(dg.feature_index))
        values = {n: dg.features[dg.feature_index[n]].parse_value(v) for n, v in pairs}
        return _checked(dg, values)
    if not isinstance(raw, dict):
        found = type(raw).__name__ if raw is not None else "null"
        where = f"{source}: " if source is not None else ""
        raise InvalidInstanceError(
            f"{where}--instance: expected a JSON object of feature values, found a {found}"
        )
    try:
        return _checked(dg, _no_json_booleans(dg, dict(raw)))
    except InvalidInstanceError as err:
        if source is None:
            raise
        raise InvalidInstanceError(f"{source}: {err}") from None


def _no_json_booleans(dg: DecisionGraph, values: dict[str, Any]) -> dict[str, Any]:
    """``values``, refusing JSON ``true``/``false`` except for boolean features (where they
    mean 1 and 0): elsewhere Python would read them silently as the numbers 1 and 0."""
    for name, value in values.items():
        i = dg.feature_index.get(name)
        if isinstance(value, bool) and i is not None and dg.features[i].kind != "boolean":
            raise InvalidInstanceError(
                f"--instance: feature {name!r}: expected a {dg.features[i].kind} value, "
                f"found {str(value).lower()}"
            )
    return values


def _checked(dg: DecisionGraph, values: dict[str, Any]) -> dict[str, Any]:
    dg.instance_values(values)  # every feature present and in its domain
    return values


def load_explanation_graph(path: str, instance: str | None) -> ExplanationGraph:
    """The XpG named on the command line: a ``.xpg`` file, or a JSON model with an instance.

    Raises
    ------
    InvalidInstanceError
        When a model file comes without ``--instance``, or a ``.xpg`` file with one.
    """
    from xpg.core.xpgraph import ExplanationGraph
    from xpg.io.xpg_format import read_xpg_text

    text = read_input_text(path)
    if _is_model_text(path, text):
        dg = load_model_text(text, path)
        if instance is None:
            raise InvalidInstanceError(
                f"{path} is a model file: give the instance with --instance name=value,..."
            )
        return ExplanationGraph.from_decision_graph(dg, parse_instance(dg, instance))
    if instance is not None:
        raise InvalidInstanceError(
            f"{path} is an explanation graph (.xpg) for one instance already: drop --instance"
        )
    return read_xpg_text(text, path=path)


def load_model_text(text: str, path: str) -> DecisionGraph:
    """The validated decision graph of a JSON model file's text (errors name ``path``)."""
    from xpg.io.model_json import load_model_text as load

    return load(text, path)


def load_input(path: str) -> DecisionGraph | ExplanationGraph:
    """FILE read once, within the input size limit: a model file's validated decision graph,
    or a ``.xpg`` file's explanation graph."""
    from xpg.io.xpg_format import read_xpg_text

    text = read_input_text(path)
    if _is_model_text(path, text):
        return load_model_text(text, path)
    return read_xpg_text(text, path=path)


def load_args_graph(args: argparse.Namespace) -> ExplanationGraph:
    """:func:`load_explanation_graph` of the ``file`` and ``--instance`` arguments."""
    return load_explanation_graph(args.file, args.instance)


#: JSON model types explained by the ensemble oracle rather than a compiled graph
ENSEMBLE_TYPES = ("forest", "boosted-trees")


def load_args_target(args: argparse.Namespace) -> ExplanationGraph | EnsembleExplainer:
    """What the ``file`` and ``--instance`` arguments name: for a tree-ensemble model file
    (``forest``, ``boosted-trees``), an :class:`~xpg.explain.ensemble.EnsembleExplainer`
    (sat route; the caller closes it); otherwise :func:`load_args_graph`."""
    path = args.file
    text = read_input_text(path)
    if _is_model_text(path, text) and any(f'"{t}"' in text for t in ENSEMBLE_TYPES):
        from xpg.io.json_text import parse_json

        doc = parse_json(text, path=path)
        body = doc.get("model") if isinstance(doc, dict) else None
        if isinstance(body, dict) and body.get("type") in ENSEMBLE_TYPES:
            from xpg.core.graph import DecisionGraph
            from xpg.explain.ensemble import EnsembleExplainer
            from xpg.io.model_json import read_model_dict

            try:
                model: Any = read_model_dict(doc)
            except InvalidModelError as err:
                raise InvalidModelError(f"{path}: {err}") from None
            if args.instance is None:
                raise InvalidInstanceError(
                    f"{path} is a model file: give the instance with --instance name=value,..."
                )
            instance = parse_instance(DecisionGraph(model.features), args.instance)
            return EnsembleExplainer(model, instance)
    return load_explanation_graph(path, args.instance)


# -- arguments -------------------------------------------------------------------------------------
def add_json_argument(p: argparse.ArgumentParser) -> None:
    """The ``--json`` flag of every command that prints results."""
    p.add_argument("--json", action="store_true", help="print one JSON document")


def add_file_arguments(p: argparse.ArgumentParser) -> None:
    """FILE, ``--instance`` and ``--json``: the arguments of a command that explains."""
    p.add_argument("file", help="a .xpg explanation graph, or a JSON model file with --instance")
    p.add_argument("--instance", metavar="NAME=VALUE,...|JSON|@FILE", help=INSTANCE_HELP)
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


def int_between(low: int, high: int) -> Callable[[str], int]:
    """An option type: an integer from ``low`` to ``high`` inclusive (else a usage error).

    Examples
    --------
    >>> int_between(0, 2**32 - 1)("7")
    7
    """

    def convert(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = low - 1
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(
                f"expected an integer from {low} to {high}, found {text!r}"
            )
        return value

    return convert


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


def refuse_output_onto_input(args: argparse.Namespace) -> None:
    """Refuse an ``-o/--output`` file that is one of the command's input files (the same file
    under any name: ``os.path.samefile``), before anything is read or written.

    Raises
    ------
    OutputError
        Naming the option and the input it would replace.
    """
    output = getattr(args, "output", None)
    if not isinstance(output, str) or not os.path.exists(output):
        return
    for name, value in vars(args).items():
        if name == "output":
            continue
        for given in value if isinstance(value, list) else [value]:
            if not isinstance(given, str):
                continue
            for candidate in (given, given[1:]) if given.startswith("@") else (given,):
                try:
                    same = os.path.isfile(candidate) and os.path.samefile(candidate, output)
                except OSError:
                    same = False
                if same:
                    option = name if name == "file" else "--" + name.replace("_", "-")
                    raise OutputError(
                        f"-o {output}: expected a new output file, found the input {candidate} "
                        f"({option}): writing would replace it"
                    )


def run_command(args: argparse.Namespace) -> int:
    """Run the handler chosen by the parser; an :class:`~xpg.errors.XpgError` becomes one line
    on standard error and exit status 2, an interrupt status 130, a closed pipe status 0."""
    handler: Handler = args.func
    try:
        refuse_output_onto_input(args)
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
