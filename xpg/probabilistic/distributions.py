"""Sampling distributions over a model's feature space.

Both seed papers measure precision under the uniform distribution over the feature domains;
the toolkit also offers the product of the training data's marginals and the training data
itself.  Every distribution draws inputs that agree with an instance on a feature set ``S``
(the other features drawn from the distribution): for product distributions this is exactly
conditioning on ``z_S = x_S``; for the training data it is the interventional reading used by
Anchors (rows of the data with the features of ``S`` overwritten by the instance's values).

Samples are numpy matrices, one column per feature in feature order: ``float64`` when every
feature has numeric values, ``object`` otherwise (string categories).

Examples
--------
>>> import numpy as np
>>> from xpg.core.features import Feature
>>> features = [Feature.boolean("a"), Feature.categorical("b", [0, 1, 2])]
>>> uniform = UniformDistribution(features)
>>> z = uniform.sample_agreeing(np.array([1.0, 2.0]), np.array([True, False]), 4, seed=0)
>>> z.shape, bool((z[:, 0] == 1).all())
((4, 2), True)
>>> from xpg.core.features import Literal
>>> uniform.mass(1, Literal.isin("b", [0, 2]).allowed)
0.6666666666666666
>>> marginals = MarginalDistribution(features).fit([[0, 1], [1, 1], [1, 2], [1, 2]])
>>> marginals.mass(0, frozenset([1]))
0.75

References
----------
Blanc, Lange, Tan. Provably efficient, succinct, and precise explanations. NeurIPS 2021
(Def. 1, uniform distribution); Koriche, Lagniez, Mengel, Tran. Learning Model Agnostic
Explanations via Constraint Programming (Eq. 1, arbitrary distributions); Ribeiro, Singh,
Guestrin. Anchors. AAAI 2018 (perturbation by training rows).
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import portion as P

from xpg.core.features import Feature, ValueSet
from xpg.core.graph import DecisionGraph
from xpg.core.validation import random_generator
from xpg.errors import (
    InvalidDataError,
    InvalidFeatureError,
    InvalidInstanceError,
    InvalidParameterError,
    UnboundedDomainError,
    XpgError,
)

Seed = int | np.random.Generator | None


def make_rng(seed: Seed) -> np.random.Generator:
    """A numpy Generator from an int seed, a Generator (used as is) or None (fresh entropy).

    Raises :class:`~xpg.errors.InvalidParameterError` for anything else (a negative int, a
    float, a string).
    """
    return random_generator(seed)  # type: ignore[no-any-return]


def feature_tuple(
    features: Sequence[Feature],
    *,
    not_a_feature: type[XpgError] = InvalidFeatureError,
    repeated_name: type[XpgError] = InvalidDataError,
) -> tuple[Feature, ...]:
    """``features`` as a tuple when every one is a :class:`~xpg.core.features.Feature` and
    their names are distinct, else ``not_a_feature`` or ``repeated_name`` saying what was found.

    Examples
    --------
    >>> [f.name for f in feature_tuple([Feature.boolean("a"), Feature.boolean("b")])]
    ['a', 'b']
    >>> feature_tuple([Feature.boolean("a"), Feature.boolean("a")])
    Traceback (most recent call last):
    ...
    xpg.errors.InvalidDataError: feature names must be distinct, found ['a', 'a']
    """
    out = tuple(features)
    if not all(isinstance(f, Feature) for f in out):
        raise not_a_feature(
            "expected features as xpg.core.features.Feature objects, found "
            f"{sorted({type(f).__name__ for f in out})}"
        )
    names = [f.name for f in out]
    if len(set(names)) != len(names):
        raise repeated_name(f"feature names must be distinct, found {names!r}")
    return out


def matrix_dtype(features: Sequence[Feature]) -> np.dtype:
    """``float64`` when every feature takes numeric values, ``object`` otherwise."""
    for f in features:
        if f.kind == "categorical" and not all(
            isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)
            for v in f.values
        ):
            return np.dtype(object)
    return np.dtype(float)


def instance_row(features: Sequence[Feature], instance: Any) -> np.ndarray:
    """An instance (mapping name -> value, or values in feature order) as a checked 1-D row.

    Raises :class:`~xpg.errors.InvalidInstanceError` naming the missing, unknown or
    out-of-domain feature.
    """
    if isinstance(instance, np.ndarray):
        if instance.ndim != 1:
            raise InvalidInstanceError(
                f"expected one instance (a 1-D array of {len(features)} values), "
                f"found an array of shape {instance.shape}"
            )
        instance = instance.tolist()
    if isinstance(instance, (str, bytes)) or not (
        isinstance(instance, Mapping) or hasattr(instance, "__iter__")
    ):
        raise InvalidInstanceError(
            f"expected an instance as a mapping feature name -> value or a sequence of "
            f"{len(features)} values, found {type(instance).__name__}"
        )
    values = DecisionGraph(list(features)).instance_values(instance)
    return np.asarray(values, dtype=matrix_dtype(features))


def data_matrix(features: Sequence[Feature], X: Any, where: str = "X") -> np.ndarray:
    """``X`` as a 2-D matrix with one column per feature, every value checked against its domain.

    Raises :class:`InvalidDataError` naming the column and the offending value.
    """
    dtype = matrix_dtype(features)
    try:
        M: np.ndarray = np.asarray(X, dtype=dtype)
    except (TypeError, ValueError) as err:
        raise InvalidDataError(
            f"{where}: expected a matrix of the features' values, found values that do not "
            f"fit ({err})"
        ) from None
    if M.ndim != 2 or M.shape[1] != len(features):
        raise InvalidDataError(
            f"{where}: expected a 2-D array with {len(features)} columns (one per feature), "
            f"found shape {M.shape}"
        )
    if M.shape[0] == 0:
        raise InvalidDataError(f"{where}: expected at least one row, found none")
    for j, f in enumerate(features):
        column = M[:, j]
        uniques = set(column.tolist())
        for v in uniques:
            try:
                f.check_value(v)
            except InvalidInstanceError as err:
                row = next(
                    i for i, u in enumerate(column.tolist()) if u == v or (u != u and v != v)
                )
                raise InvalidDataError(f"{where}, row {row}, column {j}: {err}") from None
    return M


def _integer_count(allowed: Any, low: float, high: float) -> int:
    """Number of integers in ``allowed`` (an interval union) within ``[low, high]``."""
    count = 0
    for atom in allowed & P.closed(low, high):
        if atom.empty:
            continue
        lo, hi = float(atom.lower), float(atom.upper)
        first = math.floor(lo) + 1 if atom.left == P.OPEN else math.ceil(lo)
        last = math.ceil(hi) - 1 if atom.right == P.OPEN else math.floor(hi)
        count += max(0, last - first + 1)
    return count


def _length(allowed: Any, low: float, high: float) -> float:
    """Lebesgue measure of ``allowed`` (an interval union) within ``[low, high]``."""
    return sum(
        float(atom.upper) - float(atom.lower)
        for atom in allowed & P.closed(low, high)
        if not atom.empty
    )


def check_distribution(
    distribution: SamplingDistribution, features: Sequence[Feature]
) -> SamplingDistribution:
    """``distribution`` if it is over exactly ``features`` (same names, same order)."""
    names = [f.name for f in features]
    found = [f.name for f in distribution.features]
    if found != names:
        raise InvalidDataError(
            f"the distribution is over features {found!r}, expected the model's {names!r}"
        )
    return distribution


class SamplingDistribution(ABC):
    """A distribution over the inputs of a model (abstract base class).

    Subclasses draw columns (:meth:`sample_column`) and, for product distributions, give the
    probability that one feature falls in a value set (:meth:`mass`).

    Parameters
    ----------
    features : sequence of Feature
        The model's features, in column order.
    """

    #: True when the features are independent (conditioning on z_S = x_S only fixes columns).
    is_product: bool = True

    def __init__(self, features: Sequence[Feature]) -> None:
        self.features = feature_tuple(features)
        self.dtype = matrix_dtype(self.features)

    @property
    def n_features(self) -> int:
        """Number of features (columns)."""
        return len(self.features)

    @abstractmethod
    def sample_column(self, j: int, n: int, rng: np.random.Generator) -> np.ndarray:
        """``n`` draws of feature ``j`` from its marginal."""

    def sample(self, n: int, seed: Seed = None) -> np.ndarray:
        """``n`` inputs drawn from the distribution, as an ``(n, d)`` matrix."""
        rng = make_rng(seed)
        out: np.ndarray = np.empty((n, self.n_features), dtype=self.dtype)
        for j in range(self.n_features):
            out[:, j] = self.sample_column(j, n, rng)
        return out

    def sample_agreeing(
        self, row: np.ndarray, fixed: np.ndarray, n: int, seed: Seed = None
    ) -> np.ndarray:
        """``n`` inputs that agree with ``row`` on the features where ``fixed`` is True."""
        rng = make_rng(seed)
        fixed = np.asarray(fixed, dtype=bool)
        out: np.ndarray = np.empty((n, self.n_features), dtype=self.dtype)
        for j in range(self.n_features):
            out[:, j] = row[j] if fixed[j] else self.sample_column(j, n, rng)
        return out

    @abstractmethod
    def mass(self, j: int, allowed: ValueSet) -> float:
        """Probability that feature ``j`` takes a value in ``allowed`` (values or intervals)."""

    @abstractmethod
    def finite_support(self, j: int) -> tuple[np.ndarray, np.ndarray] | None:
        """The values of feature ``j`` with their probabilities, or None for a continuum."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}({len(self.features)} features)"


