"""k-feature rules of minimum empirical error, solved exactly (Koriche et al.'s Cop and Sat).

From ``m`` labelled samples ``(z_i, f(z_i))`` drawn from a distribution, each sample becomes
its *agreement* with the instance (``u_ij = 1[z_ij = x_j]``) and whether it has the
instance's class (positive) or not (negative).  The rule with body ``S`` (``|S| <= k``)
*fires* on sample ``i`` when ``z_i`` agrees with ``x`` on every feature of ``S``, predicting
``f(x)``; it errs on a negative it fires on and on a positive it does not fire on.

* ``"cop"`` (Table 1, all constraints): minimise the number of errors, positives and
  negatives: the empirical loss of Eq. 8, whose minimiser carries the PAC guarantee of
  Theorem 3.
* ``"sat"`` (Table 1 without the positive constraints (v)): minimise the number of negatives
  fired on; uncovered positives cost nothing, so the rule may cover few samples.

The rule's *size* ``K`` is the number of chosen features, ``|S| <= k``, in both encodings,
and the rule fires on sample ``i`` when ``sum_j X_j u_ij >= K``, i.e. on every chosen
feature.  Table 1 read literally makes ``K`` a free variable in ``{0..k}`` constrained only by
``sum_j X_j <= K`` (iv); then ``K`` may exceed the number of chosen features, the rule fires
on no sample, and Sat is trivial (objective 0 with the empty body and ``K = 1``).  Here
``K = sum_j X_j``: the reading of the paper's Lemma 2 and Theorem 3 (monotone k-monomials).

Both are solved by an off-the-shelf optimiser over one Boolean variable per feature and one
per sample, with a time limit, reporting whether optimality was proved:

* ``solver="cpsat"``: OR-Tools CP-SAT (the paper's solver), with the greedy rule as a
  solution hint; on a timeout it returns its best rule and lower bound.  Besides the
  wall-clock ``time_limit``, ``deterministic_time`` bounds CP-SAT's deterministic time
  (``max_deterministic_time``): a measure of work that does not depend on the machine's
  load, so a run repeats exactly with one worker and a seed.
* ``solver="rc2"``: the same encoding as weighted MaxSAT (hard cardinality constraint by a
  sequential counter; one soft clause per sample) for python-sat's RC2, interrupted at the
  time limit (then the greedy rule is returned, with RC2's lower bound).

Whichever solver answers, the answer is reported optimal when its objective meets its lower
bound, even if the solver was interrupted before proving it (an interrupted RC2 run whose
greedy rule already meets the cost RC2 had reached, for instance).

``"auto"`` picks CP-SAT when OR-Tools is installed (the ``cp`` extra): on the Table 2
protocol it proves optimality several times faster than RC2 and keeps an incumbent on a
timeout.  Identical samples are merged into one weighted sample first.

Examples
--------
>>> import numpy as np
>>> agree = np.array([[1, 1, 0], [1, 0, 1], [0, 1, 1], [1, 1, 1]], dtype=bool)
>>> same = np.array([True, False, False, True])
>>> sol = solve_rule(agree, same, k=2, encoding="cop", solver="rc2")
>>> sol.features, sol.objective, sol.optimal
((0, 1), 0, True)
>>> rule_objective(agree, same, (0,), "cop"), rule_objective(agree, same, (0,), "sat")
(1, 1)

References
----------
Koriche, Lagniez, Mengel, Tran. Learning Model Agnostic Explanations via Constraint
Programming, sections 3.2 (Table 1), 3.3 (Theorem 3) and 4.1 (Cop and Sat encodings);
Ignatiev, Morgado, Marques-Silva. RC2: an efficient MaxSAT solver. JSAT 2019.
"""

from __future__ import annotations

import importlib.util
import math
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal, get_args

import numpy as np

