"""The model kinds by JSON type name: the one place a new kind is added.

The JSON reader looks the ``model.type`` of a document up here and hands the ``model`` object
to the class's :meth:`~xpg.models.protocol.Model.from_json_body`; everything else (writing,
compiling, verifying) calls the model's own methods.  A kind defined elsewhere is added with
:func:`register_model_kind` (which also works as a class decorator) and removed with
:func:`unregister_model_kind`.

Examples
--------
>>> print(*sorted(model_kinds()))
boosted-trees decision-graph decision-list decision-tree forest gbdt obdd omdd risk-score
>>> model_kind("obdd").__name__            # obdd documents are read as boolean OMDDs
'OMDD'
"""

from __future__ import annotations

from typing import TypeVar

from xpg.core.graph import DecisionGraph
from xpg.errors import InvalidModelError
from xpg.models.decision_list import DecisionList
from xpg.models.ensemble import BoostedTrees, Forest
from xpg.models.gbdt import GBDT
from xpg.models.omdd import OMDD
from xpg.models.protocol import Model
from xpg.models.risk_score import RiskScore
from xpg.models.tree import DecisionTree

M = TypeVar("M", bound=type[Model])

_KINDS: dict[str, type[Model]] = {}


def register_model_kind(cls: M, name: str | None = None) -> M:
    """Register ``cls`` under ``name`` (default: ``cls.json_type``); returns ``cls``.

    Raises :class:`InvalidModelError` when the name is taken by another class or ``cls``
    lacks a member of :class:`~xpg.models.protocol.Model`.
    """
    key = cls.json_type if name is None else name
    missing = [m for m in _MEMBERS if not hasattr(cls, m)]
    if not any(hasattr(cls, m) for m in _EXPLAINED_BY):
        missing.append(" or ".join(_EXPLAINED_BY))
    if missing:
        raise InvalidModelError(
            f"model kind {cls.__name__}: expected the members of xpg.models.protocol.Model, "
            f"missing {missing}"
        )
    if _KINDS.get(key, cls) is not cls:
        raise InvalidModelError(
            f"model type {key!r} is already registered for {_KINDS[key].__name__}, "
            f"cannot register {cls.__name__}"
        )
    _KINDS[key] = cls
    return cls


def unregister_model_kind(name: str) -> None:
    """Forget the kind registered under ``name`` (a JSON type name)."""
    if _KINDS.pop(name, None) is None:
        raise InvalidModelError(f"no model kind is registered under {name!r}")


def model_kind(name: str) -> type[Model]:
    """The class registered under a JSON type name.

    Raises :class:`InvalidModelError` (at ``model.type``) listing the known names.
    """
    try:
        return _KINDS[name]
    except (KeyError, TypeError):
        raise InvalidModelError(
            f"model.type: expected one of {', '.join(_KINDS)}, found {name!r}"
        ) from None


def model_kinds() -> dict[str, type[Model]]:
    """Every registered kind: JSON type name -> class (a copy)."""
    return dict(_KINDS)


_MEMBERS = [
    "json_type",
    "predict",
    "predict_batch",
    "validate",
    "to_json_body",
    "from_json_body",
    "smt_encoding",
]

#: a kind is compiled (``to_decision_graph``) or brings its own oracle (``explanation_oracle``,
#: an oracle-only kind, docs/model-kinds.md)
_EXPLAINED_BY = ("to_decision_graph", "explanation_oracle")

register_model_kind(DecisionGraph)
register_model_kind(DecisionTree)
register_model_kind(DecisionList)
register_model_kind(OMDD, "obdd")  # boolean OMDDs and dd OBDDs are written as "obdd" nodes
register_model_kind(OMDD)
register_model_kind(RiskScore)
register_model_kind(Forest)
register_model_kind(BoostedTrees)
register_model_kind(GBDT)

__all__ = ["model_kind", "model_kinds", "register_model_kind", "unregister_model_kind"]
