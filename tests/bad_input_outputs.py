"""Bad-input rows for where outputs go (issue 26 item 1): what is replaced is only ever a
regular file. A symbolic link is written through to its target (the link stays); a
character device, a named pipe or an open descriptor (``/dev/null``, ``/dev/stdout``) is
written to in place, never replaced; what cannot be written to is refused with exit 2.

Device nodes are made with ``mknod`` in the test's folder (the same major/minor numbers as
``/dev/null`` and ``/dev/full``), so a regression replaces a copy, never the machine's own
``/dev/null``; one row writes to the real ``/dev/null`` and checks it is still a device.
"""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from bad_input import Row, cli, exits

from neardup import io as ndio
from neardup.errors import InvalidArgumentError

_ROWS = "".join(
    json.dumps({"id": i, "text": f"document number {i % 3} " * 8}) + "\n" for i in range(6)
)
_KEPT = "".join(
    json.dumps({"id": i, "text": f"document number {i % 3} " * 8}) + "\n" for i in range(3)
)


def _device(tmp: Path, name: str, minor: int) -> Path:
    """A character device like /dev/null (1, 3) or /dev/full (1, 7) in ``tmp``."""
    path = tmp / name
    try:
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, minor))
    except OSError as e:  # not root, or a file system without device nodes
        pytest.skip(f"mknod: {e}")
    return path


def _is_char_device(path: Path) -> bool:
    return stat.S_ISCHR(os.lstat(path).st_mode)


def _input(tmp: Path) -> Path:
    (tmp / "c.jsonl").write_text(_ROWS)
    return tmp / "c.jsonl"


def _to_device(*flags: str) -> Callable[[Path], Any]:
    """``neardup dedup c.jsonl FLAG <device> ...``: every flag names the same device node."""

    def call(tmp: Path) -> Any:
        dev = _device(tmp, "null", 3)
        args: list[str] = []
        for flag in flags:
            args += [flag, str(dev)]
        if "-o" not in flags:
            args += ["-o", str(tmp / "kept.jsonl")]
        proc = cli("dedup", str(_input(tmp)), "-q", *args)
        return proc, _is_char_device(dev), sorted(p.name for p in tmp.iterdir())

    return call


def _device_kept(result: Any) -> bool:
    proc, still_device, files = result
    return proc.returncode == 0 and still_device and not any(f.endswith(".tmp") for f in files)


def _real_dev_null(tmp: Path) -> Any:
    """The machine's own /dev/null, only once a copy of it came through the same command
    (a regression must not replace the real one under every other process)."""
    copy = _device(tmp, "null", 3)
    proc = cli("dedup", str(_input(tmp)), "-q", "-o", str(copy), "--report", str(copy))
    if proc.returncode != 0 or not _is_char_device(copy):
        return proc, False, []
    proc = cli("dedup", str(_input(tmp)), "-q", "-o", "/dev/null", "--report", "/dev/null")
    return proc, _is_char_device(Path("/dev/null")), []


def _through_link(flag: str, name: str) -> Callable[[Path], Any]:
    """``FLAG link`` where link -> target: the target gets the output; the link stays."""

    def call(tmp: Path) -> Any:
        (tmp / "out").mkdir()
        target = tmp / "out" / name
        target.write_text("old\n")
        link = tmp / f"link-{name}"
        link.symlink_to(target)
        args = [flag, str(link)] + ([] if flag == "-o" else ["-o", str(tmp / "kept.jsonl")])
        proc = cli("dedup", str(_input(tmp)), "-q", *args)
        leftovers = [p.name for p in tmp.iterdir() if p.name.endswith(".tmp")]
        leftovers += [p.name for p in (tmp / "out").iterdir() if p.name.endswith(".tmp")]
        return proc, link.is_symlink(), target.read_text(), leftovers

    return call


def _written_through(expected: Callable[[str], bool]) -> Callable[[Any], bool]:
    def check(result: Any) -> bool:
        proc, still_link, content, leftovers = result
        return proc.returncode == 0 and still_link and expected(content) and not leftovers

    return check


def _dangling_link(tmp: Path) -> Any:
    (tmp / "out").mkdir()
    link = tmp / "link.jsonl"
    link.symlink_to(tmp / "out" / "new.jsonl")
    proc = cli("dedup", str(_input(tmp)), "-q", "-o", str(link))
    return proc, link.is_symlink(), (tmp / "out" / "new.jsonl").read_text(), []


def _fifo(*flags: str, parquet: bool = False) -> Callable[[Path], Any]:
    """``FLAG fifo``, a named pipe read by a thread: the rows arrive, the pipe stays. With
    ``parquet`` the input (so the output) is Parquet, which Arrow's own files would seek in."""

    def call(tmp: Path) -> Any:
        source = _input(tmp)
        if parquet:
            pq = pytest.importorskip("pyarrow.parquet")
            pq.write_table(_table(source), tmp / "c.parquet")
            source = tmp / "c.parquet"
        fifo = tmp / "pipe"
        os.mkfifo(fifo)
        got: list[bytes] = []

        def read() -> None:
            with open(fifo, "rb") as f:
                got.append(f.read())

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        args = [a for flag in flags for a in (flag, str(fifo))]
        if "-o" not in flags:
            args += ["-o", str(tmp / "kept.jsonl")]
        proc = cli("dedup", str(source), "-q", *args)
        if proc.returncode != 0:  # the reader still waits for a writer: let it go
            with open(fifo, "wb"):
                pass
        reader.join(timeout=30)
        return proc, stat.S_ISFIFO(os.lstat(fifo).st_mode), b"".join(got)

    return call


