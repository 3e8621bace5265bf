"""Names kept for code written before the one explainer (:mod:`xpg.explain.engine`); each
warns once with what to call instead.

Examples
--------
>>> import warnings
>>> from xpg.core.features import Feature, Literal
>>> from xpg.models.decision_list import DecisionList, Rule
>>> dl = DecisionList([Feature.boolean("a"), Feature.boolean("b")], [0, 1],
...                   [Rule([Literal.eq("a", 1), Literal.eq("b", 1)], 1)], 0)
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     with DecisionListExplainer(dl, {"a": 1, "b": 0}) as old:
...         old.find_axp(), old.route
(('b',), 'list-sat')
>>> print(caught[0].message)  # doctest: +NORMALIZE_WHITESPACE
DecisionListExplainer(model, instance) is deprecated:
use xpg.Explainer(model, route="sat").explain(instance)
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any

from xpg.explain.decision import Decision
from xpg.explain.engine import Explainer, Route, as_model

#: the base class of the old explainers: an explained decision
OracleExplainer = Decision


def _warn(old: str, new: str) -> None:
    warnings.warn(f"{old} is deprecated: use {new}", DeprecationWarning, stacklevel=3)


def _sat_if_any(model: Any) -> Route:
    """The route the old classes took by default: the SAT oracle, where the model has one
    (tree ensembles, decision lists), else the engine's choice (a fitted scikit-learn tree,
    say, is compiled)."""
    from xpg.models.decision_list import DecisionList
    from xpg.models.ensemble import TreeEnsemble

    return "sat" if isinstance(model, (TreeEnsemble, DecisionList)) else "auto"


def _adopt(decision: Decision, into: Decision) -> None:
    """Make ``into`` the explained decision ``decision`` (the old classes were constructed
    with the model and the instance)."""
    Decision.__init__(
        into,
        decision.oracle,
        model=decision.model,
        instance=decision.instance,
        robustness=decision._robustness,
    )


class EnsembleExplainer(Decision):
    """Deprecated: ``xpg.Explainer(model, route=...).explain(instance)``, where ``route``
    ``"auto"`` of this class is ``"sat"`` (for a model with a SAT oracle).  ``model``: an xpg
    model or any trained classifier :func:`xpg.import_model` reads, converted as it does."""

    closed_message = "this EnsembleExplainer is closed"

    def __init__(
        self,
        model: Any,
        instance: Mapping[str, Any] | Sequence[Any],
        route: Route = "auto",
        *,
        groups: Sequence[Any] | None = None,
        shortcuts: bool = True,
    ) -> None:
        _warn("EnsembleExplainer(model, instance)", "xpg.Explainer(model).explain(instance)")
        model = as_model(model)  # a fitted estimator: the xpg model xpg.import_model makes
        chosen: Route = _sat_if_any(model) if route == "auto" else route
        explainer = Explainer(model, route=chosen, groups=groups, shortcuts=shortcuts)
        _adopt(explainer.explain(instance), self)


class DecisionListExplainer(Decision):
    """Deprecated: ``xpg.Explainer(model, route="sat").explain(instance)`` (a decision list
    over its SAT oracle, never compiled; a model without one: the engine's route)."""

    closed_message = "this DecisionListExplainer is closed"

    def __init__(self, model: Any, instance: Mapping[str, Any] | Sequence[Any]) -> None:
        _warn(
            "DecisionListExplainer(model, instance)",
            'xpg.Explainer(model, route="sat").explain(instance)',
        )
        model = as_model(model)
        _adopt(Explainer(model, route=_sat_if_any(model)).explain(instance), self)


__all__ = ["DecisionListExplainer", "EnsembleExplainer", "OracleExplainer"]
