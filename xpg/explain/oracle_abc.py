"""The one question every explanation algorithm asks, as an interface: :class:`Oracle`.

"With the features of ``S`` fixed to the instance's values and the others free, can the
model predict another class?"  An oracle answers with a *witness* (an input of another
class, of which :meth:`Oracle.changed` names the features it moves: a weak CXp inside the
free features) or ``None``.  AXps and CXps by deletion, MARCO enumeration, membership,
feature classes and smallest explanations are written once over this interface
(:mod:`xpg.explain.axp_cxp`, :mod:`xpg.explain.marco`, :mod:`xpg.explain.membership`,
:mod:`xpg.explain.relevance`, :mod:`xpg.explain.smallest`).

What the fast paths may use besides the question:

* ``check(fixed, solver=False)`` may raise :class:`Undecided` when its cheap decisions do
  not settle the question (an ensemble's bound and branch and bound; an AXp by deletion asks
  again, with the solver, at the end);
* :attr:`Oracle.last_core`: after a ``None``, the fixed features its proof used (a smaller
  weak AXp), or None;
* :meth:`Oracle.deletion_order`: the order in which an AXp by deletion frees features;
* :meth:`Oracle.deletion`: an incremental deletion session for one AXp (an explanation graph
  keeps one growing reachable set instead of a traversal per question);
* :meth:`Oracle.check_free`, the question stated by its free features (cheaper for graphs);
* :meth:`Oracle.cxp_masks`: every CXp read off the model at once, when cheap (graphs);
* :meth:`Oracle.check_cells`, the question over *sets* of values: each feature's cell among
  those allowed (exact robustness, inflated explanations); the oracles that have a ``space``
  of cells answer it, the others refuse.

Implementations: :class:`~xpg.explain.graph_oracle.GraphOracle` (an explanation graph,
reachability as Alg. 1 of the core paper), :class:`~xpg.explain.ensemble.oracle.EnsembleOracle`
(tree ensembles: bounds, branch and bound, z3),
:class:`~xpg.explain.list_oracle.DecisionListOracle` (decision lists, one SAT solver) and
:class:`~xpg.explain.exhaustive_oracle.ExhaustiveOracle` (any model over finite domains, by
its own ``predict``: small models, tests).  The battery of ``tests/oracles/battery.py``
runs against every one of them.

Examples
--------
>>> from xpg.examples import and_xpg
>>> from xpg.explain.graph_oracle import GraphOracle
>>> oracle = GraphOracle(and_xpg())  # a and b, for a = b = 1
>>> oracle.check([0, 1]) is None, sorted(oracle.changed(oracle.check([0])))
(True, [1])

References
----------
Huang, Izza, Ignatiev, Marques-Silva. On Efficiently Explaining Graph-Based Classifiers.
KR 2021 (Alg. 1 and the queries over it); Marques-Silva, Ignatiev. Delivering Trustworthy AI
through Formal XAI. AAAI 2022 (explanations from any oracle of this question).
"""

from __future__ import annotations

import abc
import time
from collections.abc import Iterable, Sequence
from typing import Any

from xpg.errors import InvalidQueryError, InvalidSeedError


class OracleTimeout(Exception):
    """Raised by :meth:`Oracle.check` once :attr:`Oracle.deadline` has passed; internal, the
    queries that set a deadline turn it into their own answer (a partial result or
    :class:`~xpg.explain.decision.QueryTimeout`)."""


class Undecided(Exception):
    """Raised by :meth:`Oracle.check` with ``solver=False`` when the cheap decisions do not
    decide the question (the caller may ask again later, with the solver)."""


