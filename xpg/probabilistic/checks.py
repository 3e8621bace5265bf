"""Checks of the explainers' numeric parameters, refused before any model query.

Every explainer of this package takes counts (sample sizes, depths, beam widths) and rates
(probabilities, confidences).  A count must be a true integer (not a float, a string or a
bool) at least a minimum; a rate must be a real number in an interval (NaN is refused).  The
message names the parameter, what was expected and what was found.

Examples
--------
>>> check_count("n_samples", 10)
10
>>> check_count("beam_size", 1.5)
Traceback (most recent call last):
...
xpg.errors.InvalidParameterError: beam_size: expected an integer >= 1, found 1.5
>>> check_rate("error", 0.05)
0.05
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from xpg.errors import InvalidParameterError


def check_count(name: str, value: Any, minimum: int = 1) -> int:
    """``value`` as an int when it is an integer at least ``minimum``, else
    :class:`~xpg.errors.InvalidParameterError`."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise InvalidParameterError(f"{name}: expected an integer >= {minimum}, found {value!r}")
    if value < minimum:
        raise InvalidParameterError(f"{name}: expected an integer >= {minimum}, found {value!r}")
    return int(value)


def check_optional_count(name: str, value: Any, minimum: int = 1) -> int | None:
    """:func:`check_count`, with None let through (meaning "no limit" or "the default")."""
    return None if value is None else check_count(name, value, minimum)


def check_rate(name: str, value: Any, *, low_open: bool = True, high_open: bool = True) -> float:
    """``value`` as a float when it lies in (0, 1) (bounds closed on request), else
    :class:`~xpg.errors.InvalidParameterError`."""
    interval = f"{'(' if low_open else '['}0, 1{')' if high_open else ']'}"
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number)):
        raise InvalidParameterError(f"{name}: expected a value in {interval}, found {value!r}")
    x = float(value)
    above = x > 0.0 if low_open else x >= 0.0
    below = x < 1.0 if high_open else x <= 1.0
    if math.isnan(x) or not (above and below):
        raise InvalidParameterError(f"{name}: expected a value in {interval}, found {value!r}")
    return x