class UniformDistribution(SamplingDistribution):
    """Uniform over the declared domains, independently per feature (both seed papers).

    Boolean and categorical features: each value equally likely; integer features: each
    integer of ``[low, high]``; real features: the uniform density on ``[low, high]``.

    Raises
    ------
    UnboundedDomainError
        When an integer or real feature has an infinite bound.

    Examples
    --------
    >>> from xpg.core.features import Literal
    >>> UniformDistribution([Feature.real("x", 0.0, 4.0)]).mass(0, Literal.le("x", 1.0).allowed)
    0.25
    >>> UniformDistribution([Feature.real("y")])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    xpg.errors.UnboundedDomainError: feature 'y' (real): ... found [-inf, inf]; ...
    """

    def __init__(self, features: Sequence[Feature]) -> None:
        super().__init__(features)
        self._values: list[np.ndarray] = []
        for f in self.features:
            if not f.is_discrete and not (math.isfinite(f.low) and math.isfinite(f.high)):
                raise UnboundedDomainError(
                    f"feature {f.name!r} ({f.kind}): the uniform distribution needs finite "
                    f"bounds, found [{f.low}, {f.high}]; declare Feature.{f.kind}"
                    f"({f.name!r}, low, high)"
                )
            values: np.ndarray = np.empty(len(f.values), dtype=self.dtype)
            values[:] = list(f.values)
            self._values.append(values)

    def sample_column(self, j: int, n: int, rng: np.random.Generator) -> np.ndarray:
        f = self.features[j]
        if f.is_discrete:
            return self._values[j][rng.integers(len(f.values), size=n)]
        if f.kind == "integer":
            return rng.integers(int(f.low), int(f.high) + 1, size=n).astype(float)
        return rng.uniform(f.low, f.high, size=n)

    def mass(self, j: int, allowed: ValueSet) -> float:
        f = self.features[j]
        if f.is_discrete:
            return sum(1 for v in f.values if v in allowed) / len(f.values)
        if isinstance(allowed, frozenset):
            inside = [v for v in allowed if f.contains(v)]
            if f.kind == "integer":
                return len(inside) / (f.high - f.low + 1)
            return float(f.low == f.high and f.low in allowed)
        if f.kind == "integer":
            return _integer_count(allowed, f.low, f.high) / (f.high - f.low + 1)
        if f.low == f.high:
            return float(f.low in allowed)
        return _length(allowed, f.low, f.high) / (f.high - f.low)

    def finite_support(self, j: int) -> tuple[np.ndarray, np.ndarray] | None:
        f = self.features[j]
        if f.is_discrete:
            values = self._values[j]
        elif f.kind == "integer":
            values = np.arange(int(f.low), int(f.high) + 1, dtype=float)
        else:
            return None
        return values, np.full(len(values), 1.0 / len(values))