class Oracle(abc.ABC):
    """For one instance of one model: can another class be predicted with some features
    fixed?  Subclasses set :attr:`names`, :attr:`n_features` and :attr:`route` and
    implement :meth:`tested`, :meth:`check` and :meth:`changed`.

    Attributes
    ----------
    names : sequence of str
        The explained features, indexed by the algorithms.
    n_features : int
    route : str
        What answers the questions, as answers report it (``"graph"``, ``"sat-pb"``...).
    prediction_label
        The model's class for the instance.
    calls : int
        Questions asked so far.
    deadline : float or None
        A ``time.perf_counter()`` past which :meth:`check` raises :class:`OracleTimeout`
        (an oracle that answers in polynomial time may ignore it).
    last_core : list of int or None
        After :meth:`check` answered None: fixed features its proof used, or None.
    axps_first : bool
        Whether an enumeration prefers AXps first (its solver's phases: fixed).
    """

    names: Sequence[str]
    n_features: int
    route: str
    prediction_label: Any = None
    calls: int = 0
    deadline: float | None = None
    last_core: list[int] | None = None
    #: MARCO's solver prefers fixing features (AXps first); an oracle whose CXps are cheap to
    #: find first (a graph's: one path) sets it False
    axps_first: bool = True

    @abc.abstractmethod
    def tested(self) -> list[int]:
        """The features whose value the model can tell apart, in feature order (the others
        are in no explanation)."""

    @abc.abstractmethod
    def check(self, fixed: Iterable[int], *, solver: bool = True) -> Any | None:
        """With ``fixed`` (indices) at the instance's values and the others free: a witness
        of another class, or None when the prediction cannot change.

        Raises
        ------
        Undecided
            With ``solver=False``, when the cheap decisions do not settle it.
        OracleTimeout
            Once :attr:`deadline` has passed.
        """

    @abc.abstractmethod
    def changed(self, witness: Any) -> set[int]:
        """The features a witness of :meth:`check` moves away from the instance (a weak CXp:
        freeing them allows another class)."""

    def index(self, feature: Any) -> int:
        """The index of a feature given by name (or by index), checked
        (:class:`~xpg.errors.InvalidFeatureError`)."""
        from xpg.explain.seeds import feature_index

        return feature_index(self.names, feature)

    def check_deadline(self) -> None:
        """Raise :class:`OracleTimeout` once :attr:`deadline` has passed (between
        questions: a question answered in polynomial time never looks at the clock)."""
        if self.deadline is not None and time.perf_counter() >= self.deadline:
            raise OracleTimeout

    def check_free(self, free: Iterable[int]) -> Any | None:
        """:meth:`check` with every feature fixed but ``free``."""
        free_set = set(free)
        return self.check([v for v in range(self.n_features) if v not in free_set])

    def deletion_order(self, fixed: list[int]) -> list[int]:
        """``fixed`` in the order an AXp by deletion tries to free them (default: as given)."""
        return list(fixed)

    def deletion(self, fixed: Sequence[int], *, proven: bool = False) -> Deletion:
        """A session freeing features one by one from the weak AXp ``fixed`` (``proven``: the
        last question asked was that one, and its answer was None).

        Raises
        ------
        InvalidSeedError
            When ``fixed`` is not a weak AXp.
        """
        return Deletion(self, fixed, proven=proven)

    def cxp_masks(self) -> list[int] | None:
        """Every CXp as a bit mask over the features, when the oracle can list them at
        little cost; None otherwise (the default)."""
        return None

    def check_cells(self, allowed: Sequence[Iterable[int] | None]) -> Any | None:
        """With the cell of each feature ``i`` among ``allowed[i]`` (indices of the cells of
        the oracle's ``space``; None: any): a witness of another class (one cell per
        feature), or None when the prediction cannot change.  An oracle with a space of
        cells answers it (an explanation graph's, a tree ensemble's, a decision list's, the
        exhaustive one); the default refuses.

        Raises
        ------
        InvalidQueryError
            When the oracle cannot ask about sets of values (the default), or for cells
            that are none of a feature's.
        OracleTimeout
            Once :attr:`deadline` has passed.
        """
        raise InvalidQueryError(
            f"the {self.route} route cannot ask about sets of values (it needs an oracle "
            "over the cells of the features: a decision graph, a tree ensemble or a decision "
            "list)"
        )

    def close(self) -> None:
        """Release what the oracle owns (solvers); the default owns nothing."""
        return None

    def __enter__(self) -> Oracle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class CellOracle(Oracle):
    """An oracle over the *cells* of the features (the classes of values the model does not
    tell apart): its ``space`` has ``names``, ``n_cells`` (per feature; one: the feature is
    in no explanation), ``instance_cell`` and ``values(cells)``; a witness is one cell per
    feature."""

    space: Any

    @property
    def names(self) -> Sequence[str]:  # type: ignore[override]
        return self.space.names  # type: ignore[no-any-return]

    @property
    def instance_values(self) -> dict[str, Any]:
        """The instance's values, by feature name."""
        return self.space.values(list(self.space.instance_cell))  # type: ignore[no-any-return]

    def tested(self) -> list[int]:
        return [i for i, k in enumerate(self.space.n_cells) if k > 1]

    def changed(self, witness: Any) -> set[int]:
        instance = self.space.instance_cell
        return {i for i, (c, c0) in enumerate(zip(list(witness), instance)) if c != c0}


