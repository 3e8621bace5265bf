"""Ordered CN2 rule lists learned by Orange3 in an environment of its own, as decision lists.

The core paper's Table 1 explains decision lists learned with Orange3's ``CN2Learner`` (the
order of the rules is Orange's, the last rule is the default rule).  Orange3 3.40 pins numpy
and pandas below xpg's versions, so it runs in a virtual environment of its own
(:data:`ORANGE_ENV`, in :func:`xpg.learn.external_env.envs_dir`: ``$XPG_ENVS_DIR/orange3``,
by default ``~/.cache/xpg/envs/orange3``, about 470 MB), created by pip on first use; the
script :mod:`xpg.learn.cn2_runner` learns there and answers in JSON.  No Qt binding is
installed or needed: the rule learner imports without one, and Orange3 is installed without
the dependencies of its GUI.

:func:`learn_cn2` codes the data for Orange (boolean and categorical features as discrete
variables, integer and real ones as continuous variables), learns with Orange's defaults
(the paper's set-up), and imports the rules with :func:`decision_list_from_rules`:

* ``f == v`` on a discrete feature is the literal ``f = v``; ``f != v`` the set of the
  feature's other values;
* ``f <= t`` is ``f <= t``, ``f >= t`` is ``t <= f``, on the original feature;
* the rule with no condition (Orange's default rule, always last) gives the default class;
* each rule predicts what Orange predicts when it fires: the first maximum of its
  Laplace-corrected class distribution.

The imported list predicts Orange's class on every row handed to :func:`learn_cn2`
(checked there).

Examples
--------
A rule list in the runner's format, imported without Orange:

>>> from xpg.core.features import Feature
>>> feats = [Feature.categorical("colour", ["red", "green", "blue"]), Feature.real("size")]
>>> rules = [{"selectors": [["colour", "!=", "red"], ["size", "<=", 2.5]], "label": 1},
...          {"selectors": [["size", ">=", 4.0]], "label": 0},
...          {"selectors": [], "label": 1}]
>>> dl = decision_list_from_rules(rules, feats, ["no", "yes"])
>>> print(dl)
IF colour in {'blue', 'green'} AND size <= 2.5 THEN yes
ELSE IF size >= 4 THEN no
ELSE yes

References
----------
Clark, Niblett. The CN2 induction algorithm. Machine Learning 3(4), 1989; Demsar et al.
Orange: data mining toolbox in Python. JMLR 14, 2013; Huang, Izza, Ignatiev, Marques-Silva.
On Efficiently Explaining Graph-Based Classifiers. KR 2021, Sec. 7.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import numpy as np

from xpg.core.features import Feature, Literal
from xpg.errors import InvalidDataError, InvalidModelError
from xpg.learn.external_env import ExternalEnv, ensure, run_json
from xpg.models.decision_list import DecisionList, Rule

#: Orange3's environment: Orange3 pinned (the version Table 1 was reproduced with), without
#: the dependencies only its GUI and other learners need (Qt widgets, xgboost and NVIDIA's
#: NCCL: 1.4 GB in all, against about 470 MB); the others with Orange3's own version bounds
ORANGE_ENV = ExternalEnv(
    "orange3",
    (
        "numpy>=1.21.0,<2.4",
        "pandas>=2.0.1,<3",
        "scipy>=1.9",
        "scikit-learn>=1.5.1",
        "bottleneck>=1.3.4",
        "chardet>=3.0.2",
        "joblib>=1.2.0",
        "openpyxl>=3.1.3",
        "xlrd>=1.2.0",
        "xlsxwriter",
        "pyyaml",
        "requests",
        "serverfiles",
        "packaging",
        "httpx>=0.21.0,<1",
        "networkx",
    ),
    "from Orange.classification.rules import CN2Learner",
    no_deps=("Orange3==3.40.0", "orange-canvas-core==0.2.9"),
)
RUNNER = Path(__file__).with_name("cn2_runner.py")


@dataclass(frozen=True)
class CN2Result:
    """A learned CN2 list, Orange's own classes of the rows asked for, Orange's version."""

    model: DecisionList
    orange_predictions: list[Any]
    orange_version: str


def _text_labels(values: Sequence[Any], what: str) -> list[str]:
    texts = [str(v) for v in values]
    if len(set(texts)) != len(texts):
        raise InvalidDataError(f"{what}: two values have the same text ({values!r})")
    return texts


def orange_features(features: Sequence[Feature]) -> list[dict[str, Any]]:
    """The features as the runner's request describes them (discrete: the values' text).

    >>> from xpg.core.features import Feature
    >>> orange_features([Feature.boolean("b"), Feature.integer("n", 0, 9)])
    [{'name': 'b', 'discrete': ['0', '1']}, {'name': 'n', 'discrete': None}]
    """
    return [
        {
            "name": f.name,
            "discrete": _text_labels(f.values, f"feature {f.name!r}") if f.is_discrete else None,
        }
        for f in features
    ]


def orange_rows(features: Sequence[Feature], rows: Any) -> list[list[float]]:
    """Rows of values (in feature order) coded for Orange: a discrete value's index, else
    the number.

    >>> from xpg.core.features import Feature
    >>> orange_rows([Feature.categorical("c", ["x", "y"]), Feature.real("r")], [["y", 0.5]])
    [[1.0, 0.5]]
    """
    out = []
    for row in rows:
        coded = []
        for f, v in zip(features, row, strict=True):
            v = f.check_value(v.item() if hasattr(v, "item") else v)
            coded.append(float(f.code(v)) if f.is_discrete else float(v))
        out.append(coded)
    return out


def _literal(feature: Feature, op: str, value: Any, where: str) -> Literal:
    if feature.is_discrete:
        by_text = {str(v): v for v in feature.values}
        if op not in ("==", "!=") or str(value) not in by_text:
            raise InvalidModelError(
                f"{where}: expected == or != with a value of {feature.name!r} "
                f"({', '.join(by_text)}), found {feature.name} {op} {value!r}"
            )
        chosen = by_text[str(value)]
        if op == "==":
            return Literal.eq(feature.name, chosen)
        return Literal.isin(feature.name, [v for v in feature.values if v != chosen])
    if op not in ("<=", ">=") or not isinstance(value, (int, float)) or math.isnan(value):
        raise InvalidModelError(
            f"{where}: expected <= or >= with a number for the {feature.kind} feature "
            f"{feature.name!r}, found {feature.name} {op} {value!r}"
        )
    threshold = int(value) if feature.kind == "integer" and float(value).is_integer() else value
    if op == "<=":
        return Literal.le(feature.name, threshold)
    return Literal.interval(feature.name, threshold, math.inf, closed="left")


def decision_list_from_rules(
    rules: Sequence[Mapping[str, Any]], features: Sequence[Feature], classes: Sequence[Any]
) -> DecisionList:
    """The decision list of an ordered CN2 rule list in the runner's format.

    Parameters
    ----------
    rules : sequence of dict
        ``{"selectors": [[feature name, op, value], ...], "label": class index}`` in order;
        the first rule without selectors (Orange's default rule, the last one) gives the
        default class, and rules after it could never fire.
    features : sequence of Feature
        The features the rules test, by name.
    classes : sequence
        The classes; a rule's ``label`` indexes them.

    Raises
    ------
    InvalidModelError
        No default rule, an unknown feature, an operator that does not fit the feature, a
        value outside its domain, a label that is not a class index.
    """
    by_name = {f.name: f for f in features}
    out: list[Rule] = []
    for i, rule in enumerate(rules):
        where = f"CN2 rule {i}"
        label = rule.get("label")
        if not isinstance(label, int) or not 0 <= label < len(classes):
            raise InvalidModelError(
                f"{where}: expected a class index below {len(classes)}, found {label!r}"
            )
        conditions = []
        for selector in rule.get("selectors", []):
            name, op, value = selector
            if name not in by_name:
                raise InvalidModelError(f"{where}: unknown feature {name!r}")
            conditions.append(_literal(by_name[name], op, value, where))
        if not conditions:
            return DecisionList(features, classes, out, default=classes[label])
        out.append(Rule(conditions, classes[label]))
    raise InvalidModelError("the CN2 rule list has no default rule (a rule with no condition)")


def learn_cn2(
    X: Any,
    y: Sequence[Any],
    features: Sequence[Feature],
    classes: Sequence[Any] | None = None,
    *,
    predict: Any | None = None,
    params: Mapping[str, Any] | None = None,
    env: ExternalEnv = ORANGE_ENV,
    timeout: float | None = None,
    log: IO[str] | None = None,
) -> CN2Result:
    """An ordered CN2 rule list learned by Orange3 on ``X, y``, as a :class:`DecisionList`.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Values in feature order, in the features' domains.
    y : sequence
        Class labels.
    features : sequence of Feature
    classes : sequence, optional
        Default: the sorted labels of ``y``.
    predict : array-like, optional
        Rows (like ``X``) that Orange's own model classifies too (default: ``X``); the
        imported list must predict the same class on each.
    params : mapping, optional
        Keyword arguments of ``CN2Learner`` (default: none, Orange's defaults).
    env : ExternalEnv
        Orange3's environment, created on first use (pip, network) with a message on
        ``log`` (default standard error).
    timeout : float, optional
        Seconds the runner may take.

    Raises
    ------
    ExternalEnvError
        The environment cannot be created, or the runner fails.
    InvalidDataError
        Rows that do not fit the features, labels outside the classes.
    InvalidModelError
        The imported list disagrees with Orange on a row (a bug).
    """
    features = list(features)
    labels = [v.item() if hasattr(v, "item") else v for v in y]
    classes = sorted(set(labels), key=repr) if classes is None else list(classes)
    index = {c: i for i, c in enumerate(classes)}
    unknown = sorted({repr(v) for v in labels if v not in index})
    if unknown:
        raise InvalidDataError(f"y has labels {unknown} outside the classes {classes!r}")
    try:
        train = orange_rows(features, X)
        shown = train if predict is None else orange_rows(features, predict)
    except (ValueError, TypeError) as err:
        raise InvalidDataError(f"rows for CN2: {err}") from None
    if len(train) != len(labels) or not train:
        raise InvalidDataError(f"expected as many labels as rows (> 0), found {len(labels)}")
    request = {
        "features": orange_features(features),
        "classes": _text_labels(classes, "classes"),
        "X": train,
        "y": [index[v] for v in labels],
        "predict": shown,
        "params": dict(params or {}),
    }
    ensure(env, log)
    answer = run_json(env, RUNNER, request, timeout=timeout)
    model = decision_list_from_rules(answer["rules"], features, classes)
    orange = [classes[i] for i in answer["predictions"]]
    rows = list(X if predict is None else predict)
    table = np.empty((len(rows), len(features)), dtype=object)
    table[:] = [list(r) for r in rows]
    ours = model.predict_batch(table).tolist()
    for i, (a, b) in enumerate(zip(ours, orange, strict=True)):
        if a != b:
            raise InvalidModelError(
                f"the rule list imported from Orange predicts {a!r} on row {i}, "
                f"Orange's model {b!r}"
            )
    return CN2Result(model, orange, str(answer["orange"]))
