"""Cop and Sat rules (Koriche et al.): optimal against brute force, and how the two differ."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from xpg.core.features import Feature
from xpg.errors import InvalidParameterError, MissingExtraError
from xpg.probabilistic import BlackBox, find_optimal_rule, precision_error, solve_rule
from xpg.probabilistic.optimal_rule import cpsat_available, rule_objective

# CP-SAT is the optional extra "cp"; CI installs it, so both solvers are checked there.
AVAILABLE = ["rc2"] + (["cpsat"] if cpsat_available() else [])
SOLVERS = [
    "rc2",
    pytest.param(
        "cpsat",
        marks=pytest.mark.skipif(not cpsat_available(), reason="needs ortools (extra 'cp')"),
    ),
]


def brute_force(agree: np.ndarray, same: np.ndarray, k: int, encoding: str) -> int:
    """Minimum of the objective over every set of at most k features, from the definition."""
    best = None
    for size in range(k + 1):
        for body in itertools.combinations(range(agree.shape[1]), size):
            fired = np.ones(len(agree), dtype=bool)
            for j in body:
                fired &= agree[:, j]
            negatives_fired = int(np.sum(fired & ~same))
            positives_missed = int(np.sum(~fired & same))
            cost = negatives_fired + (positives_missed if encoding == "cop" else 0)
            best = cost if best is None else min(best, cost)
    assert best is not None
    return best


def random_samples(seed: int) -> tuple[np.ndarray, np.ndarray, int]:
    rng = np.random.default_rng(seed)
    m, d, k = int(rng.integers(5, 60)), int(rng.integers(1, 9)), int(rng.integers(0, 5))
    agree = rng.random((m, d)) < rng.uniform(0.3, 0.8)
    same = rng.random(m) < rng.uniform(0.1, 0.9)
    return agree, same, k


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize("encoding", ["cop", "sat"])
def test_rule_is_optimal_against_brute_force(solver: str, encoding: str) -> None:
    for seed in range(150):
        agree, same, k = random_samples(seed)
        sol = solve_rule(agree, same, k, encoding=encoding, solver=solver, time_limit=30)
        best = brute_force(agree, same, k, encoding)
        assert sol.optimal and sol.solver == solver
        assert len(sol.features) <= k
        assert sol.objective == best == rule_objective(agree, same, sol.features, encoding)
        assert sol.lower_bound == best


def test_sat_ignores_uncovered_positives_cop_does_not() -> None:
    """Sat's objective is the negatives a rule fires on; Cop adds the positives it misses."""
    for seed in range(200):
        agree, same, k = random_samples(seed)
        for size in range(min(k, agree.shape[1]) + 1):
            body = tuple(range(size))
            fired = agree[:, list(body)].all(axis=1)
            missed = int(np.sum(~fired & same))
            sat = rule_objective(agree, same, body, "sat")
            assert rule_objective(agree, same, body, "cop") == sat + missed
    # a case where they part: feature 1 blocks the negative but misses three positives
    agree = np.array([[1, 1], [1, 0], [1, 0], [1, 0], [1, 0]], dtype=bool)
    same = np.array([True, True, True, True, False])
    for solver in AVAILABLE:
        sat = solve_rule(agree, same, 1, encoding="sat", solver=solver)
        cop = solve_rule(agree, same, 1, encoding="cop", solver=solver)
        assert sat.features == (1,) and sat.objective == 0
        assert rule_objective(agree, same, sat.features, "cop") == 3  # uncovered positives
        assert cop.objective == 1 and cop.features in [(), (0,)]  # fires on the negative


def test_find_optimal_rule_end_to_end() -> None:
    features = [Feature.boolean(f"x{i}") for i in range(8)]
    model = BlackBox(lambda X: (X[:, 2] * X[:, 6]).astype(int), features)
    x = [0, 0, 1, 0, 0, 0, 1, 0]
    for encoding in ("cop", "sat"):
        r = find_optimal_rule(model, x, k=2, encoding=encoding, solver="rc2", seed=0)
        assert r.features == ("x2", "x6") and r.optimal and r.method == encoding
        assert r.precision is not None and r.precision.error == 0.0
        assert r.n_queries == 1001  # the instance, then m = 1000 samples
        assert r.details["n_positive"] + r.details["n_negative"] == 1000
    # the returned rule is optimal for its own samples: recompute them with the same seed
    r = find_optimal_rule(model, x, k=1, encoding="cop", solver="rc2", seed=5, evaluate=None)
    assert r.precision is None and r.size <= 1


