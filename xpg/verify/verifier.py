"""Check a claimed explanation against the ORIGINAL model with an SMT solver (pysmt + z3).

An AXp claim ``S`` holds when it is *sufficient* (no input that agrees with the instance
on ``S`` gets another class) and *minimal* (for every feature of ``S``, some input agreeing
on the rest of ``S`` gets another class).  A CXp claim ``S`` holds when it is
*contrastive* (some input that agrees with the instance outside ``S`` gets another class)
and *minimal* (for every feature of ``S``, fixing it too leaves no such input).  Every
question is one satisfiability call on the model's own encoding
(:mod:`xpg.solvers.smt`), independent of the decision-graph machinery that found the
explanation.  A failed claim comes with its evidence: the input that changes the class
(``counterexample``, and the class the original model itself gives it), or the feature
that can be dropped.  A claim that holds comes with one witness input per feature showing
that the feature is needed.

Examples
--------
>>> from xpg.core.features import Feature, Literal
>>> from xpg.models.decision_list import DecisionList, Rule
>>> dl = DecisionList([Feature.boolean("a"), Feature.boolean("b"), Feature.boolean("c")],
...                   [0, 1], [Rule([Literal.eq("a", 1), Literal.eq("b", 1)], 1)], 0)
>>> v = {"a": 1, "b": 1, "c": 0}
>>> verify_axp(dl, v, ["a", "b"]).holds
True
>>> bad = verify_axp(dl, v, ["a"])
>>> bad.holds, bad.failure, bad.counterexample, bad.counterexample_prediction
(False, 'not-sufficient', {'a': 1, 'b': 0, 'c': 0}, 0)
>>> verify_cxp(dl, v, ["a", "b"]).failure
'not-minimal'

References
----------
Huang, Izza, Ignatiev, Marques-Silva. On Efficiently Explaining Graph-Based Classifiers.
KR 2021, Defs. of AXp and CXp (Sec. 3); Ignatiev, Narodytska, Marques-Silva. Abduction-based
explanations for machine learning models. AAAI 2019 (checking explanations with a reasoner).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from typing import Literal as TypingLiteral

from xpg.core.feature_space import FeatureGroup
from xpg.core.features import Feature
from xpg.core.instances import instance_dict
from xpg.errors import InvalidInstanceError, InvalidModelError, VerificationError, XpgError
from xpg.models.protocol import Model
from xpg.solvers.lifecycle import SolverOwner
from xpg.solvers.smt import SmtModel

Kind = TypingLiteral["axp", "cxp"]
Failure = TypingLiteral["not-sufficient", "not-minimal", "not-contrastive"]


@dataclass(frozen=True)
class Verdict:
    """The answer to "is ``features`` an AXp (or CXp) of ``instance``?".

    Attributes
    ----------
    kind : "axp" or "cxp"
    features : tuple of str
        The claim, in feature order.
    holds : bool
    failure : None, "not-sufficient", "not-minimal" or "not-contrastive"
    reason : str
        One sentence saying why.
    prediction : class label
        The original model's class for the instance.
    counterexample : dict or None
        An input that gets another class (a failed AXp sufficiency, a failed CXp minimality).
    counterexample_prediction : class label or None
        The class the original model itself gives the counterexample.
    redundant_feature : str or None
        A feature that can be dropped (a failed minimality).
    witnesses : dict
        For a claim that holds: per feature, an input showing it is needed (AXp: agrees with
        the instance on the other features of the claim and gets another class; CXp: the
        input that changes the class, under ``""``).
    """

    kind: Kind
    features: tuple[str, ...]
    holds: bool
    failure: Failure | None
    reason: str
    prediction: Any
    counterexample: dict[str, Any] | None = None
    counterexample_prediction: Any = None
    redundant_feature: str | None = None
    witnesses: dict[str, dict[str, Any]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (``xpg verify --json``)."""
        return {
            "kind": self.kind,
            "features": list(self.features),
            "holds": self.holds,
            "failure": self.failure,
            "reason": self.reason,
            "prediction": self.prediction,
            "counterexample": _jsonable(self.counterexample),
            "counterexample_prediction": self.counterexample_prediction,
            "redundant_feature": self.redundant_feature,
        }


