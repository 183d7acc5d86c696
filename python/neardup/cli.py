"""The ``neardup`` command line. Each subcommand lives in ``neardup/commands/<name>.py`` and
exposes ``add_parser(subparsers)`` and ``run(args) -> int``."""

from __future__ import annotations

import argparse
import importlib
import sys

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
        return int(args.run(args) or 0)
    except NeardupError as error:  # a bad option or input: one line, no traceback
        print(f"neardup {args.command}: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
