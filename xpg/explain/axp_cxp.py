"""One abductive (AXp) or contrastive (CXp) explanation, optionally from a seed.

An AXp is a subset-minimal set of features which, fixed to the instance's values,
keep the prediction whatever the other features are.  A CXp is a subset-minimal
set of features which, when free, allow another prediction.  Both are found by
deletion over any :class:`~xpg.explain.oracle_abc.Oracle` (Algs. 2 and 3 of the core
paper): an AXp frees each feature in turn unless another class becomes possible (in the
oracle's deletion order, the questions its cheap decisions leave open asked again at the
end, the fixed features cut to each proof's core); a CXp jumps each time to the features
the oracle's witness actually changes (a weak CXp, usually much smaller).  On an explanation
graph the deletion grows one reachable set incrementally and undoes refused attempts
(:class:`~xpg.explain.graph_oracle.GraphDeletion`).

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
KR 2021, Algs. 2 (findAXp) and 3 (findCXp); Izza, Marques-Silva. On Explaining Random
Forests with SAT. IJCAI 2021.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import xpg.core.costs as costs
from xpg.core.xpgraph import ExplanationGraph
from xpg.explain.graph_oracle import as_oracle
from xpg.explain.oracle_abc import Deletion, Oracle, refuse_seed
from xpg.explain.seeds import Seed, seed_indices


def is_weak_axp(target: ExplanationGraph | Oracle, fixed: Iterable[int]) -> bool:
    """True when fixing ``fixed`` (indices) keeps the prediction."""
    return as_oracle(target, "is_weak_axp").check(fixed) is None


def is_weak_cxp(target: ExplanationGraph | Oracle, free: Iterable[int]) -> bool:
    """True when freeing ``free`` (indices) allows another prediction."""
    return as_oracle(target, "is_weak_cxp").check_free(free) is not None


def delete_to_axp(
    oracle: Oracle,
    fixed: Sequence[int],
    known: Sequence[list[int]] | None = None,
    *,
    proven: bool = False,
) -> list[int]:
    """Alg. 2 on indices: a subset-minimal AXp inside the weak AXp ``fixed``.

    ``known``, per feature, the CXps found so far holding it (bit masks): a feature that is
    the only fixed one of a known CXp stays fixed without a question (freeing it would free
    that whole CXp), which keeps the cost of large AXps down during an enumeration.
    ``proven``: the oracle's last question was ``fixed``, answered None.

    Raises
    ------
    InvalidSeedError
        When ``fixed`` is not a weak AXp.
    """
    session = oracle.deletion(fixed, proven=proven)
    if known is None:
        undecided = session.free_each(oracle.deletion_order(session.fixed), solver=False)
        if undecided:
            session.free_each(undecided)
        return session.fixed
    return _delete_with_known(oracle, session, known)


def _delete_with_known(oracle: Oracle, session: Deletion, known: Sequence[list[int]]) -> list[int]:
    rest = sum(1 << v for v in session.fixed)
    undecided: list[int] = []
    for solver, order in ((False, oracle.deletion_order(session.fixed)), (True, undecided)):
        for v in order:
            bit = 1 << v
            if not rest & bit:
                continue
            if any(not c & (rest ^ bit) for c in known[v]):
                continue  # the only fixed feature of a known CXp
            freed = session.free_one(v, solver=solver)
            if freed is None:
                undecided.append(v)
            else:
                for u in freed:
                    rest &= ~(1 << u)
    return session.fixed


def axp_from_fixed(target: ExplanationGraph | Oracle, fixed: Sequence[int]) -> list[int]:
    """A subset-minimal AXp inside the weak AXp ``fixed`` (indices)."""
    return delete_to_axp(as_oracle(target, "axp_from_fixed"), fixed)


def cxp_from_free(target: ExplanationGraph | Oracle, free: Sequence[int]) -> list[int]:
    """Alg. 3 on indices: a subset-minimal CXp inside the weak CXp ``free``.

    Raises
    ------
    InvalidSeedError
        When ``free`` is not a weak CXp.
    """
    oracle = as_oracle(target, "cxp_from_free")
    witness = oracle.check_free(free)
    if witness is None:
        refuse_seed(oracle, free, "CXp")
    return shrink_weak_cxp(oracle, oracle.changed(witness))


def shrink_weak_cxp(target: ExplanationGraph | Oracle, current: set[int]) -> list[int]:
    """A subset-minimal CXp inside the weak CXp ``current`` (indices), by deletion guided by
    the witnesses."""
    oracle = as_oracle(target, "shrink_weak_cxp")
    necessary: set[int] = set()
    while True:
        open_vars = sorted(current - necessary)
        if not open_vars:
            return sorted(current)
        v = open_vars[0]
        witness = oracle.check_free(current - {v})
        if witness is None:
            necessary.add(v)
        else:
            current = oracle.changed(witness)


def axp_containing(oracle: Oracle, i: int, cxp: Sequence[int]) -> list[int]:
    """An AXp holding ``i`` from a CXp holding ``i`` (every AXp meets the CXp, and fixing
    all but the CXp's other features is a weak AXp)."""
    released = set(cxp) - {i}
    return delete_to_axp(oracle, [v for v in oracle.tested() if v not in released])


def cxp_containing(oracle: Oracle, i: int, axp: Sequence[int]) -> list[int]:
    """A CXp holding ``i`` from an AXp holding ``i`` (the dual argument)."""
    kept = set(axp) - {i}
    return cxp_from_free(oracle, [v for v in oracle.tested() if v not in kept])


def find_axp(target: ExplanationGraph | Oracle, seed: Seed = None) -> tuple[str, ...]:
    """One AXp (feature names in feature order).

    Parameters
    ----------
    target : ExplanationGraph or Oracle
    seed : features (names or indices), optional
        A weak AXp to shrink (default: every feature the model tests).

    Raises
    ------
    InvalidSeedError
        When the seed is not a weak AXp.
    NotAnExplanationGraphError
        When ``target`` is something else (a model, an estimator...).
    """
    oracle = as_oracle(target, "find_axp")
    if seed is None:
        fixed = _every_feature(oracle)
    else:
        fixed = seed_indices(oracle.index, seed)
    return names_of(oracle, delete_to_axp(oracle, fixed))


def _every_feature(oracle: Oracle) -> list[int]:
    """The features an AXp starts from: those the model tests, or all of them on a large
    graph (freeing a feature no node tests costs nothing, while finding which are tested
    costs a pass over the nodes; :data:`xpg.core.costs.EVERY_FEATURE_NODES_PER_VAR`)."""
    xg: Any = getattr(oracle, "explanation_graph", None)
    if xg is not None and costs.EVERY_FEATURE_NODES_PER_VAR * xg.n_vars <= xg.n_nodes:
        return list(range(oracle.n_features))
    return oracle.tested()


def find_cxp(target: ExplanationGraph | Oracle, seed: Seed = None) -> tuple[str, ...] | None:
    """One CXp (feature names in feature order), or ``None`` when the prediction cannot change.

    ``target`` and ``seed`` as for :func:`find_axp` (the seed: a weak CXp to shrink).

    Raises
    ------
    InvalidSeedError
        When a seed is given that is not a weak CXp.
    """
    oracle = as_oracle(target, "find_cxp")
    if seed is not None:
        return names_of(oracle, cxp_from_free(oracle, seed_indices(oracle.index, seed)))
    witness = oracle.check_free(oracle.tested())  # one question decides and starts the shrinking
    if witness is None:
        return None
    return names_of(oracle, shrink_weak_cxp(oracle, oracle.changed(witness)))


def names_of(oracle: Oracle, indices: Iterable[int]) -> tuple[str, ...]:
    """Feature names of indices, in feature order."""
    names = oracle.names
    return tuple(names[i] for i in sorted(indices))
