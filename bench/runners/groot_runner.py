"""Runner for GROOT's exact tree attack (``groot-trees``), started inside ``bench/.venvs/groot``.

Usage: ``python groot_runner.py JOB.json OUT.json``.  The job holds fitted scikit-learn
``DecisionTreeClassifier`` objects, pickled and base64-encoded (``"trees"``; the environment
has the same scikit-learn), and queries ``{"tree": i, "x": [floats], "label": 0 | 1}``.  For each
query the answer is GROOT's optimal l-infinity attack distance
(``DecisionTreeAdversary(tree, "sklearn", ...).average_attack_distance`` on that one sample):
the distance from ``x`` to the nearest leaf box whose rounded prediction is not ``label``.
Answer: ``{"distances": [float | null]}`` (``null`` for no such leaf).

References
----------
Vos, Verwer. Efficient Training of Robust Decision Trees Against Adversarial Examples.
ICML 2021 (GROOT; ``groot.adversary.DecisionTreeAdversary``).
"""

import base64
import json
import math
import pickle
import sys

import numpy as np
from groot.adversary import DecisionTreeAdversary


def main(job_path, out_path):
    with open(job_path, encoding="utf-8") as fh:
        job = json.load(fh)
    trees = [pickle.loads(base64.b64decode(t)) for t in job["trees"]]
    adversaries = [
        DecisionTreeAdversary(
            t,
            "sklearn",
            attack_model=[0.0] * t.n_features_in_,
            is_numeric=[True] * t.n_features_in_,
        )
        for t in trees
    ]
    distances = []
    for q in job["queries"]:
        d = adversaries[q["tree"]].average_attack_distance(
            np.array([q["x"]], dtype=float), np.array([q["label"]]), order=np.inf
        )
        distances.append(None if math.isinf(d) else float(d))
    with open(out_path, "w", encoding="utf-8") as fh:
        json.dump({"distances": distances}, fh)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: python groot_runner.py JOB.json OUT.json")
    main(sys.argv[1], sys.argv[2])
