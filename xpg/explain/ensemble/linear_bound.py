"""A sound upper bound on a score difference over a box of cells, from a linear relaxation
(:class:`Relaxation`).

The trees' leaves meeting the box and, per ordered feature and cut ``c`` some leaf's range
starts or ends at, a variable ``z = [x >= c]`` (decreasing in ``c``); per tree, weights
``l`` on its leaves summing to 1, and for each of its cuts, the leaves wholly below ``c``
weigh at most ``1 - z`` and those wholly above at most ``z`` (the strong formulation of
Kantchelian et al.; a group's cells: one weight per cell, summing to 1, each leaf at most
the weight of its cells).  Every input of the box is a 0/1 point of it (its leaves, its
``z``), so the maximum of ``sum(u[l] * l)`` over the relaxation bounds the score
difference from above; with whole ``z`` it is the maximum itself.

The linear program is solved by HiGHS (``highspy``; a box inside is the same program with
some variables fixed, solved from the last basis), but its answer is not
trusted: the bound is the value of the dual solution it returns at any multipliers (the
weak duality of Neumaier and Shcherbina), computed with a margin for the floats' rounding,
so it is an upper bound whatever the solver's tolerances did.

Examples
--------
Two trees over one feature of 3 cells, each worth 1 on a different side: alone, each
could take its 1 (a bound of 2); together they never do.

>>> import numpy as np
>>> lo = np.array([[0], [1], [0], [2]]); hi = np.array([[1], [3], [2], [3]])
>>> tree = np.array([0, 0, 1, 1]); u = np.array([1.0, 0.0, 0.0, 1.0])
>>> box = (np.array([0]), np.array([3]), np.array([True]))
>>> relax = Relaxation(u, tree, lo, hi, box)
>>> bound, cells = relax.bound()
>>> round(bound, 9), cells.tolist() in ([0], [2])  # either best input
(1.0, True)

References
----------
Kantchelian, Tygar, Joseph. Evasion and Hardening of Tree Ensemble Classifiers. ICML 2016
(the formulation); Neumaier, Shcherbina. Safe bounds in linear and mixed-integer linear
programming. Math. Program. 99, 2004 (the safe dual bound); Huangfu, Hall. Parallelizing
the dual revised simplex method. Math. Prog. Comp. 10, 2018 (HiGHS).
"""

from __future__ import annotations

import contextlib
import ctypes
import math
import os
import sys
from typing import Any

import numpy as np

#: a box of cells: per feature its ``[lo, hi)``, and per group feature its cells (a mask)
Box = tuple[np.ndarray, np.ndarray, dict[int, np.ndarray]]

#: the unit roundoff of float64
_UNIT = 2.0**-53
#: how far past ``enough`` HiGHS's own dual objective goes before it stops (relative)
_STOP_MARGIN = 1e-7


