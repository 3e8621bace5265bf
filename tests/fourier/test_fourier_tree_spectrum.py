"""Exact spectra of decision-tree removal games against the brute-force transform."""

from __future__ import annotations

import numpy as np
import pytest

from xpg.compile import from_sklearn_tree
from xpg.core.features import Feature, Literal
from xpg.core.graph import DecisionGraph
from xpg.errors import InvalidGameError, InvalidInstanceError
from xpg.fourier.basis import fourier_transform
from xpg.fourier.game import TabularGame
from xpg.fourier.harmonica import Harmonica
from xpg.fourier.masks import all_masks
from xpg.fourier.metrics import interpretation_error, spectrum_distance, truthful_gap
from xpg.fourier.tree_spectrum import DecisionGraphGame, tree_game_spectrum
from xpg.testing import random_real_sklearn_tree


def random_tree(seed: int):
    """A tree on normal columns (three classes when ``seed % 3 == 0``), its data, and the
    random stream it was drawn from (to draw instances on)."""
    rng = np.random.default_rng(seed)
    clf, X = random_real_sklearn_tree(rng, three_classes=seed % 3 == 0, random_state=seed)
    return clf, X, rng


@pytest.mark.parametrize("seed", range(40))
def test_tree_spectrum_equals_brute_force_transform(seed: int) -> None:
    clf, X, rng = random_tree(seed)
    n = X.shape[1]
    dg = from_sklearn_tree(clf)
    instance = X[int(rng.integers(len(X)))]
    if seed % 2:
        rule = {"background": X[rng.choice(len(X), size=6, replace=False)]}
    else:
        rule = {"baseline": X[int(rng.integers(len(X)))]}
    spectrum = tree_game_spectrum(dg, list(instance), **rule)
    game = DecisionGraphGame(dg, list(instance), **rule)
    table = game.truth_table()
    # the game itself, independently through scikit-learn's predict on the mixed rows
    target = clf.predict(instance[None])[0]
    sk = TabularGame(lambda rows: (clf.predict(rows) == target).astype(float), instance, **rule)
    np.testing.assert_allclose(sk.truth_table(), table, atol=1e-15)
    brute = fourier_transform(table)
    assert spectrum_distance(spectrum, brute, order=np.inf) < 1e-12
    # Parseval: the energy of the spectrum is the mean square of the game
    energy = sum(c * c for c in spectrum.coefficients.values())
    assert energy == pytest.approx(float(np.mean(table**2)), rel=1e-12, abs=1e-15)
    # the exact spectrum, all degrees kept, has zero interpretation error everywhere
    err = interpretation_error(game, spectrum.truncate(n), radius=None)
    assert err.exact and err.l1 < 1e-12 and err.fraction_above == 0.0


def test_class_values_and_targets() -> None:
    clf, X, _ = random_tree(3)  # three classes
    dg = from_sklearn_tree(clf)
    instance, baseline = list(X[5]), list(X[17])
    parts = [tree_game_spectrum(dg, instance, baseline=baseline, target=c) for c in dg.classes]
    total = parts[0] + parts[1] + parts[2]
    n = X.shape[1]
    np.testing.assert_allclose(total(all_masks(n)), 1.0, atol=1e-12)  # indicators sum to one
    weights = {c: float(k) for k, c in enumerate(dg.classes)}
    weighted = tree_game_spectrum(dg, instance, baseline=baseline, class_values=weights)
    brute = fourier_transform(
        DecisionGraphGame(dg, instance, baseline=baseline, class_values=weights).truth_table()
    )
    assert spectrum_distance(weighted, brute, order=np.inf) < 1e-12


def test_dag_with_repeated_tests_and_categorical_features() -> None:
    colour = Feature.categorical("colour", ["r", "g", "b"])
    size = Feature.integer("size", 0, 9)
    dg = DecisionGraph([colour, size, Feature.boolean("flag")], classes=["no", "yes"])
    for node, feature in [
        ("root", "colour"),
        ("s1", "size"),
        ("s2", "size"),
        ("c2", "colour"),
        ("f", "flag"),
    ]:
        dg.add_node(node, feature)
    dg.add_terminal("Y", "yes")
    dg.add_terminal("N", "no")
    dg.add_edge("root", "s1", Literal.isin("colour", ["r"]))
    dg.add_edge("root", "s2", Literal.isin("colour", ["g", "b"]))
    dg.add_edge("s1", "f", Literal.le("size", 4))  # two parents for "f": a DAG
    dg.add_edge("s1", "N", Literal.gt("size", 4))
    dg.add_edge("s2", "c2", Literal.le("size", 2))
    dg.add_edge("s2", "f", Literal.gt("size", 2))
    dg.add_edge("c2", "Y", Literal.isin("colour", ["g"]))  # colour tested again
    dg.add_edge("c2", "N", Literal.isin("colour", ["b"]))
    dg.add_edge("f", "Y", Literal.eq("flag", 1))
    dg.add_edge("f", "N", Literal.eq("flag", 0))
    dg.validate()
    for instance in (["g", 1, 0], ["r", 3, 1], ["b", 7, 1]):
        for rule in ({"baseline": ["r", 8, 0]}, {"background": [["b", 0, 1], ["g", 2, 0]]}):
            spectrum = tree_game_spectrum(dg, instance, **rule)
            game = DecisionGraphGame(dg, instance, **rule)
            brute = fourier_transform(game.truth_table())
            assert spectrum_distance(spectrum, brute, order=np.inf) < 1e-12
            assert spectrum.feature_names == ("colour", "size", "flag")


