"""Features named by the caller (a seed, a queried feature) as indices, checked in one place.

Examples
--------
>>> seed_indices(lambda f: feature_index(["a", "b", "c"], f), ["c", 0])
[0, 2]
>>> seed_indices(lambda f: feature_index(["a", "ab"], f), "ab")  # one name, not its letters
[1]
>>> feature_index(["a", "b"], "z")
Traceback (most recent call last):
...
xpg.errors.InvalidFeatureError: unknown feature 'z': expected one of the features (a, b)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from numbers import Integral
from typing import Any

from xpg.errors import InvalidFeatureError, InvalidSeedError

#: a seed: feature names or indices, one feature's name, or None (every feature)
Seed = str | Iterable[str] | Iterable[int] | None


def feature_index(names: Sequence[str], feature: Any) -> int:
    """The index of a feature given by name (or by index), checked.

    Raises
    ------
    InvalidFeatureError
        For an unknown name or an index out of range.
    """
    if isinstance(feature, Integral) and not isinstance(feature, bool):
        if 0 <= int(feature) < len(names):
            return int(feature)
        raise InvalidFeatureError(f"feature index: expected 0 to {len(names) - 1}, found {feature}")
    if isinstance(feature, str) and feature in names:
        return list(names).index(feature)
    shown = ", ".join(names[:10])
    more = f", ... ({len(names)} in all)" if len(names) > 10 else ""
    raise InvalidFeatureError(
        f"unknown feature {feature!r}: expected one of the features ({shown}{more})"
    )


def seed_indices(index: Callable[[Any], int], seed: Any) -> list[int]:
    """The sorted indices of a seed's features (``index``: a feature's index, checked).

    A string is one feature's name (``"age"`` is ``["age"]``), never read letter by letter.

    Raises
    ------
    InvalidSeedError
        When the seed is neither a name nor a collection of names or indices.
    InvalidFeatureError
        For an unknown feature.
    """
    if isinstance(seed, str):
        return [index(seed)]
    if isinstance(seed, bytes) or not isinstance(seed, Iterable):
        hint = f" (one feature: [{seed!r}])" if isinstance(seed, Integral) else ""
        raise InvalidSeedError(
            "seed: expected a feature name or a collection of feature names or indices, "
            f"found {seed!r}{hint}"
        )
    return sorted({index(f) for f in seed})


__all__ = ["Seed", "feature_index", "seed_indices"]
