"""``bench.xreason``: the parsers of XReason's text and of the paper's logs, the xpg side
and the checks on tiny hand-made boosted models, and the whole bench against XReason.

The run against XReason is marked ``peers`` (``pytest -m peers`` creates its environment,
``bench/.venvs/xreason``, from PyPI when it is missing); the rest is offline.
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

import xpg
from xpg.core.features import Feature
from xpg.models.ensemble import BoostedTrees
from xpg.models.ensemble_tree import EnsembleTree

sys.path.insert(0, str(REPO_ROOT))  # bench/ is a folder of the checkout, not a package
from bench.xreason import compare  # noqa: E402
from bench.xreason.parse import (  # noqa: E402
    XReasonOutputError,
    feature_indices,
    parse_log,
    parse_verbose,
)

#: XReason's own -v output for the first zoo instance (xreason.py, commit 8240f35)
ZOO_TEXT = """\
  explaining:  "IF hair == 0.0 AND feathers == 0.0 AND eggs == 1.0 AND milk == 0.0 AND \
airborne == 0.0 AND aquatic == 1.0 AND predator == 1.0 AND toothed == 0.0 AND backbone == 0.0 \
AND breathes == 0.0 AND venomous == 0.0 AND fins == 0.0 AND legs == 6.0 AND tail == 0.0 AND \
domestic == 0.0 AND catsize == 0.0 THEN 4"
  explanation: "IF feathers == 0.0 AND milk == 0.0 AND predator == 1.0 AND backbone == 0.0 THEN 4"
  # hypos left: 4
  calls: 7
  rtime: 0.01
