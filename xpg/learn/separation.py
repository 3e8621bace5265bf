"""How separated is a labelled dataset?  r-separation and linear separation (Table 2 of the paper).

A binary labelled dataset is *r-separated* when any two points of different labels are at
l-infinity distance at least ``2r``; it is *gamma-linearly separable* when some ``w`` of l1 norm 1
has ``y * (w . x) >= gamma`` on every point (Moshkovitz, Yang and Chaudhuri, ICML 2021, Sec. 3
and 5).  The *separateness* of a dataset is one minus the smallest fraction of its points whose
removal makes it so.

* :func:`separation_distance`: the smallest l-infinity distance between two points of different
  labels, i.e. ``2r`` for the largest ``r`` at which the data is r-separated (a KD-tree query
  per class: ``O(n log n)`` time, linear memory);
* :func:`r_separation`: the minimum number of points to remove for r-separation, exactly: a
  minimum vertex cover of the bipartite graph of conflicting pairs (different labels, distance
  below ``2r``), whose size is that of a maximum matching (Konig's theorem), as Yang et al.
  2020 compute it (equal points merged, the matching then a maximum flow);
* :func:`linear_separateness`: the paper's approximation (optimal linear separateness is
  NP-hard): an l1-regularised linear SVM for each ``C`` in ``1e-10, 1e-8, ..., 1e10``, the
  lowest training error; ``gamma`` is then the largest l1-normalised margin of the points that
  SVM classifies correctly, computed exactly by a linear programme.

Examples
--------
>>> import numpy as np
>>> X = np.array([[0.0, 0.0], [0.0, 0.5], [1.0, 1.0], [0.75, 1.0]])
>>> y = np.array([0, 1, 1, 0])
>>> separation_distance(X, y)
0.25
>>> sep = r_separation(X, y, 0.25)
>>> sep.n_removed, sep.separateness, sep.separation
(1, 0.75, 0.5)

References
----------
Moshkovitz, Yang, Chaudhuri. Connecting Interpretability and Robustness in Decision Trees
through Separation. ICML 2021, Sec. 3, Sec. 6.1 and Table 2;
Yang, Rashtchian, Wang, Chaudhuri. Robustness for Non-Parametric Classification: A Generic
Attack and Defense. AISTATS 2020 (adversarial pruning).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from xpg.core.validation import Interval, check_param
from xpg.errors import InvalidDataError, InvalidParameterError

#: The regularisation grid of the paper's linear separateness (Sec. 6.1).
PAPER_CS: tuple[float, ...] = tuple(10.0**k for k in range(-10, 11, 2))


def _matrix(X: Any) -> np.ndarray:
    """``X`` as a 2-D float array of finite numbers (``-0.0`` made ``0.0``)."""
    try:
        M = np.asarray(X, dtype=float)
    except (TypeError, ValueError, OverflowError):
        raise InvalidDataError("X: expected numbers (encode categories first)") from None
    if M.ndim != 2:
        raise InvalidDataError(f"X: expected a 2-D array, found shape {M.shape}")
    bad = ~np.isfinite(M)
    if bad.any():
        i, j = (int(k) for k in np.argwhere(bad)[0])
        found = "NaN (a missing value)" if np.isnan(M[i, j]) else str(float(M[i, j]))
        more = int(bad.sum()) - 1
        raise InvalidDataError(
            f"X: expected finite numbers, found {found} at row {i}, column {j}"
            + (f" (and {more} more non-finite value{'s' * (more > 1)})" if more else "")
        )
    return M + 0.0  # -0.0 becomes 0.0: equal rows have equal bytes


def _check(X: Any, y: Any, *, binary: bool) -> tuple[np.ndarray, np.ndarray]:
    """``X`` as a 2-D array of finite floats and ``y`` as a 1-D array of the same length."""
    M = _matrix(X)
    labels = np.asarray(y)
    if labels.ndim != 1 or len(labels) != len(M):
        raise InvalidDataError(
            f"y: expected one label per row of X ({len(M)}), found shape {labels.shape}"
        )
    if binary and len(np.unique(labels)) > 2:
        raise InvalidDataError(
            f"y: expected two classes, found {len(np.unique(labels))} "
            "(r-separation and linear separation are defined for binary labels)"
        )
    return M, labels


#: the accepted radii ``r``: finite numbers >= 0
_RADIUS = Interval(float, 0, None)


def _min_gap(M: np.ndarray) -> float:
    """The smallest positive difference between two values of one column (``inf`` if none).

    Two different rows differ by at least this much on some column, so their l-infinity
    distance is at least this much.
    """
    gap = math.inf
    for column in M.T:
        values = np.unique(column)
        if len(values) > 1:
            gap = min(gap, float(np.min(np.diff(values))))
    return gap


def separation_distance(X: Any, y: Any) -> float:
    """The smallest l-infinity distance between two points of different labels (``2r``).

    The data is r-separated exactly for ``r <= separation_distance(X, y) / 2``.  ``inf`` when
    the labels are all equal.  Per label, the distinct rows of that label query a KD-tree
    (``p=inf``) of the distinct rows of the others: ``O(n log n)`` time in the usual case and
    linear memory, even on 30,000 rows.  When no column spans more than the smallest gap
    between two values of a column (binary data), different rows are exactly that gap apart
    and no tree is needed.

    Parameters
    ----------
    X : array-like of shape (n, d)
    y : array-like of shape (n,)
        Any number of labels.

    Returns
    -------
    float

    Examples
    --------
    >>> separation_distance([[0, 0], [3, 1], [1, 0.5]], ["a", "b", "b"])
    1.0
    """
    from scipy.spatial import cKDTree

    M, labels = _check(X, y, binary=False)
    best = math.inf
    classes = np.unique(labels)
    for c in classes[:-1] if len(classes) == 2 else classes:
        mine = labels == c
        # binarised data repeats few rows many times: distinct rows only
        A, B = np.unique(M[mine], axis=0), np.unique(M[~mine], axis=0)
        if not len(A) or not len(B):
            continue
        rows_b = {row.tobytes() for row in B}
        if any(row.tobytes() in rows_b for row in A):
            return 0.0
        both = np.vstack([A, B])
        gap = _min_gap(both)
        if float(np.max(np.ptp(both, axis=0))) <= gap:
            # every two different rows are exactly `gap` apart (binary data: 1)
            best = min(best, gap)
            continue
        small, large = (A, B) if len(A) <= len(B) else (B, A)
        d, _ = cKDTree(large).query(small, k=1, p=np.inf, distance_upper_bound=best)
        best = min(best, float(np.min(d)))
    return best


@dataclass(frozen=True)
class RSeparation:
    """The answer of :func:`r_separation`.

    Attributes
    ----------
    r : float
    n_samples : int
    n_removed : int
        The minimum number of points whose removal leaves the data r-separated.
    separateness : float
        ``1 - n_removed / n_samples``.
    keep : numpy.ndarray of bool
        The points kept (the complement of a minimum vertex cover of the conflict graph).
    separation : float
        :func:`separation_distance` of the points kept (at least ``2r``; ``inf`` if one label
        is left).
    """

    r: float
    n_samples: int
    n_removed: int
    separateness: float
    keep: np.ndarray
    separation: float


def conflict_pairs(X: Any, y: Any, r: float) -> list[tuple[int, int]]:
    """The pairs ``(i, j)``, ``i`` of the first label and ``j`` of the second, at l-infinity
    distance below ``2r`` (a KD-tree query; memory in the number of pairs).

    Examples
    --------
    >>> conflict_pairs([[0.0], [0.15], [0.5]], [0, 1, 1], 0.1)
    [(0, 1)]
    """
    from scipy.spatial import cKDTree

    r = check_param("r", r, _RADIUS)
    M, labels = _check(X, y, binary=True)
    classes = np.unique(labels)
    if len(classes) < 2 or r <= 0:
        return []
    first = np.flatnonzero(labels == classes[0])
    second = np.flatnonzero(labels == classes[1])
    if 2.0 * r <= _min_gap(M):  # only equal rows are closer than 2r: match them by bytes
        where: dict[bytes, list[int]] = {}
        for j in second:
            where.setdefault(M[j].tobytes(), []).append(int(j))
        return [(int(i), j) for i in first for j in where.get(M[i].tobytes(), [])]
    # distance < 2r  <=>  distance <= the largest float below 2r
    reach = math.nextafter(2.0 * r, 0.0)
    near = cKDTree(M[first]).query_ball_tree(cKDTree(M[second]), reach, p=np.inf)
    return [(int(first[a]), int(second[b])) for a, bs in enumerate(near) for b in sorted(bs)]


def r_separation(X: Any, y: Any, r: float) -> RSeparation:
    """The minimum number of points to remove so that the data becomes r-separated.

    Two points of different labels *conflict* when their l-infinity distance is below ``2r``.
    Removing a set of points leaves no conflict exactly when it covers every edge of the
    conflict graph, which is bipartite (an edge joins the two labels), so a minimum vertex cover
    has the size of a maximum matching (Konig's theorem), as in Yang et al. 2020.  Equal points
    of one label have the same neighbours, and a minimum cover takes all of them or none, so
    they are merged into one vertex weighted by their number: the matching becomes a maximum
    flow (capacities = multiplicities) and the cover a minimum cut, both with networkx.  This
    keeps binarised data (thousands of copies of a few rows) as small as its distinct rows.
    When ``2r`` is at most the smallest gap between two values of a column, only equal rows
    conflict, and they are matched by their bytes instead of a KD-tree query.

    Parameters
    ----------
    X : array-like of shape (n, d)
    y : array-like of shape (n,)
        Two labels (one is allowed: nothing conflicts).
    r : float
        The radius, ``r >= 0`` (the paper uses ``1e-5``: only near-duplicates conflict).

    Returns
    -------
    RSeparation

    Raises
    ------
    InvalidDataError
        Non-numeric, missing (NaN) or infinite values, mismatched lengths, more than two labels.
    InvalidParameterError
        A negative or non-finite ``r``.

    Examples
    --------
    >>> res = r_separation([[0.0], [0.0], [0.0], [5.0]], [1, 1, 0, 0], 1e-5)
    >>> res.n_removed, res.keep.tolist()
    (1, [True, True, False, True])
    """
    import networkx as nx

    r = check_param("r", r, _RADIUS)
    M, labels = _check(X, y, binary=True)
    keep = np.ones(len(M), dtype=bool)
    classes = np.unique(labels)
    if len(classes) == 2 and r > 0:
        sides = []
        for c in classes:
            rows = np.flatnonzero(labels == c)
            distinct, inverse, counts = np.unique(
                M[rows], axis=0, return_inverse=True, return_counts=True
            )
            sides.append((rows, distinct, inverse.ravel(), counts))
        (rows_a, pts_a, inv_a, cnt_a), (rows_b, pts_b, inv_b, cnt_b) = sides
        pairs = conflict_pairs(
            np.vstack([pts_a, pts_b]),
            np.r_[np.zeros(len(pts_a), int), np.ones(len(pts_b), int)],
            r,
        )
        if pairs:
            graph = nx.DiGraph()
            for i, j in pairs:
                j -= len(pts_a)
                graph.add_edge("s", ("a", i), capacity=int(cnt_a[i]))
                graph.add_edge(("a", i), ("b", j))  # no capacity: infinite
                graph.add_edge(("b", j), "t", capacity=int(cnt_b[j]))
            _, (source_side, _) = nx.minimum_cut(graph, "s", "t")
            # the cut's edges: s -> a outside the source side, b -> t inside it
            cut_a = {i for kind, i in (n for n in graph if isinstance(n, tuple)) if kind == "a"}
            cut_a = {i for i in cut_a if ("a", i) not in source_side}
            cut_b = {n[1] for n in source_side if isinstance(n, tuple) and n[0] == "b"}
            keep[rows_a[np.isin(inv_a, list(cut_a))]] = False
            keep[rows_b[np.isin(inv_b, list(cut_b))]] = False
    removed = int((~keep).sum())
    return RSeparation(
        r=float(r),
        n_samples=len(M),
        n_removed=removed,
        separateness=1.0 - removed / len(M) if len(M) else 1.0,
        keep=keep,
        separation=separation_distance(M[keep], labels[keep]) if keep.any() else math.inf,
    )


@dataclass(frozen=True)
class LinearSeparateness:
    """The answer of :func:`linear_separateness`.

    Attributes
    ----------
    error : float
        The lowest training error over the grid of ``C``.
    separateness : float
        ``1 - error``.
    C : float
        The ``C`` reaching it (the smallest one on ties).
    coef : numpy.ndarray
        That SVM's weights; ``intercept`` its bias.
    intercept : float
    keep : numpy.ndarray of bool
        The points that SVM classifies correctly (strictly on their side).
    gamma : float
        The largest margin ``min y_i (w . x_i + b)`` over ``||w||_1 + |b| = 1`` on the points
        kept (the bias as a weight on a constant feature of value 1, as the authors' code
        adds it), labels mapped to -1 and +1; ``nan`` when no point is kept.
    errors : dict
        The training error at every ``C`` of the grid.
    """

    error: float
    separateness: float
    C: float
    coef: np.ndarray
    intercept: float
    keep: np.ndarray
    gamma: float
    errors: dict[float, float]


def max_l1_margin(X: Any, signs: Any) -> tuple[float, np.ndarray, float]:
    """The largest ``gamma`` with ``signs_i * (w . x_i + b) >= gamma`` for all ``i`` and
    ``||w||_1 + |b| <= 1``, by a linear programme (HiGHS); returns ``(gamma, w, b)``.

    ``gamma`` is 0 when the points are not strictly linearly separable (``w = 0, b = 0``).

    Examples
    --------
    >>> gamma, w, b = max_l1_margin([[0.0], [1.0]], [-1, 1])
    >>> round(gamma, 6), w.round(6).tolist(), round(b, 6)
    (0.333333, [0.666667], -0.333333)
    """
    from scipy.optimize import linprog
    from scipy.sparse import csr_matrix, hstack

    M = _matrix(X)
    try:
        s = np.asarray(signs, dtype=float)
    except (TypeError, ValueError):
        raise InvalidDataError("signs: expected -1 or 1 per row of X") from None
    if s.ndim != 1 or len(s) != len(M):
        raise InvalidDataError(
            f"signs: expected one sign per row of X ({len(M)}), found shape {s.shape}"
        )
    off = np.flatnonzero(np.abs(s) != 1.0)
    if len(off):
        raise InvalidDataError(f"signs: expected -1 or 1, found {s[off[0]]} at row {off[0]}")
    n, d = M.shape
    # variables: w+ (d), w- (d), b+, b-, gamma (free); maximise gamma
    A = csr_matrix(s[:, None] * M)
    ones = csr_matrix(s[:, None])
    # gamma - s_i (w . x_i + b) <= 0
    rows = hstack([-A, A, -ones, ones, csr_matrix(np.ones((n, 1)))]).tocsr()
    norm = csr_matrix(np.concatenate([np.ones(2 * d + 2), [0.0]])[None, :])
    A_ub = hstack([rows.T, norm.T]).T.tocsr()
    b_ub = np.concatenate([np.zeros(n), [1.0]])
    c = np.zeros(2 * d + 3)
    c[-1] = -1.0
    bounds = [(0, None)] * (2 * d + 2) + [(None, None)]
    res = linprog(c, A_ub=A_ub, b_ub=b_ub, bounds=bounds, method="highs")
    if res.status != 0:  # pragma: no cover - the programme is always feasible and bounded
        raise InvalidDataError(f"the margin linear programme failed: {res.message}")
    z = res.x
    return float(z[-1]), z[:d] - z[d : 2 * d], float(z[2 * d] - z[2 * d + 1])


def linear_separateness(
    X: Any, y: Any, Cs: Sequence[float] = PAPER_CS, *, max_iter: int = 1000, random_state: int = 0
) -> LinearSeparateness:
    """Approximate linear separateness as the paper does, and the margin gamma of the result.

    For each ``C`` an l1-regularised linear SVM (scikit-learn's ``LinearSVC(penalty="l1",
    dual=False)``, squared hinge loss, with an intercept) is fitted on all the data; the lowest
    training error approximates one minus the optimal linear separateness (computing the
    optimum is NP-hard).  The points that SVM classifies correctly are linearly separated;
    ``gamma`` is their largest l1-normalised margin, computed exactly by
    :func:`max_l1_margin`.

    Parameters
    ----------
    X : array-like of shape (n, d)
    y : array-like of shape (n,)
        Two labels; the larger one (in sorted order) is the positive class.
    Cs : sequence of float
        The regularisation grid (default the paper's ``1e-10, 1e-8, ..., 1e10``).
    max_iter : int
        liblinear's iteration limit per fit (scikit-learn's default; on adult, 10 times more
        iterations cost 5 times the time and change no training error by more than 0.0002).
    random_state : int

    Returns
    -------
    LinearSeparateness

    Examples
    --------
    >>> res = linear_separateness([[0.0], [0.2], [0.8], [1.0]], [0, 0, 1, 1])
    >>> res.error, round(res.gamma, 3)
    (0.0, 0.2)
    """
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.svm import LinearSVC

    M, labels = _check(X, y, binary=True)
    if not Cs:
        raise InvalidParameterError(f"Cs: expected one number > 0 or more, found {Cs!r}")
    Cs = [
        check_param(f"Cs[{i}]", C, Interval(float, 0, None, closed="neither"))
        for i, C in enumerate(Cs)
    ]
    max_iter = check_param("max_iter", max_iter, Interval(int, 1, None))
    classes = np.unique(labels)
    signs = np.where(labels == classes[-1], 1.0, -1.0)
    errors: dict[float, float] = {}
    best: tuple[float, float, np.ndarray, float, np.ndarray] | None = None
    for C in Cs:
        if len(classes) < 2:
            coef, intercept = np.zeros(M.shape[1]), float(signs[0]) if len(signs) else 1.0
        else:
            svm = LinearSVC(
                penalty="l1", dual=False, C=float(C), max_iter=max_iter, random_state=random_state
            )
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                svm.fit(M, signs)
            coef, intercept = svm.coef_.ravel().copy(), float(svm.intercept_[0])
        keep = signs * (M @ coef + intercept) > 0
        error = float(1.0 - keep.mean()) if len(M) else 0.0
        errors[float(C)] = error
        if best is None or error < best[0]:
            best = (error, float(C), coef, intercept, keep)
    assert best is not None
    error, C, coef, intercept, keep = best
    gamma = max_l1_margin(M[keep], signs[keep])[0] if keep.any() else math.nan
    return LinearSeparateness(
        error=error,
        separateness=1.0 - error,
        C=C,
        coef=coef,
        intercept=intercept,
        keep=keep,
        gamma=gamma,
        errors=errors,
    )


__all__ = [
    "PAPER_CS",
    "LinearSeparateness",
    "RSeparation",
    "conflict_pairs",
    "linear_separateness",
    "max_l1_margin",
    "r_separation",
    "separation_distance",
]
