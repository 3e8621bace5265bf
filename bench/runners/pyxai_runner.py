"""Runner for PyXAI (executed by ``bench/peers.py`` inside ``bench/.venvs/pyxai``).

Usage: ``python pyxai_runner.py JOB.json OUT.json``.

Job: ``{"model": pickle of a fitted sklearn DecisionTreeClassifier, "feature_names": [...],
"instances": [[floats]], "all": true}``.  The tree is imported once with
``Learning.ModelIO.import_models`` (not timed).  Per instance the explainer is set up with
``Explaining.initialize(model, instance)`` (timed apart, ``setup_s``), then each call is
timed in-process (CPU time): ``sufficient_reason(n=1)``, ``sufficient_reason(n=ALL)`` and
``contrastive_reason(n=ALL)``.  Reasons are returned as PyXAI gives them (binary literals)
and as the sets of feature names their conditions use (``to_features``).

Output: ``{"results": [{"prediction", "setup_s", "one_axp_s", "all_axps_s", "all_cxps_s",
"one_axp": [names], "axps": [[names]], "cxps": [[names]], "n_axp_reasons", "n_cxp_reasons",
"axp_literals": [[ints]], "cxp_literals": [[ints]]}]}``.
"""

import contextlib
import io
import json
import pickle
import sys
import time

import numpy as np
from pyxai import Explaining, Learning


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


def main(job_path, out_path):
    with open(job_path, encoding="utf-8") as fh:
        job = json.load(fh)
    with open(job["model"], "rb") as fh:
        clf = pickle.load(fh)
    quiet = io.StringIO()
    with contextlib.redirect_stdout(quiet):
        _, models = Learning.ModelIO.import_models(clf, instances_type="tabular")
    model = models[0] if isinstance(models, list) else models
    model.learner_information.feature_names = list(job["feature_names"]) + ["p"]
    results = []
    for x in job["instances"]:
        x = np.asarray(x, dtype=np.float64)
        with contextlib.redirect_stdout(quiet):
            start = time.process_time()
            explainer = Explaining.initialize(model, instance=x)
            setup = time.process_time() - start
            start = time.process_time()
            one = explainer.sufficient_reason(n=1)
            one_s = time.process_time() - start
            start = time.process_time()
            axps = _reasons(explainer.sufficient_reason(n=Explaining.ALL))
            axps_s = time.process_time() - start
            start = time.process_time()
            cxps = _reasons(explainer.contrastive_reason(n=Explaining.ALL))
            cxps_s = time.process_time() - start
        one_reasons = _reasons(one)
        prediction = explainer.target_prediction
        results.append(
            {
                "prediction": prediction.item() if hasattr(prediction, "item") else prediction,
                "setup_s": setup,
                "one_axp_s": one_s,
                "all_axps_s": axps_s,
                "all_cxps_s": cxps_s,
                "one_axp": _names(explainer, one_reasons[0], False) if one_reasons else None,
                "axps": [_names(explainer, r, False) for r in axps],
                "cxps": [_names(explainer, r, True) for r in cxps],
                "n_axp_reasons": len(axps),
                "n_cxp_reasons": len(cxps),
                "axp_literals": [list(r) for r in axps],
                "cxp_literals": [list(r) for r in cxps],
            }
        )
    with open(out_path, "w", encoding="utf-8") as fh:
        json.dump({"results": results}, fh)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
