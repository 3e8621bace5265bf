"""Enumerate every AXp and CXp with MARCO over one incremental SAT solver (Alg. 4).

The solver holds one variable per feature the graph tests (true: fixed, false:
free) and the blocking clauses found so far.  Every model it returns yields
exactly one new explanation: an AXp inside its fixed set when the prediction
cannot change, otherwise a CXp inside its free set.  On graphs small enough,
every CXp is first read off the graph in one pass (the minimal 0-edge variable
sets of the paths to 0-terminals, :func:`~xpg.explain.reach.zero_path_masks`); the AXps are
then their minimal hitting sets (hitting-set duality), computed by bit-mask dualization
(:func:`~xpg.explain.mask_families.minimal_hitting_masks`) without any SAT call while that stays
within a work budget; beyond it the CXps are blocked in the solver, and every SAT model
yields a new AXp, shrunk with bit operations.  python-sat is imported only when a SAT call
is needed.  Results stream out; a count or time budget stops the loop cleanly, and
``complete`` says whether the lists are whole.

Examples
--------
>>> from xpg.examples import and_xpg
>>> xg = and_xpg()  # a and b, for a = b = 1
>>> result = enumerate_explanations(xg)
>>> result.axps, sorted(result.cxps), result.complete
([('a', 'b')], [('a',), ('b',)], True)
>>> with Enumerator(xg, limit=1) as en:
...     first = list(en)
>>> len(first), en.complete
(1, False)

References
----------
Huang, Izza, Ignatiev, Marques-Silva. On Efficiently Explaining Graph-Based Classifiers.
KR 2021, Alg. 4; Liffiton et al. Fast, flexible MUS enumeration. Constraints 2016 (MARCO);
Ignatiev, Narodytska, Asher, Marques-Silva. From Contrastive to Abductive Explanations and
Back Again. AI*IA 2020 (AXps are the minimal hitting sets of the CXps).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

import xpg.core.costs as costs
from xpg.core.validation import Interval, Options, check_param
from xpg.core.xpgraph import ExplanationGraph
from xpg.errors import SolverClosedError
from xpg.explain.axp_cxp import delete_to_axp, shrink_weak_cxp
from xpg.explain.graph_oracle import as_oracle
from xpg.explain.mask_families import minimal_hitting_masks
from xpg.explain.oracle_abc import Oracle, OracleTimeout
from xpg.solvers.lifecycle import SolverOwner

if TYPE_CHECKING:
    import threading

ExplanationKind = Literal["axp", "cxp"]


# A NamedTuple and a plain class, not dataclasses: dataclasses would make ``xpg enum`` import
# inspect (a few milliseconds of start-up, more than enumerating a small graph)
class Explanation(NamedTuple):
    """One explanation: its kind and its features (names, in feature order)."""

    kind: ExplanationKind
    features: tuple[str, ...]


class EnumerationResult:
    """All explanations found, whether the lists are complete, and the time it took."""

    __slots__ = ("axps", "cxps", "complete", "seconds", "sat_calls")

    def __init__(
        self,
        axps: list[tuple[str, ...]] | None = None,
        cxps: list[tuple[str, ...]] | None = None,
        complete: bool = False,
        seconds: float = 0.0,
        sat_calls: int = 0,
    ) -> None:
        self.axps: list[tuple[str, ...]] = [] if axps is None else axps
        self.cxps: list[tuple[str, ...]] = [] if cxps is None else cxps
        self.complete = complete
        self.seconds = seconds
        self.sat_calls = sat_calls

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, EnumerationResult):
            return NotImplemented
        return self._values() == other._values()

    __hash__ = None  # type: ignore[assignment]  # mutable, as the dataclass it replaces

    def __repr__(self) -> str:
        shown = ", ".join(f"{n}={v!r}" for n, v in zip(self.__slots__, self._values()))
        return f"EnumerationResult({shown})"

    def to_json(self) -> dict[str, Any]:
        """The ``xpg enum --json`` document: names sorted inside each explanation."""
        return {
            "axps": [sorted(x) for x in self.axps],
            "cxps": [sorted(x) for x in self.cxps],
            "complete": self.complete,
            "seconds": self.seconds,
        }


def _checked_limit(limit: Any) -> int | None:
    """``limit``, a whole number of explanations from 1 up, or None (no limit)."""
    if limit is None:  # the common case, checked before the vocabulary's loop
        return None
    return check_param("limit", limit, Interval(int, 1, None), None)  # type: ignore[no-any-return]


def _checked_timeout(timeout: Any) -> float | None:
    """``timeout``, a finite number of seconds from 0 up, or None (no timeout)."""
    if timeout is None:
        return None
    return check_param("timeout", timeout, Interval(float, 0, None), None)  # type: ignore[no-any-return]


class Enumerator(SolverOwner):
    """MARCO enumeration as an iterator that owns its SAT solver (use it as a context manager).

    Parameters
    ----------
    target : ExplanationGraph or Oracle
        The decision explained (:class:`~xpg.explain.oracle_abc.Oracle`: any model).
    limit : int, optional
        Stop after this many explanations (AXps and CXps together).
    timeout : float, optional
        Stop after this many seconds; a SAT call in progress is interrupted, and so is an
        oracle question (as is one past a deadline the oracle already has: the earlier of
        the two holds, and the oracle's own is restored after).  One watchdog thread per
        enumeration interrupts the solver at the deadline; the interruption stays set, so
        that every later SAT call returns at once.
    solver : str
        A python-sat solver name.
    first : {"axp", "cxp"}, optional
        The kind the enumeration looks for first (its solver prefers fixing features for
        ``"axp"``, freeing them for ``"cxp"``); None: the cheaper kind for the oracle
        (:attr:`~xpg.explain.oracle_abc.Oracle.axps_first`: CXps on tree ensembles, where
        an AXp's proofs are the hard questions, so that a budget that ends early still
        returns some).  The kinds alternate as the blocking clauses decide.

    After iteration, ``complete`` is True exactly when every explanation was produced;
    ``axp_sets`` and ``cxp_sets`` hold the explanations as feature indices.  The solver is
    created at the first SAT call: an enumeration finished by dualization makes none
    (``sat_calls`` is 0).
    """

    closed_message = "this Enumerator is closed"

    def __init__(
        self,
        target: ExplanationGraph | Oracle,
        *,
        limit: int | None = None,
        timeout: float | None = None,
        solver: str = "m22",
        first: ExplanationKind | None = None,
    ) -> None:
        self.oracle = as_oracle(target, "Enumerator")
        first = check_param("first", first, Options(["axp", "cxp"]), None)
        self._axps_first = self.oracle.axps_first if first is None else first == "axp"
        self.limit = _checked_limit(limit)
        self.timeout = _checked_timeout(timeout)
        self.complete = False
        self.sat_calls = 0
        self.axps: list[tuple[str, ...]] = []
        self.cxps: list[tuple[str, ...]] = []
        self.axp_sets: list[list[int]] = []
        self.cxp_sets: list[list[int]] = []
        self.seconds = 0.0
        self._tested = self.oracle.tested()
        # Every CXp as a bit mask up front when the oracle lists them cheaply (small graphs):
        # then AXps are shrunk with integer operations instead of oracle questions.
        self._cxp_masks = self.oracle.cxp_masks()
        self._solver_name = solver
        self._solver: Any = None  # made by the first SAT call (:meth:`_sat`)
        self._blocked: list[list[int]] = []  # the blocking clauses, for a solver made late
        self._started = False
        self._last = 0  # the bit mask of the last explanation recorded
        self._watchdog: threading.Timer | None = None
        # the watchdog never interrupts a deleted solver; without a timeout there is none
        self._lock: AbstractContextManager[Any] = nullcontext()
        if timeout is not None:
            import threading

            self._lock = threading.Lock()
        self._interrupted = False

    def _release(self) -> None:
        self._stop_watchdog()
        with self._lock:
            if self._solver is not None:
                self._solver.delete()
            self._solver = None

    def _sat(self) -> Any:
        """The solver, made on first use with every blocking clause recorded so far."""
        if self._solver is None:
            solver = _new_solver(self._solver_name)
            if self._tested:  # declare variables 1..max, so that every model mentions them all
                top = self._tested[-1] + 1
                solver.add_clause([top, -top])
                if self._axps_first:
                    solver.set_phases([v + 1 for v in self._tested])
            for clause in self._blocked:
                solver.add_clause(clause)
            with self._lock:
                self._solver = solver
                if self._interrupted:  # the deadline passed before the solver existed
                    solver.interrupt()
        return self._solver

    def _start_watchdog(self, seconds: float) -> None:
        import threading

        self._watchdog = threading.Timer(max(0.0, seconds), self._interrupt)
        self._watchdog.daemon = True
        self._watchdog.start()

    def _stop_watchdog(self) -> None:
        if self._watchdog is not None:
            self._watchdog.cancel()
            self._watchdog = None

    def _interrupt(self) -> None:
        with self._lock:
            self._interrupted = True
            if self._solver is not None:
                self._solver.interrupt()

    def result(self) -> EnumerationResult:
        """What was found so far, whether the lists are complete, the time and the SAT calls."""
        return EnumerationResult(self.axps, self.cxps, self.complete, self.seconds, self.sat_calls)

    def _solve(self, deadline: float | None) -> bool | None:
        """The next SAT answer, or None once the watchdog has interrupted the solver (the
        interruption is never cleared: every later call returns None too)."""
        self.sat_calls += 1
        solver = self._sat()
        if deadline is None:
            return bool(solver.solve())
        out: bool | None = solver.solve_limited(expect_interrupt=True)
        return out

    def _out_of_budget(self, deadline: float | None) -> bool:
        if self.limit is not None and len(self.axps) + len(self.cxps) >= self.limit:
            return True
        return deadline is not None and time.perf_counter() >= deadline

    def _record(self, kind: ExplanationKind, chosen: list[int]) -> Explanation:
        """Block ``chosen`` in the solver and keep it: an AXp must not stay fixed again, a CXp
        must not be free again."""
        names = self.oracle.names
        found = Explanation(kind, tuple([names[v] for v in chosen]))
        self._last = sum(1 << v for v in chosen)
        if kind == "axp":
            clause = [-(v + 1) for v in chosen]
            self.axps.append(found.features)
            self.axp_sets.append(chosen)
        else:
            clause = [v + 1 for v in chosen]
            self.cxps.append(found.features)
            self.cxp_sets.append(chosen)
        self._blocked.append(clause)
        if self._solver is not None:
            self._solver.add_clause(clause)
        return found

    def __iter__(self) -> Iterator[Explanation]:
        self._check_open()
        if self._started:
            raise SolverClosedError("an Enumerator can be iterated only once")
        self._started = True
        start = time.perf_counter()
        deadline = None if self.timeout is None else start + self.timeout
        oracle = self.oracle
        outer = oracle.deadline
        if outer is not None and (deadline is None or outer < deadline):
            deadline = outer
        oracle.deadline = deadline
        if deadline is not None:
            self._start_watchdog(deadline - start)
        try:
            tested, masks = self._tested, self._cxp_masks
            by_var: list[list[int]] = [[] for _ in range(self.oracle.n_features)]
            if masks is not None:
                # Every CXp is known: report and block each, so that every SAT model left
                # is a weak AXp (its fixed set meets every CXp) and yields a new AXp.
                for c in masks:
                    if self._out_of_budget(deadline):
                        return
                    chosen = [v for v in tested if c >> v & 1]
                    _index_mask(by_var, c)
                    self.seconds = time.perf_counter() - start
                    yield self._record("cxp", chosen)
                work = costs.DUAL_WORK
                if deadline is not None:  # within the time left, or the SAT loop stops it
                    left = deadline - time.perf_counter()
                    work = min(work, max(0, int(left * costs.DUAL_WORK_PER_SECOND)))
                axps = minimal_hitting_masks(masks, max_work=work)
                if axps is not None:  # every AXp, without a SAT call
                    for a in axps:
                        if self._out_of_budget(deadline):
                            return
                        self.seconds = time.perf_counter() - start
                        yield self._record("axp", [v for v in tested if a >> v & 1])
                    # as the SAT loop: a budget used up exactly leaves the lists unconfirmed
                    self.complete = not self._out_of_budget(deadline)
                    return
            budgeted = self.limit is not None or deadline is not None
            while True:
                if budgeted and self._out_of_budget(deadline):
                    return
                outcome = self._solve(deadline)
                if outcome is None:
                    return
                if not outcome:
                    self.complete = True
                    return
                model = self._solver.get_model()
                if masks is not None:
                    found = self._record("axp", _axp_by_masks(model, tested, by_var))
                else:
                    found = self._record(*self._classify(model, by_var))
                    if found.kind == "cxp":
                        _index_mask(by_var, self._last)
                self.seconds = time.perf_counter() - start
                yield found
        except OracleTimeout:
            return
        finally:
            oracle.deadline = outer
            self._stop_watchdog()
            self.seconds = time.perf_counter() - start

    def _classify(
        self, model: list[int], cxps_by_var: list[list[int]]
    ) -> tuple[ExplanationKind, list[int]]:
        """A SAT model (positive: fixed) -> a new AXp inside its fixed set when the prediction
        cannot change, else a new CXp inside its free set (Algs. 2 and 3); the CXps found so
        far spare the AXp's deletion the questions that would fail
        (:func:`~xpg.explain.axp_cxp.delete_to_axp`)."""
        oracle, tested = self.oracle, self._tested
        witness = oracle.check_free([v for v in tested if model[v] < 0])
        if witness is None:
            fixed = [v for v in tested if model[v] > 0]
            return "axp", delete_to_axp(oracle, fixed, cxps_by_var, proven=True)
        return "cxp", shrink_weak_cxp(oracle, oracle.changed(witness))


def _new_solver(name: str) -> Any:
    """A python-sat solver; MiniSat 2.2 is built directly (``Solver(name=...)`` costs more than
    a whole enumeration on a small graph)."""
    from pysat.solvers import Minisat22, Solver, SolverNames

    if name.lower() in SolverNames.minisat22:
        return Minisat22()
    return Solver(name=name)


def _index_mask(by_var: list[list[int]], mask: int) -> None:
    """File the explanation ``mask`` under each of its variables."""
    rest, v = mask, 0
    while rest:
        if rest & 1:
            by_var[v].append(mask)
        rest >>= 1
        v += 1


def _axp_by_masks(model: list[int], tested: list[int], by_var: list[list[int]]) -> list[int]:
    """The fixed set of a SAT model, which meets every CXp, shrunk by deletion to a minimal
    set meeting every CXp (an AXp: AXps are the minimal hitting sets of the CXps)."""
    fixed = 0
    for v in tested:
        if model[v] > 0:
            fixed |= 1 << v
    kept = []
    for v in tested:
        bit = 1 << v
        if fixed & bit:
            rest = fixed ^ bit
            for c in by_var[v]:
                if not c & rest:  # v is the only fixed feature of this CXp: v must stay fixed
                    kept.append(v)
                    break
            else:
                fixed = rest
    return kept


def enumerate_explanations(
    target: ExplanationGraph | Oracle,
    *,
    limit: int | None = None,
    timeout: float | None = None,
    solver: str = "m22",
    first: ExplanationKind | None = None,
) -> EnumerationResult:
    """Every AXp and CXp (within the budget), as an :class:`EnumerationResult`; ``first``
    as for :class:`Enumerator`."""
    oracle = as_oracle(target, "enumerate_explanations")
    with Enumerator(oracle, limit=limit, timeout=timeout, solver=solver, first=first) as en:
        for _ in en:
            pass
        return en.result()
