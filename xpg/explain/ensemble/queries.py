"""AXps, CXps, enumeration, membership, feature classes and smallest explanations of a tree
ensemble, over the incremental oracle of :mod:`xpg.explain.ensemble.oracle`.

The algorithms are those of the explanation-graph queries with the graph traversal replaced
by the oracle ("can another class be predicted with these features fixed?"):

* AXp by deletion from a weak AXp (each feature in turn is freed unless another class
  becomes possible; those with the least effect on the independent-tree bound first,
  :meth:`~xpg.explain.ensemble.oracle.EnsembleOracle.deletion_order`; a question that only
  the solver would decide is put off to a second pass, when fewer features are fixed and an
  input of another class is easier to find); CXp by deletion
  from a weak CXp, jumping each time to the features the oracle's witness input actually
  changes (a weak CXp, usually much smaller);
* MARCO enumeration over one python-sat solver with one variable per tested feature (true:
  fixed), blocking each AXp (not all fixed again) and each CXp (not all free again); every
  model of the solver yields a new explanation, and an unsatisfiable solver proves the
  lists complete;
* membership: a feature whose freeing alone changes the class is in every AXp (route
  ``necessary``); otherwise MARCO runs until an explanation holding the feature appears or
  the lists are complete (an AXp holding it is turned into a CXp holding it and back by
  deletion, as in :mod:`xpg.explain.membership`);
* feature classes: necessary by one question per feature, members by enumeration (stopped
  as soon as every feature is decided);
* smallest AXp / CXp by implicit hitting sets (RC2 through python-sat's ``Hitman``), as
  :mod:`xpg.explain.smallest`.

Features no tree tests are in no explanation; the others are indices into the oracle's
explained features.  Nothing here is specific to trees: any object with the interface of
:class:`Oracle` can be explained this way (:mod:`xpg.explain.list_oracle` does it for
decision lists too large to compile).

References
----------
Huang, Izza, Ignatiev, Marques-Silva. On Efficiently Explaining Graph-Based Classifiers.
KR 2021, Algs. 2-4 and Prop. 1; Liffiton et al. Fast, flexible MUS enumeration. Constraints
2016 (MARCO); Ignatiev, Narodytska, Asher, Marques-Silva. From Contrastive to Abductive
Explanations and Back Again. AI*IA 2020; Izza, Marques-Silva. On Explaining Random Forests
with SAT. IJCAI 2021.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from xpg.errors import InvalidSeedError
from xpg.explain.marco import (
    EnumerationResult,
    Explanation,
    ExplanationKind,
    _checked_limit,
    _checked_timeout,
)
from xpg.explain.oracle_abc import OracleTimeout, Undecided
from xpg.explain.smallest import implicit_hitting_set
from xpg.solvers.lifecycle import SolverOwner


class Oracle(Protocol):
    """What the algorithms here ask of an oracle (the ensembles'
    :class:`~xpg.explain.ensemble.oracle.EnsembleOracle`, the decision lists'
    :class:`~xpg.explain.list_oracle.DecisionListOracle`).

    ``space`` has ``names`` (the explained features), ``n_cells`` (per feature, the classes
    of values the model tells apart; one: the feature is in no explanation) and
    ``instance_cell``; ``check(fixed)`` answers "with the features ``fixed`` at the
    instance's cells, can another class be predicted?" with a witness (one cell per feature)
    or None, raising :class:`~xpg.explain.ensemble.oracle.OracleTimeout` once ``deadline``
    (a ``time.perf_counter()``) has passed; after None, ``last_core`` may name the fixed
    features the proof used.
    """

    space: Any
    n_features: int
    calls: int
    deadline: float | None
    last_core: list[int] | None

    def check(self, fixed: Iterable[int], *, solver: bool = True) -> np.ndarray | None:
        """A witness of another class with ``fixed`` at the instance's cells, or None."""

    def deletion_order(self, fixed: list[int]) -> list[int]:
        """``fixed`` in the order an AXp by deletion tries to free them."""


