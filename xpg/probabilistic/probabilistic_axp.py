"""Probabilistic AXps of compiled models: subset-minimal sets of precision at least 1 - delta.

A weak probabilistic AXp is a feature set ``S`` whose exact precision error is at most
``delta``; a probabilistic AXp (PAXp) is one no proper subset of which is also weak.  With
``delta = 0`` the definitions are those of an AXp.  Precision error is not monotone in ``S``
when ``delta > 0`` (fixing one more feature can lower the precision), so deleting features one
at a time only gives a *locally minimal* set; this module then searches every subset of that
set, exactly (vectorised exact precision on the compiled graph), and returns one of minimum
size, which no proper subset can beat: a subset-minimal PAXp.  Above ``max_exhaustive``
features the exhaustive step is skipped and the answer says it is only locally minimal.

Examples
--------
>>> from xpg.core.features import Feature, Literal
>>> from xpg.core.graph import DecisionGraph
>>> dg = DecisionGraph([Feature.boolean(n) for n in "abc"], classes=[0, 1])
>>> for node, var in (("r", "a"), ("n", "b"), ("m", "c")):
...     dg.add_node(node, var)
>>> dg.add_terminal("t0", 0); dg.add_terminal("t1", 1)
>>> dg.add_edge("r", "t1", Literal.eq("a", 1)); dg.add_edge("r", "n", Literal.eq("a", 0))
>>> dg.add_edge("n", "t1", Literal.eq("b", 1)); dg.add_edge("n", "m", Literal.eq("b", 0))
>>> dg.add_edge("m", "t1", Literal.eq("c", 1)); dg.add_edge("m", "t0", Literal.eq("c", 0))
>>> find_probabilistic_axp(dg, [0, 1, 0], delta=0.0).features  # an AXp
('b',)
>>> r = find_probabilistic_axp(dg, [1, 0, 1], delta=0.3)   # P(class 1) = 7/8 already
>>> r.features, r.error, r.optimal
((), 0.125, True)

References
----------
Izza, Huang, Ignatiev, Narodytska, Cooper, Marques-Silva. On computing probabilistic
abductive explanations. IJAR 2023 (weak, locally minimal and subset-minimal PAXps);
Waeldchen, Macdonald, Hauch, Kutyniok. The computational complexity of understanding binary
classifier decisions. JAIR 2021 (delta-relevant sets).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from xpg.core.graph import DecisionGraph
from xpg.core.validation import Interval, check_param
from xpg.errors import ExactPrecisionUnavailableError
from xpg.probabilistic.blackbox import BlackBox
from xpg.probabilistic.distributions import (
    SamplingDistribution,
    default_distribution,
)
from xpg.probabilistic.precision import GraphPrecision, PrecisionEstimate, subset_mask
from xpg.probabilistic.result import ProbabilisticExplanation, as_black_box

#: Largest locally minimal set whose subsets are all searched.
MAX_EXHAUSTIVE = 18

#: What ``delta`` accepts: 0 (an AXp) up to, not including, 1.
_DELTA = Interval(float, 0, 1, closed="left")


def _subset_masks(members: Sequence[int], d: int) -> np.ndarray:
    """Every subset of ``members`` as rows of a boolean (2^len, d) matrix."""
    k = len(members)
    codes = np.arange(2**k, dtype=np.int64)
    bits = (codes[:, None] >> np.arange(k, dtype=np.int64)[None, :]) & 1
    masks = np.zeros((2**k, d), dtype=bool)
    masks[:, list(members)] = bits.astype(bool)
    return masks


def _compiled(model: BlackBox | DecisionGraph, missing: str) -> tuple[BlackBox, DecisionGraph]:
    """The model as a black box and its compiled graph, else the ``missing`` error."""
    bb = as_black_box(model)
    if bb.graph is None:
        raise ExactPrecisionUnavailableError(missing)
    return bb, bb.graph


def find_probabilistic_axp(
    model: BlackBox | DecisionGraph,
    instance: Any,
    distribution: SamplingDistribution | None = None,
    *,
    delta: float = 0.05,
    order: Iterable[str] | Iterable[int] | None = None,
    max_exhaustive: int = MAX_EXHAUSTIVE,
) -> ProbabilisticExplanation:
    """A subset-minimal feature set whose exact precision is at least ``1 - delta``.

    Parameters
    ----------
    model : BlackBox with a compiled graph, or DecisionGraph
        A decision tree or read-once decision graph (exact precision is needed).
    instance : mapping or sequence
    distribution : SamplingDistribution, optional
        A product distribution (default: uniform over the feature domains).
    delta : float, default 0.05
        Largest precision error allowed; 0 gives an AXp.
    order : feature names or indices, optional
        Order in which features are tried for deletion (default: feature order).
    max_exhaustive : int, default 18
        Largest locally minimal set whose subsets are all searched for subset-minimality.

    Returns
    -------
    ProbabilisticExplanation
        ``method="probabilistic-axp"``, exact precision; ``optimal`` is True when the set
        is subset-minimal, False when only locally minimal (``details["minimality"]``).

    Raises
    ------
    ExactPrecisionUnavailableError
        When the model carries no compiled tree or read-once graph, or the distribution is
        not a product.
    """
    start = time.perf_counter()
    bb, graph = _compiled(
        model,
        "a probabilistic AXp needs exact precision: expected a BlackBox with a compiled "
        "graph (BlackBox.from_sklearn_tree, BlackBox.from_graph) or a DecisionGraph",
    )
    check_param("delta", delta, _DELTA)
    max_exhaustive = check_param("max_exhaustive", max_exhaustive, Interval(int, 0, None))
    dist = default_distribution(bb.features, distribution)
    exact = GraphPrecision(graph, bb.row(instance), dist)
    d = bb.n_features
    tested = set(graph.tested_features())
    names = [f.name for f in bb.features]
    if order is None:
        sequence = names
    else:  # names or indices, checked as a feature set; the order of the items is kept
        items: Any = order if isinstance(order, (str, bytes)) else list(order)
        subset_mask(bb.features, items)
        sequence = [item if isinstance(item, str) else names[int(item)] for item in items]
    current = np.array([n in tested for n in names], dtype=bool)
    evaluations = 1
    changed = True
    while changed:  # passes until no single feature can go (one pass may not suffice)
        changed = False
        for name in sequence:
            j = names.index(name)
            if not current[j]:
                continue
            trial = current.copy()
            trial[j] = False
            evaluations += 1
            if exact.error(trial) <= delta:
                current = trial
                changed = True
    members = [int(j) for j in np.flatnonzero(current)]
    minimality = "local"
    if len(members) <= max_exhaustive:
        masks = _subset_masks(members, d)
        errors = exact.errors(masks)
        evaluations += len(masks)
        sizes = masks.sum(axis=1)
        ok = np.flatnonzero(errors <= delta)
        best = ok[np.lexsort((errors[ok], sizes[ok]))[0]]
        current = masks[best]
        minimality = "subset"
    error = exact.error(current)
    seconds = time.perf_counter() - start
    return ProbabilisticExplanation(
        method="probabilistic-axp",
        features=tuple(n for n, on in zip(names, current, strict=True) if on),
        prediction=exact.prediction,
        precision=PrecisionEstimate(error, "exact-propagation", error, error, None, 0, 0),
        n_queries=0,
        seconds=seconds,
        optimal=minimality == "subset",
        details={
            "delta": delta,
            "minimality": minimality,
            "route": exact.route,
            "precision_evaluations": evaluations,
        },
    )


def is_weak_probabilistic_axp(
    model: BlackBox | DecisionGraph,
    instance: Any,
    features: Iterable[str],
    distribution: SamplingDistribution | None = None,
    *,
    delta: float = 0.05,
) -> bool:
    """True when the exact precision error of ``features`` is at most ``delta``."""
    bb, graph = _compiled(model, "expected a BlackBox with a compiled graph or a DecisionGraph")
    check_param("delta", delta, _DELTA)
    dist = default_distribution(bb.features, distribution)
    exact = GraphPrecision(graph, bb.row(instance), dist)
    return exact.error(list(features)) <= delta
