"""``bench.ensembles``: its parts checked against independent computations, and ``--quick``.

The offline run is xpg alone (``--no-peer``); the run against PyXAI is marked ``peers``
(``pytest -m peers`` creates PyXAI's environment, ``bench/.venvs/pyxai``, about 1.8 GB from
PyPI, when it is missing).
"""

from __future__ import annotations

import csv
import itertools
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import REPO_ROOT, shared_path
from sklearn.ensemble import RandomForestClassifier

from xpg.core.features import Feature
from xpg.explain.engine import Explainer
from xpg.models.ensemble_import import ensemble_from_sklearn

sys.path.insert(0, str(REPO_ROOT))  # bench/ is a folder of the checkout, not a package
from bench import ensembles  # noqa: E402


def small_forest(seed: int, n_classes: int = 2) -> tuple[Any, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, size=(120, 4)).astype(np.float64)
    y = (X[:, 0] + X[:, 1] * (X[:, 2] > 1) + rng.integers(0, 2, 120)) % n_classes
    clf = RandomForestClassifier(n_estimators=7, max_depth=3, random_state=seed).fit(X, y)
    return clf, X


@pytest.mark.parametrize("seed", range(6))
def test_hard_vote_is_the_majority_of_the_trees_predictions(seed: int) -> None:
    clf, X = small_forest(seed, n_classes=3)
    # independently: each fitted tree's own predict (a class index), counted row by row
    per_tree = np.stack([est.predict(X.astype(np.float32)) for est in clf.estimators_]).astype(int)
    expected = [int(np.argmax(np.bincount(col, minlength=3))) for col in per_tree.T]
    assert ensembles.hard_vote(clf, X).tolist() == expected


def test_hard_and_soft_voting_can_disagree() -> None:
    """The reason PyXAI's class is compared with scikit-learn's before each comparison."""
    found = 0
    for seed in range(20):
        clf, X = small_forest(seed)
        soft = np.searchsorted(clf.classes_, clf.predict(X))
        found += int((ensembles.hard_vote(clf, X) != soft).sum())
    assert found > 0


@pytest.mark.parametrize("seed", range(4))
def test_feature_sets_are_classified_as_the_complete_enumeration_says(seed: int) -> None:
    clf, X = small_forest(seed)
    model = ensemble_from_sklearn(clf, [Feature.real(f"f{i}") for i in range(4)])
    names = [f.name for f in model.features]
    for x in X[:5].tolist():
        with Explainer(model).explain(x) as ex:
            result = ex.enumerate()
            assert result.complete
            axps = {frozenset(a) for a in result.axps}
            cxps = {frozenset(c) for c in result.cxps}
            for r in range(len(names) + 1):
                for s in map(frozenset, itertools.combinations(names, r)):
                    for kind, exact in (("axp", axps), ("cxp", cxps)):
                        want = (
                            "exact"
                            if s in exact
                            else "nonminimal"
                            if any(e < s for e in exact)
                            else "invalid"
                        )
                        assert ensembles.classify_seed(ex, sorted(s), kind) == want, (x, s, kind)


class FakePeer:
    """A peer whose measurements are scripted; logs the turns."""

    def __init__(self, log: list[str], seconds: float) -> None:
        self.log, self.seconds = log, seconds

    def measure(self, task: str) -> float:
        self.log.append(f"peer-{task}")
        return self.seconds


def test_time_instance_interleaves_only_the_peers_tasks() -> None:
    log: list[str] = []
    calls = {"one": lambda: log.append("ours-one") or ("a",), "cxp": lambda: ("b",)}
    peer_out = {"tasks": ["one"]}
    t = ensembles.time_instance(calls, FakePeer(log, 0.5), peer_out, index=1, rounds=3)
    assert t.mine == {"one": ("a",), "cxp": ("b",)}
    assert set(t.theirs) == {"one"} and t.theirs["one"] == 0.5
    assert log.count("peer-one") == 3 and "peer-cxp" not in log
    # without a peer (PyXAI disagrees with scikit-learn on the class), xpg alone
    t = ensembles.time_instance(calls, None, peer_out, index=0, rounds=2)
    assert t.theirs == {} and set(t.ours) == {"one", "cxp"}


def check_rows(path: Path, with_peer: bool) -> list[dict[str, str]]:
    with (path / "ensembles.csv").open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert [(r["dataset"], r["model"]) for r in rows] == [
        ("iris", "rf10-d3"),
        ("iris", "gb50-d3"),
    ]
    for r in rows:
        assert r["instances"] == "2" and float(r["ours_one_axp_ms"]) > 0
        assert r["route"] == "sat-pb"
        assert int(r["verified"]) >= 2 and r["verified_ok"] == r["verified"]
        assert r["complete"] == "2/2"
    rf = rows[0]
    assert int(rf["hard_soft_disagree"]) >= 0 and int(rf["test_rows"]) > 0
    if with_peer:
        assert rf["pyxai_predict_mismatch"] == "0"  # PyXAI's hard vote is ours
        compared = int(rf["compared"].split("/")[0])
        assert int(rf["sr_reasons"]) == compared
        assert int(rf["sr_exact"]) + int(rf["sr_nonminimal"]) + int(rf["sr_invalid"]) <= compared
        if compared:
            assert float(rf["one_axp_speedup_min"]) > 0
    else:
        assert rf["compared"] == "" and rf["pyxai_one_sr_ms"] == ""
    return rows


@pytest.mark.parametrize(
    "with_peer", [False, pytest.param(True, marks=pytest.mark.peers)], ids=["ours", "peers"]
)
@pytest.mark.slow
def test_ensembles_quick(tmp_path: Path, with_peer: bool) -> None:
    argv = ["--quick", "--no-progress", "--datasets", "iris", "--models", "rf10-d3,gb50-d3"]
    argv += ["--instances", "2", "--data-dir", str(shared_path("datasets")), "--out", str(tmp_path)]
    argv += ["--verify", "4", "--pyxai-time-limit", "5"]
    if not with_peer:
        argv.append("--no-peer")
    assert ensembles.main(argv) == 0
    check_rows(tmp_path, with_peer)
    md = (tmp_path / "ensembles.md").read_text(encoding="utf-8")
    assert "| iris | rf10-d3 |" in md and "Target (rf100-d6" in md
    with (tmp_path / "ensembles_instances.csv").open(newline="", encoding="utf-8") as fh:
        assert len(list(csv.DictReader(fh))) == 4


def test_unknown_model_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        ensembles.main(["--models", "nope", "--no-peer"])
    assert exit_.value.code == 2
    assert "--models: unknown nope; expected some of rf10-d3" in capsys.readouterr().err
