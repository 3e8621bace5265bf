"""``docs/cli.md``, section "Single queries and pictures": every ``$ xpg ...`` example prints
what the page shows (``...`` stands for any text), run in a scratch folder beside ``docs/``."""

from __future__ import annotations

import contextlib
import io
import re
import shlex
import shutil
from pathlib import Path

import pytest
from conftest import REPO_ROOT

from xpg.cli.main import main

PAGE = (REPO_ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
SECTION = re.search(r"^## Single queries and pictures\n(.*?)(?=^## |\Z)", PAGE, re.S | re.M)


def examples() -> list[tuple[str, str]]:
    assert SECTION is not None, "docs/cli.md: no section '## Single queries and pictures'"
    found = []
    for block in re.findall(r"```sh\n(.*?)```", SECTION[1], re.S):
        lines = block.splitlines()
        for k, line in enumerate(lines):
            if line.startswith("$ xpg "):
                output = []
                for nxt in lines[k + 1 :]:
                    if nxt.startswith("$ "):
                        break
                    output.append(nxt)
                found.append((line[2:], "\n".join(output)))
    return found


def test_the_section_has_examples() -> None:
    assert len(examples()) >= 6


@pytest.mark.parametrize(("command", "expected"), examples(), ids=[c[:60] for c, _ in examples()])
def test_example_prints_what_the_page_shows(
    command: str, expected: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if ".svg" in command and "error" not in expected and shutil.which("dot") is None:
        pytest.skip("renders SVG: Graphviz's dot is not on PATH")
    (tmp_path / "docs").symlink_to(REPO_ROOT / "docs")
    monkeypatch.chdir(tmp_path)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(shlex.split(command)[1:])
    printed = (out.getvalue() + err.getvalue()).rstrip("\n")
    pattern = ".*?".join(map(re.escape, expected.split("...")))
    assert re.fullmatch(pattern, printed, re.S), printed
    assert status == (2 if "error:" in expected else 0)
