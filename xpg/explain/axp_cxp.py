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
from xpg.errors import InvalidSeedError
from xpg.explain.reach import IncrementalReach, path_to_zero, zero_edge_vars, zero_path

Seed = Iterable[str] | Iterable[int] | None


def _seed(xg: ExplanationGraph, seed: Seed) -> list[int]:
    if seed is None:
        return xg.tested_vars()
    return sorted(xg.indices(list(seed)))


def is_weak_axp(xg: ExplanationGraph, fixed: Iterable[int]) -> bool:
    """True when fixing ``fixed`` (indices) keeps the prediction: no 0-terminal is reachable."""
    fixed = set(fixed)
    return not path_to_zero(xg, [v for v in range(xg.n_vars) if v not in fixed])


def is_weak_cxp(xg: ExplanationGraph, free: Iterable[int]) -> bool:
    """True when freeing ``free`` (indices) allows another prediction."""
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
    """
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
    """
    if seed is not None:
        return xg.names(cxp_from_free(xg, _seed(xg, seed)))
    path = zero_path(xg, xg.tested_vars())  # one search decides and starts the shrinking
    if path is None:
        return None
    return xg.names(shrink_weak_cxp(xg, zero_edge_vars(xg, path)))
