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
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from xpg.core.xpgraph import ExplanationGraph
from xpg.errors import InvalidGraphError, ParseError
from xpg.io.atomic import write_text_atomic

_SECTIONS = ("NN", "Root", "T", "TDef", "NT", "NTDef", "NV", "VarDef")


@dataclass
class _Line:
    number: int
    text: str


class _Reader:
    def __init__(self, text: str, path: str | None) -> None:
        self.path = path
        self.lines = [
            _Line(i, raw.strip())
            for i, raw in enumerate(text.splitlines(), start=1)
            if raw.strip() and not raw.strip().startswith("#")
        ]
        self.pos = 0
        self.last_line = len(text.splitlines())

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
    """Parse the text of a ``.xpg`` file into a validated :class:`ExplanationGraph`."""
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
    r.header("TDef")
    term_value: dict[int, int] = {}
    for ln in r.body():
        parts = ln.text.split()
        if len(parts) != 2:
            raise r.error(f"expected '<terminal> <0|1>', found {ln.text!r}", ln.number)
        node = r.integer(parts[0], "terminal id", ln.number)
        if node not in terminals:
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
    if len(set(ids)) != len(ids):
        dup = sorted({i for i in ids if ids.count(i) > 1})
        raise r.error(f"node id(s) {dup} listed more than once in 'T:'/'NT:'", nt_line)
    if len(ids) != nn:
        raise r.error(f"'NN: {nn}' but 'T:' and 'NT:' list {len(ids)} nodes", nt_line)
    if root_id not in ids:
        raise r.error(f"the root {root_id} is not listed in 'T:' or 'NT:'", nt_line)
    r.header("NTDef")
    edges: list[tuple[int, int, int]] = []
    nt_set, all_set = set(non_terminals), set(ids)
    for ln in r.body():
        parts = ln.text.split()
        if len(parts) != 3:
            raise r.error(f"expected '<parent> <child> <0|1>', found {ln.text!r}", ln.number)
        p = r.integer(parts[0], "parent id", ln.number)
        c = r.integer(parts[1], "child id", ln.number)
        if p not in nt_set:
            raise r.error(f"edge from {p}, which is not a non-terminal listed in 'NT:'", ln.number)
        if c not in all_set:
            raise r.error(f"edge to {c}, which is not a listed node", ln.number)
        edges.append((p, c, r.bit(parts[2], "an edge label", ln.number)))
    rest, line = r.header("NV")
    if len(rest.split()) != 1:
        raise r.error(f"expected 'NV: <number of variables>', found 'NV: {rest}'", line)
    nv = r.integer(rest, "variable count", line)
    r.header("VarDef")
    var_of: dict[int, str] = {}
    names: list[str] = []
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
        var_of[node] = name
        if name not in names:
            names.append(name)
    if r.pos < len(r.lines):
        raise r.error(f"unexpected line after VarDef: {r.lines[r.pos].text!r}")
    undefined = [n for n in non_terminals if n not in var_of]
    if undefined:
        raise r.error(f"non-terminal(s) {undefined} have no VarDef line", r.last_line)
    if nv != len(names):
        raise r.error(f"'NV: {nv}' but VarDef names {len(names)} distinct variables", line)
    return _build(ids, root_id, term_value, edges, var_of, names, path)


def _build(
    ids: list[int],
    root_id: int,
    term_value: dict[int, int],
    edges: list[tuple[int, int, int]],
    var_of: dict[int, str],
    names: list[str],
    path: str | None,
) -> ExplanationGraph:
    index = {node: i for i, node in enumerate(ids)}
    var_index = {name: i for i, name in enumerate(names)}
    node_var = np.array([var_index[var_of[n]] if n in var_of else -1 for n in ids])
    terminal_value = np.array([term_value.get(n, -1) for n in ids])
    src = np.array([index[p] for p, _, _ in edges], dtype=np.int64)
    dst = np.array([index[c] for _, c, _ in edges], dtype=np.int64)
    label = np.array([b for _, _, b in edges], dtype=bool)
    try:
        return ExplanationGraph(
            names, ids, index[root_id], node_var, terminal_value, src, dst, label
        )
    except InvalidGraphError as err:
        where = f"{path}: " if path else ""
        raise InvalidGraphError(f"{where}{err}", err.violations) from None


def read_text(path: str | os.PathLike[str], what: str = "text") -> str:
    """The UTF-8 text of a file; a :class:`ParseError` naming the file when it cannot be read
    or is not UTF-8 (``what`` says what was expected, e.g. ``"JSON text"``)."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as err:
        raise ParseError(f"cannot read the file: {err.strerror}", path=str(path)) from None
    except UnicodeDecodeError:
        raise ParseError(f"expected UTF-8 {what}, found binary data", path=str(path)) from None


def read_xpg(path: str | os.PathLike[str]) -> ExplanationGraph:
    """Read a ``.xpg`` file (see the module docstring for the format)."""
    return read_xpg_text(read_text(path), path=str(path))


def format_xpg(xg: ExplanationGraph) -> str:
    """The ``.xpg`` text of an explanation graph (integer ids are kept, others renumbered)."""
    if all(isinstance(i, (int, np.integer)) and not isinstance(i, bool) for i in xg.node_ids):
        ids = [int(i) for i in xg.node_ids]  # type: ignore[call-overload]
    else:
        ids = list(range(1, xg.n_nodes + 1))
    terminals = [i for i in range(xg.n_nodes) if xg.node_var[i] < 0]
    inner = [i for i in range(xg.n_nodes) if xg.node_var[i] >= 0]
    lines = []
    if xg.instance is not None:
        lines.append(f"# features: [{','.join(xg.var_names)}]")
        lines.append(f"# instance: [{','.join(str(v) for v in xg.instance)}]")
    lines += [f"NN: {xg.n_nodes}", f"Root: {ids[xg.root]}"]
    lines.append("T: " + " ".join(str(ids[i]) for i in terminals))
    lines.append("TDef:")
    lines += [f"{ids[i]} {int(xg.terminal_value[i])}" for i in terminals]
    lines.append("NT: " + " ".join(str(ids[i]) for i in inner))
    lines.append("NTDef:")
    lines += [
        f"{ids[s]} {ids[d]} {int(b)}"
        for s, d, b in zip(
            xg.edge_src.tolist(), xg.edge_dst.tolist(), xg.edge_label.tolist(), strict=True
        )
    ]
    lines.append(f"NV: {len({int(xg.node_var[i]) for i in inner})}")
    lines.append("VarDef:")
    lines += [f"{ids[i]} {xg.var_names[int(xg.node_var[i])]}" for i in inner]
    return "\n".join(lines) + "\n"


def write_xpg(xg: ExplanationGraph, path: str | os.PathLike[str]) -> None:
    """Write a ``.xpg`` file whole or not at all."""
    write_text_atomic(path, format_xpg(xg))
