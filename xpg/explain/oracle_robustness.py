"""Exact l-infinity robustness of a model that is not compiled, by questions to its oracle.

:func:`~xpg.explain.exact_robustness.robustness` searches a decision graph; a tree ensemble or
a decision list too large to compile has none, but its oracle
(:class:`~xpg.explain.ensemble.oracle.EnsembleOracle`,
:class:`~xpg.explain.list_oracle.DecisionListOracle`) answers "is there an input of another
class whose cell of each feature is one of these?" (``check_cells``).  The model cannot tell
the values of a cell apart, so the robustness is

    ER = min over choices of cells classified otherwise of  max over features f of d_f(cell_f),

with ``d_f`` the distance from the instance's value to the cell (0 for its own cell; as
:func:`~xpg.explain.exact_robustness.nearest_value` measures it: an infimum for an open bound,
integers for integer features, 1 for another category).  Every such maximum is one of the
distances ``d_f(cell)``: sorted, they are searched by bisection, each step one question
("another class with every feature within this distance?", monotone in the distance), so
``log2`` of their number questions in all.  The counterexample moves each feature of the
witness to the nearest value of its cell and is checked with the model's own ``predict``.

Examples
--------
>>> from xpg.core.features import Feature, Literal
>>> from xpg.models.decision_list import DecisionList, Rule
>>> from xpg.explain.engine import Explainer
>>> dl = DecisionList([Feature.real("x"), Feature.integer("n", 0, 9)], ["lo", "hi"],
...                   [Rule([Literal.gt("x", 3.0), Literal.gt("n", 4)], "hi")], "lo")
>>> with Explainer(dl, route="sat").explain({"x": 5.0, "n": 8}) as ex:
...     er = oracle_robustness(ex.oracle, radius=1.5)
>>> er.distance, er.counterexample, er.counterexample_class, er.robust, er.route
(2.0, {'x': 3.0, 'n': 8}, 'lo', True, 'list-sat')

References
----------
Moshkovitz, Yang, Chaudhuri. Connecting Interpretability and Robustness in Decision Trees
through Separation. ICML 2021, Sec. 6.2.1; Kantchelian, Tygar, Joseph. Evasion and Hardening
of Tree Ensemble Classifiers. ICML 2016 (exact evasion of tree ensembles by a solver).
"""

from __future__ import annotations

import math
import time
from typing import Any

from xpg.errors import VerificationError
from xpg.explain.exact_robustness import (
    Cost,
    Counterexample,
    Robustness,
    checked_radius,
    nearest_value,
    robustness_answer,
)


def cell_costs(oracle: Any) -> list[list[Cost]]:
    """Per feature and cell, the distance from the instance's value to the cell's values
    (``(d, 1)`` when ``d`` is only an infimum)."""
    space = oracle.space
    out = []
    for i, feature in enumerate(space.features):
        value = space.instance[space.names[i]]
        costs: list[Cost] = []
        for j in range(space.n_cells[i]):
            if j == space.instance_cell[i]:
                costs.append((0.0, 0))
                continue
            found = nearest_value(feature, value, space.layout.cell_values(i, j))
            if found is None:  # pragma: no cover - cells hold values of the domain
                raise VerificationError(f"cell {j} of feature {feature.name!r} holds no value")
            costs.append((float(found[0][0]), found[0][1]))
        out.append(costs)
    return out


def oracle_robustness(oracle: Any, *, radius: float | None = None) -> Robustness:
    """Exact l-infinity robustness at the oracle's instance, with a counterexample.

    Parameters
    ----------
    oracle : EnsembleOracle or DecisionListOracle
        The oracle of the model and the instance (its ``deadline`` bounds the search:
        past it :class:`~xpg.explain.ensemble.oracle.OracleTimeout`).
    radius : float, optional
        Also answer "is the decision robust at this radius?" (closed ball).

    Returns
    -------
    Robustness
        ``route`` is the oracle's (``"sat-pb"``, ``"smt-lra"``, ``"list-sat"``).

    Raises
    ------
    InvalidQueryError
        A negative or non-finite radius.
    VerificationError
        The model does not change its class at the counterexample (a bug).
    """
    start = time.perf_counter()
    radius = checked_radius(radius)
    space = oracle.space
    costs = cell_costs(oracle)
    levels = sorted({c for per_feature in costs for c in per_feature})

    def within(level: Cost) -> Any:
        return oracle.check_cells([[j for j, c in enumerate(per) if c <= level] for per in costs])

    best, witness = None, within(levels[-1])
    if witness is not None:
        lo, hi = 0, len(levels) - 1  # levels[hi] has a witness; none below lo
        best = hi
        while lo < hi:
            mid = (lo + hi) // 2
            found = within(levels[mid])
            if found is None:
                lo = mid + 1
            else:
                hi, best, witness = mid, mid, found
    prediction = oracle.prediction_label
    cex: dict[str, Any] | None = None
    cex_class: Any = None
    cex_distance: float | None = None
    distance, is_open = math.inf, 0
    if best is not None:
        distance, is_open = levels[best]
        cex = {}
        for i, name in enumerate(space.names):
            cell = int(witness[i])
            value = space.instance[name]
            if cell != space.instance_cell[i]:
                feature = space.features[i]
                found_value = nearest_value(feature, value, space.layout.cell_values(i, cell))
                assert found_value is not None
                value = found_value[1]
                if feature.kind == "real":
                    value = float(value)
            cex[name] = value.item() if hasattr(value, "item") else value
        cex_class = oracle.model.predict(cex)
        if cex_class == prediction:
            raise VerificationError(
                f"the counterexample {cex!r} found at distance {distance} is classified "
                f"{cex_class!r} like the instance"
            )
        cex_distance = max(
            (
                (0.0 if cex[n] == space.instance[n] else 1.0)
                if f.kind == "categorical"
                else abs(float(cex[n]) - float(space.instance[n]))
                for f, n in zip(space.features, space.names, strict=True)
            ),
            default=0.0,
        )
    found = Counterexample(cex, cex_class, cex_distance)
    return robustness_answer(
        distance, bool(is_open), prediction, found, oracle.route, start, radius
    )


__all__ = ["cell_costs", "oracle_robustness"]
