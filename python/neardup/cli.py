"""The ``neardup`` command line. Each subcommand lives in ``neardup/commands/<name>.py`` and
exposes ``add_parser(subparsers)`` and ``run(args) -> int``."""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import signal
import sys
import threading
import warnings
from collections.abc import Iterator
from types import FrameType
from typing import Any

from neardup import _core
from neardup._version import version
from neardup.commands._config import add_config_option, apply_config

#: Subcommand modules under neardup.commands, in the order ``neardup --help`` lists them.
COMMANDS = ("demo", "synth", "dedup", "decontaminate", "calibrate", "index", "reproduce")


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
    """``neardup --version``: the package, its hash version and the vector instructions the
    kernels use here (``NEARDUP_SIMD=avx2`` or ``none`` caps them; the bits do not change).

    >>> _version().startswith("neardup ")
    True
    """
    return f"neardup {version()} (hash version {_core.HASH_VERSION}, SIMD {_core.simd()})"


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised as an exception so that it unwinds through every ``with`` and
    ``finally`` (temporary files deleted) like Ctrl-C does; the exit code is 143."""


@contextlib.contextmanager
def _sigterm_raises() -> Iterator[list[int]]:
    """Turn SIGTERM into :class:`Terminated` while the block runs; yields the signals seen."""
    seen: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield seen  # only the main thread may set handlers (main() called from a thread)
        return

    def _raise(signum: int, frame: FrameType | None) -> None:
        seen.append(signum)
        raise Terminated

    old = signal.signal(signal.SIGTERM, _raise)
    try:
        yield seen
    finally:
        signal.signal(signal.SIGTERM, old)


@contextlib.contextmanager
def _warnings_as_lines(prefix: str) -> Iterator[None]:
    """While it is open, a :class:`neardup.errors.NeardupWarning` shows as one line on stderr
    (``neardup dedup: warning: ...``), not as Python's file, line and source; other warnings
    as Python shows them.

    >>> import warnings
    >>> from neardup.errors import NeardupWarning
    >>> with _warnings_as_lines("neardup dedup"), contextlib.redirect_stderr(sys.stdout):
    ...     warnings.warn_explicit("recall 0.9", NeardupWarning, "x.py", 1)
    neardup dedup: warning: recall 0.9
    """
    from neardup.errors import NeardupWarning

    python_shows = warnings.showwarning

    def show(message: Any, category: Any, *rest: Any, **kwargs: Any) -> None:
        if isinstance(category, type) and issubclass(category, NeardupWarning):
            print(f"{prefix}: warning: {message}", file=sys.stderr)
        else:
            python_shows(message, category, *rest, **kwargs)

    warnings.showwarning = show
    try:
        yield
    finally:
        warnings.showwarning = python_shows


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``neardup`` script; returns the exit code.

    A command's output files are renamed into place together, only when it succeeds
    (exit code 0): an interrupted or failed run leaves neither a partial output nor a
    temporary file, and "no output written" is then true.

    >>> main(["--help"])  # doctest: +SKIP
    """
    from neardup.errors import NeardupError

    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        parser.print_help(sys.stderr)
        return 2
    from neardup import io as ndio

    outputs: ndio.OutputGroup | None = None
    try:
        if getattr(args, "config", None):
            words = sys.argv[1:] if argv is None else argv
            apply_config(_parser_of(parser, words), args.config)
            args = parser.parse_args(argv)  # the command line wins over the file
        with (
            _warnings_as_lines(f"neardup {args.command}"),
            _sigterm_raises() as seen,
            ndio.output_group() as outputs,
        ):
            code = int(args.run(args) or 0)
            if seen:  # the command caught the interrupt itself (so nothing is committed)
                return 143
            if code == 0:
                outputs.commit()
            return code
    except NeardupError as error:  # a bad option or input: one line, no traceback
        print(f"neardup {args.command}: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `neardup ... | head`: the reader left; not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except KeyboardInterrupt as e:
        # A signal held during the commit is raised once every rename is done.
        written = outputs.committed if outputs is not None else []
        done = f"; already written: {', '.join(written)}" if written else "; no output written"
        print(f"neardup {args.command}: interrupted{done}", file=sys.stderr)
        return 143 if isinstance(e, Terminated) else 130


if __name__ == "__main__":
    sys.exit(main())
