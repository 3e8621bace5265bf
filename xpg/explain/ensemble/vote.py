"""The vote of a tree ensemble against one prediction, as sums over its leaves (:class:`Vote`).

For each class ``c`` the prediction ``p`` must lose to, a :class:`VotePair` states "``c``
beats ``p``": the difference of their scores, a sum over the trees of the leaf reached's
contribution plus a constant, is ``>= 0`` (``c`` before ``p``: argmax takes the first
largest) or ``> 0`` (``c`` after ``p``); for binary boosting, the score is ``>= 0``
(``p = 0``) or ``< 0`` (``p = 1``).  A forest's division by the number of trees is left out
(it keeps the order of the scores).

The model adds floats as scikit-learn does.  When every contribution is a dyadic rational of
small denominator and the sums stay far below 2**52, the float sums are exact and the
constraint is the model's function (:attr:`Vote.exact`); otherwise it is relaxed by a bound
``eps`` on the rounding, an over-approximation that the model's own floats
(:meth:`Vote.others`) then check.

Examples
--------
>>> from xpg.explain.ensemble.space import CellSpace
>>> from xpg.models import BoostedTrees, EnsembleTree
>>> from xpg.core.features import Feature
>>> t = EnsembleTree(np.array([0, -1, -1]), np.array([0.5, 0, 0]), np.array([1, -1, -1]),
...                  np.array([2, -1, -1]), np.array([[0.0], [-1.0], [1.0]]))
>>> model = BoostedTrees([Feature.boolean("a")], ["no", "yes"], [t], [0.25], 0.5)
>>> vote = Vote(CellSpace(model, {"a": 0}), 0)
>>> vote.exact, [(pair.cls, pair.strict, pair.u.tolist()) for pair in vote.pairs]
(True, [(1, False, [-0.5, 0.5])])
>>> vote.others(np.array([[0], [1]])).tolist()
[False, True]
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

import numpy as np

from xpg.explain.ensemble.leaf_table import LeafTable, leaf_table
from xpg.explain.ensemble.space import CellSpace
from xpg.models.ensemble import TreeEnsemble

#: the largest integer weight of the ``"pb"`` backend's rounded mode, about
_PB_SCALE_BITS = 24


class VotePair:
    """One "class ``c`` beats the prediction" constraint: ``sum(u[leaf]) + const >= 0`` (or
    ``> 0`` when ``strict``), ``u`` per leaf of the leaf table; ``u_exact``, the same numbers
    as exact rationals, is made on first use (only a solver needs it, and thousands of
    ``Fraction`` cost more than the cheap decisions that usually answer first)."""

    __slots__ = ("cls", "strict", "u", "const", "_exact", "_exact_of")

    def __init__(
        self,
        cls: int,
        strict: bool,
        u: np.ndarray,
        exact_of: Callable[[], list[Fraction]],
        const: Fraction,
    ) -> None:
        self.cls, self.strict, self.u, self.const = cls, strict, u, const
        self._exact: list[Fraction] | None = None
        self._exact_of = exact_of

    @property
    def u_exact(self) -> list[Fraction]:
        if self._exact is None:
            self._exact = self._exact_of()
        return self._exact


class Vote:
    """The classes that could beat ``prediction`` on ``space``'s model, one
    :class:`VotePair` each, over the leaves of its :class:`~.leaf_table.LeafTable`.

    Attributes
    ----------
    pairs : list of VotePair
        In class order.
    per_leaf : ndarray, shape (n_leaves, n_scores)
        Every leaf's contributions to the scores (as the model adds them).
    base : ndarray
        The base scores (zero for a forest).
    eps : float
        The bound on the float rounding the constraints are relaxed by (0 when exact).
    """

    def __init__(self, space: CellSpace, prediction: int) -> None:
        self.space, self.model, self.prediction = space, space.model, prediction
        self.table = table = leaf_table(space.layout)
        model = self.model
        contrib, base = _contributions(model)
        cache = space.layout.cache
        if "weights" not in cache:  # once per model: every leaf's contribution, exactness
            cache["weights"] = _leaf_weights(table, contrib, np.asarray(base, dtype=float))
        per_leaf, self.magnitude, self.exact_bits = cache["weights"]
        self.per_leaf, self.base = per_leaf, np.asarray(base, dtype=float)
        p = prediction
        sign_rule = model.decision == "sign"
        specs: list[tuple[int, bool, np.ndarray, np.ndarray]] = []  # (class, strict, +col, -col)
        if sign_rule:
            sign = 1 if p == 0 else -1  # p = 0 needs score >= 0, p = 1 needs score < 0
            specs.append((1 - p, p == 1, sign * per_leaf[:, 0], np.asarray([sign * base[0]])))
        else:
            for c in range(model.n_scores):
                if c != p:
                    diff = per_leaf[:, c] - per_leaf[:, p]
                    specs.append((c, c > p, diff, np.asarray([base[c] - base[p]])))
        n = len(model.trees)
        self.eps = 0.0 if self.exact_bits is not None else (n + 2) ** 2 * 2.0**-50 * self.magnitude

        def exact_of(c: int) -> Callable[[], list[Fraction]]:
            if sign_rule:
                sign = 1 if p == 0 else -1
                return lambda: [
                    sign * Fraction(float(contrib[t][nd][0])) for t, nd in table.leaves()
                ]
            return lambda: [
                Fraction(float(contrib[t][nd][c])) - Fraction(float(contrib[t][nd][p]))
                for t, nd in table.leaves()
            ]

        self.pairs: list[VotePair] = []
        for c, strict, u, const in specs:
            if sign_rule:
                k = Fraction(float(const[0]))
            else:
                k = Fraction(float(base[c])) - Fraction(float(base[p]))
            self.pairs.append(VotePair(c, strict, u, exact_of(c), k))

    @property
    def exact(self) -> bool:
        """True when the model's float sums are exact: the pairs state its function."""
        return self.eps == 0.0

    def may_beat(self, bound: float, pair: VotePair) -> bool:
        """Can a sum whose upper bound is ``bound`` make ``pair``'s class beat the prediction?"""
        if self.eps == 0.0:
            return bound > 0 or (bound == 0 and not pair.strict)
        return bound >= -2 * self.eps

    # -- the model's own floats ------------------------------------------------------------------
    def scores(self, cells: np.ndarray) -> np.ndarray:
        """Per row of cell choices, the model's score vector (its own floats, in its order)."""
        return self.model.scores_of_leaves(self.space.layout.leaf_indices(cells))

    def others(self, cells: np.ndarray) -> np.ndarray:
        """Per row of cell choices: does the model predict another class?"""
        return self.model.classes_of_scores(self.scores(cells)) != self.prediction

    def margin(self, scores: np.ndarray) -> np.ndarray:
        """How far each row's best other class is from beating the prediction (larger:
        closer; the decision itself is the model's)."""
        p = self.prediction
        if self.model.decision == "sign":
            return scores[:, 0] if p == 0 else -scores[:, 0]
        others = np.delete(scores, p, axis=1)
        return others.max(axis=1) - scores[:, p]

    # -- integers for a pseudo-Boolean constraint ------------------------------------------------
    def integer_weights(self, pair: VotePair) -> tuple[np.ndarray, int]:
        """Integer weights per leaf and a bound: ``sum(weights of the leaves reached) >=
        bound`` holds whenever ``pair``'s class beats the prediction (exactly when the sums
        are exact).

        Every score is scaled by a power of two (exact in floats) and rounded: when the sums
        are exact the scaled numbers are already integers; otherwise the scale puts the
        largest possible score near ``2**_PB_SCALE_BITS``, and the rounding (at most 1 per
        tree, two roundings of a half, and 1 for the constant) is folded into the bound with
        the float rounding ``eps``.
        """
        exact = self.exact_bits is not None
        bits = (
            self.exact_bits
            if self.exact_bits is not None
            else _PB_SCALE_BITS - max(0, math.frexp(self.magnitude)[1])
        )
        scale = 2.0**bits
        leaf = np.round(self.per_leaf * scale).astype(np.int64)
        base = np.round(self.base * scale).astype(np.int64)
        p = self.prediction
        if self.model.decision == "sign":
            sign = 1 if p == 0 else -1
            weights, const = sign * leaf[:, 0], sign * int(base[0])
        else:
            weights, const = leaf[:, pair.cls] - leaf[:, p], int(base[pair.cls] - base[p])
        if exact:
            return weights, -const + (1 if pair.strict else 0)
        slack = self.eps * scale + len(self.model.trees) + 1
        return weights, -const - math.ceil(slack)


