"""The gbdt kind's shortcuts (xpg.models.gbdt): softmax_argmax, the class of the largest softmax
probability without the softmax when the top two scores are far apart, equal to the full
softmax's argmax always; the one-row sums equal to the batch's."""

from __future__ import annotations

import numpy as np
import pytest

from xpg.core.features import Feature
from xpg.models.ensemble_tree import EnsembleTree
from xpg.models.gbdt import GBDT, SOFTMAX_GAP, softmax, softmax_argmax


def _full(scores: np.ndarray, precision: str) -> np.ndarray:
    return np.argmax(softmax(scores, precision), axis=1)  # type: ignore[arg-type]


@pytest.mark.parametrize("precision", ["float32", "float64"])
def test_near_ties_where_the_softmax_rounds_are_decided_by_it(precision: str) -> None:
    gap = SOFTMAX_GAP[precision]
    tiny = 2.0**-30 if precision == "float32" else 2.0**-60
    rows = np.array([[0.0, tiny, -3.0], [0.0, -tiny, tiny], [0.0, gap * 2, 0.0]])
    got = softmax_argmax(rows, precision)  # type: ignore[arg-type]
    assert got.tolist() == _full(rows, precision).tolist()
    # the first two rows: the rounded probabilities tie, the first index wins (the scores'
    # own argmax is another); the third: far enough apart, the scores' argmax
    assert got.tolist() == [0, 0, 1] and np.argmax(rows, axis=1).tolist() == [1, 2, 1]


@pytest.mark.parametrize("precision", ["float32", "float64"])
@pytest.mark.parametrize("n_rows", [1, 3, 300])
def test_random_scores_and_crafted_gaps_agree_with_the_full_softmax(
    precision: str, n_rows: int
) -> None:
    rng = np.random.default_rng(7)
    deltas = [0.0, 1e-12, 2.0**-45, 2.0**-41, 2.0**-40, 2.0**-39, 2.0**-20, 2.0**-18, 1e-5]
    compared = 0
    for _ in range(200):
        k = int(rng.integers(2, 9))
        x = rng.normal(size=(n_rows, k)) * rng.choice([1e-6, 1.0, 40.0, 300.0])
        i, j = rng.integers(0, k, n_rows), rng.integers(0, k, n_rows)
        x[np.arange(n_rows), i] = x[np.arange(n_rows), j] + rng.choice(deltas, n_rows) * rng.choice(
            [-1.0, 1.0], n_rows
        )
        if precision == "float32":
            x = x.astype(np.float32).astype(np.float64)
        assert softmax_argmax(x, precision).tolist() == _full(x, precision).tolist()  # type: ignore[arg-type]
        compared += n_rows
    assert compared == 200 * n_rows


@pytest.mark.filterwarnings("ignore:invalid value")
def test_non_finite_scores_take_the_full_softmax() -> None:
    rows = np.array([[np.inf, np.inf, 0.0], [0.0, -np.inf, 1.0]])
    assert softmax_argmax(rows, "float32").tolist() == _full(rows, "float32").tolist()


def _stump(rng: np.random.Generator, n_scores: int, column: int) -> EnsembleTree:
    value = np.zeros((3, n_scores))
    value[1:, column] = rng.normal(size=2).astype(np.float32)
    return EnsembleTree(
        np.array([int(rng.integers(2)), -1, -1]),
        np.array([float(rng.normal()), 0.0, 0.0]),
        np.array([1, -1, -1]),
        np.array([2, -1, -1]),
        value,
    )


@pytest.mark.parametrize(
    ("precision", "decision", "average"),
    [
        ("float32", "softmax-argmax", False),
        ("float64", "argmax", True),
        ("float32", "threshold", False),
    ],
)
def test_one_row_scores_are_the_batchs(precision: str, decision: str, average: bool) -> None:
    rng = np.random.default_rng(11)
    n_scores = 1 if decision == "threshold" else 3
    trees = [_stump(rng, n_scores, t % n_scores) for t in range(30 * n_scores)]
    model = GBDT(
        [Feature.real("a"), Feature.real("b")],
        [0, 1] if n_scores == 1 else [0, 1, 2],
        trees,
        [0.25] * n_scores,
        precision=precision,  # type: ignore[arg-type]
        decision=decision,  # type: ignore[arg-type]
        average=average,
    )
    X = rng.normal(size=(40, 2))
    leaves = model.leaf_indices(X)
    batch = model.scores_of_leaves(leaves)
    rows = np.concatenate([model.scores_of_leaves(leaves[i : i + 1]) for i in range(40)])
    assert rows.dtype == batch.dtype and np.array_equal(rows, batch)
    assert len(set(model.classes_of_scores(batch).tolist())) > 1
