"""Exact explanations of a decision list without compiling it: a SAT oracle over the list.

The decision graph of a long list can be exponentially larger than the list
(:func:`~xpg.models.decision_list.compile_decision_list` gives up beyond its budget), but the
question every explanation query asks, "with the features of ``S`` fixed to the instance's
values, can another class be predicted?", has a SAT encoding as small as the list
(:class:`DecisionListOracle`, an :class:`~xpg.explain.oracle_abc.Oracle`), and the
algorithms of every model (deletion, MARCO, implicit hitting sets) run over it unchanged
(``xpg.Explainer(model)`` takes it beyond the compile budget, or with ``route="sat"``;
route ``"list-sat"``).

The encoding, over the *cells* of each feature (the classes of values no rule condition tells
apart, :func:`~xpg.core.valuesets.feature_cells`):

* a Boolean ``x[i, j]`` per cell ``j`` of feature ``i``, exactly one true per feature, and a
  selector ``s[i]`` implying the instance's cell (``S`` fixed: the selectors of ``S``
  assumed);
* per condition ``feature in A``, a Boolean equal to the disjunction of the cells inside
  ``A``; per rule, ``f[r]`` implied by the conjunction of its conditions;
* ``n[r]``, "no rule before ``r`` fires": ``n[r + 1]`` implies ``n[r]`` and not ``f[r]``;
  ``d[r]`` for each rule of another class than the prediction, implying ``n[r]`` and each
  condition of ``r`` (and ``d`` for the default, implying that no rule fires);
* one clause: some ``d``.

A model is an input of another class (the first rule that fires is ``r``), and every such input
gives a model, so the answers are exact; each witness is checked with the list's own
``predict``.  An unsatisfiable answer gives the fixed features in the solver's core
(:attr:`DecisionListOracle.last_core`), which lets an AXp by deletion drop the others at once.
One python-sat solver (Glucose 4) lives as long as the oracle; its size is linear in the
list's.

Examples
--------
>>> from xpg.core.features import Feature, Literal
>>> from xpg.models.decision_list import DecisionList, Rule
>>> feats = [Feature.integer("n", 0, 9), Feature.boolean("b"), Feature.boolean("c")]
>>> dl = DecisionList(feats, ["no", "yes"], [
...     Rule([Literal.gt("n", 4), Literal.eq("b", 1)], "yes"),
...     Rule([Literal.eq("c", 1)], "yes")], "no")
>>> from xpg.explain.engine import Explainer
>>> with Explainer(dl, route="sat").explain({"n": 7, "b": 1, "c": 0}) as ex:
...     ex.route, ex.prediction, ex.axp(), sorted(ex.enumerate().cxps)
('list-sat', 'yes', ('n', 'b'), [('b',), ('n',)])

References
----------
Rivest. Learning decision lists. Machine Learning 1987; Huang, Izza, Ignatiev, Marques-Silva.
On Efficiently Explaining Graph-Based Classifiers. KR 2021 (Algs. 2-4 over an oracle);
Ignatiev, Marques-Silva. SAT-based rigorous explanations for decision lists. SAT 2021;
Audemard, Simon. Predicting learnt clauses quality in modern SAT solvers. IJCAI 2009
(Glucose).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from xpg.core.features import ValueSet
from xpg.core.instances import instance_dict
from xpg.core.valuesets import as_value_set, feature_cells
from xpg.errors import VerificationError
from xpg.explain.oracle_abc import CellOracle, OracleTimeout
from xpg.explain.value_cells import ValueCells
from xpg.models.decision_list import DecisionList
from xpg.solvers.lifecycle import SolverOwner

#: the route of a decision list's oracle
ROUTE = "list-sat"


class ListSpace(ValueCells):
    """The cells of every feature of a decision list (from its rules' conditions; one cell,
    the domain, for a feature no rule tests) and the instance's (:class:`ValueCells`).

    Attributes
    ----------
    model : DecisionList

    Examples
    --------
    >>> from xpg.core.features import Feature, Literal
    >>> from xpg.models.decision_list import DecisionList, Rule
    >>> dl = DecisionList([Feature.integer("n", 0, 9)], [0, 1], [Rule([Literal.gt("n", 4)], 1)], 0)
    >>> space = ListSpace(dl, {"n": 7})
    >>> space.n_cells, space.instance_cell, space.values([0])
    ([2], [1], {'n': 4})
    """

    def __init__(self, model: DecisionList, instance: Mapping[str, Any] | Sequence[Any]) -> None:
        self.model = model
        features = list(model.features)
        sets: dict[str, set[ValueSet]] = {f.name: set() for f in features}
        by_name = {f.name: f for f in features}
        for rule in model.rules:
            for lit in rule.conditions:
                sets[lit.feature].add(as_value_set(by_name[lit.feature], lit))
        cells = [feature_cells(f, sets[f.name]) for f in features]
        super().__init__(features, cells, instance_dict(features, instance))

    def rows(self, cells: np.ndarray) -> np.ndarray:
        """The model's input rows (object array, values in feature order), one per row of
        ``cells``."""
        cells = np.asarray(cells, dtype=np.int64).reshape(-1, len(self.names))
        out = np.empty(cells.shape, dtype=object)
        for r, row in enumerate(cells.tolist()):
            out[r] = list(self.values(row).values())
        return out


class DecisionListOracle(SolverOwner, CellOracle):
    """Decide, for sets ``S`` of fixed features, whether a decision list can predict another
    class than the instance's (use it as a context manager: it owns a python-sat solver).

    Parameters
    ----------
    space : ListSpace
        The list, the instance and the cells.

    Attributes
    ----------
    prediction_label
        The list's class for the instance.
    calls, solver_calls : int
        Questions asked, and those the solver answered.
    deadline : float or None
        A ``time.perf_counter()`` after which a question raises
        :class:`~xpg.explain.ensemble.oracle.OracleTimeout` (a solver call running past it
        is interrupted).
    last_core : list of int or None
        After a question answered None: the fixed features the solver's proof used.
    """

    closed_message = "this DecisionListOracle is closed"

    def __init__(self, space: ListSpace) -> None:
        from pysat.card import CardEnc, EncType
        from pysat.formula import IDPool
        from pysat.solvers import Glucose4

        self.space = space
        self.model = space.model
        self.route = ROUTE
        self.n_features = len(space.names)
        self.prediction_label = self.model.predict(space.instance)
        self.calls = self.solver_calls = 0
        self.deadline: float | None = None
        self.last_core: list[int] | None = None
        pool = IDPool()
        clauses: list[list[int]] = []
        # cells: exactly one per feature; the selectors
        self._x: list[list[int]] = []
        self._sel: list[int] = []
        for i, k in enumerate(space.n_cells):
            xs = [pool.id(("x", i, j)) for j in range(k)] if k > 1 else []
            self._x.append(xs)
            self._sel.append(pool.id(("s", i)))
            if xs:
                clauses.append(xs)
                amo = CardEnc.atmost(xs, 1, vpool=pool, encoding=EncType.seqcounter)
                clauses += amo.clauses
                clauses.append([-self._sel[i], xs[space.instance_cell[i]]])
        self._var_feature = {s: i for i, s in enumerate(self._sel)}
        # conditions, rules, the first rule that fires
        index = {n: i for i, n in enumerate(space.names)}
        condition: dict[tuple[int, frozenset[int]], int] = {}

        def literal(i: int, inside: frozenset[int]) -> int:
            if len(inside) == 1:
                return self._x[i][next(iter(inside))]
            key = (i, inside)
            if key not in condition:
                v = condition[key] = pool.id(("c", i, inside))
                clauses.append([-v, *(self._x[i][j] for j in sorted(inside))])
                clauses.extend([-self._x[i][j], v] for j in sorted(inside))
            return condition[key]

        goal: list[int] = []
        reached = 0  # the variable "no rule so far fires" (0: true)
        default_reached = True  # False after a rule that always fires
        for r, rule in enumerate(self.model.rules):
            allowed: dict[int, set[int]] = {}
            for lit in rule.conditions:
                i = index[lit.feature]
                f = space.features[i]
                s = as_value_set(f, lit)
                inside = {j for j, cell in enumerate(space.cells[i]) if f.is_empty(cell - s)}
                allowed[i] = allowed[i] & inside if i in allowed else inside
            lits = [
                literal(i, frozenset(a))
                for i, a in sorted(allowed.items())
                if len(a) < space.n_cells[i]
            ]
            if rule.label != self.prediction_label:
                d = pool.id(("d", r))
                clauses += [[-d, v] for v in lits] + ([[-d, reached]] if reached else [])
                goal.append(d)
            if not lits:  # the rule always fires: no rule after it is reached
                default_reached = False
                break
            fires = pool.id(("f", r))
            clauses.append([fires, *(-v for v in lits)])
            after = pool.id(("n", r + 1))
            clauses += [[-after, -fires]] + ([[-after, reached]] if reached else [])
            reached = after
        if default_reached and self.model.default != self.prediction_label:
            d = pool.id(("d", "default"))
            clauses += [[-d, reached]] if reached else []
            goal.append(d)
        self._never = not goal  # no input of another class at all
        if goal:
            clauses.append(goal)
        self._solver = Glucose4(bootstrap_with=clauses)
        # search from the instance: witnesses then change few features
        self._solver.set_phases(
            [
                xs[j] if j == space.instance_cell[i] else -xs[j]
                for i, xs in enumerate(self._x)
                for j in range(len(xs))
            ]
        )
        self.n_vars = pool.top
        self.n_clauses = len(clauses)

    def _release(self) -> None:
        self._solver.delete()

    def check(self, fixed: Iterable[int], *, solver: bool = True) -> np.ndarray | None:
        """With the features ``fixed`` (indices) at the instance's cells and the others free:
        one choice of cells (a witness) that the list classifies otherwise, or None when none
        exists.  ``solver`` is accepted for the interface's sake (every question goes to
        the solver)."""
        fixed = sorted(set(fixed))
        return self._ask([self._sel[i] for i in fixed if self._x[i]])

    def check_cells(self, allowed: Sequence[Iterable[int] | None]) -> np.ndarray | None:
        """A witness of another class whose cell of each feature ``i`` is one of
        ``allowed[i]`` (None: any), or None when there is none.

        Examples
        --------
        >>> from xpg.core.features import Feature, Literal
        >>> from xpg.models.decision_list import DecisionList, Rule
        >>> dl = DecisionList([Feature.integer("n", 0, 9)], [0, 1],
        ...                   [Rule([Literal.gt("n", 4)], 1)], 0)
        >>> with DecisionListOracle(ListSpace(dl, {"n": 7})) as oracle:
        ...     oracle.check_cells([[1]]), oracle.check_cells([None]).tolist()
        (None, [0])
        """
        assumptions = []
        for i, cells in enumerate(allowed):
            if cells is not None and self._x[i]:
                keep = set(cells)
                assumptions += [-v for j, v in enumerate(self._x[i]) if j not in keep]
        return self._ask(assumptions)

    def _ask(self, assumptions: list[int]) -> np.ndarray | None:
        self._check_open()
        self.calls += 1
        self.last_core = None
        if self._never:
            self.last_core = []
            return None
        left = None if self.deadline is None else self.deadline - time.perf_counter()
        if left is not None and left <= 0:
            raise OracleTimeout
        self.solver_calls += 1
        s = self._solver
        if left is None:
            answer = s.solve(assumptions=assumptions)
        else:
            timer = threading.Timer(left, s.interrupt)
            timer.start()
            try:
                answer = s.solve_limited(assumptions=assumptions, expect_interrupt=True)
            finally:
                timer.cancel()
                s.clear_interrupt()
            if answer is None:
                raise OracleTimeout
        if not answer:
            core = set(s.get_core() or ())
            self.last_core = sorted(self._var_feature[v] for v in core if v in self._var_feature)
            return None
        true = set(v for v in s.get_model() if v > 0)
        cells = np.asarray(
            [next((j for j, v in enumerate(xs) if v in true), 0) for xs in self._x],
            dtype=np.int64,
        )
        values = self.space.values(cells.tolist())
        got = self.model.predict(values)
        if got == self.prediction_label:
            raise VerificationError(
                f"the SAT encoding of the decision list proposed {values} as an input of "
                f"another class, but the list predicts {got!r} for it"
            )
        return cells

    def deletion_order(self, fixed: list[int]) -> list[int]:
        """``fixed`` as given (feature order): the order an AXp by deletion frees them."""
        return list(fixed)

    def witness_values(self, cells: np.ndarray) -> dict[str, Any]:
        """The features' values of a witness."""
        return self.space.values(np.asarray(cells).tolist())


__all__ = ["ROUTE", "DecisionListOracle", "ListSpace"]
