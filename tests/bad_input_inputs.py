"""Bad-input rows for inputs that can be read only once (issue 26 item 4): a named pipe,
``/dev/stdin``, ``<(...)`` (``/dev/fd/N``). Each is spooled on opening and read from the
spool, so no pass waits on a pipe whose writer has gone; its format is its extension's, else
JSONL (as ``-``). Each row has a timeout of its own: a hang fails the row.
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bad_input import Row

_ROWS = "".join(
    json.dumps({"id": i, "text": f"document number {i % 3} " * 8}) + "\n" for i in range(6)
)
_KEPT = "".join(
    json.dumps({"id": i, "text": f"document number {i % 3} " * 8}) + "\n" for i in range(3)
)
#: Seconds a row may take; the runs themselves take about one.
TIMEOUT = 60


def _run(args: list[str], **kw: Any) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONIOENCODING="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "neardup", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=TIMEOUT,
        **kw,
    )


def _feed(fifo: Path, data: bytes) -> threading.Thread:
    """A thread writing ``data`` into the named pipe ``fifo`` once, then closing it."""

    def write() -> None:
        try:
            with open(fifo, "wb") as f:
                f.write(data)
        except BrokenPipeError:
            pass

    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    return thread


def _unblock(fifo: Path) -> None:
    """Let a feeder still waiting for a reader go (the command refused the input)."""
    fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    os.close(fd)


def _fifo_dedup(name: str, data: bytes, *extra: str) -> Callable[[Path], Any]:
    def call(tmp: Path) -> Any:
        fifo = tmp / name
        os.mkfifo(fifo)
        feeder = _feed(fifo, data)
        try:
            proc = _run(["dedup", str(fifo), "-o", str(tmp / "kept.jsonl"), "-q", *extra])
        finally:
            _unblock(fifo)
            feeder.join(timeout=TIMEOUT)
        kept = tmp / "kept.jsonl"
        return proc, kept.read_text() if kept.exists() else None

    return call


def _kept(result: Any) -> bool:
    proc, kept = result
    return proc.returncode == 0 and kept == _KEPT


def _dev_stdin(tmp: Path) -> Any:
    proc = _run(["dedup", "/dev/stdin", "-o", str(tmp / "kept.jsonl"), "-q"], input=_ROWS)
    kept = tmp / "kept.jsonl"
    return proc, kept.read_text() if kept.exists() else None


def _dev_fd(tmp: Path) -> Any:
    """``neardup dedup <(cat c.jsonl)``: the shell passes a pipe as /dev/fd/N."""
    read, write = os.pipe()
    feeder = threading.Thread(
        target=lambda: (os.write(write, _ROWS.encode()), os.close(write)), daemon=True
    )
    feeder.start()
    try:
        proc = _run(
            ["dedup", f"/dev/fd/{read}", "-o", str(tmp / "kept.jsonl"), "-q"], pass_fds=(read,)
        )
    finally:
        os.close(read)
        feeder.join(timeout=TIMEOUT)
    kept = tmp / "kept.jsonl"
    return proc, kept.read_text() if kept.exists() else None


def _index_add_fifo(tmp: Path) -> Any:
    fifo = tmp / "in.jsonl"
    os.mkfifo(fifo)
    feeder = _feed(fifo, _ROWS.encode())
    try:
        proc = _run(["index", "add", str(tmp / "ix.ndx"), str(fifo)])
    finally:
        _unblock(fifo)
        feeder.join(timeout=TIMEOUT)
    return proc


def _calibrate_fifo(tmp: Path) -> Any:
    fifo = tmp / "in.jsonl"
    os.mkfifo(fifo)
    feeder = _feed(fifo, _ROWS.encode())
    try:
        return _run(["calibrate", str(fifo), "--k", "2"])
    finally:
        _unblock(fifo)
        feeder.join(timeout=TIMEOUT)


ROWS = [
    Row("dedup <fifo>.jsonl", _fifo_dedup("in.jsonl", _ROWS.encode()), check=_kept),
    Row(
        "dedup <fifo>.jsonl.gz",
        _fifo_dedup("in.jsonl.gz", gzip.compress(_ROWS.encode())),
        check=_kept,
    ),
    Row("dedup <fifo without extension>", _fifo_dedup("pipe", _ROWS.encode()), check=_kept),
    Row(
        "dedup <fifo> --annotate --clusters (three passes)",
        lambda tmp: _fifo_dedup(
            "in.jsonl",
            _ROWS.encode(),
            "--annotate",
            str(tmp / "all.jsonl"),
            "--clusters",
            str(tmp / "c.csv"),
        )(tmp),
        check=_kept,
    ),
    Row(
        "dedup <fifo> with bad JSON",
        _fifo_dedup("in.jsonl", b'{"text": "a"}\nnot json\n'),
        check=lambda r: r[0].returncode == 1 and "in.jsonl:2: invalid JSON" in r[0].stderr,
    ),
    Row("dedup /dev/stdin", _dev_stdin, check=_kept),
    Row("dedup /dev/fd/N (<(...))", _dev_fd, check=_kept),
    Row(
        "index add <fifo>",
        _index_add_fifo,
        check=lambda proc: proc.returncode == 0 and "index holds 6" in proc.stderr,
    ),
    Row(
        "calibrate <fifo>",
        _calibrate_fifo,
        check=lambda proc: proc.returncode == 0 and "threshold" in proc.stdout + proc.stderr,
    ),
]
