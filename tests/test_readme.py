"""Every output README.md states is what the code prints (a README that drifts fails here).

The README is run like a doctest, top to bottom, in one temporary folder placed beside a link
to the shared folder (so ``../shared/...`` resolves as it does in a checkout):

- In a ```` ```python ```` block, a comment ending a ``print(...)`` call states what that call
  prints, exactly.  Any other comment is prose, and a comment that reads as a Python value
  on a line that prints nothing is refused (write it as ``print(x)  # value``).
- In a ```` ```sh ```` block, a line ``$ xpg ...`` is a command and the lines after it, up to
  the next ``$`` line, are its output (standard output and error, as a terminal shows them).
  Blocks without ``$`` lines (installation commands, synopses) are not run.

Matching conventions: ``...`` inside a line or a comment matches any text; a line that is
only ``...`` matches any run of output lines (none included); a number of seconds
(``0.0004 s``, ``"seconds": 0.001``) matches any number, since timings vary from run to run.
Files a command needs come from the blocks before it (``model.json`` is written by the
decision list example).
"""

from __future__ import annotations

import ast
import builtins
import io
import os
import re
import shlex
import shutil
import subprocess
import sys
import tokenize
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO_ROOT, SHARED

README = REPO_ROOT / "README.md"
#: the README's two commands (run the main job; run the tests): contracts, kept word for word
RUN_COMMAND = "python3 -m venv .venv && .venv/bin/pip install -e . && .venv/bin/xpg demo"
TEST_COMMAND = (
    "(command -v chromium >/dev/null || apt-get install -y -qq chromium || "
    "(apt-get update -qq && apt-get install -y -qq chromium)); "
    "python3 -m venv .venv && .venv/bin/pip install -q -e '.[test]' && "
    ".venv/bin/python -m pytest -n 2"
)
FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.S | re.M)
#: a number of seconds: before " s", or the value of a JSON "seconds" key
SECONDS = re.compile(r'(?<![\w.])\d+(?:\.\d+)?(?:e-?\d+)?(?= s\b)|(?<="seconds": )\d[\d.e+-]*')
ANY_NUMBER = r"\d[\d.e+-]*"
ELLIPSIS = "..."


@dataclass(frozen=True)
class Block:
    """A fenced code block of the README: its language, first code line (1-based) and code."""

    lang: str
    line: int
    code: str


def readme_blocks(text: str) -> list[Block]:
    """The fenced code blocks of a Markdown text, in order.

    Examples
    --------
    >>> [(b.lang, b.line, b.code) for b in readme_blocks("x\\n```sh\\n$ xpg\\n```\\n")]
    [('sh', 3, '$ xpg\\n')]
    """
    return [
        Block(m.group(1), text.count("\n", 0, m.start(2)) + 1, m.group(2))
        for m in FENCE.finditer(text)
    ]


def text_pattern(expected: str) -> str:
    """A regular expression for one stated output: ``...`` matches any text, a number of
    seconds any number, everything else itself.

    Examples
    --------
    >>> bool(re.fullmatch(text_pattern("2 AXps, ... 0.0004 s"), "2 AXps, complete, 1e-05 s"))
    True
    """
    parts = []
    for i, piece in enumerate(expected.split(ELLIPSIS)):
        if i:
            parts.append(".*?")
        end = 0
        for m in SECONDS.finditer(piece):
            parts += [re.escape(piece[end : m.start()]), ANY_NUMBER]
            end = m.end()
        parts.append(re.escape(piece[end:]))
    return "".join(parts)


def output_matches(expected: str, actual: str) -> bool:
    """One stated output (a comment) against what was printed (which may span lines)."""
    return re.fullmatch(text_pattern(expected), actual, re.S) is not None


