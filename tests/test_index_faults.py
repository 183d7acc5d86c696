"""Fault injection: ``kill -9`` the Python writer and ``neardup index add`` at random points,
reopen, check, and resume; the resumed ingest ends with the same index as an uninterrupted one.

Bounded: 10 kills of each writer on a small corpus (a few seconds each way).
"""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time

import pytest

from neardup.index import Index

N_DOCS, BATCH, LOOPS = 3000, 100, 10

WRITER = textwrap.dedent(
    """
    import json, sys
    from neardup.index import Index

    path, corpus, batch = sys.argv[1], sys.argv[2], int(sys.argv[3])
    rows = [json.loads(line) for line in open(corpus)]
    with Index(path, threshold=0.5) as ix:
        print("ready", flush=True)
        for s in range(0, len(rows), batch):
            part = rows[s : s + batch]
            ix.add([r["id"] for r in part], [r["text"] for r in part], skip_existing=True)
    """
)


def _corpus(path):
    rng = random.Random(5)
    base = [" ".join(f"w{rng.randrange(10**5)}" for _ in range(50)) for _ in range(N_DOCS // 2)]
    texts = base + [t.replace(t.split()[0], "changed", 1) for t in base]  # half near-duplicates
    rng.shuffle(texts)
    with open(path, "w") as f:
        for i, t in enumerate(texts):
            f.write(json.dumps({"id": f"doc-{i}", "text": t}) + "\n")
    return texts


def _env():
    return dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))


def _content(path):
    con = sqlite3.connect(path)
    docs = con.execute("SELECT doc, id, sig, shingles FROM docs ORDER BY doc").fetchall()
    bands = con.execute("SELECT band_key, doc FROM bands ORDER BY band_key, doc").fetchall()
    con.close()
    return docs, bands


def _assert_whole_batches(path):
    with Index(path) as ix:
        ix.check()
        n = len(ix)
        assert n % BATCH == 0, f"{n} documents: a batch was committed in part"
        present = [f"doc-{i}" in ix for i in range(0, N_DOCS, BATCH // 4)]
        assert present == sorted(present, reverse=True)  # a prefix of the batches, nothing else
        return n


def _committed(path):
    """Documents committed so far, read by a second connection (WAL: readers never block)."""
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=0.1)
        try:
            return int(con.execute("SELECT COUNT(*) FROM docs").fetchone()[0])
        finally:
            con.close()
    except sqlite3.Error:
        return 0


def _kill_loop(tmp_path, command, rng):
    """Start the writer, let it commit a few more batches than last time (a random count), then
    kill -9 it a random moment later: inside a transaction or between two. Waiting on progress
    rather than on the clock keeps the kills inside the ingest on a fast or a loaded machine."""
    path = tmp_path / "killed.ndx"
    counts = []
    batches = N_DOCS // BATCH
    for loop in range(LOOPS):
        proc = subprocess.Popen(
            command(path), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=_env()
        )
        target = BATCH * min(batches - 2, 1 + 2 * loop + rng.randrange(2))
        deadline = time.monotonic() + 60
        while proc.poll() is None and time.monotonic() < deadline:
            if path.exists() and _committed(path) >= target:
                break
            time.sleep(0.002)
        time.sleep(rng.uniform(0.0, 0.03))
        interrupted = proc.poll() is None
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        counts.append((interrupted, _assert_whole_batches(path)))
    done = subprocess.run(command(path), capture_output=True, env=_env(), timeout=120)
    assert done.returncode == 0, done.stderr
    assert _assert_whole_batches(path) == N_DOCS
    # the kills landed while the ingest was running, not only before or after it
    assert sum(1 for interrupted, n in counts if interrupted and n < N_DOCS) >= LOOPS // 2
    return path, counts


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("ref")
    corpus = tmp / "corpus.jsonl"
    texts = _corpus(corpus)
    path = tmp / "whole.ndx"
    with Index(path, threshold=0.5) as ix:
        for s in range(0, N_DOCS, BATCH):
            ix.add([f"doc-{i}" for i in range(s, s + BATCH)], texts[s : s + BATCH])
    return corpus, _content(path)


def test_killed_python_writer_resumes_to_the_same_index(tmp_path, reference):
    corpus, whole = reference
    path, _ = _kill_loop(
        tmp_path,
        lambda p: [sys.executable, "-c", WRITER, str(p), str(corpus), str(BATCH)],
        random.Random(1),
    )
    assert _content(path) == whole


def test_killed_cli_ingest_resumes_to_the_same_index(tmp_path, reference):
    corpus, whole = reference
    path, _ = _kill_loop(
        tmp_path,
        lambda p: [
            sys.executable,
            "-m",
            "neardup",
            "index",
            "add",
            str(p),
            str(corpus),
            "--threshold",
            "0.5",
            "--skip-existing",
            "--batch-size",
            str(BATCH),
        ],
        random.Random(2),
    )
    assert _content(path) == whole
