"""XReason's side of ``xpg bench xreason``: runs in XReason's own environment (never xpg's).

Usage: ``python runner.py --serve``: JSON requests on standard input, one per line, answered
one per line (``bench/runners/serve.py``), so that xpg and XReason take turns on each
instance while one XReason process serves a whole dataset.

What it does is what ``xreason.py OPTIONS -x VALUES MODEL.pkl`` does (its ``__main__``), cut
at the instance: ``load`` reads the pickle and encodes the model once (``XGBooster``,
``encode``); ``explain`` builds a fresh ``MXExplainer`` for the instance (its MaxSAT
oracles, as a new process would have them; not timed, as in XReason, whose ``rtime`` starts
inside ``MXExplainer.explain``), then calls ``XGBooster.explain``, whose ``-v`` text it
returns with ``rtime`` unrounded (``MXExplainer.time``: user CPU time of the process and its
children, XReason's own clock) and the wall time of the call.

Requests:

* ``{"op": "load", "src": XREASON_SRC, "model": PKL, "options": [argv]}``: answer
  ``{"features": [names], "classes": [labels], "load_s": wall seconds}``.
* ``{"op": "explain", "x": [floats]}``: answer ``{"text": its -v output, "rtime": s,
  "wall": s, "setup_s": s, "axp": [column indices], "prediction": label}``.
"""

import contextlib
import io
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "runners"))
from serve import serve, take_stdout  # noqa: E402  (bench/runners/serve.py)

CHANNEL = take_stdout()
STATE: dict = {}


def load(request):
    """Read and encode one model, as ``xreason.py`` does before explaining."""
    if request["src"] not in sys.path:
        sys.path.insert(0, request["src"])
    from options import Options
    from xgbooster import XGBooster

    options = Options(["xreason.py", *request["options"], request["model"]])
    start = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        xgb = XGBooster(options, from_model=options.files[0])
        xgb.encode()
    STATE["xgb"] = xgb
    return {
        "features": [str(f) for f in xgb.feature_names],
        "classes": [str(c) for c in xgb.target_name],
        "load_s": time.perf_counter() - start,
    }


def explain(request):
    """One AXp of one instance with a fresh explainer; its text, times and features."""
    from xgbooster.explain import MXExplainer

    xgb = STATE["xgb"]
    old = getattr(xgb, "x", None)
    if old is not None:
        old.delete()
        del xgb.x
    start = time.perf_counter()
    xgb.x = MXExplainer(
        xgb.enc,
        xgb.intvs,
        xgb.imaps,
        xgb.ivars,
        xgb.feature_names,
        xgb.num_class,
        xgb.options,
        xgb,
    )
    setup = time.perf_counter() - start
    sample = [float(v) for v in request["x"]]
    text = io.StringIO()
    with contextlib.redirect_stdout(text):
        start = time.perf_counter()
        expls = xgb.explain(sample)
        wall = time.perf_counter() - start
    x = xgb.x
    # XReason's own mapping (MXExplainer.explain, -v): categories -> literals -> columns
    hyps = [h for c in expls[0] for h in x.hypos[x.fcats[c][0] : x.fcats[c][1] + 1]]
    return {
        "text": text.getvalue(),
        "rtime": x.time,
        "wall": wall,
        "setup_s": setup,
        "axp": sorted({int(x.v2feat[h]) for h in hyps}),
        "prediction": str(xgb.target_name[x.out_id]),
    }


if __name__ == "__main__":
    if sys.argv[1:] != ["--serve"]:
        sys.exit("usage: runner.py --serve")
    serve({"load": load, "explain": explain}, channel=CHANNEL)
