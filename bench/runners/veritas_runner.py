"""Runner for Veritas (``dtai-veritas``), started inside ``bench/.venvs/veritas``.

Usage: ``python veritas_runner.py JOB.json OUT.json``.  The job lists trees and box queries:

* ``"trees"``: each ``{"nodes": [...]}``, node 0 the root; an internal node is
  ``{"feature": i, "threshold": t, "left": k, "right": m}`` (Veritas's split ``x_i < t`` goes
  left), a leaf ``{"value": v}``;
* ``"queries"``: each ``{"tree": i, "box": [[lo, hi], ...]}``, a closed box per feature.

For each query the answer holds the largest and the smallest output of the tree on the box,
found by Veritas's own search (``Config(HeuristicType.MAX_OUTPUT)`` on the tree pruned to the
box, and on the tree with negated leaves), run until it proves its bound optimal:
``{"max": float, "min": float, "optimal": bool}``.  Veritas's intervals are half-open
(``[lo, hi)``), so the closed box ends at ``nextafter(hi, inf)``.

References
----------
Devos, Meert, Davis. Versatile Verification of Tree Ensembles. ICML 2021 (Veritas).
"""

import json
import sys

import numpy as np
from veritas import AddTree, AddTreeType, Config, HeuristicType, Interval


def build(spec):
    at = AddTree(1, AddTreeType.REGR)
    tree = at.add_tree()
    stack = [(0, tree.root())]
    while stack:
        k, node = stack.pop()
        item = spec["nodes"][k]
        if "value" in item:
            tree.set_leaf_value(node, 0, float(item["value"]))
            continue
        tree.split(node, int(item["feature"]), float(item["threshold"]))
        stack.append((item["left"], tree.left(node)))
        stack.append((item["right"], tree.right(node)))
    return at


def best_output(at, box):
    search = Config(HeuristicType.MAX_OUTPUT).get_search(at.prune(box))
    while search.num_solutions() == 0 or not search.is_optimal():
        search.step_for(1.0, 100)
        if search.num_open() == 0 and search.num_solutions() > 0:
            break
    return float(search.get_solution(0).output), bool(search.is_optimal())


def main(job_path, out_path):
    with open(job_path, encoding="utf-8") as fh:
        job = json.load(fh)
    trees = [build(spec) for spec in job["trees"]]
    answers = []
    for q in job["queries"]:
        at = trees[q["tree"]]
        box = [Interval(float(lo), float(np.nextafter(hi, np.inf))) for lo, hi in q["box"]]
        top, opt1 = best_output(at, box)
        low, opt2 = best_output(at.negate_leaf_values(), box)
        answers.append({"max": top, "min": -low, "optimal": opt1 and opt2})
    with open(out_path, "w", encoding="utf-8") as fh:
        json.dump({"answers": answers}, fh)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: python veritas_runner.py JOB.json OUT.json")
    main(sys.argv[1], sys.argv[2])
