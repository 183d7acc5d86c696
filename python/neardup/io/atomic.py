"""Outputs that appear whole or not at all, even when a signal interrupts the run.

:func:`atomic_path` gives a temporary path beside the output and renames it over the output
on success; on any exception (``KeyboardInterrupt`` and a SIGTERM turned into an exception
included) the temporary file is deleted. Inside :func:`output_group` the renames wait for
:meth:`OutputGroup.commit`, so a command's outputs (kept rows, clusters, report) appear
together or not at all, and "no output written" stays true until the commit. The short
critical sections (create + register a temporary file, rename, delete) run with SIGINT and
SIGTERM held, so a signal cannot fall between creating a file and recording it.

What is replaced is always a regular file (:func:`output_target`): a symbolic link is
written through (the temporary file is made beside the link's target and renamed over the
target; the link stays), and a character device, a named pipe or a path naming an open
descriptor (``/dev/null``, ``/dev/stdout``, ``/dev/fd/N``) is written to directly, never
replaced. An error writing an output names its path.

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
import re
import shutil
import signal
import stat
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from types import FrameType

from neardup.errors import InputError, InvalidArgumentError

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
        try:  # a file replaced keeps its permissions
            mode = stat.S_IMODE(os.stat(out).st_mode)
        except OSError:
            mode = 0o644
        os.chmod(tmp, mode)
    os.replace(tmp, out)


#: Paths that name an open file descriptor rather than a file (``/dev/stdout``, ...).
_DESCRIPTOR = re.compile(r"/dev/(std(in|out|err)|fd/\d+)|/proc/[^/]+/fd/\d+")


def _names_descriptor(path: str) -> bool:
    """True when ``path`` or a link it leads through names an open descriptor."""
    for _ in range(40):  # the kernel's own limit on links followed
        if _DESCRIPTOR.fullmatch(path):
            return True
        if not os.path.islink(path):
            return False
        path = os.path.normpath(os.path.join(os.path.dirname(path), os.readlink(path)))
    return False


def output_target(output: str | os.PathLike[str], directory: bool = False) -> tuple[str, bool]:
    """``(path, streamed)``: where an output is written, and whether it is written to directly.

    A regular file (or a new name) is replaced through a temporary file: ``path`` is the
    file itself, a symbolic link's final target (so the link is written through, as ``cp``
    and ``sort -o`` do). A character device, a named pipe or a path naming an open
    descriptor (``/dev/stdout``, ``/dev/fd/3``) is ``streamed``: written to in place, never
    replaced. Other kinds (a block device, a socket), or a stream where a folder is written,
    are refused.

    >>> output_target("/dev/null")
    ('/dev/null', True)
    >>> output_target("kept.jsonl")[1]
    False
    """
    out = os.path.abspath(os.fspath(output))
    try:
        st: os.stat_result | None = os.stat(out)
    except FileNotFoundError:
        st = None
    except OSError as e:  # a link loop, a component that is no folder, no permission
        raise InputError(f"{output}: cannot write there ({e.strerror})") from None
    kind = _kind(st)
    if kind in ("character device", "named pipe") or (_names_descriptor(out) and kind != "folder"):
        if directory:
            raise InvalidArgumentError(f"{output}: is a {kind or 'descriptor'}, not a folder")
        return out, True
    if kind not in (None, "file", "folder"):
        raise InvalidArgumentError(f"{output}: is a {kind}; write to a file, a device or a pipe")
    return os.path.realpath(out), False


def _kind(st: os.stat_result | None) -> str | None:
    if st is None:
        return None
    for test, name in (
        (stat.S_ISREG, "file"),
        (stat.S_ISDIR, "folder"),
        (stat.S_ISCHR, "character device"),
        (stat.S_ISFIFO, "named pipe"),
        (stat.S_ISBLK, "block device"),
        (stat.S_ISSOCK, "socket"),
    ):
        if test(st.st_mode):
            return name
    return "special file"


def is_streamed(output: str | os.PathLike[str]) -> bool:
    """True when ``output`` is written to in place (:func:`output_target`): a device, a pipe,
    an open descriptor.

    >>> is_streamed("/dev/null"), is_streamed("kept.jsonl")
    (True, False)
    """
    out = os.fspath(output)
    if out == "-":
        return False
    kind = _kind(_stat(out))
    return kind in ("character device", "named pipe") or (
        kind != "folder" and _names_descriptor(os.path.abspath(out))
    )


def _stat(path: str) -> os.stat_result | None:
    try:
        return os.stat(path)
    except OSError:
        return None


def naming(error: OSError, output: str | os.PathLike[str]) -> OSError:
    """``error`` with the output's path in its message (a full disk says which file).

    >>> str(naming(OSError(28, "No space left on device"), "kept.jsonl"))
    "[Errno 28] No space left on device: 'kept.jsonl'"
    """
    out = os.fspath(output)
    if (error.filename is not None and str(error.filename) == out) or out in str(error):
        return error
    if error.errno is not None:
        with contextlib.suppress(TypeError):  # a subclass with a constructor of its own
            return type(error)(error.errno, error.strerror or str(error), out)
    return OSError(f"{out}: {error}")


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
    Inside :func:`output_group` the rename waits for the group's commit. A symbolic link is
    written through to its target; a device, a pipe or an open descriptor is yielded itself
    and written to in place (:func:`output_target`). An ``OSError`` raised in the block
    names ``output``.

    >>> with atomic_path("kept.jsonl") as tmp:
    ...     open(tmp, "w").write("{}\\n")
    3
    >>> open("kept.jsonl").read()
    '{}\\n'
    """
    out, streamed = output_target(output, directory)
    if streamed:
        try:
            yield out
        except OSError as e:
            raise naming(e, output) from e
        return
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
    except BaseException as e:
        if tmp is not None:
            with signals_held():
                _remove(tmp, directory)
        if isinstance(e, OSError):
            raise naming(e, output) from e
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
