"""Removal masks: points of the Boolean cube {-1, 1}^n.

A mask says, for each of the ``n`` players (features, or groups of features), whether it is
kept (``+1``) or removed (``-1``).  The all-ones mask is the explained instance itself; the
Hamming distance to it is the number of removed players, which is the paper's neighbourhood
*radius*.

Enumerations use one fixed order: row ``c`` of :func:`all_masks` keeps player ``i`` exactly when
bit ``i`` of ``c`` is set, so row ``0`` removes everything and row ``2**n - 1`` keeps everything.

Examples
--------
>>> all_masks(2).tolist()
[[-1, -1], [1, -1], [-1, 1], [1, 1]]
>>> ball_size(4, 1)
5
>>> import numpy as np
>>> m = ball_masks(6, 2, 5, np.random.default_rng(0))
>>> bool(((m == -1).sum(axis=1) <= 2).all())
True

References
----------
Zhang, Yuan et al. Trade-off Between Efficiency and Consistency for Removal-based Explanations,
section 3 (removal masks as Boolean inputs) and section 5.3 (neighbourhood radius).
"""

from __future__ import annotations

import itertools
from math import comb

import numpy as np

from xpg.errors import GameTooLargeError

#: Largest number of players for which the whole cube is enumerated (2**20 masks).
MAX_ENUMERATED_PLAYERS = 20


def check_enumerable(n_players: int, what: str, limit: int = MAX_ENUMERATED_PLAYERS) -> None:
    """Raise :class:`GameTooLargeError` when ``2**n_players`` masks are too many to enumerate."""
    if n_players > limit:
        raise GameTooLargeError(
            f"{what} enumerates all 2**n masks: expected at most {limit} players, "
            f"found {n_players}; use a sampled explainer (n_samples=...) instead"
        )


def all_masks(n_players: int) -> np.ndarray:
    """Every mask of {-1, 1}^n, row ``c`` keeping player ``i`` iff bit ``i`` of ``c`` is set.

    Returns an ``int8`` array of shape ``(2**n, n)``.
    """
    check_enumerable(n_players, "all_masks")
    codes = np.arange(2**n_players, dtype=np.int64)[:, None]
    bits = (codes >> np.arange(n_players, dtype=np.int64)) & 1
    return (2 * bits - 1).astype(np.int8)


def masks_to_codes(masks: np.ndarray) -> np.ndarray:
    """Inverse of :func:`all_masks`: the row index (coalition bit code) of each mask."""
    masks = np.asarray(masks)
    weights = np.int64(1) << np.arange(masks.shape[1], dtype=np.int64)
    return ((masks > 0).astype(np.int64) * weights).sum(axis=1)


def uniform_masks(n_players: int, n_samples: int, rng: np.random.Generator) -> np.ndarray:
    """``n_samples`` masks drawn uniformly (independently, with replacement) from the cube."""
    return (2 * rng.integers(0, 2, size=(n_samples, n_players)) - 1).astype(np.int8)


def ball_size(n_players: int, radius: int) -> int:
    """Number of masks with at most ``radius`` players removed."""
    return sum(comb(n_players, k) for k in range(min(radius, n_players) + 1))


def ball_masks(n_players: int, radius: int, n_samples: int, rng: np.random.Generator) -> np.ndarray:
    """``n_samples`` masks drawn uniformly from the Hamming ball of ``radius`` around all-ones.

    The number ``k`` of removed players is drawn with probability proportional to ``C(n, k)``
    (``0 <= k <= radius``), then ``k`` distinct players are removed at random, so every mask of
    the ball is equally likely.
    """
    radius = min(radius, n_players)
    sizes = np.array([comb(n_players, k) for k in range(radius + 1)], dtype=float)
    removed = rng.choice(radius + 1, size=n_samples, p=sizes / sizes.sum())
    masks = np.ones((n_samples, n_players), dtype=np.int8)
    # a random permutation per row; its first k entries are the removed players
    order = np.argsort(rng.random((n_samples, n_players)), axis=1)
    rows = np.arange(n_samples)[:, None]
    masks[rows, order] = np.where(np.arange(n_players) < removed[:, None], -1, 1)
    return masks


def enumerate_ball(n_players: int, radius: int) -> np.ndarray:
    """Every mask with at most ``radius`` players removed, by number removed, then lexically."""
    radius = min(radius, n_players)
    rows = []
    for k in range(radius + 1):
        for removed in itertools.combinations(range(n_players), k):
            row = np.ones(n_players, dtype=np.int8)
            row[list(removed)] = -1
            rows.append(row)
    return np.array(rows, dtype=np.int8).reshape(-1, n_players)


def neighbourhood_masks(
    n_players: int,
    radius: int | None,
    n_samples: int,
    rng: np.random.Generator,
) -> tuple[np.ndarray, bool]:
    """Masks on which to measure an interpretation: the ball of ``radius`` (``None``: the cube).

    When the neighbourhood has at most ``n_samples`` masks it is enumerated, and the second
    value returned is ``True`` (the measurement is then exact); otherwise ``n_samples``
    uniform draws are returned with ``False``.
    """
    full = radius is None or radius >= n_players
    size = 2**n_players if full else ball_size(n_players, int(radius))  # type: ignore[arg-type]
    if size <= n_samples:
        if full:
            return all_masks(n_players), True
        return enumerate_ball(n_players, int(radius)), True  # type: ignore[arg-type]
    if full:
        return uniform_masks(n_players, n_samples, rng), False
    return ball_masks(n_players, int(radius), n_samples, rng), False  # type: ignore[arg-type]