from xpg.core.graph import DecisionGraph
from xpg.core.validation import Interval, Options, check_param
from xpg.errors import InvalidParameterError, MissingExtraError
from xpg.probabilistic.blackbox import BlackBox
from xpg.probabilistic.distributions import (
    SamplingDistribution,
    Seed,
    make_rng,
)
from xpg.probabilistic.precision import PrecisionMethod
from xpg.probabilistic.result import ExplainerRun, ProbabilisticExplanation, as_black_box

Encoding = Literal["cop", "sat"]
ENCODINGS: tuple[str, ...] = get_args(Encoding)
RuleSolver = Literal["auto", "cpsat", "rc2"]
RULE_SOLVERS: tuple[str, ...] = get_args(RuleSolver)


@dataclass(frozen=True)
class RuleSolution:
    """The solver's answer for one encoding.

    Attributes
    ----------
    features : tuple of int
        Indices of the rule's body.
    objective : int
        Errors on the samples (``"cop"``) or negatives fired on (``"sat"``).
    lower_bound : int
        No rule of at most ``k`` features does better (equals ``objective`` when optimal).
    optimal : bool
        Optimality proved within the limits: the solver proved it, or the objective meets
        the lower bound (``status`` may then be ``"FEASIBLE"`` or ``"INTERRUPTED"``).
    solver : {"cpsat", "rc2"}
    status : str
        The solver's status (``"OPTIMAL"``, ``"FEASIBLE"``, ``"INTERRUPTED"``...).
    seconds : float
    deterministic_seconds : float
        CP-SAT's deterministic time spent (0 for RC2).
    """

    features: tuple[int, ...]
    objective: int
    lower_bound: int
    optimal: bool
    solver: str
    status: str
    seconds: float
    deterministic_seconds: float = 0.0


def _as_bool(name: str, values: Any) -> np.ndarray:
    """``values`` as a bool array when every entry is 0, 1, False or True."""
    raw = np.asarray(values)
    if raw.dtype != bool:
        try:
            ok = bool(np.all((raw == 0) | (raw == 1)))
        except (TypeError, ValueError):
            ok = False
        if not ok or raw.dtype.kind not in "iuf":
            flat = raw.ravel().tolist()
            bad = next((v for v in flat if v not in (0, 1)), flat[0] if flat else None)
            raise InvalidParameterError(
                f"{name}: expected 0/1 or boolean entries, found {bad!r} ({raw.dtype} values)"
            )
    return raw.astype(bool)


def _check_samples(agree: Any, same: Any) -> tuple[np.ndarray, np.ndarray]:
    a = _as_bool("agree", agree)
    s = _as_bool("same", same)
    if a.ndim != 2 or s.shape != (a.shape[0],):
        raise InvalidParameterError(
            f"expected an (m, d) agreement matrix and m labels, found shapes {a.shape} and "
            f"{s.shape}"
        )
    return a, s


def rule_objective(agree: Any, same: Any, features: Any, encoding: Encoding) -> int:
    """The encoding's objective for the rule with body ``features`` (indices).

    ``"cop"``: negatives fired on plus positives not fired on; ``"sat"``: negatives fired on.
    """
    a, s = _check_samples(agree, same)
    fired = a[:, list(features)].all(axis=1)
    errors = int(np.sum(fired & ~s))
    return errors if encoding == "sat" else errors + int(np.sum(~fired & s))


