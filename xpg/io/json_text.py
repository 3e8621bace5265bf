"""JSON text read and written safely: the one place where model files and JSON instances are
parsed.

Python's :mod:`json` accepts what is not JSON (``NaN``, ``Infinity``), turns ``1e999`` into an
infinity, fails on integers of more than 4,300 digits with a bare ``ValueError`` and on
nesting a thousand levels deep with a ``RecursionError``.  :func:`parse_json` refuses the
first three with a :class:`~xpg.errors.ParseError` saying what was expected, what was found
and where (line and column), and reads any nesting depth (a decision tree 100,000 levels
deep is 300,000 levels of JSON): the C decoder first, an iterative decoder when the C one
runs out of stack.  :func:`dump_json` writes such documents back the same way.

Examples
--------
>>> parse_json('{"low": 0, "high": 2.5, "values": ["a", null, true]}')
{'low': 0, 'high': 2.5, 'values': ['a', None, True]}
>>> parse_json('{"low": NaN}', path="m.json")
Traceback (most recent call last):
...
xpg.errors.ParseError: m.json:1: expected a JSON value, found NaN (not JSON) (column 9)
>>> deep = "[" * 5000 + "]" * 5000
>>> dump_json(parse_json(deep)) == deep
True
"""

from __future__ import annotations

import json
import math
import re
from json.decoder import scanstring  # type: ignore[attr-defined]
from typing import Any

from xpg.errors import ParseError

#: Integers longer than this are refused (no float holds them; Python refuses 4,300 digits).
MAX_INT_DIGITS = 400

_WS = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"(-?(?:0|[1-9][0-9]*))(\.[0-9]+)?([eE][-+]?[0-9]+)?")


class _Refused(Exception):
    """A token the hooks refuse: its text and the reason, located afterwards."""

    def __init__(self, token: str, message: str) -> None:
        super().__init__(message)
        self.token, self.message = token, message


def _int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise _Refused(
            text, f"expected a number of at most {MAX_INT_DIGITS} digits, found one of {len(text)}"
        )
    value = int(text)
    try:
        float(value)
    except OverflowError:
        raise _Refused(
            text, f"expected a number within the float range, found {text[:20]}..."
        ) from None
    return value


def _float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise _Refused(text, f"expected a number within the float range, found {text[:40]}")
    return value


def _constant(text: str) -> Any:
    raise _Refused(text, f"expected a JSON value, found {text} (not JSON)")


def _where(text: str, pos: int) -> tuple[int, int]:
    line = text.count("\n", 0, pos) + 1
    return line, pos - (text.rfind("\n", 0, pos) + 1) + 1


def _locate(text: str, token: str) -> int:
    """Position of ``token`` written as a value (not inside a string), else 0."""
    for m in re.finditer(r'"(?:[^"\\]|\\.)*"|' + re.escape(token), text):
        if not m.group().startswith('"') or token.startswith('"'):
            return m.start()
    return 0


def parse_json(text: str, path: str | None = None, *, context: str = "", what: str = "JSON") -> Any:
    """The document of a JSON text, with Python's laxities refused and any nesting depth.

    Raises
    ------
    ParseError
        Malformed JSON, ``NaN``/``Infinity``, a number outside the float range or longer
        than :data:`MAX_INT_DIGITS` digits; the message names ``path``, line and column,
        after ``context``; ``what`` names what was expected.
    """
    try:
        try:
            return json.loads(text, parse_int=_int, parse_float=_float, parse_constant=_constant)
        except RecursionError:
            return _Decoder(text).document()
    except _Refused as err:
        line, col = _where(text, _locate(text, err.token))
        raise ParseError(f"{context}{err.message} (column {col})", path=path, line=line) from None
    except json.JSONDecodeError as err:
        raise ParseError(
            f"{context}malformed {what}: {err.msg} (column {err.colno})",
            path=path,
            line=err.lineno,
        ) from None


