"""The exceptions xpg raises for bad input.

Every error derives from :class:`XpgError` and from the builtin it refines, so
``except ValueError`` keeps working for callers that do not know xpg.

Examples
--------
>>> from xpg.errors import ParseError, XpgError
>>> err = ParseError("expected 'NN: <count>', found 'NX: 3'", path="g.xpg", line=1)
>>> str(err)
"g.xpg:1: expected 'NN: <count>', found 'NX: 3'"
>>> isinstance(err, XpgError) and isinstance(err, ValueError)
True
"""

from __future__ import annotations


class XpgError(Exception):
    """Root of every error xpg raises on purpose."""


class InvalidFeatureError(XpgError, ValueError):
    """A feature or literal is malformed (empty domain, unknown type, value outside the domain)."""


class InvalidGraphError(XpgError, ValueError):
    """A decision or explanation graph breaks the assumptions explanations rely on.

    ``violations`` lists every problem found, each naming the node or edge it concerns.
    """

    def __init__(self, message: str, violations: list[str] | None = None) -> None:
        super().__init__(message)
        self.violations: list[str] = list(violations or [message])


class InvalidModelError(XpgError, ValueError):
    """A model (or a model file) cannot be compiled: unknown feature, bad rule, bad format."""


class UnsupportedModelError(InvalidModelError):
    """A model xpg reads but cannot reproduce exactly (a regression objective, linear trees, an
    unsupported split): refused rather than explained approximately."""


class InvalidInstanceError(XpgError, ValueError):
    """An instance does not match the model's features (missing, unknown or out-of-domain)."""


class ParseError(XpgError, ValueError):
    """A file could not be read; the message names the file and the line."""

    def __init__(self, message: str, path: str | None = None, line: int | None = None) -> None:
        where = ""
        if path is not None:
            where = f"{path}:{line}: " if line is not None else f"{path}: "
        elif line is not None:
            where = f"line {line}: "
        super().__init__(where + message)
        self.path = path
        self.line = line


class SolverClosedError(XpgError, RuntimeError):
    """An object that owns a SAT solver was used after it was closed."""


class MissingExtraError(XpgError, ImportError):
    """An optional dependency is not installed; the message names the extra to install."""


class InvalidParameterError(XpgError, ValueError):
    """A parameter is not one of the accepted forms (:mod:`xpg.core.validation`): a rate
    outside (0, 1), a negative size, an unknown option...; the more specific parameter errors
    derive from it."""


class InvalidSeedError(XpgError, ValueError):
    """A seed handed to an explanation extractor does not have the property it must have."""


# -- raised by xpg.compile.bdd


class BackendUnavailableError(XpgError, ImportError):
    """The requested dd back-end is not installed (``dd.cudd`` needs dd built with CUDD)."""


# -- raised by xpg.explain.membership


class InvalidQueryError(InvalidParameterError):
    """A query option is not one of the accepted values (explanation kind, route)."""


# -- raised by xpg.explain.axp_cxp and xpg.explain.marco


class NotAnExplanationGraphError(XpgError, TypeError):
    """A query on one instance's explanation graph (``find_axp``, ``enumerate_explanations``,
    ...) was given something else: a scikit-learn estimator, an explained ``Decision``, a
    model or its ``DecisionGraph``; the message says how to get the graph, or what to call."""


# -- raised by xpg.explain.tree_xpg


class NotATreeError(InvalidGraphError):
    """A tree-only algorithm was given an explanation graph in which a node has several
    parents."""


# -- raised by xpg.fourier.basis


class InvalidPolynomialError(XpgError, ValueError):
    """A polynomial or mask array does not have the expected shape, subset or values."""


# -- raised by xpg.fourier.explainer


class InvalidExplainerError(InvalidParameterError):
    """An explainer parameter is out of range, or the explainer does not fit the game."""


class ExplainerNotFittedError(XpgError, AttributeError):
    """``predict`` or a learned attribute was used before ``fit``."""


# -- raised by xpg.fourier.game


class InvalidGameError(XpgError, ValueError):
    """A removal game cannot be built or evaluated: bad model output, instance or rule."""


# -- raised by xpg.fourier.masks


class GameTooLargeError(XpgError, ValueError):
    """An exhaustive computation was asked for on too many players."""


# -- raised by xpg.models.ensemble


class GraphTooLargeError(XpgError, ValueError):
    """A model is too large to compile into a decision graph within the node budget."""


# -- raised by xpg.fourier.metrics


class InvalidMetricError(InvalidParameterError):
    """A metric was asked for with arguments that do not fit together."""


# -- raised by xpg.io.atomic


class OutputError(XpgError, OSError):
    """An output file could not be written (nothing was left behind)."""


# -- raised by xpg.explain.parallel


class InfrastructureError(XpgError, RuntimeError):
    """Workers or a cluster failed, not the rows: the rows in flight were not written (a
    row's own error is a record; this never is), and ``--resume`` explains them again."""


# -- raised by xpg.learn.external_env


class ExternalEnvError(XpgError, RuntimeError):
    """An environment of its own for an external library (Orange3 for CN2, benchmark peers)
    could not be created, or a program run there failed; the message says which and why."""


# -- raised by xpg.learn.datasets


class DataNotFoundError(XpgError, FileNotFoundError):
    """A dataset or the data directory is missing; the message says where it looked."""


# -- raised by xpg.probabilistic


class UnboundedDomainError(XpgError, ValueError):
    """A distribution needs a bounded domain (uniform over an integer or real feature)."""


class InvalidDataError(XpgError, ValueError):
    """Data given to fit a distribution does not match the features (shape, value, domain)."""


class InvalidFeatureSetError(XpgError, ValueError):
    """A feature set names a feature the model does not have."""


class ExactPrecisionUnavailableError(XpgError, ValueError):
    """Exact precision needs a compiled tree or read-once graph under a product distribution."""


# -- raised by xpg.verify.verifier


class VerificationError(XpgError, RuntimeError):
    """The SMT encoding and the model's own prediction disagree (a bug, never bad input)."""
