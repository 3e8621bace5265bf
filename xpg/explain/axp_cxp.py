"""One abductive (AXp) or contrastive (CXp) explanation, optionally from a seed.

An AXp is a subset-minimal set of features which, fixed to the instance's values,
keep the prediction whatever the other features are.  A CXp is a subset-minimal
set of features which, when free, allow another prediction.  Both are found by
deletion over the explanation graph (Algs. 2 and 3 of the core paper), made fast:
AXp extraction grows one reachable set incrementally and undoes refused attempts;
CXp extraction jumps to the variables of the 0-edges on a path it found to a
0-terminal, which is a (usually much smaller) weak CXp.

Examples
--------
>>> from xpg.examples import and_xpg
>>> xg = and_xpg()  # a and b, for a = b = 1
>>> find_axp(xg), find_cxp(xg)
(('a', 'b'), ('a',))
>>> find_cxp(xg, seed=["b"])
('b',)

References
----------
Huang, Izza, Ignatiev, Marques-Silva. On Efficiently Explaining Graph-Based Classifiers.
KR 2021, Algs. 2 (findAXp) and 3 (findCXp).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from xpg.core.xpgraph import ExplanationGraph
from xpg.errors import InvalidSeedError, NotAnExplanationGraphError
from xpg.explain.reach import IncrementalReach, path_to_zero, zero_edge_vars, zero_path

Seed = Iterable[str] | Iterable[int] | None

#: the :class:`~xpg.explain.ensemble.EnsembleExplainer` method answering each graph query
ENSEMBLE_METHODS = {
    "find_axp": "find_axp()",
    "find_cxp": "find_cxp()",
    "enumerate_explanations": "enumerate()",
    "Enumerator": "iter_explanations()",
    "is_member": "is_member(feature)",
    "classify_features": "classify_features()",
    "smallest_axp": "smallest_axp()",
    "smallest_cxp": "smallest_cxp()",
}
_SKLEARN_TREES = ("DecisionTreeClassifier", "ExtraTreeClassifier")
_SKLEARN_ENSEMBLES = (
    "RandomForestClassifier",
    "ExtraTreesClassifier",
    "GradientBoostingClassifier",
)


def require_explanation_graph(xg: object, query: str) -> None:
    """Refuse anything but an :class:`ExplanationGraph` as the graph of ``query``.

    Raises
    ------
    NotAnExplanationGraphError
        Saying what was found and what to do instead (:func:`not_a_graph_message`).

    Examples
    --------
    >>> require_explanation_graph([0, 1], "find_axp")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    xpg.errors.NotAnExplanationGraphError: find_axp takes an ExplanationGraph (...), found a list...
    """
    if not isinstance(xg, ExplanationGraph):
        raise NotAnExplanationGraphError(not_a_graph_message(xg, query))


def not_a_graph_message(found: object, query: str) -> str:
    """What ``query`` takes, what it was given (``found``), and what to do instead: for a
    scikit-learn estimator, an ``EnsembleExplainer``, a model or a ``DecisionGraph``."""
    kind = type(found)
    name, module = kind.__name__, kind.__module__ or ""
    lead = f"{query} takes an ExplanationGraph (the graph of one instance)"
    method = ENSEMBLE_METHODS.get(query, "find_axp()")
    ensemble = f"xpg.EnsembleExplainer(model, instance).{method}"
    graph = "xg = xpg.ExplanationGraph.from_decision_graph"
    if name == "EnsembleExplainer" and module.startswith("xpg."):
        if query in ENSEMBLE_METHODS:
            return f"{lead}, found an EnsembleExplainer: call its method, explainer.{method}"
        return (
            f"{lead}, found an EnsembleExplainer: its own methods answer the queries "
            "(find_axp(), find_cxp(), enumerate(), is_member(feature), classify_features())"
        )
    if module.startswith("sklearn"):
        if name in _SKLEARN_ENSEMBLES:
            return (
                f"{lead}, found a scikit-learn {name}: convert it with model = "
                f"xpg.ensemble_from_sklearn(estimator, features), then {ensemble}, or "
                "xpg.explain_many(model, rows) for many rows"
            )
        if name in _SKLEARN_TREES:
            return (
                f"{lead}, found a scikit-learn {name}: for a scikit-learn model use "
                f"xpg.explain_many(model, rows), or build the graph with "
                f"{graph}(xpg.from_sklearn_tree(model, features), instance)"
            )
        return (
            f"{lead}, found a scikit-learn {name}: xpg explains decision trees and tree "
            "ensembles exactly (xpg.from_sklearn_tree, xpg.ensemble_from_sklearn); for another "
            "model, see xpg.probabilistic (BlackBox)"
        )
    if name == "DecisionGraph" and module.startswith("xpg."):
        return (
            f"{lead}, found a DecisionGraph (the model's graph, for every instance): build "
            f"the instance's graph with {graph}(dg, instance)"
        )
    if module.startswith("xpg.models"):
        if name in ("Forest", "BoostedTrees"):
            return f"{lead}, found a {name} model: use {ensemble}"
        return (
            f"{lead}, found a {name} model: build the instance's graph with "
            f"{graph}(model.to_decision_graph(), instance)"
        )
    article = "an" if name[:1].lower() in "aeiou" else "a"
    return (
        f"{lead}, found {article} {name}: build it with "
        "xpg.ExplanationGraph.from_decision_graph(dg, instance), or read a .xpg file with "
        "xpg.read_xpg(path)"
    )


def _seed(xg: ExplanationGraph, seed: Seed) -> list[int]:
    if seed is None:
        return xg.tested_vars()
    if isinstance(seed, (str, bytes)) or not isinstance(seed, Iterable):
        hint = f" (one feature: [{seed!r}])" if isinstance(seed, str) else ""
        raise InvalidSeedError(
            f"seed: expected a collection of feature names or indices, found {seed!r}{hint}"
        )
    return sorted(xg.indices(list(seed)))


def is_weak_axp(xg: ExplanationGraph, fixed: Iterable[int]) -> bool:
    """True when fixing ``fixed`` (indices) keeps the prediction: no 0-terminal is reachable."""
    require_explanation_graph(xg, "is_weak_axp")
    fixed = set(fixed)
    return not path_to_zero(xg, [v for v in range(xg.n_vars) if v not in fixed])


def is_weak_cxp(xg: ExplanationGraph, free: Iterable[int]) -> bool:
    """True when freeing ``free`` (indices) allows another prediction."""
    require_explanation_graph(xg, "is_weak_cxp")
    return path_to_zero(xg, free)


def axp_from_fixed(xg: ExplanationGraph, fixed: Sequence[int]) -> list[int]:
    """Alg. 2 on indices: a subset-minimal AXp inside the weak AXp ``fixed``."""
    fixed_set = set(fixed)
    reach = IncrementalReach(xg, [v for v in range(xg.n_vars) if v not in fixed_set])
    if reach.hits_zero:
        raise InvalidSeedError(
            f"the seed {list(xg.names(fixed_set))} is not a weak AXp: freeing the other "
            "features already allows another prediction"
        )
    return reach.refuse_each(fixed)


def cxp_from_free(xg: ExplanationGraph, free: Sequence[int]) -> list[int]:
    """Alg. 3 on indices: a subset-minimal CXp inside the weak CXp ``free``."""
    path = zero_path(xg, free)
    if path is None:
        raise InvalidSeedError(
            f"the seed {list(xg.names(set(free)))} is not a weak CXp: freeing it cannot "
            "change the prediction"
        )
    return shrink_weak_cxp(xg, zero_edge_vars(xg, path))


def shrink_weak_cxp(xg: ExplanationGraph, current: set[int]) -> list[int]:
    """A subset-minimal CXp inside the weak CXp ``current`` (indices), by deletion."""
    necessary: set[int] = set()
    while True:
        open_vars = sorted(current - necessary)
        if not open_vars:
            return sorted(current)
        v = open_vars[0]
        path = zero_path(xg, current - {v})
        if path is None:
            necessary.add(v)
        else:
            current = zero_edge_vars(xg, path)


def find_axp(xg: ExplanationGraph, seed: Seed = None) -> tuple[str, ...]:
    """One AXp (feature names in feature order).

    Parameters
    ----------
    xg : ExplanationGraph
    seed : features (names or indices), optional
        A weak AXp to shrink (default: every feature the graph tests).  Features are
        tried for removal in feature order.

    Raises
    ------
    InvalidSeedError
        When the seed is not a weak AXp.
    NotAnExplanationGraphError
        When ``xg`` is something else (a scikit-learn estimator, an ``EnsembleExplainer``...).
    """
    require_explanation_graph(xg, "find_axp")
    if seed is None and 256 * xg.n_vars <= xg.n_nodes:
        # every variable: freeing one that no node tests costs nothing and changes nothing,
        # while finding which are tested would cost a pass over the nodes
        return xg.names(axp_from_fixed(xg, range(xg.n_vars)))
    return xg.names(axp_from_fixed(xg, _seed(xg, seed)))


def find_cxp(xg: ExplanationGraph, seed: Seed = None) -> tuple[str, ...] | None:
    """One CXp (feature names in feature order), or ``None`` when the prediction cannot change.

    Parameters
    ----------
    xg : ExplanationGraph
    seed : features (names or indices), optional
        A weak CXp to shrink (default: every feature the graph tests).

    Raises
    ------
    InvalidSeedError
        When a seed is given that is not a weak CXp.
    NotAnExplanationGraphError
        When ``xg`` is something else (a scikit-learn estimator, an ``EnsembleExplainer``...).
    """
    require_explanation_graph(xg, "find_cxp")
    if seed is not None:
        return xg.names(cxp_from_free(xg, _seed(xg, seed)))
    path = zero_path(xg, xg.tested_vars())  # one search decides and starts the shrinking
    if path is None:
        return None
    return xg.names(shrink_weak_cxp(xg, zero_edge_vars(xg, path)))
