"""The reference ``.xpg`` text format of explanation graphs (read and write, round-trip).

Sections, in this order (``#`` lines are comments, anywhere, indented or not)::

    NN: <number of nodes>
    Root: <root id>
    T: <terminal ids>
    TDef:
    <node> <0|1>            one line per terminal
    NT: <non-terminal ids>
    NTDef:
    <parent> <child> <0|1>  one line per edge (parallel edges allowed)
    NV: <number of variables>
    VarDef:
    <node> <feature name>   names may contain spaces; variable index = first appearance

Every malformed input raises :class:`~xpg.errors.ParseError` naming the file and line.

Examples
--------
>>> text = "NN: 3\\nRoot: 1\\nT: 2 3\\nTDef:\\n2 1\\n3 0\\nNT: 1\\nNTDef:\\n1 2 1\\n1 3 0\\n"
>>> xg = read_xpg_text(text + "NV: 1\\nVarDef:\\n1 my feature\\n")
>>> xg.var_names
['my feature']
>>> read_xpg_text(format_xpg(xg)).edge_label.tolist()
[True, False]
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Callable, Sequence
from itertools import repeat
from numbers import Integral
from typing import TYPE_CHECKING, NamedTuple, TypeVar

import xpg.core.costs as costs
from xpg.core import lazy
from xpg.core.xpgraph import ExplanationGraph
from xpg.errors import InvalidGraphError, ParseError

if TYPE_CHECKING:
    import numpy as np
else:
    np = lazy.module("numpy")

_SECTIONS = ("NN", "Root", "T", "TDef", "NT", "NTDef", "NV", "VarDef")


class _Line(NamedTuple):
    number: int
    text: str


class _Reader:
    def __init__(self, text: str, path: str | None) -> None:
        self.path = path
        raw = text.splitlines()
        stripped = ((i, line.strip()) for i, line in enumerate(raw, start=1))
        self.lines = [_Line(i, s) for i, s in stripped if s and not s.startswith("#")]
        self.pos = 0
        self.last_line = len(raw)

    def error(self, message: str, line: int | None = None) -> ParseError:
        if line is None:
            line = self.lines[self.pos].number if self.pos < len(self.lines) else self.last_line
        return ParseError(message, path=self.path, line=line)

    def header(self, name: str) -> tuple[str, int]:
        """Consume the line ``name: rest`` and return ``rest``."""
        if self.pos >= len(self.lines):
            raise self.error(f"expected section '{name}:', found the end of the file")
        line = self.lines[self.pos]
        key, sep, rest = line.text.partition(":")
        if not sep or key.strip() != name:
            raise self.error(f"expected section '{name}:', found {line.text!r}")
        self.pos += 1
        return rest.strip(), line.number

    def body(self) -> list[_Line]:
        """Consume lines up to the next section header."""
        out = []
        while self.pos < len(self.lines):
            key, sep, _ = self.lines[self.pos].text.partition(":")
            if sep and key.strip() in _SECTIONS:
                break
            out.append(self.lines[self.pos])
            self.pos += 1
        return out

    def integer(self, token: str, what: str, line: int) -> int:
        try:
            return int(token)
        except ValueError:
            raise self.error(f"expected an integer {what}, found {token!r}", line) from None

    def integers(self, text: str, what: str, line: int) -> list[int]:
        return [self.integer(t, what, line) for t in text.split()]

    def bit(self, token: str, what: str, line: int) -> int:
        if token not in ("0", "1"):
            raise self.error(f"expected {what} 0 or 1, found {token!r}", line)
        return int(token)


def read_xpg_text(text: str, path: str | None = None) -> ExplanationGraph:
    """Parse the text of a ``.xpg`` file into a validated :class:`ExplanationGraph`.

    Well-formed files are parsed section by section: in pure Python into lists when they are
    small (:func:`_read_light`: a light graph, and numpy is not imported), with numpy
    otherwise (:func:`_read_fast`; mid-sized files too once numpy is imported anyway).  Any
    other text is read line by line (:func:`_read_lines`), which names the first malformed
    line.  All read the same files into the same graph, in time linear in the size of the
    text.
    """
    lines = text.count("\n")
    if lines < costs.SMALL_LINES or (lines < costs.LIGHT_LINES and not lazy.loaded("numpy")):
        parts = _read_light(text)
    else:
        parts = _read_fast(text)
    if parts is None:
        refuse_table(text, path)
        parts = _read_lines(text, path)
    return _build(parts, path)


def table_description(text: str) -> str | None:
    """``"a CSV table (3 columns: 'a', 'b', 'y')"`` when ``text`` reads as a CSV or TSV table
    (a header of two fields or more, the next line as many), else None.

    Examples
    --------
    >>> table_description("age,sex,y\\n31,F,1\\n")
    "a CSV table (3 columns: 'age', 'sex', 'y')"
    >>> table_description("NN: 3\\nRoot: 1\\n") is None
    True
    """
    import csv

    lines = [line for line in text.lstrip("\ufeff").split("\n", 3)[:3] if line.strip()]
    first = lines[0].strip() if lines else ""
    if not first or first.startswith(("#", "{", "[", "NN")):
        return None
    delimiter = "\t" if "\t" in first else ","
    try:
        rows = list(csv.reader(lines[:2], delimiter=delimiter))
    except csv.Error:
        return None
    header = rows[0]
    if len(header) < 2 or any(len(row) != len(header) for row in rows[1:]):
        return None
    kind = "TSV" if delimiter == "\t" else "CSV"
    shown = ", ".join(repr(name.strip()) for name in header[:3])
    more = ", ..." if len(header) > 3 else ""
    return f"a {kind} table ({len(header)} columns: {shown}{more})"


def refuse_table(text: str, path: str | None) -> None:
    """Refuse a data table given where a model or an explanation graph is expected.

    Raises
    ------
    ParseError
        ``expected a model (.json) or an explanation graph (.xpg), found a CSV table (...)``,
        when :func:`table_description` recognises the text.
    """
    table = table_description(text)
    if table is not None:
        raise ParseError(
            f"expected a model (.json) or an explanation graph (.xpg), found {table}", path=path
        )


class _Parts(NamedTuple):
    """What a ``.xpg`` file lists: node ids (terminals first), root, arrays (numpy) or lists
    per node and edge."""

    ids: list[int]
    root: int
    node_var: np.ndarray | Sequence[int]
    terminal_value: np.ndarray | Sequence[int]
    src: np.ndarray | Sequence[int]
    dst: np.ndarray | Sequence[int]
    label: np.ndarray | Sequence[bool]
    names: list[str]


def _read_lines(text: str, path: str | None) -> _Parts:
    """The line-by-line reader: every malformed input raises a :class:`ParseError` naming its
    line (sets and dicts throughout, so linear in the number of lines)."""
    r = _Reader(text, path)
    rest, line = r.header("NN")
    if len(rest.split()) != 1:
        raise r.error(f"expected 'NN: <number of nodes>', found 'NN: {rest}'", line)
    nn = r.integer(rest, "node count", line)
    rest, line = r.header("Root")
    if len(rest.split()) != 1:
        raise r.error(f"expected one root id, found {rest!r}", line)
    root_id = r.integer(rest, "root id", line)
    rest, t_line = r.header("T")
    terminals = r.integers(rest, "terminal id", t_line)
    t_set = set(terminals)
    r.header("TDef")
    term_value: dict[int, int] = {}
    for ln in r.body():
        parts = ln.text.split()
        if len(parts) != 2:
            raise r.error(f"expected '<terminal> <0|1>', found {ln.text!r}", ln.number)
        node = r.integer(parts[0], "terminal id", ln.number)
        if node not in t_set:
            raise r.error(f"TDef for node {node}, which is not listed in 'T:'", ln.number)
        if node in term_value:
            raise r.error(f"terminal {node} is defined twice", ln.number)
        term_value[node] = r.bit(parts[1], "a terminal label", ln.number)
    missing = [t for t in terminals if t not in term_value]
    if missing:
        raise r.error(f"terminal(s) {missing} listed in 'T:' have no TDef line", t_line)
    rest, nt_line = r.header("NT")
    non_terminals = r.integers(rest, "non-terminal id", nt_line)
    ids = terminals + non_terminals
    index = {node: i for i, node in enumerate(ids)}
    if len(index) != len(ids):
        dup = sorted(node for node, k in Counter(ids).items() if k > 1)
        raise r.error(f"node id(s) {dup} listed more than once in 'T:'/'NT:'", nt_line)
    if len(ids) != nn:
        raise r.error(f"'NN: {nn}' but 'T:' and 'NT:' list {len(ids)} nodes", nt_line)
    if root_id not in index:
        raise r.error(f"the root {root_id} is not listed in 'T:' or 'NT:'", nt_line)
    r.header("NTDef")
    src: list[int] = []
    dst: list[int] = []
    label: list[int] = []
    nt_set = set(non_terminals)
    for ln in r.body():
        parts = ln.text.split()
        if len(parts) != 3:
            raise r.error(f"expected '<parent> <child> <0|1>', found {ln.text!r}", ln.number)
        p = r.integer(parts[0], "parent id", ln.number)
        c = r.integer(parts[1], "child id", ln.number)
        if p not in nt_set:
            raise r.error(f"edge from {p}, which is not a non-terminal listed in 'NT:'", ln.number)
        if c not in index:
            raise r.error(f"edge to {c}, which is not a listed node", ln.number)
        label.append(r.bit(parts[2], "an edge label", ln.number))
        src.append(index[p])
        dst.append(index[c])
    rest, line = r.header("NV")
    if len(rest.split()) != 1:
        raise r.error(f"expected 'NV: <number of variables>', found 'NV: {rest}'", line)
    nv = r.integer(rest, "variable count", line)
    r.header("VarDef")
    var_of: dict[int, int] = {}
    names: dict[str, int] = {}  # name -> variable index, in order of first appearance
    for ln in r.body():
        fields = ln.text.split(None, 1)  # any whitespace, as in the other sections
        head, name = fields[0], (fields[1].strip() if len(fields) > 1 else "")
        node = r.integer(head, "node id", ln.number)
        if not name:
            raise r.error(f"expected '<node> <feature name>', found {ln.text!r}", ln.number)
        if node not in nt_set:
            raise r.error(f"VarDef for node {node}, which is not a non-terminal", ln.number)
        if node in var_of:
            raise r.error(f"node {node} has two VarDef lines", ln.number)
        var_of[node] = names.setdefault(name, len(names))
    if r.pos < len(r.lines):
        raise r.error(f"unexpected line after VarDef: {r.lines[r.pos].text!r}")
    undefined = [n for n in non_terminals if n not in var_of]
    if undefined:
        raise r.error(f"non-terminal(s) {undefined} have no VarDef line", r.last_line)
    if nv != len(names):
        raise r.error(f"'NV: {nv}' but VarDef names {len(names)} distinct variables", line)
    return _Parts(
        ids,
        index[root_id],
        [var_of.get(n, -1) for n in ids],
        [term_value.get(n, -1) for n in ids],
        src,
        dst,
        [b == 1 for b in label],
        list(names),
    )


def _build(parts: _Parts, path: str | None) -> ExplanationGraph:
    try:
        if isinstance(parts.src, list):  # the light and line readers' lists of ints
            return ExplanationGraph.from_lists(
                parts.names,
                parts.ids,
                parts.root,
                parts.node_var,  # type: ignore[arg-type]
                parts.terminal_value,  # type: ignore[arg-type]
                parts.src,
                parts.dst,  # type: ignore[arg-type]
                parts.label,  # type: ignore[arg-type]
            )
        return ExplanationGraph(
            parts.names,
            parts.ids,
            parts.root,
            parts.node_var,
            parts.terminal_value,
            parts.src,
            parts.dst,
            parts.label,
        )
    except InvalidGraphError as err:
        where = f"{path}: " if path else ""
        raise InvalidGraphError(f"{where}{err}", err.violations) from None


# -- the fast path: numpy over whole sections ------------------------------------------------------
# Only text that the line reader accepts, read into the same graph, is taken by the fast path:
# anything unusual (other line breaks, signs, comments inside numbers, an error) returns None
# and the line reader reads the text again, to name the line at fault.

_HEADER = re.compile(r"^[ \t]*(NN|Root|T|TDef|NT|NTDef|NV|VarDef)[ \t]*:", re.MULTILINE)
_ODD_BREAKS = ("\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")
_MAX_DIGITS = 18  # int64 holds every integer of 18 digits


def _read_fast(text: str) -> _Parts | None:
    """The parts of a well-formed ``.xpg`` text, or None when the line reader must decide."""
    return _read_sections(text, _fast_parts)


class _Unusual(Exception):
    """A section the fast and light paths leave to the line reader."""


_Block = TypeVar("_Block")


def _required(block: _Block | None) -> _Block:
    """A section as its reader read it; :class:`_Unusual` when the reader gave up (None)."""
    if block is None:
        raise _Unusual
    return block


def _counts(rest: dict[str, str]) -> tuple[int, int, int]:
    """``NN``, ``Root`` and ``NV``: one integer each (else :class:`_Unusual`)."""
    nn, root_id, nv = (_required(_single_int(rest[k])) for k in ("NN", "Root", "NV"))
    return nn, root_id, nv


def _read_sections(
    text: str, parts: Callable[[dict[str, str], dict[str, str]], _Parts | None]
) -> _Parts | None:
    """What ``parts`` reads from the sections of ``text`` (:func:`_sections`), or None when
    the line reader must decide (the sections are unusual: :class:`_Unusual`)."""
    sections = _sections(text)
    if sections is None:
        return None
    try:
        return parts(*sections)
    except _Unusual:
        return None


def _sections(text: str) -> tuple[dict[str, str], dict[str, str]] | None:
    """The text after each section header on its line, and the lines below it (None: headers
    missing, out of order or odd line breaks, for the line reader to name)."""
    if "\r\n" in text:
        text = text.replace("\r\n", "\n")  # one line break for splitlines() too
    if any(c in text for c in _ODD_BREAKS):
        return None
    heads = list(_HEADER.finditer(text))
    if [m.group(1) for m in heads] != list(_SECTIONS):
        return None
    ends = [text.find("\n", m.end()) for m in heads]
    ends = [len(text) if e < 0 else e for e in ends]
    rest = {m.group(1): text[m.end() : e].strip() for m, e in zip(heads, ends, strict=True)}
    body = {
        m.group(1): text[e + 1 : nxt.start()]
        for m, e, nxt in zip(heads, ends, heads[1:], strict=False)
    }
    body["VarDef"] = text[ends[-1] + 1 :]
    gaps = [text[: heads[0].start()]] + [body[k] for k in ("NN", "Root", "T", "NT", "NV")]
    if not all(_only_comments(g) for g in gaps):
        return None
    return rest, body


def _fast_parts(rest: dict[str, str], body: dict[str, str]) -> _Parts | None:
    nn, root_id, nv = _counts(rest)
    if not 0 <= root_id < 10**_MAX_DIGITS:  # as the ids the fast path reads
        return None
    terminals = _required(_int_rows(rest["T"], 0))
    non_terminals = _required(_int_rows(rest["NT"], 0))
    tdef = _required(_int_rows(body["TDef"], 2))
    ntdef = _required(_int_rows(body["NTDef"], 3))
    vardef = _required(_var_lines(body["VarDef"]))
    ids = np.concatenate([terminals[0][0], non_terminals[0][0]])
    n_t = len(terminals[0][0])
    if len(ids) != nn:
        return None
    find = _Index(ids)
    if not find.distinct:
        return None
    (t_node, t_bit), t_len = tdef
    (parent, child, e_bit), e_len = ntdef
    var_node, var_code, names = vardef
    t_at, root, p_at, c_at = find(t_node), find(np.array([root_id])), find(parent), find(child)
    v_at = find(var_node)
    if (
        len(names) != nv
        or root[0] < 0
        or not _bits(t_bit, t_len[:, 1])
        or not _bits(e_bit, e_len[:, 2])
        or not _exactly_once(t_at, 0, n_t)
        or not _exactly_once(v_at, n_t, nn)
        or (p_at < n_t).any()  # also -1: not listed
        or (c_at < 0).any()
    ):
        return None
    node_var = np.full(nn, -1, dtype=np.int64)
    node_var[v_at] = var_code
    terminal_value = np.full(nn, -1, dtype=np.int64)
    terminal_value[t_at] = t_bit
    return _Parts(
        ids.tolist(), int(root[0]), node_var, terminal_value, p_at, c_at, e_bit == 1, names
    )


# -- the light path: the same checks in pure Python, for small files ------------------------------
# Anything the line reader would read differently or reject returns None, as above; int() is
# the line reader's own conversion, so the numbers are the same.

_TDEF = re.compile(r"^[ \t]*[0-9]+[ \t]+[01][ \t]*$", re.MULTILINE)
_NTDEF = re.compile(r"^[ \t]*[0-9]+[ \t]+[0-9]+[ \t]+[01][ \t]*$", re.MULTILINE)


def _read_light(text: str) -> _Parts | None:
    """As :func:`_read_fast`, into lists, without numpy."""
    return _read_sections(text, _light_parts)


def _light_parts(rest: dict[str, str], body: dict[str, str]) -> _Parts | None:
    nn, root_id, nv = _counts(rest)
    terminals, non_terminals = _required(_light_ints(rest["T"])), _required(_light_ints(rest["NT"]))
    tdef = _required(_light_rows(body["TDef"], _TDEF))
    ntdef = _required(_light_rows(body["NTDef"], _NTDEF))
    vardef = _required(_light_vars(body["VarDef"]))
    ids = terminals + non_terminals
    index = dict(zip(ids, range(len(ids))))  # (C loops throughout: map, zip, dict)
    n_t = len(terminals)
    var_node, var_code, names = vardef
    t_node, t_bit = tdef[0::2], tdef[1::2]
    if len(ids) != nn or len(index) != nn or root_id not in index or len(names) != nv:
        return None  # ids listed twice, ...
    t_at = _each_once(t_node, index, 0, n_t)
    v_at = _each_once(var_node, index, n_t, nn)
    if t_at is None or v_at is None:
        return None
    try:
        src = list(map(index.__getitem__, ntdef[0::3]))
        dst = list(map(index.__getitem__, ntdef[1::3]))
    except KeyError:
        return None
    if src and min(src) < n_t:  # an edge from a terminal
        return None
    # every terminal has its bit and every non-terminal its variable (checked above)
    node_var = [-1] * n_t + list(map(dict(zip(v_at, var_code)).__getitem__, range(n_t, nn)))
    terminal_value = list(map(dict(zip(t_at, t_bit)).__getitem__, range(n_t)))
    terminal_value += [-1] * (nn - n_t)
    label = list(map(bool, ntdef[2::3]))
    return _Parts(ids, index[root_id], node_var, terminal_value, src, dst, label, names)


def _light_ints(text: str) -> list[int] | None:
    try:
        return list(map(int, text.split()))
    except ValueError:
        return None


def _light_rows(text: str, line: re.Pattern[str]) -> list[int] | None:
    """The integers of a block whose lines all match ``line`` (blank and comment lines
    skipped), row after row, or None."""
    if "#" in text:
        text = "\n".join(s for s in text.split("\n") if not s.lstrip().startswith("#"))
    if not text.isascii() or line.sub("", text).strip():
        return None
    return list(map(int, text.split()))


def _light_vars(text: str) -> tuple[list[int], list[int], list[str]] | None:
    """As :func:`_var_lines`, into lists."""
    lines = [line.strip() for line in text.split("\n")]
    if "#" in text or "" in lines:
        lines = [s for s in lines if s and s[0] != "#"]
    if ":" in text and any(s.partition(":")[0].strip() in _SECTIONS for s in lines if ":" in s):
        return None
    fields = [s.partition(" ") for s in lines]
    heads = [f[0] for f in fields]
    digits = "".join(heads)
    if "".join([f[1] for f in fields]) != " " * len(fields) or not (
        digits.isascii() and digits.isdigit() or not digits
    ):
        return None
    index: dict[str, int] = {}
    codes = [index.setdefault(f[2].lstrip(), len(index)) for f in fields]
    return list(map(int, heads)), codes, list(index)


def _each_once(nodes: list[int], index: dict[int, int], low: int, high: int) -> list[int] | None:
    """The positions of ``nodes``, when they list each node at positions ``low .. high - 1`` of
    ``index`` exactly once (else None)."""
    if len(nodes) != high - low or len(set(nodes)) != len(nodes):
        return None
    at = list(map(index.get, nodes, repeat(-1)))
    return at if not at or (min(at) >= low and max(at) < high) else None


def _only_comments(text: str) -> bool:
    """No line of ``text`` other than blank lines and comments."""
    return all(not s or s.startswith("#") for s in (line.strip() for line in text.split("\n")))


def _single_int(text: str) -> int | None:
    if len(text.split()) != 1:
        return None
    try:
        return int(text)
    except ValueError:
        return None


def _int_rows(text: str, width: int) -> tuple[list[np.ndarray], np.ndarray] | None:
    """The columns and token lengths of a block of lines of ``width`` unsigned integers each
    (blank and comment lines skipped; ``width`` 0: one line of any number of them), or None
    when the block holds anything else."""
    if "#" in text:
        text = "\n".join(line for line in text.split("\n") if not line.lstrip().startswith("#"))
    try:
        b = np.frombuffer(text.encode("ascii"), dtype=np.uint8)
    except UnicodeEncodeError:
        return None
    digit = (b - np.uint8(48)) < 10
    newline = b == 10
    if np.count_nonzero(digit | newline | (b == 32) | (b == 9)) != len(b):
        return None
    # tokens are the runs of digits: their bounds are where digit/non-digit alternate
    edges = np.flatnonzero(np.diff(digit.view(np.int8), prepend=0, append=0))
    starts, stops = edges[0::2], edges[1::2]
    lengths = stops - starts
    if len(lengths) and lengths.max() > _MAX_DIGITS:
        return None
    if width:
        # tokens per line: starts before each line's end, less those before the previous end
        line_ends = np.append(np.flatnonzero(newline), len(b))
        per_line = np.diff(np.searchsorted(starts, line_ends), prepend=0)
        if not ((per_line == 0) | (per_line == width)).all():
            return None
    values = np.fromstring(text, dtype=np.int64, sep=" ") if len(starts) else np.zeros(0, np.int64)
    if len(values) != len(starts):
        return None
    k = max(width, 1)
    return list(values.reshape(-1, k).T), lengths.reshape(-1, k)


def _var_lines(text: str) -> tuple[np.ndarray, np.ndarray, list[str]] | None:
    """The nodes, variable indices and distinct names (in order of first appearance) of the
    ``VarDef`` lines, or None when some line is not ``<node> <name>`` with one space after
    the node (a tab there: the line reader reads it)."""
    lines = [line.strip() for line in text.split("\n")]
    if "#" in text or "" in lines:
        lines = [s for s in lines if s and s[0] != "#"]
    if ":" in text and any(s.partition(":")[0].strip() in _SECTIONS for s in lines if ":" in s):
        return None  # a section header: the line reader says where
    fields = [s.partition(" ") for s in lines]
    if any(f[1] != " " for f in fields):
        return None
    heads = _int_rows("\n".join([f[0] for f in fields]), 1)
    if heads is None or len(heads[0][0]) != len(fields):
        return None
    index: dict[str, int] = {}
    codes = [index.setdefault(f[2].lstrip(), len(index)) for f in fields]
    return heads[0][0], np.array(codes, dtype=np.int64), list(index)


def _bits(values: np.ndarray, lengths: np.ndarray) -> bool:
    """Every token is ``0`` or ``1`` (one character: ``00`` is not a label)."""
    return bool((lengths == 1).all() and (values <= 1).all())


def _exactly_once(at: np.ndarray, low: int, high: int) -> bool:
    """``at`` lists each of ``low .. high - 1`` exactly once."""
    if len(at) != high - low:
        return False
    if not ((at >= low) & (at < high)).all():
        return False
    return not len(at) or int(np.bincount(at - low).max()) == 1


class _Index:
    """Positions of integer ids in an array of distinct ids (-1 for ids not in it)."""

    def __init__(self, ids: np.ndarray) -> None:
        self.dense = len(ids) > 0 and ids.min() >= 0 and ids.max() < 4 * len(ids) + 1024
        if self.dense:
            self.table = np.full(int(ids.max()) + 1, -1, dtype=np.int64)
            self.table[ids] = np.arange(len(ids))
            self.distinct = bool((self.table[ids] == np.arange(len(ids))).all())
        else:
            self.order = np.argsort(ids, kind="stable")
            self.sorted = ids[self.order]
            self.distinct = bool((np.diff(self.sorted) != 0).all())

    def __call__(self, query: np.ndarray) -> np.ndarray:
        if self.dense:
            inside = (query >= 0) & (query < len(self.table))
            return np.where(inside, self.table[np.where(inside, query, 0)], -1)
        if not len(self.sorted):
            return np.full(len(query), -1, dtype=np.int64)
        pos = np.minimum(np.searchsorted(self.sorted, query), len(self.sorted) - 1)
        return np.where(self.sorted[pos] == query, self.order[pos], -1)


def read_text(path: str | os.PathLike[str], what: str = "text") -> str:
    """The UTF-8 text of a file; a :class:`ParseError` naming the file when it cannot be read
    or is not UTF-8 (``what`` says what was expected, e.g. ``"JSON text"``)."""
    try:
        with open(path, encoding="utf-8") as fh:  # not pathlib: 3 ms of start-up
            return fh.read()
    except OSError as err:
        raise ParseError(f"cannot read the file: {err.strerror}", path=str(path)) from None
    except UnicodeDecodeError:
        raise ParseError(f"expected UTF-8 {what}, found binary data", path=str(path)) from None


def read_xpg(path: str | os.PathLike[str]) -> ExplanationGraph:
    """Read a ``.xpg`` file (see the module docstring for the format)."""
    return read_xpg_text(read_text(path), path=str(path))


def format_xpg(xg: ExplanationGraph) -> str:
    """The ``.xpg`` text of an explanation graph (integer ids are kept, others renumbered).

    One pass over the nodes and one over the edges, each id turned into text once.
    """
    if all(isinstance(i, Integral) and not isinstance(i, bool) for i in xg.node_ids):
        ids = [str(int(i)) for i in xg.node_ids]  # type: ignore[call-overload]
    else:
        ids = [str(i) for i in range(1, xg.n_nodes + 1)]
    node_var = xg.node_var_list
    terminals = [i for i, v in enumerate(node_var) if v < 0]
    inner = [i for i, v in enumerate(node_var) if v >= 0]
    value = xg.terminal_value_list
    lines = []
    if xg.instance is not None:
        lines.append(f"# features: [{','.join(xg.var_names)}]")
        lines.append(f"# instance: [{','.join(str(v) for v in xg.instance)}]")
    lines += [f"NN: {xg.n_nodes}", f"Root: {ids[xg.root]}"]
    lines.append("T: " + " ".join([ids[i] for i in terminals]))
    lines.append("TDef:")
    lines += [f"{ids[i]} {value[i]}" for i in terminals]
    lines.append("NT: " + " ".join([ids[i] for i in inner]))
    lines.append("NTDef:")
    bit = ("0", "1")
    lines += [
        f"{ids[s]} {ids[d]} {bit[b]}"
        for s, d, b in zip(
            xg.column_list("edge_src"),
            xg.column_list("edge_dst"),
            xg.column_list("edge_label"),
            strict=True,
        )
    ]
    lines.append(f"NV: {len({node_var[i] for i in inner})}")
    lines.append("VarDef:")
    names = xg.var_names
    lines += [f"{ids[i]} {names[node_var[i]]}" for i in inner]
    return "\n".join(lines) + "\n"


def write_xpg(xg: ExplanationGraph, path: str | os.PathLike[str]) -> None:
    """Write a ``.xpg`` file whole or not at all."""
    from xpg.io.atomic import write_text_atomic  # tempfile: not for reading

    write_text_atomic(path, format_xpg(xg))
