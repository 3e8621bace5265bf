"""The one interface every model kind implements, documented once.

A model kind is a class with the members of :class:`Model`.  Everything that handles models
goes through these members and nothing else: the JSON reader and writer
(:mod:`xpg.io.model_json`, which finds the class of a ``model.type`` in
:mod:`xpg.models.registry`), compilation (:meth:`CompiledModel.to_decision_graph`; a kind
that is never compiled has ``explanation_oracle`` instead), the verifier
(:meth:`Model.validate`, :meth:`Model.smt_encoding`), the black-box wrappers
(:meth:`Model.predict_batch`) and the command line.  The implementations are
:class:`~xpg.core.graph.DecisionGraph` (``decision-graph``),
:class:`~xpg.models.tree.DecisionTree` (``decision-tree``),
:class:`~xpg.models.decision_list.DecisionList` (``decision-list``),
:class:`~xpg.models.omdd.OMDD` (``omdd``; also what an ``obdd`` document is read into),
:class:`~xpg.models.risk_score.RiskScore` (``risk-score``) and
:class:`~xpg.models.obdd.OBDD` (dd functions, written as ``obdd`` nodes).  A fitted
scikit-learn tree is not a model kind: :func:`~xpg.models.tree.tree_from_sklearn`
adapts it into a :class:`~xpg.models.tree.DecisionTree`.  ``docs/model-kinds.md`` shows how
to add a kind.

Examples
--------
>>> import numpy as np
>>> from xpg.core.features import Feature, Literal
>>> from xpg.models.decision_list import DecisionList, Rule
>>> dl = DecisionList([Feature.boolean("a"), Feature.real("x")], ["no", "yes"],
...                   [Rule([Literal.eq("a", 1), Literal.gt("x", 2.0)], "yes")], "no")
>>> isinstance(dl, Model)
True
>>> dl.predict({"a": 1, "x": 3.0}), dl.predict_batch(np.array([[1, 3.0], [0, 3.0]])).tolist()
('yes', ['yes', 'no'])
>>> again = type(dl).from_json_body(dl.to_json_body(), dl.features, dl.classes)
>>> again.predict([1, 1.5]) == dl.to_decision_graph().predict([1, 1.5]) == "no"
True

References
----------
dd's interface specification (``dd/_abc.py``): one documented interface, several back-ends;
Huang, Izza, Ignatiev, Marques-Silva. On Efficiently Explaining Graph-Based Classifiers.
KR 2021, Sec. 2 (classifiers compiled into decision graphs).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, runtime_checkable

import numpy as np

from xpg.core.features import Feature
from xpg.core.graph import DecisionGraph, batch_matrix, label_array
from xpg.errors import InvalidModelError

if TYPE_CHECKING:
    from xpg.solvers.smt import SmtModel

Instance = Mapping[str, Any] | Sequence[Any]


@runtime_checkable
class Model(Protocol):
    """A classifier over declared features, as every part of xpg sees it.

    Attributes
    ----------
    json_type : str
        The ``model.type`` of its JSON document (a class attribute).
    features : list of Feature
        The inputs, in instance order, with their domains (what a freed feature may take).
    classes : list
        The class labels.
    """

    json_type: ClassVar[str]

    @property
    def features(self) -> list[Feature]:
        """The model's features, in instance order."""

    @property
    def classes(self) -> list[Any]:
        """The class labels."""

    def predict(self, instance: Instance) -> Any:
        """The class of one instance: a mapping from feature names to values, or the values
        in feature order; raises :class:`~xpg.errors.InvalidInstanceError` for a missing,
        unknown or out-of-domain value."""

    def predict_batch(self, X: Any) -> np.ndarray:
        """The classes of the rows of a 2-D array (values in feature order) as a numpy array,
        numeric when every label is a number (see :func:`~xpg.core.graph.label_array`)."""

    def validate(self) -> None:
        """Raise an :class:`~xpg.errors.XpgError` when the model has no classification
        function (overlapping or incomplete branches, Def. 2); nothing is repaired."""

    def to_json_body(self) -> dict[str, Any]:
        """The ``model`` object of its JSON document, ``"type"`` included (the features and
        classes are written by :func:`~xpg.io.model_json.model_to_dict`)."""

    @classmethod
    def from_json_body(
        cls, body: Mapping[str, Any], features: list[Feature], classes: list[Any]
    ) -> Model:
        """The model of a ``model`` object; errors are
        :class:`~xpg.errors.InvalidModelError` naming the JSON location (``model.rules[2]``)."""

    def smt_encoding(self) -> SmtModel:
        """The class of an input as an SMT term over one variable per feature, read from the
        model's own structure (not from its decision graph): what the verifier checks."""


