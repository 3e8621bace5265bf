"""Runner for PyXAI's random-forest explainer (in ``bench/.venvs/pyxai``; ``bench/ensembles.py``).

Usage: ``python pyxai_forest_runner.py --serve``: JSON requests on standard input, one per
line, answered one per line (``serve.py``), so that xpg and PyXAI take turns on each instance.

How PyXAI sees a scikit-learn forest (``Learning.ModelIO.import_models``, PyXAI 2.0.1,
``learners/scikitlearn.py``): each tree becomes a decision tree whose leaf is the *class of
largest count* (``numpy.argmax`` of the leaf's class distribution), and the forest predicts
the class with the most tree votes (``numpy.argmax`` of the vote counts: the first class on a
tie). That is hard (majority) voting; scikit-learn's ``predict`` averages the trees' class
distributions (soft voting). The two can disagree; ``predict`` reports PyXAI's classes so that
the comparison can count the disagreements and leave those instances out.

The three calls compared (``ExplainerRF``):

* ``one``: ``sufficient_reason(time_limit=T)``: one subset-minimal set of binarised conditions
  (a MUS of the CNF, computed by the MUSER executable, a child process);
* ``cxp``: ``minimal_contrastive_reason(n=1, time_limit=T)``: one contrastive reason of smallest
  size (MaxSAT, the Open-WBO executable); two classes only (PyXAI raises otherwise);
* ``majoritary``: ``majoritary_reason(n=K)``: up to K majoritary reasons (PyXAI has no
  enumeration of sufficient reasons for forests; majoritary reasons are implicants of the
  vote, not necessarily minimal), made once (its CPU time reported, not interleaved; not made
  when K is 0).

The clock is ``timing.cpu_clock_with_children``: this process's CPU time plus its finished
children's, as the MUS and MaxSAT solvers run as separate programs.

Requests:

* ``{"op": "load", "model": pickle of a fitted RandomForestClassifier, "feature_names": [...]}``
  (not timed); answer ``{"n_trees", "n_classes"}``.
* ``{"op": "predict", "rows": [[floats]]}``: ``{"predictions": [class index]}`` (PyXAI's own
  ``predict_instance``).
* ``{"op": "prepare", "instance": [floats], "time_limit": T, "majoritary": K}``:
  ``Explaining.initialize`` (timed apart, ``setup_s``), then the first call of each task.
  Answer: ``{"prediction", "setup_s", "first_s": {task: s}, "tasks": [measurable tasks],
  "one": [names] | null, "one_literals", "cxp": [names] | null, "majoritary": [[names]],
  "majoritary_s"}``.
* ``{"op": "measure", "task": "one" | "cxp"}``: ``{"seconds": per call}``.
"""

import contextlib
import io
import pickle
import sys

from serve import serve, take_stdout  # bench/runners/serve.py, beside this script

CHANNEL = take_stdout()  # before PyXAI is imported: it prints then

import numpy as np  # noqa: E402
from pyxai import Explaining, Learning  # noqa: E402
from timing import calibrate, cpu_clock_with_children, measure  # noqa: E402

STATE = {}
QUIET = io.StringIO()
CLOCK = cpu_clock_with_children


def _reasons(out):
    """PyXAI returns one reason (a tuple of ints) for n=1, a tuple of them otherwise."""
    if out is None or len(out) == 0:
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
    return {"n_trees": len(model.forest), "n_classes": int(model.n_classes)}


def predict(req):
    model = STATE["model"]
    rows = np.asarray(req["rows"], dtype=np.float64)
    # the class index (``predict_instance`` gives the class label)
    return {"predictions": [int(model._predict_instance(x)) for x in rows]}


def prepare(req):
    x = np.asarray(req["instance"], dtype=np.float64)
    limit = req.get("time_limit")
    with contextlib.redirect_stdout(QUIET):
        setup_s, _, explainer = calibrate(
            lambda: Explaining.initialize(STATE["model"], instance=x), budget=0, clock=CLOCK
        )
    calls = {"one": lambda: explainer.sufficient_reason(time_limit=limit)}
    if STATE["model"].n_classes == 2:
        calls["cxp"] = lambda: explainer.minimal_contrastive_reason(n=1, time_limit=limit)
    first, loops, outs = {}, {}, {}
    with contextlib.redirect_stdout(QUIET):
        for task, call in calls.items():
            first[task], loops[task], outs[task] = calibrate(call, clock=CLOCK)
        majoritary_s, majoritary, majoritary_error = None, None, None
        try:
            if int(req.get("majoritary", 10)) < 1:
                raise LookupError("not asked for")
            majoritary_s, _, majoritary = calibrate(
                lambda: explainer.majoritary_reason(n=int(req.get("majoritary", 10))),
                budget=0,
                clock=CLOCK,
            )
        except LookupError:
            pass
        except Exception as err:  # PyXAI's limits (reported, not fatal)
            majoritary_s, majoritary, majoritary_error = None, None, f"{type(err).__name__}: {err}"
    STATE.update(calls=calls, loops=loops)
    one = _reasons(outs["one"])
    cxp = _reasons(outs.get("cxp"))
    prediction = explainer.cpp_target_prediction  # the class index (target_prediction: label)
    return {
        "prediction": int(prediction),
        "setup_s": setup_s,
        "first_s": first,
        "tasks": sorted(calls),
        "one": _names(explainer, one[0], False) if one else None,
        "one_literals": len(one[0]) if one else None,
        "cxp": _names(explainer, cxp[0], True) if cxp else None,
        "majoritary": [_names(explainer, r, False) for r in _reasons(majoritary)],
        "majoritary_s": majoritary_s,
        "majoritary_error": majoritary_error,
    }


def measure_task(req):
    task = req["task"]
    return {"seconds": measure(STATE["calls"][task], STATE["loops"][task], clock=CLOCK)}


if __name__ == "__main__":
    if sys.argv[1:] != ["--serve"]:
        sys.exit("usage: python pyxai_forest_runner.py --serve")
    serve(
        {"load": load, "predict": predict, "prepare": prepare, "measure": measure_task},
        channel=CHANNEL,
    )
