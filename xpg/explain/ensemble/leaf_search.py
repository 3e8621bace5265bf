"""The ensemble oracle's decisions without a solver, over the leaf table (:class:`LeafSearch`).

With some features fixed to the instance's cells: an upper bound on each score difference
that lets every tree choose its best leaf independently among those the fixed features allow
(:meth:`LeafSearch.bounds`, and the fixed features its proof needs,
:meth:`LeafSearch.bound_core`); a greedy search from the instance, one free feature at a time
(:meth:`LeafSearch.greedy`); and a branch and bound over the trees' leaves with a budget
(:meth:`LeafSearch.pair_branch_and_bound`).  Every input returned is one the model's own
floats classify otherwise.

Examples
--------
>>> from xpg.core.features import Feature
>>> from xpg.explain.ensemble.space import CellSpace
>>> from xpg.models import EnsembleTree, Forest
>>> t = EnsembleTree(np.array([0, -1, -1]), np.array([0.5, 0, 0]), np.array([1, -1, -1]),
...                  np.array([2, -1, -1]), np.array([[0, 0], [1.0, 0], [0, 1.0]]))
>>> forest = Forest([Feature.boolean("a"), Feature.boolean("b")], ["no", "yes"],
...                 [t, t._replace(feature=np.array([1, -1, -1]))], [0.0, 0.0], 0.5)
>>> search = LeafSearch(Vote(CellSpace(forest, {"a": 1, "b": 0}), 0))
>>> search.bounds(np.array([True, False])), search.greedy(np.array([1])).tolist()
([2.0], [1, 1])
>>> search.branch_and_bound(np.array([True, True]), 100)
(True, None)

References
----------
Chen, Zhang, Si, Li, Boning, Hsieh. Robustness Verification of Tree-based Models. NeurIPS
2019; Devos, Meert, Davis. Versatile Verification of Tree Ensembles. ICML 2021 (searches over
the trees' leaves).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, cast

import numpy as np

from xpg.explain.ensemble.vote import Vote, VotePair


def _no_deadline() -> None:
    return None


class LeafSearch:
    """The bound, the greedy search and the branch and bound of one instance's oracle.

    Parameters
    ----------
    vote : Vote
        The model, the instance (its space) and the pairs to decide.
    """

    def __init__(self, vote: Vote) -> None:
        self.vote = vote
        self.space = vote.space
        self.table = table = vote.table
        dis: np.ndarray = table.lo < 0  # all False (cells are >= 0); filled per feature below
        for i, cell in enumerate(self.space.instance_cell):
            dis[:, i] = table.excludes(i, cell)
        #: per leaf and feature: does the leaf's box exclude the instance's cell?
        self.dis = dis

    # -- the independent-tree bound --------------------------------------------------------------
    def bound(self, pair: VotePair, reach: np.ndarray) -> float:
        """An upper bound on ``pair``'s score difference: every tree free to choose its best
        leaf among those ``reach`` marks."""
        best = np.maximum.reduceat(np.where(reach, pair.u, -np.inf), self.table.starts)
        return float(best.sum()) + float(pair.const)

    def bounds(self, fixed: np.ndarray) -> list[float]:
        """Per pair, :meth:`bound` over the leaves the ``fixed`` features (a mask) allow."""
        reach = cast(np.ndarray, ~self.dis[:, fixed].any(axis=1))
        return [self.bound(pair, reach) for pair in self.vote.pairs]

    def bound_core(self, fixed: np.ndarray, q: int) -> list[int]:
        """The fixed features the bound's proof that pair ``q``'s class cannot win uses: each
        in turn is freed unless the bound then allows the class."""
        pair = self.vote.pairs[q]
        count = self.dis[:, fixed].sum(axis=1)  # per leaf, the fixed features excluding it
        used = []
        for i in np.flatnonzero(fixed).tolist():
            trial = count - self.dis[:, i]
            if self.vote.may_beat(self.bound(pair, trial == 0), pair):
                used.append(i)
            else:
                count = trial
        return used

    def deletion_order(self, fixed: list[int]) -> list[int]:
        """``fixed`` in the order an AXp by deletion tries to free them: least effect on the
        independent-tree bound first."""
        mask = np.zeros(len(self.space.n_cells), dtype=bool)
        mask[fixed] = True
        count = self.dis[:, mask].sum(axis=1)  # per leaf, the fixed features excluding it
        rise = [
            max(self.bound(pair, (count - self.dis[:, i]) == 0) for pair in self.vote.pairs)
            for i in fixed
        ]
        return [fixed[j] for j in np.argsort(rise, kind="stable").tolist()]

    # -- the branch and bound --------------------------------------------------------------------
    def branch_and_bound(self, fixed: np.ndarray, budget: int) -> tuple[bool, np.ndarray | None]:
        """:meth:`pair_branch_and_bound` over every pair in turn: (decided, witness)."""
        for q in range(len(self.vote.pairs)):
            decided, found = self.pair_branch_and_bound(fixed, q, budget)
            if not decided or found is not None:
                return decided, found
        return True, None

    def pair_branch_and_bound(
        self,
        fixed: np.ndarray,
        q: int,
        budget: int,
        check_deadline: Callable[[], Any] = _no_deadline,
    ) -> tuple[bool, np.ndarray | None]:
        """Depth-first branch and bound over the trees' leaves: can pair ``q``'s class beat
        the prediction?  (decided, witness).

        A node is a box of cells and the leaves that meet it; its bound lets each tree take
        its best such leaf.  A node whose bound cannot beat the prediction is dropped; one
        where every tree's leaves meeting the box weigh alike has the bound as its exact
        value, and a point of the box is evaluated with the model; otherwise the node
        branches on the tree whose leaves differ most per leaf (their spread over their
        number: a large gain in the bound for few children), one child per leaf, heaviest
        first, the box cut down to that leaf's; a child whose leaf, with the other trees'
        bounds, cannot beat the prediction is not made (nor are its lighter siblings).
        Fixing whole leaves, not halves of one feature's range, keeps the features
        consistent across trees, as in the searches of Chen et al. and Devos et al.
        ``decided`` is False when more than ``budget`` nodes were needed (the solver then
        decides).  ``check_deadline`` is called every 64 nodes (it raises to stop).
        """
        vote, table = self.vote, self.table
        pair = vote.pairs[q]
        may_beat = vote.may_beat
        inst = np.asarray(self.space.instance_cell, dtype=np.int64)
        k = np.asarray(self.space.n_cells, dtype=np.int64)
        box_lo, box_hi, box_sets = table.lo, table.hi, table.sets
        root = (
            np.flatnonzero(~self.dis[:, fixed].any(axis=1)),
            np.where(fixed, inst, 0),
            np.where(fixed, inst + 1, k),
            {i: np.arange(k[i]) == inst[i] if fixed[i] else np.ones(k[i], bool) for i in box_sets},
        )

        def children(
            node: tuple[Any, ...], seg: np.ndarray, rest: float
        ) -> Iterator[tuple[Any, ...]]:
            idx, lo, hi, sets = node
            for leaf in seg[np.argsort(-pair.u[seg], kind="stable")].tolist():
                # the other trees' bound, with this leaf: an upper bound on the child's
                # (lighter leaves follow, so none of them can do better)
                if not may_beat(rest + float(pair.u[leaf]), pair):
                    return
                nlo, nhi = np.maximum(lo, box_lo[leaf]), np.minimum(hi, box_hi[leaf])
                # a leaf meets the smaller box when it meets the old one and, on each
                # ordered feature, the branching leaf's box: three intervals that meet
                # pairwise share a point (cell sets need the new set itself)
                sub = idx[table.meets(leaf)[idx]]
                nsets = {}
                for i, cur in sets.items():
                    nsets[i] = cur & box_sets[i][leaf]
                    if not np.array_equal(nsets[i], cur):
                        sub = sub[(box_sets[i][sub] & nsets[i]).any(axis=1)]
                yield sub, nlo, nhi, nsets

        first_leaf, const = table.starts, float(pair.const)
        nodes = 0
        stack: list[Iterator[tuple[Any, ...]]] = [iter([root])]
        while stack:
            node = next(stack[-1], None)
            if node is None:
                stack.pop()
                continue
            nodes += 1
            if nodes > budget:
                return False, None
            if nodes % 64 == 0:
                check_deadline()
            idx, lo, hi, sets = node
            u = pair.u[idx]
            # every tree keeps a leaf meeting the box: its first one in idx starts its segment
            starts = np.searchsorted(idx, first_leaf)
            top = np.maximum.reduceat(u, starts)
            bound = float(top.sum()) + const
            if not may_beat(bound, pair):
                continue
            ends = np.empty_like(starts)
            ends[:-1], ends[-1] = starts[1:], len(idx)
            spread = top - np.minimum.reduceat(u, starts)
            j = int(np.argmax(np.where(spread > 0, spread / (ends - starts), -1.0)))
            if spread[j] <= 0:  # every point of the box scores the bound
                cells = lo.copy()
                for i, cur in sets.items():
                    cells[i] = int(np.argmax(cur))
                if vote.others(cells[None, :])[0]:
                    return True, cells
                j = int(np.argmax(ends - starts))
                if ends[j] - starts[j] == 1:
                    continue  # one leaf per tree: the model's floats decided the whole box
            stack.append(children(node, idx[starts[j] : ends[j]], bound - float(top[j])))
        return True, None

    # -- the greedy search -----------------------------------------------------------------------
    def greedy(self, free: np.ndarray, passes: int = 2) -> np.ndarray | None:
        """Coordinate ascent from the instance on the margin of the best other class, one
        free feature at a time over all its cells; an input of another class, or None.

        The scores of every cell of feature ``i`` come from the leaf table: the leaves
        whose box holds the current input on every other feature are, per tree, the leaves
        reached as ``i`` varies, and each adds its contribution to the cells of its range
        (the model's own floats decide the input returned)."""
        vote, table = self.vote, self.table
        current = np.asarray(self.space.instance_cell, dtype=np.int64).copy()
        missed = self.dis.copy()  # per leaf and feature: the box excludes the current cell
        count = missed.sum(axis=1)
        tolerance = 2 * vote.eps
        best = -np.inf
        for _ in range(passes):
            improved = False
            for i in free.tolist():
                near = np.flatnonzero(count == missed[:, i])
                margin = vote.margin(self.scores_along(i, near))
                j = int(np.argmax(margin))
                if margin[j] > best:
                    best, improved = float(margin[j]), True
                    current[i] = j
                    count -= missed[:, i]
                    missed[:, i] = table.excludes(i, j)
                    count += missed[:, i]
                if margin[j] >= -tolerance and vote.others(current[None, :])[0]:
                    return current
            if not improved:
                break
        return None

    def scores_along(self, i: int, leaves: np.ndarray) -> np.ndarray:
        """Per cell of feature ``i``, the sum of the contributions of ``leaves`` (one per
        tree at each cell) whose box holds it, plus the base scores."""
        table = self.table
        values = self.vote.per_leaf[leaves]
        k = self.space.n_cells[i]
        if i in table.sets:
            return table.sets[i][leaves].T.astype(float) @ values + self.vote.base
        steps = np.zeros((k + 1, values.shape[1]))
        np.add.at(steps, table.lo[leaves, i], values)
        np.add.at(steps, table.hi[leaves, i], -values)
        return np.cumsum(steps[:k], axis=0) + self.vote.base


__all__ = ["LeafSearch"]
