"""The incremental oracle of tree-ensemble explanations: "with the features in ``S`` fixed to the
instance's values and the others free, can the ensemble predict another class?"

Every AXp, CXp, enumeration, membership and smallest-explanation query on an ensemble is a
sequence of such questions (:mod:`xpg.explain.ensemble.queries`), over the cells of
:class:`~xpg.explain.ensemble.space.CellSpace`.  :class:`EnsembleOracle` answers them with

* the trees' leaves over the cells (:mod:`~xpg.explain.ensemble.leaf_table`), built once per
  model;
* per class the prediction must lose to, "it beats the prediction" as a sum over the leaves
  (:mod:`~xpg.explain.ensemble.vote`);
* the decisions without a solver (:mod:`~xpg.explain.ensemble.leaf_search`);
* one z3 solver as long as the oracle lives, every question one ``check`` under assumptions
  (:mod:`~xpg.explain.ensemble.z3_encoding`, the encoding of Izza and Marques-Silva): backend
  ``"pb"`` (route ``sat-pb``) states the vote as a pseudo-Boolean constraint, ``"lra"``
  (route ``smt-lra``) in linear real arithmetic, and the solver is asked about one class at a
  time.

Exact means exactly the model's own ``predict``, which adds floats as scikit-learn does.  When
every contribution is a dyadic rational of small denominator and the sums stay far below
2**52 (forests with pure leaves, for example), the float sums are exact, the vote constraint
is the model's function, and the pseudo-Boolean weights are those numbers scaled to
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
combinations (at most ``costs.EXHAUSTIVE_LIMIT``), all are evaluated (exact); an upper bound on each
score difference that lets every tree choose its best leaf independently among those the
fixed features allow rules out each class whose bound is negative; a greedy search from the
instance, one free feature at a time (all its cells scored at once from the leaf table),
and then from each of the latest witnesses with the fixed features put back, often finds
an input of another class; then each class
still open, likeliest first, goes to a branch and bound with a budget (each branch cuts the
box of cells in two on a feature where the trees' best leaves disagree; past a first budget,
a linear relaxation's sound bound prunes and its points propose inputs), and only when
that does not decide, to the solver.  An AXp by deletion
asks without the solver first and comes back to the questions left open at the end
(``check(..., solver=False)``).  A "no other class" answer records the fixed features its
proofs used (:attr:`EnsembleOracle.last_core`: the solver's unsatisfiable cores, the
features the bound needs), which lets an AXp drop the others at once.

Examples
--------
>>> from xpg.models.ensemble_import import ensemble_from_sklearn
>>> from xpg.testing.ensembles import random_sklearn_ensemble
>>> boosted, features, points = random_sklearn_ensemble(0, "boosted", n_trees=10)
>>> space = CellSpace(ensemble_from_sklearn(boosted, features), list(points[0]))
>>> with EnsembleOracle(space, shortcuts=False) as oracle:
...     oracle.check([0, 1, 2]) is None, oracle.check([]) is None
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

import collections
import itertools
import math
import time
from collections.abc import Iterable, Sequence
from typing import Any, Literal, get_args

import numpy as np

import xpg.core.costs as costs
from xpg.errors import InvalidQueryError
from xpg.explain.ensemble.leaf_search import LeafSearch
from xpg.explain.ensemble.space import CellSpace
from xpg.explain.ensemble.vote import Vote
from xpg.explain.ensemble.z3_encoding import Z3Encoding
from xpg.explain.oracle_abc import CellOracle, OracleTimeout, Undecided, allowed_cells
from xpg.solvers.lifecycle import SolverOwner

Backend = Literal["pb", "lra"]
BACKENDS: tuple[str, ...] = get_args(Backend)
#: the route names of the backends, as results report them
ROUTE_OF = {"pb": "sat-pb", "lra": "smt-lra"}
#: the recent witnesses the greedy search starts from too
RECENT = 4


class EnsembleOracle(SolverOwner, CellOracle):
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
    exhaustive_limit : int, optional
        The most free cell combinations evaluated exhaustively (default
        :data:`xpg.core.costs.EXHAUSTIVE_LIMIT`).
    bnb_nodes : int, optional
        The most nodes the branch and bound visits per class before the solver decides
        (default :data:`xpg.core.costs.BNB_NODES`).

    Attributes
    ----------
    prediction : int
        The index of the instance's class in ``model.classes``.
    calls, solver_calls, refinements : int
        Questions asked, those the solver answered, and the leaf combinations blocked
        because the model's own floats disagreed with the relaxed constraint.
    """

    closed_message = "this EnsembleOracle is closed"
    #: an enumeration starts with CXps: one costs a fraction of an AXp here (an AXp's proofs
    #: are the hard questions), so that a budget that ends early still returns some
    axps_first = False

    def __init__(
        self,
        space: CellSpace,
        backend: Backend = "pb",
        *,
        shortcuts: bool = True,
        exhaustive_limit: int | None = None,
        bnb_nodes: int | None = None,
    ) -> None:
        if backend not in BACKENDS:
            raise InvalidQueryError(
                f"backend: expected one of {', '.join(BACKENDS)}, found {backend!r}"
            )
        self.space = space
        self.model = space.model
        self.backend = backend
        self.route = ROUTE_OF[backend]
        self.shortcuts = shortcuts
        if exhaustive_limit is None:
            exhaustive_limit = costs.EXHAUSTIVE_LIMIT
        self.exhaustive_limit = exhaustive_limit if shortcuts else 0
        self.bnb_nodes = costs.BNB_NODES if bnb_nodes is None else bnb_nodes
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
        self._vote = Vote(space, self.prediction)
        self._pairs = self._vote.pairs
        self._search = LeafSearch(self._vote)
        #: the latest witnesses, where the greedy search also starts (newest first)
        self._witnesses: collections.deque[np.ndarray] = collections.deque(maxlen=RECENT)
        self._encoding: Z3Encoding | None = None  # made on first need

    @property
    def exact_vote(self) -> bool:
        """True when the model's float sums are exact, so that the solver's vote constraint
        is the model's function itself (no input it proposes is ever refuted)."""
        return self._vote.exact

    def _release(self) -> None:
        if self._encoding is not None:
            self._encoding.reset()
        self._encoding = None

    def _class_index(self, label: Any) -> int:
        for k, c in enumerate(self.model.classes):
            if c == label:
                return k
        raise InvalidQueryError(f"class {label!r} is not one of the model's classes")

    def _z3(self) -> Z3Encoding:
        if self._encoding is None:
            self._encoding = Z3Encoding(self._vote, self.backend)
        return self._encoding

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
        bounds = self._search.bounds(mask)
        order = sorted(range(len(self._pairs)), key=lambda q: -bounds[q])  # likeliest first
        may_beat = self._vote.may_beat
        open_pairs = [q for q in order if may_beat(bounds[q], self._pairs[q])]
        if not self.shortcuts:
            return self._decide(mask, order, [], solver)
        if not open_pairs:
            return self._decide(mask, [], order, solver)
        found = self._climb(mask, free)
        if found is None:
            closed = [q for q in order if q not in open_pairs]
            found = self._decide(mask, open_pairs, closed, solver)
        if found is not None:
            self._witnesses.appendleft(found)
        return found

    def _climb(self, mask: np.ndarray, free: np.ndarray) -> np.ndarray | None:
        """The greedy search from the instance, then from each recent witness with the
        ``mask`` features put back to the instance's cells: the other class is often found
        again near where it was found last."""
        found = self._search.greedy(free)
        instance = np.asarray(self.space.instance_cell)
        for witness in self._witnesses:
            if found is not None:
                break
            start = np.where(mask, instance, witness)
            if (start != instance).any():
                found = self._search.greedy(free, start=start)
        return found

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
        self._check_open()
        self.calls += 1
        self.last_core = None
        space = self.space
        options = allowed_cells(space.names, space.n_cells, allowed)
        for i, chosen in enumerate(options):
            if space.ordered[i] and chosen != list(range(chosen[0], chosen[-1] + 1)):
                raise InvalidQueryError(
                    f"feature {space.names[i]!r}: expected consecutive cells, found {chosen!r}"
                )
        if math.prod(len(c) for c in options) <= max(self.exhaustive_limit, 1):
            grid = np.array(list(itertools.product(*options)), dtype=np.int64)
            other = np.flatnonzero(self._vote.others(grid))
            return grid[other[0]] if len(other) else None
        extra = self._z3().cell_assumptions(options)
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
        solver keeps what it learned from one turn to the next, and the branch and bound
        goes on where it stopped)."""
        fixed = np.flatnonzero(mask).tolist()
        core: set[int] = set()
        for q in open_pairs:
            budget, seconds = self.bnb_nodes, None
            while True:
                if self.shortcuts:
                    start = time.perf_counter()
                    decided, found = self._search.pair_branch_and_bound(
                        mask, q, budget, self._check_deadline
                    )
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
            core.update(self._search.bound_core(mask, q))
        self.last_core = sorted(core)
        return None

    def witness_values(self, cells: np.ndarray) -> dict[str, Any]:
        """The explained features' values of a witness."""
        return self.space.values(cells.tolist())

    def _exhaustive(self, free: np.ndarray) -> np.ndarray | None:
        sizes = [self.space.n_cells[i] for i in free.tolist()]
        grid = np.array(list(itertools.product(*[range(k) for k in sizes])), dtype=np.int64)
        cells = np.tile(np.asarray(self.space.instance_cell, dtype=np.int64), (len(grid), 1))
        cells[:, free] = grid
        other = np.flatnonzero(self._vote.others(cells))
        return cells[other[0]] if len(other) else None

    def deletion_order(self, fixed: list[int]) -> list[int]:
        """``fixed`` in the order an AXp by deletion tries to free them: least effect on the
        independent-tree bound first, so that the features that matter most are tried last
        (then likelier kept, and the AXp's proofs have more margin)."""
        return self._search.deletion_order(fixed)

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

        enc = self._z3()
        s = enc.solver
        assumptions = enc.selectors(fixed)
        until = None if seconds is None else time.perf_counter() + seconds
        while True:
            self.solver_calls += 1
            left = self._check_deadline()
            turn = None if until is None else until - time.perf_counter()
            limits = [t for t in (left, turn) if t is not None]
            s.set("timeout", max(1, int(min(limits) * 1000)) if limits else 4294967295)
            answer = s.check(*assumptions, *extra, enc.beats(q))
            if answer == z3.unsat:
                return True, None, enc.core_features(s.unsat_core())
            if answer == z3.unknown and limits and s.reason_unknown() in ("timeout", "canceled"):
                if turn is None or (left is not None and left <= turn):
                    # z3's timer ran the time left out (in whole milliseconds, so possibly
                    # a little before the deadline itself)
                    raise OracleTimeout
                return False, None, []
            if answer != z3.sat:
                raise InvalidQueryError(f"the z3 solver answered {answer}: {s.reason_unknown()}")
            cells = enc.decode(s.model())
            if self._vote.others(cells[None, :])[0]:
                return True, cells, []
            # a near-tie the relaxed constraint admits but the model's floats do not
            self.refinements += 1
            enc.block(cells)


__all__ = ["BACKENDS", "ROUTE_OF", "EnsembleOracle", "OracleTimeout", "Undecided"]
