"""Tree-ensemble explanations against exhaustive evaluation through scikit-learn's predict.

Random small forests, extra trees and boosted ensembles (binary and multi-class) over small
discrete domains: every AXp and CXp enumerated equals the brute-force answer (minimal
sufficient / minimal contrastive sets over every completion), on every route; membership,
feature classes and smallest explanations agree with it; the verifier accepts the answers.
"""

from __future__ import annotations

import itertools
import time

import numpy as np
import pytest

from xpg.core.feature_space import FeatureGroup
from xpg.core.features import Feature
from xpg.errors import (
    InvalidFeatureError,
    InvalidInstanceError,
    InvalidQueryError,
    InvalidSeedError,
    SolverClosedError,
)
from xpg.explain.decision import Decision
from xpg.explain.engine import Explainer
from xpg.explain.ensemble import CellSpace, EnsembleOracle
from xpg.models.ensemble_import import ensemble_from_sklearn
from xpg.testing import domain_values
from xpg.testing.ensembles import SMALL_ENSEMBLE_KINDS as ENSEMBLE_KINDS
from xpg.testing.ensembles import ensemble_oracle, one_hot_forest, random_small_ensemble


def _family(items):
    return {frozenset(x) for x in items}


def _explained(model, x, route="sat", **options) -> Decision:
    """The decision of ``model`` on ``x`` by ``route`` (``"sat"``: the ensemble's oracle)."""
    return Explainer(model, route=route, **options).explain(x)


def _case(seed: int, kind: str):
    est, feats, X = random_small_ensemble(seed, kind)
    model = ensemble_from_sklearn(est, feats)
    rng = np.random.default_rng(seed)
    x = {f.name: rng.choice(domain_values(f)).item() for f in feats}
    return est, feats, model, x


# hundreds of cases with the default shortcuts (mostly exhaustive evaluation of the free cells)
@pytest.mark.parametrize("kind", ENSEMBLE_KINDS)
def test_enumeration_equals_brute_force_on_many_ensembles(kind: str) -> None:
    for seed in range(50):
        est, feats, model, x = _case(seed, kind)
        oracle = ensemble_oracle(est, feats, x)
        with _explained(model, x) as ex:
            assert ex.prediction == est.predict(np.array([[float(x[f.name]) for f in feats]]))[0]
            result = ex.enumerate()
            assert result.complete
            assert _family(result.axps) == oracle.axps, (seed, kind)
            assert _family(result.cxps) == oracle.cxps, (seed, kind)
            assert frozenset(ex.axp()) in oracle.axps
            cxp = ex.cxp()
            assert (cxp is None) == (not oracle.cxps)
            assert cxp is None or frozenset(cxp) in oracle.cxps


# the solver alone (no shortcut), both backends, and the graph route
@pytest.mark.parametrize("route", ["sat", "smt", "graph"])
@pytest.mark.parametrize("kind", ENSEMBLE_KINDS)
def test_every_route_agrees_with_brute_force(route: str, kind: str) -> None:
    seeds = range(100, 112) if route != "smt" else range(100, 106)
    for seed in seeds:
        est, feats, model, x = _case(seed, kind)
        oracle = ensemble_oracle(est, feats, x)
        with _explained(model, x, route, shortcuts=False) as ex:
            result = ex.enumerate()
            assert result.complete
            assert _family(result.axps) == oracle.axps, (seed, kind, route)
            assert _family(result.cxps) == oracle.cxps, (seed, kind, route)


def test_the_cases_include_ties() -> None:
    """Exact ties between the best classes occur on the grids the tests evaluate."""
    tied = 0
    for seed in range(40):
        est, feats, _, _ = _case(seed, "tied-forest")
        grid = np.array(list(itertools.product(*[domain_values(f) for f in feats])), float)
        proba = est.predict_proba(grid)
        top = np.sort(proba, axis=1)
        tied += int((top[:, -1] == top[:, -2]).any())
    assert tied >= 10