def _jsonable(x: dict[str, Any] | None) -> dict[str, Any] | None:
    if x is None:
        return None
    return {k: (v if isinstance(v, (int, float, str, bool)) else str(v)) for k, v in x.items()}


def encode_model(model: Any, features: Sequence[Feature | FeatureGroup] | None = None) -> SmtModel:
    """The SMT encoding of a model: its own :meth:`~xpg.models.protocol.Model.smt_encoding`,
    or :func:`~xpg.compile.sklearn_tree.encode_sklearn_tree` for a fitted scikit-learn tree
    (``features`` may then hold feature groups)."""
    if hasattr(model, "tree_"):
        from xpg.compile.sklearn_tree import encode_sklearn_tree  # scikit-learn's, on use

        return encode_sklearn_tree(model, features)
    if features is not None:
        raise InvalidModelError(
            f"features are part of a {type(model).__name__}; "
            "pass them only with a scikit-learn tree"
        )
    if not callable(getattr(model, "smt_encoding", None)):
        raise InvalidModelError(
            f"no SMT encoding for a {type(model).__name__} (expected a scikit-learn tree or a "
            "model kind of xpg.models.protocol.Model)"
        )
    return model.smt_encoding()  # type: ignore[no-any-return]


class Verifier(SolverOwner):
    """An SMT verifier for one model: encode once, check many claims.

    Parameters
    ----------
    model : a model kind (:class:`xpg.models.protocol.Model`) or a fitted scikit-learn tree
        The original model.
    features : sequence of Feature or FeatureGroup, optional
        Only for a scikit-learn tree (see :func:`~xpg.compile.sklearn_tree.from_sklearn_tree`).

    Use it as a context manager (it owns a z3 solver); a closed verifier raises
    :class:`~xpg.errors.SolverClosedError`.
    """

    closed_message = "this Verifier is closed"

    def __init__(self, model: Any, features: Sequence[Feature | Any] | None = None) -> None:
        _refuse_ill_defined(model)
        self.encoding: SmtModel = encode_model(model, features)
        self._solver: Any = self.encoding.solver()

    def _release(self) -> None:
        self._solver.exit()
        self._solver = None

    @property
    def features(self) -> list[Feature]:
        """The model's features."""
        return self.encoding.features

    def predict(self, instance: Mapping[str, Any] | Sequence[Any]) -> Any:
        """The original model's own prediction."""
        return self.encoding.predict(instance_dict(self.features, instance))

    # -- queries -------------------------------------------------------------------------------
    def _claim(self, features: Iterable[str]) -> tuple[str, ...]:
        names = list(features)
        known = {f.name for f in self.features}
        unknown = [n for n in names if n not in known]
        if unknown:
            raise InvalidInstanceError(
                f"unknown feature(s) {unknown!r} in the claimed explanation "
                f"(expected some of: {', '.join(sorted(known))})"
            )
        if len(set(names)) != len(names):
            raise InvalidInstanceError(f"a feature is repeated in the claim {names!r}")
        order = {f.name: i for i, f in enumerate(self.features)}
        return tuple(sorted(names, key=order.__getitem__))

    def _other_class(
        self, values: dict[str, Any], fixed: Iterable[str], prediction: Any
    ) -> dict[str, Any] | None:
        """An input agreeing with ``values`` on ``fixed`` whose class is not ``prediction``."""
        self._check_open()
        enc, s = self.encoding, self._solver
        assumptions = [enc.is_value(n, values[n]) for n in fixed]
        s.push()
        try:
            s.add_assertion(enc.mgr.Not(enc.class_is(prediction)))
            if not s.solve(assumptions):
                return None
            found = enc.decode(s)
            claimed = enc.label(s.get_value(enc.class_term).constant_value())
        finally:
            s.pop()
        got = self._predict_checked(found)
        if got == prediction or got != claimed:
            raise VerificationError(
                f"the SMT encoding gives class {claimed!r} to {found}, the model itself "
                f"{got!r} (expected a class other than {prediction!r})"
            )
        return found

    def _predict_checked(self, x: dict[str, Any]) -> Any:
        try:
            return self.encoding.predict(x)
        except XpgError:
            return None  # an input the model itself leaves without a class

    def verify_axp(
        self, instance: Mapping[str, Any] | Sequence[Any], features: Iterable[str]
    ) -> Verdict:
        """Is ``features`` an AXp of ``instance``: sufficient, and minimal?"""
        values = instance_dict(self.features, instance)
        claim = self._claim(features)
        c = self.encoding.predict(values)
        x = self._other_class(values, claim, c)
        if x is not None:
            return Verdict(
                "axp",
                claim,
                False,
                "not-sufficient",
                f"fixing {_fmt(claim)} does not keep class {c!r}: the counterexample agrees "
                f"with the instance on them and gets class {self._predict_checked(x)!r}",
                c,
                counterexample=x,
                counterexample_prediction=self._predict_checked(x),
            )
        witnesses: dict[str, dict[str, Any]] = {}
        for name in claim:
            rest = [n for n in claim if n != name]
            w = self._other_class(values, rest, c)
            if w is None:
                return Verdict(
                    "axp",
                    claim,
                    False,
                    "not-minimal",
                    f"{name!r} can be dropped: fixing {_fmt(rest)} already keeps class {c!r}",
                    c,
                    redundant_feature=name,
                )
            witnesses[name] = w
        return Verdict(
            "axp",
            claim,
            True,
            None,
            f"fixing {_fmt(claim)} keeps class {c!r} for every input, and dropping any of "
            "them does not",
            c,
            witnesses=witnesses,
        )

    def verify_cxp(
        self, instance: Mapping[str, Any] | Sequence[Any], features: Iterable[str]
    ) -> Verdict:
        """Is ``features`` a CXp of ``instance``: contrastive, and minimal?"""
        values = instance_dict(self.features, instance)
        claim = self._claim(features)
        c = self.encoding.predict(values)
        others = [f.name for f in self.features if f.name not in claim]
        x = self._other_class(values, others, c)
        if x is None:
            return Verdict(
                "cxp",
                claim,
                False,
                "not-contrastive",
                f"changing {_fmt(claim)} cannot change class {c!r}",
                c,
            )
        for name in claim:
            y = self._other_class(values, others + [name], c)
            if y is not None:
                return Verdict(
                    "cxp",
                    claim,
                    False,
                    "not-minimal",
                    f"{name!r} can be dropped: changing the others already gives class "
                    f"{self._predict_checked(y)!r}",
                    c,
                    counterexample=y,
                    counterexample_prediction=self._predict_checked(y),
                    redundant_feature=name,
                )
        return Verdict(
            "cxp",
            claim,
            True,
            None,
            f"changing {_fmt(claim)} can change class {c!r}, and keeping any of them fixed cannot",
            c,
            counterexample=None,
            witnesses={"": x},
        )


