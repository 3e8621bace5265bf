"""What every explainer of a removal game shares: ``fit(game)``, ``interpretation_``, ``predict``.

Explainers follow scikit-learn's conventions: ``__init__`` only stores parameters, ``fit``
reads a :class:`~xpg.fourier.game.RemovalGame` and learns ``interpretation_`` (a callable on
masks, usually a :class:`~xpg.fourier.basis.FourierPolynomial`), and ``n_queries_`` records how
many masks of the game the fit evaluated.

Examples
--------
>>> from xpg.fourier.harmonica import LowDegree
>>> LowDegree().predict([[1, 1]])
Traceback (most recent call last):
...
xpg.errors.ExplainerNotFittedError: LowDegree is not fitted yet: call fit(game) first

References
----------
Pedregosa et al. Scikit-learn: Machine Learning in Python. JMLR 12 (2011) (estimator API).
"""

from __future__ import annotations

import abc
import inspect
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike

from xpg.core.validation import validate_params
from xpg.errors import ExplainerNotFittedError, InvalidExplainerError
from xpg.fourier.game import RemovalGame


class RemovalExplainer(abc.ABC):
    """Base class: subclasses implement ``fit(game)`` and set ``interpretation_``.

    ``_parameter_constraints`` gives the accepted forms of constructor parameters (scikit-learn
    style, :mod:`xpg.core.validation`); ``fit`` checks them with :meth:`_validated`.
    """

    interpretation_: Any
    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {}

    @abc.abstractmethod
    def fit(self, game: RemovalGame) -> RemovalExplainer:
        """Learn ``interpretation_`` from the game; return ``self``."""

    def predict(self, masks: ArrayLike) -> np.ndarray:
        """Values of the learned interpretation on masks of shape ``(m, n_players)``."""
        if not hasattr(self, "interpretation_"):
            raise ExplainerNotFittedError(
                f"{type(self).__name__} is not fitted yet: call fit(game) first"
            )
        return np.asarray(self.interpretation_(masks), dtype=float)

    def _validated(self, game: object) -> tuple[RemovalGame, dict[str, Any]]:
        """The game and the constructor parameters, checked before any query (else
        :class:`InvalidExplainerError` naming the explainer and the parameter)."""
        who = type(self).__name__
        checked = check_game(game, who)
        params = validate_params(
            self.get_params(),
            self._parameter_constraints,
            error=InvalidExplainerError,
            where=f"{who}: ",
        )
        return checked, params

    def _query(self, game: RemovalGame, masks: np.ndarray) -> np.ndarray:
        """The game's values on ``masks``, counted in ``n_queries_``."""
        before = game.n_queries
        values = game(masks)
        self.n_queries_ = game.n_queries - before
        return values

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({params})"

    def get_params(self) -> dict[str, Any]:
        """Constructor parameters (scikit-learn style)."""
        names = [p for p in inspect.signature(type(self).__init__).parameters if p != "self"]
        return {name: getattr(self, name) for name in names}


def check_game(game: object, who: str) -> RemovalGame:
    """Raise :class:`InvalidExplainerError` unless ``game`` is a :class:`RemovalGame`."""
    if not isinstance(game, RemovalGame):
        raise InvalidExplainerError(
            f"{who}.fit: expected a RemovalGame (see xpg.fourier.game), found {type(game).__name__}"
        )
    return game
