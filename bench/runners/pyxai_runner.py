"""Runner for PyXAI (started by ``bench/peers.py`` inside ``bench/.venvs/pyxai``).

Usage: ``python pyxai_runner.py --serve``: JSON requests on standard input, one per line,
answered one per line (``serve.py``), so that ``bench/pyxai_compare.py`` can measure PyXAI
and xpg in turn on each instance (``timing.py``: CPU time of this process, the same clock
as xpg's side).

Requests:

* ``{"op": "load", "model": pickle of a fitted sklearn DecisionTreeClassifier,
  "feature_names": [...]}``: ``Learning.ModelIO.import_models`` (not timed).
* ``{"op": "prepare", "instance": [floats]}``: ``Explaining.initialize(model, instance)``
  (timed apart, ``setup_s``, not compared), then the first call of each task, not
  measured: ``one`` = ``sufficient_reason(n=1)``, ``axps`` = ``sufficient_reason(n=ALL)``,
  ``cxps`` = ``contrastive_reason(n=ALL)``; it fixes each task's loop length. Answer:
  ``{"prediction", "setup_s", "first_s": {task: s}, "one_axp": [names], "axps": [[names]],
  "cxps": [[names]], "n_axp_reasons", "n_cxp_reasons", "axp_literals", "cxp_literals"}``;
  reasons are given as PyXAI gives them (binary literals) and as the sets of feature names
  their conditions use (``to_features``).
* ``{"op": "measure", "task": "one" | "axps" | "cxps"}``: one measurement of that task on
  the prepared instance, ``{"seconds": per call}`` (``timing.measure``).

PyXAI keeps no result between calls (each call encodes the tree again), so repeated calls
cost what the first costs, minus warm caches. The measured calls are PyXAI's own, unwrapped;
anything they print goes to standard error (``serve.py``).
"""

import contextlib
import io
import pickle
import sys

from serve import serve, take_stdout  # bench/runners/serve.py, beside this script

CHANNEL = take_stdout()  # before PyXAI is imported: it prints then

import numpy as np  # noqa: E402
from pyxai import Explaining, Learning  # noqa: E402
from timing import calibrate, measure  # noqa: E402  # bench/runners/timing.py, beside this

STATE = {}
QUIET = io.StringIO()


def _reasons(out):
    """PyXAI returns one reason (a tuple of ints) for n=1, a tuple of them otherwise."""
    if not out:
        return []
    if isinstance(out[0], (int, np.integer)):
        return [tuple(int(v) for v in out)]
    return [tuple(int(v) for v in r) for r in out]


def _names(explainer, reason, contrastive):
    detail = explainer.to_features(reason, details=True, contrastive=contrastive)
    return sorted(str(k) for k in detail)


def load(req):
    with open(req["model"], "rb") as fh:
        clf = pickle.load(fh)
    with contextlib.redirect_stdout(QUIET):
        _, models = Learning.ModelIO.import_models(clf, instances_type="tabular")
    model = models[0] if isinstance(models, list) else models
    model.learner_information.feature_names = list(req["feature_names"]) + ["p"]
    STATE.clear()
    STATE["model"] = model
    return {}


def prepare(req):
    x = np.asarray(req["instance"], dtype=np.float64)
    with contextlib.redirect_stdout(QUIET):
        setup_s, _, explainer = calibrate(
            lambda: Explaining.initialize(STATE["model"], instance=x), budget=0
        )
    calls = {
        "one": lambda: explainer.sufficient_reason(n=1),
        "axps": lambda: explainer.sufficient_reason(n=Explaining.ALL),
        "cxps": lambda: explainer.contrastive_reason(n=Explaining.ALL),
    }
    first, loops, outs = {}, {}, {}
    for task, call in calls.items():
        first[task], loops[task], outs[task] = calibrate(call)
    STATE.update(calls=calls, loops=loops)
    one, axps, cxps = (_reasons(outs[t]) for t in ("one", "axps", "cxps"))
    prediction = explainer.target_prediction
    return {
        "prediction": prediction.item() if hasattr(prediction, "item") else prediction,
        "setup_s": setup_s,
        "first_s": first,
        "one_axp": _names(explainer, one[0], False) if one else None,
        "axps": [_names(explainer, r, False) for r in axps],
        "cxps": [_names(explainer, r, True) for r in cxps],
        "n_axp_reasons": len(axps),
        "n_cxp_reasons": len(cxps),
        "axp_literals": [list(r) for r in axps],
        "cxp_literals": [list(r) for r in cxps],
    }


def measure_task(req):
    task = req["task"]
    return {"seconds": measure(STATE["calls"][task], STATE["loops"][task])}


if __name__ == "__main__":
    if sys.argv[1:] != ["--serve"]:
        sys.exit("usage: python pyxai_runner.py --serve")
    serve({"load": load, "prepare": prepare, "measure": measure_task}, channel=CHANNEL)
