"""The Fourier (parity) basis on {-1, 1}^n and readable polynomials over it.

Every real function on the cube is a unique polynomial ``sum_S c_S chi_S(x)`` with parity
functions ``chi_S(x) = prod_{i in S} x_i`` (Def. 3.1-3.2 of the seed paper).  A
:class:`FourierPolynomial` holds such coefficients, evaluates on masks, prints as
``"0.31 + 0.12 x3 - 0.08 x1 x3"`` and converts to and from the subset (Moebius, unanimity)
basis ``prod_{i in T} z_i`` with ``z_i = (1 + x_i) / 2`` in which Shapley-style indices are
stated.  :func:`fourier_transform` is the exact (fast Walsh-Hadamard) transform of a full
truth table, the reference every estimator is checked against.

Examples
--------
>>> p = FourierPolynomial(3, {(): 0.5, (0,): 0.25, (0, 2): -0.125})
>>> str(p)
'0.5 + 0.25 x0 - 0.125 x0 x2'
>>> p([[1, 1, 1], [-1, 1, 1]]).tolist()
[0.625, 0.375]
>>> q = fourier_transform(p.truth_table())
>>> q.coefficient((0, 2))
-0.125
>>> dict(FourierPolynomial.from_subset_values(2, {(0, 1): 1.0}).coefficients)  # z0 z1
{(): 0.25, (0,): 0.25, (1,): 0.25, (0, 1): 0.25}

References
----------
Zhang, Yuan et al. Trade-off Between Efficiency and Consistency for Removal-based Explanations,
Def. 3.1-3.3 and Appendix A; O'Donnell, Analysis of Boolean Functions (2014), ch. 1.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from math import comb
from types import MappingProxyType

import numpy as np
from numpy.typing import ArrayLike

from xpg.errors import InvalidPolynomialError
from xpg.fourier.masks import check_enumerable

Subset = tuple[int, ...]

#: Upper bound on ``rows * columns`` of one parity-feature block built in memory.
_BLOCK_ELEMENTS = 4_000_000


def subsets_up_to_degree(n_players: int, degree: int, include_empty: bool = True) -> list[Subset]:
    """All subsets of ``range(n_players)`` of size at most ``degree``, by size then lexically.

    Examples
    --------
    >>> subsets_up_to_degree(3, 2, include_empty=False)
    [(0,), (1,), (2,), (0, 1), (0, 2), (1, 2)]
    """
    start = 0 if include_empty else 1
    return [
        s
        for k in range(start, min(degree, n_players) + 1)
        for s in itertools.combinations(range(n_players), k)
    ]


def count_subsets_up_to_degree(n_players: int, degree: int) -> int:
    """``len(subsets_up_to_degree(n_players, degree))`` without building the list."""
    return sum(comb(n_players, k) for k in range(min(degree, n_players) + 1))


def check_masks(masks: ArrayLike, n_players: int, where: str = "masks") -> np.ndarray:
    """Return ``masks`` as a float array of shape ``(m, n_players)`` with entries in {-1, 1}."""
    arr = np.asarray(masks, dtype=float)
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2 or arr.shape[1] != n_players:
        raise InvalidPolynomialError(
            f"{where}: expected an array of shape (m, {n_players}), found shape {arr.shape}"
        )
    bad = ~np.isin(arr, (-1.0, 1.0))
    if bad.any():
        r, c = np.argwhere(bad)[0]
        raise InvalidPolynomialError(
            f"{where}: expected entries -1 (removed) or 1 (kept), found {float(arr[r, c])} "
            f"at row {r}, column {c}"
        )
    return arr


def _canonical(subset: Iterable[int], n_players: int) -> Subset:
    s = tuple(sorted(int(i) for i in subset))
    if len(set(s)) != len(s) or (s and (s[0] < 0 or s[-1] >= n_players)):
        raise InvalidPolynomialError(
            f"expected a subset of distinct players in 0..{n_players - 1}, found {tuple(subset)!r}"
        )
    return s


def parity_features(masks: ArrayLike, subsets: Sequence[Subset]) -> np.ndarray:
    """The matrix ``chi_S(x)`` for every mask ``x`` (rows) and subset ``S`` (columns).

    Examples
    --------
    >>> parity_features([[1, -1, -1]], [(), (0,), (1, 2), (0, 1, 2)]).tolist()
    [[1.0, 1.0, 1.0, 1.0]]
    """
    x = np.asarray(masks, dtype=float)
    if x.ndim == 1:
        x = x[None, :]
    out = np.empty((x.shape[0], len(subsets)))
    by_degree: dict[int, list[int]] = {}
    for j, s in enumerate(subsets):
        by_degree.setdefault(len(s), []).append(j)
    for degree, cols in by_degree.items():
        if degree == 0:
            out[:, cols] = 1.0
            continue
        idx = np.array([subsets[j] for j in cols], dtype=np.intp)
        block = x[:, idx[:, 0]].copy()
        for k in range(1, degree):
            block *= x[:, idx[:, k]]
        out[:, cols] = block
    return out


def parity_sums(masks: ArrayLike, values: ArrayLike, subsets: Sequence[Subset]) -> np.ndarray:
    """``sum_x values(x) chi_S(x)`` over the masks ``x``, for every subset ``S``: the parity
    features' transpose times ``values``, built a block of masks at a time.

    Examples
    --------
    >>> parity_sums([[1, 1], [1, -1]], [1.0, 2.0], [(), (1,)]).tolist()
    [3.0, -1.0]
    """
    x = np.asarray(masks)
    y = np.asarray(values, dtype=float)
    sums = np.zeros(len(subsets))
    step = max(1, _BLOCK_ELEMENTS // max(len(subsets), 1))
    for start in range(0, len(y), step):
        sums += parity_features(x[start : start + step], subsets).T @ y[start : start + step]
    return sums


class FourierPolynomial:
    """A real function on {-1, 1}^n given by its Fourier coefficients.

    Parameters
    ----------
    n_players : int
        Number of variables (players).
    coefficients : mapping from subsets to float
        ``{S: c_S}``; subsets are iterables of player indices (any order).  Missing subsets
        have coefficient 0; repeated subsets (in another order) are added up.
    feature_names : sequence of str, optional
        Names printed instead of ``x0, x1, ...``.

    Examples
    --------
    >>> p = FourierPolynomial(2, {(): 1.0, (1, 0): 0.5}, feature_names=["age", "sex"])
    >>> print(p)
    1 + 0.5 age sex
    >>> p.degree
    2
    """

    def __init__(
        self,
        n_players: int,
        coefficients: Mapping[Subset, float],
        feature_names: Sequence[str] | None = None,
    ) -> None:
        if int(n_players) != n_players or n_players < 0:
            raise InvalidPolynomialError(f"expected n_players >= 0, found {n_players!r}")
        self.n_players = int(n_players)
        coefs: dict[Subset, float] = {}
        for subset, value in coefficients.items():
            s = _canonical(subset, self.n_players)
            v = float(value)
            if not np.isfinite(v):
                raise InvalidPolynomialError(f"coefficient of {s!r}: expected a finite number")
            coefs[s] = coefs.get(s, 0.0) + v
        ordered = sorted(coefs, key=lambda s: (len(s), s))
        self._coefs = {s: coefs[s] for s in ordered}
        if feature_names is not None and len(feature_names) != self.n_players:
            raise InvalidPolynomialError(
                f"expected {self.n_players} feature names, found {len(feature_names)}"
            )
        self.feature_names = tuple(feature_names) if feature_names is not None else None

    # -- reading ------------------------------------------------------------------------------
    @property
    def coefficients(self) -> Mapping[Subset, float]:
        """Read-only ``{S: c_S}`` ordered by degree, then lexically."""
        return MappingProxyType(self._coefs)

    def coefficient(self, subset: Iterable[int]) -> float:
        """The coefficient ``c_S`` (0 for a subset absent from the polynomial)."""
        return self._coefs.get(_canonical(subset, self.n_players), 0.0)

    @property
    def degree(self) -> int:
        """Largest ``|S|`` with a non-zero coefficient (0 for a constant or zero polynomial)."""
        return max((len(s) for s, c in self._coefs.items() if c != 0.0), default=0)

    def __len__(self) -> int:
        return len(self._coefs)

    def __repr__(self) -> str:
        return f"FourierPolynomial(n_players={self.n_players}, terms={len(self._coefs)})"

    def __str__(self) -> str:
        return self.to_string()

    def to_string(self, precision: int = 3, max_terms: int | None = None) -> str:
        """Readable form, e.g. ``"0.31 + 0.12 x3 - 0.08 x1 x3"``.

        Coefficients are rounded to ``precision`` significant digits and terms that round to
        zero are left out; with ``max_terms`` only the constant and the largest terms (by
        magnitude) are printed, followed by ``"+ ..."``.
        """
        names = self.feature_names or tuple(f"x{i}" for i in range(self.n_players))
        terms = [(s, float(f"{c:.{precision}g}")) for s, c in self._coefs.items()]
        terms = [(s, c) for s, c in terms if c != 0.0]
        truncated = False
        if max_terms is not None and len(terms) > max_terms:
            keep = sorted(terms, key=lambda t: (len(t[0]) > 0, -abs(t[1])))[:max_terms]
            kept = {s for s, _ in keep}
            terms = [t for t in terms if t[0] in kept]
            truncated = True
        if not terms:
            return "0"
        parts: list[str] = []
        for k, (s, c) in enumerate(terms):
            mono = " ".join(names[i] for i in s)
            mag = f"{abs(c):g}"
            body = mag if not s else (mono if mag == "1" else f"{mag} {mono}")
            if k == 0:
                parts.append(("-" if c < 0 else "") + body)
            else:
                parts.append(("- " if c < 0 else "+ ") + body)
        return " ".join(parts) + (" + ..." if truncated else "")

    # -- evaluating ---------------------------------------------------------------------------
    def __call__(self, masks: ArrayLike) -> np.ndarray:
        """Values on masks of shape ``(m, n)`` (or one mask of shape ``(n,)``)."""
        x = check_masks(masks, self.n_players)
        subsets = list(self._coefs)
        coefs = np.fromiter(self._coefs.values(), dtype=float, count=len(subsets))
        out = np.zeros(x.shape[0])
        if not subsets:
            return out
        step = max(1, _BLOCK_ELEMENTS // len(subsets))
        for start in range(0, x.shape[0], step):
            chunk = x[start : start + step]
            out[start : start + step] = parity_features(chunk, subsets) @ coefs
        return out

    def truth_table(self) -> np.ndarray:
        """Values on every mask, in the order of :func:`~xpg.fourier.masks.all_masks`."""
        check_enumerable(self.n_players, "truth_table")
        spectrum = np.zeros(2**self.n_players)
        for s, c in self._coefs.items():
            spectrum[sum(1 << i for i in s)] += c
        return _inverse_walsh_hadamard(spectrum, self.n_players)

    # -- transforming -------------------------------------------------------------------------
    def truncate(self, max_degree: int) -> FourierPolynomial:
        """The projection on parity functions of degree at most ``max_degree``."""
        kept = {s: c for s, c in self._coefs.items() if len(s) <= max_degree}
        return FourierPolynomial(self.n_players, kept, self.feature_names)

    def with_feature_names(self, feature_names: Sequence[str] | None) -> FourierPolynomial:
        """The same polynomial printed with other names."""
        return FourierPolynomial(self.n_players, self._coefs, feature_names)

    def _check_same_space(self, other: FourierPolynomial) -> None:
        if not isinstance(other, FourierPolynomial) or other.n_players != self.n_players:
            found = other.n_players if isinstance(other, FourierPolynomial) else type(other)
            raise InvalidPolynomialError(
                f"expected a FourierPolynomial on {self.n_players} players, found {found!r}"
            )

    def __add__(self, other: FourierPolynomial) -> FourierPolynomial:
        self._check_same_space(other)
        coefs = dict(self._coefs)
        for s, c in other._coefs.items():
            coefs[s] = coefs.get(s, 0.0) + c
        return FourierPolynomial(self.n_players, coefs, self.feature_names)

    def __neg__(self) -> FourierPolynomial:
        return FourierPolynomial(
            self.n_players, {s: -c for s, c in self._coefs.items()}, self.feature_names
        )

    def __sub__(self, other: FourierPolynomial) -> FourierPolynomial:
        return self + (-other)

    def __mul__(self, factor: float) -> FourierPolynomial:
        return FourierPolynomial(
            self.n_players, {s: factor * c for s, c in self._coefs.items()}, self.feature_names
        )

    __rmul__ = __mul__

    @classmethod
    def from_subset_values(
        cls,
        n_players: int,
        values: Mapping[Subset, float],
        feature_names: Sequence[str] | None = None,
    ) -> FourierPolynomial:
        """Convert ``g(z) = sum_T m_T prod_{i in T} z_i`` (``z_i = (1 + x_i) / 2``, 1 = kept).

        This is the form in which Shapley values and Shapley interaction indices describe a
        game (``m_{}`` being the value of the empty coalition); each term expands as
        ``prod_{i in T} (1 + x_i) / 2 = 2**-|T| sum_{U subset of T} chi_U``.
        """
        coefs: dict[Subset, float] = {}
        for subset, m in values.items():
            t = _canonical(subset, n_players)
            share = float(m) / 2 ** len(t)
            for k in range(len(t) + 1):
                for u in itertools.combinations(t, k):
                    coefs[u] = coefs.get(u, 0.0) + share
        return cls(n_players, coefs, feature_names)

    def to_subset_values(self) -> dict[Subset, float]:
        """Inverse of :meth:`from_subset_values`: the Moebius coefficients ``{T: m_T}``.

        Uses ``chi_U = prod_{i in U} (2 z_i - 1) = sum_{T subset of U} 2**|T| (-1)**(|U|-|T|) z_T``.
        """
        out: dict[Subset, float] = {}
        for u, c in self._coefs.items():
            for k in range(len(u) + 1):
                for t in itertools.combinations(u, k):
                    out[t] = out.get(t, 0.0) + c * 2**k * (-1) ** (len(u) - k)
        return {t: out[t] for t in sorted(out, key=lambda s: (len(s), s))}


def _walsh_hadamard(table: np.ndarray, n_players: int) -> np.ndarray:
    """Truth table (coalition order) -> Fourier coefficients indexed by subset bit code."""
    a = np.array(table, dtype=float)
    for i in range(n_players):
        v = a.reshape(-1, 2, 2**i)
        removed, kept = v[:, 0, :].copy(), v[:, 1, :].copy()
        v[:, 0, :] = (kept + removed) / 2
        v[:, 1, :] = (kept - removed) / 2
    return a


def _inverse_walsh_hadamard(spectrum: np.ndarray, n_players: int) -> np.ndarray:
    """Fourier coefficients by subset bit code -> truth table in coalition order."""
    a = np.array(spectrum, dtype=float)
    for i in range(n_players):
        v = a.reshape(-1, 2, 2**i)
        without, with_i = v[:, 0, :].copy(), v[:, 1, :].copy()
        v[:, 0, :] = without - with_i
        v[:, 1, :] = without + with_i
    return a


def fourier_transform(
    table: ArrayLike, feature_names: Sequence[str] | None = None, atol: float = 0.0
) -> FourierPolynomial:
    """Exact Fourier spectrum of a function given on every mask (fast Walsh-Hadamard).

    Parameters
    ----------
    table : array of shape (2**n,)
        Values in the order of :func:`~xpg.fourier.masks.all_masks`.
    feature_names : sequence of str, optional
    atol : float
        Coefficients with ``|c| <= atol`` are left out (0 keeps every non-zero one).

    Examples
    --------
    >>> from xpg.fourier.masks import all_masks
    >>> x = all_masks(3)
    >>> dict(fourier_transform(x[:, 0] * x[:, 2]).coefficients)
    {(0, 2): 1.0}
    """
    values = np.asarray(table, dtype=float).ravel()
    n_players = int(values.size).bit_length() - 1
    if values.size != 2**n_players or values.size == 0:
        raise InvalidPolynomialError(
            f"expected a truth table of length 2**n, found length {values.size}"
        )
    if not np.isfinite(values).all():
        bad = int(np.flatnonzero(~np.isfinite(values))[0])
        raise InvalidPolynomialError(
            f"expected finite numbers in the truth table, found {values[bad]} at position {bad}"
        )
    spectrum = _walsh_hadamard(values, n_players)
    codes = np.flatnonzero(np.abs(spectrum) > atol)
    return FourierPolynomial(
        n_players,
        {tuple(i for i in range(n_players) if c >> i & 1): spectrum[c] for c in codes},
        feature_names,
    )