def test_feature_tested_twice_with_unrestricted_thresholds() -> None:
    """x is tested at the root and again below with thresholds that do not restrict the
    literals to the values still possible, so the mask bit of x meets itself (x_i^2 = 1):
    checked against the transform of the game written from its definition."""
    import itertools

    dg = DecisionGraph([Feature.real("x", 0.0, 10.0), Feature.boolean("y")], classes=[0, 1])
    for node, feature in [("r", "x"), ("n1", "x"), ("ny", "y"), ("n2", "y"), ("n3", "x")]:
        dg.add_node(node, feature)
    dg.add_terminal("t0", 0)
    dg.add_terminal("t1", 1)
    dg.add_edge("r", "n1", Literal.le("x", 5.0))
    dg.add_edge("r", "n2", Literal.gt("x", 5.0))
    dg.add_edge("n1", "t1", Literal.le("x", 2.0))
    dg.add_edge("n1", "ny", Literal.gt("x", 2.0))
    dg.add_edge("ny", "t1", Literal.eq("y", 1))
    dg.add_edge("ny", "t0", Literal.eq("y", 0))
    dg.add_edge("n2", "t0", Literal.eq("y", 1))
    dg.add_edge("n2", "n3", Literal.eq("y", 0))
    dg.add_edge("n3", "t1", Literal.le("x", 7.0))  # admits x <= 5 too: not restricted
    dg.add_edge("n3", "t0", Literal.gt("x", 7.0))
    dg.validate()
    grid = itertools.product([1.0, 3.0, 6.0, 9.0], [0, 1], [1.0, 3.0, 6.0, 9.0], [0, 1])
    for xi, yi, xb, yb in grid:
        instance, rows = [xi, yi], [[xb, yb], [4.0, 1 - yb]]
        target = dg.predict(instance)
        for rule in ({"baseline": rows[0]}, {"background": rows}):
            used = rows[:1] if "baseline" in rule else rows
            table = np.array(
                [
                    np.mean(
                        [
                            dg.predict([instance[i] if m[i] > 0 else row[i] for i in range(2)])
                            == target
                            for row in used
                        ]
                    )
                    for m in all_masks(2)
                ]
            )
            spectrum = tree_game_spectrum(dg, instance, **rule)
            assert spectrum_distance(spectrum, fourier_transform(table), order=np.inf) < 1e-12


def test_spectrum_is_ground_truth_for_sampled_estimators() -> None:
    clf, X, _ = random_tree(4)
    dg = from_sklearn_tree(clf)
    n = X.shape[1]
    spectrum = tree_game_spectrum(dg, list(X[0]), baseline=list(X.mean(axis=0)))
    game = DecisionGraphGame(dg, list(X[0]), baseline=list(X.mean(axis=0)))
    fit = Harmonica(degree=n, n_samples=3 * 2**n, alpha=0.0, random_state=0).fit(game)
    assert spectrum_distance(fit.interpretation_, spectrum, order=np.inf) < 1e-9
    assert truthful_gap(fit.interpretation_, spectrum, degree=n) < 1e-18
    np.testing.assert_allclose(spectrum(all_masks(n)), game.truth_table(), atol=1e-12)


def test_bad_input() -> None:
    clf, X, _ = random_tree(1)
    dg = from_sklearn_tree(clf)
    with pytest.raises(InvalidGameError, match="exactly one removal rule"):
        tree_game_spectrum(dg, list(X[0]))
    with pytest.raises(InvalidInstanceError, match="baseline: expected"):
        tree_game_spectrum(dg, list(X[0]), baseline=[0.0])
    with pytest.raises(InvalidGameError, match="target: expected one of the classes"):
        tree_game_spectrum(dg, list(X[0]), baseline=list(X[1]), target="nope")
    with pytest.raises(InvalidGameError, match="expected a value for every class"):
        tree_game_spectrum(dg, list(X[0]), baseline=list(X[1]), class_values={0: 1.0})