def tested(oracle: Oracle) -> list[int]:
    """The features some tree can tell apart (more than one cell), in feature order."""
    return [i for i, k in enumerate(oracle.space.n_cells) if k > 1]


def changed(oracle: Oracle, witness: np.ndarray) -> set[int]:
    """The features whose cell in ``witness`` is not the instance's."""
    inst = np.asarray(oracle.space.instance_cell)
    return set(np.flatnonzero(witness != inst).tolist())


def is_weak_axp(oracle: Oracle, fixed: Sequence[int]) -> bool:
    """Fixing ``fixed`` keeps the prediction."""
    return oracle.check(fixed) is None


def axp_from_fixed(oracle: Oracle, fixed: Sequence[int]) -> list[int]:
    """A subset-minimal AXp inside the weak AXp ``fixed``, by deletion (in the oracle's
    :meth:`~xpg.explain.ensemble.oracle.EnsembleOracle.deletion_order`; the questions the
    cheap decisions leave open are asked again, with the solver, after the others: a
    feature freed since only makes another class likelier, and one kept because of a
    witness stays necessary)."""
    keep = set(tested(oracle))
    current = sorted(set(fixed) & keep)
    if oracle.check(current) is not None:
        names = [oracle.space.names[i] for i in sorted(set(fixed))]
        raise InvalidSeedError(
            f"the seed {names} is not a weak AXp: freeing the other features already allows "
            "another prediction"
        )
    if oracle.last_core is not None:
        current = [u for u in current if u in set(oracle.last_core)]
    deferred: list[int] = []
    for solver, order in ((False, oracle.deletion_order(current)), (True, deferred)):
        for v in order:
            if v not in current:
                continue
            trial = [u for u in current if u != v]
            try:
                witness = oracle.check(trial, solver=solver)
            except Undecided:
                deferred.append(v)
                continue
            if witness is None:
                core = oracle.last_core  # a weak AXp inside trial: free the rest at once
                current = trial if core is None else [u for u in trial if u in set(core)]
    return current


def cxp_from_free(oracle: Oracle, free: Sequence[int]) -> list[int]:
    """A subset-minimal CXp inside the weak CXp ``free``, by deletion guided by witnesses."""
    everything = set(range(oracle.n_features))
    witness = oracle.check(sorted(everything - set(free)))
    if witness is None:
        names = [oracle.space.names[i] for i in sorted(set(free))]
        raise InvalidSeedError(
            f"the seed {names} is not a weak CXp: freeing it cannot change the prediction"
        )
    return shrink_weak_cxp(oracle, changed(oracle, witness))


def shrink_weak_cxp(oracle: Oracle, current: set[int]) -> list[int]:
    """A subset-minimal CXp inside the weak CXp ``current``."""
    everything = set(range(oracle.n_features))
    necessary: set[int] = set()
    while True:
        open_vars = sorted(current - necessary)
        if not open_vars:
            return sorted(current)
        v = open_vars[0]
        witness = oracle.check(sorted(everything - (current - {v})))
        if witness is None:
            necessary.add(v)
        else:
            current = changed(oracle, witness)


def axp_containing(oracle: Oracle, i: int, cxp: Sequence[int]) -> list[int]:
    """An AXp holding ``i`` from a CXp holding ``i`` (every AXp meets the CXp, and fixing
    all but the CXp's other features is a weak AXp)."""
    released = set(cxp) - {i}
    return axp_from_fixed(oracle, [v for v in tested(oracle) if v not in released])


def cxp_containing(oracle: Oracle, i: int, axp: Sequence[int]) -> list[int]:
    """A CXp holding ``i`` from an AXp holding ``i`` (the dual argument)."""
    kept = set(axp) - {i}
    return cxp_from_free(oracle, [v for v in tested(oracle) if v not in kept])


