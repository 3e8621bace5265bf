"""``docs/xpg-format.md`` says what the reader does: its example reads as described, and every
row of its error table is the message the reader gives for that change to the example."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import REPO_ROOT

import xpg

DOC = (REPO_ROOT / "docs" / "xpg-format.md").read_text(encoding="utf-8")
EXAMPLE = re.search(r"## An example\n.*?```text\n(.*?)```", DOC, re.S)
#: rows "| `NEW` instead of `OLD` | `MESSAGE` |" or "| no line `OLD` | `MESSAGE` |"
ROWS = re.findall(r"^\| (?:`([^`]*)` instead of|no line) `([^`]*)` \| `([^`]*)` \|$", DOC, re.M)


def example_text() -> str:
    assert EXAMPLE is not None, "docs/xpg-format.md: no ```text block under '## An example'"
    return EXAMPLE.group(1)


def changed(text: str, new: str, old: str) -> str:
    """``text`` with its one line ``old`` replaced by ``new`` (removed when ``new`` is empty)."""
    lines = text.splitlines()
    assert lines.count(old) == 1, f"the example has no single line {old!r}"
    i = lines.index(old)
    return "\n".join(lines[:i] + ([new] if new else []) + lines[i + 1 :]) + "\n"


def test_the_example_reads_as_described(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("example.xpg").write_text(example_text(), encoding="utf-8")
    xg = xpg.read_xpg("example.xpg")
    assert xg.var_names == ["smoker", "age over 60", "exercises"]
    assert (xg.n_nodes, len(xg.edge_src)) == (6, 8)
    result = xpg.enumerate_explanations(xg)
    assert result.complete and result.axps == [("smoker", "exercises")]
    assert sorted(result.cxps) == [("exercises",), ("smoker",)]
    assert xpg.classify_features(xg).irrelevant == ("age over 60",)
    assert xpg.read_xpg_text(xpg.format_xpg(xg)).var_names == xg.var_names


def test_the_error_table_has_rows() -> None:
    assert len(ROWS) >= 8


@pytest.mark.parametrize(("new", "old", "message"), ROWS, ids=[r[2][:40] for r in ROWS])
def test_each_documented_error_is_what_the_reader_says(
    new: str, old: str, message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("example.xpg").write_text(changed(example_text(), new, old), encoding="utf-8")
    with pytest.raises(xpg.XpgError) as caught:
        xpg.read_xpg("example.xpg")
    assert str(caught.value) == message
    expected = xpg.InvalidGraphError if "invalid explanation graph" in message else xpg.ParseError
    assert type(caught.value) is expected
