"""The benchmark data protocol, its errors, the random graph generators, ``bench.cli``."""

from __future__ import annotations

import gzip
import sys
from pathlib import Path

import pytest
from conftest import REPO_ROOT, shared_path

from xpg import ExplanationGraph, ParseError, enumerate_explanations
from xpg.explain.reach import path_to_zero
from xpg.testing import ladder, random_reduced_obdd

sys.path.insert(0, str(REPO_ROOT))  # bench/ is a folder of the checkout, not a package
from bench.cli import BENCHMARKS, UnknownBenchmarkError, run  # noqa: E402
from bench.data import SPECS, DataError, data_dir, instance, load_dataset  # noqa: E402
from bench.paper_tables import TABLE1, TABLE2  # noqa: E402
from bench.randgen import (  # noqa: E402
    random_layered_obdd,
    random_layered_xpg,
    random_tree,
    random_tree_xpg,
)


def test_protocol_on_real_files() -> None:
    folder = shared_path("datasets")
    mofn = load_dataset("mofn_3_7_10", folder)
    assert mofn.n_rows_raw == 1324 and len(mofn.X) == 1024  # duplicates removed
    assert len(mofn.tested) == 307 and len(set(mofn.tested.tolist())) == 307  # 30% drawn
    assert load_dataset("mofn_3_7_10", folder).tested.tolist() == mofn.tested.tolist()
    assert load_dataset("mofn_3_7_10", folder, seed=1).tested.tolist() != mofn.tested.tolist()
    corral = load_dataset("corral", folder)
    assert len(corral.X) == len(corral.tested) == 64 and corral.is_binary()
    anneal = load_dataset("anneal", folder)  # ARFF with '?' as a category of its own
    assert len(anneal.X) == 886 and len(anneal.features) == 38
    mouse = load_dataset("mouse", folder)
    assert set(mouse.y.tolist()) == {"elephant", "mouse"}
    assert instance(mouse, 0) == [int(v) for v in mouse.X[0]]


def test_every_paper_dataset_is_known() -> None:
    assert set(TABLE1) - set(SPECS) == {n for n in TABLE1 if n.startswith("dbworld")}
    assert set(TABLE2) - set(SPECS) == {"bank"}


def test_missing_data_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(DataError, match="does not exist.*--data-dir"):
        data_dir(tmp_path / "nope")
    monkeypatch.setenv("XPG_DATA_DIR", str(tmp_path / "gone"))
    with pytest.raises(DataError, match=r"gone \(from \$XPG_DATA_DIR\)"):
        data_dir()
    with pytest.raises(DataError, match=r"missing file .*pmlb/corral\.tsv\.gz"):
        load_dataset("corral", tmp_path)
    with pytest.raises(DataError, match="unknown dataset 'nope'"):
        load_dataset("nope", tmp_path)
    (tmp_path / "pmlb").mkdir()
    with gzip.open(tmp_path / "pmlb" / "corral.tsv.gz", "wt") as fh:
        fh.write("a\tb\ttarget\n0\t1\t1\n1\n")
    with pytest.raises(
        ParseError, match=r"corral\.tsv\.gz:3: expected 3 fields \(as in the header\), found 1"
    ):
        load_dataset("corral", tmp_path)


def test_ladder_has_exponentially_many_paths_and_linear_reachability() -> None:
    dg = ladder(12)
    dg.validate()
    assert len(dg) == 2 * 12 + 1 and dg.n_edges == 4 * 12 - 2
    for bits in ([0] * 12, [1] + [0] * 11, [1, 1] + [0] * 10):
        assert dg.predict(bits) == sum(bits) % 2
    xg = ExplanationGraph.from_decision_graph(dg, [0] * 12)
    assert path_to_zero(xg, range(12)) and not path_to_zero(xg, [])
    result = enumerate_explanations(xg)  # parity: one AXp (all), every single bit a CXp
    assert result.axps == [tuple(f"x{i}" for i in range(12))] and len(result.cxps) == 12


@pytest.mark.parametrize("seed", range(3))
def test_generators_are_valid_decision_graphs(seed: int) -> None:
    tree = random_tree(301, 12, seed=seed, relevant=4)
    tree.validate()
    assert tree.is_tree() and len(tree) == 301
    obdd = random_layered_obdd(300, 12, seed=seed)
    obdd.validate()
    assert not obdd.is_tree() and 250 <= len(obdd) <= 350
    reduced = random_reduced_obdd(15, 60, seed=seed)
    reduced.validate()
    assert len(reduced) >= 60
    for xg in (random_tree_xpg(301, 12, seed=seed), random_layered_xpg(300, 12, seed=seed)):
        xg.validate()  # Def. 3: one 1-edge per node, the 1-path ends at a terminal labelled 1
        assert enumerate_explanations(xg, limit=50).axps


def test_cli_dispatch(tmp_path: Path) -> None:
    with pytest.raises(UnknownBenchmarkError, match="unknown benchmark 'tabel1'"):
        run("tabel1", [])
    argv = ["--quick", "--no-progress", "--datasets", "mouse", "--out", str(tmp_path)]
    assert run("table2", [*argv, "--data-dir", str(shared_path("datasets"))]) == 0
    assert (tmp_path / "table2.md").exists()


@pytest.mark.parametrize("name", sorted(BENCHMARKS))
def test_every_benchmark_starts_through_the_cli(name: str, capsys: pytest.CaptureFixture) -> None:
    """``xpg bench NAME --help`` imports the module as ``bench.<...>`` (not as a script, where
    its own folder is on ``sys.path``) and parses options: exit status 0 and a usage line."""
    assert run(name, ["--help"]) == 0
    assert "usage:" in capsys.readouterr().out