def transcript_matches(expected: list[str], actual: list[str]) -> bool:
    """Expected lines against output lines; a line ``...`` matches any run of lines.

    Examples
    --------
    >>> transcript_matches(["a", "...", "d"], ["a", "b", "c", "d"]), transcript_matches(["a"], [])
    (True, False)
    """
    pattern = "".join(
        r"(?:[^\n]*\n)*?" if line.strip() == ELLIPSIS else text_pattern(line.rstrip()) + r"\n"
        for line in expected
    )
    return re.fullmatch(pattern, "".join(line.rstrip() + "\n" for line in actual)) is not None


# -- Python blocks ---------------------------------------------------------------------------------
def _comments(code: str) -> dict[int, str]:
    """Comment text by line number (without the ``#`` and surrounding blanks)."""
    tokens = tokenize.generate_tokens(io.StringIO(code).readline)
    return {t.start[0]: t.string[1:].strip() for t in tokens if t.type == tokenize.COMMENT}


def _is_value(text: str) -> bool:
    """Does a comment read as a Python value (a stated output rather than prose)?"""
    try:
        ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False
    return True


def _stated_prints(tree: ast.AST, comments: dict[int, str]) -> dict[tuple[int, int], str]:
    """``(first line, last line)`` of each ``print(...)`` call whose last line has a comment."""
    return {
        (node.lineno, node.end_lineno or node.lineno): comments[node.end_lineno or node.lineno]
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "print"
        and (node.end_lineno or node.lineno) in comments
    }


def check_python(code: str, name: str = "snippet", first_line: int = 1) -> list[str]:
    """Run ``code``; one message per stated output it does not print (empty: all match).

    ``name`` and ``first_line`` say where the code comes from (``README.md``, its line).
    """
    filename = f"<{name}:{first_line}>"
    tree = ast.parse(code, filename)
    comments = _comments(code)
    stated = _stated_prints(tree, comments)
    print_lines = {last for _, last in stated}
    problems = [
        f"{name}:{first_line + n - 1}: '# {text}' states a value on a line that prints nothing "
        "(write it as print(...)  # value)"
        for n, text in sorted(comments.items())
        if n not in print_lines and _is_value(text)
    ]
    printed: dict[int, list[str]] = defaultdict(list)

    def recording_print(
        *args: Any, sep: str | None = " ", end: str | None = "\n", **kw: Any
    ) -> None:
        """``print``, also keeping what each README line printed."""
        out = io.StringIO()
        builtins.print(*args, sep=sep, end=end, file=out)
        frame = sys._getframe(1)
        if kw.get("file") is None and frame.f_code.co_filename == filename:
            printed[frame.f_lineno].append(out.getvalue())
        builtins.print(*args, sep=sep, end=end, **kw)

    exec(compile(tree, filename, "exec"), {"__name__": "readme", "print": recording_print})
    for (first, last), expected in sorted(stated.items()):
        outputs = [text for n in range(first, last + 1) for text in printed.get(n, [])]
        actual = "".join(outputs).removesuffix("\n")
        where = f"{name}:{first_line + last - 1}"
        if not outputs:
            problems.append(f"{where}: states '{expected}', but this print never ran")
        elif not output_matches(expected, actual):
            problems.append(f"{where}: states '{expected}', prints '{actual}'")
    return problems


# -- shell transcripts -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Command:
    """A ``$ ...`` line of a transcript, its README line and the output stated after it."""

    line: int
    command: str
    expected: list[str]


def transcript_commands(code: str, first_line: int = 1) -> list[Command]:
    """The commands of a shell block written as a transcript (none if no line starts ``$``)."""
    commands: list[Command] = []
    for n, line in enumerate(code.splitlines(), start=first_line):
        if line.startswith("$ "):
            commands.append(Command(n, line[2:], []))
        elif commands:
            commands[-1].expected.append(line)
    return commands


