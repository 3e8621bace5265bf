"""SMT encodings (pysmt over z3) of the ORIGINAL models: the class of an input as one term.

Each encoding reads a model's own structure, never its compiled decision graph.  Every model
kind encodes itself (``smt_encoding`` of :class:`xpg.models.protocol.Model`) with the
helpers here (:class:`SmtModel`, :func:`postorder`, :func:`first_match`);
the verifier's :func:`~xpg.verify.verifier.encode_model` calls it.
:meth:`SmtModel.float32_at_most` encodes scikit-learn's float32 semantics (``float32(x) <= t``,
the rounding of a real ``x`` to float32, exactly: ``x`` below the bound of
:func:`xpg.core.float32.float32_bound`, or on it when ties round down), which
:func:`~xpg.compile.sklearn_tree.encode_sklearn_tree` uses.

An input no rule of the model classifies (a gap in a tree's branches, say) gets class
``-1``, so a verifier can expose it.  Features are SMT variables: discrete features an
integer code (the index of the value), integer features an integer, real features a real,
each constrained to its declared domain.

Examples
--------
>>> from xpg.core.features import Feature, Literal
>>> from xpg.models.decision_list import DecisionList, Rule
>>> dl = DecisionList([Feature.real("x"), Feature.boolean("b")], ["lo", "hi"],
...                   [Rule([Literal.gt("x", 2.5), Literal.eq("b", 1)], "hi")], "lo")
>>> enc = dl.smt_encoding()
>>> with enc.solver() as s:
...     s.add_assertion(enc.class_is("hi"))
...     s.solve()
...     x = enc.decode(s)
True
>>> x["b"], x["x"] > 2.5, dl.predict(x)
(1, True, 'hi')

References
----------
de Moura, Bjorner. Z3: an efficient SMT solver. TACAS 2008; Gario, Micheli. PySMT. SMT
Workshop 2015; IEEE 754-2008 (round to nearest, ties to even); Huang et al. KR 2021, Sec. 3.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np
import portion as P

from xpg.core.features import Feature, Literal, ValueSet
from xpg.core.float32 import float32_bound
from xpg.errors import InvalidModelError

if TYPE_CHECKING:
    from pysmt.fnode import FNode

UNDEFINED = -1


def float32_midpoint(threshold: float) -> tuple[Fraction, bool]:
    """``(m, inclusive)`` with ``float32(x) <= threshold`` iff ``x < m`` (or ``x == m`` when
    ``inclusive``), for every real ``x``: :func:`xpg.core.float32.float32_bound` as a rational.

    Raises :class:`InvalidModelError` for a threshold of +inf (every real passes: no bound)
    or NaN; :meth:`SmtModel.float32_at_most` takes every threshold.

    Examples
    --------
    >>> m, inclusive = float32_midpoint(0.5)
    >>> float(m) > 0.5, inclusive
    (True, True)
    """
    bound, inclusive = float32_bound(threshold)
    if math.isinf(bound):
        raise InvalidModelError(f"threshold {threshold!r}: every number passes it, no bound")
    return Fraction(bound), inclusive


class SmtModel:
    """A model's classification function over SMT variables, one per feature.

    Attributes
    ----------
    features, classes : lists
    variables : dict
        Feature name -> pysmt symbol (``Int`` code, ``Int`` or ``Real``).
    domain : FNode
        Every variable in its declared domain.
    class_term : FNode
        An ``Int`` term: the index of the class of the input (``-1``: no class).
    predict : callable
        The original model's own prediction on a feature-level instance (dict).
    """

    def __init__(
        self,
        features: Sequence[Feature],
        classes: Sequence[Any],
        predict: Callable[[dict[str, Any]], Any],
    ) -> None:
        self.features = list(features)
        self.classes = list(classes)
        from pysmt.environment import Environment  # pysmt (and z3) load on first encoding
        from pysmt.typing import INT, REAL

        self.predict = predict
        self.env = Environment()
        self.mgr = self.env.formula_manager
        m = self.mgr
        self.by_name = {f.name: f for f in self.features}
        self.variables: dict[str, FNode] = {}
        #: numbers a real feature is compared with (to turn rational models into floats)
        self.constants: dict[str, set[Fraction]] = {f.name: set() for f in self.features}
        bounds = []
        for i, f in enumerate(self.features):
            if f.kind == "real":
                v = m.Symbol(f"x{i}", REAL)
            else:
                v = m.Symbol(f"x{i}", INT)
            self.variables[f.name] = v
            if f.is_discrete:
                bounds += [m.GE(v, m.Int(0)), m.LE(v, m.Int(len(f.values) - 1))]
            else:
                if math.isfinite(f.low):
                    bounds.append(self.compare(f.name, Fraction(f.low), ">="))
                if math.isfinite(f.high):
                    bounds.append(self.compare(f.name, Fraction(f.high), "<="))
        self.domain = m.And(bounds)
        self.class_term: FNode = m.Int(UNDEFINED)

    # -- atoms ---------------------------------------------------------------------------------
    def real(self, name: str) -> FNode:
        """The variable of a numeric feature as a real term."""
        v = self.variables[name]
        return v if self.by_name[name].kind == "real" else self.mgr.ToReal(v)

    def compare(self, name: str, bound: Fraction, op: str) -> FNode:
        """``feature op bound`` for a numeric feature (op in <, <=, >, >=, ==)."""
        m = self.mgr
        self.constants[name].add(bound)
        x, c = self.real(name), m.Real(bound)
        return {
            "<": m.LT,
            "<=": m.LE,
            ">": m.GT,
            ">=": m.GE,
            "==": m.Equals,
        }[op](x, c)

    def float32_at_most(self, name: str, threshold: float) -> FNode:
        """``float32(x) <= threshold`` for a real feature, as scikit-learn compares (to
        nearest, ties to even, beyond the float32 range an infinity; see
        :func:`xpg.core.float32.float32_bound`)."""
        bound, inclusive = float32_bound(threshold)
        if math.isinf(bound):  # a threshold of +inf: every number passes
            return self.mgr.TRUE()
        return self.compare(name, Fraction(bound), "<=" if inclusive else "<")

    def value_term(self, name: str, value: Any) -> FNode:
        """The SMT constant of a value of a feature (checked against the domain)."""
        f = self.by_name[name]
        value = f.check_value(value)
        if f.is_discrete:
            return self.mgr.Int(f.code(value))
        if f.kind == "integer":
            return self.mgr.Int(int(value))
        return self.mgr.Real(Fraction(value))

    def is_value(self, name: str, value: Any) -> FNode:
        """``feature == value``."""
        f = self.by_name[name]
        if f.kind == "real":
            return self.compare(name, Fraction(f.check_value(value)), "==")
        return self.mgr.Equals(self.variables[name], self.value_term(name, value))

    def in_set(self, name: str, allowed: ValueSet) -> FNode:
        """``feature in allowed`` (a value set or a portion interval union)."""
        m = self.mgr
        f = self.by_name[name]
        if isinstance(allowed, frozenset):
            if f.is_discrete:
                return m.Or([self.is_value(name, v) for v in f.values if v in allowed])
            return m.Or([self.compare(name, Fraction(v), "==") for v in sorted(allowed)])
        parts = []
        for atom in allowed:
            if atom.empty:
                continue
            conj = []
            if atom.lower != -P.inf:
                conj.append(
                    self.compare(name, Fraction(atom.lower), ">=" if atom.left == P.CLOSED else ">")
                )
            if atom.upper != P.inf:
                conj.append(
                    self.compare(
                        name, Fraction(atom.upper), "<=" if atom.right == P.CLOSED else "<"
                    )
                )
            parts.append(m.And(conj))
        return m.Or(parts)

    def literal(self, lit: Literal) -> FNode:
        """The truth of an edge or rule literal."""
        f = self.by_name[lit.feature]
        if f.is_discrete and not lit.is_value_set:
            raise InvalidModelError(
                f"literal {lit}: an interval on the discrete feature {f.name!r}"
            )
        return self.in_set(lit.feature, lit.allowed)

    def class_index(self, label: Any) -> int:
        """Index of a class label."""
        for i, c in enumerate(self.classes):
            if c == label and type(c) is type(label):
                return i
        raise InvalidModelError(f"unknown class {label!r} (classes: {self.classes!r})")

    def class_is(self, label: Any) -> FNode:
        """The input gets class ``label``."""
        return self.mgr.Equals(self.class_term, self.mgr.Int(self.class_index(label)))

    def label(self, index: int) -> Any:
        """The class label of an index (``None`` for ``-1``: no class)."""
        return self.classes[index] if index >= 0 else None

    # -- solving -------------------------------------------------------------------------------
    def solver(self) -> Any:
        """A z3 solver (pysmt) holding the domain constraints; use it as a context manager."""
        s = self.env.factory.Solver(name="z3")
        s.add_assertion(self.domain)
        return s

    def decode(self, solver: Any) -> dict[str, Any]:
        """The input of the solver's model, in the features' terms (reals as floats if possible)."""
        out: dict[str, Any] = {}
        for f in self.features:
            value = solver.get_value(self.variables[f.name]).constant_value()
            if f.is_discrete:
                out[f.name] = f.values[int(value)]
            elif f.kind == "integer":
                out[f.name] = int(value)
            else:
                out[f.name] = self._as_float(f, Fraction(value))
        return out

    def _as_float(self, f: Feature, r: Fraction) -> float | Fraction:
        """A float that every comparison of the model treats like ``r`` (``r`` if none exists)."""
        if Fraction(float(r)) == r:
            return float(r)
        marks = self.constants[f.name] | {Fraction(b) for b in (f.low, f.high) if math.isfinite(b)}
        lo = max((c for c in marks if c < r), default=None)
        hi = min((c for c in marks if c > r), default=None)
        nearest = float(r)
        for x in (
            nearest,
            float(np.nextafter(nearest, math.inf)),
            float(np.nextafter(nearest, -math.inf)),
        ):
            if (lo is None or Fraction(x) > lo) and (hi is None or Fraction(x) < hi):
                return x
        return r


# -- model encoders --------------------------------------------------------------------------------
def postorder(root: Hashable, children: Callable[[Any], Iterable[Any]]) -> list[Any]:
    """Nodes below ``root``, children before parents, each once (iterative, linear in edges)."""
    out: list[Any] = []
    done: set[Any] = set()
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        n, expanded = stack.pop()
        if expanded:
            if n not in done:
                done.add(n)
                out.append(n)
            continue
        if n in done:
            continue
        stack.append((n, True))
        stack += [(c, False) for c in children(n) if c not in done]
    return out


def first_match(enc: SmtModel, cases: Sequence[tuple[FNode, FNode]], otherwise: FNode) -> FNode:
    """``ITE(c1, v1, ITE(c2, v2, ... otherwise))``: the value of the first case that holds."""
    term = otherwise
    for cond, value in reversed(cases):
        term = enc.mgr.Ite(cond, value, term)
    return term


__all__ = [
    "UNDEFINED",
    "SmtModel",
    "first_match",
    "float32_midpoint",
    "postorder",
]