"""


def test_verbose_output_gives_the_axp_its_class_calls_and_rtime() -> None:
    answer = parse_verbose(ZOO_TEXT)
    assert answer.features == ("feathers", "milk", "predator", "backbone")
    assert answer.values == (0.0, 0.0, 1.0, 0.0)
    assert (answer.label, answer.calls, answer.rtime) == ("4", 7, 0.01)


def test_verbose_output_with_an_empty_explanation_and_a_categorical_value() -> None:
    empty = parse_verbose('  explanation: "IF  THEN 1"\n  calls: 1\n  rtime: 0.00\n')
    assert (empty.features, empty.label) == ((), "1")
    cat = parse_verbose('  explanation: "IF colour=red AND x == 2.5 THEN 0"\ncalls: 3\nrtime: 1.5')
    assert cat.features == ("colour=red", "x") and cat.values == (None, 2.5)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("calls: 7\nrtime: 0.01\n", "found 0"),
        (ZOO_TEXT + ZOO_TEXT, "found 2"),
        (ZOO_TEXT.replace("  rtime: 0.01\n", ""), "'rtime: NUMBER'"),
        (ZOO_TEXT.replace("calls: 7", "calls: many"), "expected numbers"),
    ],
)
def test_verbose_output_not_in_form_is_refused(text: str, expected: str) -> None:
    with pytest.raises(XReasonOutputError, match=expected):
        parse_verbose(text)


def test_feature_names_map_to_columns_by_name_or_f_index() -> None:
    header = ["hair", "feathers", "eggs", "milk"]
    assert feature_indices(["milk", "f0", "feathers"], header) == [3, 0, 1]
    with pytest.raises(XReasonOutputError, match="'f4'"):
        feature_indices(["f4"], header)
    with pytest.raises(XReasonOutputError, match="'wings'"):
        feature_indices(["wings"], header)


def test_the_papers_zoo_log_is_read_block_by_block_in_the_instances_order() -> None:
    folder = shared_path("benchmarks", "xreason-aaai22")
    entries = parse_log((folder / "xreason-logs" / "mx" / "zoo.log").read_text())
    _, rows = compare.read_instances(folder / "instances" / "zoo.csv")
    assert len(entries) == len(rows) == 59  # the README's table: 59 instances
    assert all(list(e.instance) == r for e, r in zip(entries, rows, strict=True))
    assert (entries[0].size, entries[0].seconds, entries[0].calls) == (4, 0.015, 7)
    # the README's figures: mean 0.02 s, max 0.1 s, mean AXp size 4.1
    assert round(float(np.mean([e.seconds for e in entries])), 2) == 0.02
    assert round(float(np.mean([e.size for e in entries])), 1) == 4.1


def test_a_log_block_without_its_lines_is_refused_with_its_line() -> None:
    with pytest.raises(XReasonOutputError, match=r"x.log, block at line 6: .* no 'c'"):
        parse_log("i: 1\ns: 1\nt: 0.1\nc: 2\n\ni: 2\ns: 1\nt: 0.1\n", "x.log")
    with pytest.raises(XReasonOutputError, match="line 2: expected 'i:'"):
        parse_log("i: 1\nzzz\n", "x.log")


# -- the xpg side, on tiny boosted models checked by brute force ---------------------------


def stump(
    feature: int, threshold: float, low: float, high: float, n_scores: int, column: int
) -> EnsembleTree:
    value = np.zeros((3, n_scores))
    value[1, column], value[2, column] = low, high
    return EnsembleTree(
        np.array([feature, -1, -1]),
        np.array([threshold, 0, 0]),
        np.array([1, -1, -1]),
        np.array([2, -1, -1]),
        value,
    )


def tiny_model(seed: int, n_classes: int = 2) -> BoostedTrees:
    """Random stumps over 3 features with thresholds in {0.5, 1.5}: 3 cells per feature."""
    rng = np.random.default_rng(seed)
    n_scores = 1 if n_classes == 2 else n_classes
    trees = [
        stump(
            int(rng.integers(3)),
            float(rng.choice([0.5, 1.5])),
            float(rng.normal()),
            float(rng.normal()),
            n_scores,
            t % n_scores,
        )
        for t in range(6 * n_scores)
    ]
    features = [Feature.real(f"f{i}") for i in range(3)]
    return BoostedTrees(features, list(range(n_classes)), trees, [0.0] * n_scores, 1.0)


def brute_is_axp(model: BoostedTrees, row: list[float], features: set[int]) -> bool:
    """Sufficient and subset-minimal, by every cell of the free features (0, 1, 2)."""

    def sufficient(fixed: set[int]) -> bool:
        target = model.predict(row)
        free = [i for i in range(3) if i not in fixed]
        for values in itertools.product([0.0, 1.0, 2.0], repeat=len(free)):
            x = list(row)
            for i, v in zip(free, values, strict=True):
                x[i] = v
            if model.predict(x) != target:
                return False
        return True

    return sufficient(features) and all(not sufficient(features - {i}) for i in features)


#: seeds whose AXps have 1, 2 and 3 features (others give constant models)
SEEDS = [(0, 2), (2, 2), (4, 2), (0, 3), (1, 3), (3, 3)]


@pytest.mark.parametrize(("seed", "n_classes"), SEEDS)
def test_xpg_side_gives_an_axp_and_the_oracle_check_agrees_with_brute_force(
    seed: int, n_classes: int
) -> None:
    model = tiny_model(seed, n_classes)
    explainer = xpg.Explainer(model)
    for row in itertools.product([0.0, 1.0, 2.0], repeat=3):
        axp, prediction, cpu, wall = compare.xpg_axp(explainer, list(row))
        assert prediction == model.predict(list(row)) and cpu >= 0 and wall >= 0
        cols = {int(name[1:]) for name in axp}
        assert brute_is_axp(model, list(row), cols)
        for subset in itertools.chain.from_iterable(
            itertools.combinations(range(3), k) for k in range(4)
        ):
            got = compare.check_axp(explainer, list(row), [f"f{i}" for i in subset])
            assert got.ok == brute_is_axp(model, list(row), set(subset)), (row, subset)


def test_summary_figures_are_those_of_the_records() -> None:
    records: list[dict[str, Any]] = [
        {
            "xpg_cpu_s": t,
            "xpg_wall_s": t,
            "xreason_rtime_s": 10 * t,
            "xreason_wall_s": t,
            "xpg_size": 2,
            "xreason_size": 3,
            "xpg_sufficient": True,
            "xpg_minimal": True,
            "xreason_sufficient": True,
            "xreason_minimal": t != 0.4,
            "prediction": 1,
            "xreason_prediction": "1",
        }
        for t in (0.1, 0.2, 0.3, 0.4)
    ]
    records[0]["xreason_prediction"] = "0"
    s = compare.summarize("d", records, [])
    assert s["xpg_median_s"] == pytest.approx(0.25) and s["xpg_max_s"] == 0.4
    assert s["xpg_p90_s"] == pytest.approx(0.37)
    assert s["median_ratio"] == pytest.approx(10) and s["max_ratio"] == pytest.approx(10)
    assert (s["xpg_checked"], s["xpg_wrong"], s["xreason_checked"], s["xreason_wrong"]) == (
        4,
        0,
        4,
        1,
    )
    assert s["prediction_mismatch"] == 1 and s["paper_mean_s"] == ""


class FakeSession:
    """XReason's runner, answering from a table: instance -> (column indices, class)."""

    def __init__(self, answers: dict[tuple[float, ...], tuple[list[int], str]]) -> None:
        self.answers = answers
        self.requests: list[str] = []
        self.rtimes = iter([0.05])  # XReason's times, in the order of the requests

    def request(self, op: str, wait: float | None = None, **fields: Any) -> dict[str, Any]:
        self.requests.append(op)
        if op == "load":
            return {"features": ["a", "b", "c"], "classes": ["0", "1"], "load_s": 0.0}
        cols, label = self.answers[tuple(fields["x"])]
        body = " AND ".join(f"{'abc'[j]} == {fields['x'][j]}" for j in cols)
        rtime = next(self.rtimes, 0.05)
        text = f'  explanation: "IF {body} THEN {label}"\n  calls: 2\n  rtime: {rtime}\n'
        return {"text": text, "rtime": rtime, "wall": 0.06, "axp": cols, "prediction": label}