class Relaxation:
    """The linear program of one box: ``max cost @ x`` over ``0 <= x <= 1``,
    ``a_ub @ x <= b_ub`` and ``a_eq @ x == 1``; ``x`` the leaves' weights, then the cuts'
    ``z`` (``z_keys``: feature and cell of each, in increasing order), then the groups'
    cell weights.

    Parameters
    ----------
    u, tree : ndarray
        Per leaf meeting the box (grouped by tree): its weight and its tree.
    lo, hi : ndarray of int, shape (n_leaves, n_features)
        Per leaf, the cell range ``[lo, hi)`` of each ordered feature.
    box : (ndarray, ndarray, ndarray of bool)
        The box's ``[lo, hi)`` per feature, and which features are ordered.
    sets : dict of int to (ndarray of bool, ndarray of bool), optional
        Per group feature: per leaf its cells, and the box's cells.
    """

    def __init__(
        self,
        u: np.ndarray,
        tree: np.ndarray,
        lo: np.ndarray,
        hi: np.ndarray,
        box: tuple[np.ndarray, np.ndarray, np.ndarray],
        sets: dict[int, tuple[np.ndarray, np.ndarray]] | None = None,
    ) -> None:
        from scipy.sparse import coo_matrix

        n = len(u)
        box_lo, box_hi, ordered = box
        self.box_lo = box_lo
        lo = np.maximum(lo, box_lo)
        hi = np.minimum(hi, box_hi)
        tree_ids, tree_row = np.unique(tree, return_inverse=True)
        first = np.searchsorted(tree_row, np.arange(len(tree_ids)))
        size = np.diff(np.append(first, n))

        # the cuts: (tree, feature, cell) where some leaf's range starts or ends in the box
        leaf_i, feat_i = np.nonzero((lo > box_lo) & ordered)
        leaf_j, feat_j = np.nonzero((hi < box_hi) & ordered)
        cut_tree = np.concatenate([tree_row[leaf_i], tree_row[leaf_j]])
        cut_feat = np.concatenate([feat_i, feat_j])
        cut_cell = np.concatenate([lo[leaf_i, feat_i], hi[leaf_j, feat_j]])
        cuts = np.unique(np.stack([cut_tree, cut_feat, cut_cell]), axis=1)
        self.z_keys, z_of_cut = np.unique(cuts[1:], axis=1, return_inverse=True)
        n_z = self.z_keys.shape[1]

        rows: list[np.ndarray] = []
        cols: list[np.ndarray] = []
        vals: list[np.ndarray] = []
        rhs: list[np.ndarray] = []
        n_rows = 0

        def add(row: np.ndarray, col: np.ndarray, val: np.ndarray, b: np.ndarray) -> None:
            nonlocal n_rows
            rows.append(row + n_rows)
            cols.append(col)
            vals.append(val)
            rhs.append(b)
            n_rows += len(b)

        if cuts.shape[1]:
            # each cut against every leaf of its tree: below it, above it, or across
            reps = size[cuts[0]]
            cut_of = np.repeat(np.arange(cuts.shape[1]), reps)
            leaf = np.repeat(first[cuts[0]] - np.cumsum(reps) + reps, reps) + np.arange(reps.sum())
            f, c = cuts[1][cut_of], cuts[2][cut_of]
            below = hi[leaf, f] <= c
            above = lo[leaf, f] >= c
            for side, z_sign, b in ((below, 1.0, 1.0), (above, -1.0, 0.0)):
                used, row = np.unique(cut_of[side], return_inverse=True)
                m = len(used)
                add(
                    np.concatenate([row, np.arange(m)]),
                    np.concatenate([leaf[side], n + z_of_cut[used]]),
                    np.concatenate([np.ones(side.sum()), np.full(m, z_sign)]),
                    np.full(m, b),
                )
            # z decreasing in the cell: z[i, c2] <= z[i, c1] for consecutive cuts c1 < c2
            same = np.flatnonzero(self.z_keys[0, 1:] == self.z_keys[0, :-1])
            m = len(same)
            add(
                np.tile(np.arange(m), 2),
                np.concatenate([n + same + 1, n + same]),
                np.concatenate([np.ones(m), -np.ones(m)]),
                np.zeros(m),
            )
        n_vars = n + n_z
        eq_rows = [tree_row]
        eq_cols = [np.arange(n)]
        n_eq = len(tree_ids)
        #: per group: its feature, its allowed cells, and where their weights start in x
        self.groups: list[tuple[int, np.ndarray, int]] = []
        for i, (cells, allowed) in (sets or {}).items():
            # one weight per allowed cell, summing to 1; a leaf at most the weight of its cells
            k = np.flatnonzero(allowed)
            mine = cells[:, k]
            narrow = np.flatnonzero(~mine.all(axis=1))
            leaf_at, cell_at = np.nonzero(mine[narrow])
            m = len(narrow)
            add(
                np.concatenate([np.arange(m), leaf_at]),
                np.concatenate([narrow, n_vars + cell_at]),
                np.concatenate([np.ones(m), -np.ones(len(leaf_at))]),
                np.zeros(m),
            )
            eq_rows.append(np.full(len(k), n_eq))
            eq_cols.append(n_vars + np.arange(len(k)))
            self.groups.append((i, k, n_vars))
            n_eq += 1
            n_vars += len(k)

        self.n_leaves, self.n_z = n, n_z
        self._highs: Any = None
        self._transposed: tuple[Any, Any, Any, Any, np.ndarray] | None = None
        #: the dual solution of the last :meth:`bound`, when its value is a number
        self.dual: DualBound | None = None
        #: the primal solution of the last :meth:`bound` (leaf weights, ``z``, cell weights)
        self.last_x: np.ndarray = np.zeros(0)
        self.cost = np.zeros(n_vars)
        self.cost[:n] = u
        self.a_ub = (
            coo_matrix(
                (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                shape=(n_rows, n_vars),
            ).tocsr()
            if n_rows
            else None
        )
        self.b_ub = np.concatenate(rhs) if n_rows else None
        eq_r, eq_c = np.concatenate(eq_rows), np.concatenate(eq_cols)
        self.a_eq = coo_matrix((np.ones(len(eq_r)), (eq_r, eq_c)), shape=(n_eq, n_vars)).tocsr()

    def transposed(self) -> tuple[Any, Any, Any, Any, np.ndarray]:
        """The constraint matrices transposed, and their absolute values (``a_eq``, then
        ``a_ub``: None without it), and per variable its number of terms in them: what
        each :class:`DualBound` multiplies by, made once."""
        if self._transposed is None:
            eq_t = self.a_eq.T.tocsr()
            terms = np.diff(eq_t.indptr)
            ub_t = abs_ub_t = None
            if self.a_ub is not None:
                ub_t = self.a_ub.T.tocsr()
                abs_ub_t = abs(ub_t)
                terms = terms + np.diff(ub_t.indptr)
            self._transposed = (eq_t, abs(eq_t), ub_t, abs_ub_t, terms)
        return self._transposed

    def cells(self, x: np.ndarray, box: Box | None = None) -> np.ndarray:
        """The cells a solution ``x`` rounds to, in ``box`` (default: the relaxation's):
        along each feature, the last cut whose ``z`` is at least 1/2 (``z`` decreases)
        starts the cell; a group takes its heaviest cell."""
        cells = np.array(self.box_lo, dtype=np.int64)
        up = x[self.n_leaves : self.n_leaves + self.n_z] >= 0.5
        cells[self.z_keys[0, up]] = self.z_keys[1, up]  # keys increase: the last one stays
        for i, k, start in self.groups:
            weight = x[start : start + len(k)]
            if box is not None:
                weight = np.where(box[2][i][k], weight, -np.inf)
            cells[i] = k[int(np.argmax(weight))]
        if box is not None:
            cells = np.clip(cells, box[0], box[1] - 1)
        return cells

    def column_bounds(self, columns: np.ndarray, box: Box) -> tuple[np.ndarray, np.ndarray]:
        """The bounds a box inside the relaxation's puts on its variables: ``columns`` (the
        positions of the relaxation's leaves that meet the box) and ``box`` (its ``lo``,
        ``hi`` per feature and, per group, its cells): a leaf that does not meet it at 0, a
        cut below it at 1 and one above it at 0, a group's cell left out at 0."""
        lo, hi, sets = box
        lower, upper = np.zeros(len(self.cost)), np.ones(len(self.cost))
        upper[: self.n_leaves] = 0.0
        upper[columns] = 1.0
        feature, cell = self.z_keys
        z = slice(self.n_leaves, self.n_leaves + self.n_z)
        lower[z][cell <= lo[feature]] = 1.0  # x >= lo >= cell
        upper[z][cell >= hi[feature]] = 0.0  # x < hi <= cell
        for i, k, start in self.groups:
            upper[start : start + len(k)][~sets[i][k]] = 0.0
        return lower, upper

    def bound(
        self,
        columns: np.ndarray | None = None,
        box: Box | None = None,
        enough: float = -math.inf,
    ) -> tuple[float, np.ndarray]:
        """An upper bound on ``sum(u[leaf])`` over the inputs of the box, one leaf per
        tree (``inf`` when the solver gave no usable answer), and the relaxation's best
        point rounded to cells (:meth:`cells`; often the best input itself: its score is
        the bound when every ``z`` is whole).  With ``columns`` and ``box``, over that box
        inside (:meth:`column_bounds`): the same program with some variables fixed, which
        HiGHS solves from its last basis.  The dual solution is kept (:attr:`dual`) to
        bound the boxes inside without a solver.

        With ``enough``, the solver stops once its dual solution bounds the sum by
        ``enough`` (HiGHS's ``objective_bound``: the dual simplex's every iterate is a dual
        solution, and its bound only falls): the bound is then at most about ``enough``,
        not the least, and the point is not the best."""
        import highspy

        highs = self._solver()
        n = len(self.cost)
        lower, upper = (
            (np.zeros(n), np.ones(n))
            if columns is None or box is None
            else self.column_bounds(columns, box)
        )
        highs.changeColsBounds(n, np.arange(n, dtype=np.int32), lower, upper)
        # HiGHS minimises -cost: its dual objective rises to -bound; past -enough, stop
        # (with a margin: the bound computed below adds its rounding to HiGHS's)
        stop = -enough + _STOP_MARGIN * (1.0 + abs(enough))
        highs.setOptionValue("objective_bound", stop if math.isfinite(stop) else math.inf)
        highs.run()
        self.dual = None
        done = (highspy.HighsModelStatus.kOptimal, highspy.HighsModelStatus.kObjectiveBound)
        solution = highs.getSolution()
        row_dual = np.asarray(solution.row_dual)
        m = 0 if self.b_ub is None else len(self.b_ub)
        if not (
            highs.getModelStatus() in done
            and solution.dual_valid
            and len(row_dual) == m + self.a_eq.shape[0]
        ):
            self.last_x = np.zeros(n)
            return math.inf, self.cells(self.last_x, box)
        dual = DualBound(self, np.maximum(0.0, -row_dual[:m]), -row_dual[m:])
        value = dual.value(lower, upper)
        if math.isfinite(value):  # else no bound, here or below (DualBound.value)
            self.dual = dual
        self.last_x = np.asarray(solution.col_value)
        return value, self.cells(self.last_x, box)

    def _solver(self) -> Any:
        """HiGHS with the program (minimising ``-cost``), made on first use."""
        if self._highs is not None:
            return self._highs
        import highspy
        from scipy.sparse import vstack

        rows = self.a_eq if self.a_ub is None else vstack([self.a_ub, self.a_eq]).tocsr()
        n_ub = 0 if self.b_ub is None else len(self.b_ub)
        lp = highspy.HighsLp()
        lp.num_col_, lp.num_row_ = rows.shape[1], rows.shape[0]
        lp.col_cost_ = -self.cost
        lp.col_lower_, lp.col_upper_ = np.zeros(len(self.cost)), np.ones(len(self.cost))
        n_eq = self.a_eq.shape[0]
        lp.row_lower_ = np.concatenate([np.full(n_ub, -highspy.kHighsInf), np.ones(n_eq)])
        lp.row_upper_ = np.concatenate([self.b_ub if n_ub else np.zeros(0), np.ones(n_eq)])
        lp.a_matrix_.format_ = highspy.MatrixFormat.kRowwise
        lp.a_matrix_.start_ = rows.indptr
        lp.a_matrix_.index_ = rows.indices
        lp.a_matrix_.value_ = rows.data
        highs = _new_highs()
        highs.setOptionValue("output_flag", False)
        highs.setOptionValue("threads", 1)
        highs.passModel(lp)
        self._highs = highs
        return highs


#: has this process made a HiGHS instance (the first prints a banner)?
_HIGHS_STARTED = False


def _new_highs() -> Any:
    """A ``highspy.Highs``.  The first of a process prints a banner on the C library's
    standard output, before any option can silence it: it is sent to the null device,
    out of this program's output (JSON records, for one)."""
    import highspy

    global _HIGHS_STARTED
    if _HIGHS_STARTED:
        return highspy.Highs()
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.close(null)
        highs = highspy.Highs()
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None).fflush(None)  # the banner may wait in the C library's buffer
    finally:
        os.dup2(saved, 1)
        os.close(saved)
    _HIGHS_STARTED = True
    return highs


