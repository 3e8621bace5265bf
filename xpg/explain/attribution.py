"""Formal feature attribution (FFA): each feature's share of the AXps that contain it.

``FFA(i) = |{X AXp : i in X}| / |{X AXp}|``: 1 for a feature in every AXp (necessary), 0
for one in none (irrelevant), in between for the others, the more explanations a feature
takes part in the larger.  The AXps are enumerated by MARCO
(:class:`~xpg.explain.marco.Enumerator`), whose CXps are cheap and lead it to the AXps: it is
the paper's anytime scheme.  Within a budget (``limit`` AXps, ``timeout`` seconds) the
shares are those of the AXps found (``complete`` False), with the bounds the stop leaves
proved:

* a feature the model does not test is in no AXp: ``(0, 0)``; a feature whose freeing
  alone changes the prediction (a CXp of one feature) is in every AXp: ``(1, 1)``;
* for the others, ``n`` AXps found of which ``c`` hold the feature: the AXps left unseen are
  at most ``M = C(k, floor(k / 2)) - n`` (the AXps, less the necessary features, form an
  antichain over the ``k`` features neither necessary nor irrelevant: Sperner's theorem),
  so the share lies in ``[c / (n + M), (c + M) / (n + M)]``.

When the enumeration completes the shares are exact and each bound is ``(s, s)``.

Examples
--------
>>> from xpg.examples import AGE, CREDIT, INCOME, STUDENT, paper_figure1
>>> from xpg.explain.engine import Explainer
>>> x = {AGE: "O", INCOME: "L", STUDENT: "Y", CREDIT: "P"}
>>> ffa = feature_attribution(Explainer(paper_figure1()), x)
>>> ffa.shares, ffa.complete, ffa.axps
({'Age': 1.0, 'Income': 0.0, 'Student': 0.0, 'Credit Rating': 1.0}, True, 1)
>>> mean_attribution([{"attribution": {"a": 1.0, "b": 0.0}},
...                   {"attribution": {"a": 0.5, "b": 0.5}}, {"row": 2, "error": "bad"}])
{'a': 0.75, 'b': 0.25}

References
----------
Yu, Farr, Ignatiev, Stuckey. Anytime Approximate Formal Feature Attribution. SAT 2024
(FFA, and its anytime approximation by enumeration); Huang, Izza, Ignatiev, Marques-Silva.
On Efficiently Explaining Graph-Based Classifiers. KR 2021, Alg. 4 (MARCO); Sperner. Ein Satz
ueber Untermengen einer endlichen Menge. Math. Z. 1928.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from xpg.explain.decision import Decision
from xpg.explain.marco import _checked_limit, _checked_timeout
from xpg.explain.oracle_abc import OracleTimeout


@dataclass(frozen=True)
class FeatureAttribution:
    """The formal feature attribution of one decision (:func:`feature_attribution`).

    Attributes
    ----------
    shares : dict
        Per feature of the model (in its order), the share of the AXps found that hold it
        (0.0 for a feature in none), kept within its proved bounds.
    complete : bool
        True when every AXp was enumerated: the shares are exact.
    axps : int
        The AXps found.
    bounds : dict
        Per feature, ``(low, high)`` proved to hold the exact share: ``(s, s)`` when
        complete.
    prediction
        The model's class.
    route : str
        What answered the questions.
    seconds : float
    """

    shares: dict[str, float]
    complete: bool
    axps: int
    bounds: dict[str, tuple[float, float]]
    prediction: Any
    route: str
    seconds: float

    def as_dict(self) -> dict[str, Any]:
        """The JSON form: ``prediction`` (as text), ``shares``, ``complete``, ``axps``,
        ``bounds`` (each a ``[low, high]`` list), ``route``, ``seconds``."""
        return {
            "prediction": str(self.prediction),
            "shares": dict(self.shares),
            "complete": self.complete,
            "axps": self.axps,
            "bounds": {k: [lo, hi] for k, (lo, hi) in self.bounds.items()},
            "route": self.route,
            "seconds": self.seconds,
        }


def shares_of(names: Sequence[str], axps: Iterable[Iterable[str]]) -> dict[str, float]:
    """Each feature's share of ``axps`` (0.0 for every feature when there is none).

    >>> shares_of(["a", "b", "c"], [["a", "b"], ["a"]])
    {'a': 1.0, 'b': 0.5, 'c': 0.0}
    """
    counts = dict.fromkeys(names, 0)
    n = 0
    for axp in axps:
        n += 1
        for name in axp:
            counts[name] += 1
    return {k: (c / n if n else 0.0) for k, c in counts.items()}


def feature_attribution(
    explainer: Any, instance: Any, *, limit: int | None = None, timeout: float | None = None
) -> FeatureAttribution:
    """The formal feature attribution of ``explainer``'s decision on ``instance``.

    Parameters
    ----------
    explainer : Explainer
    instance : mapping, sequence or one-row table
        As :meth:`~xpg.explain.engine.Explainer.explain` takes it.
    limit : int, optional
        The most AXps enumerated (None: all of them).
    timeout : float, optional
        The most seconds (None: no limit).

    Returns
    -------
    FeatureAttribution
        Exact (``complete``) when the enumeration ends within the budget; otherwise the
        shares of the AXps found and the bounds proved.  A budget reached is no error.

    Raises
    ------
    InvalidParameterError
        For a limit below 1, a negative timeout.
    InvalidInstanceError
        For an instance outside the features' domains.
    """
    with explainer.explain(instance) as decision:
        return attribution_of(decision, limit=limit, timeout=timeout)


def attribution_of(
    decision: Decision, *, limit: int | None = None, timeout: float | None = None
) -> FeatureAttribution:
    """:func:`feature_attribution` of a decision already explained."""
    limit = _checked_limit(limit)
    timeout = _checked_timeout(timeout)
    start = time.perf_counter()
    oracle = decision.oracle
    found: list[tuple[str, ...]] = []
    singles: set[int] = set()
    with decision.iter_explanations(timeout=timeout) as en:
        for _ in en:
            if en.cxp_sets and len(en.cxp_sets[-1]) == 1:
                singles.add(en.cxp_sets[-1][0])
            if len(en.axps) > len(found):
                found.append(en.axps[-1])
                if limit is not None and len(found) >= limit:
                    break
        complete = en.complete
    names = list(oracle.names)
    necessary: set[int] = set()
    irrelevant: set[int] = set()
    if not complete:
        deadline = None if timeout is None else start + timeout
        necessary, irrelevant = _classes(decision, singles, deadline)
    shares, bounds = estimated(
        names,
        found,
        complete,
        necessary=[names[v] for v in necessary],
        irrelevant=[names[v] for v in irrelevant],
    )
    seconds = time.perf_counter() - start
    return FeatureAttribution(
        shares, complete, len(found), bounds, decision.prediction, decision.route, seconds
    )


def estimated(
    names: Sequence[str],
    axps: Sequence[Iterable[str]],
    complete: bool,
    *,
    necessary: Iterable[str] = (),
    irrelevant: Iterable[str] = (),
) -> tuple[dict[str, float], dict[str, tuple[float, float]]]:
    """The shares of ``axps`` and their proved bounds: exact when ``complete``; otherwise
    ``(1, 1)`` for the features proved ``necessary``, ``(0, 0)`` for those proved
    ``irrelevant``, Sperner's bounds for the others (see the module's text), and each share
    kept within its bounds.

    >>> estimated(["a", "b", "c"], [["a", "b"]], False, necessary=["a"])
    ({'a': 1.0, 'b': 1.0, 'c': 0.0}, {'a': (1.0, 1.0), 'b': (0.5, 1.0), 'c': (0.0, 0.5)})
    """
    shares = shares_of(names, axps)
    if complete:
        return shares, {k: (s, s) for k, s in shares.items()}
    necessary, irrelevant = set(necessary), set(irrelevant)
    n = len(axps)
    k = sum(name not in necessary and name not in irrelevant for name in names)
    unseen = max(0, math.comb(k, k // 2) - n)  # n + unseen >= 1
    bounds: dict[str, tuple[float, float]] = {}
    for name in names:
        if name in irrelevant:
            bounds[name] = (0.0, 0.0)
        elif name in necessary:
            bounds[name] = (1.0, 1.0)
        else:
            c = shares[name] * n
            bounds[name] = (c / (n + unseen), (c + unseen) / (n + unseen))
        shares[name] = min(max(shares[name], bounds[name][0]), bounds[name][1])
    return shares, bounds


def _classes(
    decision: Decision, necessary: set[int], deadline: float | None
) -> tuple[set[int], set[int]]:
    """The features proved necessary (``necessary``, the singleton CXps found, and each
    feature whose freeing alone changes the prediction, while time is left) and irrelevant
    (those the model does not test; on a graph without a time limit, its feature classes)."""
    oracle = decision.oracle
    tested = oracle.tested()
    irrelevant = {v for v in range(oracle.n_features) if v not in set(tested)}
    necessary = set(necessary)
    if deadline is None and decision.route == "graph":
        classes = decision.classify_features()
        index = {n: v for v, n in enumerate(oracle.names)}
        return {index[n] for n in classes.necessary}, {index[n] for n in classes.irrelevant}
    before = oracle.deadline
    oracle.deadline = deadline
    try:
        for v in tested:
            if v not in necessary and oracle.check_free([v]) is not None:
                necessary.add(v)
    except OracleTimeout:
        pass
    finally:
        oracle.deadline = before
    return necessary, irrelevant


def mean_attribution(records: Iterable[Mapping[str, Any]]) -> dict[str, float]:
    """The mean share of each feature over the ``"attribution"`` fields of batch records
    (rows with an error, or without the field, are skipped); features in the order they
    first appear.  Empty when no record has the field."""
    sums: dict[str, float] = {}
    n = 0
    for record in records:
        shares = record.get("attribution")
        if "error" in record or not isinstance(shares, Mapping):
            continue
        n += 1
        for name, share in shares.items():
            sums[name] = sums.get(name, 0.0) + float(share)
    return {k: s / n for k, s in sums.items()}


__all__ = [
    "FeatureAttribution",
    "attribution_of",
    "estimated",
    "feature_attribution",
    "mean_attribution",
    "shares_of",
]
