"""Learners (RIPPER decision lists, scikit-learn trees) and the dataset loader."""

from __future__ import annotations

import gzip
import itertools
from pathlib import Path

import numpy as np
import pytest
import wittgenstein
from conftest import REPO_ROOT, shared_path

from xpg.core.xpgraph import ExplanationGraph
from xpg.errors import DataNotFoundError, InvalidModelError, ParseError
from xpg.explain.marco import enumerate_explanations
from xpg.learn import learn_decision_list, learn_tree, load_dataset
from xpg.learn.datasets import default_data_dir
from xpg.models.decision_list import compile_decision_list
from xpg.verify.verifier import Verifier


def test_binary_list_is_rippers_ruleset_in_order() -> None:
    """On every input, the list predicts what wittgenstein's own RIPPER model predicts."""
    import pandas as pd

    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(400, 6))
    y = ((X[:, 0] & X[:, 1]) | (X[:, 2] & ~X[:, 3] & 1)).astype(int)
    y[rng.integers(0, 400, 20)] ^= 1  # noise
    dl = learn_decision_list(X, y, [f"b{i}" for i in range(6)], random_state=3)
    assert dl.default == 0 and all(r.label == 1 for r in dl.rules)
    codes = {0: "0", 1: "1"}
    ref = wittgenstein.RIPPER(n_discretize_bins=None, random_state=3)
    frame = pd.DataFrame(
        [[codes[v] for v in row] for row in X], columns=[f"c{i}" for i in range(6)]
    )
    ref.fit(frame.astype("category"), y, pos_class=1)
    for bits in itertools.product((0, 1), repeat=6):
        row = pd.DataFrame([[codes[b] for b in bits]], columns=frame.columns).astype(
            pd.CategoricalDtype(["0", "1"])
        )
        assert dl.predict(list(bits)) == int(ref.predict(row)[0])


def test_multiclass_lists_order_classes_by_frequency() -> None:
    rng = np.random.default_rng(1)
    X = rng.integers(0, 3, size=(500, 4))
    y = np.where(X[:, 0] == 2, "rare", np.where(X[:, 1] == 0, "mid", "common"))
    dl = learn_decision_list(X, y)
    assert dl.default == "common"
    counts = {c: int((y == c).sum()) for c in ("rare", "mid", "common")}
    assert max(counts, key=counts.__getitem__) == "common"
    seen = [r.label for r in dl.rules]
    assert seen == sorted(seen, key=counts.__getitem__)  # rarer classes' rules first
    assert np.mean([dl.predict(list(r)) == t for r, t in zip(X, y)]) > 0.95
    assert {f.kind for f in dl.features} == {"integer"}
    dg = compile_decision_list(dl)  # ordered MDD over the integer features
    dg.validate()
    for x in itertools.product(range(3), repeat=4):
        assert dg.predict(list(x)) == dl.predict(list(x))


def test_real_features_are_refused() -> None:
    with pytest.raises(InvalidModelError, match="discretise the real feature"):
        learn_decision_list(np.array([[0.5], [1.5]]), [0, 1], ["x"])


def test_corral_list_to_obdd_explained_and_verified() -> None:
    """Table 1 pipeline: a PMLB binary dataset, a learned list, its OBDD, explanations
    confirmed on the list by the SMT verifier."""
    data = load_dataset("pmlb/corral", data_dir=shared_path("datasets"))
    assert data.X.shape == (160, 6) and {f.kind for f in data.features} == {"boolean"}
    dl = learn_decision_list(data.X, data.y, data.feature_names)
    accuracy = np.mean([dl.predict(list(r)) == t for r, t in zip(data.X, data.y)])
    assert accuracy > 0.9
    for backend in ("autoref", "cudd"):
        dg = compile_decision_list(dl, backend=backend)  # type: ignore[arg-type]
        dg.validate()
    with Verifier(dl) as v:
        for row in data.X[::20]:
            xg = ExplanationGraph.from_decision_graph(dg, list(row))
            result = enumerate_explanations(xg)
            for a in result.axps:
                assert v.verify_axp(list(row), a).holds
            for c in result.cxps:
                assert v.verify_cxp(list(row), c).holds


