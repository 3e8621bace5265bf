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
import contextlib
import io
import os
import signal
import stat
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

from xpg.core.signals import handling
from xpg.errors import InvalidInstanceError, InvalidModelError, OutputError, ParseError, XpgError

if TYPE_CHECKING:
    from xpg.core.graph import DecisionGraph
    from xpg.core.xpgraph import ExplanationGraph
    from xpg.explain.decision import Decision
    from xpg.explain.engine import Explainer, Route

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


def is_model_text(path: str, text: str) -> bool:
    """:func:`is_model_file` of a file whose text is already read (a JSON model file, not a
    ``.xpg`` file: the file's format, not the model's kind)."""
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
    "that starts no file name or JSON, '\\\\' a backslash (docs/cli.md); or give a row of a "
    "data file instead, with --data FILE --row N"
)

#: The ``--data`` help.
DATA_HELP = (
    "instead of --instance: a data table (.csv, .tsv, .jsonl, each optionally .gz, or "
    ".parquet; the scale extra) whose row --row is the instance; columns "
    "the model does not use (the target, ids) are ignored, as by xpg explain --data"
)

#: The ``--row`` help.
ROW_HELP = (
    "the row(s) of --data to explain: N, N-M (inclusive) or a comma-separated list of both "
    '(5,7,10-12); rows count from 0, the header not counted, as the "row" of xpg explain '
    "records; several rows run the command once per row, each answer labelled with its row"
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


def parse_instance(dg: DecisionGraph, text: str | DataRow) -> dict[str, Any]:
    """An instance given on the command line -> a checked ``{name: value}``.

    ``text`` is ``NAME=VALUE,...`` (:func:`split_assignments`), a JSON object, or ``@FILE``
    naming a file that holds a JSON object (:data:`INSTANCE_HELP`); or a :class:`DataRow`,
    a row of ``--data FILE`` (:func:`row_instance`).

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
    if isinstance(text, DataRow):
        return row_instance(dg, text)
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


# -- a row of a data file as the instance ---------------------------------------------------------
class DataRow:
    """One row of ``--data FILE``, the instance of a command: the file, the row number (from
    0, the header not counted, as the ``"row"`` of ``xpg explain`` records) and the row's
    values by column, as pandas read them.

    >>> DataRow("rows.csv", 3, {"a": 1, "y": "no"})
    DataRow('rows.csv', 3)
    """

    def __init__(self, path: str, row: int, values: dict[str, Any]) -> None:
        self.path = path
        self.row = row
        self.values = values

    def __repr__(self) -> str:
        return f"DataRow({self.path!r}, {self.row})"


class RowSpec:
    """The rows ``--row`` names: ranges ``(first, last)``, inclusive, in the order given
    (:func:`row_spec`)."""

    def __init__(self, text: str, ranges: Sequence[tuple[int, int]]) -> None:
        self.text = text
        self.ranges = tuple(ranges)

    def __repr__(self) -> str:
        return f"RowSpec({self.text!r}, {self.ranges!r})"


def row_spec(text: str) -> RowSpec:
    """The option type of ``--row``: ``N``, ``N-M`` (inclusive) or a comma-separated list of
    them, rows counted from 0 (else a usage error).

    >>> row_spec("5").ranges, row_spec("5-9").ranges, row_spec("0, 7,10-11").ranges
    (((5, 5),), ((5, 9),), ((0, 0), (7, 7), (10, 11)))
    """
    import re

    ranges = []
    for item in text.split(","):
        m = re.fullmatch(r"\s*(\d+)\s*(?:-\s*(\d+)\s*)?", item)
        if m is None:
            raise argparse.ArgumentTypeError(
                "expected a row number N, a range N-M or a comma-separated list of them "
                f"(rows count from 0), found {text!r}"
            )
        first, last = int(m[1]), int(m[2] if m[2] is not None else m[1])
        if last < first:
            raise argparse.ArgumentTypeError(
                f"expected a range N-M with N <= M, found {item.strip()!r}"
            )
        ranges.append((first, last))
    return RowSpec(text.strip(), ranges)


#: rows read at a time while looking for the rows of ``--row``
ROW_CHUNK = 4096


def read_data_rows(path: str, spec: RowSpec) -> list[DataRow]:
    """The rows of the table ``path`` that ``spec`` names, each once, in the order given;
    read as ``xpg explain --data`` reads them (:func:`xpg.io.tables.iter_table_chunks`),
    up to the last row wanted.

    Raises
    ------
    InvalidParameterError
        When a row is past the end of the table (the message says how many rows it has).
    DataNotFoundError, InvalidDataError, MissingExtraError
        When the file is missing, cannot be read as its format says, or pandas is missing.
    """
    from xpg.errors import InvalidDataError, InvalidParameterError
    from xpg.io.tables import ERROR_COLUMN, iter_table_chunks

    last = max(hi for _, hi in spec.ranges)
    found: dict[int, dict[str, Any]] = {}
    total = 0
    for chunk in iter_table_chunks(path, ROW_CHUNK):
        start, total = total, total + len(chunk)
        for lo, hi in spec.ranges:
            a, b = max(lo, start), min(hi, total - 1)
            if a <= b:
                part = chunk.iloc[a - start : b - start + 1]
                columns = [str(c) for c in part.columns]
                for k, record in enumerate(part.itertuples(index=False, name=None)):
                    values = dict(zip(columns, record, strict=True))
                    bad = values.pop(ERROR_COLUMN, None)
                    if isinstance(bad, str):  # a malformed line (iter_table_chunks marks it)
                        raise InvalidDataError(f"{path}: row {a + k}: {bad}")
                    found[a + k] = values
        if total > last:
            break
    if total <= last:
        has = f"has {total} rows (0 to {total - 1})" if total else "has no rows"
        raise InvalidParameterError(
            f"--row {spec.text}: {path} {has}; rows count from 0, the header not counted"
        )
    rows: list[DataRow] = []
    done: set[int] = set()
    for lo, hi in spec.ranges:
        for r in range(lo, hi + 1):
            if r not in done:
                done.add(r)
                rows.append(DataRow(path, r, found[r]))
    return rows


def row_instance(dg: DecisionGraph, row: DataRow) -> dict[str, Any]:
    """The instance a :class:`DataRow` gives for ``dg``'s features: each feature's column,
    converted as ``xpg explain --data`` converts it (:func:`xpg.explain.batch.convert_value`);
    the other columns (the target, ids...) are ignored.

    Raises
    ------
    InvalidInstanceError
        For a feature without a column, or a value that is missing or outside the feature's
        domain (the message names the file and the row).
    """
    from xpg.explain.records import convert_value

    missing = [f.name for f in dg.features if f.name not in row.values]
    if missing:
        raise InvalidInstanceError(
            f"{row.path}: expected a column for every feature of the model, found none for "
            f"{_shown(missing)} (columns: {_shown(list(row.values))})"
        )
    try:
        values = {f.name: convert_value(f, row.values[f.name]) for f in dg.features}
        return _checked(dg, values)
    except InvalidInstanceError as err:
        raise InvalidInstanceError(f"{row.path} row {row.row}: {err}") from None


# -- what FILE names: one explained decision -------------------------------------------------------
def read_graph_text(text: str, path: str, instance: str | DataRow | None) -> ExplanationGraph:
    """The explanation graph of a ``.xpg`` file's ``text`` (errors name ``path``).

    Raises
    ------
    InvalidInstanceError
        When an instance is given too: the graph is of one instance already (a data table
        given as the graph is recognised as one).
    """
    from xpg.io.xpg_format import read_xpg_text

    if instance is not None:
        from xpg.io.xpg_format import refuse_table

        refuse_table(text, path)  # a data table given as the model: say so
        given = "--data/--row" if isinstance(instance, DataRow) else "--instance"
        raise InvalidInstanceError(
            f"{path} is an explanation graph (.xpg) for one instance already: drop {given}"
        )
    return read_xpg_text(text, path=path)


def model_instance(
    features: Sequence[Any], path: str, instance: str | DataRow | None
) -> dict[str, Any]:
    """The instance given for a model file's ``features`` (:func:`parse_instance`).

    Raises
    ------
    InvalidInstanceError
        When none is given, or as :func:`parse_instance`.
    """
    from xpg.core.graph import DecisionGraph

    if instance is None:
        raise InvalidInstanceError(
            f"{path} is a model file: give the instance with --instance name=value,..."
        )
    return parse_instance(DecisionGraph(list(features)), instance)


def model_explainer(
    model: Any,
    budget: int | None = None,
    path: str = "the model file",
    *,
    compile_if_fits: bool = False,
    route: Route = "auto",
) -> Explainer:
    """The one explainer of a model read from ``path`` (:class:`xpg.Explainer`: its route
    policy decides between a compiled graph and an oracle; ``budget`` is the compile budget
    of a kind that has one, ignored for the others).  With ``compile_if_fits``, a kind
    explained by its oracle by default (a tree ensemble) is compiled when it fits the
    budget, as for many decisions; ``route="graph"`` compiles it or raises
    :class:`~xpg.errors.GraphTooLargeError`.

    Raises
    ------
    InvalidModelError
        When the model's graph breaks Def. 2 (a ``decision-graph`` file's, say), naming the
        file.

    Examples
    --------
    >>> from xpg.examples import paper_figure2
    >>> model_explainer(paper_figure2()).route
    'graph'
    """
    from xpg.errors import InvalidGraphError
    from xpg.explain.engine import Explainer

    try:
        explainer = Explainer(model, route=route, budget=budget, many=compile_if_fits)
        graph = explainer.graph
        if graph is not None and graph is model:  # a graph file's, taken as it is: Def. 2
            graph.validate()
    except InvalidGraphError as err:
        raise InvalidModelError(f"{path}: model: {err}") from None
    return explainer


def load_args_target(args: argparse.Namespace) -> Decision:
    """The decision the ``file`` and ``--instance`` arguments name, to explain: a model
    file's through :func:`model_explainer` (``--budget``, when the command has it, is the
    compile budget), a ``.xpg`` file's over its graph.  The caller closes it.  On another
    route than the graph (a tree ensemble, a decision list too large to compile), a
    ``--timeout`` left unset becomes :data:`ORACLE_TIMEOUT`.

    Raises
    ------
    InvalidInstanceError
        When a model file comes without an instance, or a ``.xpg`` file with one.
    """
    from xpg.explain.decision import Decision

    path = args.file
    text = read_input_text(path)
    if is_model_text(path, text):
        model = read_model_text(text, path)
        explainer = model_explainer(model, getattr(args, "budget", None), path)
        decision = explainer.explain(model_instance(explainer.features, path, args.instance))
    else:
        from xpg.explain.graph_oracle import GraphOracle

        decision = Decision(GraphOracle(read_graph_text(text, path, args.instance)))
    if decision.route != "graph" and getattr(args, "timeout", ORACLE_TIMEOUT) is None:
        args.timeout = ORACLE_TIMEOUT
    return decision


def load_explanation_graph(
    path: str,
    instance: str | DataRow | None,
    budget: int | None = None,
    needs: str = "the command needs a compiled decision graph",
    instead: str = "use xpg axp, cxp or enum, which explain it without compiling",
) -> ExplanationGraph:
    """The explanation graph FILE names: a ``.xpg`` file's, or that of a JSON model compiled
    within ``budget`` (:func:`compiled_explainer`, which says ``needs`` and ``instead`` when
    it does not compile) at the instance.

    Raises
    ------
    InvalidInstanceError
        When a model file comes without an instance, or a ``.xpg`` file with one.
    """
    text = read_input_text(path)
    if not is_model_text(path, text):
        return read_graph_text(text, path, instance)
    explainer = compiled_explainer(read_model_text(text, path), budget, needs, instead, path)
    with explainer.explain(model_instance(explainer.features, path, instance)) as decision:
        return decision.explanation_graph


#: seconds: the default ``--timeout`` of ``member``, ``features``, ``smallest`` and ``enum`` on a
#: model explained without a compiled graph (a tree ensemble, a decision list too large to
#: compile), where a query can take very long
ORACLE_TIMEOUT = 60.0


def _read_model_doc(doc: Any, path: str) -> Any:
    """The model object of a JSON model document (errors name ``path``)."""
    from xpg.io.model_json import read_model_dict

    try:
        return read_model_dict(doc)
    except InvalidModelError as err:
        raise InvalidModelError(f"{path}: {err}") from None


def read_model_text(text: str, path: str) -> Any:
    """The model object (not compiled) of a JSON model file's ``text``; errors name ``path``
    (a data table given instead is recognised as one)."""
    from xpg.core.gc_pause import paused_gc
    from xpg.io.json_text import parse_json
    from xpg.io.xpg_format import refuse_table

    with paused_gc():
        try:
            doc = parse_json(text, path=path)
        except ParseError:
            refuse_table(text, path)
            raise
        return _read_model_doc(doc, path)


def read_model_file(path: str) -> Any:
    """The model object of a JSON model file (not compiled), read within the input size
    limit (:func:`read_input_text`); errors name the file (a data table given instead is
    recognised as one)."""
    return read_model_text(read_input_text(path), path)


#: the ``--budget`` help of the commands that need a model's decision graph
BUDGET_HELP = (
    "compile the model within N units at most (decision lists: diagram nodes, default "
    "10,000; tree ensembles: diagram edges made, default 1,000,000); larger models are "
    "refused, or explained without a graph where the command can"
)


def compiled_explainer(
    model: Any, budget: int | None, needs: str, instead: str, path: str = "the model file"
) -> Explainer:
    """The explainer of ``model`` with its decision graph compiled within ``budget`` (None:
    the model kind's default), for a command that needs the graph (:func:`model_explainer`
    with ``compile_if_fits``, asked whether it ``supports("compile")``).

    Raises
    ------
    GraphTooLargeError
        One plain line: ``needs`` (what the command does with a graph), the model, the
        budget and how to raise it, then ``instead`` (what to use).
    InvalidModelError
        For a kind never compiled, or a graph that breaks Def. 2 (a ``decision-graph``
        file, say).

    Examples
    --------
    >>> from xpg.core.features import Feature, Literal
    >>> from xpg.models.decision_list import DecisionList, Rule
    >>> dl = DecisionList([Feature.boolean("a")], [0, 1], [Rule([Literal.eq("a", 1)], 1)], 0)
    >>> len(compiled_explainer(dl, None, "", "").graph)
    3
    >>> compiled_explainer(dl, 2, "xpg draw draws graphs", "use xpg axp")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    xpg.errors.GraphTooLargeError: xpg draw draws graphs; this 1-rule decision list does not ...
    """
    explainer = model_explainer(model, budget, path, compile_if_fits=True)
    if not explainer.supports("compile"):
        raise not_compiled_error(model, budget, needs, instead)
    return explainer


def not_compiled_reason(model: Any, budget: int | None) -> str:
    """Why ``model``'s explainer has no decision graph: its kind is never compiled, or it
    does not compile within ``budget`` (None: the kind's default).

    >>> from xpg.core.features import Feature, Literal
    >>> from xpg.models.decision_list import DecisionList, Rule
    >>> dl = DecisionList([Feature.boolean("a")], [0, 1], [Rule([Literal.eq("a", 1)], 1)], 0)
    >>> not_compiled_reason(dl, None)
    'this 1-rule decision list does not compile within the budget of 10000 diagram nodes'
    """
    if never_compiled(model):
        kind = getattr(model, "json_type", type(model).__name__)
        return (
            f"a {kind} model is never compiled into a decision graph (its kind is explained "
            "by its own oracle)"
        )
    what, unit = _budget_words(model)
    if budget is None:
        from xpg.explain.engine import budget_parameter

        parameter = budget_parameter(model)
        budget = None if parameter is None else parameter.default
    return f"this {what} does not compile within the budget of {budget} {unit}"


def never_compiled(model: Any) -> bool:
    """Whether ``model``'s kind is never compiled (it brings its own oracle instead of
    ``to_decision_graph``: what the kind declares, docs/model-kinds.md)."""
    from xpg.models.protocol import compiles

    return not compiles(model)


def not_compiled_error(model: Any, budget: int | None, needs: str, instead: str) -> XpgError:
    """The one-line error of a command that needs ``model``'s decision graph when its
    explainer has none: ``needs``, why (:func:`not_compiled_reason`) and ``instead``.

    >>> from xpg.core.features import Feature, Literal
    >>> from xpg.models.decision_list import DecisionList, Rule
    >>> dl = DecisionList([Feature.boolean("a")], [0, 1], [Rule([Literal.eq("a", 1)], 1)], 0)
    >>> print(not_compiled_error(dl, None, "xpg draw draws graphs", "use xpg axp"))
    ... # doctest: +NORMALIZE_WHITESPACE
    xpg draw draws graphs; this 1-rule decision list does not compile within the budget of
    10000 diagram nodes (raise it with --budget N): use xpg axp
    """
    from xpg.errors import GraphTooLargeError

    reason = not_compiled_reason(model, budget)
    if never_compiled(model):
        return InvalidModelError(f"{needs}; {reason}: {instead}")
    return GraphTooLargeError(f"{needs}; {reason} (raise it with --budget N): {instead}")


def _budget_words(model: Any) -> tuple[str, str]:
    """How messages name ``model`` and the unit of its compile budget (what the kind
    declares: ``size_text()``, ``budget_unit``)."""
    kind = str(getattr(model, "json_type", type(model).__name__))
    size_text = getattr(model, "size_text", None)
    what = size_text() if callable(size_text) else f"{kind} model"
    return what, str(getattr(model, "budget_unit", "units"))


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
    example: str | None = None,
) -> argparse.ArgumentParser:
    """A sub-command run by ``handler``; FILE, ``--instance`` and ``--json`` come first unless
    ``file_arguments`` is false (:func:`add_file_arguments`); ``example``, one command line,
    ends its ``--help`` (``example: xpg ...``)."""
    epilog = None if example is None else f"example: {example}"
    p: argparse.ArgumentParser = subparsers.add_parser(
        name, help=help, description=description, epilog=epilog
    )
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
    """Usage errors as one line on standard error and exit status 2 (no usage block).

    Every ``--instance`` option comes with its alternative, a row of a data file: adding
    ``--instance`` to a command's parser also adds ``--data FILE`` and ``--row N``
    (:data:`DATA_HELP`, :data:`ROW_HELP`), and a required ``--instance`` becomes "one of
    ``--instance`` or ``--data``/``--row``", checked by :func:`run_command`.

    >>> parser = OneLineErrorParser(prog="xpg")
    >>> _ = parser.add_argument("--instance", required=True)
    >>> args = parser.parse_args(["--data", "rows.csv", "--row", "3-4"])
    >>> args.instance, args.data, args.row.ranges, args.instance_required
    (None, 'rows.csv', ((3, 4),), True)
    """

    def add_argument(self, *args: Any, **kwargs: Any) -> argparse.Action:
        if "--instance" not in args or any(a.dest == "data" for a in self._actions):
            return super().add_argument(*args, **kwargs)
        if kwargs.get("required"):
            kwargs["required"] = False
            self.set_defaults(instance_required=True)
        action = super().add_argument(*args, **kwargs)
        super().add_argument("--data", metavar="FILE", help=DATA_HELP)
        super().add_argument("--row", metavar="N|N-M|N,M,...", type=row_spec, help=ROW_HELP)
        return action

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


# -- output and errors -----------------------------------------------------------------------------
def braces(features: Sequence[str]) -> str:
    """A set of feature names as text, ``{a, b}``: a name that could be misread (a comma, a
    brace, a blank at either end, an invisible character...) is written as a JSON string
    (:func:`xpg.core.names.quote_name`)."""
    from xpg.core.names import braces as names_braces

    return names_braces(features)


def stated_prediction(decision: Decision) -> str | None:
    """The prediction of an explained instance as text (``str`` of the class, as
    ``xpg explain`` records give it); None for the explanation graph of a ``.xpg`` file (a
    decision without a model), whose terminals say 1 or 0, not a class."""
    if decision.model is None:
        return None
    return str(decision.prediction)


def shown_route(decision: Decision) -> str | None:
    """The route the answers of ``axp``, ``cxp``, ``enum`` and ``smallest`` name (their
    ``"route"``): the decision's, except on the graph route, where they never named one."""
    return None if decision.route == "graph" else decision.route