def test_time_limit_reports_non_optimality_consistently() -> None:
    rng = np.random.default_rng(0)
    agree = rng.random((1500, 40)) < 0.5
    same = rng.random(1500) < 0.4
    for solver in AVAILABLE:
        sol = solve_rule(agree, same, 5, encoding="cop", solver=solver, time_limit=0.05)
        assert sol.lower_bound <= sol.objective == rule_objective(agree, same, sol.features, "cop")
        assert len(sol.features) <= 5
        # 1500 samples, 40 features, k = 5: not provable in 50 ms, and the result says so
        assert not sol.optimal and sol.status != "OPTIMAL"
        assert sol.lower_bound < sol.objective


def test_bad_parameters() -> None:
    agree = np.ones((3, 2), bool)
    same = np.ones(3, bool)
    with pytest.raises(InvalidParameterError, match="encoding"):
        solve_rule(agree, same, 1, encoding="max")  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError, match="k:"):
        solve_rule(agree, same, -1)
    with pytest.raises(InvalidParameterError, match="shapes"):
        solve_rule(agree, same[:2], 1)
    if not cpsat_available():
        with pytest.raises(MissingExtraError, match="ortools|OR-Tools"):
            solve_rule(agree, same, 1, solver="cpsat")


def test_evaluation_uses_exact_precision_on_compiled_models() -> None:
    from sklearn.tree import DecisionTreeClassifier

    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, (400, 6))
    y = X[:, 0] & (X[:, 3] | X[:, 4])
    tree = DecisionTreeClassifier(random_state=0).fit(X, y)
    model = BlackBox.from_sklearn_tree(tree, [Feature.boolean(f"x{i}") for i in range(6)])
    r = find_optimal_rule(model, X[0], k=3, solver="rc2", seed=0)
    assert r.precision is not None and r.precision.method == "exact-propagation"
    assert r.precision.error == precision_error(model, X[0], r.features, method="enumerate").error


def test_interrupted_rc2_is_optimal_exactly_when_its_answer_meets_the_bound(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """RC2 interrupted after reaching cost c: the answer (the greedy rule) is optimal when its
    objective equals the bound, and only then.  The interruption is simulated: ``compute``
    returns None (as on an interrupt) after raising the cost to the brute-force optimum."""
    from pysat.examples.rc2 import RC2

    state: dict[str, int] = {}

    def interrupted(self, expect_interrupt: bool = False):  # type: ignore[no-untyped-def]
        self.cost = state["cost"]
        return None

    monkeypatch.setattr(RC2, "compute", interrupted)
    seen = {True: 0, False: 0}
    for seed in range(120):
        agree, same, k = random_samples(seed)
        for encoding in ("cop", "sat"):
            best = brute_force(agree, same, k, encoding)
            always = int(np.sum(agree.all(axis=1) & ~same))  # fired on by every rule
            for reached in (best, best - 1):  # the bound RC2 had proved, then a weaker one
                if reached < always:
                    continue
                state["cost"] = reached - always
                sol = solve_rule(agree, same, k, encoding=encoding, solver="rc2")
                assert sol.status == "INTERRUPTED" and sol.lower_bound <= reached
                assert sol.objective == rule_objective(agree, same, sol.features, encoding)
                assert sol.optimal == (sol.objective == reached)
                assert not sol.optimal or sol.objective == best
                seen[sol.optimal] += 1
    assert seen[True] > 20 and seen[False] > 20  # both cases occur


@pytest.mark.skipif(not cpsat_available(), reason="needs ortools (extra 'cp')")
def test_deterministic_time_limit_repeats_exactly() -> None:
    rng = np.random.default_rng(1)
    agree = rng.random((1500, 40)) < 0.5
    same = rng.random(1500) < 0.4
    runs = [
        solve_rule(agree, same, 5, solver="cpsat", deterministic_time=0.2, seed=3) for _ in range(2)
    ]
    a, b = runs
    assert (a.features, a.objective, a.lower_bound, a.status) == (
        b.features,
        b.objective,
        b.lower_bound,
        b.status,
    )
    assert not a.optimal and a.status == "FEASIBLE"  # stopped by the deterministic limit
    assert 0.2 <= a.deterministic_seconds < 0.5
    assert a.deterministic_seconds == pytest.approx(b.deterministic_seconds, rel=1e-9)
    assert a.objective == rule_objective(agree, same, a.features, "cop")
    # no limit reached on a small problem: proved optimal, against brute force
    small_agree, small_same, k = random_samples(4)
    sol = solve_rule(small_agree, small_same, k, solver="cpsat", deterministic_time=5.0)
    assert sol.optimal and sol.objective == brute_force(small_agree, small_same, k, "cop")
    with pytest.raises(InvalidParameterError, match="deterministic_time"):
        solve_rule(agree, same, 5, solver="rc2", deterministic_time=1.0)
    with pytest.raises(InvalidParameterError, match="deterministic_time"):
        solve_rule(agree, same, 5, solver="cpsat", deterministic_time=0.0)
