"""Learn decision lists from data with RIPPER (the ``wittgenstein`` library).

The core paper learns its decision lists with Orange3's CN2.  Orange3 3.40 requires
``numpy<2.4`` and ``pandas<3`` and pulls a Qt stack, xgboost and NVIDIA libraries (about
1.4 GB), which cannot live beside xpg's other dependencies; RIPPER (Cohen 1995), a
sequential-covering rule learner of the same family, is used here through the
maintained ``wittgenstein`` package (:mod:`xpg.learn.cn2` runs CN2 itself in an
environment of its own).  Multi-class lists follow RIPPER's own ordering:
classes by increasing frequency, a rule set for each class against the classes after it,
examples covered by earlier rules removed, and the most frequent class as the default.

Every condition is ``feature = value``, so the features must be discrete (boolean,
categorical, integer); discretise real features first.

Examples
--------
>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> X = rng.integers(0, 2, size=(200, 4))
>>> y = X[:, 0] & X[:, 1] | X[:, 2]
>>> dl = learn_decision_list(X, y, ["a", "b", "c", "d"], random_state=0)
>>> all(dl.predict(list(row)) == label for row, label in zip(X, y))
True

References
----------
Cohen. Fast effective rule induction. ICML 1995 (RIPPER); Clark, Niblett. The CN2 induction
algorithm. Machine Learning 1989; Huang et al. KR 2021, Sec. 7.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

from xpg.core.features import Feature, Literal
from xpg.errors import InvalidModelError, MissingExtraError
from xpg.learn.feature_types import infer_features
from xpg.models.decision_list import DecisionList, Rule


def _ripper() -> Any:
    try:
        import wittgenstein
    except ImportError:
        raise MissingExtraError(
            "learning decision lists needs the 'wittgenstein' package "
            "(pip install -e '.[rules]' from a clone of xpg, or pip install wittgenstein)"
        ) from None
    return wittgenstein.RIPPER


def _column_values(feature: Feature, column: np.ndarray, name: str) -> list[Any]:
    out = []
    for v in column.tolist():
        if feature.kind == "categorical" and not feature.contains(v):
            v = str(v)
        if isinstance(v, float) and feature.kind in ("boolean", "integer") and v == int(v):
            v = int(v)
        if not feature.contains(v):
            raise InvalidModelError(
                f"column {name!r}: value {v!r} is outside the domain of feature {feature}"
            )
        out.append(feature.check_value(v))
    return out


def learn_decision_list(
    X: Any,
    y: Any,
    feature_names: Sequence[str] | None = None,
    *,
    features: Sequence[Feature] | None = None,
    classes: Sequence[Any] | None = None,
    max_rules: int | None = None,
    max_rule_conds: int | None = None,
    k: int = 2,
    prune_size: float = 0.33,
    random_state: int | None = 0,
    positive: Any | None = None,
) -> DecisionList:
    """A decision list learned by RIPPER from discrete data.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Discrete values (booleans as 0/1, category labels, integers).
    y : array-like of shape (n_samples,)
    feature_names : sequence of str, optional
        Default ``x0, x1, ...`` (ignored when ``features`` is given).
    features : sequence of Feature, optional
        The domains (default: inferred, see :func:`xpg.learn.feature_types.infer_feature`);
        every feature must be boolean, categorical or integer.
    classes : sequence, optional
        Class labels in the model (default: the sorted labels of ``y``).
    max_rules, max_rule_conds, k, prune_size, random_state
        Passed to ``wittgenstein.RIPPER`` (per class for multi-class data).
    positive : optional
        The class whose rules come first (RIPPER's positive class); default: the classes in
        order of increasing frequency.  The default rule predicts the most frequent of the
        other classes.

    Returns
    -------
    DecisionList
        Rules ``IF f1 = v1 AND ... THEN c`` in RIPPER's order, then the default class.
    """
    ripper = _ripper()
    X = np.asarray(X, dtype=object)
    y = np.asarray(y)
    if X.ndim != 2 or len(X) != len(y) or len(y) == 0:
        raise InvalidModelError(
            f"expected X of shape (n, d) and y of shape (n,), found {X.shape} and {y.shape}"
        )
    if features is None:
        names = [f"x{j}" for j in range(X.shape[1])] if feature_names is None else feature_names
        features = infer_features(X, [str(n) for n in names])
    features = list(features)
    if len(features) != X.shape[1]:
        raise InvalidModelError(
            f"expected {X.shape[1]} features (one per column), found {len(features)}"
        )
    real = [f.name for f in features if f.kind == "real"]
    if real:
        raise InvalidModelError(
            f"decision lists test feature = value: discretise the real feature(s) {real!r} first"
        )
    columns = [_column_values(f, X[:, j], f.name) for j, f in enumerate(features)]
    labels = [v.item() if isinstance(v, np.generic) else v for v in y.tolist()]
    classes = sorted(set(labels), key=repr) if classes is None else list(classes)
    unknown = sorted({repr(v) for v in labels if v not in classes})
    if unknown:
        raise InvalidModelError(f"y has labels {unknown} outside the classes {classes!r}")
    counts = Counter(labels)
    order = sorted(classes, key=lambda c: (counts.get(c, 0), classes.index(c)))
    if positive is not None:
        if positive not in classes:
            raise InvalidModelError(f"positive class {positive!r} is not one of {classes!r}")
        if len(classes) < 2:
            raise InvalidModelError(f"a positive class needs two classes, found {classes!r}")
        order = [positive, *(c for c in order if c != positive)]
    # wittgenstein sees every value as a string code, so that it never bins a column
    codes = [
        {v: str(i) for i, v in enumerate(_domain_values(f, col))}
        for f, col in zip(features, columns, strict=True)
    ]
    decode = [{c: v for v, c in table.items()} for table in codes]
    table = np.array(
        [[codes[j][columns[j][i]] for j in range(len(features))] for i in range(len(labels))],
        dtype=object,
    ).reshape(len(labels), len(features))
    remaining = np.ones(len(labels), dtype=bool)
    rules: list[Rule] = []
    for c in order[:-1]:
        target = np.array([lab == c for lab in labels])
        pos, neg = (target & remaining).sum(), (~target & remaining).sum()
        if pos == 0 or neg == 0:
            continue
        learned = _fit_one(
            ripper,
            table[remaining],
            target[remaining],
            features,
            k,
            prune_size,
            max_rules,
            max_rule_conds,
            random_state,
        )
        for conds in learned:
            rule = Rule(
                [Literal.eq(features[j].name, decode[j][val]) for j, val in conds],
                c,
            )
            rules.append(rule)
        covered = np.array(
            [
                any(all(table[i, j] == val for j, val in conds) for conds in learned)
                for i in range(len(labels))
            ]
        )
        remaining &= ~covered
    return DecisionList(features, classes, rules, default=order[-1])


def _domain_values(feature: Feature, column: list[Any]) -> list[Any]:
    if feature.is_discrete:
        return list(feature.values)
    return sorted(set(column))


def _fit_one(
    ripper: Any,
    table: np.ndarray,
    target: np.ndarray,
    features: Sequence[Feature],
    k: int,
    prune_size: float,
    max_rules: int | None,
    max_rule_conds: int | None,
    random_state: int | None,
) -> list[list[tuple[int, str]]]:
    """RIPPER's rule set for ``target`` (True) against the rest: conditions as (column, code)."""
    import pandas as pd

    names = [f"c{j}" for j in range(len(features))]
    frame = pd.DataFrame(table, columns=names).astype("category")
    clf = ripper(
        k=k,
        prune_size=prune_size,
        n_discretize_bins=None,
        max_rules=max_rules,
        max_rule_conds=max_rule_conds,
        random_state=random_state,
    )
    clf.fit(frame, target.astype(int), pos_class=1)
    index = {n: j for j, n in enumerate(names)}
    return [
        [(index[cond.feature], str(cond.val)) for cond in rule.conds]
        for rule in clf.ruleset_.rules
        if rule.conds
    ]
