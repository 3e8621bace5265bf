"""The incremental oracle of tree-ensemble explanations: "with the features in ``S`` fixed to the
instance's values and the others free, can the ensemble predict another class?"

Every AXp, CXp, enumeration, membership and smallest-explanation query on an ensemble is a
sequence of such questions (:mod:`xpg.explain.ensemble.queries`).  The encoding follows Izza
and Marques-Silva (IJCAI 2021), over the cells of :class:`~xpg.explain.ensemble.space.CellSpace`:

* **Features.** An ordered feature with ``K`` cells has ``K - 1`` order variables ``o_r``
  ("the cell is below ``r``"), with ``o_r -> o_{r+1}``; a feature group has one variable per
  cell, exactly one true.  Cells are intersected with the declared domain beforehand, so
  every assignment is a value the feature can take.
* **Trees.** Per tree, a variable ``r_n`` per node reachable at all ("the input reaches
  ``n``"): the root is reached, ``r_n and L -> r_left``, ``r_n and not L -> r_right``, and a
  child is reached only through its parent and its literal ``L`` (an order variable, a cell
  variable or an auxiliary variable equal to a disjunction of cells).  A node whose path no
  value can follow (a domain bound, two thresholds around no integer) is left out, and a
  split with one possible side passes its parent's variable on.  Exactly one leaf per tree
  is reached.
* **Vote.** For each class ``c`` the prediction ``p`` must lose to, a Boolean ``b_c``
  implies "``c`` beats ``p``": the difference of their scores, a sum over the trees of the
  leaf reached's contribution, is ``>= 0`` (``c`` before ``p``: argmax takes the first
  largest), ``> 0`` (``c`` after ``p``); for binary boosting, the score is ``>= 0`` (``p = 0``)
  or ``< 0`` (``p = 1``).  Backend ``"pb"`` (route ``sat-pb``) states it as a
  pseudo-Boolean constraint in z3's SAT core with cardinality and pseudo-Boolean reasoning
  (logic ``QF_FD``), over a ladder of each tree's leaf weights (``_vote_pb``); backend
  ``"lra"`` (route ``smt-lra``) as a sum of exact rationals in linear real arithmetic.  The
  solver is asked about one class at a time, assuming its ``b_c``.
* **Fixing.** A selector ``s_i`` per feature implies that feature's instance cell; ``S`` is
  fixed by assuming the selectors of ``S``.  One solver lives as long as the oracle, and
  every question is one ``check`` under assumptions.

Exact means exactly the model's own ``predict``, which adds floats as scikit-learn does.  When
every contribution is a dyadic rational of small denominator and the sums stay far below
2**52 (forests with pure leaves, for example), the float sums are exact, the constraint
above is the model's function, and the pseudo-Boolean weights are those numbers scaled to
integers.  Otherwise the floats can differ from the exact sums by rounding, so the
constraint is relaxed by a bound ``eps`` on that rounding (``~n_trees**2 * 2**-50`` relative
to the largest possible score), and, for ``"pb"``, the weights are rounded to integers at a
scale near ``2**24`` with the rounding folded into the bound: either way an over-approximation.
Every input the solver proposes is then evaluated by the model's own floats (the trees
descend over the cells, :meth:`~xpg.explain.ensemble.space.CellLayout.leaf_indices`, and the
leaves' contributions are added in the model's order); one that keeps the prediction (only
near-ties can) has its combination of leaves blocked by a clause and the solver is asked
again (counterexample-guided refinement).  An answer "another class"
always comes with an input the model itself classifies otherwise, and "no other class" is
proved by the relaxed, hence sound, constraint.

Before the solver, cheap decisions (``shortcuts``): when the free features have few cell
combinations (at most ``EXHAUSTIVE_LIMIT``), all are evaluated (exact); an upper bound on each
score difference that lets every tree choose its best leaf independently among those the
fixed features allow rules out each class whose bound is negative; a greedy search from the
instance, one free feature at a time (all its cells scored at once from the leaf table),
often finds an input of another class; then each class
still open, likeliest first, goes to a branch and bound over the trees' leaves with a budget
(each branch fixes one tree's leaf and cuts the box of cells down to it), and only when that
does not decide, to the solver.  An AXp by deletion asks without the solver first and comes
back to the questions left open at the end (``check(..., solver=False)``).  A "no other
class" answer records the fixed features its proofs used
(:attr:`EnsembleOracle.last_core`: the solver's unsatisfiable cores, the features the bound
needs), which lets an AXp drop the others at once.

Examples
--------
>>> from sklearn.datasets import load_iris
>>> from sklearn.ensemble import RandomForestClassifier
>>> from xpg.models.ensemble import ensemble_from_sklearn
>>> X, y = load_iris(return_X_y=True)
>>> rf = RandomForestClassifier(n_estimators=10, max_depth=3, random_state=0).fit(X, y)
>>> space = CellSpace(ensemble_from_sklearn(rf), list(X[0]))
>>> with EnsembleOracle(space, shortcuts=False) as oracle:
...     oracle.check([0, 1, 2, 3]) is None, oracle.check([]) is None
(True, False)

References
----------
Izza, Marques-Silva. On Explaining Random Forests with SAT. IJCAI 2021 (the encoding);
Ignatiev, Izza, Stuckey, Marques-Silva. Using MaxSAT for Efficient Explanations of Tree
Ensembles. AAAI 2022 (boosted trees, score differences); Clarke et al.
Counterexample-guided abstraction refinement. CAV 2000; de Moura, Bjorner. Z3. TACAS 2008;
Chen, Zhang, Si, Li, Boning, Hsieh. Robustness Verification of Tree-based Models. NeurIPS
2019 and Devos, Meert, Davis. Versatile Verification of Tree Ensembles. ICML 2021 (searches
over the trees' leaves).
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from fractions import Fraction
from typing import Any, Literal, NamedTuple, get_args

import numpy as np

from xpg.errors import InvalidQueryError
from xpg.explain.ensemble.space import CellLayout, CellSpace
from xpg.explain.oracle_abc import OracleTimeout, Undecided
from xpg.solvers.lifecycle import SolverOwner

Backend = Literal["pb", "lra"]
BACKENDS: tuple[str, ...] = get_args(Backend)
#: the route names of the backends, as results report them
ROUTE_OF = {"pb": "sat-pb", "lra": "smt-lra"}
#: free cell combinations evaluated exhaustively (with ``shortcuts``) instead of a solver call
EXHAUSTIVE_LIMIT = 256
#: nodes the branch and bound may visit per class (with ``shortcuts``) before the solver decides
BNB_NODES = 20000
#: the largest integer weight of the ``"pb"`` backend's rounded mode, about
_PB_SCALE_BITS = 24


class _Pair:
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


class EnsembleOracle(SolverOwner):
    """Decide, for sets ``S`` of fixed features, whether another class is possible (use it as
    a context manager; it owns a z3 solver, made on first need).

    Parameters
    ----------
    space : CellSpace
        The model, the instance and the cells.
    backend : {"pb", "lra"}
        The solver's statement of the vote (see the module docstring).
    shortcuts : bool
        Decide first by exhaustive evaluation, the independent-tree bound and the greedy
        search when they can; False sends every question to the solver (for testing the
        encoding).
    exhaustive_limit : int
        The most free cell combinations evaluated exhaustively.
    bnb_nodes : int
        The most nodes the branch and bound visits per class before the solver decides.

    Attributes
    ----------
    prediction : int
        The index of the instance's class in ``model.classes``.
    calls, solver_calls, refinements : int
        Questions asked, those the solver answered, and the leaf combinations blocked
        because the model's own floats disagreed with the relaxed constraint.
    """

    closed_message = "this EnsembleOracle is closed"

    def __init__(
        self,
        space: CellSpace,
        backend: Backend = "pb",
        *,
        shortcuts: bool = True,
        exhaustive_limit: int = EXHAUSTIVE_LIMIT,
        bnb_nodes: int = BNB_NODES,
    ) -> None:
        if backend not in BACKENDS:
            raise InvalidQueryError(
                f"backend: expected one of {', '.join(BACKENDS)}, found {backend!r}"
            )
        self.space = space
        self.model = space.model
        self.backend = backend
        self.shortcuts = shortcuts
        self.exhaustive_limit = exhaustive_limit if shortcuts else 0
        self.bnb_nodes = bnb_nodes
        #: a ``time.perf_counter()`` after which a check raises :class:`OracleTimeout`
        self.deadline: float | None = None
        #: after a check answered None by the bound, branch and bound or solver: the fixed
        #: features the proofs used (itself a weak AXp), else None
        self.last_core: list[int] | None = None
        self.n_features = len(space.features)
        base_row = space.rows(np.asarray([space.instance_cell]))
        self.prediction = self._class_index(self.model.predict_batch(base_row)[0])
        self.prediction_label = self.model.classes[self.prediction]
        self.calls = self.solver_calls = self.refinements = 0
        self._leaf_table()
        self._pairs = self._vote_pairs()
        self._solver: Any = None

    @property
    def exact_vote(self) -> bool:
        """True when the model's float sums are exact, so that the solver's vote constraint
        is the model's function itself (no input it proposes is ever refuted)."""
        return self._eps == 0.0

    def _release(self) -> None:
        if self._solver is not None:
            self._solver.reset()
        self._solver = None

    def _class_index(self, label: Any) -> int:
        for k, c in enumerate(self.model.classes):
            if c == label:
                return k
        raise InvalidQueryError(f"class {label!r} is not one of the model's classes")

    # -- the trees over the cells ----------------------------------------------------------------
    def _leaf_table(self) -> None:
        """The trees' leaves over the cells (built once per model, :func:`_leaves_of`), and
        per leaf the features whose instance cell its path excludes (for the bound)."""
        layout = self.space.layout
        if "leaves" not in layout.cache:
            layout.cache["leaves"] = _leaves_of(layout)
        leaves = layout.cache["leaves"]
        self._reach, self._alias, self._tree_start = leaves.reach, leaves.alias, leaves.start
        self._starts = np.asarray(leaves.start[:-1])  # for np.maximum.reduceat over the trees
        self._leaf_tree, self._leaf_node = leaves.tree, leaves.node
        self._box_lo, self._box_hi, self._box_sets = leaves.lo, leaves.hi, leaves.sets
        dis = leaves.lo < 0  # all False (cells are >= 0); filled per feature below
        for i, cell in enumerate(self.space.instance_cell):
            dis[:, i] = self._excludes(i, cell)
        self._dis = dis

    def _contributions(self) -> tuple[list[np.ndarray], np.ndarray]:
        """Per tree, the float each node adds to each score (as the model adds it), and the
        base scores; a forest's division by the number of trees is left out (it keeps the
        order of the scores)."""
        model = self.model
        if model.json_type == "forest":
            return [t.value for t in model.trees], np.zeros(model.n_scores)
        return [model.scale * t.value for t in model.trees], np.asarray(model.base)

    def _vote_pairs(self) -> list[_Pair]:
        contrib, base = self._contributions()
        cache = self.space.layout.cache
        if "weights" not in cache:  # once per model: every leaf's contribution, exactness
            cache["weights"] = self._leaf_weights(contrib, np.asarray(base, dtype=float))
        per_leaf, self._magnitude, self._exact_bits = cache["weights"]
        self._per_leaf, self._base = per_leaf, np.asarray(base, dtype=float)
        p = self.prediction
        specs: list[tuple[int, bool, np.ndarray, np.ndarray]] = []  # (class, strict, +col, -col)
        if self.model.decision == "sign":
            sign = 1 if p == 0 else -1  # p = 0 needs score >= 0, p = 1 needs score < 0
            specs.append((1 - p, p == 1, sign * per_leaf[:, 0], np.asarray([sign * base[0]])))
        else:
            for c in range(self.model.n_scores):
                if c != p:
                    diff = per_leaf[:, c] - per_leaf[:, p]
                    specs.append((c, c > p, diff, np.asarray([base[c] - base[p]])))
        n = len(self.model.trees)
        self._eps = (
            0.0 if self._exact_bits is not None else (n + 2) ** 2 * 2.0**-50 * self._magnitude
        )

        def exact_of(c: int) -> Callable[[], list[Fraction]]:
            if self.model.decision == "sign":
                sign = 1 if p == 0 else -1
                return lambda: [
                    sign * Fraction(float(contrib[t][nd][0])) for t, nd in self._leaves()
                ]
            return lambda: [
                Fraction(float(contrib[t][nd][c])) - Fraction(float(contrib[t][nd][p]))
                for t, nd in self._leaves()
            ]

        pairs = []
        for c, strict, u, const in specs:
            if self.model.decision == "sign":
                k = Fraction(float(const[0]))
            else:
                k = Fraction(float(base[c])) - Fraction(float(base[p]))
            pairs.append(_Pair(c, strict, u, exact_of(c), k))
        return pairs

    def _leaf_weights(
        self, contrib: list[np.ndarray], base: np.ndarray
    ) -> tuple[np.ndarray, float, int | None]:
        """Every leaf's contributions (a row per leaf of the leaf table), the largest possible
        score and, when the float sums are exact (every number a small dyadic rational), the
        bits that make every number an integer (:func:`_dyadic_bits`), else None."""
        per_leaf = np.stack([contrib[t][n] for t, n in self._leaves()])
        magnitude = float(np.abs(base).max(initial=0.0))
        for t in range(len(self.model.trees)):
            lo, hi = self._tree_start[t], self._tree_start[t + 1]
            magnitude += float(np.abs(per_leaf[lo:hi]).max(initial=0.0))
        numbers = np.concatenate([per_leaf.ravel(), base.ravel()])
        return per_leaf, magnitude, _dyadic_bits(numbers, magnitude)

    def _leaves(self) -> Iterable[tuple[int, int]]:
        return zip(self._leaf_tree.tolist(), self._leaf_node.tolist())

    # -- the question ------------------------------------------------------------------------
    def check(self, fixed: Iterable[int], *, solver: bool = True) -> np.ndarray | None:
        """With the features ``fixed`` (indices) at the instance's cells and the others free:
        one choice of cells (a witness) that the model classifies otherwise, or None when
        none exists; with ``solver=False``, :class:`Undecided` is raised instead of asking
        the solver."""
        self._check_open()
        self.calls += 1
        self.last_core = None
        mask = np.zeros(self.n_features, dtype=bool)
        mask[list(fixed)] = True
        free = np.flatnonzero(~mask)
        n_cells = self.space.n_cells
        free = free[[n_cells[i] > 1 for i in free.tolist()]] if len(free) else free
        if not len(free):
            return None
        combos = math.prod(n_cells[i] for i in free.tolist())
        if combos <= self.exhaustive_limit:
            return self._exhaustive(free)
        bounds = self._bounds(mask)
        order = sorted(range(len(self._pairs)), key=lambda q: -bounds[q])  # likeliest first
        open_pairs = [q for q in order if self._may_beat(bounds[q], self._pairs[q])]
        if not self.shortcuts:
            return self._decide(mask, order, [], solver)
        if not open_pairs:
            return self._decide(mask, [], order, solver)
        found = self._greedy(free)
        if found is not None:
            return found
        closed = [q for q in order if q not in open_pairs]
        return self._decide(mask, open_pairs, closed, solver)

    def check_cells(self, allowed: Sequence[Iterable[int] | None]) -> np.ndarray | None:
        """A choice of cells the model classifies otherwise, the cell of each feature ``i``
        among ``allowed[i]`` (None: any), or None when there is none (what an exact
        robustness search asks: the cells within a distance of the instance).  Each ordered
        feature's cells must be consecutive.  Few combinations are evaluated, more go to the
        solver, the cells bounded by assumptions on the order (or cell) variables.

        Raises
        ------
        InvalidQueryError
            For cells of an ordered feature that are not consecutive, or none at all.
        OracleTimeout
            Once :attr:`deadline` has passed.
        """
        import z3

        self._check_open()
        self.calls += 1
        self.last_core = None
        space = self.space
        options = []
        for i, cells in enumerate(allowed):
            k = space.n_cells[i]
            chosen = list(range(k)) if cells is None else sorted(set(cells))
            if not chosen or chosen[0] < 0 or chosen[-1] >= k:
                raise InvalidQueryError(f"feature {space.names[i]!r}: no cell among {cells!r}")
            if space.ordered[i] and chosen != list(range(chosen[0], chosen[-1] + 1)):
                raise InvalidQueryError(
                    f"feature {space.names[i]!r}: expected consecutive cells, found {chosen!r}"
                )
            options.append(chosen)
        if math.prod(len(c) for c in options) <= max(self.exhaustive_limit, 1):
            grid = np.array(list(itertools.product(*options)), dtype=np.int64)
            other = np.flatnonzero(self._others(grid))
            return grid[other[0]] if len(other) else None
        if self._solver is None:
            self._build()
        extra = []
        for i, chosen in enumerate(options):
            k = space.n_cells[i]
            if len(chosen) == k:
                continue
            if space.ordered[i]:  # o{i}_{r}: the cell is below r
                if chosen[0] >= 1:
                    extra.append(z3.Not(z3.Bool(f"o{i}_{chosen[0]}")))
                if chosen[-1] + 1 <= k - 1:
                    extra.append(z3.Bool(f"o{i}_{chosen[-1] + 1}"))
            else:
                extra += [z3.Not(z3.Bool(f"e{i}_{c}")) for c in range(k) if c not in chosen]
        nothing = np.zeros(self.n_features, dtype=bool)
        for q in range(len(self._pairs)):
            while True:
                decided, found, _ = self._solve_pair(nothing, q, None, extra)
                if decided:
                    break
            if found is not None:
                return found
        return None

    def _decide(
        self, mask: np.ndarray, open_pairs: list[int], closed: list[int], solver: bool
    ) -> np.ndarray | None:
        """Each pair of ``open_pairs`` in turn, by branch and bound (with ``shortcuts``),
        else by the solver (else :class:`Undecided`): the first witness, or None with
        :attr:`last_core` the fixed features the proofs used (``closed``: the pairs the
        bound already excludes).

        When the branch and bound does not decide within its budget, it and the solver take
        turns, each about as long as the other's last turn, the budget four times larger
        each round: either can be far faster than the other on a given question (the
        solver keeps what it learned from one turn to the next)."""
        fixed = np.flatnonzero(mask).tolist()
        core: set[int] = set()
        for q in open_pairs:
            budget, seconds = self.bnb_nodes, None
            while True:
                if self.shortcuts:
                    start = time.perf_counter()
                    decided, found = self._pair_branch_and_bound(mask, q, budget)
                    if decided:
                        used = fixed
                        break
                    if not solver:
                        raise Undecided
                    budget, seconds = max(4 * budget, 256), time.perf_counter() - start
                decided, found, used = self._solve_pair(mask, q, seconds)
                if decided:
                    break
            if found is not None:
                return found
            core.update(used)
        for q in closed:
            core.update(self._bound_core(mask, q))
        self.last_core = sorted(core)
        return None

    def witness_values(self, cells: np.ndarray) -> dict[str, Any]:
        """The explained features' values of a witness."""
        return self.space.values(cells.tolist())

    def _scores(self, cells: np.ndarray) -> np.ndarray:
        """Per row of cell choices, the model's score vector (its own floats, in its order)."""
        return self.model.scores_of_leaves(self.space.layout.leaf_indices(cells))

    def _others(self, cells: np.ndarray) -> np.ndarray:
        """Per row of cell choices: does the model predict another class?"""
        return self.model.classes_of_scores(self._scores(cells)) != self.prediction

    def _exhaustive(self, free: np.ndarray) -> np.ndarray | None:
        sizes = [self.space.n_cells[i] for i in free.tolist()]
        grid = np.array(list(itertools.product(*[range(k) for k in sizes])), dtype=np.int64)
        cells = np.tile(np.asarray(self.space.instance_cell, dtype=np.int64), (len(grid), 1))
        cells[:, free] = grid
        other = np.flatnonzero(self._others(cells))
        return cells[other[0]] if len(other) else None

    def _may_beat(self, bound: float, pair: _Pair) -> bool:
        """Can a sum whose upper bound is ``bound`` make ``pair``'s class beat the prediction?"""
        if self._eps == 0.0:
            return bound > 0 or (bound == 0 and not pair.strict)
        return bound >= -2 * self._eps

    def _branch_and_bound(self, fixed: np.ndarray, budget: int) -> tuple[bool, np.ndarray | None]:
        """:meth:`_pair_branch_and_bound` over every pair in turn: (decided, witness)."""
        for q in range(len(self._pairs)):
            decided, found = self._pair_branch_and_bound(fixed, q, budget)
            if not decided or found is not None:
                return decided, found
        return True, None

    def _pair_branch_and_bound(
        self, fixed: np.ndarray, q: int, budget: int
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
        decides).
        """
        pair = self._pairs[q]
        inst = np.asarray(self.space.instance_cell, dtype=np.int64)
        k = np.asarray(self.space.n_cells, dtype=np.int64)
        box_lo, box_hi, box_sets = self._box_lo, self._box_hi, self._box_sets
        root = (
            np.flatnonzero(~self._dis[:, fixed].any(axis=1)),
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
                if not self._may_beat(rest + float(pair.u[leaf]), pair):
                    return
                nlo, nhi = np.maximum(lo, box_lo[leaf]), np.minimum(hi, box_hi[leaf])
                # a leaf meets the smaller box when it meets the old one and, on each
                # ordered feature, the branching leaf's box: three intervals that meet
                # pairwise share a point (cell sets need the new set itself)
                sub = idx[self._meets(leaf)[idx]]
                nsets = {}
                for i, cur in sets.items():
                    nsets[i] = cur & box_sets[i][leaf]
                    if not np.array_equal(nsets[i], cur):
                        sub = sub[(box_sets[i][sub] & nsets[i]).any(axis=1)]
                yield sub, nlo, nhi, nsets

        first_leaf, const = self._starts, float(pair.const)
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
                self._check_deadline()
            idx, lo, hi, sets = node
            u = pair.u[idx]
            # every tree keeps a leaf meeting the box: its first one in idx starts its segment
            starts = np.searchsorted(idx, first_leaf)
            top = np.maximum.reduceat(u, starts)
            bound = float(top.sum()) + const
            if not self._may_beat(bound, pair):
                continue
            ends = np.empty_like(starts)
            ends[:-1], ends[-1] = starts[1:], len(idx)
            spread = top - np.minimum.reduceat(u, starts)
            j = int(np.argmax(np.where(spread > 0, spread / (ends - starts), -1.0)))
            if spread[j] <= 0:  # every point of the box scores the bound
                cells = lo.copy()
                for i, cur in sets.items():
                    cells[i] = int(np.argmax(cur))
                if self._others(cells[None, :])[0]:
                    return True, cells
                j = int(np.argmax(ends - starts))
                if ends[j] - starts[j] == 1:
                    continue  # one leaf per tree: the model's floats decided the whole box
            stack.append(children(node, idx[starts[j] : ends[j]], bound - float(top[j])))
        return True, None

    def _meets(self, leaf: int) -> np.ndarray:
        """Per leaf of the table: does its box meet ``leaf``'s on every ordered feature?
        (Rows kept with the model while they fit in about 256 MB.)"""
        rows = self.space.layout.cache.setdefault("meets", {})
        row = rows.get(leaf)
        if row is None:
            row = ((self._box_lo < self._box_hi[leaf]) & (self._box_hi > self._box_lo[leaf])).all(
                axis=1
            )
            if (len(rows) + 1) * len(row) <= 2**28:
                rows[leaf] = row
        return row

    def _bound(self, pair: _Pair, reach: np.ndarray) -> float:
        """An upper bound on ``pair``'s score difference: every tree free to choose its best
        leaf among those ``reach`` marks."""
        best = np.maximum.reduceat(np.where(reach, pair.u, -np.inf), self._starts)
        return float(best.sum()) + float(pair.const)

    def _bounds(self, fixed: np.ndarray) -> list[float]:
        """Per pair, :meth:`_bound` over the leaves the fixed features allow."""
        reach = ~self._dis[:, fixed].any(axis=1)
        return [self._bound(pair, reach) for pair in self._pairs]

    def _bound_core(self, fixed: np.ndarray, q: int) -> list[int]:
        """The fixed features the bound's proof that pair ``q``'s class cannot win uses: each
        in turn is freed unless the bound then allows the class."""
        pair = self._pairs[q]
        count = self._dis[:, fixed].sum(axis=1)  # per leaf, the fixed features excluding it
        used = []
        for i in np.flatnonzero(fixed).tolist():
            trial = count - self._dis[:, i]
            if self._may_beat(self._bound(pair, trial == 0), pair):
                used.append(i)
            else:
                count = trial
        return used

    def deletion_order(self, fixed: list[int]) -> list[int]:
        """``fixed`` in the order an AXp by deletion tries to free them: least effect on the
        independent-tree bound first, so that the features that matter most are tried last
        (then likelier kept, and the AXp's proofs have more margin)."""
        mask = np.zeros(self.n_features, dtype=bool)
        mask[fixed] = True
        count = self._dis[:, mask].sum(axis=1)  # per leaf, the fixed features excluding it
        rise = [
            max(self._bound(pair, (count - self._dis[:, i]) == 0) for pair in self._pairs)
            for i in fixed
        ]
        return [fixed[j] for j in np.argsort(rise, kind="stable").tolist()]

    def _margin(self, scores: np.ndarray) -> np.ndarray:
        """How far each row's best other class is from beating the prediction (larger:
        closer; the decision itself is the model's)."""
        p = self.prediction
        if self.model.decision == "sign":
            return scores[:, 0] if p == 0 else -scores[:, 0]
        others = np.delete(scores, p, axis=1)
        return others.max(axis=1) - scores[:, p]

    def _greedy(self, free: np.ndarray, passes: int = 2) -> np.ndarray | None:
        """Coordinate ascent from the instance on the margin of the best other class, one
        free feature at a time over all its cells; an input of another class, or None.

        The scores of every cell of feature ``i`` come from the leaf table: the leaves
        whose box holds the current input on every other feature are, per tree, the leaves
        reached as ``i`` varies, and each adds its contribution to the cells of its range
        (the model's own floats decide the input returned)."""
        current = np.asarray(self.space.instance_cell, dtype=np.int64).copy()
        missed = self._dis.copy()  # per leaf and feature: the box excludes the current cell
        count = missed.sum(axis=1)
        tolerance = 2 * self._eps
        best = -np.inf
        for _ in range(passes):
            improved = False
            for i in free.tolist():
                near = np.flatnonzero(count == missed[:, i])
                margin = self._margin(self._scores_along(i, near))
                j = int(np.argmax(margin))
                if margin[j] > best:
                    best, improved = float(margin[j]), True
                    current[i] = j
                    count -= missed[:, i]
                    missed[:, i] = self._excludes(i, j)
                    count += missed[:, i]
                if margin[j] >= -tolerance and self._others(current[None, :])[0]:
                    return current
            if not improved:
                break
        return None

    def _scores_along(self, i: int, leaves: np.ndarray) -> np.ndarray:
        """Per cell of feature ``i``, the sum of the contributions of ``leaves`` (one per
        tree at each cell) whose box holds it, plus the base scores."""
        values = self._per_leaf[leaves]
        k = self.space.n_cells[i]
        if i in self._box_sets:
            return self._box_sets[i][leaves].T.astype(float) @ values + self._base
        steps = np.zeros((k + 1, values.shape[1]))
        np.add.at(steps, self._box_lo[leaves, i], values)
        np.add.at(steps, self._box_hi[leaves, i], -values)
        return np.cumsum(steps[:k], axis=0) + self._base

    def _excludes(self, i: int, cell: int) -> np.ndarray:
        """Per leaf: does its box exclude ``cell`` of feature ``i``?"""
        if i in self._box_sets:
            return ~self._box_sets[i][:, cell]
        return (self._box_lo[:, i] > cell) | (self._box_hi[:, i] <= cell)

    # -- the solver --------------------------------------------------------------------------
    def _check_deadline(self) -> float | None:
        """Seconds left before the deadline (None: no deadline); raise once it has passed."""
        if self.deadline is None:
            return None
        left = self.deadline - time.perf_counter()
        if left <= 0:
            raise OracleTimeout
        return left

    def _solve_pair(
        self, fixed: np.ndarray, q: int, seconds: float | None = None, extra: Sequence[Any] = ()
    ) -> tuple[bool, np.ndarray | None, list[int]]:
        """Ask the solver whether pair ``q``'s class can beat the prediction, for at most
        ``seconds`` (None: no limit but the deadline), under the ``extra`` assumptions too:
        (True, a witness, []), (True, None, the fixed features of the unsatisfiable core), or
        (False, None, []) when the time ran out.  One vote constraint per question: the
        solver refutes it much faster than a disjunction of them."""
        import z3

        if self._solver is None:
            self._build()
        s = self._solver
        assumptions = [self._sel[i] for i in np.flatnonzero(fixed).tolist()]
        until = None if seconds is None else time.perf_counter() + seconds
        while True:
            self.solver_calls += 1
            left = self._check_deadline()
            turn = None if until is None else until - time.perf_counter()
            limits = [t for t in (left, turn) if t is not None]
            s.set("timeout", max(1, int(min(limits) * 1000)) if limits else 4294967295)
            answer = s.check(*assumptions, *extra, self._beats_literal(q))
            if answer == z3.unsat:
                core = {str(a) for a in s.unsat_core()}
                return True, None, [i for i in range(self.n_features) if f"s{i}" in core]
            if answer == z3.unknown and limits and s.reason_unknown() in ("timeout", "canceled"):
                if turn is None or (left is not None and left <= turn):
                    # z3's timer ran the time left out (in whole milliseconds, so possibly
                    # a little before the deadline itself)
                    raise OracleTimeout
                return False, None, []
            if answer != z3.sat:
                raise InvalidQueryError(f"the z3 solver answered {answer}: {s.reason_unknown()}")
            cells = self._decode(s.model())
            if self._others(cells[None, :])[0]:
                return True, cells, []
            # a near-tie the relaxed constraint admits but the model's floats do not
            self.refinements += 1
            s.add(z3.Or([z3.Not(v) for v in self._leaf_vars(cells)]))

    def _decode(self, model: Any) -> np.ndarray:
        import z3

        cells = np.asarray(self.space.instance_cell, dtype=np.int64).copy()
        for i, names in enumerate(self._feature_vars):
            if not names:
                continue
            values = [z3.is_true(model.eval(z3.Bool(v), model_completion=True)) for v in names]
            if self.space.ordered[i]:
                cells[i] = values.count(False)  # o_r false for every r <= cell
            else:
                cells[i] = values.index(True)
        return cells

    def _leaf_vars(self, cells: np.ndarray) -> list[Any]:
        import z3

        out = []
        space = self.space
        for t, tree in enumerate(self.model.trees):
            feat, left = space.splits[t]
            n = 0
            while tree.left[n] >= 0:
                lc = left[n]
                assert lc is not None
                goes_left = space.goes_left(int(feat[n]), lc, int(cells[feat[n]]))
                n = int(tree.left[n] if goes_left else tree.right[n])
            out.append(z3.Bool(self._node_name(t, n)))
        return out

    def _node_name(self, t: int, n: int) -> str:
        return f"r{t}_{self._alias[t].get(n, n)}"

    def _build(self) -> None:
        """The SMT-LIB text of the encoding, parsed once by z3 (much faster than building the
        terms one by one through the Python API)."""
        import z3

        space = self.space
        decl: list[str] = []
        body: list[str] = []
        self._feature_vars: list[list[str]] = []
        literal: dict[tuple[int, Any], str] = {}
        for i, k in enumerate(space.n_cells):
            inst = space.instance_cell[i]
            decl.append(f"(declare-const s{i} Bool)")
            names: list[str] = []
            if k > 1 and space.ordered[i]:
                names = [f"o{i}_{r}" for r in range(1, k)]
                decl += [f"(declare-const {v} Bool)" for v in names]
                body += [f"(assert (or (not {a}) {b}))" for a, b in zip(names, names[1:])]
                if inst + 1 <= k - 1:
                    body.append(f"(assert (or (not s{i}) o{i}_{inst + 1}))")
                if inst >= 1:
                    body.append(f"(assert (or (not s{i}) (not o{i}_{inst})))")
            elif k > 1:
                names = [f"e{i}_{c}" for c in range(k)]
                decl += [f"(declare-const {v} Bool)" for v in names]
                body.append(f"(assert (or {' '.join(names)}))")
                body.append(f"(assert ((_ at-most 1) {' '.join(names)}))")
                body.append(f"(assert (or (not s{i}) e{i}_{inst}))")
            self._feature_vars.append(names)

        def lit(i: int, lc: Any) -> str:
            if isinstance(lc, int):
                return f"o{i}_{lc}"
            key = (i, lc)
            if key not in literal:
                name = f"a{len(literal)}"
                decl.append(f"(declare-const {name} Bool)")
                cells = " ".join(f"e{i}_{c}" for c in sorted(lc))
                body.append(f"(assert (= {name} (or {cells} false)))")
                literal[key] = name
            return literal[key]

        for t in range(len(self.model.trees)):
            feat, left = space.splits[t]
            decl.append(f"(declare-const r{t}_0 Bool)")
            body.append(f"(assert r{t}_0)")
            for child, via in self._reach[t].items():
                if via is None:
                    continue
                src, n, side = via
                L = lit(int(feat[n]), left[n])
                R, C = f"r{t}_{src}", f"r{t}_{child}"
                decl.append(f"(declare-const {C} Bool)")
                if side:
                    body.append(f"(assert (or (not {R}) (not {L}) {C}))(assert (or (not {C}) {L}))")
                else:
                    body.append(f"(assert (or (not {R}) {L} {C}))(assert (or (not {C}) (not {L})))")
                body.append(f"(assert (or (not {C}) {R}))")
        solver = z3.SolverFor("QF_FD") if self.backend == "pb" else z3.Solver()
        solver.from_string("\n".join(decl + body))
        self._sel = [z3.Bool(f"s{i}") for i in range(self.n_features)]
        self._leaf_names = [self._node_name(t, n) for t, n in self._leaves()]
        self._beats: dict[int, Any] = {}
        self._solver = solver

    def _beats_literal(self, q: int) -> Any:
        """``b_q``, its vote constraint given to the solver on first use (the classes a
        question never reaches cost nothing)."""
        import z3

        if q not in self._beats:
            decl = [f"(declare-const b{q} Bool)"]  # the solver knows the leaves already
            body: list[str] = []
            vote = self._vote(self._pairs[q], q, self._leaf_names, decl, body)
            body.append(f"(assert (=> b{q} {vote}))")
            self._solver.from_string("\n".join(decl + body))
            self._beats[q] = z3.Bool(f"b{q}")
        return self._beats[q]

    def _vote(
        self, pair: _Pair, q: int, leaf_names: list[str], decl: list[str], body: list[str]
    ) -> str:
        """``pair``'s constraint over the leaf variables, in SMT-LIB."""
        if self.backend == "pb":
            return self._vote_pb(pair, q, leaf_names, decl, body)
        terms = [f"(ite {v} {_real(w)} 0.0)" for v, w in zip(leaf_names, pair.u_exact) if w != 0]
        total = f"(+ {' '.join(terms)} {_real(pair.const)})"
        if self._eps == 0.0:
            return f"({'>' if pair.strict else '>='} {total} 0.0)"
        return f"(>= {total} {_real(-Fraction(self._eps))})"

    def _vote_pb(
        self, pair: _Pair, q: int, leaf_names: list[str], decl: list[str], body: list[str]
    ) -> str:
        """``pair``'s constraint as a pseudo-Boolean sum over per-tree ladders.

        Per tree, with ``w_0 < ... < w_m`` the distinct (integer) weights of its leaves, a
        rung ``y_k`` (``k >= 1``) means "the leaf reached weighs at least ``w_k``": a leaf of
        rank ``k`` implies ``y_k``, ``y_k`` implies ``y_{k-1}``, and ``y_k`` implies a leaf of
        rank ``k`` or ``y_{k+1}``.  The tree adds ``w_0 + sum((w_k - w_{k-1}) * y_k)``.  Over
        the rungs, the slack the solver propagates is the independent-tree bound of the
        leaves still reachable; over the leaves themselves it would count every heavy leaf of
        a tree at once (the solver does not know that one is reached), and refutations took
        up to 100 times longer.
        """
        weights, bound = self._integer_vote(pair)
        ws: list[str] = []
        ys: list[str] = []
        for t in range(len(self.model.trees)):
            lo, hi = self._tree_start[t], self._tree_start[t + 1]
            levels, rank = np.unique(weights[lo:hi], return_inverse=True)
            bound -= int(levels[0])
            at: list[list[str]] = [[] for _ in levels]
            for j, k in enumerate(rank.tolist()):
                at[k].append(leaf_names[lo + j])
            rungs = [f"y{q}_{t}_{k}" for k in range(len(levels))] + ["false"]
            for k in range(1, len(levels)):
                y = rungs[k]
                decl.append(f"(declare-const {y} Bool)")
                ws.append(str(int(levels[k] - levels[k - 1])))
                ys.append(y)
                body.append(f"(assert (or (not {y}) {' '.join(at[k])} {rungs[k + 1]}))")
                body += [f"(assert (or (not {v}) {y}))" for v in at[k]]
                if k > 1:
                    body.append(f"(assert (or (not {y}) {rungs[k - 1]}))")
        if not ys:
            return "true" if bound <= 0 else "false"
        return f"((_ pbge {bound} {' '.join(ws)}) {' '.join(ys)})"

    def _integer_vote(self, pair: _Pair) -> tuple[np.ndarray, int]:
        """Integer weights per leaf and a bound: ``sum(weights of the leaves reached) >=
        bound`` holds whenever ``pair``'s class beats the prediction (exactly when the sums
        are exact).

        Every score is scaled by a power of two (exact in floats) and rounded: when the sums
        are exact the scaled numbers are already integers; otherwise the scale puts the
        largest possible score near ``2**_PB_SCALE_BITS``, and the rounding (at most 1 per
        tree, two roundings of a half, and 1 for the constant) is folded into the bound with
        the float rounding ``eps``.
        """
        exact = self._exact_bits is not None
        bits = (
            self._exact_bits
            if self._exact_bits is not None
            else _PB_SCALE_BITS - max(0, math.frexp(self._magnitude)[1])
        )
        scale = 2.0**bits
        leaf = np.round(self._per_leaf * scale).astype(np.int64)
        base = np.round(self._base * scale).astype(np.int64)
        p = self.prediction
        if self.model.decision == "sign":
            sign = 1 if p == 0 else -1
            weights, const = sign * leaf[:, 0], sign * int(base[0])
        else:
            weights, const = leaf[:, pair.cls] - leaf[:, p], int(base[pair.cls] - base[p])
        if exact:
            return weights, -const + (1 if pair.strict else 0)
        slack = self._eps * scale + len(self.model.trees) + 1
        return weights, -const - math.ceil(slack)


class _Leaves(NamedTuple):
    """The leaves of every tree that some choice of cells reaches (see :func:`_leaves_of`)."""

    reach: list[dict[int, tuple[int, int, bool] | None]]
    alias: list[dict[int, int]]
    start: list[int]
    tree: np.ndarray
    node: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    sets: dict[int, np.ndarray]


def _leaves_of(layout: CellLayout) -> _Leaves:
    """Per tree, the nodes some choice of cells reaches: ``reach[t][n]`` is the reach of
    ``n``'s parent, the parent and the side (None at the root), and ``alias[t][n]`` the
    ancestor a node is reached with when its parent's split has one possible side; per leaf
    (trees in order, ``start[t]`` the first leaf of tree ``t``), its box: the cell range
    ``[lo, hi)`` of each ordered feature and the cell set of each group its path allows."""
    full = [(1 << k) - 1 for k in layout.n_cells]
    leaf_tree: list[int] = []
    leaf_node: list[int] = []
    leaf_allowed: list[dict[int, int]] = []
    reaches: list[dict[int, tuple[int, int, bool] | None]] = []
    aliases: list[dict[int, int]] = []
    tree_start = [0]
    for t, tree in enumerate(layout.model.trees):
        feat, left = layout.splits[t]
        reach: dict[int, tuple[int, int, bool] | None] = {0: None}
        alias: dict[int, int] = {}
        stack: list[tuple[int, dict[int, int]]] = [(0, {})]
        while stack:
            n, allowed = stack.pop()
            a, b = int(tree.left[n]), int(tree.right[n])
            if a < 0:
                leaf_tree.append(t)
                leaf_node.append(n)
                leaf_allowed.append(allowed)
                continue
            i = int(feat[n])
            lc = left[n]
            assert lc is not None
            lmask = (1 << lc) - 1 if isinstance(lc, int) else sum(1 << c for c in lc)
            here = allowed.get(i, full[i])
            go_l, go_r = here & lmask, here & ~lmask & full[i]
            src = alias.get(n, n)
            for child, mask, side in ((b, go_r, False), (a, go_l, True)):
                if not mask:
                    continue
                if mask == here:  # one possible side: the child is reached with its parent
                    alias[child] = src
                else:
                    reach[child] = (src, n, side)
                stack.append((child, {**allowed, i: mask}))
        reaches.append(reach)
        aliases.append(alias)
        tree_start.append(len(leaf_tree))
    n_leaves, n_features = len(leaf_node), len(layout.n_cells)
    lo = np.zeros((n_leaves, n_features), dtype=np.int64)
    hi = np.tile(np.asarray(layout.n_cells, dtype=np.int64), (n_leaves, 1))
    sets = {
        i: np.ones((n_leaves, k), dtype=bool)
        for i, k in enumerate(layout.n_cells)
        if not layout.ordered[i]
    }
    for row, allowed in enumerate(leaf_allowed):
        for i, m in allowed.items():
            if layout.ordered[i]:
                lo[row, i] = (m & -m).bit_length() - 1
                hi[row, i] = m.bit_length()
            else:
                sets[i][row] = [bool(m >> c & 1) for c in range(layout.n_cells[i])]
    return _Leaves(
        reaches,
        aliases,
        tree_start,
        np.asarray(leaf_tree, dtype=np.int64),
        np.asarray(leaf_node, dtype=np.int64),
        lo,
        hi,
        sets,
    )


def _real(x: Fraction) -> str:
    """An exact rational as an SMT-LIB real term."""
    num = f"(/ {abs(x.numerator)}.0 {x.denominator}.0)"
    return f"(- {num})" if x < 0 else num


def _dyadic_bits(numbers: np.ndarray, magnitude: float, max_bits: int = 30) -> int | None:
    """The smallest ``k`` with every number a multiple of ``2**-k`` and every possible sum
    exact in float64 (``magnitude * 2**k < 2**40``), or None."""
    for k in range(max_bits + 1):
        scaled = numbers * 2.0**k
        if np.all(scaled == np.round(scaled)):
            return k if magnitude * 2.0**k < 2.0**40 else None
    return None


__all__ = ["BACKENDS", "ROUTE_OF", "EnsembleOracle", "OracleTimeout", "Undecided"]
