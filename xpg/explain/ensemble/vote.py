"""The vote of a tree ensemble against one prediction, as sums over its leaves (:class:`Vote`).

For each class ``c`` the prediction ``p`` must lose to, a :class:`VotePair` states "``c``
beats ``p``": the difference of their scores, a sum over the trees of the leaf reached's
contribution plus a constant, is ``>= 0`` (``c`` before ``p``: argmax takes the first
largest) or ``> 0`` (``c`` after ``p``); for binary boosting, the score is ``>= 0``
(``p = 0``) or ``< 0`` (``p = 1``), and for a threshold decision (:class:`~xpg.models.gbdt.GBDT`)
the score minus the cut is ``> 0`` or ``>= 0`` as the model's ``strict`` says.  A forest's
(or an average's) division by the number of trees is left out (it keeps the order of the
scores; the cut is multiplied instead).

The model adds floats as its library does.  When every contribution is a dyadic rational of
small denominator and the sums stay far below the model's
:attr:`~xpg.models.ensemble.TreeEnsemble.exact_sum_limit`, the float sums are exact and, when
the model's decision adds no rounding of its own, the constraint is the model's function
(:attr:`Vote.exact`); otherwise it is relaxed by the model's bound ``eps`` on the rounding
(:meth:`~xpg.models.ensemble.TreeEnsemble.vote_rounding`), an over-approximation that the
model's own floats (:meth:`Vote.others`) then check, or decide at once for a whole set of
leaves (:meth:`Vote.floats_keep`: a float sum is monotone in its terms).

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
from xpg.explain.ensemble.space import CellLayout, CellSpace
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
        part = vote_part(space.layout, prediction)
        self.table = part.table
        self.exact_cut, self.cut = part.exact_cut, part.cut
        self.per_leaf, self.magnitude, self.exact_bits = (
            part.per_leaf,
            part.magnitude,
            part.exact_bits,
        )
        self.base, self.eps, self.pairs = part.base, part.eps, part.pairs
        self._others = np.delete(np.arange(len(self.model.classes)), prediction)

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

    def floats_keep(self, pair: VotePair, leaves: np.ndarray, starts: np.ndarray) -> bool:
        """Do the model's own floats keep the prediction against ``pair``'s class for every
        choice of one leaf per tree among ``leaves`` (leaf-table rows grouped by tree, tree
        ``t``'s from ``starts[t]``)?  False when unsure.

        A float addition, and a division by a positive count, are monotone: the model's
        score of the class is at most its sum of each tree's largest contribution to it, the
        prediction's at least its sum of each tree's smallest, both added as the model adds
        them.  If the model keeps the prediction on these two sums, it keeps it everywhere,
        ties included, where a bound on exact sums within ``2 eps`` of a tie decides
        nothing (Vote.may_beat).  Decisions through a softmax or a sigmoid are not
        monotone sums: False.
        """
        model = self.model
        if model.decision not in ("sign", "threshold", "argmax"):
            return False
        p = self.prediction
        if model.decision == "argmax":
            top = self._extreme(leaves, starts, pair.cls, True)
            bottom = self._extreme(leaves, starts, p, False)
            high = model.scores_of_leaves(top)
            low = high if np.array_equal(top, bottom) else model.scores_of_leaves(bottom)
            scores = np.full_like(high, -np.inf)
            scores[0, pair.cls], scores[0, p] = high[0, pair.cls], low[0, p]
        else:  # one score: class 1 above the cut
            scores = model.scores_of_leaves(self._extreme(leaves, starts, 0, p == 0))
        return bool(model.classes_of_scores(scores)[0] == p)

    def _extreme(self, leaves: np.ndarray, starts: np.ndarray, score: int, top: bool) -> np.ndarray:
        """The row of tree nodes (one per tree, as :meth:`TreeEnsemble.scores_of_leaves`
        takes them) of each tree's largest (``top``) or smallest contribution to ``score``
        among ``leaves``: often each tree's first (the branch and bound puts a tree's
        heaviest leaf first)."""
        values = self.per_leaf[leaves, score]
        if not top:
            values = -values
        best = np.maximum.reduceat(values, starts)
        if np.array_equal(values[starts], best):
            return self.table.node[leaves[starts]][None, :]
        counts = np.diff(starts, append=len(leaves))
        first = np.flatnonzero(values == np.repeat(best, counts))
        chosen = leaves[first[np.searchsorted(first, starts)]]
        return self.table.node[chosen][None, :]

    def margin(self, scores: np.ndarray) -> np.ndarray:
        """How far each row's best other class is from beating the prediction (larger:
        closer; the decision itself is the model's)."""
        p = self.prediction
        if self.model.decision in ("sign", "threshold"):
            return scores[:, 0] - self.cut if p == 0 else self.cut - scores[:, 0]
        return scores[:, self._others].max(axis=1) - scores[:, p]

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
        if self.model.decision in ("sign", "threshold"):
            base = np.round((self.base - self.cut) * scale).astype(np.int64)
            sign = 1 if p == 0 else -1
            weights, const = sign * leaf[:, 0], sign * int(base[0])
        else:
            weights, const = leaf[:, pair.cls] - leaf[:, p], int(base[pair.cls] - base[p])
        if exact:
            return weights, -const + (1 if pair.strict else 0)
        slack = self.eps * scale + len(self.model.trees) + 1
        return weights, -const - math.ceil(slack)


