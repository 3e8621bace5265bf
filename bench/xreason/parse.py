"""Reading XReason's text: its ``-v`` answer for one instance, and the paper's logs.

XReason (``xreason.py ... -X abd -N 1 -v``) prints, for one instance::

      explaining:  "IF f0 == 5.1 AND f1 == 3.5 THEN 2"
      explanation: "IF f1 == 3.5 THEN 2"
      # hypos left: 1
      calls: 4
      rtime: 0.02

Each condition is ``NAME == VALUE`` (``VALUE`` as numpy prints the float64 it was given),
or the value alone when the name is part of its text (XReason's categorical values).
``rtime`` is the user CPU time of the explanation, model loading excluded, rounded to
centiseconds.  The logs of the AAAI-22 paper (``xreason-logs/{mx,smt,anchor}/NAME.log``)
hold one block per instance: ``i:`` the instance, ``s:`` the AXp's size, ``t:`` seconds,
``c:`` oracle calls; then the totals (``max time:``, ``min time:``, ``avg time:``, ``avg
calls:``), which :func:`parse_log` skips.

Examples
--------
>>> text = '''  explaining:  "IF f0 == 5.1 AND f1 == 3.5 THEN 2"
...   explanation: "IF f1 == 3.5 THEN 2"
...   # hypos left: 1
...   calls: 4
...   rtime: 0.02'''
>>> answer = parse_verbose(text)
>>> answer.features, answer.values, answer.label, answer.calls, answer.rtime
(('f1',), (3.5,), '2', 4, 0.02)
>>> [(e.size, e.seconds) for e in parse_log("i: 1,2\\ns: 1\\nt: 0.015\\nc: 7\\n\\nmax time: 0.01")]
[(1, 0.015)]
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from xpg.errors import XpgError


class XReasonOutputError(XpgError, ValueError):
    """XReason's output or a log of the paper is not in the expected form."""


@dataclass(frozen=True)
class VerboseAnswer:
    """One AXp as XReason's ``-v`` output gives it.

    Attributes
    ----------
    features : tuple of str
        The AXp's features, in the order printed.
    values : tuple of float or None
        The value printed for each (None when it is not a number).
    label : str
        The explained class.
    calls : int
        Oracle calls.
    rtime : float
        Seconds as printed (user CPU time, centiseconds).
    """

    features: tuple[str, ...]
    values: tuple[float | None, ...]
    label: str
    calls: int
    rtime: float


@dataclass(frozen=True)
class LogEntry:
    """One instance of a log of the paper: the instance, AXp size, seconds, oracle calls."""

    instance: tuple[float, ...]
    size: int
    seconds: float
    calls: int


_RULE = re.compile(r'^\s*explanation:\s*"IF (?P<body>.*) THEN (?P<label>.*)"\s*$')
_EMPTY_RULE = re.compile(r'^\s*explanation:\s*"IF\s+THEN (?P<label>.*)"\s*$')
_TOTALS = ("max time", "min time", "avg time", "avg calls")
_FIELD = re.compile(r"^\s*(?P<key>calls|rtime):\s*(?P<value>\S+)\s*$")


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def _condition(text: str) -> tuple[str, float | None]:
    name, sep, value = text.partition(" == ")
    if not sep:  # a categorical value printed alone
        return text.strip(), None
    return name.strip(), _number(value.strip())


def parse_verbose(text: str) -> VerboseAnswer:
    """The one AXp of XReason's ``-v`` output (``-X abd -N 1``).

    Raises
    ------
    XReasonOutputError
        No explanation line, several, or no ``calls:``/``rtime:`` line after it.
    """
    rules: list[tuple[str, str]] = []
    fields: dict[str, str] = {}
    for line in text.splitlines():
        empty = _EMPTY_RULE.match(line)
        match = empty or _RULE.match(line)
        if match:
            rules.append(("" if empty else match.group("body"), match.group("label")))
            continue
        field = _FIELD.match(line)
        if field and rules:
            fields[field.group("key")] = field.group("value")
    if len(rules) != 1:
        raise XReasonOutputError(
            f"XReason's -v output: expected one 'explanation: \"IF ... THEN ...\"' line, "
            f"found {len(rules)}"
        )
    missing = [k for k in ("calls", "rtime") if k not in fields]
    if missing:
        raise XReasonOutputError(
            f"XReason's -v output: expected a line '{missing[0]}: NUMBER' after the explanation"
        )
    body, label = rules[0]
    conditions = [_condition(c) for c in body.split(" AND ")] if body.strip() else []
    try:
        calls, rtime = int(fields["calls"]), float(fields["rtime"])
    except ValueError:
        raise XReasonOutputError(
            f"XReason's -v output: expected numbers after 'calls:' and 'rtime:', found "
            f"{fields['calls']!r} and {fields['rtime']!r}"
        ) from None
    return VerboseAnswer(
        tuple(n for n, _ in conditions),
        tuple(v for _, v in conditions),
        label.strip(),
        calls,
        rtime,
    )


def feature_indices(names: Sequence[str], features: Sequence[str]) -> list[int]:
    """The column index of each of XReason's feature names: its own ``f<i>``, or the name in
    ``features`` (the model's feature names, when they are not ``f0, f1, ...``).

    Examples
    --------
    >>> feature_indices(["f1", "hair"], ["hair", "legs"])
    [1, 0]

    Raises
    ------
    XReasonOutputError
        A name that is neither.
    """
    out = []
    for name in names:
        if name in features:
            out.append(list(features).index(name))
        elif re.fullmatch(r"f\d+", name) and int(name[1:]) < len(features):
            out.append(int(name[1:]))
        else:
            raise XReasonOutputError(
                f"XReason named feature {name!r}: expected f0..f{len(features) - 1} or one "
                f"of the model's names"
            )
    return out


def parse_log(text: str, where: str = "log") -> list[LogEntry]:
    """The blocks of a log of the paper, in order.

    Raises
    ------
    XReasonOutputError
        A block without its four lines, or with a value that is not a number
        (``where`` names the file in the message, with the line).
    """
    entries: list[LogEntry] = []
    block: dict[str, str] = {}
    start = 0
    lines = text.splitlines()
    for number, line in enumerate([*lines, ""], start=1):
        if not line.strip():
            if block:
                entries.append(_entry(block, where, start))
                block = {}
            continue
        key, sep, value = line.partition(":")
        if sep and key.strip() in _TOTALS:
            continue
        if not sep or key.strip() not in ("i", "s", "t", "c"):
            raise XReasonOutputError(
                f"{where}, line {number}: expected 'i:', 's:', 't:' or 'c:', found {line!r}"
            )
        if not block:
            start = number
        block[key.strip()] = value.strip()
    return entries


def _entry(block: dict[str, str], where: str, line: int) -> LogEntry:
    missing = [k for k in ("i", "s", "t", "c") if k not in block]
    if missing:
        raise XReasonOutputError(
            f"{where}, block at line {line}: expected lines i, s, t and c, no {missing[0]!r}"
        )
    try:
        instance = tuple(float(v) for v in block["i"].split(","))
        return LogEntry(instance, int(block["s"]), float(block["t"]), int(block["c"]))
    except ValueError:
        raise XReasonOutputError(
            f"{where}, block at line {line}: expected numbers, found {block}"
        ) from None
