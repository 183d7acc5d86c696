"""Bad-input rows for the command line: refused before anything is read or written."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bad_input import Row, cli, exits

_ROWS = "".join(json.dumps({"id": i, "text": f"document number {i} " * 8}) + "\n" for i in range(5))


def _same_file(flag: str, link: str | None = None) -> Callable[[Path], Any]:
    """``neardup dedup c.jsonl FLAG <c.jsonl or a link to it>``: the input must survive."""

    def call(tmp: Path) -> Any:
        source = tmp / "c.jsonl"
        source.write_text(_ROWS)
        target = source
        if link == "hard":
            target = tmp / "hard.jsonl"
            os.link(source, target)
        elif link == "symbolic":
            target = tmp / "sym.jsonl"
            target.symlink_to(source)
        extra = [] if flag == "-o" else ["-o", str(tmp / "kept.jsonl")]
        proc = cli("dedup", str(source), *extra, flag, str(target), "-q")
        return proc, source.read_text() == _ROWS, not (tmp / "kept.jsonl").exists()

    return call


def _refused(fragment: str) -> Callable[[Any], bool]:
    def check(result: Any) -> bool:
        proc, input_intact, nothing_written = result
        one_line = len(proc.stderr.strip().splitlines()) == 1
        return exits(2, fragment)(proc) and one_line and input_intact and nothing_written

    return check


def _dedup(*args: str) -> Callable[[Path], Any]:
    def call(tmp: Path) -> Any:
        (tmp / "c.jsonl").write_text(_ROWS)
        return cli("dedup", str(tmp / "c.jsonl"), "-o", str(tmp / "kept.jsonl"), "-q", *args)

    return call


def _config(content: bytes | None, name: str = "c.toml") -> Callable[[Path], Any]:
    """``dedup --config FILE``: a folder (``content`` None), or a file of ``content``."""

    def call(tmp: Path) -> Any:
        path = tmp / name
        if content is None:
            path.mkdir()
        else:
            path.write_bytes(content)
        return _dedup("--config", str(path))(tmp)

    return call


def _one_line(code: int, fragment: str) -> Callable[[Any], bool]:
    def check(proc: Any) -> bool:
        return exits(code, fragment)(proc) and len(proc.stderr.strip().splitlines()) == 1

    return check


def _calibrate(*args: str) -> Callable[[Path], Any]:
    def call(tmp: Path) -> Any:
        (tmp / "c.jsonl").write_text(_ROWS)
        return cli("calibrate", str(tmp / "c.jsonl"), *args)

    return call


def _ray(*args: str) -> Callable[[Path], Any]:
    """``dedup --engine ray ARGS``: refused before Ray starts (or is even imported), so the
    answer is the same whether Ray is installed or not, and no output is written."""

    def call(tmp: Path) -> Any:
        proc = _dedup("--engine", "ray", *args)(tmp)
        return proc, not (tmp / "kept.jsonl").exists()

    return call


def _ray_refused(fragment: str) -> Callable[[Any], bool]:
    def check(result: Any) -> bool:
        proc, nothing_written = result
        return _one_line(2, fragment)(proc) and nothing_written

    return check


def _ray_fifo(tmp: Path) -> Any:
    os.mkfifo(tmp / "in.jsonl")
    proc = cli("dedup", str(tmp / "in.jsonl"), "-o", str(tmp / "kept.jsonl"), "--engine", "ray")
    return proc, not (tmp / "kept.jsonl").exists()


SAME = "is the same file as input"
ROWS = [
    Row("dedup -o <input>", _same_file("-o"), check=_refused(SAME)),
    Row("dedup --clusters <input>", _same_file("--clusters"), check=_refused(SAME)),
    Row("dedup --report <input>", _same_file("--report"), check=_refused(SAME)),
    Row("dedup -o <hard link to input>", _same_file("-o", "hard"), check=_refused(SAME)),
    Row("dedup -o <symlink to input>", _same_file("-o", "symbolic"), check=_refused(SAME)),
    Row("dedup --batch-size 0", _dedup("--batch-size", "0"), check=exits(2, "batch_size")),
    Row("dedup --threshold 5", _dedup("--threshold", "5"), check=exits(2, "threshold")),
    # issue 26 item 7: one line and exit 2, never a traceback
    Row("dedup --config <folder>", _config(None), check=_one_line(2, "is a folder, not a TOML")),
    Row(
        "dedup --config <non-UTF-8 file>",
        _config(b"k = 3\n\xff\xfe = 1\n"),
        check=_one_line(2, "not UTF-8 text (byte 6)"),
    ),
    Row(
        "dedup --config /dev/zero",
        lambda tmp: _dedup("--config", "/dev/zero")(tmp),
        check=_one_line(2, "larger than 1024 KiB"),
    ),
    Row(
        "dedup --batch-size 99999999999999999999",
        _dedup("--batch-size", "99999999999999999999"),
        check=_one_line(2, "batch_size must be at most 4611686018427387904"),
    ),
    Row(
        "calibrate --batch-size 99999999999999999999",
        _calibrate("--batch-size", "99999999999999999999"),
        check=_one_line(2, "batch_size must be at most"),
    ),
    Row(
        "synth --docs 99999999999999999999",
        lambda tmp: cli("synth", "--docs", "99999999999999999999", "-o", str(tmp / "s.jsonl")),
        check=_one_line(2, "--docs must be at most 1,000,000,000"),
    ),
    Row(
        "demo --docs 99999999999999999999",
        lambda tmp: cli("demo", "--docs", "99999999999999999999"),
        check=_one_line(2, "n_docs must be at most 1,000,000,000"),
    ),
    # issue 26 item 5: what the Ray engine cannot run is refused before Ray starts
    Row(
        "dedup --engine ray --keep longest",
        _ray("--keep", "longest"),
        check=_ray_refused("the Ray engine supports keep='first' only, got 'longest'"),
    ),
    Row(
        "dedup --engine ray --method exact-jaccard",
        _ray("--method", "exact-jaccard"),
        check=_ray_refused(
            "the Ray engine runs method='minhash' or 'simhash', not 'exact-jaccard'"
        ),
    ),
    Row(
        "dedup --engine ray --method simhash --within FIELD",
        _ray("--method", "simhash", "--within", "k"),
        check=_ray_refused("the Ray engine does not run method='simhash' within partitions"),
    ),
    Row(
        "dedup --engine ray --strip-boilerplate",
        _ray("--strip-boilerplate"),
        check=_ray_refused("the Ray engine does not strip boilerplate"),
    ),
    Row(
        "dedup --engine ray --pairs spanning",
        _ray("--pairs", "spanning"),
        check=_ray_refused("the Ray engine supports pairs='all' only"),
    ),
    Row(
        "dedup --engine ray -o <input>",
        lambda tmp: _ray("-o", str(tmp / "c.jsonl"))(tmp),
        check=_ray_refused(SAME),
    ),
    Row(
        "dedup --engine ray <fifo>",
        _ray_fifo,
        check=_ray_refused("--engine ray reads files, not stdin, a pipe or a device"),
    ),
]