@pytest.mark.parametrize("kind", ENSEMBLE_KINDS)
def test_membership_classes_and_smallest_agree_with_brute_force(kind: str) -> None:
    for seed in range(200, 218):
        est, feats, model, x = _case(seed, kind)
        oracle = ensemble_oracle(est, feats, x)
        members, necessary = oracle.members(), oracle.necessary()
        with _explained(model, x, shortcuts=seed % 2 == 0) as ex:
            for f in feats:
                for k in ("axp", "cxp"):
                    answer = ex.is_member(f.name, k)
                    assert answer.member == (f.name in members), (seed, f.name)
                    assert answer.route == "sat-pb"
                    if answer.member:
                        assert frozenset(answer.witness) in oracle.of_kind(k)
                        assert f.name in answer.witness
            classes = ex.classify_features()
            assert set(classes.necessary) == necessary
            assert set(classes.relevant) == members - necessary
            assert set(classes.irrelevant) == {f.name for f in feats} - members
            for k in ("axp", "cxp"):
                small = ex.smallest_axp() if k == "axp" else ex.smallest_cxp()
                assert small.optimal
                size = oracle.smallest(k)
                if size is None:
                    assert small.features is None
                else:
                    assert len(small.features) == size
                    assert frozenset(small.features) in oracle.of_kind(k)


@pytest.mark.parametrize("backend", ["pb", "lra"])
@pytest.mark.slow
def test_the_oracle_layers_answer_alike(backend: str) -> None:
    """Exhaustive evaluation, the bound and branch and bound, and the solver alone agree
    with brute force on every set of fixed features; the fixed features a proof says it
    used (``last_core``) are themselves enough."""
    exact_cases = cores = 0
    for seed in range(300, 316):
        est, feats, model, x = _case(seed, ENSEMBLE_KINDS[seed % 4])
        names = [f.name for f in feats]
        grid = [domain_values(f) for f in feats]
        pred = est.predict(np.array([[float(x[n]) for n in names]]))[0]
        space = CellSpace(model, x)
        oracles = [
            EnsembleOracle(space, backend, shortcuts=False),
            EnsembleOracle(space, backend, exhaustive_limit=0),
            EnsembleOracle(space, backend, exhaustive_limit=0, bnb_nodes=0),
        ]

        def possible(fixed, est=est, x=x, grid=grid, names=names, pred=pred):
            axes = [[x[n]] if i in fixed else grid[i] for i, n in enumerate(names)]
            points = np.array(list(itertools.product(*axes)), dtype=float)
            return bool((est.predict(points) != pred).any())

        for r in range(len(feats) + 1):
            for fixed in itertools.combinations(range(len(feats)), r):
                other = possible(fixed)
                for o in oracles:
                    w = o.check(fixed)
                    assert (w is not None) == other, (seed, fixed, o.shortcuts)
                    if w is not None:
                        row = [float(v) for v in space.values(w.tolist()).values()]
                        assert est.predict(np.array([row]))[0] != pred
                    elif o.last_core is not None:
                        assert set(o.last_core) <= set(fixed), (seed, fixed)
                        assert not possible(o.last_core), (seed, fixed, o.last_core)
                        cores += len(o.last_core) < len(fixed)
                # the branch and bound alone (the greedy search usually answers before it)
                mask = np.isin(np.arange(len(feats)), fixed)
                decided, w = oracles[1]._search.branch_and_bound(mask, 100_000)
                assert decided and (w is not None) == other, (seed, fixed)
        exact_cases += oracles[0].exact_vote
        if oracles[0].exact_vote:  # the solver states the model's function: never refuted
            assert oracles[0].solver_calls > 0 and oracles[0].refinements == 0, seed
        for o in oracles:
            o.close()
    assert exact_cases >= 4
    assert cores > 20  # proofs that needed fewer features than were fixed


