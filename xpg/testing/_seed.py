"""Seeds: an ``int``, a :class:`random.Random` or a :class:`numpy.random.Generator`.

Every generator of :mod:`xpg.testing` takes one of them; a ``Random`` or a ``Generator`` is
used as it is (its state advances), so that a test can draw several models from one stream.
"""

from __future__ import annotations

import random
from typing import TypeAlias

import numpy as np

from xpg.core.validation import random_generator

Seed: TypeAlias = "int | random.Random | np.random.Generator | None"


def as_random(seed: Seed) -> random.Random:
    """The :class:`random.Random` a seed stands for.

    Parameters
    ----------
    seed : int, random.Random, numpy.random.Generator or None
        An ``int`` (or ``None``) seeds a new stream; a ``Random`` is returned as it is; a numpy
        ``Generator`` seeds a new stream with one draw of its own.

    Returns
    -------
    random.Random

    Examples
    --------
    >>> rng = random.Random(3)
    >>> as_random(rng) is rng, as_random(3).random() == random.Random(3).random()
    (True, True)
    """
    if isinstance(seed, random.Random):
        return seed
    if isinstance(seed, np.random.Generator):
        return random.Random(int(seed.integers(2**63)))
    return random.Random(seed)


def as_generator(seed: Seed) -> np.random.Generator:
    """The :class:`numpy.random.Generator` a seed stands for.

    Parameters
    ----------
    seed : int, random.Random, numpy.random.Generator or None
        An ``int`` (or ``None``) seeds ``numpy.random.default_rng``; a ``Generator`` is returned
        as it is; a ``Random`` seeds a new generator with one draw of its own.

    Returns
    -------
    numpy.random.Generator

    Examples
    --------
    >>> g = np.random.default_rng(0)
    >>> as_generator(g) is g, int(as_generator(0).integers(100)) == int(g.integers(100))
    (True, True)
    """
    return random_generator(seed)  # type: ignore[no-any-return]