def describable(decision: Decision) -> bool:
    """Whether ``decision``'s explanations can be stated in the model's terms
    (:mod:`xpg.explain.describe`): a model's decision, not a ``.xpg`` file's (whose feature
    values are unknown)."""
    return stated_prediction(decision) is not None


def explanation_statement(
    target: Decision, kind: str, features: Sequence[str]
) -> tuple[dict[str, Any], str]:
    """What an explanation means, as JSON fields and as text following its set: for an AXp,
    ``{"conditions": [...]}`` (aligned with the sorted features) and ``": c1; c2"``, the
    condition each feature satisfies at the instance; for a CXp, ``{"counterexample": {...},
    "counterexample_class": "..."}`` and ``": x = 1; y = 2 gives prediction c"``, new values
    the model classifies otherwise (:mod:`xpg.explain.describe`).  ``({}, "")`` when the
    decision is not :func:`describable`."""
    if not describable(target):
        return {}, ""
    from xpg.explain.describe import (
        changes_text,
        explanation_conditions,
        explanation_counterexample,
    )

    names = list(features)
    if kind == "axp":
        conditions = explanation_conditions(target, names)
        by_name = dict(zip(names, conditions, strict=True))
        text = "; ".join(conditions) if names else "any input gets this prediction"
        return {"conditions": [by_name[n] for n in sorted(names)]}, f": {text}"
    changes, label = explanation_counterexample(target, names)
    return (
        {"counterexample": changes, "counterexample_class": str(label)},
        f": {changes_text(changes)} gives prediction {label}",
    )


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