def test_verifier_accepts_the_answers() -> None:
    from xpg.verify.verifier import Verifier

    for seed, kind in [(400, "forest"), (401, "boosted"), (402, "extra-trees"), (403, "boosted")]:
        est, feats, model, x = _case(seed, kind)
        with _explained(model, x) as ex, Verifier(model) as v:
            result = ex.enumerate()
            for axp in result.axps:
                assert v.verify_axp(x, axp).holds
            for cxp in result.cxps:
                assert v.verify_cxp(x, cxp).holds


def test_feature_groups_on_one_hot_columns() -> None:
    """A one-hot categorical feature is one feature, free over its own values only."""
    from sklearn.ensemble import RandomForestClassifier

    rng = np.random.default_rng(7)
    colour = FeatureGroup.one_hot("colour", ["red", "green", "blue"])
    n = 60
    c = rng.integers(0, 3, n)
    a = rng.integers(0, 2, n)
    onehot = np.eye(3)[c]
    X = np.column_stack([onehot, a])
    y = ((c == 1) | ((c == 2) & (a == 1))).astype(int)
    y[rng.integers(0, n, 5)] ^= 1
    est = RandomForestClassifier(n_estimators=4, max_depth=3, random_state=0).fit(X, y)
    cols = [Feature.boolean(name) for name in colour.columns] + [Feature.boolean("a")]
    model = ensemble_from_sklearn(est, cols)
    groups = [colour, Feature.boolean("a")]
    feats = [colour.feature, Feature.boolean("a")]

    def columns(row):
        return [*colour.encode(row["colour"]), row["a"]]

    for value in ["red", "green", "blue"]:
        for av in (0, 1):
            x = {"colour": value, "a": av}
            oracle = ensemble_oracle(est, feats, x, columns=columns)
            for shortcuts in (True, False):
                with _explained(model, x, groups=groups, shortcuts=shortcuts) as ex:
                    result = ex.enumerate()
                    assert _family(result.axps) == oracle.axps
                    assert _family(result.cxps) == oracle.cxps
                    assert set(ex.features) == {"colour", "a"}
    with pytest.raises(InvalidQueryError):
        _explained(model, {"colour": "red", "a": 0}, "graph", groups=groups)


def test_bad_input_gives_named_errors() -> None:
    est, feats, model, x = _case(5, "forest")
    with pytest.raises(InvalidInstanceError):
        _explained(model, list(x.values())[:-1])
    with pytest.raises(InvalidInstanceError):
        _explained(model, {**x, "nope": 1})
    with pytest.raises(InvalidInstanceError):
        _explained(model, {**x, feats[0].name: 99})
    with pytest.raises(InvalidQueryError):
        _explained(model, x, "fast")
    with _explained(model, x) as ex:
        with pytest.raises(InvalidFeatureError):
            ex.is_member("nope")
        with pytest.raises(InvalidQueryError):
            ex.is_member(feats[0].name, "bxp")  # type: ignore[arg-type]
        with pytest.raises(InvalidFeatureError):
            ex.axp(seed=["nope"])
        cxp = ex.cxp()
        if cxp is not None:
            with pytest.raises(InvalidSeedError):  # fixing nothing is no weak AXp
                ex.axp(seed=[])
    with pytest.raises(SolverClosedError):
        ex.axp()


def test_seeds_and_budgets() -> None:
    for seed in range(500, 520):
        est, feats, model, x = _case(seed, "forest")
        oracle = ensemble_oracle(est, feats, x)
        with _explained(model, x) as ex:
            for axp in oracle.axps:  # a seed that is an AXp comes back whole
                assert frozenset(ex.axp(seed=sorted(axp))) == axp
            for cxp in oracle.cxps:
                assert frozenset(ex.cxp(seed=sorted(cxp))) == cxp
            total = len(oracle.axps) + len(oracle.cxps)
            first = ex.enumerate(limit=1)
            assert len(first.axps) + len(first.cxps) == 1
            assert first.complete == (total == 0)
            assert ex.enumerate(timeout=0).complete is False or total == 0


