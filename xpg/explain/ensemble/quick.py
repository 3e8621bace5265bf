"""A tree ensemble's decision, its AXp by deletion answered from the leaf table first
(:class:`QuickOracle`).

Most questions of an AXp by deletion are decided without a search: freeing a feature either
leaves every class the prediction could lose to out of reach of the independent-tree bound
(each tree free to take its best leaf among those the fixed features allow: the feature is
freed), or the best leaves themselves share a point that the model's own floats classify
otherwise (a witness: the feature stays).  :class:`QuickOracle` keeps, per leaf, how many
fixed features exclude it, so that each such question is a few array operations over the
leaves, and every class is bounded at once (:class:`~xpg.explain.ensemble.vote.VotePart`).
Whatever these do not decide, and every other question (CXps, enumerations, robustness), goes
to the instance's :class:`~xpg.explain.ensemble.oracle.EnsembleOracle`, made on first need:
the answers are the same, exact, and only the questions the full oracle would answer by its
bound or by a witness are answered here.

Examples
--------
>>> from xpg.models.ensemble_import import ensemble_from_sklearn
>>> from xpg.testing.ensembles import random_sklearn_ensemble
>>> boosted, features, points = random_sklearn_ensemble(0, "boosted", n_trees=10)
>>> space = CellSpace(ensemble_from_sklearn(boosted, features), list(points[0]))
>>> with QuickOracle(space) as oracle:
...     session = oracle.deletion(oracle.tested())
...     session.free_each(oracle.deletion_order(session.fixed)) == [], oracle.full_made
(True, False)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

import xpg.core.costs as costs
from xpg.explain.ensemble.leaf_table import LeafTable, leaf_table
from xpg.explain.ensemble.space import CellLayout, CellSpace
from xpg.explain.ensemble.vote import vote_part
from xpg.explain.oracle_abc import CellOracle, Deletion, Undecided, refuse_seed
from xpg.solvers.lifecycle import SolverOwner


class QuickOracle(SolverOwner, CellOracle):
    """The oracle of one decision of a tree ensemble: an AXp's deletion decided over the
    leaf table when the bound or the best leaves decide, everything else by the
    :class:`~xpg.explain.ensemble.oracle.EnsembleOracle` of the same space and backend
    (:attr:`full`, made on first need; its attributes are read through this one).

    Parameters
    ----------
    space : CellSpace
    backend : {"pb", "lra"}
        The full oracle's backend.
    """

    closed_message = "this EnsembleOracle is closed"

    def __init__(self, space: CellSpace, backend: str = "pb") -> None:
        from xpg.explain.ensemble.oracle import ROUTE_OF

        self._full: Any = None
        self._search: Any = None
        self._deadline: float | None = None
        self._calls = 0
        self._last_set: tuple[list[int], np.ndarray, np.ndarray, np.ndarray] | None = None
        self._lead: tuple[list[int], int] | None = None
        self.space, self.model, self.backend = space, space.model, backend
        self.route = ROUTE_OF[backend]
        self.n_features = len(space.features)
        self.last_core: list[int] | None = None
        table = self._table = leaf_table(space.layout)
        inst = np.asarray(space.instance_cell, dtype=np.int64)
        self._inst = inst
        allowed, first = cell_allowed(space.layout)
        self._allowed, self._first = allowed, np.asarray(first[:-1])
        #: per feature and leaf: does the leaf allow the instance's cell?
        inside = allowed[self._first + inst]
        #: per leaf and feature: does the leaf's box exclude the instance's cell?
        self._dis = (~inside).T
        self._excl: dict[int, np.ndarray] = {}  # filled by :meth:`excluded`
        #: the instance's own leaves (one per tree, in tree order)
        self._own = np.flatnonzero(inside.all(axis=0))
        own = table.node[self._own]
        scores = self.model.scores_of_leaves(own[None, :])
        self.prediction = int(self.model.classes_of_scores(scores)[0])
        self.prediction_label = self.model.classes[self.prediction]
        part = self._part = vote_part(space.layout, self.prediction)
        self._beat = part.beat  # may_beat as one comparison
        self._mark = np.zeros(len(table.node) + 1, dtype=bool)  # reach, False past the end
        self._pad, self._u_pad = padded(space.layout, self.prediction)
        self._pairs = pair_leaves(space.layout, self.prediction)
        self._entries = pair_entries(space.layout, self.prediction)
        #: per class the prediction may lose to and tree, the ``u`` of the instance's leaf
        if len(self._own) == len(table.starts):
            self._own_u = part.u[:, self._own]
        else:  # not one leaf a tree (never seen): the best of the instance's leaves
            self._own_u = self.tops(np.asarray(inside.all(axis=0)))

    # -- the full oracle ---------------------------------------------------------------------------
    @property
    def full(self) -> Any:
        """The :class:`~xpg.explain.ensemble.oracle.EnsembleOracle` of this decision."""
        self._check_open()
        if self._full is None:
            from xpg.explain.ensemble.oracle import EnsembleOracle

            self._full = EnsembleOracle(self.space, self.backend)  # type: ignore[arg-type]
            self._full.deadline = self._deadline
        return self._full

    @property
    def full_made(self) -> bool:
        """Has a question needed the full oracle?"""
        return self._full is not None

    @property
    def solver_calls(self) -> int:
        """Questions the full oracle's solver answered."""
        return 0 if self._full is None else int(self._full.solver_calls)

    @property
    def refinements(self) -> int:
        """Leaf combinations the full oracle blocked (see :class:`EnsembleOracle`)."""
        return 0 if self._full is None else int(self._full.refinements)

    @property
    def exact_vote(self) -> bool:
        """True when the model's float sums are exact (see :class:`EnsembleOracle`)."""
        return bool(self._part.eps == 0.0)

    def search(self) -> Any:
        """The :class:`~xpg.explain.ensemble.leaf_search.LeafSearch` of this decision (made
        on first need)."""
        if self._search is None:
            from xpg.explain.ensemble.leaf_search import LeafSearch
            from xpg.explain.ensemble.vote import Vote

            self._search = LeafSearch(Vote(self.space, self.prediction))
        return self._search

    def _release(self) -> None:
        if self._full is not None:
            self._full.close()

    @property  # type: ignore[override]
    def deadline(self) -> float | None:
        return self._deadline

    @deadline.setter
    def deadline(self, value: float | None) -> None:
        self._deadline = value
        if self._full is not None:
            self._full.deadline = value

    @property  # type: ignore[override]
    def calls(self) -> int:
        """Questions asked (here and by the full oracle)."""
        return self._calls + (0 if self._full is None else int(self._full.calls))

    @calls.setter
    def calls(self, value: int) -> None:
        self._calls = value - (0 if self._full is None else int(self._full.calls))

    # -- the questions -----------------------------------------------------------------------------
    def check(self, fixed: Iterable[int], *, solver: bool = True) -> np.ndarray | None:
        """The full oracle's answer (see :meth:`EnsembleOracle.check`)."""
        full = self.full
        try:
            return full.check(fixed, solver=solver)  # type: ignore[no-any-return]
        finally:
            self.last_core = full.last_core

    def check_cells(self, allowed: Sequence[Iterable[int] | None]) -> np.ndarray | None:
        """The full oracle's answer (see :meth:`EnsembleOracle.check_cells`)."""
        full = self.full
        try:
            return full.check_cells(allowed)  # type: ignore[no-any-return]
        finally:
            self.last_core = full.last_core

    def witness_values(self, cells: np.ndarray) -> dict[str, Any]:
        """The explained features' values of a witness."""
        return self.space.values(cells.tolist())  # type: ignore[no-any-return]

    def tops(self, reach: np.ndarray) -> np.ndarray:
        """Per class the prediction may lose to and per tree, the best ``u`` among the
        leaves ``reach`` marks: the independent-tree bound is their sum plus the constant."""
        mark = self._marked(reach)
        return np.where(mark, self._u_pad, -np.inf).max(axis=1)  # type: ignore[no-any-return]

    def raised(self, top: np.ndarray, new: np.ndarray) -> np.ndarray:
        """:meth:`tops` of a reach grown by the leaves ``new`` marks, from ``top``, that of
        the reach before (only the trees whose leaves score unalike can change)."""
        leaf, flat, u = self._entries
        sel = np.flatnonzero(new[leaf])
        if not len(sel):
            return top
        top = top.copy()
        np.maximum.at(top.reshape(-1), flat[sel], u[sel])
        return top

    def may_beat(self, bounds: np.ndarray) -> np.ndarray:
        """Per class, can a sum bounded by ``bounds`` beat the prediction?
        (:meth:`~xpg.explain.ensemble.vote.Vote.may_beat` for every class at once.)"""
        return bounds > self._beat  # type: ignore[no-any-return]

    def excluded(self, v: int) -> np.ndarray:
        """The leaves whose box excludes the instance's cell of feature ``v`` (ascending)."""
        found = self._excl.get(v)
        if found is None:
            found = self._excl[v] = np.flatnonzero(self._dis[:, v])
        return found

    def _marked(self, reach: np.ndarray) -> np.ndarray:
        """``reach`` in the padded layout of :func:`padded` (False past a tree's leaves)."""
        self._mark[:-1] = reach
        return self._mark[self._pad]  # type: ignore[no-any-return]

    def deletion_order(self, fixed: list[int]) -> list[int]:
        """``fixed`` in the order an AXp by deletion tries to free them: least effect on the
        bound first (as :meth:`EnsembleOracle.deletion_order`).  Freeing one feature
        reaches the leaves it alone excludes, so each feature's bound is the bound with
        every feature fixed plus, per tree, what its best such leaf adds."""
        if len(fixed) < 2:
            return list(fixed)
        part, dis, table = self._part, self._dis[:, fixed], self._table
        last = self._last_set  # a deletion just made from ``fixed`` has these already
        if last is not None and last[0] == fixed:
            count, top, bound = last[1:]
        else:
            count = dis.sum(axis=1)
            top = self.tops(count == 0)
            bound = top.sum(axis=1) + part.const
        one = np.flatnonzero(count == 1)
        if not len(one):
            totals = np.repeat(bound[:, None], len(fixed), axis=1)
        else:
            trees = table.tree[one]
            key = dis[one].argmax(axis=1) * len(top[0]) + trees
            order = np.argsort(key, kind="stable")
            key = key[order]
            start = np.flatnonzero(np.concatenate(([True], key[1:] != key[:-1])))
            gain = part.u[:, one[order]] - top[:, trees[order]]
            best = np.maximum(np.maximum.reduceat(gain, start, axis=1), 0.0)
            who = key[start] // len(top[0])
            n = len(fixed)
            slot = (np.arange(len(bound))[:, None] * n + who).ravel()
            added = np.bincount(slot, best.ravel(), minlength=len(bound) * n)
            totals = bound[:, None] + added.reshape(len(bound), n)
        ranked = np.argsort(totals.max(axis=0), kind="stable")
        ordered = [fixed[j] for j in ranked.tolist()]
        # how many lead the order with a bound that frees each alone (for free_each)
        alone = ~(totals[:, ranked] > self._beat[:, None]).any(axis=0)
        self._lead = (ordered, int(alone.argmin()) if not alone.all() else len(ordered))
        return ordered

    def point_witness(
        self, reach: np.ndarray, bounds: np.ndarray, top: np.ndarray
    ) -> np.ndarray | None:
        """For each class the bound leaves open, best bound first: when the trees' best
        leaves among ``reach`` (``top``: per class and tree their ``u``, as :meth:`tops`)
        share a point, that point (the instance's cell wherever the boxes allow it) if the
        model's own floats classify it otherwise; else None.  A tree whose best leaf scores
        no more than the instance's own leaf leaves the point free."""
        table, inst = self._table, self._inst
        open_pairs = np.flatnonzero(bounds > self._beat)
        if not len(open_pairs):
            return None
        own = self._own_u
        for q in open_pairs[np.argsort(-bounds[open_pairs], kind="stable")].tolist():
            leaves, trees, u = self._pairs[q]  # only the trees that score unalike for q
            at = top[q, trees]
            best = leaves[(u == at) & (at > own[q, trees]) & reach[leaves]]
            if not len(best):
                continue  # the instance's own score: no better point
            low, high = table.lo[best].max(axis=0), table.hi[best].min(axis=0)
            if (low >= high).any():
                # two best leaves apart: keep, feature by feature, those of the cell
                # that keeps the most gain (the others' trees then go free)
                best, low, high = self._reconciled(q, best)
            cells = np.where((low <= inst) & (inst < high), inst, low)
            if self._table.sets and not self._group_cells(best, cells):
                continue
            if self.others(cells):
                return cells
        return None

    def _reconciled(self, q: int, best: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``best`` leaves (of class ``q``'s trees) whose boxes share a point, the others
        dropped: while two boxes are apart on a feature, only those allowing the cell of
        it that the largest gain over the instance's leaves allows are kept (the kept ones
        then agree on that feature for good); with the box they share."""
        table = self._table
        gain = self._part.u[q, best] - self._own_u[q, table.tree[best]]
        los, his = table.lo[best], table.hi[best]
        while True:
            low, high = los.max(axis=0), his.min(axis=0)
            apart = np.flatnonzero(low >= high)
            if not len(apart):
                return best, low, high
            i = int(apart[0])
            lo, hi = los[:, i], his[:, i]
            # the cells worth trying: where some box starts (the best of them, the first)
            allows = (lo <= lo[:, None]) & (lo[:, None] < hi)
            keep = allows[int(np.argmax(allows @ gain))]
            best, gain, los, his = best[keep], gain[keep], los[keep], his[keep]

    def exhaustive(self, fixed: list[int], reach: np.ndarray) -> bool | None:
        """Can another class win with ``fixed`` fixed (``reach``: the leaves they allow)?
        Decided over every combination of the free features' cells when there are at most
        :data:`xpg.core.costs.EXHAUSTIVE_LIMIT` (the leaves each reaches read off the leaf
        table, the classes of those the vote lets beat the prediction by the model's own
        floats); None when there are more."""
        n_cells = self.space.n_cells
        kept = set(fixed)
        free = [i for i in range(self.n_features) if n_cells[i] > 1 and i not in kept]
        sizes = [n_cells[i] for i in free]
        combos = math.prod(sizes)
        leaves = np.flatnonzero(reach)
        if combos > costs.EXHAUSTIVE_LIMIT or combos * len(leaves) * len(free) > 2**24:
            return None
        table, part = self._table, self._part
        # a tree with one leaf in reach keeps it: only the others' leaves are looked up
        trees = table.tree[leaves]
        several = np.bincount(trees, minlength=len(table.starts))[trees] > 1
        multi, single = leaves[several], leaves[~several]
        # per combination (the first free feature's cell slowest, as np.indices) and leaf:
        # the leaf allows each of its cells; built one free feature at a time
        allowed, first = cell_allowed(self.space.layout)
        picked = [np.arange(first[i], first[i + 1]) for i in free]
        some = allowed[np.ix_(np.concatenate([*picked, np.zeros(0, np.int64)]), multi)]
        inside = np.ones((1, len(multi)), dtype=bool)
        at = 0
        for size in sizes:
            inside = (inside[:, None, :] & some[None, at : at + size]).reshape(-1, len(multi))
            at += size
        base = part.u[:, single].sum(axis=1) + part.const
        sums = inside.astype(float) @ part.u[:, multi].T + base
        may = self.may_beat(sums)
        rows = np.flatnonzero(may.any(axis=1))
        if not len(rows):
            return False
        # the likeliest row first: usually a witness, the others then not evaluated
        rows = rows[np.argsort(-np.where(may[rows], sums[rows], -np.inf).max(axis=1))]
        for chosen in (rows[:1], rows[1:]) if len(rows) > 1 else (rows,):
            hit = np.zeros((len(chosen), len(leaves)), dtype=bool)
            hit[:, ~several] = True
            hit[:, several] = inside[chosen]
            nodes = np.broadcast_to(table.node[leaves], hit.shape)[hit]
            scores = self.model.scores_of_leaves(nodes.reshape(len(chosen), -1))
            if (self.model.classes_of_scores(scores) != self.prediction).any():
                return True
        return False

    def branch_and_bound(self, fixed: list[int], bounds: np.ndarray) -> bool | None:
        """Can another class win with ``fixed`` fixed?  Each class the ``bounds`` leave
        open, best first, by the branch and bound over the trees' leaves
        (:meth:`~xpg.explain.ensemble.leaf_search.LeafSearch.pair_branch_and_bound`, within
        :data:`xpg.core.costs.BNB_NODES` nodes); None when it does not decide."""
        search = self.search()
        mask = np.zeros(self.n_features, dtype=bool)
        mask[fixed] = True
        open_pairs = np.flatnonzero(self.may_beat(bounds))
        for q in open_pairs[np.argsort(-bounds[open_pairs], kind="stable")].tolist():
            decided, found = search.pair_branch_and_bound(
                mask, q, costs.BNB_NODES, self.check_deadline
            )
            if not decided:
                return None
            if found is not None:
                return True
        return False

    def others(self, cells: np.ndarray) -> bool:
        """Does the model's own floats classify the choice of ``cells`` otherwise?"""
        inside = self._allowed[self._first + cells].all(axis=0)
        scores = self.model.scores_of_leaves(self._table.node[inside][None, :])
        return bool(self.model.classes_of_scores(scores)[0] != self.prediction)

    def _group_cells(self, best: np.ndarray, cells: np.ndarray) -> bool:
        """Set each group's cell in ``cells`` to one all of ``best`` allow (the instance's
        when it is one); False when they share none."""
        for i, sets in self._table.sets.items():
            common = sets[best].all(axis=0)
            if not common.any():
                return False
            cells[i] = self._inst[i] if common[self._inst[i]] else int(np.argmax(common))
        return True

    def deletion(self, fixed: Sequence[int], *, proven: bool = False) -> Deletion:
        """An AXp's deletion session from the weak AXp ``fixed``
        (:class:`QuickDeletion`).

        Raises
        ------
        InvalidSeedError
            When ``fixed`` is not a weak AXp.
        """
        self._check_open()
        return QuickDeletion(self, fixed, proven=proven)


class QuickDeletion(Deletion):
    """Features freed one at a time from a weak AXp, with per leaf the number of fixed
    features excluding it and per class and tree the best leaf reached kept up to date:
    freeing a feature reaches the leaves it alone excluded, and only their trees' bests
    change.  Each question is the bound of every class, then the best leaves' point, few
    combinations evaluated, the branch and bound, and last the full oracle."""

    def __init__(self, oracle: QuickOracle, fixed: Sequence[int], *, proven: bool = False):
        self.oracle: QuickOracle = oracle
        tested = oracle.tested()
        current = sorted(set(fixed) & set(tested))
        # every tested feature fixed: the instance's own leaves, its own class
        if not proven and len(current) < len(tested):
            if oracle.check(current) is not None:
                refuse_seed(oracle, fixed)
            core = oracle.last_core
            if core is not None:
                current = [u for u in current if u in set(core)]
        self._set(current)

    def _set(self, fixed: list[int]) -> None:
        self.fixed = fixed
        oracle = self.oracle
        self._count = oracle._dis[:, fixed].sum(axis=1)
        if len(fixed) == len(oracle.tested()) and len(oracle._own) == len(oracle._table.starts):
            # every tested feature fixed: each tree's one leaf is the instance's own
            self._top = oracle._own_u
        else:
            self._top = oracle.tops(self._count == 0)
        self._bounds = self._top.sum(axis=1) + self.oracle._part.const
        self.oracle._last_set = (list(fixed), self._count, self._top, self._bounds)

    def free_each(self, order: Iterable[int], *, solver: bool = True) -> list[int]:
        """Try to free each feature of ``order`` in turn (see :meth:`Deletion.free_each`);
        right after :meth:`QuickOracle.deletion_order`, the longest lead of the order that
        the bound frees at once first (the same features one at a time would free)."""
        order = list(order)
        start = 0
        lead = self.oracle._lead
        if lead is not None and lead[1] > 1 and lead[0] == order == self.fixed_order(order):
            start = self._free_lead(order, lead[1])
        return [v for v in order[start:] if self.free_one(v, solver=solver) is None]

    def fixed_order(self, order: list[int]) -> list[int]:
        """``order`` when it holds exactly the fixed features, else the fixed ones."""
        return order if sorted(order) == self.fixed else self.fixed

    def _free_lead(self, order: list[int], most: int) -> int:
        """Free the longest lead of ``order`` (at most ``most`` features: freeing a
        feature alone that the bound does not free, no larger set is freed by it) whose
        bound leaves every class out, by bisection; its length.  Freeing features one at a
        time in order frees the same lead: each step reaches fewer leaves."""
        oracle = self.oracle
        const, dis = oracle._part.const, oracle._dis
        low, high, found = 0, most + 1, None
        k = most
        # per leaf, how many of the first k features of the order exclude it (column k - 1)
        steps = np.cumsum(dis[:, order[:most]], axis=1)
        while high - low > 1:
            count = self._count - steps[:, k - 1]
            top = oracle.raised(self._top, (count == 0) & (self._count != 0))
            bounds = top.sum(axis=1) + const
            if oracle.may_beat(bounds).any():
                high = k
            else:
                low, found = k, (count, top, bounds)
            k = (low + high) // 2
        if found is not None:
            freed = set(order[:low])
            oracle._calls += low
            self.fixed = [u for u in self.fixed if u not in freed]
            self._count, self._top, self._bounds = found
        return low

    def free_one(self, v: int, *, solver: bool = True) -> list[int] | None:
        """Try to free ``v`` (see :meth:`Deletion.free_one`)."""
        if v not in self.fixed:
            return []
        oracle = self.oracle
        oracle._calls += 1
        part = oracle._part
        excl = oracle.excluded(v)
        count, top, bounds = self._count, self._top, self._bounds
        trial = count.copy()
        trial[excl] -= 1
        reach = trial == 0
        raised = oracle.raised(top, reach & (count != 0))
        if raised is not top:
            top, bounds = raised, raised.sum(axis=1) + part.const
        rest = self.fixed.copy()
        rest.remove(v)
        if oracle.may_beat(bounds).any():
            if oracle.point_witness(reach, bounds, top) is not None:
                return []
            decided = oracle.exhaustive(rest, reach)
            if decided is None:
                decided = oracle.branch_and_bound(rest, bounds)
            if decided is None:
                return self._ask_full(rest, solver)
            if decided:
                return []
        self.fixed, self._count, self._top, self._bounds = rest, trial, top, bounds
        return [v]

    def _ask_full(self, rest: list[int], solver: bool) -> list[int] | None:
        oracle = self.oracle
        oracle._calls -= 1  # the full oracle counts its own
        try:
            witness = oracle.check(rest, solver=solver)
        except Undecided:
            return None
        if witness is not None:
            return []
        core = oracle.last_core
        kept = rest if core is None else [u for u in rest if u in set(core)]
        freed = sorted(set(self.fixed) - set(kept))
        self._set(kept)
        return freed


def padded(layout: CellLayout, prediction: int) -> tuple[np.ndarray, np.ndarray]:
    """The leaves of each tree in a column (``pad``, shape ``(most leaves, n_trees)``, past
    a tree's last leaf the number of leaves), and per class the prediction may lose to, the
    ``u`` of each (``-inf`` past the last): per-tree maxima as a few rows' maximum (kept in
    the layout's cache)."""
    key = f"quick-{prediction}"
    found = layout.cache.get(key)
    if found is None:
        table, part = leaf_table(layout), vote_part(layout, prediction)
        start = np.asarray(table.start)
        counts = np.diff(start)
        width = np.arange(counts.max(initial=1))
        pad = np.where(width[:, None] < counts, start[:-1] + width[:, None], start[-1])
        u = np.concatenate([part.u, np.full((len(part.u), 1), -np.inf)], axis=1)
        found = layout.cache[key] = (pad, u[:, pad])
        pair_entries(layout, prediction)  # made with the explainer, as this
    return found


def pair_leaves(
    layout: CellLayout, prediction: int
) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Per class the prediction may lose to, the leaves (ascending), their trees and their
    ``u`` of only the trees whose leaves do not all have the same ``u`` (the others never
    decide a point; in a multi-class boosted model, the trees of the two classes compared).
    Kept in the layout's cache.

    >>> from xpg.models.ensemble_import import ensemble_from_sklearn
    >>> from xpg.testing.ensembles import random_sklearn_ensemble
    >>> boosted, features, points = random_sklearn_ensemble(0, "boosted", n_trees=5)
    >>> layout = CellSpace(ensemble_from_sklearn(boosted, features), list(points[0])).layout
    >>> [(len(leaves) == len(trees) == len(u)) for leaves, trees, u in pair_leaves(layout, 0)]
    [True]
    """
    key = f"quick-pairs-{prediction}"
    found = layout.cache.get(key)
    if found is None:
        table, part = leaf_table(layout), vote_part(layout, prediction)
        unalike = np.maximum.reduceat(part.u, table.starts, axis=1) > np.minimum.reduceat(
            part.u, table.starts, axis=1
        )
        found = []
        for q in range(len(part.u)):
            leaves = np.flatnonzero(unalike[q, table.tree])
            found.append((leaves, table.tree[leaves], part.u[q, leaves]))
        layout.cache[key] = found
    return found  # type: ignore[no-any-return]


def pair_entries(layout: CellLayout, prediction: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The ``(class, leaf)`` pairs of :func:`pair_leaves`, leaf by leaf: each one's leaf, its
    place in a ``(classes, trees)`` array raveled, and its ``u`` (kept in the layout's
    cache)."""
    key = f"quick-entries-{prediction}"
    found = layout.cache.get(key)
    if found is None:
        table = leaf_table(layout)
        pairs = pair_leaves(layout, prediction)
        leaf = np.concatenate([leaves for leaves, _, _ in pairs])
        flat = np.concatenate(
            [q * len(table.starts) + trees for q, (_, trees, _) in enumerate(pairs)]
        )
        u = np.concatenate([u for _, _, u in pairs])
        order = np.argsort(leaf, kind="stable")
        found = layout.cache[key] = (leaf[order], flat[order], u[order])
    return found  # type: ignore[no-any-return]


def cell_allowed(layout: CellLayout) -> tuple[np.ndarray, list[int]]:
    """Per cell of every feature (features in order, cells in order) and per leaf of the leaf
    table, does the leaf's box allow the cell; and where each feature's rows start (the
    last entry, the number of rows).  Kept in the layout's cache.

    >>> from xpg.models.ensemble_import import ensemble_from_sklearn
    >>> from xpg.testing.ensembles import random_sklearn_ensemble
    >>> forest, features, points = random_sklearn_ensemble(0, "forest", n_trees=3)
    >>> space = CellSpace(ensemble_from_sklearn(forest, features), list(points[0]))
    >>> allowed, first = cell_allowed(space.layout)
    >>> allowed.shape == (sum(space.n_cells), len(leaf_table(space.layout).node))
    True
    """
    found = layout.cache.get("quick-cells")
    if found is None:
        table = leaf_table(layout)
        blocks = []
        for i, n in enumerate(layout.n_cells):
            cells = np.arange(n)[:, None]
            if i in table.sets:
                blocks.append(table.sets[i].T)
            else:
                blocks.append((table.lo[:, i] <= cells) & (table.hi[:, i] > cells))
        first = np.concatenate([[0], np.cumsum(layout.n_cells)]).tolist()
        found = layout.cache["quick-cells"] = (np.concatenate(blocks), first)
    return found  # type: ignore[no-any-return]


def excluding(table: LeafTable, cells: np.ndarray) -> np.ndarray:
    """Per leaf of ``table`` and feature: does the leaf's box exclude ``cells[feature]``?"""
    dis: np.ndarray = (table.lo > cells) | (table.hi <= cells)
    for i, sets in table.sets.items():
        dis[:, i] = ~sets[:, cells[i]]
    return dis


__all__ = [
    "QuickDeletion",
    "QuickOracle",
    "cell_allowed",
    "excluding",
    "padded",
    "pair_entries",
    "pair_leaves",
]
