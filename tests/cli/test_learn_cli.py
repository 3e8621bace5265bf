"""``xpg learn tree|list`` and ``xpg import`` as a user runs them: model files written from data
and from scikit-learn, the report printed, and every bad input one line with exit status 2."""

from __future__ import annotations

import fractions
import gzip
import json
import re
import shlex
import shutil
import sys
from pathlib import Path

import joblib
import numpy as np
import pandas as pd
import pytest
import skops.io as sio
from conftest import REPO_ROOT, SHARED, shared_path
from sklearn.tree import DecisionTreeClassifier

from xpg.cli.main import main
from xpg.core.xpgraph import ExplanationGraph
from xpg.explain.marco import enumerate_explanations
from xpg.io import load_model, model_to_dict, read_model
from xpg.learn import learn_list_from_table, learn_tree_from_table
from xpg.learn.feature_types import declare_domains

COMPAS = ("interpretable-robust-trees/compasbin_data.csv.gz", "recidivate-within-two-years:1")


def object_rows(frame: pd.DataFrame) -> np.ndarray:
    X = np.empty(frame.shape, dtype=object)
    X[:] = frame.to_numpy().tolist()
    return X


def test_learn_tree_writes_what_the_library_learns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = shared_path("datasets", COMPAS[0])
    out = tmp_path / "compas.json"
    args = ["learn", "tree", str(data), "--target", COMPAS[1], "--max-depth", "5"]
    assert main([*args, "--seed", "3", "-o", str(out)]) == 0
    text = capsys.readouterr().out
    learned = learn_tree_from_table(data, COMPAS[1], max_depth=5, seed=3)
    # the file declares the domains (untested features widened, issue 28)
    declared = model_to_dict(declare_domains(learned.model))
    assert json.loads(out.read_text()) == json.loads(json.dumps(declared))
    report = learned.report
    assert f"accuracy: train {report.train_accuracy:.4f}, test {report.test_accuracy:.4f}" in text
    assert f"size: {report.size['nodes']} nodes" in text and text.endswith(f"wrote {out}\n")
    assert "split: 5525 train, 1382 test (stratified)" in text
    # every row: the file predicts what scikit-learn's tree predicts
    frame = pd.read_csv(data).drop(columns=COMPAS[1])
    model = read_model(out)
    assert model.predict_batch(object_rows(frame)).tolist() == (
        learned.estimator.predict(frame.to_numpy(float)).tolist()
    )
    # the names with ':=' and '<' survive, and the model explains
    dg = load_model(out)
    assert "priors:=0" in dg.feature_index and "age:<21" in dg.feature_index
    result = enumerate_explanations(
        ExplanationGraph.from_decision_graph(dg, frame.iloc[0].tolist())
    )
    assert result.complete and result.axps