@pytest.mark.slow
def test_the_oracle_layers_answer_alike_on_groups() -> None:
    """As above, with one-hot groups (unordered cells) beside a plain feature: the bound and
    the branch and bound over cell sets agree with brute force on every set of fixed
    features."""
    from sklearn.ensemble import RandomForestClassifier

    colour = FeatureGroup.one_hot("colour", ["red", "green", "blue", "grey"])
    size = FeatureGroup.one_hot("size", ["s", "m", "l"])
    grid = list(itertools.product(colour.feature.values, size.feature.values, [0, 1]))

    def row(v):
        return [*colour.encode(v[0]), *size.encode(v[1]), v[2]]

    checked = 0
    for seed in range(20):
        rng = np.random.default_rng(seed)
        n = 80
        c, z, a = rng.integers(0, 4, n), rng.integers(0, 3, n), rng.integers(0, 2, n)
        X = np.column_stack([np.eye(4)[c], np.eye(3)[z], a])
        y = (rng.normal(size=4)[c] + rng.normal(size=3)[z] + a + rng.normal(0, 0.5, n)) > 0.5
        est = RandomForestClassifier(n_estimators=6, max_depth=4, random_state=seed)
        est.fit(X, y.astype(int))
        cols = [Feature.boolean(name) for name in (*colour.columns, *size.columns)]
        model = ensemble_from_sklearn(est, [*cols, Feature.boolean("a")])
        groups = [colour, size, Feature.boolean("a")]
        x = {"colour": "grey", "size": "m", "a": int(rng.integers(0, 2))}
        space = CellSpace(model, x, groups)
        pred = est.predict(np.array([row((x["colour"], x["size"], x["a"]))]))[0]
        with EnsembleOracle(space, shortcuts=False) as solver, EnsembleOracle(space) as bnb:
            for r in range(4):
                for fixed in itertools.combinations(range(3), r):
                    points = [v for v in grid if all(v[i] == list(x.values())[i] for i in fixed)]
                    rows = np.array([row(v) for v in points])
                    possible = bool((est.predict(rows) != pred).any())
                    assert (solver.check(fixed) is not None) == possible, (seed, fixed)
                    # the branch and bound alone (no greedy search, no exhaustive evaluation)
                    mask = np.isin(np.arange(3), fixed)
                    decided, w = bnb._search.branch_and_bound(mask, 10_000)
                    assert decided and (w is not None) == possible, (seed, fixed)
                    checked += 1
    assert checked == 20 * 8


@pytest.mark.slow
def test_a_deadline_inside_a_solver_call_is_a_timeout() -> None:
    """A deadline that ends inside a solver call raises OracleTimeout (which ends an
    enumeration quietly), whatever millisecond z3's timer fires at: never an error."""
    from sklearn.datasets import load_breast_cancer
    from sklearn.ensemble import RandomForestClassifier

    from xpg.explain.oracle_abc import OracleTimeout

    X, y = load_breast_cancer(return_X_y=True)
    rf = RandomForestClassifier(n_estimators=50, max_depth=6, random_state=0).fit(X, y)
    model = ensemble_from_sklearn(rf)
    timeouts = 0
    for k in range(20):
        with EnsembleOracle(CellSpace(model, list(X[k % 5])), shortcuts=False) as oracle:
            oracle.check(range(0, 30, 3))  # the solver is built
            oracle.deadline = time.perf_counter() + 0.0003 + 0.0002 * k
            try:
                oracle.check(range(0, 30, 2))
            except OracleTimeout:
                timeouts += 1
    assert timeouts > 5