def _streamed(expected: Callable[[bytes], bool]) -> Callable[[Any], bool]:
    def check(result: Any) -> bool:
        proc, still_fifo, data = result
        return proc.returncode == 0 and still_fifo and expected(data)

    return check


def _table(path: Path) -> Any:
    import pyarrow as pa

    return pa.Table.from_pylist([json.loads(line) for line in path.read_text().splitlines()])


def _parquet_rows(data: bytes) -> bool:
    import io

    import pyarrow.parquet as pq

    return pq.read_table(io.BytesIO(data)).num_rows == 3


def _to_stdout(tmp: Path) -> Any:
    """A link to /proc/self/fd/1, as /dev/stdout is (the machine's own /dev/stdout is not
    named: a regression would replace it)."""
    (tmp / "stdout").symlink_to("/proc/self/fd/1")
    proc = cli("dedup", str(_input(tmp)), "-q", "-o", str(tmp / "stdout"))
    return proc, (tmp / "stdout").is_symlink()


def _socket_output(tmp: Path) -> Any:
    path = tmp / "sock"
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(path))
        proc = cli("dedup", str(_input(tmp)), "-q", "-o", str(path))
        return proc, stat.S_ISSOCK(os.lstat(path).st_mode)
    finally:
        server.close()


def _folder_to_device(tmp: Path) -> Any:
    (tmp / "docs").mkdir()
    (tmp / "docs" / "a.txt").write_text("one two three")
    dev = _device(tmp, "null", 3)
    proc = cli("dedup", str(tmp / "docs"), "-q", "-o", str(dev))
    return proc, _is_char_device(dev)


def _refused(fragment: str) -> Callable[[Any], bool]:
    def check(result: Any) -> bool:
        proc, kept = result
        one_line = len(proc.stderr.strip().splitlines()) == 1
        return exits(2, fragment)(proc) and one_line and kept

    return check


def _full_device(tmp: Path) -> Any:
    dev = _device(tmp, "full", 7)
    proc = cli("dedup", str(_input(tmp)), "-q", "-o", str(dev))
    return proc, _is_char_device(dev)


def _full_disk(flag: str, name: str) -> Callable[[Path], Any]:
    """``FLAG small/NAME`` on a 64 KiB tmpfs that the output overfills: exit 1, an error
    naming the output, and no temporary file left on the full disk."""

    def call(tmp: Path) -> Any:
        if os.geteuid() != 0:
            pytest.skip("mounting needs root")
        small = tmp / "small"
        small.mkdir()
        mount = ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(small)]
        if subprocess.run(mount, capture_output=True).returncode != 0:
            pytest.skip("cannot mount a tmpfs here")
        try:
            words = [  # about 600 KB of rows, pairs of duplicates (so clusters too)
                " ".join(f"w{(i // 2 * 7919 + j * 104729) % 1000003}" for j in range(30))
                for i in range(3000)
            ]
            rows = "".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in enumerate(words))
            (tmp / "big.jsonl").write_text(rows)
            extra = [] if flag == "-o" else ["-o", str(tmp / "kept.jsonl")]
            proc = cli("dedup", str(tmp / "big.jsonl"), "-q", flag, str(small / name), *extra)
            return proc, sorted(p.name for p in small.iterdir())
        finally:
            subprocess.run(["umount", str(small)], check=False)

    return call


def _names_full(name: str) -> Callable[[Any], bool]:
    def check(result: Any) -> bool:
        proc, left = result
        one_line = len(proc.stderr.strip().splitlines()) == 1
        named = f"small/{name}'" in proc.stderr
        return exits(1, "No space left on device")(proc) and named and one_line and left == []

    return check


def _folder_bad_name(flag: str, name: str) -> Callable[[Path], Any]:
    """A folder holding a file whose name is not UTF-8, with an output that must write its
    id as text: an error naming the id, exit 1, nothing written."""

    def call(tmp: Path) -> Any:
        (tmp / "docs").mkdir()
        for file, text in ((b"a\xff.txt", "one two three four"), (b"b.txt", "one two three four")):
            with open(os.path.join(os.fsencode(tmp / "docs"), file), "wb") as f:
                f.write(text.encode())
        extra = [] if flag == "-o" else ["-o", str(tmp / "kept")]
        proc = cli("dedup", str(tmp / "docs"), "-q", "--k", "2", flag, str(tmp / name), *extra)
        return proc, sorted(p.name for p in tmp.iterdir())

    return call


def _bad_name_refused(fragment: str) -> Callable[[Any], bool]:
    def check(result: Any) -> bool:
        proc, files = result
        one_line = len(proc.stderr.strip().splitlines()) == 1
        return exits(1, fragment)(proc) and one_line and files == ["docs"]

    return check


