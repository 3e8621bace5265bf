"""scikit-learn's ``float32(x) <= t`` in the compiled graph and in the SMT encoding: one
bound (:mod:`xpg.core.float32`), so both agree with the rounding itself, at and beyond the
float32 range included."""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier

from xpg.compile import float32_cut, from_sklearn_tree
from xpg.compile.sklearn_tree import encode_sklearn_tree
from xpg.core.features import Feature
from xpg.core.float32 import FLOAT32_MAX, FLOAT32_OVERFLOW, float32_bound
from xpg.solvers.smt import SmtModel
from xpg.testing import float32_representatives

#: thresholds at, around and beyond the largest float32, of both signs
OVERFLOWING = [
    t
    for v in (FLOAT32_MAX, float(np.nextafter(FLOAT32_MAX, np.inf)), 3.5e38, 1e39, np.inf)
    for t in (v, -v)
] + [float(np.nextafter(FLOAT32_MAX, 0.0)), -float(np.nextafter(FLOAT32_MAX, 0.0))]


def _probes() -> list[float]:
    """float64 inputs at and next to every place the rounding changes near the range's end."""
    out = []
    for v in (FLOAT32_MAX, FLOAT32_OVERFLOW, 3.5e38, 1e39, 1e308, 1.0, 0.0):
        for x in (v, -v):
            out += [x, float(np.nextafter(x, np.inf)), float(np.nextafter(x, -np.inf))]
    return out


def _passes(x: float, t: float) -> bool:
    """scikit-learn's test: ``x`` rounded to float32, then compared in float64."""
    with np.errstate(over="ignore"):
        return float(np.float32(x)) <= t


def _one_split(t: float, X: list[list[float]]) -> DecisionTreeClassifier:
    """A fitted tree whose root splits at ``t``: class 0 on the left, 1 on the right."""
    clf = DecisionTreeClassifier(random_state=0).fit(X, [0, 1])
    clf.tree_.threshold[0] = t
    return clf


def _smt_classes(enc: SmtModel, name: str, xs: Iterable[Any]) -> list[int]:
    """The class the encoding gives each input, one solver call per input."""
    out = []
    with enc.solver() as s:
        for x in xs:
            s.push()
            s.add_assertion(enc.is_value(name, x))
            assert s.solve()
            out.append(int(s.get_value(enc.class_term).constant_value()))
            s.pop()
    return out


@pytest.mark.parametrize("t", OVERFLOWING)
def test_graph_and_smt_agree_with_float32_at_overflow(t: float) -> None:
    clf = _one_split(t, [[0.0], [1.0]])
    dg = from_sklearn_tree(clf)
    dg.validate()
    probes = _probes()
    expected = [0 if _passes(x, t) else 1 for x in probes]
    assert [dg.predict([x]) for x in probes] == expected
    assert _smt_classes(encode_sklearn_tree(clf), "x0", probes) == expected
    assert _smt_classes(dg.smt_encoding(), "x0", probes) == expected


@pytest.mark.parametrize("t", [0.99999999, 1.5, 1.99999999, 2.0000001])
def test_discrete_splits_compare_as_scikit_learn(t: float) -> None:
    """A categorical feature's codes: float32(v) compared in float64 with t, not with t
    rounded to float32 (0.99999999 rounds to 1.0 in float32, yet 1 does not pass it)."""
    clf = _one_split(t, [[0.0], [3.0]])
    codes = [Feature.categorical("n", [0, 1, 2, 3])]
    dg = from_sklearn_tree(clf, codes)
    enc = encode_sklearn_tree(clf, codes)
    expected = [0 if _passes(v, t) else 1 for v in range(4)]
    assert [dg.predict([v]) for v in range(4)] == expected == _smt_classes(enc, "n", range(4))


def test_bound_and_cut_are_the_rounding() -> None:
    rng = np.random.default_rng(0)
    ts = rng.normal(size=300) * 10.0 ** rng.integers(-40, 38, size=300)
    ts = np.concatenate([ts, np.float32(ts).astype(np.float64), OVERFLOWING])
    probes = _probes()
    for t in ts.tolist():
        bound, inclusive = float32_bound(t)
        cut = float32_cut(t)
        for x in probes + [t, cut, float(np.nextafter(cut, np.inf))]:
            if np.isinf(x):
                continue
            expected = _passes(x, t)
            assert (x <= cut) == expected, (t, x)
            if bound == np.inf:  # a threshold of +inf: every number passes
                assert expected, (t, x)
            else:
                b = Fraction(bound)
                assert (Fraction(x) < b or (inclusive and Fraction(x) == b)) == expected, (t, x)


def test_representatives_are_finite_on_each_side() -> None:
    for t in OVERFLOWING:
        reps = float32_representatives([t])
        assert reps and all(np.isfinite(reps)), t
        assert all(float(np.float32(r)) == r for r in reps)
        sides = {_passes(r, t) for r in reps}  # beyond the range, one side has no float32
        if t >= FLOAT32_MAX:
            assert sides == {True}, t
        elif t < -FLOAT32_MAX:
            assert sides == {False}, t
        else:
            assert sides == {True, False}, t