def run_xpg(command: str, cwd: Path, xpg: str | None = None) -> list[str]:
    """Run one ``xpg ...`` command line as a terminal would; its output lines.

    ``xpg`` is the program to run (an installed console script); by default this checkout's
    package, as ``python -m xpg``.
    """
    argv = shlex.split(command)
    if argv[0] != "xpg":
        raise ValueError(f"README transcripts run xpg commands only, found {command!r}")
    if xpg is None:
        path = [str(REPO_ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(path)}  # this checkout's xpg
        program = [sys.executable, "-m", "xpg"]
    else:
        env, program = dict(os.environ), [xpg]
    proc = subprocess.run(
        [*program, *argv[1:]],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=300,
        check=False,
    )
    return proc.stdout.splitlines()


def check_transcript(
    code: str, cwd: Path, name: str = "snippet", first_line: int = 1, xpg: str | None = None
) -> list[str]:
    """Run every command of a transcript in ``cwd`` (with ``xpg``, see :func:`run_xpg`); one
    message per output that differs."""
    problems = []
    for cmd in transcript_commands(code, first_line):
        actual = run_xpg(cmd.command, cwd, xpg)
        if not transcript_matches(cmd.expected, actual):
            problems.append(
                f"{name}:{cmd.line}: $ {cmd.command}\n  states:\n    "
                + "\n    ".join(cmd.expected)
                + "\n  prints:\n    "
                + "\n    ".join(actual)
            )
    return problems


def check_readme(text: str, workdir: Path, xpg: str | None = None) -> list[str]:
    """Every block of a README run in order in ``workdir`` (commands with ``xpg``, see
    :func:`run_xpg`); all mismatches."""
    problems = []
    for block in readme_blocks(text):
        if block.lang == "python":
            problems += check_python(block.code, "README.md", block.line)
        elif block.lang == "sh":
            problems += check_transcript(block.code, workdir, "README.md", block.line, xpg)
    return problems


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty folder beside ``shared`` (a link to the shared folder), as the cwd."""
    (tmp_path / "shared").symlink_to(SHARED, target_is_directory=True)
    work = tmp_path / "checkout"
    work.mkdir()
    monkeypatch.chdir(work)
    return work


# -- the README ------------------------------------------------------------------------------------
@pytest.mark.slow
def test_readme_states_what_the_code_prints(workdir: Path) -> None:
    problems = check_readme(README.read_text(encoding="utf-8"), workdir)
    assert not problems, "README.md states outputs the code does not print:\n" + "\n".join(problems)


def test_the_readme_states_outputs_to_check() -> None:
    """The checker has something to check: Python outputs and commands in every tour."""
    blocks = readme_blocks(README.read_text(encoding="utf-8"))
    python = [b for b in blocks if b.lang == "python"]
    stated = sum(len(_stated_prints(ast.parse(b.code), _comments(b.code))) for b in python)
    commands = [c for b in blocks if b.lang == "sh" for c in transcript_commands(b.code)]
    assert len(python) >= 4 and stated >= 8
    assert len(commands) >= 3 and all(c.expected for c in commands)


def test_the_first_two_commands_are_the_contract() -> None:
    blocks = readme_blocks(README.read_text(encoding="utf-8"))
    assert [b.code.strip() for b in blocks[:2]] == [RUN_COMMAND, TEST_COMMAND]


def test_ci_runs_the_readme_test_command() -> None:
    """``.ci/run`` ends with exactly the README's test command, so its status is CI's."""
    script = (REPO_ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert "set -euo pipefail" in script
    assert script[-1] == TEST_COMMAND


@pytest.mark.parametrize(("pip", "pytest_status"), [(0, 0), (0, 5), (1, 0), (0, 1)])
def test_ci_fails_when_a_step_fails_or_no_test_ran(
    tmp_path: Path, pip: int, pytest_status: int
) -> None:
    """``.ci/run`` on a copy of the checkout with stand-ins for python3, pip and pytest: any
    non-zero status fails it, including pytest's 5 (no tests collected)."""
    (tmp_path / ".ci").mkdir()
    shutil.copy(REPO_ROOT / ".ci" / "run", tmp_path / ".ci" / "run")
    fake_bin = tmp_path / "fake-bin"
    fake_bin.mkdir()
    (fake_bin / "python3").write_text(
        "#!/bin/sh\nmkdir -p .venv/bin\n"
        f"printf '#!/bin/sh\\nexit {pip}\\n' > .venv/bin/pip\n"
        f"printf '#!/bin/sh\\nexit {pytest_status}\\n' > .venv/bin/python\n"
        "chmod +x .venv/bin/pip .venv/bin/python\n"
    )
    (fake_bin / "python3").chmod(0o755)
    (fake_bin / "chromium").write_text("#!/bin/sh\nexit 0\n")  # present: nothing installed
    (fake_bin / "chromium").chmod(0o755)
    env = {**os.environ, "PATH": f"{fake_bin}{os.pathsep}{os.environ['PATH']}"}
    proc = subprocess.run(["bash", str(tmp_path / ".ci" / "run")], env=env, check=False)
    assert proc.returncode == (pip or pytest_status)


# -- the checker itself ----------------------------------------------------------------------------
def test_a_wrong_comment_fails() -> None:
    problems = check_python("x = 1\nprint(x + 1)  # 3\n", "wrong.md", 10)
    assert problems == ["wrong.md:11: states '3', prints '2'"]


def test_right_comments_pass_with_ellipsis_and_prose() -> None:
    code = (
        "x = list(range(10))  # prose is not checked\n"
        "print(x)  # [0, 1, ..., 9]\n"
        "for i in range(2):\n"
        "    print(i)\n"
        "print(\n"
        "    'a', 'b', sep='-'\n"
        ")  # a-b\n"
    )
    assert check_python(code) == []
    assert check_python("print(list(range(10)))  # [1, ..., 9]") == [
        "snippet:1: states '[1, ..., 9]', prints '[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]'"
    ]


def test_a_print_that_never_runs_and_a_value_on_a_silent_line_fail() -> None:
    assert check_python("if False:\n    print(1)  # 1\n") == [
        "snippet:2: states '1', but this print never ran"
    ]
    assert check_python("y = (1, 2)  # (1, 2)\n") == [
        "snippet:1: '# (1, 2)' states a value on a line that prints nothing "
        "(write it as print(...)  # value)"
    ]


def test_transcript_matching() -> None:
    actual = ["CXP {a}", "AXP {a, b}", "AXP {c}", "2 AXps, 1 CXps, complete, 1.5e-05 s"]
    assert transcript_matches(["CXP {a}", "...", "2 AXps, 1 CXps, complete, 0.0004 s"], actual)
    assert transcript_matches(["CXP {a}", "AXP {a, ...}", "...", "2 AXps, ..."], actual)
    assert not transcript_matches(["CXP {a}", "AXP {c}", "...", "2 AXps, ..."], actual)
    assert not transcript_matches(["CXP {a}", "AXP {a, b}", "AXP {c}"], actual)
    assert not transcript_matches(["2 AXps, 1 CXps, complete, 0.0004 ms"], actual[-1:])
    assert output_matches('{"seconds": 0.001}', '{"seconds": 5.8e-05}')
    assert not output_matches('{"count": 1}', '{"count": 2}')


def test_a_wrong_transcript_fails(workdir: Path) -> None:
    from xpg import __version__

    right = f"$ xpg --version\nxpg {__version__}\n"
    assert check_transcript(right, workdir) == []
    wrong = "$ xpg --version\nxpg 0.0.0-wrong\n"
    assert check_transcript(wrong, workdir, "wrong.md", 5) == [
        "wrong.md:5: $ xpg --version\n  states:\n    xpg 0.0.0-wrong\n"
        f"  prints:\n    xpg {__version__}"
    ]
    with pytest.raises(ValueError, match="xpg commands only"):
        check_transcript("$ ls\n", workdir)