def _refuse_ill_defined(model: Any) -> None:
    """A model whose literals overlap, leave a gap or hold an impossible branch has no
    classification function to check claims against: refuse it (Def. 2), never repair it."""
    if isinstance(model, Model):
        model.validate()


def _fmt(names: Sequence[str]) -> str:
    return "{" + ", ".join(names) + "}"


def verify_claim(
    kind: Kind,
    model: Any,
    instance: Mapping[str, Any] | Sequence[Any],
    features: Iterable[str],
    *,
    model_features: Sequence[Any] | None = None,
) -> Verdict:
    """Is ``features`` an AXp (``kind="axp"``) or a CXp of ``instance`` for the original
    ``model``? One :class:`Verifier`, closed afterwards."""
    with Verifier(model, model_features) as v:
        check = v.verify_axp if kind == "axp" else v.verify_cxp
        return check(instance, features)


def verify_axp(
    model: Any,
    instance: Mapping[str, Any] | Sequence[Any],
    features: Iterable[str],
    *,
    model_features: Sequence[Any] | None = None,
) -> Verdict:
    """Is ``features`` an AXp of ``instance`` for the original ``model``? (see :class:`Verifier`)"""
    return verify_claim("axp", model, instance, features, model_features=model_features)


def verify_cxp(
    model: Any,
    instance: Mapping[str, Any] | Sequence[Any],
    features: Iterable[str],
    *,
    model_features: Sequence[Any] | None = None,
) -> Verdict:
    """Is ``features`` a CXp of ``instance`` for the original ``model``? (see :class:`Verifier`)"""
    return verify_claim("cxp", model, instance, features, model_features=model_features)