def bench_folder(tmp_path: Path, rows: list[list[float]]) -> Path:
    folder = tmp_path / "bench"
    for sub in ("models", "instances", "xreason-models", "xreason-logs/mx"):
        (folder / sub).mkdir(parents=True)
    (folder / "models" / "tiny.json").write_text("{}")
    (folder / "xreason-models" / "tiny_nbestim_6_maxdepth_1_testsplit_0.2.mod.pkl").write_bytes(b"")
    with open(folder / "instances" / "tiny.csv", "w", newline="") as fh:
        csv.writer(fh).writerows([["a", "b", "c"], *rows])
    log = "".join(f"i: {','.join(map(str, r))}\ns: 1\nt: 0.5\nc: 3\n\n" for r in rows)
    (folder / "xreason-logs" / "mx" / "tiny.log").write_text(log + "max time: 0.5\n")
    return folder


def test_run_dataset_checks_both_sides_and_reports_wrong_xreason_answers(tmp_path: Path) -> None:
    model = tiny_model(4)
    rows = [list(r) for r in itertools.product([0.0, 1.0, 2.0], repeat=3)][:8]
    explainer = xpg.Explainer(model)
    answers = {}
    for row in rows:
        with explainer.explain(row) as d:
            answers[tuple(row)] = (sorted(int(n[1:]) for n in d.axp()), str(d.prediction))
    sizes = [len(answers[tuple(r)][0]) for r in rows]
    # XReason made wrong on purpose: a superset of a smaller AXp, and an AXp minus a feature
    big = next(k for k in range(1, 6) if 0 < sizes[k] < 3)
    cut = next(k for k in range(1, 6) if k != big and sizes[k] > 0)
    answers[tuple(rows[big])] = ([0, 1, 2], answers[tuple(rows[big])][1])
    answers[tuple(rows[cut])] = (answers[tuple(rows[cut])][0][1:], answers[tuple(rows[cut])][1])
    folder = bench_folder(tmp_path, rows)
    files = compare.BenchFiles.find(folder, "tiny")
    opts = compare.Options(
        folder,
        tmp_path,
        tmp_path / "out",
        instances=6,
        verify=0,
        commands=0,
        show_progress=False,
        import_model=lambda path: model,
    )
    session = FakeSession(answers)
    records = compare.run_dataset(files, session, opts)  # type: ignore[arg-type]
    assert session.requests == ["load"] + ["explain"] * 6
    assert [r["first"] for r in records] == ["xreason", "xpg"] * 3
    assert all(r["xpg_sufficient"] and r["xpg_minimal"] and not r["error"] for r in records)
    assert all(r["paper_s"] == 0.5 for r in records)
    assert (opts.out / "xreason-models" / "tiny.json").is_file()  # for xpg verify / xpg axp
    assert (records[big]["xreason_sufficient"], records[big]["xreason_minimal"]) == (True, False)
    assert records[cut]["xreason_sufficient"] is False
    right = [r for k, r in enumerate(records) if k not in (big, cut)]
    assert all(r["xreason_sufficient"] and r["xreason_minimal"] for r in right)
    s = compare.summarize("tiny", records, [])
    assert (s["xreason_checked"], s["xreason_wrong"], s["xpg_wrong"]) == (6, 2, 0)
    md = compare.markdown([s], records, "xpg bench xreason --instances 6")
    assert f"tiny, instance {big}: xreason's AXp {{f0 f1 f2}} is not subset-minimal" in md
    assert f"tiny, instance {cut}: xreason's AXp" in md and "is not sufficient" in md


