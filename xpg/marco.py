"""Enumerate every AXp and CXp with MARCO over one incremental SAT solver (Alg. 4).

The solver holds one variable per feature the graph tests (true: fixed, false:
free) and the blocking clauses found so far.  Every model it returns yields
exactly one new explanation: an AXp inside its fixed set when the prediction
cannot change, otherwise a CXp inside its free set.  Results stream out; a count
or time budget stops the loop cleanly, and ``complete`` says whether the lists
are whole.

Examples
--------
>>> from xpg.io import read_xpg_text
>>> xg = read_xpg_text('''NN: 5
... Root: 1
... T: 3 4 5
... TDef:
... 3 0
... 4 1
... 5 0
... NT: 1 2
... NTDef:
... 1 3 0
... 1 2 1
... 2 4 1
... 2 5 0
... NV: 2
... VarDef:
... 1 a
... 2 b
... ''')
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
KR 2021, Alg. 4; Liffiton et al. Fast, flexible MUS enumeration. Constraints 2016 (MARCO).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from pysat.solvers import Solver

from xpg.errors import SolverClosedError
from xpg.explain import axp_from_fixed, shrink_weak_cxp
from xpg.reach import zero_edge_vars, zero_path
from xpg.xpgraph import ExplanationGraph

ExplanationKind = Literal["axp", "cxp"]


@dataclass(frozen=True)
class Explanation:
    """One explanation: its kind and its features (names, in feature order)."""

    kind: ExplanationKind
    features: tuple[str, ...]


@dataclass
class EnumerationResult:
    """All explanations found, whether the lists are complete, and the time it took."""

    axps: list[tuple[str, ...]] = field(default_factory=list)
    cxps: list[tuple[str, ...]] = field(default_factory=list)
    complete: bool = False
    seconds: float = 0.0
    sat_calls: int = 0

    def to_json(self) -> dict[str, Any]:
        """The ``xpg enum --json`` document: names sorted inside each explanation."""
        return {
            "axps": [sorted(x) for x in self.axps],
            "cxps": [sorted(x) for x in self.cxps],
            "complete": self.complete,
            "seconds": self.seconds,
        }


class Enumerator:
    """MARCO enumeration as an iterator that owns its SAT solver (use it as a context manager).

    Parameters
    ----------
    xg : ExplanationGraph
    limit : int, optional
        Stop after this many explanations (AXps and CXps together).
    timeout : float, optional
        Stop after this many seconds; a SAT call in progress is interrupted.
    solver : str
        A python-sat solver name.

    After iteration, ``complete`` is True exactly when every explanation was produced.
    """

    def __init__(
        self,
        xg: ExplanationGraph,
        *,
        limit: int | None = None,
        timeout: float | None = None,
        solver: str = "m22",
    ) -> None:
        self.xg = xg
        self.limit = limit
        self.timeout = timeout
        self.complete = False
        self.sat_calls = 0
        self.axps: list[tuple[str, ...]] = []
        self.cxps: list[tuple[str, ...]] = []
        self.seconds = 0.0
        self._tested = xg.tested_vars()
        self._solver: Solver | None = Solver(name=solver)
        # an unconstrained variable counts as fixed; declare them all so models mention them
        for v in self._tested:
            self._solver.add_clause([v + 1, -(v + 1)])
        self._started = False

    def __enter__(self) -> Enumerator:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Release the SAT solver."""
        if self._solver is not None:
            self._solver.delete()
            self._solver = None

    def _solve(self, deadline: float | None) -> bool | None:
        assert self._solver is not None
        self.sat_calls += 1
        if deadline is None:
            return bool(self._solver.solve())
        timer = threading.Timer(max(0.0, deadline - time.perf_counter()), self._solver.interrupt)
        timer.start()
        try:
            out = self._solver.solve_limited(expect_interrupt=True)
        finally:
            timer.cancel()
            self._solver.clear_interrupt()
        return out

    def __iter__(self) -> Iterator[Explanation]:
        if self._solver is None:
            raise SolverClosedError("this Enumerator is closed")
        if self._started:
            raise SolverClosedError("an Enumerator can be iterated only once")
        self._started = True
        start = time.perf_counter()
        deadline = None if self.timeout is None else start + self.timeout
        xg, solver = self.xg, self._solver
        try:
            while True:
                if self.limit is not None and len(self.axps) + len(self.cxps) >= self.limit:
                    return
                if deadline is not None and time.perf_counter() >= deadline:
                    return
                outcome = self._solve(deadline)
                if outcome is None:
                    return
                if not outcome:
                    self.complete = True
                    return
                positive = {lit for lit in solver.get_model() if lit > 0}
                fixed = [v for v in self._tested if v + 1 in positive]
                free = [v for v in self._tested if v + 1 not in positive]
                path = zero_path(xg, free)
                if path is None:
                    axp = axp_from_fixed(xg, fixed)
                    solver.add_clause([-(v + 1) for v in axp])
                    found = Explanation("axp", xg.names(axp))
                    self.axps.append(found.features)
                else:
                    cxp = shrink_weak_cxp(xg, zero_edge_vars(xg, path))
                    solver.add_clause([v + 1 for v in cxp])
                    found = Explanation("cxp", xg.names(cxp))
                    self.cxps.append(found.features)
                self.seconds = time.perf_counter() - start
                yield found
        finally:
            self.seconds = time.perf_counter() - start


def enumerate_explanations(
    xg: ExplanationGraph,
    *,
    limit: int | None = None,
    timeout: float | None = None,
    solver: str = "m22",
) -> EnumerationResult:
    """Every AXp and CXp of an XpG (within the budget), as an :class:`EnumerationResult`."""
    with Enumerator(xg, limit=limit, timeout=timeout, solver=solver) as en:
        for _ in en:
            pass
        return EnumerationResult(en.axps, en.cxps, en.complete, en.seconds, en.sat_calls)
