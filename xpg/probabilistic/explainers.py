"""Every probabilistic explainer behind one call, by name.

Examples
--------
>>> from xpg.core.features import Feature
>>> from xpg.probabilistic.blackbox import BlackBox
>>> features = [Feature.boolean(f"x{i}") for i in range(8)]
>>> f = BlackBox(lambda X: (X[:, 0] * X[:, 5]).astype(int), features)
>>> r = explain_probabilistically(f, [1, 0, 0, 0, 0, 1, 0, 0], "cop", k=2, seed=0)
>>> r.method, r.features, r.optimal
('cop', ('x0', 'x5'), True)

References
----------
Blanc, Lange, Tan. NeurIPS 2021 (certificates); Koriche, Lagniez, Mengel, Tran (Cop, Sat);
Ribeiro, Singh, Guestrin. AAAI 2018 (Anchors); Izza et al. IJAR 2023 (probabilistic AXps).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from xpg.core.graph import DecisionGraph
from xpg.core.validation import Options, check_param
from xpg.errors import InvalidParameterError
from xpg.probabilistic.anchors import find_anchor
from xpg.probabilistic.blackbox import BlackBox
from xpg.probabilistic.certificate import find_certificate
from xpg.probabilistic.distributions import SamplingDistribution
from xpg.probabilistic.optimal_rule import find_optimal_rule
from xpg.probabilistic.probabilistic_axp import find_probabilistic_axp
from xpg.probabilistic.result import EXPLAINER_NAMES, ExplainerName, ProbabilisticExplanation


def _cop(*args: Any, **kwargs: Any) -> ProbabilisticExplanation:
    return find_optimal_rule(*args, encoding="cop", **kwargs)


def _sat(*args: Any, **kwargs: Any) -> ProbabilisticExplanation:
    return find_optimal_rule(*args, encoding="sat", **kwargs)


def _paxp(*args: Any, seed: Any = None, **kwargs: Any) -> ProbabilisticExplanation:
    # exact and deterministic: a seed, meant for the sampling explainers, changes nothing
    return find_probabilistic_axp(*args, **kwargs)


EXPLAINERS: dict[str, Callable[..., ProbabilisticExplanation]] = {
    "certificate": find_certificate,
    "cop": _cop,
    "sat": _sat,
    "anchors": find_anchor,
    "probabilistic-axp": _paxp,
}


def explain_probabilistically(
    model: BlackBox | DecisionGraph,
    instance: Any,
    method: ExplainerName,
    distribution: SamplingDistribution | None = None,
    **options: Any,
) -> ProbabilisticExplanation:
    """Run the explainer ``method`` (options passed on) and return its explanation.

    ``method`` is one of ``"certificate"`` (:func:`~.certificate.find_certificate`),
    ``"cop"`` and ``"sat"`` (:func:`~.optimal_rule.find_optimal_rule`), ``"anchors"``
    (:func:`~.anchors.find_anchor`) and ``"probabilistic-axp"``
    (:func:`~.probabilistic_axp.find_probabilistic_axp`, which ignores ``seed``: it is exact).
    """
    check_param("method", method, Options(EXPLAINER_NAMES))
    accepted = explainer_options(method)
    unknown = sorted(set(options) - set(accepted))
    if unknown:
        raise InvalidParameterError(
            f"{', '.join(map(repr, unknown))}: not an option of the {method} explainer "
            f"(expected some of {', '.join(accepted)})"
        )
    return EXPLAINERS[method](model, instance, distribution, **options)


def explainer_options(method: ExplainerName) -> tuple[str, ...]:
    """The keyword options the explainer ``method`` accepts.

    Examples
    --------
    >>> explainer_options("sat")[:3]
    ('k', 'n_samples', 'solver')
    """
    underlying: dict[str, Callable[..., Any]] = {
        "cop": find_optimal_rule,
        "sat": find_optimal_rule,
        "probabilistic-axp": find_probabilistic_axp,
    }
    function = underlying.get(method, EXPLAINERS[method])
    names = [
        p.name
        for p in inspect.signature(function).parameters.values()
        if p.kind is inspect.Parameter.KEYWORD_ONLY and p.name != "encoding"
    ]
    return tuple(names + (["seed"] if method == "probabilistic-axp" else []))