@runtime_checkable
class CompiledModel(Model, Protocol):
    """A model kind compiled into a decision graph (every built-in kind).  A kind may
    instead be explained by an oracle of its own and never be compiled: it then has
    ``explanation_oracle(instance)``, returning an :class:`~xpg.explain.oracle_abc.Oracle`
    (docs/model-kinds.md, "Adding a kind that is never compiled")."""

    def to_decision_graph(self) -> DecisionGraph:
        """A decision graph with the same classification function, satisfying Def. 2 (a
        compiled graph by construction; a :class:`~xpg.core.graph.DecisionGraph` is itself,
        and its :meth:`validate` checks it)."""


def compiles(model: Any) -> bool:
    """Whether ``model``'s kind is compiled into a decision graph (it has
    ``to_decision_graph``), not explained by an oracle of its own only.

    >>> from xpg.examples import paper_figure2
    >>> compiles(paper_figure2()), compiles(object())
    (True, False)
    """
    return callable(getattr(model, "to_decision_graph", None))


def refuse_uncompiled(model: Any, verb: str) -> CompiledModel:
    """``model`` when it compiles into a decision graph, else
    :class:`~xpg.errors.InvalidModelError` saying that its kind is explained by its own
    oracle (what ``verb``, e.g. "draw", needs is a graph)."""
    if not compiles(model):
        kind = getattr(model, "json_type", type(model).__name__)
        raise InvalidModelError(
            f"cannot {verb} a {kind} model: its kind is never compiled into a decision graph "
            "(it is explained by its own oracle: xpg.Explainer(model))"
        )
    compiled: CompiledModel = model
    return compiled


def checked_signature(
    kind: str, features: Sequence[Feature], classes: Sequence[Any]
) -> tuple[list[Feature], list[Any], dict[str, int]]:
    """The features, the classes and the feature index (name -> position) of a model, checked:
    distinct feature names, at least one class and distinct class labels.

    Examples
    --------
    >>> checked_signature("a model", [Feature.boolean("a")], ["no", "yes"])[2]
    {'a': 0}
    """
    feats, labels = list(features), list(classes)
    index = {f.name: i for i, f in enumerate(feats)}
    if len(index) != len(feats):
        raise InvalidModelError(f"{kind}: a feature name is declared twice")
    if not labels or len(set(map(repr, labels))) != len(labels):
        raise InvalidModelError(f"{kind}: expected distinct class labels, found {labels!r}")
    return feats, labels, index


def check_label(label: Any, classes: Sequence[Any], where: str) -> None:
    """Refuse a class label that is not declared (``True`` is not the class ``1``)."""
    if not any(label == c and type(label) is type(c) for c in classes):
        raise InvalidModelError(
            f"{where}: class {label!r} is not declared (classes: {list(classes)!r})"
        )


def predict_rows(model: Model, X: Any) -> np.ndarray:
    """``model.predict`` on every row of ``X``: a loop, for kinds with no cheap vectorisation.

    Examples
    --------
    >>> from xpg.examples import paper_figure2
    >>> predict_rows(paper_figure2(), [[0, 1, 2], [1, 1, 1]]).tolist()
    ['R', 'G']
    """
    M = batch_matrix(model.features, X)
    return label_array([model.predict(row) for row in M.tolist()])


__all__ = [
    "CompiledModel",
    "Instance",
    "Model",
    "compiles",
    "refuse_uncompiled",
    "check_label",
    "checked_signature",
    "predict_rows",
]