def data_rows(args: argparse.Namespace) -> list[DataRow] | None:
    """The rows ``--data FILE --row ...`` give as instances (None without ``--data``), after
    checking that the instance is given one way exactly.

    Raises
    ------
    InvalidParameterError
        For ``--data`` without ``--row`` or the reverse, or with ``--instance`` too.
    InvalidInstanceError
        When the command needs an instance and none is given.
    """
    from xpg.errors import InvalidParameterError

    if not hasattr(args, "row"):  # a command without the options
        return None
    data, spec, instance = args.data, args.row, getattr(args, "instance", None)
    if data is None and spec is None:
        if instance is None and getattr(args, "instance_required", False):
            raise InvalidInstanceError(
                "give the instance with --instance name=value,... or a row of a data file "
                "with --data FILE --row N"
            )
        return None
    if data is None:
        raise InvalidParameterError(
            f"--row {spec.text}: expected --data FILE too, the table whose row is the instance"
        )
    if spec is None:
        raise InvalidParameterError(
            f"--data {data}: expected --row N too, the row to explain (rows count from 0, "
            "the header not counted)"
        )
    if instance is not None:
        raise InvalidParameterError(
            "--instance and --data/--row both give the instance: expected one of them"
        )
    rows = read_data_rows(data, spec)
    output = getattr(args, "output", None)
    if len(rows) > 1 and output is not None:
        raise InvalidParameterError(
            f"--row {spec.text}: expected one row, found {len(rows)}: xpg {args.command} "
            f"writes one file (-o {output})"
        )
    return rows


