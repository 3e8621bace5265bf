"""Decision lists (ordered rules ``IF conjunction THEN class``, then a default) and their compiler.

The first rule whose conditions all hold decides; the default rule decides when none does.
:func:`compile_decision_list` turns a list into a decision graph with the same
classification function:

* every tested feature boolean: a reduced OBDD built with dd (``dd.autoref`` or
  ``dd.cudd``), as in Sec. 7 of the core paper: with the rules taken from last to first,
  ``f := ITE(term_i, [label_i = c], f)`` gives the function of each class ``c``; with two
  classes the DG is the OBDD of the second class, with more it is the product of the class
  BDDs (a reduced multi-terminal OBDD);
* otherwise: a reduced ordered MDD (:class:`~xpg.compile.mdd.MDDBuilder`) over the cells of
  each feature, the classes of values no rule condition tells apart, built with the same
  fold.

Examples
--------
>>> from xpg.core.features import Feature, Literal
>>> from xpg.models.decision_list import DecisionList, Rule
>>> feats = [Feature.boolean("x1"), Feature.boolean("x2")]
>>> dl = DecisionList(feats, [0, 1], [Rule([Literal.eq("x1", 1), Literal.eq("x2", 1)], 1)], 0)
>>> dg = compile_decision_list(dl)                          # all boolean: a reduced OBDD
>>> [dg.predict([a, b]) for a in (0, 1) for b in (0, 1)], len(dg)
([0, 0, 0, 1], 4)
>>> mdd = compile_decision_list(dl, method="mdd")           # the same function as an MDD
>>> [mdd.predict([a, b]) for a in (0, 1) for b in (0, 1)], mdd.n_edges
([0, 0, 0, 1], 4)

References
----------
Rivest. Learning decision lists. Machine Learning 1987; Huang, Izza, Ignatiev, Marques-Silva.
On Efficiently Explaining Graph-Based Classifiers. KR 2021, Sec. 7 (DLs compiled to OBDDs,
following Narodytska et al. 2019).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any
from typing import Literal as TypingLiteral

from xpg.compile.bdd import Backend, bdd_manager
from xpg.compile.mdd import MDDBuilder
from xpg.core.features import ValueSet
from xpg.core.graph import DecisionGraph
from xpg.core.valuesets import as_value_set, feature_cells
from xpg.errors import InvalidModelError
from xpg.models.decision_list import DecisionList

if TYPE_CHECKING:
    from xpg.models.obdd import OBDD

Method = TypingLiteral["auto", "bdd", "mdd"]


def _class_index(classes: Sequence[Any], label: Any) -> int:
    return next(i for i, c in enumerate(classes) if c == label and type(c) is type(label))


def _order(dl: DecisionList, order: Sequence[str] | None) -> list[str]:
    tested = dl.tested_features()
    if order is None:
        return tested
    order = list(order)
    unknown = [n for n in order if n not in dl.feature_index]
    if unknown or len(set(order)) != len(order):
        raise InvalidModelError(f"order: expected distinct declared feature names, found {order!r}")
    missing = [n for n in tested if n not in order]
    if missing:
        raise InvalidModelError(f"order: the tested feature(s) {missing!r} are missing")
    return [n for n in order if n in set(tested)]


def decision_list_to_obdd(
    dl: DecisionList, order: Sequence[str] | None = None, backend: Backend = "autoref"
) -> OBDD:
    """The OBDD(s) of a decision list over boolean features, built in a new dd manager.

    Parameters
    ----------
    dl : DecisionList
        Every tested feature must be boolean.
    order : sequence of str, optional
        Variable order (feature names, top first; default: feature order).
    backend : {"autoref", "cudd"}
        dd's pure-Python or CUDD back-end.
    """
    from xpg.models.obdd import OBDD  # xpg.models.obdd imports xpg.compile: not at load time

    names = _order(dl, order)
    by_name = {f.name: f for f in dl.features}
    not_bool = [n for n in names if by_name[n].kind != "boolean"]
    if not_bool:
        raise InvalidModelError(
            f"an OBDD needs boolean features; {not_bool!r} are not (use method='mdd')"
        )
    bdd = bdd_manager(names, backend)
    terms = []
    for rule in dl.rules:
        term = bdd.true
        for lit in rule.conditions:
            allowed = set(lit.allowed)
            if allowed == {0, 1}:
                continue
            term = term & (bdd.var(lit.feature) if allowed == {1} else ~bdd.var(lit.feature))
        terms.append(term)
    k = len(dl.classes)
    labels = [_class_index(dl.classes, r.label) for r in dl.rules]
    default = _class_index(dl.classes, dl.default)
    targets = [1] if k == 2 else list(range(k))
    funcs = []
    for c in targets:
        f = bdd.true if default == c else bdd.false
        for term, lab in zip(reversed(terms), reversed(labels), strict=True):
            f = bdd.ite(term, bdd.true if lab == c else bdd.false, f)
        funcs.append(f)
    if k == 2:
        return OBDD(funcs[0], dl.features, dl.classes)
    return OBDD(dict(zip(dl.classes, funcs, strict=True)), dl.features, dl.classes)


def decision_list_to_mdd(
    dl: DecisionList, order: Sequence[str] | None = None
) -> tuple[MDDBuilder, int, list[str], list[list[ValueSet]]]:
    """The reduced ordered MDD of a decision list: ``(builder, root, level features, cells)``."""
    names = _order(dl, order)
    by_name = {f.name: f for f in dl.features}
    level = {n: i for i, n in enumerate(names)}
    cells = [
        feature_cells(
            by_name[n],
            {
                as_value_set(by_name[n], lit)
                for r in dl.rules
                for lit in r.conditions
                if lit.feature == n
            },
        )
        for n in names
    ]
    mdd = MDDBuilder([len(c) for c in cells])
    f = mdd.terminal(_class_index(dl.classes, dl.default))
    for rule in reversed(dl.rules):
        allowed: dict[int, set[int]] = {}
        for lit in rule.conditions:
            lv = level[lit.feature]
            feature = by_name[lit.feature]
            s = as_value_set(feature, lit)
            inside = {j for j, cell in enumerate(cells[lv]) if feature.is_empty(cell - s)}
            allowed[lv] = allowed[lv] & inside if lv in allowed else inside
        term = [(lv, frozenset(allowed[lv])) for lv in sorted(allowed)]
        f = mdd.ite_conjunction(term, mdd.terminal(_class_index(dl.classes, rule.label)), f)
    return mdd, f, names, cells


def compile_decision_list(
    dl: DecisionList,
    order: Sequence[str] | None = None,
    method: Method = "auto",
    backend: Backend = "autoref",
) -> DecisionGraph:
    """A decision graph with the classification function of ``dl``.

    Parameters
    ----------
    dl : DecisionList
    order : sequence of str, optional
        Variable order, top first (default: feature order).
    method : {"auto", "bdd", "mdd"}
        ``"bdd"``: reduced OBDD with dd (boolean features only); ``"mdd"``: reduced ordered MDD
        (any features); ``"auto"``: ``"bdd"`` when every tested feature is boolean.
    backend : {"autoref", "cudd"}
        The dd back-end of the ``"bdd"`` method.

    Returns
    -------
    DecisionGraph
        Satisfies Def. 2 by construction (read-once, edges partition each domain).
    """
    if method not in ("auto", "bdd", "mdd"):
        raise InvalidModelError(f"method: expected auto, bdd or mdd, found {method!r}")
    if method == "auto":
        by_name = {f.name: f for f in dl.features}
        boolean = all(by_name[n].kind == "boolean" for n in dl.tested_features())
        method = "bdd" if boolean else "mdd"
    if method == "bdd":
        return decision_list_to_obdd(dl, order, backend).to_decision_graph()
    mdd, root, names, cells = decision_list_to_mdd(dl, order)
    return mdd.to_decision_graph(root, dl.features, dl.classes, names, cells)
