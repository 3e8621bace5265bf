"""Learn an ordered CN2 rule list with Orange3: a script run by the Orange3 environment's
interpreter (:mod:`xpg.learn.cn2`), never imported by xpg.

It reads one JSON request on standard input and prints one JSON answer on standard output;
it imports neither xpg nor anything outside the standard library, numpy and Orange3.

Request::

    {"features": [{"name": str, "discrete": [str, ...] | null}, ...],
     "classes": [str, ...],
     "X": [[float, ...], ...], "y": [int, ...],      # training rows, values coded as below
     "predict": [[float, ...], ...],                 # rows Orange's own model classifies
     "params": {...}}                                # CN2Learner's keyword arguments

A discrete feature's value is the index of its value in ``discrete``; a continuous one's is
the number itself.  Answer::

    {"orange": version,
     "rules": [{"selectors": [[name, op, value], ...], "label": int,
                "distribution": [float, ...]}, ...],   # in order, the default rule last
     "predictions": [int, ...]}                        # Orange's classes of "predict"

A selector's ``op`` is ``==`` or ``!=`` with a discrete feature's value (its text), ``<=`` or
``>=`` with a continuous feature's threshold.  ``label`` is the class Orange predicts when the
rule fires: the first maximum of the rule's Laplace-corrected class probabilities, which is
what ``CN2Classifier`` returns.

Examples
--------
>>> request = {"features": [{"name": "a", "discrete": ["0", "1"]}], "classes": ["n", "y"],
...            "X": [[0.0], [1.0]], "y": [0, 1], "predict": [[1.0]], "params": {}}
>>> sorted(request) == sorted(REQUEST_KEYS)
True
"""

from __future__ import annotations

import json
import sys
from typing import Any

REQUEST_KEYS = ("features", "classes", "X", "y", "predict", "params")


def learn(request: dict[str, Any]) -> dict[str, Any]:
    """The rule list and Orange's predictions for one request."""
    import numpy as np
    import Orange
    from Orange.classification.rules import CN2Learner
    from Orange.data import ContinuousVariable, DiscreteVariable, Domain, Table

    attributes = [
        ContinuousVariable(f["name"])
        if f["discrete"] is None
        else DiscreteVariable(f["name"], values=list(f["discrete"]))
        for f in request["features"]
    ]
    domain = Domain(attributes, DiscreteVariable("class", values=list(request["classes"])))
    n = len(attributes)
    X = np.asarray(request["X"], dtype=float).reshape(-1, n)
    y = np.asarray(request["y"], dtype=float)
    data = Table.from_numpy(domain, X, y)
    model = CN2Learner(**request.get("params", {}))(data)
    # selectors name the column of the model's own domain (after Orange's preprocessors),
    # so they are given by variable name, and a discrete value by its text
    variables = model.domain.attributes
    rules = []
    for rule in model.rule_list:
        selectors = []
        for s in rule.selectors:
            var = variables[int(s.column)]
            value = var.values[int(s.value)] if var.is_discrete else float(s.value)
            selectors.append([var.name, str(s.op), value])
        rules.append(
            {
                "selectors": selectors,
                "label": int(np.argmax(rule.probabilities)),
                "distribution": [float(v) for v in rule.curr_class_dist],
            }
        )
    rows = np.asarray(request["predict"], dtype=float).reshape(-1, n)
    predictions = model(Table.from_numpy(domain, rows, np.zeros(len(rows)))) if len(rows) else []
    return {
        "orange": Orange.version.version,
        "rules": rules,
        "predictions": [int(v) for v in np.asarray(predictions).tolist()],
    }


def main() -> int:
    """Answer the request on standard input."""
    request = json.load(sys.stdin)
    missing = [k for k in REQUEST_KEYS if k not in request]
    if missing:
        print(f"request without {', '.join(missing)}", file=sys.stderr)
        return 2
    json.dump(learn(request), sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
