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


SAME = "is the same file as input"
ROWS = [
    Row("dedup -o <input>", _same_file("-o"), check=_refused(SAME)),
    Row("dedup --clusters <input>", _same_file("--clusters"), check=_refused(SAME)),
    Row("dedup --report <input>", _same_file("--report"), check=_refused(SAME)),
    Row("dedup -o <hard link to input>", _same_file("-o", "hard"), check=_refused(SAME)),
    Row("dedup -o <symlink to input>", _same_file("-o", "symbolic"), check=_refused(SAME)),
    Row("dedup --batch-size 0", _dedup("--batch-size", "0"), check=exits(2, "batch_size")),
    Row("dedup --threshold 5", _dedup("--threshold", "5"), check=exits(2, "threshold")),
]