class MarginalDistribution(SamplingDistribution):
    """Product of the training data's marginals: each feature drawn from its observed values.

    Call :meth:`fit` with the training data first.  Learned attributes: ``values_`` and
    ``probabilities_`` (one array per feature).
    """

    def fit(self, X: Any) -> MarginalDistribution:
        """Learn each feature's empirical distribution from the rows of ``X``."""
        M = data_matrix(self.features, X)
        self.values_: list[np.ndarray] = []
        self.probabilities_: list[np.ndarray] = []
        for j in range(self.n_features):
            counts = Counter(M[:, j].tolist())
            keys = sorted(counts, key=lambda v: (str(type(v)), v))
            values: np.ndarray = np.empty(len(keys), dtype=self.dtype)
            values[:] = keys
            self.values_.append(values)
            self.probabilities_.append(np.array([counts[v] for v in keys], float) / len(M))
        return self

    def _check_fitted(self) -> None:
        if not hasattr(self, "values_"):
            raise InvalidDataError(f"this {type(self).__name__} is not fitted: call fit(X) first")

    def sample_column(self, j: int, n: int, rng: np.random.Generator) -> np.ndarray:
        self._check_fitted()
        return self.values_[j][rng.choice(len(self.values_[j]), size=n, p=self.probabilities_[j])]

    def mass(self, j: int, allowed: ValueSet) -> float:
        self._check_fitted()
        return float(
            sum(
                p
                for v, p in zip(self.values_[j], self.probabilities_[j], strict=True)
                if v in allowed
            )
        )

    def finite_support(self, j: int) -> tuple[np.ndarray, np.ndarray] | None:
        self._check_fitted()
        return self.values_[j], self.probabilities_[j]


