"""The probabilistic benchmarks run through ``xpg bench`` (imported as bench.probabilistic.*)."""

from __future__ import annotations

import csv
import importlib
from pathlib import Path

import pytest
from conftest import REPO_ROOT

pytestmark = pytest.mark.slow


@pytest.fixture
def bench_cli(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    monkeypatch.syspath_prepend(str(REPO_ROOT))
    return importlib.import_module("bench.cli")


def test_parity_benchmark_through_the_cli(bench_cli, tmp_path: Path) -> None:
    argv = ["--repetitions", "1", "--methods", "certificate", "--out", str(tmp_path)]
    assert bench_cli.run("probabilistic-parity", argv) == 0
    with open(tmp_path / "parity_summary.csv") as handle:
        rows = list(csv.DictReader(handle))
    assert [r["method"] for r in rows] == ["certificate"]


def test_sweep_quick_through_the_cli(bench_cli, tmp_path: Path) -> None:
    """``xpg bench probabilistic-sweep --quick``: both sweeps, every method, the plots; Anchors
    (no sample-size parameter) has one value along m; m = 1000 and k = 5 are the same run."""
    argv = ["--quick", "--instances", "1", "--out", str(tmp_path)]
    assert bench_cli.run("probabilistic-sweep", argv) == 0
    with open(tmp_path / "sweep.csv") as handle:
        rows = list(csv.DictReader(handle))
    keys = {(r["sweep"], int(r["value"]), r["method"]) for r in rows}
    methods = {"cop", "sat", "anchors"}
    assert keys == {
        (s, v, m) for s, v in [("m", 100), ("m", 1000), ("k", 1), ("k", 5)] for m in methods
    }
    for r in rows:
        assert 0.0 <= float(r["precision_error"]) <= 1.0
        assert int(r["size"]) <= (int(r["value"]) if r["sweep"] == "k" else 5)
    by = {(r["instance"], r["sweep"], int(r["value"]), r["method"]): r for r in rows}
    for (n, sweep, value, method), r in by.items():
        if method == "anchors" and sweep == "m":
            assert r["precision_error"] == by[(n, "k", 5, "anchors")]["precision_error"]
        if sweep == "m" and value == 1000:
            assert r["precision_error"] == by[(n, "k", 5, method)]["precision_error"]
    with open(tmp_path / "sweep_summary.csv") as handle:
        summary = list(csv.DictReader(handle))
    paper = {(r["sweep"], r["value"], r["method"]): r["paper (Table 2)"] for r in summary}
    assert paper[("k", "5", "cop")] == "0.09" and paper[("k", "1", "cop")] == "-"
    for name in ("figure1_m.png", "figure2_k.png"):
        assert (tmp_path / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_table2_compares_cop_with_both_anchors_setups(bench_cli, tmp_path: Path) -> None:
    argv = ["--datasets", "iris", "--instances", "2", "--deterministic-time", "2"]
    assert bench_cli.run("probabilistic", [*argv, "--out", str(tmp_path)]) == 0
    with open(tmp_path / "table2.csv") as handle:
        rows = list(csv.DictReader(handle))
    assert [r["method"] for r in rows] == ["cop", "sat", "anchors", "anchors-uniform"] * 2
    for r in rows:
        assert int(r["size"]) <= 5 and 0.0 <= float(r["precision_error"]) <= 1.0
        if r["method"] == "cop":
            assert float(r["deterministic_seconds"]) <= 2.0 + 0.5
    with open(tmp_path / "table2_summary.csv") as handle:
        (summary,) = list(csv.DictReader(handle))
    errors = {
        m: [float(r["precision_error"]) for r in rows if r["method"] == m]
        for m in ("cop", "anchors", "anchors-uniform")
    }
    for other in ("anchors", "anchors-uniform"):
        counts = summary[f"cop vs {other} w/t/l"].split()[0].split("/")
        wins = sum(a < b for a, b in zip(errors["cop"], errors[other], strict=True))
        losses = sum(a > b for a, b in zip(errors["cop"], errors[other], strict=True))
        assert [int(c) for c in counts] == [wins, 2 - wins - losses, losses]
    assert summary["paper anchors"] == "0.41 (0.27)"


def test_anchors_query_budget_leaves_the_instance_out(bench_cli, tmp_path: Path) -> None:
    """An Anchors search stopped by its query budget gives an empty row, and the instance is
    left out of every method's summary (counted in ``budget exceeded``)."""
    argv = ["--datasets", "iris", "--instances", "2", "--deterministic-time", "1"]
    argv += ["--methods", "cop", "anchors", "--anchors-queries", "50", "--out", str(tmp_path)]
    assert bench_cli.run("probabilistic", argv) == 0
    with open(tmp_path / "table2.csv") as handle:
        rows = list(csv.DictReader(handle))
    assert [r["method"] for r in rows] == ["cop", "anchors"] * 2
    for r in rows:
        if r["method"] == "anchors":
            assert r["features"] == "budget exceeded" and r["precision_error"] == ""
        else:
            assert 0.0 <= float(r["precision_error"]) <= 1.0
    with open(tmp_path / "table2_summary.csv") as handle:
        (summary,) = list(csv.DictReader(handle))
    assert summary["n"] == "0" and summary["budget exceeded"] == "2"
    assert summary["cop err"] == "-" and summary["cop vs anchors w/t/l"] == "-"


def test_merge_combines_per_dataset_runs(bench_cli, tmp_path: Path) -> None:
    """Runs made one dataset at a time combine in the paper's dataset order; a dataset run
    twice is refused."""
    merge = importlib.import_module("bench.probabilistic.merge_table2")
    common = importlib.import_module("bench.probabilistic.common")
    for name in ("tae", "iris"):
        argv = ["--datasets", name, "--instances", "2", "--deterministic-time", "1"]
        argv += ["--methods", "cop", "sat", "--out", str(tmp_path / name)]
        assert bench_cli.run("probabilistic", argv) == 0
    merge.main([str(tmp_path / "tae"), str(tmp_path / "iris"), "--out", str(tmp_path / "all")])
    with open(tmp_path / "all" / "table2_summary.csv") as handle:
        summary = list(csv.DictReader(handle))
    order = list(common.DATASETS)
    assert [s["dataset"] for s in summary] == sorted(["tae", "iris"], key=order.index)
    merged = (tmp_path / "all" / "table2.csv").read_text().splitlines()
    parts = {n: (tmp_path / n / "table2.csv").read_text().splitlines() for n in ("tae", "iris")}
    first, second = sorted(parts, key=order.index)
    assert merged == parts[first] + parts[second][1:]
    text = (tmp_path / "all" / "table2.md").read_text()
    assert text.count("\n| iris | 12 |") == 1 and "- tae: against the paper's Anchors" in text
    with pytest.raises(SystemExit):
        merge.main([str(tmp_path / "iris"), str(tmp_path / "iris"), "--out", str(tmp_path)])


def test_cop_loss_scores_every_body_as_brute_force(monkeypatch: pytest.MonkeyPatch) -> None:
    """``cop_loss.score_bodies`` against the rule objectives of ``optimal_rule`` (an
    independent count) on random samples; Cop's optimum is the least loss it finds."""
    import numpy as np

    from xpg.probabilistic.optimal_rule import rule_objective, solve_rule

    monkeypatch.syspath_prepend(str(REPO_ROOT))
    cop_loss = importlib.import_module("bench.probabilistic.cop_loss")
    rng = np.random.default_rng(7)
    for m, d, k in [(37, 5, 3), (64, 6, 2), (101, 4, 4)]:
        agree = rng.random((m, d)) < 0.6
        same = rng.random(m) < 0.5
        scores = cop_loss.score_bodies(agree, same, k, chunk=5)
        for i, body in enumerate(scores.bodies):
            cop = rule_objective(agree, same, body, "cop")
            sat = rule_objective(agree, same, body, "sat")
            fires = int(agree[:, list(body)].all(axis=1).sum())
            assert round(scores.loss[i] * m) == cop
            assert abs(scores.error[i] - (sat / fires if fires else 0.0)) < 1e-12
        best = solve_rule(agree, same, k, encoding="cop", solver="rc2")
        assert best.objective == round(min(scores.loss) * m)


def test_shards_merge_into_the_whole_run(bench_cli, tmp_path: Path) -> None:
    """``--shard K/N`` runs every N-th instance with the whole run's seeds, and the merge
    recomputes the dataset's summary from all shards: the same answers as one run."""
    merge = importlib.import_module("bench.probabilistic.merge_table2")
    argv = ["--datasets", "iris", "--instances", "3", "--deterministic-time", "1"]
    argv += ["--methods", "cop", "sat"]
    assert bench_cli.run("probabilistic", [*argv, "--out", str(tmp_path / "whole")]) == 0
    for k in (0, 1):
        out = str(tmp_path / f"shard{k}")
        assert bench_cli.run("probabilistic", [*argv, "--shard", f"{k}/2", "--out", out]) == 0
    merge.main([str(tmp_path / "shard0"), str(tmp_path / "shard1"), "--out", str(tmp_path / "m")])

    def read(folder: str, name: str) -> list[dict[str, str]]:
        with open(tmp_path / folder / name) as handle:
            return [
                {k: v for k, v in r.items() if "s(med)" not in k and k != "seconds"}
                for r in csv.DictReader(handle)
            ]

    assert len(read("shard0", "table2.csv")) == 4 and len(read("shard1", "table2.csv")) == 2
    whole, merged = read("whole", "table2.csv"), read("m", "table2.csv")
    key = lambda r: (r["instance"], r["method"])  # noqa: E731
    assert sorted(merged, key=key) == sorted(whole, key=key)
    assert read("m", "table2_summary.csv") == read("whole", "table2_summary.csv")
    with pytest.raises(SystemExit):
        merge.main([str(tmp_path / "whole"), str(tmp_path / "shard0"), "--out", str(tmp_path)])