def _merge(agree: np.ndarray, same: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Identical samples as one sample with a weight."""
    keys = np.concatenate([agree, same[:, None]], axis=1)
    unique, counts = np.unique(keys, axis=0, return_counts=True)
    return unique[:, :-1], unique[:, -1], counts


def greedy_rule(agree: Any, same: Any, k: int, encoding: Encoding) -> tuple[int, ...]:
    """Forward selection: add the feature that lowers the objective most, while it does."""
    a, s = _check_samples(agree, same)
    chosen: list[int] = []
    fired = np.ones(len(a), dtype=bool)
    best = rule_objective(a, s, (), encoding)
    while len(chosen) < k:
        now = fired[:, None] & a
        neg = (now & ~s[:, None]).sum(axis=0)
        cost = neg if encoding == "sat" else neg + (~now & s[:, None]).sum(axis=0)
        cost[chosen] = np.iinfo(np.int64).max
        j = int(np.argmin(cost))
        if cost[j] >= best:
            break
        best = int(cost[j])
        chosen.append(j)
        fired = now[:, j]
    return tuple(sorted(chosen))


@dataclass(frozen=True)
class _RuleProblem:
    """What both rule solvers read: the merged samples (identical ones as one, weighted), the
    largest rule, the encoding, the time limits and the greedy rule as a hint."""

    agree: np.ndarray
    same: np.ndarray
    weight: np.ndarray
    k: int
    encoding: Encoding
    time_limit: float
    hint: tuple[int, ...]
    deterministic_time: float | None = None

    def costly_samples(self) -> Iterator[tuple[int, list[int], bool, int]]:
        """Per sample a rule can be charged for: its index, the features on which it differs
        from the instance, whether it has the instance's class, and its weight.  Positives
        cost nothing under ``"sat"``, nor when they agree everywhere (every rule fires)."""
        for i in range(len(self.agree)):
            disagree = [int(j) for j in np.flatnonzero(~self.agree[i])]
            positive = bool(self.same[i])
            if positive and (self.encoding == "sat" or not disagree):
                continue
            yield i, disagree, positive, int(self.weight[i])


def _solve_cpsat(
    problem: _RuleProblem, workers: int, seed: int
) -> tuple[tuple[int, ...], int, int, bool, str, float]:
    from ortools.sat.python import cp_model

    agree, hint = problem.agree, problem.hint
    d = agree.shape[1]
    model = cp_model.CpModel()
    x = [model.new_bool_var(f"x{j}") for j in range(d)]
    model.add(sum(x) <= problem.k)
    hinted = np.zeros(d, dtype=bool)
    hinted[list(hint)] = True
    for j in range(d):
        model.add_hint(x[j], bool(hinted[j]))
    hint_fired = np.asarray(agree[:, hinted].all(axis=1), dtype=bool)
    constant = 0
    terms = []
    for i, disagree, positive, weight in problem.costly_samples():
        fired = model.new_bool_var(f"u{i}")
        if positive:
            for j in disagree:
                model.add_implication(x[j], ~fired)
            constant += weight
            terms.append(-weight * fired)
        else:
            model.add_bool_or([fired] + [x[j] for j in disagree])
            terms.append(weight * fired)
        model.add_hint(fired, bool(hint_fired.item(i)))
    model.minimize(constant + sum(terms))
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = float(problem.time_limit)
    if problem.deterministic_time is not None:
        solver.parameters.max_deterministic_time = float(problem.deterministic_time)
    solver.parameters.num_workers = int(workers)
    solver.parameters.random_seed = int(seed)
    status = solver.solve(model)
    name = solver.status_name(status)
    work = float(solver.deterministic_time)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return hint, -1, int(np.ceil(solver.best_objective_bound)), False, name, work
    chosen = tuple(j for j in range(d) if solver.boolean_value(x[j]))
    bound = int(np.ceil(solver.best_objective_bound - 1e-6))
    objective = int(round(solver.objective_value))
    return chosen, objective, bound, status == cp_model.OPTIMAL, name, work


def _solve_rc2(problem: _RuleProblem) -> tuple[tuple[int, ...], int, int, bool, str]:
    from pysat.card import CardEnc, EncType
    from pysat.examples.rc2 import RC2
    from pysat.formula import WCNF, IDPool

    hint, d = problem.hint, problem.agree.shape[1]
    pool = IDPool()
    x = [pool.id(("x", j)) for j in range(d)]
    wcnf = WCNF()
    atmost = CardEnc.atmost(x, bound=problem.k, vpool=pool, encoding=EncType.seqcounter)
    for clause in atmost.clauses:
        wcnf.append(clause)
    always = 0  # negatives equal to the instance on every feature: every rule fires on them
    for i, disagree, positive, weight in problem.costly_samples():
        literals = [x[j] for j in disagree]
        if positive:
            u = pool.id(("u", i))  # u: the rule does not fire on positive i (an error)
            for lit in literals:
                wcnf.append([-lit, u])
            wcnf.append([-u], weight=weight)
        elif literals:
            wcnf.append(literals, weight=weight)  # some chosen feature disagrees
        else:
            always += weight
    with RC2(wcnf, adapt=True, exhaust=True, minz=True) as rc2:
        timer = threading.Timer(problem.time_limit, rc2.interrupt)
        timer.start()
        try:
            model = rc2.compute(expect_interrupt=True)
        finally:
            timer.cancel()
        bound = int(rc2.cost) + always
        if model is None:
            return hint, -1, bound, False, "INTERRUPTED"
        true = {lit for lit in model if lit > 0}
        chosen = tuple(j for j in range(d) if x[j] in true)
        return chosen, bound, bound, True, "OPTIMAL"


def cpsat_available() -> bool:
    """True when OR-Tools (CP-SAT) can be imported."""
    return importlib.util.find_spec("ortools") is not None


def solve_rule(
    agree: Any,
    same: Any,
    k: int,
    *,
    encoding: Encoding = "cop",
    solver: RuleSolver = "auto",
    time_limit: float = 60.0,
    deterministic_time: float | None = None,
    workers: int = 1,
    seed: int = 0,
) -> RuleSolution:
    """The rule of at most ``k`` features minimising the encoding's objective on the samples.

    Parameters
    ----------
    agree : bool array of shape (m, d)
        ``agree[i, j]``: sample ``i`` has the instance's value for feature ``j``.
    same : bool array of shape (m,)
        Sample ``i`` has the instance's class.
    k : int
        Largest rule.
    encoding : {"cop", "sat"}
    solver : {"auto", "cpsat", "rc2"}
    time_limit : float
        Wall-clock seconds; the answer says whether optimality was proved in time.
    deterministic_time : float, optional
        CP-SAT only: its ``max_deterministic_time``, a limit on work that does not depend
        on the machine's load (with one worker and a seed, a run repeats exactly).
    workers : int
        CP-SAT search workers (1 keeps runs reproducible).
    seed : int
        CP-SAT's random seed.

    Raises
    ------
    MissingExtraError
        For ``solver="cpsat"`` without OR-Tools.
    InvalidParameterError
        For ``deterministic_time`` with RC2, which has no such limit.
    """
    start = time.perf_counter()
    a, s = _check_samples(agree, same)
    check_param("encoding", encoding, Options(ENCODINGS))
    check_param("solver", solver, Options(RULE_SOLVERS))
    k = check_param("k", k, Interval(int, 0, None))
    workers = check_param("workers", workers, Interval(int, 1, None))
    duration = Interval(float, 0, None, closed="neither"), Options([math.inf])
    check_param("time_limit", time_limit, *duration)
    check_param("deterministic_time", deterministic_time, *duration, None)
    if solver == "auto":
        solver = "cpsat" if cpsat_available() else "rc2"
    if solver == "cpsat" and not cpsat_available():
        raise MissingExtraError(
            "solver='cpsat' needs OR-Tools: pip install -e '.[cp]' from a clone of xpg (or use "
            "solver='rc2')"
        )
    if solver == "rc2" and deterministic_time is not None:
        raise InvalidParameterError(
            "deterministic_time: only CP-SAT has a deterministic time limit (use time_limit "
            "with solver='rc2')"
        )
    hint = greedy_rule(a, s, int(k), encoding)
    problem = _RuleProblem(*_merge(a, s), int(k), encoding, time_limit, hint, deterministic_time)
    work = 0.0
    if solver == "cpsat":
        chosen, objective, bound, optimal, status, work = _solve_cpsat(problem, workers, seed)
    else:
        chosen, objective, bound, optimal, status = _solve_rc2(problem)
    if objective < 0:
        objective = rule_objective(a, s, chosen, encoding)
    # an interrupted run may still hold an optimal answer: one that meets the lower bound
    optimal = optimal or objective <= bound
    return RuleSolution(
        features=chosen,
        objective=objective,
        lower_bound=min(bound, objective),
        optimal=optimal,
        solver=solver,
        status=status,
        seconds=time.perf_counter() - start,
        deterministic_seconds=work,
    )


def find_optimal_rule(
    model: BlackBox | DecisionGraph,
    instance: Any,
    distribution: SamplingDistribution | None = None,
    *,
    k: int = 5,
    n_samples: int = 1000,
    encoding: Encoding = "cop",
    solver: RuleSolver = "auto",
    time_limit: float = 60.0,
    deterministic_time: float | None = None,
    workers: int = 1,
    evaluate: PrecisionMethod | None = "auto",
    n_check: int = 1000,
    seed: Seed = None,
) -> ProbabilisticExplanation:
    """A k-feature explanation of minimum empirical error from ``n_samples`` labelled samples.

    Parameters
    ----------
    model : BlackBox or DecisionGraph
    instance : mapping or sequence
    distribution : SamplingDistribution, optional
        The example oracle's distribution (default: uniform over the domains, as in the paper).
    k : int, default 5
    n_samples : int, default 1000
        ``m``, the samples the rule is learnt from.
    encoding : {"cop", "sat"}
    solver : {"auto", "cpsat", "rc2"}
    time_limit : float, default 60
        Wall-clock seconds for the solver.
    deterministic_time : float, optional
        CP-SAT's deterministic time limit (load-independent; see :func:`solve_rule`).
    workers : int, default 1
        CP-SAT workers.
    evaluate : {"auto", "exact", "enumerate", "sample"} or None
        How to measure the precision of the returned set (see
        :func:`~xpg.probabilistic.precision.precision_error`); None: do not.
    n_check : int
        Samples for a sampled evaluation.
    seed : int or numpy Generator, optional

    Returns
    -------
    ProbabilisticExplanation
        ``method`` is the encoding; ``optimal`` says whether the solver proved optimality;
        ``details`` holds the objective, the lower bound, the empirical loss (Eq. 8) and the
        numbers of positive and negative samples.
    """
    start = time.perf_counter()
    bb = as_black_box(model)
    check_param("n_samples", n_samples, Interval(int, 1, None))
    check_param("k", k, Interval(int, 0, None))
    check_param("n_check", n_check, Interval(int, 1, None))
    run = ExplainerRun.begin(bb, instance, distribution)
    rng = make_rng(seed)
    Z = run.distribution.sample(n_samples, rng)
    same = run.counter(Z) == run.prediction
    agree = Z == run.row[None, :]
    solution = solve_rule(
        agree,
        same,
        k,
        encoding=encoding,
        solver=solver,
        time_limit=time_limit,
        deterministic_time=deterministic_time,
        workers=workers,
        seed=int(rng.integers(2**31 - 1)),
    )
    seconds = time.perf_counter() - start
    mask = np.zeros(bb.n_features, dtype=bool)
    mask[list(solution.features)] = True
    return run.explanation(
        encoding,
        mask,
        run.evaluate(mask, evaluate, n_check, rng),
        n_queries=run.counter.n_queries,
        seconds=seconds,
        optimal=solution.optimal,
        details={
            "objective": solution.objective,
            "lower_bound": solution.lower_bound,
            "empirical_loss": rule_objective(agree, same, solution.features, "cop") / n_samples,
            "n_positive": int(same.sum()),
            "n_negative": int((~same).sum()),
            "solver": solution.solver,
            "status": solution.status,
            "solver_seconds": solution.seconds,
            "deterministic_seconds": solution.deterministic_seconds,
            "k": k,
        },
    )
