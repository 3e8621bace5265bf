"""A new user's path without walls (issue 28): the data variable, a data table given where a
model belongs, and an example in every command's ``--help``.

(The wheel install and the README's tour from it: ``tests/test_wheel_tour.py``; bad Python
arguments: ``tests/test_bad_api_input.py``; ``xpg learn``'s refusals:
``tests/cli/test_learn_cli.py`` and ``tests/learn/test_from_table.py``.)
"""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
from conftest import SHARED

from xpg.cli.main import build_parser, main
from xpg.errors import DataNotFoundError, ParseError
from xpg.io.model_json import load_model_text
from xpg.io.xpg_format import read_xpg_text
from xpg.learn import datasets
from xpg.learn.datasets import default_data_dir, load_dataset


# -- one data variable -----------------------------------------------------------------------------
@pytest.fixture
def no_data_variables(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    monkeypatch.delenv("XPG_DATA_DIR", raising=False)
    monkeypatch.delenv("XPG_SHARED_DIR", raising=False)
    return monkeypatch


def test_xpg_shared_dir_names_the_shared_folder(no_data_variables: pytest.MonkeyPatch) -> None:
    """The variable the README names (was ignored by the library: only XPG_DATA_DIR worked)."""
    no_data_variables.setenv("XPG_SHARED_DIR", str(SHARED))
    assert default_data_dir() == SHARED / "datasets"
    assert load_dataset("pmlb/corral").X.shape == (160, 6)


def test_xpg_data_dir_is_an_alias_that_wins(
    no_data_variables: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    no_data_variables.setenv("XPG_SHARED_DIR", str(tmp_path))
    no_data_variables.setenv("XPG_DATA_DIR", str(SHARED / "datasets"))
    assert default_data_dir() == SHARED / "datasets"


def test_in_a_checkout_the_default_is_the_shared_folder_beside_it(
    no_data_variables: pytest.MonkeyPatch,
) -> None:
    root = datasets.checkout_root()
    assert root is not None and (root / "pyproject.toml").is_file()
    assert default_data_dir() == root.parent / "shared" / "datasets"


def test_outside_a_checkout_the_error_says_which_variable_to_set(
    no_data_variables: pytest.MonkeyPatch,
) -> None:
    """From a wheel there is no repository root: the library looked inside the environment
    (``.../lib/python3.X/shared/datasets``) and said to set XPG_DATA_DIR."""
    no_data_variables.setattr(datasets, "checkout_root", lambda: None)
    for call in (default_data_dir, lambda: load_dataset("pmlb/corral")):
        with pytest.raises(DataNotFoundError) as err:
            call()
        assert str(err.value).startswith(
            "no data directory: set XPG_SHARED_DIR to the shared folder holding datasets/ "
            "(or pass data_dir); xpg is installed at "
        )


def test_a_missing_data_directory_says_where_it_came_from(
    no_data_variables: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    no_data_variables.setenv("XPG_SHARED_DIR", str(tmp_path / "gone"))
    with pytest.raises(DataNotFoundError) as err:
        load_dataset("pmlb/corral")
    assert str(err.value) == (
        f"data directory {tmp_path / 'gone' / 'datasets'} not found ($XPG_SHARED_DIR/datasets; "
        "set XPG_SHARED_DIR to the shared folder holding datasets/)"
    )
    with pytest.raises(DataNotFoundError, match=r"not found \(given as data_dir\)$"):
        load_dataset("pmlb/corral", data_dir=tmp_path / "gone")


# -- a data table where a model belongs ------------------------------------------------------------
TABLE = "mean radius,mean texture,mean perimeter,target\n17.99,10.38,122.8,0\n20.57,17.77,132.9,0\n"
SAID = (
    "expected a model (.json) or an explanation graph (.xpg), found a CSV table "
    "(4 columns: 'mean radius', 'mean texture', 'mean perimeter', ...)"
)


def test_a_table_is_recognised() -> None:
    from xpg.io.xpg_format import table_description

    assert table_description("a\tb\n1\t2\n") == "a TSV table (2 columns: 'a', 'b')"
    assert table_description("\ufeffa,b,c\n1,2,3\n") == "a CSV table (3 columns: 'a', 'b', 'c')"
    assert table_description("a,b\n") == "a CSV table (2 columns: 'a', 'b')"
    for text in ("NN: 3\nRoot: 1\n", "# a, b\nNN: 1\n", '{"a": 1}', "a,b\n1,2,3\n", "just text"):
        assert table_description(text) is None, text


def test_a_table_read_as_a_graph_or_a_model_says_what_it_is() -> None:
    """Was "expected section 'NN:', found 'mean radius,mean texture,...'" and "malformed JSON"."""
    with pytest.raises(ParseError) as err:
        read_xpg_text(TABLE, path="data.csv")
    assert str(err.value) == f"data.csv: {SAID}"
    with pytest.raises(ParseError) as err:
        load_model_text(TABLE, "data.json")
    assert str(err.value) == f"data.json: {SAID}"


@pytest.mark.parametrize(
    "argv",
    [
        ["axp", "{csv}"],
        ["enum", "{csv}"],
        ["validate", "{csv}"],
        ["axp", "{json}", "--instance", "target=0"],
        ["explain", "{csv}", "--data", "{csv}"],
        ["verify", "{csv}", "--instance", "target=0", "--axp", "target"],
        ["robustness", "{json}", "--instance", "target=0"],
        # a .csv with --instance was called "an explanation graph (.xpg)"
        ["axp", "{csv}", "--instance", "target=0"],
        ["robustness", "{csv}", "--instance", "target=0"],
    ],
    ids=[
        "axp",
        "enum",
        "validate",
        "axp-json",
        "explain",
        "verify",
        "robustness",
        "axp-instance",
        "robustness-csv",
    ],
)
def test_every_command_given_a_table_as_the_model_says_so(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "data.csv").write_text(TABLE)
    (tmp_path / "data.json").write_text(TABLE)
    files = {"csv": str(tmp_path / "data.csv"), "json": str(tmp_path / "data.json")}
    args = [a.format(**files) for a in argv]
    assert main(args) == 2
    err = capsys.readouterr().err
    name = args[1]
    assert err == f"xpg {args[0]}: error: {name}: {SAID}\n"


# -- an example in every command's --help ----------------------------------------------------------
def _commands() -> list[tuple[list[str], object]]:
    """Every command and ``learn`` learner: (its words after ``xpg``, its parser)."""
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    out: list[tuple[list[str], object]] = []
    for name, p in sub.choices.items():  # type: ignore[attr-defined]
        out.append(([name], p))
        for action in p._actions:
            if action.dest == "learner":
                out += [([name, n], q) for n, q in action.choices.items()]  # type: ignore[union-attr]
    return out


def test_every_command_help_ends_with_an_example_that_parses(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``--help`` texts had no example (issue 28); each now ends with one line
    ``example: xpg ...`` for that command, which the parser accepts and which fits an
    80-column terminal without wrapping."""
    commands = _commands()
    assert len(commands) >= 20
    for words, p in commands:
        epilog = p.epilog  # type: ignore[attr-defined]
        assert epilog and epilog.startswith(f"example: xpg {' '.join(words)} "), words
        example = shlex.split(epilog.removeprefix("example: "))
        build_parser().parse_args(example[1:])  # exits with status 2 if it does not parse
        assert len(epilog) <= 78, epilog
        assert main([*words, "--help"]) == 0
        assert capsys.readouterr().out.rstrip().endswith(epilog), words
