"""``xpg COMMAND ...`` builds the parser of that command alone (start-up, issue 13): it must be
the very parser the whole ``xpg`` parser holds for it, and anything else gets the whole one."""

from __future__ import annotations

import argparse
from typing import Any

from xpg.cli.main import build_parser, main


def _commands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(sub.choices)


def _shape(parser: argparse.ArgumentParser) -> list[Any]:
    return [
        (type(a).__name__, a.dest, a.option_strings, a.nargs, a.default, a.required, a.help)
        for a in parser._actions
    ] + [sorted(parser._defaults.items(), key=lambda kv: kv[0])]


def test_each_command_alone_is_the_command_of_the_whole_parser() -> None:
    whole = _commands(build_parser())
    assert len(whole) > 8
    for name, expected in whole.items():
        alone = _commands(build_parser(name))
        assert list(alone) == [name]
        assert _shape(alone[name]) == _shape(expected), name
        assert alone[name].format_help() == expected.format_help()


def test_unknown_commands_get_the_whole_parser(capsys: Any) -> None:
    assert set(_commands(build_parser("no-such-command"))) == set(_commands(build_parser()))
    assert main(["no-such-command"]) == 2
    assert "invalid choice: 'no-such-command'" in capsys.readouterr().err
