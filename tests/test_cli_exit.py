"""Exit codes every command shares (commands/_args.guarded): 2 for a bad option, 1 for bad
input, 141 when the reader of stdout leaves early (``neardup ... | head``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from bad_input import cli

from neardup.index import Index


def _docs(n: int) -> str:
    return "".join(
        json.dumps({"id": f"d{i}", "text": f"doc {i} alpha beta gamma delta {i % 7}"}) + "\n"
        for i in range(n)
    )


def _closed_pipe(args: list[str], stdin: str) -> subprocess.CompletedProcess[bytes]:
    """Run ``neardup ARGS`` and close its stdout after the first line."""
    env = dict(os.environ, PYTHONIOENCODING="utf-8")
    proc = subprocess.Popen(
        [sys.executable, "-m", "neardup", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    proc.stdin.write(stdin.encode())
    proc.stdin.close()
    proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read()
    proc.wait(timeout=120)
    return subprocess.CompletedProcess(args, proc.returncode, b"", err)


def test_index_query_exits_141_on_a_closed_pipe(tmp_path):
    path = tmp_path / "ix.ndx"
    with Index(path, threshold=0.5, num_perm=16) as ix:
        ix.add(["a"], ["doc alpha beta gamma delta"])
    # 20,000 result lines (~40 bytes each) overflow any pipe buffer
    done = _closed_pipe(["index", "query", str(path), "-"], _docs(20_000))
    assert done.returncode == 141, done.stderr
    assert b"Traceback" not in done.stderr


def test_dedup_exits_141_on_a_closed_pipe():
    done = _closed_pipe(["dedup", "-", "-o", "-", "-q", "--threshold", "0.9"], _docs(20_000))
    assert done.returncode == 141, done.stderr


def test_index_bad_option_exits_2_and_bad_input_1(tmp_path):
    path = tmp_path / "ix.ndx"
    bad_option = cli("index", "query", str(path), "-", "--batch-size", "0", stdin="")
    assert bad_option.returncode == 2, bad_option.stderr
    assert "neardup index query: error: --batch-size" in bad_option.stderr
    missing = cli("index", "stats", str(path))
    assert missing.returncode == 1 and "no such index" in missing.stderr