def test_learn_json_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    frame = pd.DataFrame(
        {
            "colour, main": ["red", "green", "blue", "red"] * 25,
            "a=b": list(range(100)),
            "y": ["no", "yes", "no", "no"] * 25,
        }
    )
    frame.loc[5, "a=b"] = None
    path = tmp_path / "t.jsonl"
    frame.to_json(path, orient="records", lines=True)
    out = tmp_path / "m.json"
    args = ["learn", "tree", str(path), "--target", "y", "-o", str(out), "--json"]
    assert main([*args, "--encoding", "ordinal", "--test-size", "0"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["output"] == str(out) and doc["dropped_rows"] == 1 and doc["test_accuracy"] is None
    assert doc["train_accuracy"] == 1.0 and doc["features_used"] == ["colour, main"]
    model = read_model(out)
    assert [f.name for f in model.features] == ["colour, main", "a=b"]
    assert model.predict({"colour, main": "green", "a=b": 7}) == "yes"


def test_learn_list(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = shared_path("datasets", "pmlb/monk1.tsv.gz")
    out = tmp_path / "list.json"
    args = ["learn", "list", str(data), "--target", "target", "--positive", "1", "--seed", "2"]
    assert main([*args, "-o", str(out)]) == 0
    text = capsys.readouterr().out
    learned = learn_list_from_table(data, "target", positive=1, seed=2)
    assert json.loads(out.read_text()) == model_to_dict(declare_domains(learned.model))
    assert f"size: {len(learned.model.rules)} rules" in text and "decision-list" in text
    assert {r.label for r in learned.model.rules} == {1} and learned.model.default == 0


def test_import_skops_and_pickle(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = shared_path("datasets", COMPAS[0])
    frame = pd.read_csv(data)
    X, y = frame.drop(columns=COMPAS[1]), frame[COMPAS[1]]
    clf = DecisionTreeClassifier(max_depth=7, random_state=1).fit(X, y)
    sio.dump(clf, tmp_path / "t.skops")
    joblib.dump(clf, tmp_path / "t.joblib")
    for source, extra in [("t.skops", []), ("t.joblib", ["--trust-pickle"])]:
        out = tmp_path / f"{source}.json"
        argv = ["import", str(tmp_path / source), "-o", str(out), *extra]
        assert main([*argv, "--features-from", str(data), "--target", COMPAS[1]]) == 0
        assert f"wrote {out}" in capsys.readouterr().out
        model = read_model(out)
        assert {f.kind for f in model.features} == {"boolean"}
        assert model.predict_batch(object_rows(X)).tolist() == clf.predict(X).tolist()
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps(json.loads((tmp_path / "t.skops.json").read_text())["features"]))
    out = tmp_path / "spec-model.json"
    assert main(["import", str(tmp_path / "t.skops"), "--features", str(spec), "-o", str(out)]) == 0
    assert "12 features (12 boolean)" in capsys.readouterr().out
    assert main(["import", str(tmp_path / "t.skops"), "-o", str(out), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["feature_kinds"] == {"real": 12} and doc["classes"] == [0, 1]


def _bad_inputs(tmp: Path) -> list[tuple[list[str], str]]:
    """(arguments, the message's telling part) for every bad input."""
    (tmp / "one.csv").write_text("y\n0\n1\n")
    (tmp / "ok.csv").write_text("a,y\n0,0\n1,1\n2,0\n3,1\n4,0\n")
    (tmp / "single.csv").write_text("a,y\n0,k\n1,k\n")
    (tmp / "real.csv").write_text("a,y\n0.5,0\n1.5,1\n")
    (tmp / "hundred.csv").write_text("a,y\n" + "".join(f"{i},{i % 2}\n" for i in range(100)))
    (tmp / "broken.parquet").write_bytes(b"PAR1 not really")
    with gzip.open(tmp / "ragged.csv.gz", "wt") as fh:
        fh.write('a,y\n0,1\n"1,0\n')
    (tmp / "x.bin").write_text("x")
    clf = DecisionTreeClassifier(max_depth=2).fit([[0], [1]], [0, 1])
    joblib.dump(clf, tmp / "t.pkl")
    clf.note = fractions.Fraction(1, 3)  # type: ignore[attr-defined]
    sio.dump(clf, tmp / "untrusted.skops")
    sio.dump(DecisionTreeClassifier(max_depth=2).fit([[0, 1], [1, 0]], [0, 1]), tmp / "two.skops")
    (tmp / "spec.json").write_text('[{"name": "a", "type": "real"}]')
    out = ["-o", str(tmp / "out.json")]
    tree = ["learn", "tree"]
    return [
        ([*tree, str(tmp / "one.csv"), "--target", "y", *out], "only the target column"),
        ([*tree, str(tmp / "ok.csv"), "--target", "z", *out], "no target column named 'z'"),
        ([*tree, str(tmp / "single.csv"), "--target", "y", *out], "one class ('k')"),
        ([*tree, str(tmp / "nope.csv"), "--target", "y", *out], "no such data file"),
        ([*tree, str(tmp / "broken.parquet"), "--target", "y", *out], "broken.parquet"),
        ([*tree, str(tmp / "ragged.csv.gz"), "--target", "y", *out], "cannot read as csv"),
        ([*tree, str(tmp / "x.bin"), "--target", "y", *out], "unknown table format"),
        ([*tree, str(tmp / "ok.csv"), "--target", "y", "--test-size", "1", *out], "[0, 1)"),
        ([*tree, str(tmp / "ok.csv"), "--target", "y", "--max-depth", "0", *out], "positive"),
        ([*tree, str(tmp / "ok.csv"), "--target", "y"], "required: -o"),
        (["learn", "list", str(tmp / "real.csv"), "--target", "y", *out], "real numbers: 'a'"),
        ([*tree, str(tmp / "real.csv"), "--target", "a", *out],
         "target 'a': expected a class column (categories or integers), found real numbers "
         "(2 distinct values: 0.5, 1.5)"),
        (["learn", "forest", str(tmp / "real.csv"), "--target", "a", *out], "a class column"),
        ([*tree, str(tmp / "hundred.csv"), "--target", "y", "--test-size", "0.99", *out],
         "leaves 1 of the 100 rows for training, all of class "),
        (["learn", "list", str(tmp / "ok.csv"), "--target", "y", "--positive", "7", *out], "'7'"),
        (["import", str(tmp / "t.pkl"), *out], "refusing to unpickle"),
        (["import", str(tmp / "untrusted.skops"), *out], "fractions.Fraction"),
        (["import", str(tmp / "none.skops"), *out], "no such model file"),
        (["import", str(tmp / "two.skops"), "--features", str(tmp / "spec.json"), *out],
         "expected 2 features"),
        (["import", str(tmp / "two.skops"), "--features-from", str(tmp / "one.csv"), *out],
         "expected 2 feature columns"),
        (["import", str(tmp / "two.skops"), "--target", "y", *out], "--target names the class"),
        (["import", str(tmp / "two.skops"), "--features", "s", "--features-from", "d", *out],
         "not allowed with argument"),
    ]  # fmt: skip


def test_every_bad_input_is_one_line_and_status_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for argv, message in _bad_inputs(tmp_path):
        assert main(argv) == 2, argv
        captured = capsys.readouterr()
        assert captured.out == "", argv
        assert captured.err.count("\n") == 1 and message in captured.err, (argv, captured.err)
        assert "Traceback" not in captured.err
        assert not (tmp_path / "out.json").exists()


def test_without_pandas_the_command_names_the_extra(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "ok.csv").write_text("a,y\n0,0\n1,1\n")
    monkeypatch.setitem(sys.modules, "pandas", None)
    argv = ["learn", "tree", str(tmp_path / "ok.csv"), "--target", "y", "-o", "m.json"]
    assert main(argv) == 2
    assert "pip install -e '.[scale]' from a clone of xpg" in capsys.readouterr().err


def test_help_says_why_pickles_need_trust(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["import", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "--trust-pickle" in text and "unpickling runs any code" in text


def _doc_sessions() -> list[tuple[str, list[str]]]:
    """The ``$ xpg ...`` commands of docs/cli.md's "Models from data" section, with their
    output lines (continuation lines joined)."""
    text = (REPO_ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    section = text.split("## Models from data", 1)[1].split("\n## ", 1)[0]
    sessions: list[tuple[str, list[str]]] = []
    for block in re.findall(r"^```console\n(.*?)^```$", section, re.S | re.M):
        for line in block.replace("\\\n", "").splitlines():
            if line.startswith("$ "):
                sessions.append((" ".join(line[2:].split()), []))
            else:
                sessions[-1][1].append(line)
    return sessions


@pytest.mark.slow
def test_the_documented_sessions_print_what_docs_cli_says(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/cli.md, run top to bottom in a folder beside ``shared`` (as in a checkout)."""
    sessions = _doc_sessions()
    assert len(sessions) >= 7
    (tmp_path / "shared").symlink_to(SHARED)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    frame = pd.read_csv(shared_path("datasets", COMPAS[0]))  # compas.skops, as the doc says
    clf = DecisionTreeClassifier(max_depth=5, random_state=0)
    sio.dump(clf.fit(frame.drop(columns=COMPAS[1]), frame[COMPAS[1]]), work / "compas.skops")
    joblib.dump(clf, work / "compas.pkl")
    seconds = re.compile(r"\d+(\.\d+)?(e-?\d+)? s$")
    for command, expected in sessions:
        words = shlex.split(command)
        if words[0] == "cat":  # the file the doc shows is the file the next commands read
            Path(words[1]).write_text("\n".join(expected) + "\n")
            continue
        if words[0] == "cp":  # cp A B && xpg ...
            shutil.copy(words[1], words[2])
            assert words[3] == "&&"
            words = words[4:]
        assert words[0] == "xpg"
        main(words[1:])
        captured = capsys.readouterr()
        got = (captured.out + captured.err).splitlines()
        assert [seconds.sub("S s", g) for g in got] == [seconds.sub("S s", e) for e in expected], (
            command
        )
