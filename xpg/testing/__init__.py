"""Seeded random models and the brute-force oracle, for the tests and the benchmarks.

Like networkx's generators, these build the objects the library works on, at random but
reproducibly: every generator takes a seed (an ``int``, a :class:`random.Random` or a
:class:`numpy.random.Generator`; a stream is used as it is, so several models can be drawn
from one).  The :class:`Oracle` is the independent reference the tests compare with: it
evaluates the model (or the XpG function) exhaustively and never calls the algorithms it
checks.  Not imported by ``import xpg``; scikit-learn is imported only by the functions
that fit an estimator.

* features, literals, instances: :func:`random_features`, :func:`random_condition`,
  :func:`random_instance`, :func:`random_row`, :func:`one_hot_group`;
* decision graphs: :func:`random_tree`, :func:`merge_subtrees`, :func:`random_ordered_dag`,
  :func:`random_decision_graph`, :func:`random_bounded_graph`, :func:`ladder` (parity),
  :func:`small_mixed_graph`, :func:`reachable_part`;
* models: :func:`random_decision_tree`, :func:`random_decision_list`,
  :func:`long_decision_list` (far beyond the compile budget), :func:`random_omdd`,
  :func:`random_obdd`, :func:`random_reduced_obdd`, :func:`random_risk_score`,
  :func:`random_sklearn_tree`, :func:`random_real_sklearn_tree`,
  :func:`random_sklearn_ensemble` (forests and boosted trees over small discrete domains);
* Fourier explainers: :func:`random_fourier_polynomial`, :func:`table_game`;
* explanation graphs: :func:`random_xpg`, :func:`random_dg_xpgs`, :func:`random_cases`,
  :func:`antichain_xpg` (the worst case of tree membership),
  :func:`irrelevant_subtree_xpg` (few explanations, many paths), :func:`fresh_copy` (no cached
  traversal structure), :func:`described` (by node ids and names);
* the oracle: :class:`Oracle` (all AXps and CXps, members, necessary features, smallest
  sizes), :class:`ClassTable` (a classifier evaluated on a grid),
  :func:`brute_minimal_hitting_sets`, and the grids :func:`representatives`,
  :func:`grid_from_literals`, :func:`float32_representatives`.

Examples
--------
>>> from xpg import ExplanationGraph, enumerate_explanations
>>> dg = random_decision_graph(3, "dag")
>>> table = ClassTable.of_graph(dg)
>>> x = table.points()[0]
>>> result = enumerate_explanations(ExplanationGraph.from_decision_graph(dg, x))
>>> {frozenset(a) for a in result.axps} == table.oracle(x).axps
True
"""

from __future__ import annotations

from xpg.testing._seed import Seed, as_generator, as_random
from xpg.testing.ensembles import ENSEMBLE_KINDS, random_sklearn_ensemble
from xpg.testing.features import (
    GRID,
    KINDS,
    domain_values,
    one_hot_group,
    random_condition,
    random_features,
    random_instance,
    random_row,
)
from xpg.testing.fourier import random_fourier_polynomial, table_game
from xpg.testing.graphs import (
    GRAPH_KINDS,
    ladder,
    merge_subtrees,
    random_bounded_graph,
    random_decision_graph,
    random_ordered_dag,
    random_tree,
    reachable_part,
    small_mixed_graph,
)
from xpg.testing.models import (
    dnf_obdd,
    float32_representatives,
    long_decision_list,
    random_decision_list,
    random_decision_tree,
    random_obdd,
    random_omdd,
    random_real_sklearn_tree,
    random_reduced_obdd,
    random_risk_score,
    random_sklearn_tree,
    sklearn_thresholds,
)
from xpg.testing.oracle import (
    ClassTable,
    Oracle,
    brute_minimal_hitting_sets,
    grid_from_literals,
    literal_constants,
    numeric_representatives,
    representatives,
)
from xpg.testing.xpgs import (
    antichain_xpg,
    described,
    fresh_copy,
    irrelevant_subtree_xpg,
    random_cases,
    random_dg_xpgs,
    random_xpg,
)

__all__ = [
    "ENSEMBLE_KINDS",
    "random_sklearn_ensemble",
    "described",
    "fresh_copy",
    "brute_minimal_hitting_sets",
    "GRAPH_KINDS",
    "GRID",
    "KINDS",
    "ClassTable",
    "Oracle",
    "Seed",
    "antichain_xpg",
    "irrelevant_subtree_xpg",
    "as_generator",
    "as_random",
    "dnf_obdd",
    "domain_values",
    "float32_representatives",
    "grid_from_literals",
    "ladder",
    "literal_constants",
    "merge_subtrees",
    "numeric_representatives",
    "one_hot_group",
    "random_bounded_graph",
    "random_cases",
    "random_condition",
    "random_decision_graph",
    "long_decision_list",
    "random_decision_list",
    "random_decision_tree",
    "random_dg_xpgs",
    "random_features",
    "random_fourier_polynomial",
    "random_instance",
    "random_obdd",
    "random_omdd",
    "random_ordered_dag",
    "random_real_sklearn_tree",
    "random_reduced_obdd",
    "random_risk_score",
    "random_row",
    "random_sklearn_tree",
    "random_tree",
    "random_xpg",
    "reachable_part",
    "representatives",
    "sklearn_thresholds",
    "small_mixed_graph",
    "table_game",
]
