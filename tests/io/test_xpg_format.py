"""The reference .xpg format: round trips, comments, parallel edges, every malformed input (as
an error and through the CLI, one line and exit status 2), and writes whole or not at all."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import xpg.io.atomic
from xpg import (
    InvalidFeatureError,
    InvalidGraphError,
    ParseError,
    format_xpg,
    read_xpg,
    read_xpg_text,
    write_xpg,
)
from xpg.cli.main import main
from xpg.io import model_to_dict
from xpg.testing import small_mixed_graph

GOOD = """\
# a comment before everything
NN: 5
Root: 1
T: 3 4 5
TDef:
3 0
   # an indented comment
4 1
5 0
NT: 1 2
NTDef:
1 3 0
1 2 1
2 4 1
2 5 0
2 5 0
NV: 2
VarDef:
1 first feature
  2 b
"""


def test_read_comments_indentation_parallel_edges() -> None:
    xg = read_xpg_text(GOOD)
    assert xg.var_names == ["first feature", "b"]
    assert xg.n_nodes == 5 and len(xg.edge_src) == 5  # the parallel edge is kept
    assert xg.node_ids[xg.root] == 1


def test_round_trip(tmp_path: Path, examples_dir: Path) -> None:
    for source in sorted(examples_dir.glob("*/*.xpg")):
        xg = read_xpg(source)
        target = tmp_path / source.name
        write_xpg(xg, target)
        again = read_xpg(target)
        assert again.var_names == xg.var_names and again.node_ids == xg.node_ids
        assert again.root == xg.root
        for a in ("node_var", "terminal_value", "edge_src", "edge_dst", "edge_label"):
            assert np.array_equal(getattr(again, a), getattr(xg, a)), a
        assert format_xpg(again) == format_xpg(xg)


def _replace(old: str, new: str) -> str:
    assert old in GOOD
    return GOOD.replace(old, new, 1)


MALFORMED = [
    (_replace("NN: 5", "NX: 5"), "expected section 'NN:'", 2),
    (_replace("NN: 5", "NN: five"), "expected an integer node count", 2),
    (_replace("NN: 5", "NN: 6"), "'NN: 6' but 'T:' and 'NT:' list 5 nodes", 10),
    (_replace("Root: 1", "Root: 9"), "the root 9 is not listed", 10),
    (_replace("T: 3 4 5", "T: 3 4 x"), "expected an integer terminal id, found 'x'", 4),
    (_replace("4 1\n", "4 2\n"), "expected a terminal label 0 or 1, found '2'", 8),
    (_replace("4 1\n", "4 1 7\n"), "expected '<terminal> <0|1>'", 8),
    (_replace("4 1\n", "7 1\n"), "TDef for node 7, which is not listed in 'T:'", 8),
    (_replace("4 1\n", "3 1\n"), "terminal 3 is defined twice", 8),
    (_replace("NT: 1 2", "NT: 1 2 3"), "listed more than once", 10),
    (_replace("1 2 1\n", "1 2 7\n"), "expected an edge label 0 or 1, found '7'", 13),
    (_replace("1 2 1\n", "1 9 1\n"), "edge to 9, which is not a listed node", 13),
    (_replace("1 2 1\n", "3 2 1\n"), "edge from 3, which is not a non-terminal", 13),
    (_replace("1 2 1\n", "1 2\n"), "expected '<parent> <child> <0|1>'", 13),
    (_replace("NV: 2", "NV: 3"), "'NV: 3' but VarDef names 2 distinct variables", 17),
    (_replace("NV: 2", "NV: x"), "expected an integer variable count", 17),
    (_replace("  2 b\n", ""), "non-terminal(s) [2] have no VarDef line", 19),
    (_replace("  2 b\n", "  2 b\n  2 c\n"), "node 2 has two VarDef lines", 21),
    (_replace("  2 b\n", "  3 b\n"), "VarDef for node 3, which is not a non-terminal", 20),
    (_replace("  2 b\n", "  2\n"), "expected '<node> <feature name>'", 20),
    (GOOD.replace("VarDef:\n1 first feature\n  2 b\n", ""), "expected section 'VarDef:'", 17),
    (GOOD + "extra line\n", "expected an integer node id, found 'extra'", 21),
    (GOOD + "NV: 3\n", "unexpected line after VarDef: 'NV: 3'", 21),
    (_replace("NTDef:", "NTDEF:"), "expected section 'NTDef:'", 11),
    ("", "expected section 'NN:', found the end of the file", 0),
]


@pytest.mark.parametrize(("text", "message", "line"), MALFORMED)
def test_malformed_input_names_the_line(
    tmp_path: Path, text: str, message: str, line: int, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.xpg"
    path.write_text(text)
    with pytest.raises(ParseError) as err:
        read_xpg(path)
    assert message in str(err.value)
    assert err.value.line == line and f"bad.xpg:{line}:" in str(err.value)
    assert isinstance(err.value, ValueError)
    assert main(["axp", str(path)]) == 2
    out = capsys.readouterr()
    assert out.out == "" and len(out.err.strip().splitlines()) == 1 and message in out.err


INVALID_GRAPHS = [
    (_replace("1 2 1\n", "1 2 0\n"), "the path of edges labelled 1 stops at non-terminal 1"),
    (_replace("2 4 1\n", "2 4 0\n").replace("2 5 0\n2 5 0", "2 5 1\n2 5 0"),
     "ends at terminal 5, labelled 0"),
    (_replace("1 3 0\n", "1 3 1\n"), "node 1 has 2 outgoing edges labelled 1"),
    (_replace("2 4 1\n", "2 1 1\n"), "the root 1 has incoming edges"),
    (_replace("1 2 1\n", "1 4 1\n"), "several roots: nodes [2]"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "message"), INVALID_GRAPHS)
def test_graph_level_violations(text: str, message: str) -> None:
    with pytest.raises(InvalidGraphError) as err:
        read_xpg_text(text)
    assert message in str(err.value)


def test_unreadable_file(tmp_path: Path) -> None:
    with pytest.raises(ParseError, match="cannot read the file"):
        read_xpg(tmp_path / "missing.xpg")
    binary = tmp_path / "binary.xpg"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(ParseError, match="expected UTF-8"):
        read_xpg(binary)


def test_write_is_atomic(tmp_path: Path) -> None:
    xg = read_xpg_text(GOOD)
    target = tmp_path / "out.xpg"
    target.write_text("previous content")
    with pytest.raises(OSError):
        write_xpg(xg, tmp_path / "no-such-dir" / "out.xpg")
    write_xpg(xg, target)
    assert target.read_text() == format_xpg(xg)
    assert [p.name for p in tmp_path.iterdir()] == ["out.xpg"]


def test_written_files_get_ordinary_permissions(tmp_path: Path) -> None:
    """Regression: files came out 0600 (the temporary file's mode) instead of 0666 - umask."""
    xg = read_xpg_text(GOOD)
    old = os.umask(0o022)
    try:
        write_xpg(xg, tmp_path / "new.xpg")
        kept = tmp_path / "kept.xpg"
        kept.write_text("")
        kept.chmod(0o640)
        write_xpg(xg, kept)
    finally:
        os.umask(old)
    assert (tmp_path / "new.xpg").stat().st_mode & 0o777 == 0o644
    assert kept.stat().st_mode & 0o777 == 0o640


def test_unknown_feature_names_are_feature_errors() -> None:
    """Regression: an unknown name in a feature set raised InvalidGraphError."""
    xg = read_xpg_text(GOOD)
    with pytest.raises(InvalidFeatureError, match="unknown feature 'nope': expected one of"):
        xg.indices(["nope"])
    with pytest.raises(InvalidFeatureError, match="feature index: expected 0 to"):
        xg.indices([xg.n_vars])


@pytest.mark.parametrize(("text", "message"), INVALID_GRAPHS)
def test_invalid_xpg_graphs_exit_2_with_one_line(
    tmp_path: Path, text: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.xpg"
    path.write_text(text)
    for command in ("validate", "axp", "cxp", "enum"):
        assert main([command, str(path)]) == 2
        out = capsys.readouterr()
        assert out.out == "" and len(out.err.strip().splitlines()) == 1
        assert message in out.err and "bad.xpg" in out.err


def test_vardef_accepts_tabs_like_the_other_sections() -> None:
    """Regression: '<node>\\t<name>' was refused in VarDef though tabs separate ids elsewhere."""
    text = GOOD.replace("1 3 0\n", "1\t3\t0\n").replace("1 first feature", "1\tfirst feature")
    xg = read_xpg_text(text)
    assert xg.var_names == ["first feature", "b"]
    assert read_xpg_text(GOOD).var_names == xg.var_names


# -- output files: whole or not at all ----------------------------------------------------------
def test_failed_writes_keep_the_old_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    xg = read_xpg_text(GOOD)
    target = tmp_path / "out.xpg"
    target.write_text("previous content\n")

    def refuse(*args: Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(xpg.io.atomic.os, "replace", refuse)
    with pytest.raises(OSError, match="No space left"):
        write_xpg(xg, target)
    assert target.read_text() == "previous content\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.xpg"]  # no temporary file left
    # the CLI: one line, exit 2, the old file intact
    model = tmp_path / "m.json"
    model.write_text(json.dumps(model_to_dict(small_mixed_graph())))
    assert main(["export", str(model), "--instance", "x=3,c=b", "-o", str(target)]) == 2
    err = capsys.readouterr().err
    assert "No space left" in err and len(err.strip().splitlines()) == 1
    assert target.read_text() == "previous content\n"
    monkeypatch.undo()

    def interrupted(*args: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(xpg.io.atomic.os, "chmod", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_xpg(xg, target)
    assert target.read_text() == "previous content\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.json", "out.xpg"]
