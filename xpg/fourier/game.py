"""Removal games: a model's output as a function of which features are removed.

A removal-based explanation fixes an instance ``v`` and only ever asks the model about copies
of ``v`` in which some features are *removed*.  Writing ``x_i = 1`` for a kept player and
``x_i = -1`` for a removed one turns (model, instance, removal rule) into a function
``f: {-1, 1}^n -> R``: the removal game that every explainer of this subpackage reads.

Two removal rules are offered for tabular models (:class:`TabularGame`): a removed feature
takes a *baseline* value, or its value is *averaged over background rows* (the interventional
rule of KernelSHAP).  Any other removal rule is a callable on masks (:class:`RemovalGame`).

Examples
--------
>>> import numpy as np
>>> def model(X):
...     return X[:, 0] + 2 * X[:, 1] * X[:, 2]
>>> game = TabularGame(model, instance=[1.0, 1.0, 1.0], baseline=[0.0, 0.0, 0.0])
>>> game([[1, 1, 1], [1, -1, 1], [-1, -1, -1]]).tolist()
[3.0, 1.0, 0.0]
>>> game.n_queries
3
>>> avg = TabularGame(model, [1.0, 1.0, 1.0], background=[[0.0, 0.0, 0.0], [1.0, 0.0, 1.0]])
>>> avg([[1, -1, 1]]).tolist()  # mean of model([1, 0, 1]) and model([1, 0, 1])
[1.0]

References
----------
Zhang, Yuan et al. Trade-off Between Efficiency and Consistency for Removal-based Explanations,
section 3 (removal-based explanations as Boolean functions); Covert, Lundberg, Lee. Explaining
by Removing: A Unified Framework for Model Explanation. JMLR 22 (2021).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from xpg.errors import InvalidGameError
from xpg.fourier.basis import check_masks
from xpg.fourier.masks import all_masks, check_enumerable

#: Rows sent to the model in one call when evaluating many masks.
_BATCH_ROWS = 200_000


class RemovalGame:
    """A function on removal masks ``{-1, 1}^n`` (1 = kept, -1 = removed).

    Parameters
    ----------
    value_function : callable
        Takes a float array of masks of shape ``(m, n_players)`` and returns ``m`` numbers.
    n_players : int
        Number of players (features or groups of features).
    feature_names : sequence of str, optional
        Player names, used when printing interpretations.

    Attributes
    ----------
    n_queries : int
        Number of masks evaluated so far (each mask is one query of the game).

    Examples
    --------
    >>> g = RemovalGame(lambda x: x[:, 0] * x[:, 1], 2)
    >>> g.truth_table().tolist()
    [1.0, -1.0, -1.0, 1.0]
    """

    def __init__(
        self,
        value_function: Callable[[np.ndarray], ArrayLike],
        n_players: int,
        feature_names: Sequence[str] | None = None,
    ) -> None:
        if not callable(value_function):
            raise InvalidGameError(f"expected a callable value function, found {value_function!r}")
        if int(n_players) != n_players or n_players < 1:
            raise InvalidGameError(f"expected n_players >= 1, found {n_players!r}")
        self.value_function = value_function
        self.n_players = int(n_players)
        if feature_names is not None and len(feature_names) != self.n_players:
            raise InvalidGameError(
                f"expected {self.n_players} feature names, found {len(feature_names)}"
            )
        self.feature_names = (
            tuple(str(n) for n in feature_names)
            if feature_names is not None
            else tuple(f"x{i}" for i in range(self.n_players))
        )
        self.n_queries = 0

    def __repr__(self) -> str:
        return f"{type(self).__name__}(n_players={self.n_players})"

    def __call__(self, masks: ArrayLike) -> np.ndarray:
        """Game values on masks of shape ``(m, n_players)`` (or one mask of shape ``(n,)``)."""
        x = check_masks(masks, self.n_players, where=f"{type(self).__name__} masks")
        values = _as_numbers(self.value_function(x), "the value function")
        if values.shape != (x.shape[0],):
            raise InvalidGameError(
                f"the value function returned {values.size} values for {x.shape[0]} masks"
            )
        if not np.isfinite(values).all():
            row = int(np.flatnonzero(~np.isfinite(values))[0])
            raise InvalidGameError(
                f"the value function returned {float(values[row])} "
                f"for mask {x[row].astype(int).tolist()}"
            )
        self.n_queries += x.shape[0]
        return values

    def truth_table(self) -> np.ndarray:
        """Values on all ``2**n`` masks, in the order of :func:`~xpg.fourier.masks.all_masks`."""
        check_enumerable(self.n_players, "RemovalGame.truth_table")
        return self(all_masks(self.n_players))


def _as_numbers(output: object, who: str) -> np.ndarray:
    """``output`` as a flat float array, or :class:`InvalidGameError` saying what it was."""
    try:
        return np.asarray(output, dtype=float).reshape(-1)
    except (TypeError, ValueError) as exc:
        sample = np.asarray(output, dtype=object).reshape(-1)[:1].tolist()
        raise InvalidGameError(
            f"{who} returned {type(output).__name__} with values such as {sample!r}, "
            "expected numbers"
        ) from exc


def _as_row(values: ArrayLike, n_columns: int | None, name: str) -> np.ndarray:
    row = np.asarray(values, dtype=float)
    if row.ndim != 1 or (n_columns is not None and row.size != n_columns):
        expected = f"({n_columns},)" if n_columns is not None else "(d,)"
        raise InvalidGameError(f"{name}: expected one row of shape {expected}, found {row.shape}")
    if not np.isfinite(row).all():
        raise InvalidGameError(f"{name}: expected finite numbers, found {row.tolist()}")
    return row


class TabularGame(RemovalGame):
    """Removal game of a tabular model at one instance.

    Parameters
    ----------
    model : estimator or callable
        A classifier with ``predict_proba`` (the game is the probability of ``target``), a
        regressor with ``predict``, or a callable mapping an array ``(rows, d)`` to ``rows``
        numbers.
    instance : array of shape (d,)
        The explained instance (numeric features).
    baseline : array of shape (d,), optional
        Values taken by removed features.
    background : array of shape (k, d), optional
        Rows over which removed features are averaged (give ``baseline`` or ``background``).
    target : class label, optional
        For classifiers: the class whose probability is explained (default: the class the
        model predicts for ``instance``).
    groups : sequence of sequences of int, optional
        Disjoint groups of columns acting as single players (default: one player per column).
        Columns in no group are always kept.
    feature_names : sequence of str, optional
        Player names (default: the model's ``feature_names_in_`` when there are no groups).
    """

    def __init__(
        self,
        model: Any,
        instance: ArrayLike,
        baseline: ArrayLike | None = None,
        background: ArrayLike | None = None,
        target: Any = None,
        groups: Sequence[Sequence[int]] | None = None,
        feature_names: Sequence[str] | None = None,
    ) -> None:
        self.model = model
        self.instance = _as_row(instance, None, "instance")
        d = self.instance.size
        expected = getattr(model, "n_features_in_", None)
        if isinstance(expected, (int, np.integer)) and expected != d:
            raise InvalidGameError(
                f"instance: the model expects {int(expected)} features, found {d} values"
            )
        if (baseline is None) == (background is None):
            raise InvalidGameError(
                "expected exactly one removal rule: baseline=<row> or background=<rows>, "
                f"found {'both' if baseline is not None else 'neither'}"
            )
        if baseline is not None:
            self.replacements = _as_row(baseline, d, "baseline")[None, :]
        else:
            rows = np.asarray(background, dtype=float)
            if rows.ndim != 2 or rows.shape[1] != d or rows.shape[0] == 0:
                raise InvalidGameError(
                    f"background: expected an array of shape (k, {d}) with k >= 1, "
                    f"found {rows.shape}"
                )
            if not np.isfinite(rows).all():
                raise InvalidGameError("background: expected finite numbers, found NaN or inf")
            self.replacements = rows
        self.groups = self._check_groups(groups, d)
        self._output, self.target = self._output_function(model, target)
        if feature_names is None and groups is None and hasattr(model, "feature_names_in_"):
            feature_names = [str(n) for n in model.feature_names_in_]
        super().__init__(self._values, len(self.groups), feature_names)

    @staticmethod
    def _check_groups(groups: Sequence[Sequence[int]] | None, d: int) -> list[list[int]]:
        if groups is None:
            return [[j] for j in range(d)]
        seen: set[int] = set()
        out = []
        for g, group in enumerate(groups):
            cols = [int(j) for j in group]
            bad = [j for j in cols if not 0 <= j < d or j in seen]
            if not cols or bad:
                raise InvalidGameError(
                    f"groups[{g}]: expected a non-empty list of distinct columns in 0..{d - 1} "
                    f"not used by another group, found {list(group)!r}"
                )
            seen.update(cols)
            out.append(cols)
        return out

    def _output_function(self, model: Any, target: Any) -> tuple[Callable[[np.ndarray], Any], Any]:
        if hasattr(model, "predict_proba"):
            classes = list(getattr(model, "classes_", []))
            if target is None:
                target = self._call_model(model.predict, self.instance[None, :], "predict")[0]
            hits = [k for k, c in enumerate(classes) if c == target]
            if not hits:
                raise InvalidGameError(
                    f"target: expected one of the classes {classes}, found {target!r}"
                )
            column = hits[0]
            return (
                lambda X: self._call_model(model.predict_proba, X, "predict_proba")[:, column]
            ), target
        if target is not None:
            raise InvalidGameError("target is only meaningful for models with predict_proba")
        if hasattr(model, "predict"):
            return (lambda X: self._call_model(model.predict, X, "predict")), None
        if callable(model):
            return (lambda X: self._call_model(model, X, "the model")), None
        raise InvalidGameError(
            f"expected a model with predict_proba or predict, or a callable, found {type(model)}"
        )

    @staticmethod
    def _call_model(function: Callable[[np.ndarray], Any], rows: np.ndarray, what: str) -> Any:
        # a model that rejects the rows (wrong width, wrong types) fails with its own library's
        # error; say which call and which shape instead
        try:
            return function(rows)
        except (TypeError, ValueError, IndexError) as exc:
            raise InvalidGameError(
                f"{what} failed on rows of shape {rows.shape}: {type(exc).__name__}: {exc}"
            ) from exc

    def _values(self, masks: np.ndarray) -> np.ndarray:
        d = self.instance.size
        keep = np.ones((masks.shape[0], d), dtype=bool)
        for p, cols in enumerate(self.groups):
            keep[:, cols] = (masks[:, p] > 0)[:, None]
        k = self.replacements.shape[0]
        out = np.empty(masks.shape[0])
        step = max(1, _BATCH_ROWS // k)
        for start in range(0, masks.shape[0], step):
            kp = keep[start : start + step, None, :]
            rows = np.where(kp, self.instance, self.replacements[None, :, :]).reshape(-1, d)
            values = _as_numbers(self._output(rows), "the model")
            if values.size != rows.shape[0]:
                raise InvalidGameError(
                    f"the model returned {values.size} outputs for {rows.shape[0]} rows"
                )
            out[start : start + step] = values.reshape(-1, k).mean(axis=1)
        return out
