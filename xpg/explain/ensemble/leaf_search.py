"""The ensemble oracle's decisions without a solver, over the leaf table (:class:`LeafSearch`).

With some features fixed to the instance's cells: an upper bound on each score difference
that lets every tree choose its best leaf independently among those the fixed features allow
(:meth:`LeafSearch.bounds`, and the fixed features its proof needs,
:meth:`LeafSearch.bound_core`); a greedy search from the instance, one free feature at a time
(:meth:`LeafSearch.greedy`); and a branch and bound with a budget
(:meth:`LeafSearch.pair_branch_and_bound`) that cuts the box of cells in two where the trees'
best leaves disagree, drops a near-tie box whose best leaves the model's own floats decide
(:meth:`Vote.floats_keep`), branches on one tree's leaves only on the other near-ties, and,
asked the same question again, goes on where it stopped.  A question still open after
:data:`~xpg.core.costs.LP_AFTER_NODES` nodes (at once, for a class whose last such question
the root's relaxation decided) gets the linear relaxation
(:mod:`~xpg.explain.ensemble.linear_bound`): its sound bound at the root, then at each node
while it prunes (the root's program with the node's box as bounds, re-solved from the last
basis, and stopped as soon as its dual solution prunes), the bound of the nearest dual
solution above every node, and its rounded best points.  Every input returned is one the
model's own floats classify otherwise.

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
the trees' leaves); Kantchelian, Tygar, Joseph. Evasion and Hardening of Tree Ensemble
Classifiers. ICML 2016 (the relaxation).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Generator, Iterator
from typing import Any, cast

import numpy as np

import xpg.core.costs as costs
from xpg.explain.ensemble.linear_bound import DualBound, Relaxation
from xpg.explain.ensemble.vote import Vote, VotePair

#: the linear bound goes on while it prunes at least one node in LP_RATE, after LP_TRIAL
#: nodes (a node's program, re-solved from the last basis, costs a few nodes of the search's)
LP_RATE, LP_TRIAL = 4, 16
#: undecided searches kept to go on with (:meth:`LeafSearch.pair_branch_and_bound`)
PAUSED = 8


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
        #: per feature and leaf: does the leaf's box exclude the instance's cell?
        self.dis_t = np.array(
            [table.excludes(i, cell) for i, cell in enumerate(self.space.instance_cell)],
            dtype=bool,
        ).reshape(len(self.space.n_cells), len(table.tree))
        self._ranks: dict[int, dict[str, Any]] = {}
        self._paused: dict[tuple[bytes, int], Generator[Any, Any, None]] = {}
        # per pair: did the root's relaxation decide its last question that asked it?
        self._root_decided: dict[int, bool] = {}

    # -- the independent-tree bound --------------------------------------------------------------
    def bound(self, pair: VotePair, reach: np.ndarray) -> float:
        """An upper bound on ``pair``'s score difference: every tree free to choose its best
        leaf among those ``reach`` marks."""
        best = np.maximum.reduceat(np.where(reach, pair.u, -np.inf), self.table.starts)
        return float(best.sum()) + float(pair.const)

    def bounds(self, fixed: np.ndarray) -> list[float]:
        """Per pair, :meth:`bound` over the leaves the ``fixed`` features (a mask) allow."""
        reach = cast(np.ndarray, ~self.dis_t[fixed].any(axis=0))
        return [self.bound(pair, reach) for pair in self.vote.pairs]

    def bound_core(self, fixed: np.ndarray, q: int) -> list[int]:
        """The fixed features the bound's proof that pair ``q``'s class cannot win uses: each
        in turn is freed unless the bound then allows the class."""
        pair = self.vote.pairs[q]
        # per leaf, the fixed features excluding it
        count = self.dis_t[fixed].sum(axis=0, dtype=np.int16)
        used = []
        for i in np.flatnonzero(fixed).tolist():
            trial = count - self.dis_t[i]
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
        # per leaf, the fixed features excluding it
        count = self.dis_t[mask].sum(axis=0, dtype=np.int16)
        rise = [
            max(self.bound(pair, count == self.dis_t[i]) for pair in self.vote.pairs) for i in fixed
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

    def _ranked(self, q: int) -> dict[str, Any]:
        """Pair ``q``'s leaves re-ordered, each tree's heaviest first (built once per pair):
        a node's leaves then keep that order, so each tree's first one is its best."""
        ranked = self._ranks.get(q)
        if ranked is None:
            table = self.table
            u = self.vote.pairs[q].u
            perm = np.lexsort((-u, table.tree))  # stable: ties keep the table's order
            ranked = self._ranks[q] = {
                "perm": perm,
                "u": u[perm],
                "lo": table.compact[0][perm],
                "hi": table.compact[1][perm],
                "lo_t": table.lo_t[:, perm],
                "hi_t": table.hi_t[:, perm],
                "sets": {i: m[perm] for i, m in table.sets.items()},
                "dis_t": self.dis_t[:, perm],
            }
        return ranked

    def pair_branch_and_bound(
        self,
        fixed: np.ndarray,
        q: int,
        budget: int,
        check_deadline: Callable[[], Any] = _no_deadline,
    ) -> tuple[bool, np.ndarray | None]:
        """Depth-first branch and bound over boxes of cells: can pair ``q``'s class beat the
        prediction?  (decided, witness).

        A node is a box of cells and the leaves that meet it; its bound lets each tree take
        its best such leaf.  A node whose bound cannot beat the prediction is dropped, and so
        is one that the dual solution of the linear relaxation at the nearest node above
        bounds so (once the relaxation is in use), or a near-tie whose best leaves the
        model's own float sums decide for the whole box (:meth:`Vote.floats_keep`).
        Otherwise, when the trees' best leaves disagree on a feature (no cell of it in all
        their boxes), the box is cut in two at a cell between them, on the feature whose cut
        leaves out most of them, the child of larger bound searched first: one cut narrows
        every tree at once.  When they agree, their boxes share a point (on ordered cells,
        intervals that meet pairwise share one), which scores the bound and is evaluated
        with the model; if the model's floats keep the prediction there (a near-tie), the
        node branches on one tree's leaves instead (:meth:`_leaf_children`), which ends in
        boxes of one leaf per tree.  ``decided`` is False when more than ``budget`` nodes
        were needed (the solver then decides): the search is then kept (the latest
        :data:`PAUSED` ones), and asked again about the same ``fixed`` features and pair, it
        goes on where it stopped with ``budget`` more nodes.  ``check_deadline`` is called
        every 64 nodes (it raises to stop).
        """
        mask = np.asarray(fixed, dtype=bool)
        key = (mask.tobytes(), q)
        run = self._paused.pop(key, None)
        if run is None:
            run = self._box_search(mask, q)
            next(run)
        decided, found = run.send((budget, check_deadline))
        if not decided:
            self._paused[key] = run
            while len(self._paused) > PAUSED:
                self._paused.pop(next(iter(self._paused))).close()
        return decided, found

    def _box_search(
        self, fixed: np.ndarray, q: int
    ) -> Generator[tuple[bool, np.ndarray | None], tuple[int, Callable[[], Any]], None]:
        """:meth:`pair_branch_and_bound` as a generator: sent (more nodes, deadline check),
        it yields (decided, witness), and after (False, None) may be sent more."""
        vote = self.vote
        pair = vote.pairs[q]
        may_beat = vote.may_beat
        rank = self._ranked(q)
        u, box_lo, box_hi, lo_t, hi_t = (rank[k] for k in ("u", "lo", "hi", "lo_t", "hi_t"))
        box_sets: dict[int, np.ndarray] = rank["sets"]
        inst = np.asarray(self.space.instance_cell, dtype=np.int64)
        k = np.asarray(self.space.n_cells, dtype=np.int64)
        first_leaf, const = self.table.starts, float(pair.const)
        ordered = np.asarray(self.space.ordered, dtype=bool)
        perm = rank["perm"]
        # bounds this close to a tie leave the decision to the floats' rounding
        near_tie = 2 * vote.eps if vote.eps > 0 else -math.inf
        # a bound on u's sum below this prunes (Vote.may_beat, after whole())
        enough = -const - 2 * vote.eps if vote.eps > 0 else -const

        def scored(node: tuple[Any, ...]) -> tuple[float, tuple[Any, ...]]:
            idx = node[0]
            # every tree keeps a leaf meeting the box, its best one first
            starts = np.searchsorted(idx, first_leaf)
            best = idx[starts]
            top = u[best]
            return float(top.sum()) + const, (*node[:5], (best, starts, top))

        def cut(node: tuple[Any, ...], i: int, lo_cells: Any) -> tuple[Any, ...]:
            """``node`` with feature ``i`` cut to ``[lo_cells)`` (ordered: a pair lo, hi)
            or to the cells of a group's mask."""
            idx, lo, hi, sets, dual = node[:5]
            if i in sets:
                nsets = {**sets, i: lo_cells}
                return idx[(box_sets[i][idx] & lo_cells).any(axis=1)], lo, hi, nsets, dual
            a, b = lo_cells
            nlo, nhi = lo.copy(), hi.copy()
            nlo[i], nhi[i] = a, b
            keep = (lo_t[i][idx] < b) & (hi_t[i][idx] > a)
            return idx[keep], nlo, nhi, sets, dual

        root = (
            np.flatnonzero(~rank["dis_t"][fixed].any(axis=0)),
            np.where(fixed, inst, 0),
            np.where(fixed, inst + 1, k),
            {i: np.arange(k[i]) == inst[i] if fixed[i] else np.ones(k[i], bool) for i in box_sets},
            None,  # the dual solution of the root's relaxation at the nearest node above
        )

        def root_relaxation() -> Relaxation:
            idx, lo, hi, sets = root[:4]
            groups = {i: (box_sets[i][idx], cur) for i, cur in sets.items()}
            leaf_tree = self.table.tree[perm[idx]]
            return Relaxation(
                u[idx], leaf_tree, box_lo[idx], box_hi[idx], (lo, hi, ordered), groups
            )

        def whole(found: float) -> float:
            """A bound on the score difference from a bound on ``u``'s sum."""
            found += const
            if vote.exact_bits is not None and math.isfinite(found):
                # every sum is a multiple of 2**-bits: so is the maximum (ties stay ties)
                found = math.floor(found * 2.0**vote.exact_bits) / 2.0**vote.exact_bits
            return found

        # per leaf (row of rank), its column in the root's relaxation: a node's leaves are
        # some of the root's
        column_of = np.zeros(len(u), dtype=np.int64)
        column_of[root[0]] = np.arange(len(root[0]))

        def linear(relax: Relaxation, node: tuple[Any, ...]) -> tuple[float, np.ndarray | None]:
            """The root's linear relaxation's bound over ``node``'s box
            (:mod:`.linear_bound`), and its rounded best point when the model classifies it
            otherwise."""
            # the root's box fixes nothing; the solver may stop once the node is pruned
            found, cells = relax.bound(column_of[node[0]], node[1:4], enough)
            found = whole(found)
            if may_beat(found, pair) and vote.others(cells[None, :])[0]:
                return found, cells
            return found, None

        def inherited(node: tuple[Any, ...], dual: DualBound) -> float:
            """The bound of a dual solution of the root's relaxation over ``node``'s box."""
            return whole(dual.value_inside(column_of[node[0]], node[1:4]))

        budget, check_deadline = yield False, None
        nodes = 0
        # the root's relaxation after LP_AFTER_NODES nodes, or at once for a pair whose last
        # question it decided; the nodes' own from then on
        lp_after = costs.LP_AFTER_NODES
        root_at = 1 if self._root_decided.get(q) else lp_after + 1
        lp_tries, lp_prunes = 0, 0
        relax: Relaxation | None = None  # the root's, made on its first use
        root_dual: DualBound | None = None
        stack: list[Iterator[tuple[Any, ...]]] = [iter([root])]
        while stack:
            node = next(stack[-1], None)
            if node is None:
                stack.pop()
                continue
            nodes += 1
            if nodes > budget:
                more, check_deadline = yield False, None
                budget = nodes - 1 + more
            if nodes % 64 == 0:
                check_deadline()
            if nodes == lp_after + 1:
                # a new trial of the nodes' programs, deeper (asked at once, they may have
                # stopped near the root, where they seldom prune)
                lp_tries = lp_prunes = 0
            if nodes == root_at:
                # the box search is slow on this question: the root's linear relaxation may
                # close it at once, or its best point be an input of the other class
                relax = root_relaxation()
                bound, cells = linear(relax, root)
                root_dual = relax.dual
                if cells is None and may_beat(bound, pair):
                    # a witness is often near the relaxation's best point: climb from it
                    point = relax.cells(relax.last_x, root[1:4])
                    cells = self.greedy(np.flatnonzero(~fixed), start=point)
                self._root_decided[q] = cells is not None or not may_beat(bound, pair)
                if self._root_decided[q]:
                    yield True, cells
                    return
            if len(node) == 6:
                bound = float(node[5][2].sum()) + const
            else:
                bound, node = scored(node)
            if not may_beat(bound, pair):
                continue
            dual = node[4] or root_dual
            if dual is not None and not may_beat(inherited(node, dual), pair):
                continue
            if bound <= near_tie and vote.floats_keep(pair, perm[node[0]], node[5][1]):
                continue  # a near-tie the model's floats decide for the whole box
            if relax is not None and nodes > root_at and lp_prunes * LP_RATE >= lp_tries - LP_TRIAL:
                # the linear bound while it prunes at least one node in LP_RATE
                lp_tries += 1
                bound, cells = linear(relax, node)
                if cells is not None:
                    yield True, cells
                    return
                if not may_beat(bound, pair):
                    lp_prunes += 1
                    continue
                if relax.dual is not None:  # the node's descendants get its bound
                    node = (*node[:4], relax.dual, node[5])
            idx, lo, hi, sets, _, (best, starts, top) = node
            best_lo, best_hi = box_lo[best], box_hi[best]
            low = np.maximum(best_lo.max(axis=0), lo)
            high = np.minimum(best_hi.min(axis=0), hi)
            split = self._split(best, (best_lo, best_hi), low, high, ordered, (lo, hi, sets), rank)
            if split is not None:
                i, parts = split
                kids = [scored(cut(node, i, part)) for part in parts]
                kids = [kid for kid in kids if may_beat(kid[0], pair)]
                kids.sort(key=lambda kid: -kid[0])
                stack.append(iter([kid[1] for kid in kids]))
                continue
            cells = low.copy()
            for i, cur in sets.items():
                cells[i] = int(np.argmax(cur & box_sets[i][best].all(axis=0)))
            if vote.others(cells[None, :])[0]:
                yield True, cells
                return
            counts = np.diff(starts, append=len(idx))
            j = int(np.argmax(counts))
            if counts[j] == 1:
                continue  # one leaf per tree: the model's floats decided the whole box
            seg = idx[starts[j] : starts[j] + counts[j]]
            stack.append(self._leaf_children(pair, node, seg, bound - float(top[j]), rank))
        yield True, None

    def _split(
        self,
        best: np.ndarray,
        best_box: tuple[np.ndarray, np.ndarray],
        low: np.ndarray,
        high: np.ndarray,
        ordered: np.ndarray,
        box: tuple[np.ndarray, np.ndarray, dict[int, np.ndarray]],
        rank: dict[str, Any],
    ) -> tuple[int, list[Any]] | None:
        """Where the best leaves ``best`` (rows of ``rank``, :meth:`_ranked`; their
        ``best_box``, lo and hi) disagree (``low``/``high``: the ordered features' common
        range, empty where they disagree):
        a feature and the two parts of the node's ``box`` (lo, hi, sets) to search (ordered:
        two ranges cut at a cell between them, on the feature whose cut leaves most of them
        out on either side; a group: a best leaf's cells and the rest), or None when they
        agree."""
        lo, hi, sets = box
        clash = np.flatnonzero((low >= high) & ordered)
        if len(clash):
            a, b = high[clash], low[clash]
            r = (a + b + 1) // 2
            out = (best_box[1][:, clash] <= r).sum(axis=0)
            out += (best_box[0][:, clash] >= r).sum(axis=0)
            j = int(np.argmax(out))
            i, at = int(clash[j]), int(r[j])
            # lo[i] < high[i] <= at <= low[i] < hi[i]: both parts hold cells
            return i, [(int(lo[i]), at), (at, int(hi[i]))]
        for i, cur in sets.items():
            inside = rank["sets"][i][best] & cur
            if not inside.all(axis=0).any():
                narrow = inside[np.flatnonzero((inside != cur).any(axis=1))[0]]
                return i, [narrow, cur & ~narrow]
        return None

    def _leaf_children(
        self,
        pair: VotePair,
        node: tuple[Any, ...],
        seg: np.ndarray,
        rest: float,
        rank: dict[str, Any],
    ) -> Iterator[tuple[Any, ...]]:
        """The children of ``node`` that fix one tree's leaf among ``seg`` (rows of
        ``rank``, heaviest first), the box cut down to that leaf's; a child whose leaf,
        with the other trees' bounds (``rest``), cannot beat the prediction is not made, nor
        are its lighter siblings."""
        perm, u, box_lo, box_hi = rank["perm"], rank["u"], rank["lo"], rank["hi"]
        box_sets: dict[int, np.ndarray] = rank["sets"]
        idx, lo, hi, sets = node[:4]
        for row in seg.tolist():
            if not self.vote.may_beat(rest + float(u[row]), pair):
                return
            nlo, nhi = np.maximum(lo, box_lo[row]), np.minimum(hi, box_hi[row])
            # a leaf meets the smaller box when it meets the old one and, on each ordered
            # feature, the branching leaf's box: three intervals that meet pairwise share a
            # point (cell sets need the new set itself)
            sub = idx[self.table.meets(int(perm[row]))[perm[idx]]]
            nsets = {}
            for i, cur in sets.items():
                nsets[i] = cur & box_sets[i][row]
                if not np.array_equal(nsets[i], cur):
                    sub = sub[(box_sets[i][sub] & nsets[i]).any(axis=1)]
            yield sub, nlo, nhi, nsets, node[4]

    # -- the greedy search -----------------------------------------------------------------------
    def greedy(
        self, free: np.ndarray, passes: int = 2, start: np.ndarray | None = None
    ) -> np.ndarray | None:
        """Coordinate ascent from the instance (or from the cells ``start``) on the margin
        of the best other class, one ``free`` feature at a time over all its cells; an input
        of another class, or None.

        The scores of every cell of feature ``i`` come from the leaf table: the leaves
        whose box holds the current input on every other feature are, per tree, the leaves
        reached as ``i`` varies, and each adds its contribution to the cells of its range
        (the model's own floats decide the input returned)."""
        vote, table = self.vote, self.table
        current = np.asarray(self.space.instance_cell, dtype=np.int64).copy()
        # per feature and leaf: does the leaf's box exclude the current cell?
        missed = self.dis_t.copy()
        if start is not None:
            for i in np.flatnonzero(start != current).tolist():
                current[i] = start[i]
                missed[i] = table.excludes(i, int(start[i]))
        count = missed.sum(axis=0, dtype=np.int16)
        tolerance = 2 * vote.eps
        best = -np.inf
        for _ in range(passes):
            improved = False
            for i in free.tolist():
                # the leaves excluded by feature i alone, if at all: those reached as i varies
                near = np.flatnonzero(count == missed[i])
                margin = vote.margin(self.scores_along(i, near))
                j = int(np.argmax(margin))
                if margin[j] > best:
                    best, improved = float(margin[j]), True
                    if j != current[i]:
                        current[i] = j
                        count -= missed[i]
                        missed[i] = table.excludes(i, j)
                        count += missed[i]
                if margin[j] >= -tolerance and vote.others(current[None, :])[0]:
                    return current
            if not improved:
                break
        return None

    def scores_along(self, i: int, leaves: np.ndarray) -> np.ndarray:
        """Per cell of feature ``i``, the sum of the contributions of ``leaves`` (one per
        tree at each cell) whose box holds it, plus the base scores."""
        table = self.table
        if i in table.sets:
            cover = table.sets[i][leaves].T
        else:
            cells = np.arange(self.space.n_cells[i])[:, None]
            cover = (table.lo_t[i][leaves] <= cells) & (table.hi_t[i][leaves] > cells)
        return cover.astype(float) @ self.vote.per_leaf[leaves] + self.vote.base


__all__ = ["LeafSearch"]
