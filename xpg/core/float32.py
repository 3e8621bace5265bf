"""scikit-learn's float32 comparison ``float32(x) <= t`` as an exact bound on ``x``.

A scikit-learn tree rounds an input to float32 (to nearest, ties to even) and compares it
with a float64 threshold ``t``.  Rounding is monotone, so the inputs that pass are a
half-line: ``x < b``, or ``x <= b`` when ties at ``b`` round down.  :func:`float32_bound`
gives ``b`` exactly (it is always a float64: the midpoint of two adjacent float32, or the
overflow point); :func:`float32_cut` gives the float64 cut ``x <= c`` with the same effect on
float64 inputs.  The compiled graph and the tree ensembles take their cuts, the SMT encoding
its bounds, from :func:`float32_bound`, so they agree on every input.

At overflow: a number of magnitude :data:`FLOAT32_OVERFLOW` (halfway between the largest
float32 and ``2**128``) or more rounds to an infinity.  So a threshold from the largest
float32 up (+inf excluded) admits the inputs below :data:`FLOAT32_OVERFLOW`, +inf admits
every input, and a threshold below the least float32 (-inf included) admits the inputs at or
below ``-FLOAT32_OVERFLOW`` (those that round to -inf).  A NaN threshold admits nothing and
is refused.

Examples
--------
>>> float32_bound(0.5)                       # ties at the midpoint round down to 0.5
(0.5000000298023224, True)
>>> float32_bound(3.5e38) == (FLOAT32_OVERFLOW, False), float32_bound(float("inf"))
(True, (inf, True))

References
----------
IEEE 754-2008, Sec. 4.3.1 (round to nearest, ties to even) and 7.4 (overflow).
"""

from __future__ import annotations

import math

import numpy as np

from xpg.errors import InvalidModelError

#: the largest finite float32
FLOAT32_MAX = float(np.finfo(np.float32).max)
#: the least positive number float32 rounds to +inf: halfway between :data:`FLOAT32_MAX` and
#: ``2**128`` (a tie rounds to the infinity, whose significand counts as even)
FLOAT32_OVERFLOW = 2.0**128 - 2.0**103


def float32_bound(threshold: float) -> tuple[float, bool]:
    """``(b, inclusive)`` with ``float32(x) <= threshold`` exactly when ``x < b``, or
    ``x == b`` when ``inclusive``, for every real ``x``; ``b`` is a float64 (``inf`` for a
    threshold of +inf, which every input passes).

    Raises
    ------
    InvalidModelError
        For a NaN threshold.

    Examples
    --------
    >>> float32_bound(1.0)                   # ties round to 1.0, whose significand is even
    (1.0000000596046448, True)
    >>> float32_bound(-float("inf")) == (-FLOAT32_OVERFLOW, True)
    True
    """
    t = float(threshold)
    if math.isnan(t):
        raise InvalidModelError(f"threshold {threshold!r}: expected a number, found NaN")
    if t == math.inf:
        return math.inf, True
    if t >= FLOAT32_MAX:
        return FLOAT32_OVERFLOW, False
    if t < -FLOAT32_MAX:
        return -FLOAT32_OVERFLOW, True
    # -FLOAT32_MAX <= t < FLOAT32_MAX: both float32 neighbours of t are finite
    below = np.float32(t)
    if float(below) > t:
        below = np.nextafter(below, np.float32(-np.inf))
    above = np.nextafter(below, np.float32(np.inf))
    middle = (float(below) + float(above)) / 2.0  # exact in float64
    below_is_even = int(np.asarray(below, dtype=np.float32).view(np.uint32)) % 2 == 0
    return middle, below_is_even


def float32_cut(threshold: float) -> float:
    """The largest float64 ``c`` with ``float32(x) <= threshold`` exactly when ``x <= c``,
    for every float64 ``x`` (see :func:`float32_bound`; ``inf`` for a threshold of +inf).

    Examples
    --------
    >>> c = float32_cut(0.5)
    >>> bool(np.float32(c) <= 0.5), bool(np.float32(np.nextafter(c, 1.0)) <= 0.5)
    (True, False)
    >>> float32_cut(3.5e38) < FLOAT32_OVERFLOW == float(np.nextafter(float32_cut(3.5e38), 4e38))
    True
    """
    bound, inclusive = float32_bound(threshold)
    return bound if inclusive else float(np.nextafter(bound, -np.inf))


__all__ = ["FLOAT32_MAX", "FLOAT32_OVERFLOW", "float32_bound", "float32_cut"]