def test_learn_tree_compiles_exactly() -> None:
    data = load_dataset("pmlb/iris", data_dir=shared_path("datasets"))
    clf, dg = learn_tree(data.X, data.y, data.feature_names, max_depth=6)
    dg.validate()
    assert [dg.predict(list(r)) for r in data.X] == clf.predict(data.X).tolist()


def test_dataset_conventions(tmp_path: Path) -> None:
    root = shared_path("datasets")
    risk = load_dataset("riskslim/breastcancer_data", data_dir=root)
    assert risk.target == "Benign" and risk.X.shape == (683, 9)
    zoo = load_dataset("zoo", data_dir=root)
    assert zoo.target == "class_type" and len(zoo.feature_names) == 16
    with pytest.raises(ParseError, match="every row has a missing value"):
        load_dataset("rulekit/anneal", data_dir=root)  # ARFF, '?' in every row
    anneal = load_dataset("rulekit/anneal", data_dir=root, missing="drop-columns")
    assert anneal.target == "class" and anneal.X.shape[0] == 898 and anneal.dropped_rows == 0
    assert any(f.kind == "categorical" for f in anneal.features)
    with pytest.raises(DataNotFoundError, match="no dataset named 'nope'"):
        load_dataset("nope", data_dir=root)
    with pytest.raises(DataNotFoundError, match="ambiguous"):
        (tmp_path / "a").mkdir()
        (tmp_path / "b").mkdir()
        for d in ("a", "b"):
            with gzip.open(tmp_path / d / "t.csv.gz", "wt") as fh:
                fh.write("x,y\n1,0\n")
        load_dataset("t", data_dir=tmp_path)
    with pytest.raises(DataNotFoundError, match="data directory .* not found"):
        load_dataset("corral", data_dir=tmp_path / "missing")


def test_dataset_without_rows_or_labels(tmp_path: Path) -> None:
    head = "@relation t\n@attribute a numeric\n@attribute class {x,y}\n@data\n"
    (tmp_path / "empty.arff").write_text(head)
    with pytest.raises(ParseError, match="the file has no rows") as err:
        load_dataset("empty", data_dir=tmp_path)
    assert "missing value" not in str(err.value)
    (tmp_path / "unlabelled.arff").write_text(head + "1,?\n2,?\n")
    for missing in ("drop-rows", "drop-columns"):
        with pytest.raises(ParseError, match="target column 'class' is missing in every row"):
            load_dataset("unlabelled", data_dir=tmp_path, missing=missing)


def test_default_data_dir_follows_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """``$XPG_DATA_DIR`` (the older alias, naming the datasets folder) wins, then
    ``$XPG_SHARED_DIR/datasets``, then ``../shared/datasets`` beside the checkout; an empty
    value counts as unset."""
    monkeypatch.setenv("XPG_SHARED_DIR", "/shared/elsewhere")
    monkeypatch.setenv("XPG_DATA_DIR", "/some/where")
    assert default_data_dir() == Path("/some/where")
    monkeypatch.delenv("XPG_DATA_DIR")
    assert default_data_dir() == Path("/shared/elsewhere/datasets")
    monkeypatch.setenv("XPG_DATA_DIR", "")
    assert default_data_dir() == Path("/shared/elsewhere/datasets")
    monkeypatch.delenv("XPG_SHARED_DIR")
    assert default_data_dir() == REPO_ROOT.parent / "shared" / "datasets"
    monkeypatch.setenv("XPG_SHARED_DIR", "")
    monkeypatch.delenv("XPG_DATA_DIR")
    assert default_data_dir() == REPO_ROOT.parent / "shared" / "datasets"