class _Labelled(io.TextIOBase):
    """A text stream that writes ``label`` (a line) before the first text written to it."""

    def __init__(self, stream: Any, label: str) -> None:
        self.stream = stream
        self.label: str | None = label

    def write(self, text: str) -> int:
        if self.label is not None and text:
            self.stream.write(self.label + "\n")
            self.label = None
        return int(self.stream.write(text))

    def flush(self) -> None:
        self.stream.flush()


def _error_line(args: argparse.Namespace, message: str) -> int:
    """``message`` as one line on standard error; exit status 2."""
    print(f"xpg {args.command}: error: {' '.join(message.split())}", file=sys.stderr)
    return 2


def _run_rows(args: argparse.Namespace, handler: Handler, rows: list[DataRow]) -> int:
    """``handler`` once per row of ``--data``: one row prints what ``--instance`` prints;
    several print each answer after a line ``row N:`` (text) or as a JSON document with
    ``"row": N`` in front (``--json``, one document per line).  The exit status is the
    largest of the rows'; an error or an interrupt (status 2 or more) stops at that row."""
    import contextlib
    import json

    if len(rows) == 1:
        args.instance = rows[0]
        return int(handler(args))
    status = 0
    for k, row in enumerate(rows):
        args.instance = row
        buffer = io.StringIO()
        label = f"{chr(10) if k else ''}row {row.row}:"
        out = buffer if getattr(args, "json", False) else _Labelled(sys.stdout, label)
        try:
            with contextlib.redirect_stdout(out):
                code = int(handler(args))
        except XpgError as err:
            message = str(err)
            if not message.startswith(f"{row.path} row {row.row}:"):
                message = f"row {row.row}: {message}"
            return _error_line(args, message)
        for line in buffer.getvalue().splitlines():
            try:
                doc = json.loads(line)
            except ValueError:
                doc = None
            print(json.dumps({"row": row.row, **doc}) if isinstance(doc, dict) else line)
        sys.stdout.flush()
        status = max(status, code)
        if code >= 2:
            break
    return status