class EnsembleEnumerator(SolverOwner):
    """MARCO over the oracle, as an iterator of :class:`~xpg.explain.marco.Explanation`
    (use it as a context manager: it owns a python-sat solver).

    ``limit`` counts explanations (AXps and CXps together), ``timeout`` seconds; both are
    checked between oracle questions, and an oracle question running past the time stops
    the enumeration too (as does a deadline the oracle already has: the earlier of the
    two holds, and the oracle's own is restored after).  ``complete`` is True once the
    solver proves that no explanation is left.
    """

    closed_message = "this EnsembleEnumerator is closed"

    def __init__(
        self,
        oracle: Oracle,
        *,
        limit: int | None = None,
        timeout: float | None = None,
    ) -> None:
        from xpg.explain.marco import _new_solver

        self.oracle = oracle
        self.limit = _checked_limit(limit)
        self.timeout = _checked_timeout(timeout)
        self.complete = False
        self.axps: list[tuple[str, ...]] = []
        self.cxps: list[tuple[str, ...]] = []
        self.axp_sets: list[list[int]] = []
        self.cxp_sets: list[list[int]] = []
        self.seconds = 0.0
        self.sat_calls = 0
        self._tested = tested(oracle)
        self._solver = _new_solver("m22")
        n = oracle.n_features
        if n:
            self._solver.add_clause([n, -n])  # declare every variable
            self._solver.set_phases([v + 1 for v in self._tested])  # prefer fixing: AXps
        self._started = False

    def _release(self) -> None:
        self._solver.delete()

    def result(self) -> EnumerationResult:
        """What was found so far, whether the lists are complete, the time and the SAT calls."""
        return EnumerationResult(self.axps, self.cxps, self.complete, self.seconds, self.sat_calls)

    def _out_of_budget(self, deadline: float) -> bool:
        if self.limit is not None and len(self.axps) + len(self.cxps) >= self.limit:
            return True
        return time.perf_counter() >= deadline

    def __iter__(self) -> Iterator[Explanation]:
        from xpg.errors import SolverClosedError

        self._check_open()
        if self._started:
            raise SolverClosedError("an EnsembleEnumerator can be iterated only once")
        self._started = True
        oracle = self.oracle
        start = time.perf_counter()
        outer = oracle.deadline
        deadline = min(
            math.inf if self.timeout is None else start + self.timeout,
            math.inf if outer is None else outer,
        )
        oracle.deadline = None if deadline == math.inf else deadline
        try:
            while not self._out_of_budget(deadline):
                self.sat_calls += 1
                if not self._solver.solve():
                    self.complete = True
                    return
                model = self._solver.get_model()
                fixed = [v for v in self._tested if model[v] > 0]
                try:
                    found = self._next(fixed)
                except OracleTimeout:
                    return
                self.seconds = time.perf_counter() - start
                yield found
        finally:
            oracle.deadline = outer
            self.seconds = time.perf_counter() - start

    def _next(self, fixed: list[int]) -> Explanation:
        """The explanation of one model of the solver, recorded and blocked."""
        oracle, names = self.oracle, self.oracle.space.names
        witness = oracle.check(fixed)
        if witness is None:
            axp = axp_from_fixed(oracle, fixed)
            self._solver.add_clause([-(v + 1) for v in axp])
            self.axp_sets.append(axp)
            found = Explanation("axp", tuple(names[v] for v in axp))
            self.axps.append(found.features)
        else:
            cxp = shrink_weak_cxp(oracle, changed(oracle, witness))
            self._solver.add_clause([v + 1 for v in cxp])
            self.cxp_sets.append(cxp)
            found = Explanation("cxp", tuple(names[v] for v in cxp))
            self.cxps.append(found.features)
        return found


@dataclass
class SmallestProgress:
    """What :func:`smallest_explanation` has found so far (to report when a deadline stops
    it): the smallest explanation known, the hitting sets tried and the size of the last
    one (a lower bound on the smallest)."""

    best: list[int] | None = None
    iterations: int = 0
    lower: int = 0