class _Decoder:
    """An iterative JSON decoder (an explicit stack instead of recursion)."""

    def __init__(self, text: str) -> None:
        self.s = text

    def fail(self, message: str, pos: int) -> json.JSONDecodeError:
        return json.JSONDecodeError(message, self.s, pos)

    def ws(self, pos: int) -> int:
        return _WS.match(self.s, pos).end()  # type: ignore[union-attr]

    def scalar(self, pos: int) -> tuple[Any, int]:
        s = self.s
        c = s[pos : pos + 1]
        if c == '"':
            value, end = scanstring(s, pos + 1, True)
            return value, end
        for word, value in (("null", None), ("true", True), ("false", False)):
            if s.startswith(word, pos):
                return value, pos + len(word)
        for word in ("NaN", "Infinity", "-Infinity"):
            if s.startswith(word, pos):
                return _constant(word), pos
        m = _NUMBER.match(s, pos)
        if m is None:
            raise self.fail("Expecting value", pos)
        if m.group(2) or m.group(3):
            return _float(m.group()), m.end()
        return _int(m.group()), m.end()

    def document(self) -> Any:
        s = self.s
        # the stack holds open containers: [container, key waiting for its value or None]
        stack: list[list[Any]] = []
        pos = self.ws(0)
        while True:
            c = s[pos : pos + 1]
            if c in ("{", "["):
                container: Any = {} if c == "{" else []
                stack.append([container, None])
                pos = self.ws(pos + 1)
                if s[pos : pos + 1] == ("}" if c == "{" else "]"):
                    stack.pop()
                    value, pos = container, pos + 1
                elif c == "{":
                    pos = self.key(stack[-1], pos)
                    continue
                else:
                    continue
            else:
                value, pos = self.scalar(pos)
            # a value is complete: place it, then close every container that ends here
            while True:
                if not stack:
                    pos = self.ws(pos)
                    if pos != len(s):
                        raise self.fail("Extra data", pos)
                    return value
                top = stack[-1]
                if isinstance(top[0], dict):
                    top[0][top[1]] = value
                else:
                    top[0].append(value)
                pos = self.ws(pos)
                c = s[pos : pos + 1]
                if c == ",":
                    pos = self.ws(pos + 1)
                    if isinstance(top[0], dict):
                        pos = self.key(top, pos)
                    break
                if c == ("}" if isinstance(top[0], dict) else "]"):
                    stack.pop()
                    value, pos = top[0], pos + 1
                    continue
                raise self.fail("Expecting ',' delimiter", pos)

    def key(self, top: list[Any], pos: int) -> int:
        s = self.s
        if s[pos : pos + 1] != '"':
            raise self.fail("Expecting property name enclosed in double quotes", pos)
        top[1], pos = scanstring(s, pos + 1, True)
        pos = self.ws(pos)
        if s[pos : pos + 1] != ":":
            raise self.fail("Expecting ':' delimiter", pos)
        return self.ws(pos + 1)


def dump_json(doc: Any, indent: int | None = None) -> str:
    """The JSON text of ``doc`` (``NaN`` and infinities refused); documents too deep for
    :func:`json.dumps` are written iteratively, without indentation.

    Raises
    ------
    ValueError
        For a float that is not finite (JSON has no such number).
    """
    try:
        return json.dumps(doc, indent=indent, allow_nan=False)
    except RecursionError:
        pass
    out: list[str] = []
    # items to write: ("v", value) a value, ("s", text) literal text
    todo: list[tuple[str, Any]] = [("v", doc)]
    while todo:
        what, item = todo.pop()
        if what == "s":
            out.append(item)
        elif isinstance(item, dict):
            parts: list[tuple[str, Any]] = [("s", "{")]
            for k, (key, value) in enumerate(item.items()):
                sep = ", " if k else ""
                parts += [("s", sep + json.dumps(str(key)) + ": "), ("v", value)]
            parts.append(("s", "}"))
            todo += parts[::-1]
        elif isinstance(item, (list, tuple)):
            parts = [("s", "[")]
            for k, value in enumerate(item):
                parts += [("s", ", ")] if k else []
                parts.append(("v", value))
            parts.append(("s", "]"))
            todo += parts[::-1]
        else:
            out.append(json.dumps(item, allow_nan=False))
    return "".join(out)