class EmpiricalDistribution(SamplingDistribution):
    """The training data itself: each row equally likely (features not independent).

    Inputs agreeing with an instance on ``S`` are rows of the data with the columns of ``S``
    overwritten by the instance's values (Anchors' perturbation).  Learned attribute:
    ``data_``.

    Examples
    --------
    >>> data = EmpiricalDistribution([Feature.boolean("a"), Feature.boolean("b")])
    >>> data = data.fit([[0, 0], [1, 1]])
    >>> z = data.sample_agreeing(np.array([1.0, 0.0]), np.array([False, True]), 6, seed=1)
    >>> sorted(set(map(tuple, z.tolist())))
    [(0.0, 0.0), (1.0, 0.0)]
    """

    is_product = False

    def fit(self, X: Any) -> EmpiricalDistribution:
        """Keep the rows of ``X`` (checked against the feature domains)."""
        self.data_ = data_matrix(self.features, X)
        return self

    def _check_fitted(self) -> None:
        if not hasattr(self, "data_"):
            raise InvalidDataError(f"this {type(self).__name__} is not fitted: call fit(X) first")

    def rows(self) -> np.ndarray:
        """The training rows (each one equally likely)."""
        self._check_fitted()
        return self.data_

    def sample(self, n: int, seed: Seed = None) -> np.ndarray:
        self._check_fitted()
        return self.data_[make_rng(seed).integers(len(self.data_), size=n)].copy()

    def sample_agreeing(
        self, row: np.ndarray, fixed: np.ndarray, n: int, seed: Seed = None
    ) -> np.ndarray:
        out = self.sample(n, seed)
        fixed = np.asarray(fixed, dtype=bool)
        out[:, fixed] = row[fixed]
        return out

    def sample_column(self, j: int, n: int, rng: np.random.Generator) -> np.ndarray:
        self._check_fitted()
        return self.data_[rng.integers(len(self.data_), size=n), j]

    def mass(self, j: int, allowed: ValueSet) -> float:
        self._check_fitted()
        return float(np.mean([v in allowed for v in self.data_[:, j].tolist()]))

    def finite_support(self, j: int) -> tuple[np.ndarray, np.ndarray] | None:
        self._check_fitted()
        counts = Counter(self.data_[:, j].tolist())
        keys = sorted(counts, key=lambda v: (str(type(v)), v))
        values: np.ndarray = np.empty(len(keys), dtype=self.dtype)
        values[:] = keys
        return values, np.array([counts[v] for v in keys], float) / len(self.data_)


def default_distribution(
    features: Sequence[Feature], distribution: SamplingDistribution | None
) -> SamplingDistribution:
    """The given distribution (checked against ``features``), or the uniform one over them."""
    if distribution is None:
        return UniformDistribution(features)
    if not isinstance(distribution, SamplingDistribution):
        raise InvalidParameterError(
            "distribution: expected a SamplingDistribution (UniformDistribution, "
            f"MarginalDistribution, EmpiricalDistribution) or None, found "
            f"{type(distribution).__name__}"
        )
    return check_distribution(distribution, features)