class VotePart:
    """What a :class:`Vote` holds that depends on the model and the prediction only (built
    once per layout and class by :func:`vote_part`), with the pairs stacked for bounds over
    every class at once.

    Attributes
    ----------
    u : ndarray, shape (n_pairs, n_leaves)
        Per pair, per leaf, its ``u``.
    const : ndarray, shape (n_pairs,)
        Per pair, its constant as a float.
    strict : ndarray of bool, shape (n_pairs,)
        Per pair, whether its sum must be ``> 0``.
    beat : ndarray, shape (n_pairs,)
        Per pair, the number a bound on its sum must exceed for its class to possibly beat
        the prediction.
    """

    def __init__(self, layout: CellLayout, prediction: int) -> None:
        self.table = table = leaf_table(layout)
        model = layout.model
        contrib, base = _contributions(model)
        cache = layout.cache
        sign_rule = model.decision in ("sign", "threshold")
        #: the cut the undivided score is compared with, and whether class 1 needs ``> cut``
        self.exact_cut, above = _cut(model)
        self.cut = float(self.exact_cut)
        if "weights" not in cache:  # once per model: every leaf's contribution, exactness
            cache["weights"] = _leaf_weights(
                table, contrib, np.asarray(base, dtype=float), self.cut, model
            )
        per_leaf, self.magnitude, self.exact_bits = cache["weights"]
        self.per_leaf, self.base = per_leaf, np.asarray(base, dtype=float)
        p = prediction
        if self.exact_bits is not None:
            self.eps = 0.0
        else:
            if "rounding" not in cache:
                cache["rounding"] = _rounding(table, per_leaf, self.base, model)
            self.eps = cache["rounding"]

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
        if sign_rule:
            # the other class wins: score > cut (>= unless above) for p = 0, else the opposite
            sign = 1 if p == 0 else -1
            strict = above if p == 0 else not above
            k = sign * (Fraction(float(base[0])) - self.exact_cut)
            self.pairs.append(VotePair(1 - p, strict, sign * per_leaf[:, 0], exact_of(1 - p), k))
        else:
            for c in range(model.n_scores):
                if c != p:
                    k = Fraction(float(base[c])) - Fraction(float(base[p]))
                    u = per_leaf[:, c] - per_leaf[:, p]
                    self.pairs.append(VotePair(c, c > p, u, exact_of(c), k))
        self.u = np.stack([pair.u for pair in self.pairs])
        self.const = np.asarray([float(pair.const) for pair in self.pairs])
        self.strict = np.asarray([pair.strict for pair in self.pairs], dtype=bool)
        #: per pair, a sum bounded by more than this may beat the prediction: ``> 0``
        #: (strict), ``>= 0`` or ``>= -2 eps`` as one comparison
        if self.eps == 0.0:
            self.beat = np.where(self.strict, 0.0, -5e-324)
        else:
            self.beat = np.full(len(self.const), np.nextafter(-2 * self.eps, -np.inf))