def _contributions(model: TreeEnsemble) -> tuple[list[np.ndarray], np.ndarray]:
    """Per tree, the float each node adds to each score (as the model adds it), and the base
    scores; a forest's division by the number of trees is left out."""
    if model.json_type == "forest":
        return [t.value for t in model.trees], np.zeros(model.n_scores)
    return [model.scale * t.value for t in model.trees], np.asarray(model.base)


def _leaf_weights(
    table: LeafTable, contrib: list[np.ndarray], base: np.ndarray
) -> tuple[np.ndarray, float, int | None]:
    """Every leaf's contributions (a row per leaf of the leaf table), the largest possible
    score and, when the float sums are exact (every number a small dyadic rational), the
    bits that make every number an integer (:func:`_dyadic_bits`), else None."""
    per_leaf = np.stack([contrib[t][n] for t, n in table.leaves()])
    magnitude = float(np.abs(base).max(initial=0.0))
    for t in range(len(contrib)):
        lo, hi = table.start[t], table.start[t + 1]
        magnitude += float(np.abs(per_leaf[lo:hi]).max(initial=0.0))
    numbers = np.concatenate([per_leaf.ravel(), base.ravel()])
    return per_leaf, magnitude, _dyadic_bits(numbers, magnitude)


def _dyadic_bits(numbers: np.ndarray, magnitude: float, max_bits: int = 30) -> int | None:
    """The smallest ``k`` with every number a multiple of ``2**-k`` and every possible sum
    exact in float64 (``magnitude * 2**k < 2**40``), or None."""
    for k in range(max_bits + 1):
        scaled = numbers * 2.0**k
        if np.all(scaled == np.round(scaled)):
            return k if magnitude * 2.0**k < 2.0**40 else None
    return None


__all__ = ["Vote", "VotePair"]
