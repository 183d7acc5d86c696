"""The row type of the bad-input matrix (tests/test_bad_input.py) and helpers to build rows.

A row is one bad input and the exact documented behaviour: the exception class and a
fragment of its message, or (for the command line) the exit code and a fragment of stderr.
Each area keeps its rows in a module of its own (``bad_input_<area>.py`` exposing ``ROWS``);
the matrix collects them all.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Row:
    """``call(tmp_path)`` must raise ``raises`` with ``match`` in its message; or, when
    ``raises`` is None, return a value for which ``check`` holds."""

    name: str
    call: Callable[[Path], Any]
    raises: type[BaseException] | None = None
    match: str = ""
    check: Callable[[Any], bool] | None = None


def cli(*args: str, stdin: str | None = None, cwd: Path | None = None) -> Any:
    """Run ``python -m neardup ARGS`` and return the CompletedProcess (text mode)."""
    env = dict(os.environ, PYTHONIOENCODING="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "neardup", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=120,
    )


def exits(code: int, fragment: str) -> Callable[[Any], bool]:
    """A check: the process exited with ``code`` and ``fragment`` is in its stderr."""

    def check(proc: Any) -> bool:
        return proc.returncode == code and fragment in proc.stderr

    return check