def _api_table_to_device(tmp: Path) -> Any:
    dev = _device(tmp, "null", 3)
    ndio.write_table([{"id": 1, "cluster": 0}], dev)
    return _is_char_device(dev)


def _api_table_through_link(tmp: Path) -> Any:
    target = tmp / "t.csv"
    target.write_text("old\n")
    (tmp / "l.csv").symlink_to(target)
    ndio.write_table([{"id": 1, "cluster": 0}], tmp / "l.csv")
    return (tmp / "l.csv").is_symlink(), target.read_text()


def _calibrate_plot_link(tmp: Path) -> Any:
    pytest.importorskip("matplotlib")
    target = tmp / "plot.png"
    target.write_bytes(b"old")
    (tmp / "link.png").symlink_to(target)
    dev = _device(tmp, "null", 3)
    proc = cli("calibrate", str(_input(tmp)), "--k", "2", "--plot", str(tmp / "link.png"))
    proc2 = cli("calibrate", str(_input(tmp)), "--k", "2", "--plot", str(dev))
    png = target.read_bytes().startswith(b"\x89PNG")
    return proc, proc2, (tmp / "link.png").is_symlink() and png and _is_char_device(dev)


ROWS = [
    Row("dedup -o <char device>", _to_device("-o"), check=_device_kept),
    Row(
        "dedup -o/--clusters/--report/--annotate <one char device>",
        _to_device("-o", "--clusters", "--report", "--annotate"),
        check=_device_kept,
    ),
    Row("dedup -o /dev/null --report /dev/null", _real_dev_null, check=_device_kept),
    Row(
        "dedup -o <symlink>",
        _through_link("-o", "t.jsonl"),
        check=_written_through(lambda text: text == _KEPT),
    ),
    Row(
        "dedup --clusters <symlink>",
        _through_link("--clusters", "t.csv"),
        check=_written_through(lambda text: text.startswith("id,cluster")),
    ),
    Row(
        "dedup --report <symlink>",
        _through_link("--report", "t.md"),
        check=_written_through(lambda text: text.startswith("# Deduplication report")),
    ),
    Row(
        "dedup --annotate <symlink>",
        _through_link("--annotate", "t.jsonl"),
        check=_written_through(lambda text: text.count("\n") == 6 and '"keep"' in text),
    ),
    Row(
        "dedup -o <dangling symlink>",
        _dangling_link,
        check=_written_through(lambda text: text == _KEPT),
    ),
    Row(
        "dedup -o <fifo>",
        _fifo("-o"),
        check=_streamed(lambda data: data.decode() == _KEPT),
    ),
    Row(
        "dedup --clusters <fifo>",
        _fifo("--clusters"),
        check=_streamed(lambda data: data.decode().count('"cluster"') == 6),
    ),
    Row("dedup <parquet> -o <fifo>", _fifo("-o", parquet=True), check=_streamed(_parquet_rows)),
    Row(
        "dedup -o <link to /proc/self/fd/1, as /dev/stdout>",
        _to_stdout,
        check=lambda r: r[0].returncode == 0 and r[0].stdout == _KEPT and r[1],
    ),
    Row("dedup -o <socket>", _socket_output, check=_refused("is a socket")),
    Row(
        "dedup <folder> -o <char device>",
        _folder_to_device,
        check=_refused("is a character device, not a folder"),
    ),
    Row(
        "dedup -o <full device> (disk full)",
        _full_device,
        check=lambda r: exits(1, "No space left on device")(r[0]) and "full" in r[0].stderr,
    ),
    Row(
        "dedup -o <file on a full disk>",
        _full_disk("-o", "kept.jsonl"),
        check=_names_full("kept.jsonl"),
    ),
    Row(
        "dedup --clusters <file on a full disk>",
        _full_disk("--clusters", "c.csv"),
        check=_names_full("c.csv"),
    ),
    Row(
        "dedup <folder, a non-UTF-8 file name> --clusters c.csv",
        _folder_bad_name("--clusters", "c.csv"),
        check=_bad_name_refused("c.csv: row 1: id 'a\\udcff.txt' is not valid Unicode"),
    ),
    Row(
        "dedup <folder, a non-UTF-8 file name> -o k.jsonl",
        _folder_bad_name("-o", "k.jsonl"),
        check=_bad_name_refused("a\\udcff.txt: JSONL cannot hold this row"),
    ),
    Row("write_table(<char device>)", _api_table_to_device, check=lambda still: still is True),
    Row(
        "write_table(<symlink>)",
        _api_table_through_link,
        check=lambda r: r == (True, "id,cluster\n1,0\n"),
    ),
    Row(
        "atomic_path(<char device>, directory=True)",
        lambda tmp: ndio.atomic_path(_device(tmp, "null", 3), directory=True).__enter__(),
        InvalidArgumentError,
        "not a folder",
    ),
    Row(
        "calibrate --plot <symlink> / <char device>",
        _calibrate_plot_link,
        check=lambda r: r[0].returncode == 0 and r[1].returncode == 0 and r[2],
    ),
]