class DualBound:
    """The value of one dual solution ``(y, w)`` of a :class:`Relaxation`, a bound on every
    box inside the relaxation's: weak duality holds for any multipliers, and a smaller box
    only fixes some of the program's variables (a leaf that does not meet it at 0, a cut
    outside it at 0 or 1, a group's cell left out at 0), so the bound of a box inside is
    this dual's value over the variables it leaves free (Neumaier and Shcherbina), computed
    with a margin for the floats' rounding (the matrices' entries are 0 or +-1 and ``b_ub``
    0 or 1, so the products are exact).

    Examples
    --------
    Inside the two trees' box (see the module), the cells ``[0, 1)`` leave the first tree
    its leaf worth 1 and the second its leaf worth 0:

    >>> import numpy as np
    >>> lo = np.array([[0], [1], [0], [2]]); hi = np.array([[1], [3], [2], [3]])
    >>> relax = Relaxation(np.array([1.0, 0, 0, 1]), np.array([0, 0, 1, 1]), lo, hi,
    ...                    (np.array([0]), np.array([3]), np.array([True])))
    >>> bound, _ = relax.bound()
    >>> meets = np.array([0, 2])  # the leaves of cells [0, 1), as columns
    >>> inside = relax.dual.value_inside(meets, (np.array([0]), np.array([1]), {}))
    >>> bool(inside >= 1.0 - 1e-9 and round(inside, 9) <= round(bound, 9))
    True
    """

    def __init__(self, relax: Relaxation, y: np.ndarray, w: np.ndarray) -> None:
        cost, b_ub = relax.cost, relax.b_ub
        eq_t, abs_eq_t, ub_t, abs_ub_t, terms_per_column = relax.transposed()
        reduced = cost - eq_t @ w
        size = abs(cost) + abs_eq_t @ abs(w)
        fixed_abs = fixed = 0.0
        if ub_t is not None and b_ub is not None:
            reduced -= ub_t @ y
            size += abs_ub_t @ y
            fixed = fixed_abs = float((y * b_ub).sum())
        #: per variable, its reduced cost raised by a bound on its rounding: |fl(r) - r| <=
        #: gamma_k * size for a sum of k terms; twice that, to cover size's own
        self.reduced = reduced + 2.0 * (terms_per_column + 2) * _UNIT * size
        self.constant = fixed + float(w.sum())
        self.constant_abs = fixed_abs + float(np.abs(w).sum())
        self.n_terms = len(reduced) + len(w) + (0 if b_ub is None else len(b_ub)) + 2
        self.relax = relax

    def value(self, lower: np.ndarray | None = None, upper: np.ndarray | None = None) -> float:
        """The bound over the relaxation's box, or over the variables' bounds ``lower``
        and ``upper`` (0 or 1 each; :meth:`Relaxation.column_bounds` of a box inside):
        each variable takes the end of its range where its reduced cost gains most."""
        if lower is None or upper is None:
            top = np.maximum(0.0, self.reduced)
        else:
            top = np.maximum(self.reduced * lower, self.reduced * upper)
        total = float(top.sum()) + self.constant
        magnitude = float(np.abs(top).sum()) + self.constant_abs
        value = total + 2.0 * self.n_terms * _UNIT * magnitude
        # a NaN compares False everywhere: it would prune as if it proved the question
        return value if math.isfinite(value) else math.inf

    def value_inside(self, columns: np.ndarray, box: Box) -> float:
        """The bound over a box inside the relaxation's, whose leaves are the relaxation's
        ``columns`` (positions): :meth:`value` over :meth:`Relaxation.column_bounds`,
        computed on those leaves and the cuts alone (a leaf left out is 0, a cut at or
        below the box's ``lo`` is 1, one at or above its ``hi`` 0)."""
        relax = self.relax
        n, n_z = relax.n_leaves, relax.n_z
        lo, hi, sets = box
        gain = np.maximum(0.0, self.reduced[columns])
        total = float(gain.sum())
        magnitude = total
        feature, cell = relax.z_keys
        r = self.reduced[n : n + n_z]
        free = np.where(cell >= hi[feature], 0.0, np.maximum(0.0, r))
        top = np.where(cell <= lo[feature], r, free)
        total += float(top.sum())
        magnitude += float(np.abs(top).sum())
        for i, k, start in relax.groups:
            kept = np.maximum(0.0, self.reduced[start : start + len(k)][sets[i][k]])
            total += float(kept.sum())
            magnitude += float(kept.sum())
        value = total + self.constant + 2.0 * self.n_terms * _UNIT * (magnitude + self.constant_abs)
        return value if math.isfinite(value) else math.inf


__all__ = ["DualBound", "Relaxation"]
