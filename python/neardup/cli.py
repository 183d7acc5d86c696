"""The ``neardup`` command line. Each subcommand lives in ``neardup/commands/<name>.py`` and
exposes ``add_parser(subparsers)`` and ``run(args) -> int``."""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from neardup.commands._config import add_config_option, apply_config

#: Subcommand modules under neardup.commands, in the order ``neardup --help`` lists them.
COMMANDS = ("demo", "synth", "dedup", "calibrate", "index", "reproduce")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand registered.

    >>> build_parser().prog
    'neardup'
    """
    parser = argparse.ArgumentParser(
        prog="neardup", description="Find near-duplicate documents cheaply."
    )
    parser.add_argument("--version", action="version", version=_version())
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"neardup.commands.{name}").add_parser(subparsers)
    for sub in _leaf_parsers(parser):
        add_config_option(sub)
    return parser


def _leaf_parsers(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    """The parsers that run something (``dedup``, ``index add``, ...), nested ones included."""
    leaves: list[argparse.ArgumentParser] = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in dict.fromkeys(action.choices.values()):
                nested = _leaf_parsers(sub)
                leaves.extend(nested if nested else [sub])
    return leaves


def _parser_of(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.ArgumentParser:
    """The leaf parser the words of ``argv`` select (for ``--config``)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for i, word in enumerate(argv):
                if word in action.choices:
                    return _parser_of(action.choices[word], argv[i + 1 :])
    return parser


def _version() -> str:
    from neardup import __version__

    return f"neardup {__version__}"


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``neardup`` script; returns the exit code.

    >>> main(["--help"])  # doctest: +SKIP
    """
    from neardup.errors import NeardupError

    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        parser.print_help(sys.stderr)
        return 2
    try:
        if getattr(args, "config", None):
            words = sys.argv[1:] if argv is None else argv
            apply_config(_parser_of(parser, words), args.config)
            args = parser.parse_args(argv)  # the command line wins over the file
        return int(args.run(args) or 0)
    except NeardupError as error:  # a bad option or input: one line, no traceback
        print(f"neardup {args.command}: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `neardup ... | head`: the reader left; not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


if __name__ == "__main__":
    sys.exit(main())
