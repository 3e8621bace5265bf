"""Feature names and numbers as text that reads back unambiguously (pure Python, no import).

Explanations print sets of feature names (``{a, b}``) and conditions on them
(``age >= 30``, ``colour in {'blue', 'red'}``).  A name is written as it is unless it could be
misread there; then it is written as a JSON string (double quotes, ``\\"`` and ``\\\\``
escaped, every character that does not print, such as a control character, a zero-width or a
non-breaking space, as a ``\\uXXXX`` escape), so that ``json.loads`` gives the name back.  A
name is quoted when it

- is empty, or starts or ends with a blank;
- holds a character that does not print (``str.isprintable``);
- holds one of ``, ; { } " \\`` (the separators of sets and of lists of conditions);
- holds, between blanks, a word that conditions use: ``=``, ``<``, ``<=``, ``>``, ``>=``,
  ``in``, ``or``, ``is``, ``gives``.

Names with blanks, ``=``, ``:``, ``<`` or letters of any script otherwise print as they are:
``worst radius``, ``priors:=0``, ``age:<26``, ``température``.

Examples
--------
>>> [quote_name(n) for n in ["age", "worst radius", "priors:=0", "a, b", "cost in eur", " x"]]
['age', 'worst radius', 'priors:=0', '"a, b"', '"cost in eur"', '" x"']
>>> quote_name("zero\\u200bwidth"), quote_name('say "hi"')
('"zero\\\\u200bwidth"', '"say \\\\"hi\\\\""')
>>> braces(["b", "a,b"])
'{b, "a,b"}'
>>> short_number(16.795001029968258), short_number(1234.567), short_number(3.0)
('16.795', '1234.567', '3')
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable

#: characters that separate the items of a set or of a list of conditions
SEPARATORS = frozenset(',;{}"\\')
#: words a condition is made of: a name holding one of them between blanks is quoted
OPERATOR_WORDS = frozenset(["=", "<", "<=", ">", ">=", "in", "or", "is", "gives"])
#: how far a printed number may be from the number (relative): about 7 significant digits,
#: finer than the single precision scikit-learn's trees compare in (2**-23)
NUMBER_TOLERANCE = 2.0**-22


def needs_quotes(name: str) -> bool:
    """Whether :func:`quote_name` quotes ``name`` (see the module's rules).

    >>> needs_quotes("age:<26"), needs_quotes("x = 1")
    (False, True)
    """
    if not name or name[0].isspace() or name[-1].isspace():
        return True
    if not name.isprintable() or not SEPARATORS.isdisjoint(name):
        return True
    return not OPERATOR_WORDS.isdisjoint(name.split())


def quote_name(name: str) -> str:
    """``name`` as it is, or as a JSON string when it could be misread (module docstring).

    >>> quote_name("proline"), quote_name("a;b")
    ('proline', '"a;b"')
    """
    if not needs_quotes(name):
        return name
    out = []
    for ch in name:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch.isprintable():
            out.append(ch)
        else:
            out.append(json.dumps(ch)[1:-1])  # \n, \t, \uXXXX (surrogate pairs beyond)
    return '"' + "".join(out) + '"'


def braces(names: Iterable[str]) -> str:
    """A set of feature names as text, ``{a, b}``, each name as :func:`quote_name` writes it.

    >>> braces(["Address bit 1", "Bit 0"])
    '{Address bit 1, Bit 0}'
    """
    return "{" + ", ".join(quote_name(n) for n in names) + "}"


def short_number(x: float) -> str:
    """A number in its shortest decimal form within :data:`NUMBER_TOLERANCE` (relative), an
    integer value without a decimal point.

    >>> short_number(0.30000000000000004), short_number(152345.5), short_number(7)
    ('0.3', '152345.5', '7')
    """
    if isinstance(x, int) and not isinstance(x, bool):
        return str(x)
    x = float(x)
    if not math.isfinite(x):
        return repr(x)
    if x.is_integer() and abs(x) < 1e16:
        return str(int(x))
    for digits in range(1, 18):
        text = f"{x:.{digits}g}"
        if abs(float(text) - x) <= abs(x) * NUMBER_TOLERANCE:
            break
    if "e" in text:
        return text
    value = float(text)
    return str(int(value)) if value.is_integer() else text


__all__ = ["braces", "needs_quotes", "quote_name", "short_number"]
