"""Random Fourier polynomials and removal games from truth tables (the Fourier explainers).

Examples
--------
>>> p = random_fourier_polynomial(0, order=2, n=5)
>>> p.degree, table_game(np.arange(8.0)).n_players
(2, 3)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from xpg.testing._seed import Seed, as_generator

if TYPE_CHECKING:  # xpg.fourier imports scikit-learn: only when these functions run
    from xpg.fourier.basis import FourierPolynomial
    from xpg.fourier.game import RemovalGame


def random_fourier_polynomial(
    seed: Seed, order: int, n: int, counts: Sequence[tuple[int, int]] = ((2, 6), (3, 4))
) -> FourierPolynomial:
    """A polynomial of degree ``min(order, 3)`` in the kept-indicators z (Appendix F setting).

    A normal constant and ``n`` normal linear coefficients; for each ``(k, count)`` of
    ``counts`` with ``k <= order``, ``count`` random subsets of size ``k`` with coefficients
    of random sign and magnitude uniform in [0.5, 1.5].

    Examples
    --------
    >>> random_fourier_polynomial(1, order=3, n=6, counts=((2, 5), (3, 3))).degree
    3
    """
    from xpg.fourier.basis import FourierPolynomial

    rng = as_generator(seed)
    terms: dict[tuple[int, ...], float] = {(): float(rng.normal())}
    terms.update({(i,): float(rng.normal()) for i in range(n)})
    for k, count in counts:
        if k > order:
            break
        for _ in range(count):
            subset = tuple(sorted(rng.choice(n, size=k, replace=False).tolist()))
            terms[subset] = float(rng.choice([-1, 1]) * rng.uniform(0.5, 1.5))
    return FourierPolynomial.from_subset_values(n, terms)


def table_game(table: np.ndarray) -> RemovalGame:
    """The removal game whose value on a mask is ``table[code]``, ``code`` the bits of the
    kept players (``table`` has ``2**n`` entries).

    Examples
    --------
    >>> table_game(np.array([0.0, 1.0, 2.0, 3.0]))(np.array([[1, -1], [1, 1]])).tolist()
    [1.0, 3.0]
    """
    from xpg.fourier.game import RemovalGame

    n = int(table.size).bit_length() - 1
    return RemovalGame(lambda x: table[((x > 0) * (1 << np.arange(n))).sum(axis=1)], n)
