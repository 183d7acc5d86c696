"""Outputs that appear whole or not at all, even when a signal interrupts the run.

:func:`atomic_path` gives a temporary path beside the output and renames it over the output
on success; on any exception (``KeyboardInterrupt`` and a SIGTERM turned into an exception
included) the temporary file is deleted. Inside :func:`output_group` the renames wait for
:meth:`OutputGroup.commit`, so a command's outputs (kept rows, clusters, report) appear
together or not at all, and "no output written" stays true until the commit. The short
critical sections (create + register a temporary file, rename, delete) run with SIGINT and
SIGTERM held, so a signal cannot fall between creating a file and recording it.

>>> import os, tempfile
>>> d = tempfile.mkdtemp()
>>> with output_group() as group:
...     with atomic_path(os.path.join(d, "out.txt")) as tmp:
...         _ = open(tmp, "w").write("x")
...     print(os.listdir(d) == ["out.txt"])
...     _ = group.commit()
False
>>> os.listdir(d)
['out.txt']
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from types import FrameType

from neardup.errors import InputError

_HELD = (signal.SIGINT, signal.SIGTERM)


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """Hold SIGINT and SIGTERM for a short critical section (main thread only).

    A signal that arrives meanwhile is recorded and handed to the previous handler on exit
    (``KeyboardInterrupt`` is raised then; an uncaught SIGTERM then ends the process). This
    is done with Python handlers, not the thread's signal mask: a mask would not stop the
    signal from reaching another thread (Rust and Arrow pools), whose delivery still makes
    the main thread run the handler.

    >>> with signals_held():
    ...     pass
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pending: list[int] = []

    def _record(signum: int, frame: FrameType | None) -> None:
        pending.append(signum)

    previous = {s: signal.signal(s, _record) for s in _HELD}
    try:
        yield
    finally:
        for held, handler in previous.items():
            signal.signal(held, handler)
        for signum in dict.fromkeys(pending):
            before = previous[signal.Signals(signum)]
            if callable(before):
                before(signum, None)
            elif before == signal.SIG_DFL:
                os.kill(os.getpid(), signum)


def _remove(path: str, directory: bool) -> None:
    if directory:
        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(OSError):
            os.unlink(path)


def _rename(tmp: str, out: str, directory: bool) -> None:
    if directory:
        if os.path.isdir(out):
            os.rmdir(out)  # empty: checked when the temporary folder was made
    else:
        os.chmod(tmp, 0o644)
    os.replace(tmp, out)


@dataclass
class OutputGroup:
    """Finished temporary outputs waiting to be renamed into place together.

    >>> OutputGroup().committed
    []
    """

    pending: list[tuple[str, str, bool]] = field(default_factory=list)
    committed: list[str] = field(default_factory=list)

    def commit(self) -> list[str]:
        """Rename every pending output into place (signals held); return their paths.

        >>> OutputGroup().commit()
        []
        """
        with signals_held():
            while self.pending:
                tmp, out, directory = self.pending[0]
                _rename(tmp, out, directory)
                self.pending.pop(0)
                self.committed.append(out)
        return list(self.committed)

    def discard(self) -> None:
        """Delete every pending temporary output (signals held).

        >>> OutputGroup().discard()
        """
        with signals_held():
            for tmp, _, directory in self.pending:
                _remove(tmp, directory)
            self.pending.clear()


_group: OutputGroup | None = None


@contextlib.contextmanager
def output_group() -> Iterator[OutputGroup]:
    """Defer the renames of :func:`atomic_path` until ``commit()``; discard what is left.

    Leaving the block without ``commit()`` (an exception, an interrupted or failed
    command) deletes every temporary output the block made.

    >>> with output_group() as g:
    ...     pass
    >>> g.committed
    []
    """
    global _group
    outer, group = _group, OutputGroup()
    _group = group
    try:
        yield group
    finally:
        _group = outer
        group.discard()


@contextlib.contextmanager
def atomic_path(output: str | os.PathLike[str], directory: bool = False) -> Iterator[str]:
    """Yield a temporary path beside ``output``; rename it over ``output`` only on success.

    On any exception the temporary file (or folder) is removed and ``output`` is untouched.
    Inside :func:`output_group` the rename waits for the group's commit.

    >>> with atomic_path("kept.jsonl") as tmp:                        # doctest: +SKIP
    ...     open(tmp, "w").write("{}\\n")
    """
    out = os.path.abspath(os.fspath(output))
    parent = os.path.dirname(out)
    if not os.path.isdir(parent):
        raise InputError(f"{output}: directory {parent} does not exist")
    name = os.path.basename(out)
    if directory:
        if os.path.isdir(out) and os.listdir(out):
            raise InputError(f"{output}: output folder exists and is not empty")
    elif os.path.isdir(out):
        raise InputError(f"{output}: is a directory")
    tmp: str | None = None
    try:
        # A signal held here is raised on leaving the block, when ``tmp`` is already set.
        with signals_held():
            if directory:
                tmp = tempfile.mkdtemp(prefix=f".{name}.", suffix=".tmp", dir=parent)
            else:
                fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=parent)
                os.close(fd)
        yield tmp
    except BaseException:
        if tmp is not None:
            with signals_held():
                _remove(tmp, directory)
        raise
    with signals_held():
        if _group is not None:
            _group.pending.append((tmp, out, directory))
            return
        try:
            _rename(tmp, out, directory)
        except BaseException:
            _remove(tmp, directory)
            raise
