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


class InvalidSeedError(XpgError, ValueError):
    """A seed handed to an explanation extractor does not have the property it must have."""