def test_repeat_keeps_each_sides_best_time_and_alternates_the_turns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = tiny_model(4)
    rows = [[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]]
    answers = {}
    for row in rows:
        with xpg.Explainer(model).explain(row) as d:
            answers[tuple(row)] = (sorted(int(n[1:]) for n in d.axp()), str(d.prediction))
    folder = bench_folder(tmp_path, rows)
    opts = compare.Options(
        folder,
        tmp_path,
        tmp_path / "out",
        instances=2,
        verify=0,
        commands=0,
        repeat=3,
        show_progress=False,
        import_model=lambda path: model,
    )
    session = FakeSession(answers)
    session.rtimes = iter([0.3, 0.1, 0.2, 0.5, 0.4, 0.6])
    order: list[str] = []
    xpg_times = iter([0.03, 0.01, 0.02, 0.07, 0.09, 0.08])

    def timed_xpg(explainer: Any, row: Any) -> Any:
        order.append("xpg")
        axp = tuple(f"f{j}" for j in answers[tuple(row)][0])
        return axp, answers[tuple(row)][1], next(xpg_times), 1.0

    monkeypatch.setattr(compare, "xpg_axp", timed_xpg)
    real_request = session.request

    def request(op: str, wait: float | None = None, **fields: Any) -> dict[str, Any]:
        if op == "explain":
            order.append("xreason")
        return real_request(op, wait, **fields)

    monkeypatch.setattr(session, "request", request)
    records = compare.run_dataset(
        files=compare.BenchFiles.find(folder, "tiny"), session=session, opts=opts
    )  # type: ignore[arg-type]
    assert [r["xreason_rtime_s"] for r in records] == [0.1, 0.4]
    assert [r["xpg_cpu_s"] for r in records] == [0.01, 0.07]
    # instance 0: XReason first, then turns alternate; instance 1 starts with xpg
    assert order == ["xreason", "xpg", "xpg", "xreason", "xreason", "xpg"] + [
        "xpg",
        "xreason",
        "xreason",
        "xpg",
        "xpg",
        "xreason",
    ]


def test_unknown_dataset_and_missing_folder_are_one_line_errors(tmp_path: Path) -> None:
    folder = bench_folder(tmp_path, [[0.0, 0.0, 0.0]])
    with pytest.raises(compare.XReasonBenchError, match="unknown nope; expected some of tiny"):
        compare.main(["--bench-dir", str(folder), "--datasets", "nope"])
    with pytest.raises(compare.XReasonBenchError, match="no benchmark folder"):
        compare.main(["--bench-dir", str(tmp_path / "none")])
    with pytest.raises(compare.XReasonBenchError, match="no XReason"):
        compare.main(["--bench-dir", str(folder), "--xreason-dir", str(tmp_path)])


@pytest.mark.peers
def test_the_bench_against_xreason_on_two_zoo_instances(tmp_path: Path) -> None:
    shared_path("peers", "xreason", "src", "xreason.py")
    out = tmp_path / "out"
    assert (
        compare.main(
            [
                "--datasets",
                "zoo",
                "--instances",
                "2",
                "--verify",
                "1",
                "--commands",
                "1",
                "--out",
                str(out),
                "--no-progress",
            ]
        )
        == 0
    )
    with open(out / "xreason_instances.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 2 and not any(r["error"] for r in rows)
    # the paper's AXps of these two instances have 4 and 6 features (its log)
    assert [int(r["xreason_size"]) for r in rows] == [4, 6]
    assert all(r["xpg_sufficient"] == r["xpg_minimal"] == "True" for r in rows)
    assert all(r["xreason_sufficient"] == r["xreason_minimal"] == "True" for r in rows)
    assert rows[0]["xpg_verify"] == "ok" and rows[0]["xreason_command_same"] == "True"