def run_command(args: argparse.Namespace) -> int:
    """Run the handler chosen by the parser; an :class:`~xpg.errors.XpgError` becomes one line
    on standard error and exit status 2, an interrupt status 130, a closed pipe status 0.
    With ``--data FILE --row ...`` the handler runs once per row (:func:`_run_rows`)."""
    handler: Handler = args.func
    try:
        refuse_output_onto_input(args)
        rows = data_rows(args)
        if rows is not None:
            return _run_rows(args, handler, rows)
        return int(handler(args))
    except XpgError as err:
        return _error_line(args, str(err))
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        print("xpg: interrupted", file=sys.stderr)
        return 130


class Terminated(BaseException):
    """SIGTERM, raised in the main thread by :func:`sigterm_raises` (a BaseException, so that
    no ``except Exception`` on the way takes it for an error of a row)."""


@contextlib.contextmanager
def sigterm_raises() -> Iterator[None]:
    """Within the block, SIGTERM raises :class:`Terminated` (in the main thread only)."""

    def handler(signum: int, frame: Any) -> None:
        raise Terminated

    with handling(signal.SIGTERM, handler):
        yield


class OutOfTime(Exception):
    """The time budget of a query was reached (:func:`time_limit`)."""


@contextlib.contextmanager
def time_limit(seconds: float | None) -> Iterator[None]:
    """Raise :class:`OutOfTime` in the block once ``seconds`` have passed (SIGALRM: the
    graph queries run in Python, which the signal interrupts; a SAT call finishes first).
    No limit without ``seconds``, outside the main thread or without SIGALRM."""
    if seconds is None or not hasattr(signal, "setitimer"):
        yield
        return

    def ring(signum: int, frame: Any) -> None:
        raise OutOfTime

    with handling(signal.SIGALRM, ring) as installed:
        if installed:
            signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            yield
        finally:
            if installed:
                signal.setitimer(signal.ITIMER_REAL, 0)


