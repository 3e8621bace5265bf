"""Precision error of a feature set: sampled with a confidence interval, or exact.

For a model ``f``, an instance ``x`` and a feature set ``S``, the precision error is
``Pr_z[f(z) != f(x) | z_S = x_S]`` for ``z`` drawn from a distribution (Def. 1 of Blanc et
al.; Eq. 1 of Koriche et al.).  Three ways to get it:

* ``"sampled"``: ``n`` draws agreeing with ``x`` on ``S``; the estimate comes with a
  Clopper-Pearson interval and the number of model queries.
* ``"exact-propagation"``: no sampling, for a compiled decision tree or read-once decision
  graph under a product distribution.  On a tree, each root-to-terminal path has probability
  ``prod_j P(z_j in A_j)`` where ``A_j`` is the set the path allows for feature ``j`` (the
  instance's value decides it for ``j`` in ``S``); on a read-once graph (no feature twice on a
  path) the edge probabilities are independent and are pushed forward in topological order.
* ``"exact-enumeration"``: every completion of ``x_S`` with its probability (finite product
  distributions), or every row of the training data: exact for any black box, and the
  independent check of the other two in the tests.

Examples
--------
>>> from xpg.examples import and_graph
>>> dg = and_graph()  # a and b
>>> est = precision_error(dg, {"a": 1, "b": 1}, ["a"])
>>> est.error, est.method
(0.5, 'exact-propagation')
>>> precision_error(dg, {"a": 1, "b": 1}, ["a"], method="enumerate").error
0.5
>>> s = precision_error(dg, {"a": 1, "b": 1}, ["a"], method="sample", n_samples=2000, seed=0)
>>> s.method, s.low <= 0.5 <= s.high, s.n_queries
('sampled', True, 2000)

References
----------
Blanc, Lange, Tan. Provably efficient, succinct, and precise explanations. NeurIPS 2021,
Def. 1; Koriche, Lagniez, Mengel, Tran. Learning Model Agnostic Explanations via Constraint
Programming, Eq. 1; Clopper, Pearson. The use of confidence or fiducial limits illustrated in
the case of the binomial. Biometrika 1934.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal, get_args

import numpy as np
import portion as P
from scipy.stats import beta

from xpg.core.features import Feature, ValueSet
from xpg.core.graph import DecisionGraph
from xpg.core.validation import Interval, Options, check_param
from xpg.errors import (
    ExactPrecisionUnavailableError,
    InvalidFeatureSetError,
    InvalidGraphError,
    InvalidParameterError,
)
from xpg.probabilistic.blackbox import BlackBox, QueryCounter
from xpg.probabilistic.distributions import (
    EmpiricalDistribution,
    SamplingDistribution,
    Seed,
    default_distribution,
    instance_row,
    make_rng,
)

PrecisionMethod = Literal["auto", "exact", "enumerate", "sample"]
PRECISION_METHODS: tuple[str, ...] = get_args(PrecisionMethod)
Route = Literal["exact-propagation", "exact-enumeration", "sampled"]
FeatureSet = Iterable[str] | Iterable[int] | np.ndarray

#: Tolerance on the total probability of the terminals (it must be 1).
TOTAL_TOLERANCE = 1e-9


@dataclass(frozen=True)
class PrecisionEstimate:
    """The precision error of a feature set and how it was obtained.

    Attributes
    ----------
    error : float
        ``Pr[f(z) != f(x) | z_S = x_S]`` (exact, or the sample mean).
    method : {"exact-propagation", "exact-enumeration", "sampled"}
    low, high : float
        Confidence interval (equal to ``error`` when exact).
    confidence : float or None
        Level of the interval (None when exact).
    n_samples : int
        Draws used (0 for propagation; the number of completions for enumeration).
    n_queries : int
        Model queries made (0 for propagation).
    """

    error: float
    method: Route
    low: float
    high: float
    confidence: float | None
    n_samples: int
    n_queries: int

    @property
    def precision(self) -> float:
        """``1 - error``."""
        return 1.0 - self.error

    @property
    def exact(self) -> bool:
        """True when no sampling was involved."""
        return self.method != "sampled"

    def to_json(self) -> dict[str, Any]:
        """The estimate as a JSON-ready dict (one entry per field)."""
        return asdict(self)


def subset_mask(features: Sequence[Feature], subset: FeatureSet) -> np.ndarray:
    """A feature set (names, indices or a boolean mask) as a boolean mask over ``features``.

    Examples
    --------
    >>> subset_mask([Feature.boolean("a"), Feature.boolean("b")], ["b"]).tolist()
    [False, True]
    """
    d = len(features)
    if isinstance(subset, np.ndarray) and subset.dtype == bool:
        if subset.shape != (d,):
            raise InvalidFeatureSetError(
                f"expected a boolean mask of {d} entries, found shape {subset.shape}"
            )
        return subset.copy()
    if isinstance(subset, (str, bytes)) or not hasattr(subset, "__iter__"):
        raise InvalidFeatureSetError(
            f"expected a feature set as a collection of feature names or indices, or a boolean "
            f"mask, found {subset!r}"
            + (f" (for one feature, write [{subset!r}])" if isinstance(subset, str) else "")
        )
    index = {f.name: i for i, f in enumerate(features)}
    mask = np.zeros(d, dtype=bool)
    for item in subset:
        if isinstance(item, str):
            if item not in index:
                raise InvalidFeatureSetError(
                    f"unknown feature {item!r} in the feature set (expected one of "
                    f"{', '.join(index)})"
                )
            mask[index[item]] = True
        elif isinstance(item, (int, np.integer)) and not isinstance(item, bool):
            if not 0 <= item < d:
                raise InvalidFeatureSetError(
                    f"feature index {item} out of range (expected 0..{d - 1})"
                )
            mask[int(item)] = True
        else:
            raise InvalidFeatureSetError(
                f"expected feature names or indices in the feature set, found {item!r}"
            )
    return mask


def clopper_pearson(failures: int, n: int, confidence: float) -> tuple[float, float]:
    """Exact (Clopper-Pearson) two-sided interval for a binomial proportion.

    Examples
    --------
    >>> low, high = clopper_pearson(0, 100, 0.95)
    >>> low, round(high, 4)
    (0.0, 0.0362)
    """
    alpha = 1.0 - confidence
    low = 0.0 if failures == 0 else float(beta.ppf(alpha / 2, failures, n - failures + 1))
    high = 1.0 if failures == n else float(beta.ppf(1 - alpha / 2, failures + 1, n - failures))
    return low, high


def _as_interval(values: ValueSet) -> Any:
    if isinstance(values, frozenset):
        out = P.empty()
        for v in values:
            out |= P.singleton(v)
        return out
    return values


def _intersect(a: ValueSet | None, b: ValueSet) -> ValueSet:
    if a is None:
        return b
    if isinstance(a, frozenset) and isinstance(b, frozenset):
        return a & b
    return _as_interval(a) & _as_interval(b)


def _contains(values: ValueSet, v: Any) -> bool:
    return bool(v in values)


class GraphPrecision:
    """Exact precision errors of many feature sets for one (graph, instance, distribution).

    The per-path (tree) or per-edge (read-once graph) probabilities are computed once; each
    feature set then costs a few vectorised products.

    Parameters
    ----------
    graph : DecisionGraph
        A tree, or a read-once graph (no feature tested twice on any path), satisfying Def. 2.
    instance : mapping or sequence
    distribution : SamplingDistribution
        A product distribution over the graph's features.

    Raises
    ------
    ExactPrecisionUnavailableError
        For a distribution that is not a product, or a graph that is neither a tree nor
        read-once (the message names a feature tested twice on a path).
    """

    def __init__(
        self, graph: DecisionGraph, instance: Any, distribution: SamplingDistribution
    ) -> None:
        if not isinstance(distribution, SamplingDistribution):
            raise InvalidParameterError(
                "distribution: expected a SamplingDistribution, found "
                f"{type(distribution).__name__}"
            )
        if not distribution.is_product:
            raise ExactPrecisionUnavailableError(
                f"exact precision needs a product distribution, found "
                f"{type(distribution).__name__} (use method='enumerate' or 'sample')"
            )
        names = [f.name for f in graph.features]
        if [f.name for f in distribution.features] != names:
            raise ExactPrecisionUnavailableError(
                f"the distribution's features {[f.name for f in distribution.features]!r} "
                f"differ from the graph's {names!r}"
            )
        self.graph = graph
        self.features = list(graph.features)
        self.row = instance_row(self.features, instance)
        self.prediction = graph.predict(self.row.tolist())
        self.distribution = distribution
        if graph.is_tree():
            self.route = "tree"
            self._build_paths()
        else:
            self.route = "read-once"
            self._build_edges()

    # -- trees: one row per root-to-terminal path ----------------------------------------------
    def _build_paths(self) -> None:
        g = self.graph
        masses: list[dict[int, float]] = []
        inside: list[dict[int, bool]] = []
        wrong: list[bool] = []
        stack: list[tuple[Any, dict[int, ValueSet]]] = [(g.root, {})]
        while stack:
            node, allowed = stack.pop()
            if g.is_terminal(node):
                masses.append({j: self.distribution.mass(j, a) for j, a in allowed.items()})
                inside.append({j: _contains(a, self.row[j]) for j, a in allowed.items()})
                wrong.append(g.class_of(node) != self.prediction)
                continue
            name = g.feature_of(node)
            assert name is not None
            j = g.feature_index[name]
            for child, lit in g.children(node):
                stack.append((child, {**allowed, j: _intersect(allowed.get(j), lit.allowed)}))
        used = sorted({j for m in masses for j in m})
        self._columns = np.array(used, dtype=int)
        self._mass = np.array([[m.get(j, 1.0) for j in used] for m in masses]).reshape(
            len(masses), len(used)
        )
        self._inside = np.array([[i.get(j, True) for j in used] for i in inside]).reshape(
            len(inside), len(used)
        )
        self._wrong = np.array(wrong, dtype=float)

    def _tree_errors(self, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        cols = masks[:, self._columns]
        errors, totals = [], []
        for start in range(0, len(cols), 512):
            chunk = cols[start : start + 512]
            w = np.where(chunk[:, None, :], self._inside[None, :, :], self._mass[None, :, :])
            p = w.prod(axis=2)
            errors.append(p @ self._wrong)
            totals.append(p.sum(axis=1))
        return np.concatenate(errors), np.concatenate(totals)

    # -- read-once graphs: probabilities pushed along the edges -----------------------------------
    def _build_edges(self) -> None:
        g = self.graph
        n = len(g)
        out: list[list[int]] = [[] for _ in range(n)]
        indeg = [0] * n
        for e, (p, c, _) in enumerate(g.edges):
            out[p].append(e)
            indeg[c] += 1
        root = g.index_of(g.root)
        order, stack = [], [root]
        while stack:
            u = stack.pop()
            order.append(u)
            for e in out[u]:
                c = g.edges[e][1]
                indeg[c] -= 1
                if indeg[c] == 0:
                    stack.append(c)
        nodes = g.nodes
        feat = [
            g.feature_index[name] if (name := g.feature_of(v)) is not None else -1 for v in nodes
        ]
        above = [0] * n  # features tested strictly above each node, on some path
        for u in order:
            if feat[u] >= 0 and above[u] >> feat[u] & 1:
                raise ExactPrecisionUnavailableError(
                    f"the graph is neither a tree nor read-once: feature "
                    f"{self.features[feat[u]].name!r} is tested twice on a path through node "
                    f"{nodes[u]!r} (use method='enumerate' or 'sample')"
                )
            for e in out[u]:
                c = g.edges[e][1]
                above[c] |= above[u] | (1 << feat[u] if feat[u] >= 0 else 0)
        self._order = order
        self._out = out
        self._root = root
        self._edge_feature = np.array([feat[p] for p, _, _ in g.edges], dtype=int)
        self._edge_mass = np.array(
            [self.distribution.mass(feat[p], lit.allowed) for p, _, lit in g.edges]
        )
        self._edge_inside = np.array(
            [_contains(lit.allowed, self.row[feat[p]]) for p, _, lit in g.edges]
        )
        terminals = [i for i, v in enumerate(nodes) if g.is_terminal(v)]
        self._terminals = np.array(terminals, dtype=int)
        self._terminal_wrong = np.array(
            [g.class_of(nodes[i]) != self.prediction for i in terminals], dtype=bool
        )

    def _dag_errors(self, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        weights = np.where(
            masks[:, self._edge_feature], self._edge_inside[None, :], self._edge_mass[None, :]
        )
        prob = np.zeros((len(masks), len(self.graph)))
        prob[:, self._root] = 1.0
        for u in self._order:
            for e in self._out[u]:
                prob[:, self.graph.edges[e][1]] += prob[:, u] * weights[:, e]
        at_terminals = prob[:, self._terminals]
        return at_terminals[:, self._terminal_wrong].sum(axis=1), at_terminals.sum(axis=1)

    # -- public ---------------------------------------------------------------------------------
    def errors(self, masks: np.ndarray) -> np.ndarray:
        """Exact precision errors of feature sets given as rows of a boolean matrix."""
        masks = np.atleast_2d(np.asarray(masks, dtype=bool))
        if masks.shape[1] != len(self.features):
            raise InvalidFeatureSetError(
                f"expected masks with {len(self.features)} columns, found shape {masks.shape}"
            )
        if self.route == "tree":
            errors, totals = self._tree_errors(masks)
        else:
            errors, totals = self._dag_errors(masks)
        bad = np.flatnonzero(np.abs(totals - 1.0) > TOTAL_TOLERANCE)
        if len(bad):
            raise InvalidGraphError(
                f"the terminals' probabilities sum to {totals[bad[0]]!r}, expected 1: the "
                "graph's literals do not partition the distribution's support (run validate())"
            )
        return np.clip(errors, 0.0, 1.0)

    def error(self, subset: FeatureSet) -> float:
        """Exact precision error of one feature set (names, indices or mask)."""
        return float(self.errors(subset_mask(self.features, subset)[None, :])[0])


def _enumerate_error(
    model: BlackBox,
    row: np.ndarray,
    mask: np.ndarray,
    prediction: Any,
    distribution: SamplingDistribution,
    max_points: int,
) -> tuple[float, int]:
    """Exact error by listing every completion (product) or every data row (empirical)."""
    counter = QueryCounter(model)
    if not distribution.is_product:
        if not isinstance(distribution, EmpiricalDistribution):
            raise ExactPrecisionUnavailableError(
                f"{type(distribution).__name__} is neither a product distribution nor a finite "
                "data set: its completions cannot be enumerated (use method='sample')"
            )
        data = distribution.rows().copy()
        data[:, mask] = row[mask]
        wrong = counter(data) != prediction
        return float(np.mean(wrong)), counter.n_queries
    free = [j for j in range(len(row)) if not mask[j]]
    supports = []
    for j in free:
        support = distribution.finite_support(j)
        if support is None:
            raise ExactPrecisionUnavailableError(
                f"feature {distribution.features[j].name!r} is continuous: its completions "
                "cannot be enumerated (use method='exact' on a compiled model, or 'sample')"
            )
        supports.append(support)
    sizes = np.array([len(v) for v, _ in supports], dtype=np.int64)
    total = int(np.prod(sizes.astype(float))) if len(sizes) else 1
    if total > max_points:
        raise ExactPrecisionUnavailableError(
            f"enumerating every completion needs {total} model queries, more than "
            f"max_enumeration={max_points} (use method='sample')"
        )
    strides = np.cumprod(np.concatenate([[1], sizes[:-1]])) if len(sizes) else sizes
    error = 0.0
    for start in range(0, total, 65536):
        k = np.arange(start, min(total, start + 65536), dtype=np.int64)
        Z = np.empty((len(k), len(row)), dtype=row.dtype)
        Z[:] = row
        weight = np.ones(len(k))
        for pos, j in enumerate(free):
            digit = (k // strides[pos]) % sizes[pos]
            values, probs = supports[pos]
            Z[:, j] = values[digit]
            weight *= probs[digit]
        error += float(weight[counter(Z) != prediction].sum())
    return min(max(error, 0.0), 1.0), counter.n_queries


def precision_error(
    model: BlackBox | DecisionGraph,
    instance: Any,
    subset: FeatureSet,
    distribution: SamplingDistribution | None = None,
    *,
    method: PrecisionMethod = "auto",
    n_samples: int = 1000,
    confidence: float = 0.95,
    seed: Seed = None,
    max_enumeration: int = 2**20,
) -> PrecisionEstimate:
    """Precision error of the feature set ``subset`` for ``instance``, saying how it was obtained.

    Parameters
    ----------
    model : BlackBox or DecisionGraph
    instance : mapping or sequence
    subset : feature names, indices or boolean mask
        The features fixed to the instance's values.
    distribution : SamplingDistribution, optional
        Default: uniform over the feature domains.
    method : {"auto", "exact", "enumerate", "sample"}
        ``"auto"``: exact propagation when the model carries a compiled tree or read-once
        graph and the distribution is a product, sampling otherwise.
    n_samples : int
        Draws for ``"sample"``.
    confidence : float
        Level of the Clopper-Pearson interval of a sampled estimate.
    seed : int or numpy Generator, optional
    max_enumeration : int
        Largest number of completions ``"enumerate"`` may query.

    Raises
    ------
    ExactPrecisionUnavailableError
        When ``"exact"`` or ``"enumerate"`` cannot be honoured (the message says why).
    """
    bb = model if isinstance(model, BlackBox) else BlackBox(model)
    check_param("method", method, Options(PRECISION_METHODS))
    check_param("confidence", confidence, Interval(float, 0, 1, closed="neither"))
    check_param("n_samples", n_samples, Interval(int, 1, None))
    check_param("max_enumeration", max_enumeration, Interval(int, 1, None))
    dist = default_distribution(bb.features, distribution)
    mask = subset_mask(bb.features, subset)
    if method in ("auto", "exact"):
        if bb.graph is not None and dist.is_product:
            try:
                err = GraphPrecision(bb.graph, instance, dist).error(mask)
                return PrecisionEstimate(err, "exact-propagation", err, err, None, 0, 0)
            except ExactPrecisionUnavailableError:
                if method == "exact":
                    raise
        elif method == "exact":
            why = (
                "the model carries no compiled graph"
                if bb.graph is None
                else (f"{type(dist).__name__} is not a product distribution")
            )
            raise ExactPrecisionUnavailableError(
                f"exact precision needs a compiled tree or read-once graph under a product "
                f"distribution: {why} (use method='enumerate' or 'sample')"
            )
    row = bb.row(instance)
    prediction = bb.predict_one(row)
    if method == "enumerate":
        err, queries = _enumerate_error(bb, row, mask, prediction, dist, max_enumeration)
        return PrecisionEstimate(err, "exact-enumeration", err, err, None, queries, queries)
    counter = QueryCounter(bb)
    Z = dist.sample_agreeing(row, mask, n_samples, make_rng(seed))
    failures = int(np.sum(counter(Z) != prediction))
    low, high = clopper_pearson(failures, n_samples, confidence)
    return PrecisionEstimate(
        failures / n_samples, "sampled", low, high, confidence, n_samples, counter.n_queries
    )