def vote_part(layout: CellLayout, prediction: int) -> VotePart:
    """The :class:`VotePart` of ``layout``'s model against class ``prediction``, built on
    first use and kept in the layout's cache."""
    key = f"vote-{prediction}"
    part = layout.cache.get(key)
    if part is None:
        part = layout.cache[key] = VotePart(layout, prediction)
    return part


def _contributions(model: TreeEnsemble) -> tuple[list[np.ndarray], np.ndarray]:
    """Per tree, the float each node adds to each score (as the model adds it), and the base
    scores; a forest's division by the number of trees is left out."""
    if model.json_type == "forest":
        return [t.value for t in model.trees], np.zeros(model.n_scores)
    return [model.scale * t.value for t in model.trees], np.asarray(model.base)


def _cut(model: TreeEnsemble) -> tuple[Fraction, bool]:
    """The number a one-score model compares its undivided score with, and whether class 1
    needs the score above it (``>``) rather than at least it: 0 and ``>=`` for the sign rule,
    the model's ``cut`` (times its trees per score when it averages) for a threshold."""
    if model.decision != "threshold":
        return Fraction(0), False
    count = getattr(model, "trees_per_score", 1) if getattr(model, "average", False) else 1
    return Fraction(getattr(model, "cut", 0.0)) * count, bool(getattr(model, "strict", True))


def _leaf_weights(
    table: LeafTable,
    contrib: list[np.ndarray],
    base: np.ndarray,
    cut: float,
    model: TreeEnsemble,
) -> tuple[np.ndarray, float, int | None]:
    """Every leaf's contributions (a row per leaf of the leaf table), the largest possible
    score and, when the model's float sums and decision are exact (every number a small
    dyadic rational, :func:`_dyadic_bits`), the bits that make every number an integer,
    else None."""
    per_leaf = np.stack([contrib[t][n] for t, n in table.leaves()])
    magnitude = float(np.abs(base).max(initial=0.0))
    for t in range(len(contrib)):
        lo, hi = table.start[t], table.start[t + 1]
        magnitude += float(np.abs(per_leaf[lo:hi]).max(initial=0.0))
    if not model.exact_decision:
        return per_leaf, magnitude, None
    numbers = np.concatenate([per_leaf.ravel(), base.ravel(), [cut]])
    return per_leaf, magnitude, _dyadic_bits(numbers, max(magnitude, abs(cut)), model)


def _rounding(
    table: LeafTable, per_leaf: np.ndarray, base: np.ndarray, model: TreeEnsemble
) -> float:
    """The model's bound on the rounding of its sums (:meth:`TreeEnsemble.vote_rounding`),
    score by score: a score adds only the trees that contribute to it (a multi-class
    booster's tree adds to one score, the others' zeros add no rounding), and its partial
    sums stay within its own magnitude."""
    top = np.maximum.reduceat(np.abs(per_leaf), table.starts, axis=0)  # per tree and score
    magnitude = np.abs(np.broadcast_to(base, top.shape[1:])) + top.sum(axis=0)
    terms = (top > 0).sum(axis=0)
    return max(
        model.vote_rounding(float(m), int(n)) for m, n in zip(magnitude.tolist(), terms.tolist())
    )


def _dyadic_bits(
    numbers: np.ndarray, magnitude: float, model: TreeEnsemble, max_bits: int = 30
) -> int | None:
    """The smallest ``k`` with every number a multiple of ``2**-k`` and every possible sum
    exact in the model's floats (``magnitude * 2**k`` below its ``exact_sum_limit``), or
    None."""
    for k in range(max_bits + 1):
        scaled = numbers * 2.0**k
        if np.all(scaled == np.round(scaled)):
            return k if magnitude * 2.0**k < model.exact_sum_limit else None
    return None


__all__ = ["Vote", "VotePair", "VotePart", "vote_part"]