@pytest.mark.slow
def test_deletion_defers_the_questions_only_a_solver_decides() -> None:
    """An AXp by deletion first asks without the solver and comes back to the questions the
    cheap decisions left open: the result is still a subset-minimal AXp (brute force), and
    such questions do occur (the greedy search is switched off so that more are left)."""
    from xpg.explain.axp_cxp import axp_from_fixed
    from xpg.explain.oracle_abc import Undecided

    deferred = 0
    for seed in range(600, 640):
        est, feats, model, x = _case(seed, ENSEMBLE_KINDS[seed % 4])
        truth = ensemble_oracle(est, feats, x)
        with EnsembleOracle(CellSpace(model, x), exhaustive_limit=0, bnb_nodes=0) as oracle:
            oracle._search.greedy = lambda free, passes=2, start=None: None  # type: ignore[method-assign]
            ask = oracle.check

            def counted(fixed, *, solver=True, ask=ask):
                nonlocal deferred
                try:
                    return ask(fixed, solver=solver)
                except Undecided:
                    deferred += 1
                    raise

            oracle.check = counted  # type: ignore[method-assign]
            axp = {oracle.space.names[i] for i in axp_from_fixed(oracle, oracle.tested())}
            assert frozenset(axp) in truth.axps, (seed, axp)
    assert deferred > 20


def _spaces():
    """Cell spaces of every small ensemble kind (plain features) and of one-hot groups."""
    for kind in ENSEMBLE_KINDS:
        for seed in range(15):
            _, _, model, x = _case(seed, kind)
            yield model, CellSpace(model, x)
    for seed in range(5):
        model, groups, x = one_hot_forest(seed)
        yield model, CellSpace(model, x, groups)


@pytest.mark.slow
def test_the_descent_over_cells_reaches_the_models_leaves() -> None:
    """The oracle evaluates inputs as cells (``CellLayout.leaf_indices``): on every cell
    choice of small ensembles, with and without groups, it reaches the leaves the model's
    own descent reaches on the rows those cells stand for."""
    rng = np.random.default_rng(0)
    for model, space in _spaces():
        cells = np.column_stack([rng.integers(0, k, 50) for k in space.n_cells])
        expected = model.leaf_indices(space.rows(cells))
        assert np.array_equal(space.layout.leaf_indices(cells), expected)


@pytest.mark.slow
def test_the_greedy_scores_along_a_feature_are_the_models() -> None:
    """The greedy search scores every cell of one feature from the leaf table (the leaves
    holding the current input on the other features): the same scores as the model's on
    those inputs (a forest's sum not divided by its trees), and any input it returns is of
    another class for scikit-learn's function; started from an input of another class, it
    finds one."""
    rng = np.random.default_rng(1)
    starts = climbed = 0
    for model, space in _spaces():
        with EnsembleOracle(space) as oracle:
            n_trees = len(model.trees) if model.json_type == "forest" else 1
            current = np.asarray([rng.integers(0, k) for k in space.n_cells])
            missed = np.stack(
                [oracle._search.table.excludes(i, c) for i, c in enumerate(current)], axis=1
            )
            for i, k in enumerate(space.n_cells):
                near = np.flatnonzero(missed.sum(axis=1) == missed[:, i])
                cells = np.tile(current, (k, 1))
                cells[:, i] = np.arange(k)
                expected = model.scores(space.rows(cells)) * n_trees
                assert np.allclose(oracle._search.scores_along(i, near), expected)
            found = oracle._search.greedy(np.arange(len(space.n_cells)))
            if found is not None:
                label = model.predict_batch(space.rows(found[None, :]))[0]
                assert label != oracle.prediction_label
            # from a start of another class, one feature free: found again (from the
            # instance, the other features there, mostly not)
            for _ in range(20):
                start = np.asarray([rng.integers(0, k) for k in space.n_cells])
                if model.predict_batch(space.rows(start[None, :]))[0] == oracle.prediction_label:
                    continue
                starts += 1
                one = np.array([rng.integers(0, len(space.n_cells))])
                found = oracle._search.greedy(one, start=start)
                if found is not None:
                    climbed += 1
                    label = model.predict_batch(space.rows(found[None, :]))[0]
                    assert label != oracle.prediction_label
    assert starts > 50 and climbed >= 0.9 * starts