#: seconds the timer signal of :func:`within_time` waits past a query's time budget: a query
#: that watches the clock (an oracle's deadline) stops first, with what it decided
SIGNAL_GRACE = 0.1

_T = TypeVar("_T")


def within_time(
    query: Callable[[float | None], _T], timeout: float | None
) -> tuple[_T | None, bool, Any]:
    """``query(timeout)`` within ``timeout`` seconds, whatever answers it: ``(the answer,
    False, None)``, or ``(None, True, partial)`` once the budget is reached.

    The query is given the budget (a :class:`~xpg.explain.decision.Decision` method's
    ``timeout=``: an oracle's deadline, past which it says what it decided, ``partial``);
    a query that watches no clock (the graph route's run in Python) is stopped by a timer
    signal (:func:`time_limit`) :data:`SIGNAL_GRACE` seconds later, with nothing decided.

    >>> within_time(lambda t: t, 5.0), within_time(lambda t: "done", None)
    ((5.0, False, None), ('done', False, None))
    """
    from xpg.explain.decision import QueryTimeout
    from xpg.explain.oracle_abc import OracleTimeout

    try:
        with time_limit(None if timeout is None else timeout + SIGNAL_GRACE):
            return query(timeout), False, None
    except (OutOfTime, OracleTimeout):
        return None, True, None
    except QueryTimeout as err:
        return None, True, err.partial
