"""Every option and positional of every command says what it is for (``--help``)."""

from __future__ import annotations

import argparse

import pytest

from neardup.cli import _leaf_parsers, build_parser

PARSERS = _leaf_parsers(build_parser())


@pytest.mark.parametrize("parser", PARSERS, ids=[p.prog for p in PARSERS])
def test_every_argument_has_help(parser: argparse.ArgumentParser) -> None:
    missing = [
        action.option_strings[-1] if action.option_strings else action.dest
        for action in parser._actions
        if not isinstance(action, argparse._HelpAction)
        and (action.help is None or not action.help.strip())
    ]
    assert not missing, f"{parser.prog}: no help for {missing}"
    assert parser.description or parser.format_usage()
