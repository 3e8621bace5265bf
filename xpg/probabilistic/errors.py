"""The exceptions of the probabilistic explainers (all derive from :class:`~xpg.errors.XpgError`).

Examples
--------
>>> from xpg.errors import XpgError
>>> err = UnboundedDomainError("feature 'age': expected finite bounds, found [0, inf]")
>>> isinstance(err, XpgError) and isinstance(err, ValueError)
True
"""

from __future__ import annotations

from xpg.errors import XpgError


class UnboundedDomainError(XpgError, ValueError):
    """A distribution needs a bounded domain (uniform over an integer or real feature)."""


class InvalidDataError(XpgError, ValueError):
    """Data given to fit a distribution does not match the features (shape, value, domain)."""


class InvalidParameterError(XpgError, ValueError):
    """An explainer parameter is out of range (a rate outside (0, 1), a negative size...)."""


class InvalidFeatureSetError(XpgError, ValueError):
    """A feature set names a feature the model does not have."""


class ExactPrecisionUnavailableError(XpgError, ValueError):
    """Exact precision needs a compiled tree or read-once graph under a product distribution."""