class Deletion:
    """Features freed one at a time from a weak AXp while the prediction stays: one
    :meth:`Oracle.check` a question, the fixed features cut to :attr:`Oracle.last_core`
    after each proof.  Oracles with an incremental state override :meth:`Oracle.deletion`.

    Attributes
    ----------
    fixed : list of int
        The features still fixed (a weak AXp throughout).
    """

    def __init__(self, oracle: Oracle, fixed: Sequence[int], *, proven: bool = False) -> None:
        self.oracle = oracle
        keep = set(oracle.tested())
        current = sorted(set(fixed) & keep)
        if not proven and oracle.check(current) is not None:
            refuse_seed(oracle, fixed)
        self.fixed = _cut_to_core(oracle, current)

    def free_each(self, order: Iterable[int], *, solver: bool = True) -> list[int]:
        """Try to free each feature of ``order`` in turn (those already free are skipped);
        the ones the cheap decisions left undecided (only with ``solver=False``)."""
        return [v for v in order if self.free_one(v, solver=solver) is None]

    def free_one(self, v: int, *, solver: bool = True) -> list[int] | None:
        """Try to free ``v``: the features freed (``v``, and the others its proof's core
        leaves out; none when ``v`` must stay fixed or is free already), or None when the
        cheap decisions leave the question undecided (only with ``solver=False``)."""
        if v not in self.fixed:
            return []
        trial = [u for u in self.fixed if u != v]
        try:
            witness = self.oracle.check(trial, solver=solver)
        except Undecided:
            return None
        if witness is not None:
            return []
        kept = _cut_to_core(self.oracle, trial)
        freed = sorted(set(self.fixed) - set(kept))
        self.fixed = kept
        return freed


def _cut_to_core(oracle: Oracle, fixed: list[int]) -> list[int]:
    """``fixed`` cut to the last proof's core (a weak AXp inside it), when there is one."""
    core = oracle.last_core
    if core is None:
        return fixed
    inside = set(core)
    return [u for u in fixed if u in inside]


def refuse_seed(oracle: Oracle, seed: Iterable[int], kind: str = "AXp") -> None:
    """Raise :class:`~xpg.errors.InvalidSeedError` for a seed that is not a weak ``kind``."""
    names = [oracle.names[i] for i in sorted(set(seed))]
    if kind == "AXp":
        raise InvalidSeedError(
            f"the seed {names} is not a weak AXp: freeing the other features already allows "
            "another prediction"
        )
    raise InvalidSeedError(
        f"the seed {names} is not a weak CXp: freeing it cannot change the prediction"
    )


def allowed_cells(
    names: Sequence[str], n_cells: Sequence[int], allowed: Sequence[Iterable[int] | None]
) -> list[list[int]]:
    """The ``allowed`` argument of :meth:`Oracle.check_cells`, checked: per feature, its
    allowed cells sorted (None: every cell).

    >>> allowed_cells(["a", "b"], [2, 3], [None, {2, 0}])
    [[0, 1], [0, 2]]
    >>> allowed_cells(["a"], [2], [[2]])
    Traceback (most recent call last):
    ...
    xpg.errors.InvalidQueryError: feature 'a': expected cells among 0..1, found [2]
    """
    if len(allowed) != len(names):
        raise InvalidQueryError(
            f"expected a set of cells (or None) for each of the {len(names)} features, "
            f"found {len(allowed)}"
        )
    out = []
    for name, k, cells in zip(names, n_cells, allowed, strict=True):
        chosen = list(range(k)) if cells is None else sorted(set(cells))
        if not chosen or chosen[0] < 0 or chosen[-1] >= k:
            raise InvalidQueryError(
                f"feature {name!r}: expected cells among 0..{k - 1}, found {chosen!r}"
            )
        out.append(chosen)
    return out


__all__ = [
    "CellOracle",
    "Deletion",
    "Oracle",
    "OracleTimeout",
    "Undecided",
    "allowed_cells",
    "refuse_seed",
]
