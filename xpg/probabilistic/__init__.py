"""Probabilistic explainers for any model, with exact answers where a model is compiled.

Wrap a model as a :class:`BlackBox` (a callable, a scikit-learn estimator, or a compiled
:class:`~xpg.core.graph.DecisionGraph`), choose a sampling distribution (uniform over the domains,
the training data's marginals, or the training data), and ask:

* :func:`precision_error`: how often a random input agreeing with the instance on a feature
  set gets another class; sampled with a confidence interval, or exact on compiled trees and
  read-once graphs;
* :func:`find_certificate`: a succinct certificate (Blanc, Lange, Tan 2021), certified only
  when an upper confidence bound of its error is at most eps (:func:`theorem1_parameters`
  and :func:`theorem3_sample_size` give the paper's settings);
* :func:`find_optimal_rule`: a k-feature rule of minimum empirical error, Cop or Sat encoding,
  solved exactly by CP-SAT or RC2 (Koriche, Lagniez, Mengel, Tran);
* :func:`find_anchor`: the Anchors baseline (anchor-exp, beam search with beam 10);
* :func:`find_probabilistic_axp`: a subset-minimal set of exact precision at least 1 - delta.

All return a :class:`ProbabilisticExplanation`.

Examples
--------
>>> from sklearn.datasets import load_iris
>>> from sklearn.tree import DecisionTreeClassifier
>>> from xpg.core.features import Feature
>>> X, y = load_iris(return_X_y=True)
>>> features = [Feature.real(n, 0.0, 8.0) for n in ("sl", "sw", "pl", "pw")]
>>> tree = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
>>> model = BlackBox.from_sklearn_tree(tree, features)
>>> paxp = find_probabilistic_axp(model, X[60], delta=0.1)
>>> paxp.features, paxp.precision.method
(('pl', 'pw'), 'exact-propagation')
>>> cert = find_certificate(model, X[60], seed=0)
>>> precision_error(model, X[60], cert.features).error <= 0.1
True
"""

from xpg.errors import (
    ExactPrecisionUnavailableError,
    InvalidDataError,
    InvalidFeatureSetError,
    InvalidParameterError,
    MissingExtraError,
    UnboundedDomainError,
)
from xpg.probabilistic.anchors import find_anchor
from xpg.probabilistic.blackbox import BlackBox, QueryCounter
from xpg.probabilistic.certificate import (
    Theorem1Parameters,
    error_upper_bound,
    find_certificate,
    theorem1_parameters,
    theorem3_sample_size,
)
from xpg.probabilistic.distributions import (
    EmpiricalDistribution,
    MarginalDistribution,
    SamplingDistribution,
    UniformDistribution,
)
from xpg.probabilistic.explainers import explain_probabilistically
from xpg.probabilistic.optimal_rule import RuleSolution, find_optimal_rule, solve_rule
from xpg.probabilistic.precision import GraphPrecision, PrecisionEstimate, precision_error
from xpg.probabilistic.probabilistic_axp import (
    find_probabilistic_axp,
    is_weak_probabilistic_axp,
)
from xpg.probabilistic.result import ProbabilisticExplanation

__all__ = [
    "BlackBox",
    "EmpiricalDistribution",
    "ExactPrecisionUnavailableError",
    "MissingExtraError",
    "GraphPrecision",
    "InvalidDataError",
    "InvalidFeatureSetError",
    "InvalidParameterError",
    "MarginalDistribution",
    "PrecisionEstimate",
    "ProbabilisticExplanation",
    "QueryCounter",
    "RuleSolution",
    "SamplingDistribution",
    "Theorem1Parameters",
    "UnboundedDomainError",
    "UniformDistribution",
    "error_upper_bound",
    "explain_probabilistically",
    "find_anchor",
    "find_certificate",
    "find_optimal_rule",
    "find_probabilistic_axp",
    "is_weak_probabilistic_axp",
    "precision_error",
    "solve_rule",
    "theorem1_parameters",
    "theorem3_sample_size",
]