def smallest_explanation(
    oracle: Oracle,
    kind: ExplanationKind,
    max_iterations: int | None,
    solver: str,
    progress: SmallestProgress | None = None,
) -> tuple[list[int] | None, bool, int, int]:
    """A minimum-cardinality AXp or CXp by implicit hitting sets: (explanation or None,
    optimal, iterations, lower bound); ``progress``, when given, is kept up to date."""
    state = SmallestProgress() if progress is None else progress
    all_tested = tested(oracle)
    everything = set(range(oracle.n_features))
    first = oracle.check([])
    if first is None:  # the prediction cannot change: the only AXp is empty, no CXp
        return ([] if kind == "axp" else None), True, 0, 0
    if kind == "axp":
        best = axp_from_fixed(oracle, all_tested)

        def dual_of(h: list[int]) -> list[int] | None:
            witness = oracle.check(h)
            return None if witness is None else shrink_weak_cxp(oracle, changed(oracle, witness))

    else:
        best = shrink_weak_cxp(oracle, changed(oracle, first))

        def dual_of(h: list[int]) -> list[int] | None:
            if oracle.check(sorted(everything - set(h))) is not None:
                return None
            return axp_from_fixed(oracle, [v for v in all_tested if v not in set(h)])

    state.best = best

    def counted(h: list[int]) -> list[int] | None:
        state.iterations, state.lower = state.iterations + 1, len(h)
        return dual_of(h)

    return implicit_hitting_set(counted, best, max_iterations, solver)


def first_member_witness(
    en: EnsembleEnumerator, i: int, kind: ExplanationKind
) -> tuple[list[int] | None, int]:
    """Run MARCO until an explanation holding ``i`` appears: a witness of ``kind`` holding
    ``i`` (None when the complete lists hold none), and the explanations enumerated."""
    oracle = en.oracle
    count = 0
    for found in en:
        count += 1
        sets = en.axp_sets if found.kind == "axp" else en.cxp_sets
        chosen = sets[-1]
        if i in chosen:
            if found.kind == kind:
                return chosen, count
            if kind == "axp":
                return axp_containing(oracle, i, chosen), count
            return cxp_containing(oracle, i, chosen), count
    return None, count


def members_by_enumeration(
    en: EnsembleEnumerator, undecided: set[int], into: set[int] | None = None
) -> tuple[set[int], int]:
    """Features of ``undecided`` found in some explanation, enumerating until each is found
    or the lists are complete (added to ``into`` as found, when given); and the
    explanations enumerated."""
    members: set[int] = set() if into is None else into
    count = 0
    if not undecided:
        return members, count
    for found in en:
        count += 1
        sets = en.axp_sets if found.kind == "axp" else en.cxp_sets
        members |= set(sets[-1]) & undecided
        if members == undecided:
            break
    return members, count


def as_names(oracle: Oracle, indices: Sequence[int]) -> tuple[str, ...]:
    """Feature names, in feature order."""
    return tuple(oracle.space.names[i] for i in sorted(indices))


def index_of(oracle: Oracle, feature: Any) -> int:
    """The index of a feature name (or an index), checked."""
    from xpg.errors import InvalidFeatureError

    names = oracle.space.names
    if isinstance(feature, (int, np.integer)) and not isinstance(feature, bool):
        if 0 <= int(feature) < len(names):
            return int(feature)
    elif feature in names:
        return names.index(feature)
    raise InvalidFeatureError(
        f"unknown feature {feature!r} (expected one of: {', '.join(names)})"[:500]
    )


__all__ = [
    "EnsembleEnumerator",
    "Oracle",
    "SmallestProgress",
    "axp_from_fixed",
    "cxp_from_free",
    "shrink_weak_cxp",
    "smallest_explanation",
]
